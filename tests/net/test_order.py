"""The host keeps order: removing a person from the table, muting a person's chat.

Without sockets (tests.net.sansio and the made-up game), and over a real host for what a
journal keeps when the table is resumed.
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

from quackbox.net import journal as jn
from quackbox.net.actions import JournalNote
from quackbox.net.client import Client, Removed
from quackbox.net.config import TableConfig
from quackbox.net.host import Host, HostConfig
from quackbox.net.protocol import (
    PROTOCOL_VERSION,
    Bye,
    ChatLine,
    Error,
    Hello,
    Lobby,
    MoveMessage,
    Mute,
    Notice,
    Ready,
    Remove,
    Say,
    Start,
    Welcome,
)
from quackbox.net.table import Table
from tests.net import fakegame
from tests.net.sansio import Driver
from tests.waiting import until

HOST_TOKEN = "the-host-s-own-token"


def hosted(seats: int = 3, **config) -> Driver:
    """A table with the host's person at seat 0 (connection 1), and guests joining after."""
    config = {
        "game": "shed",
        "seats": seats,
        "bot_kind": "random",
        "bot_delay": 0.0,
        "seed": 1,
        "host_name": "Hana",
        **config,
    }
    d = Driver(Table(TableConfig(**config), rules=fakegame.RULES, host_token=HOST_TOKEN))
    d.connect(1)
    assert isinstance(d.send(1, Hello(version=PROTOCOL_VERSION, name="Hana", token=HOST_TOKEN))[0], Welcome)
    return d


def errors(messages) -> list[str]:
    return [m.code for m in messages if isinstance(m, Error)]


def notices(d: Driver, conn: int) -> list[str]:
    return [m.text for m in d.of(conn, Notice)]


def test_only_the_host_may_remove_or_mute():
    d = hosted()
    d.join(2, "Bob")
    assert errors(d.send(2, Remove(name="Hana"))) == ["not_host"]
    assert errors(d.send(2, Mute(name="Hana"))) == ["not_host"]
    headless = Driver(Table(TableConfig(game="shed", seats=2, headless=True), rules=fakegame.RULES))
    headless.join(1, "Ann")
    headless.join(2, "Bob")
    assert errors(headless.send(1, Remove(name="Bob"))) == ["not_host"]  # a headless table has no host


def test_a_name_nobody_goes_by_a_bot_and_the_host_are_refused_by_name():
    d = hosted(bots=1)
    refused = d.send(1, Remove(name="Zed"))
    assert errors(refused) == ["bad_message"] and "Nobody called Zed" in refused[0].message
    assert "is a bot" in d.send(1, Remove(name="Bot 3"))[0].message
    assert "yourself" in d.send(1, Remove(name="Hana"))[0].message


def test_a_person_removed_in_a_game_is_shown_out_a_bot_plays_their_seat_and_their_token_never_sits_again():
    d = hosted(seats=2)
    bob = d.join(2, "Bob")
    d.send(2, Ready())
    d.send(1, Start())
    assert d.table.phase == "playing"
    d.records.clear()
    d.send(1, Remove(name="bob"))  # names are matched as names are told apart
    assert d.of(2, Bye)[-1].reason == "removed" and 2 in d.closed
    assert notices(d, 1) == ["The host removed Bob from the table; a bot plays their seat."]
    seat = d.table.seats[1]
    assert seat.idle and seat.token is None and seat.token_hash == ""
    assert d.records == [JournalNote("removed", 1, jn.token_hash(bob.token))]
    assert d.of(1, Lobby)[-1].seats[1].away
    # Back with the token: refused, and the connection closed.
    d.connect(3)
    again = d.send(3, Hello(version=PROTOCOL_VERSION, name="Bob", token=bob.token))
    assert errors(again) == ["removed"] and 3 in d.closed
    # The bot plays the seat whenever it is its turn.
    before = d.table.seq
    for _ in range(6):
        message = d.view(1)
        if message.view.seat in message.view.waiting_for and message.view.legal:
            d.send(1, MoveMessage(seq=message.seq, move=message.view.legal[0]))
        d.advance(1.0)
    assert any(seat == 1 for seat, _move in list(d.table.recent_moves)[before:]), "no bot played the seat"


def test_a_person_removed_in_the_lobby_frees_the_seat_and_cannot_take_one_again():
    d = hosted(seats=3)
    bob = d.join(2, "Bob")
    d.send(1, Remove(name="Bob"))
    assert d.table.seats[1].kind == "open"
    assert notices(d, 1) == ["The host removed Bob from the table."]
    d.connect(3)
    assert errors(d.send(3, Hello(version=PROTOCOL_VERSION, name="Bob", token=bob.token))) == ["removed"]
    # Whoever deals next keeps the ban in the game's journal.
    d.records.clear()
    d.send(1, Start())
    assert JournalNote("removed", None, jn.token_hash(bob.token)) in d.records


def test_a_spectator_can_be_shown_out():
    d = hosted()
    d.connect(5)
    d.send(5, Hello(version=PROTOCOL_VERSION, name="Walt", spectate=True))
    d.send(1, Remove(name="Walt"))
    assert d.of(5, Bye)[-1].reason == "removed" and 5 in d.closed
    assert notices(d, 1) == ["The host asked Walt to leave."]


def test_a_muted_person_s_chat_reaches_nobody_they_are_told_and_it_can_be_let_go():
    d = hosted()
    d.join(2, "Bob")
    d.join(3, "Cy")
    d.send(1, Mute(name="Bob"))
    assert notices(d, 2) == ["The host muted your chat: the table no longer sees what you say."]
    assert notices(d, 1) == ["Bob's chat is muted: nobody sees it."]
    assert errors(d.send(2, Say(text="hello all"))) == ["muted"]
    assert not [c for conn in (1, 3) for c in d.of(conn, ChatLine) if c.text == "hello all"]
    d.send(1, Mute(name="Bob", muted=False))
    assert notices(d, 2)[-1] == "The host lets you chat again."
    d.send(2, Say(text="thanks"))
    assert [c.text for c in d.of(3, ChatLine)] == ["thanks"]


async def test_a_resumed_table_keeps_its_removals_and_mutes(tmp_path):
    """Journalled: resumed, the removed token is still refused, the muted seat still muted."""
    config = HostConfig(
        game="side-effects",
        seats=3,
        host_name="Hana",
        bind="127.0.0.1",
        port=0,
        seed=4,
        bot_delay=0.05,
        journal_dir=str(tmp_path),
    )
    async with asyncio.timeout(60):
        async with Host(config) as host:
            hana = await Client.connect(host.url, name="Hana", token=host.host_token)
            bob = await Client.connect(host.url, name="Bob")
            cy = await Client.connect(host.url, name="Cy")
            for guest in (bob, cy):
                await guest.ready()
            await host.until(lambda: all(s.ready for s in host.table.lobby.message("lobby").seats[1:]))
            await hana.start()
            await hana.remove("Bob")
            await hana.mute("Cy")

            # Moves until the game is kept (a bot plays Bob's seat now).
            def to_move() -> list[tuple[Client, Any]]:
                """Those whose view is the table's latest and whose turn it is, with that view."""
                return [
                    (c, v)
                    for c in (hana, cy)
                    if (v := c.view) is not None
                    and v.seq == host.table.seq
                    and v.view.seat in v.view.waiting_for
                    and v.view.legal
                ]

            while host.table.seq < 3:
                await until(lambda: host.table.seq >= 3 or to_move(), what="a seat to move")
                for client, v in to_move():
                    await client.move(v.view.legal[-1], v.seq)
            path = host.journal_path
            for client in (hana, bob, cy):
                await client.close()
    record = jn.read(path)
    assert [seat for seat, _hash in record.removed] == [1] and record.muted == {2: True}
    resumed = dataclasses.replace(config, resume=str(path), resume_record=record)
    async with asyncio.timeout(60):
        async with Host(resumed) as host:
            try:
                await Client.connect(host.url, name="Bob", token=bob.token)
            except Removed as exc:
                assert "removed you" in str(exc)
            else:
                raise AssertionError("a removed token took its seat back")
            assert host.table.seats[1].idle  # a bot still plays Bob's seat
            again = await Client.connect(host.url, name="Cy", token=cy.token)
            assert again.seat == 2
            await again.chat("still here?")
            async for message in again:
                if isinstance(message, Error):
                    assert message.code == "muted"
                    break
            await again.close()
