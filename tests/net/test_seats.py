"""The seats on their own: who holds them, tokens, names, presence."""

from __future__ import annotations

from quackbox.net.journal import Header, token_hash
from quackbox.net.protocol import BOT, HUMAN, OPEN
from quackbox.net.seats import Seats


def test_the_host_holds_seat_0_and_the_last_seats_are_bots():
    seats = Seats(4, host_name="\x1b[31mHana", host_token="t0", bots=2)
    assert [s.kind for s in seats] == [HUMAN, OPEN, BOT, BOT]
    assert seats.names == ("Hana", "", "Bot 3", "Bot 4")
    assert seats.starter == 0 and seats.by_token("t0") is seats[0]


def test_headless_the_first_person_here_starts():
    seats = Seats(3, host_name=None, host_token=None, bots=0)
    assert seats.starter is None
    seats.take_open("Ana", conn=7)
    ben = seats.take_open("Ben", conn=8)
    assert seats.starter == 0
    seats.gone(seats[0], 7, now=5.0)
    assert seats.starter == ben.index


def test_open_seats_are_taken_in_order_with_fresh_tokens_and_unique_names():
    seats = Seats(3, host_name=None, host_token=None, bots=0)
    a = seats.take_open("Ana", conn=1)
    b = seats.take_open("ana", conn=2)
    c = seats.take_open("", conn=3)
    assert (a.index, b.index, c.index) == (0, 1, 2)
    assert (a.name, b.name, c.name) == ("Ana", "ana 2", "Player 3")
    assert a.token and a.token != b.token and a.token_hash == token_hash(a.token)
    assert seats.take_open("Dee", conn=4) is None
    assert seats.by_token(b.token) is b and seats.by_token("forged") is None


def test_leaving_the_lobby_opens_the_seat_but_a_game_keeps_it():
    seats = Seats(3, host_name="Host", host_token="t0", bots=0)
    ana = seats.take_open("Ana", conn=1)
    seats.left(ana, 1, now=2.0, in_game=True)
    assert ana.kind == HUMAN and ana.conn is None and ana.away_since == 2.0
    seats.reclaim(ana, ana.token, conn=3)
    seats.left(ana, 3, now=4.0, in_game=False)
    assert ana.kind == OPEN and ana.name == "" and ana.token is None
    seats.reclaim(seats[0], "t0", conn=5)
    seats.left(seats[0], 5, now=4.0, in_game=False)
    assert seats[0].kind == HUMAN and seats[0].name == "Host"  # the host's own seat never opens


def test_an_older_connection_going_leaves_the_seat_to_the_newer_one():
    seats = Seats(2, host_name=None, host_token=None, bots=0)
    ana = seats.take_open("Ana", conn=1)
    seats.reclaim(ana, ana.token, conn=2)
    seats.gone(ana, 1, now=3.0)
    assert ana.conn == 2 and ana.away_since is None


def test_readiness_and_a_full_table():
    seats = Seats(3, host_name="Host", host_token="t0", bots=1)
    ana = seats.take_open("Ana", conn=1)
    assert seats.not_ready(besides=0) == ["Ana"]
    ana.ready = True
    assert seats.not_ready(besides=0) == [] and not seats.all_taken()  # the host is not here
    seats[0].conn = 9
    assert seats.all_taken()
    seats.deal()
    seats.game_over()
    assert [s.ready for s in seats] == [False, False, True]


def test_a_journal_header_brings_the_seats_back():
    header = Header(
        game="shed",
        seed=1,
        seats=3,
        names=("Hana", "Ana", "Bot 3"),
        bots=(False, False, True),
        token_hashes=("", token_hash("ana-token"), ""),
    )
    seats = Seats(3, host_name="Host", host_token="fresh", bots=0)
    seats.restore(header, now=50.0)
    assert seats.names == header.names and [s.kind for s in seats] == [HUMAN, HUMAN, BOT]
    assert seats.by_token("fresh") is seats[0]  # whoever holds the journal owns the host's seat
    assert seats.by_token("ana-token") is seats[1] and seats[1].away_since == 50.0
    seats.away_from(60.0)
    assert seats[1].away_since == 60.0
