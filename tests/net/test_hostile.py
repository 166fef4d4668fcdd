"""Issue 13: a table no neighbour can lock, stall or read.

Each test replays one of the attacks a hostile local user made (many of them
from 127.0.0.1, like everyone on one SSH box) and checks that the people at
the table still get in and play on. Sans-IO tests pin the rules down with a
made-up clock; the socket tests run a real host on 127.0.0.1 port 0.
"""

from __future__ import annotations

import asyncio
import gc
import os
import types
import unicodedata
from collections import deque

import pytest
from websockets.asyncio.client import connect

from quackbox.core import bots as core_bots
from quackbox.core import games
from quackbox.core.side_effects import MAX_OPEN_OFFERS
from quackbox.net import limits
from quackbox.net.client import Client, worth_resending
from quackbox.net.config import TableConfig
from quackbox.net.host import Host
from quackbox.net.limits import FREE_MOVES_PER_TURN, MESSAGE_BURST
from quackbox.net.lobby import MAX_PENDING_PEERS
from quackbox.net.network_bot import run_network_bot
from quackbox.net.protocol import (
    PROTOCOL_VERSION,
    ChatLine,
    Error,
    Hello,
    Lobby,
    MoveMessage,
    Ready,
    Say,
    Start,
    View,
    Welcome,
    Wire,
)
from quackbox.net.table import Send, Table
from tests.net.fakegame import Draw
from tests.net.test_host import config
from tests.net.test_table import make as shed
from tests.waiting import until


def moves_of(game: str) -> dict[str, type]:
    return {cls.__name__: cls for cls in games.get(game).move_types()}


# --- 1. connections that never say hello ---------------------------------------------------


def test_silent_connections_never_crowd_out_players():
    """Three budgets' worth of silent connections, opened before and between
    the people: a player, a spectator and a returning seat all get in."""
    d = shed(seats=3)
    token = d.join(1, "Ann").token
    d.disconnect(1)
    silent = iter(range(100, 100 + 3 * MAX_PENDING_PEERS))
    for conn in silent:
        d.connect(conn)
    assert isinstance(d.join(2, "Ben"), Welcome)
    for _, conn in zip(range(MAX_PENDING_PEERS), silent):
        d.connect(conn)
    assert isinstance(d.join(3, "Cy", spectate=True), Welcome)
    assert isinstance(d.join(4, token=token), Welcome) and d.welcome(4).seat == 0
    waiting = [c for c in d.table.lobby.peers.values() if not c.welcomed and not c.closing]
    assert len(waiting) <= MAX_PENDING_PEERS  # their own budget, however many come


async def test_fifty_silent_sockets_while_people_join_watch_and_come_back():
    async with asyncio.timeout(30):
        async with Host(config(seats=3)) as host:
            first = await Client.connect(host.url, name="Ann", reconnect=False)
            token = first.token
            first.drop()  # gone without a goodbye: the seat waits for its token
            await first.close()
            silent = [await connect(host.url, proxy=None) for _ in range(50)]
            try:
                player = await Client.connect(host.url, name="Ben", reconnect=False)
                watcher = await Client.connect(host.url, name="Cy", spectate=True, reconnect=False)
                back = await Client.connect(host.url, name="Ann", token=token, reconnect=False)
                assert player.seat is not None and watcher.seat is None and back.seat == 0
                for client in (player, watcher, back):
                    await client.close()
            finally:
                for ws in silent:
                    await ws.close()


# --- 2. guessing the room code -------------------------------------------------------------


async def test_a_hundred_wrong_codes_from_one_address_and_the_right_one_gets_in_at_once():
    async with asyncio.timeout(60):
        async with Host(config(seats=2, code="KQXZ-BDFG-HJKL")) as host:
            host.table.lobby.wrong_tries.most = 3.0  # answers held back 3 s at most, for a quick test
            wire = Wire(None)
            guessers = []
            for n in range(100):
                ws = await connect(host.url, proxy=None)
                await ws.send(wire.encode(Hello(version=PROTOCOL_VERSION, name="guess", code=f"WRONG{n}")))
                guessers.append(ws)
            ann = await Client.connect(host.url, name="Ann", code="kqxz bdfg hjkl", reconnect=False)
            assert ann.seat == 0
            # The guessers are still waiting for their answers: the right code was not slowed.
            assert host.table.lobby.held_back > 0
            assert not any(p.welcomed for p in host.table.lobby.peers.values() if p.name == "guess")
            # Each is told it was wrong, or (past the budget of connections
            # waiting on a hello) closed to make room; none got in.
            answers = [wire.decode_from_host(await ws.recv()) for ws in guessers]
            told = {getattr(a, "code", None) or a.reason for a in answers}
            assert told <= {"wrong_code", "hello_timeout"} and "wrong_code" in told
            for ws in guessers:
                await ws.close()
            await ann.close()


# --- 3. a burst, then the move the table waits for -----------------------------------------------


def test_a_move_refused_for_rate_is_answered_and_plays_when_sent_again():
    d = shed()
    for conn in (1, 2):
        d.join(conn)
        d.send(conn, Ready())
    d.send(1, Start())
    for _ in range(MESSAGE_BURST + 60):
        d.send(1, Say(text="spam"))
    replies = d.send(1, MoveMessage(seq=d.table.seq, move=Draw()))
    (refusal,) = [m for m in replies if isinstance(m, Error)]
    assert refusal.code == "rate_limited" and refusal.refused == "move" and refusal.retry_after > 0
    assert d.table.seq == 0  # refused, and said so
    d.now += refusal.retry_after
    d.send(1, MoveMessage(seq=d.table.seq, move=Draw()))
    assert d.table.seq == 1 and d.view(2).seq == 1  # the game goes on


async def test_after_a_burst_the_client_sends_the_refused_move_again_and_the_game_goes_on(caplog, monkeypatch):
    caplog.set_level("INFO", logger="quackbox.net")
    # A slow refill, so the burst still has the bucket empty when the move
    # arrives however busy the machine is.
    monkeypatch.setattr(limits, "MESSAGES_PER_SECOND", 20.0)
    async with asyncio.timeout(60):
        async with Host(config(seats=2, autostart=True)) as host:
            bot = asyncio.create_task(run_network_bot(host.url, "Bot", seed=2))
            me = await Client.connect(host.url, name="Me", reconnect=False)
            brain = core_bots.make("side-effects", "heuristic", 3)
            burst = False
            async for message in me:
                if isinstance(message, Error):
                    assert message.code != "rate_limited" or message.refused == "chat", message
                if not isinstance(message, View) or me.view.seq > message.seq:
                    continue
                if message.view.outcome is not None:
                    break
                move = core_bots.decide(brain, message.view)
                if move is None:
                    continue
                if not burst and 0 in message.view.waiting_for:
                    burst = True
                    for _ in range(MESSAGE_BURST + 150):
                        await me.chat("spam")
                await me.move(move, message.seq)
            assert host.table.outcome is not None and burst
            assert "refused a move for rate; sending it again" in caplog.text  # the burst did trip it
            assert await bot == host.table.outcome
            await me.close()


# --- 5. legal spam: offers and withdrawals -----------------------------------------------------


def _rss() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _spam_game(seed: int, *, measure: bool) -> tuple[Table, int, set[str], list[tuple[int, int, int]]]:
    """One 8-seat game of Side Effects in which seat 0 offers and withdraws
    a trade as often as it can, every time it gets a view; the table, the
    spam accepted, the error codes of the spam refused, and (with
    ``measure``) samples of (seq, :func:`_footprint`, RSS)."""
    table = Table(
        TableConfig(
            game="side-effects",
            seats=8,
            bots=7,
            headless=True,
            bot_delay=0.0,
            seed=seed,
            autostart=True,
            options={"until_one_loser": True},
        )
    )
    wire = Wire(table.rules)
    moves = moves_of("side-effects")
    clock = 1000.0
    latest: list[View] = []

    def take(actions) -> list[str]:
        codes = []
        for action in actions:
            if isinstance(action, Send) and action.conn == 1:
                message = wire.decode_from_host(action.data)
                if isinstance(message, View):
                    latest[:] = [message]
                elif isinstance(message, Error):
                    codes.append(message.code)
        return codes

    def send(message) -> list[str]:
        return take(table.receive(1, wire.encode(message), clock))

    take(table.connect(1, "127.0.0.1", clock))
    send(Hello(version=PROTOCOL_VERSION, name="Spam"))
    take(table.tick(clock))
    brain = core_bots.make("side-effects", "heuristic", 5)
    spam, refused, samples, steps = 0, set(), [], 0
    while table.phase == "playing":
        turn_spam = 0
        for _ in range(40):  # far more than a turn allows
            view = latest[0].view
            if not view.trade_partners or not view.hand:
                break
            before = table.seq
            codes = send(
                MoveMessage(seq=table.seq, move=moves["OfferTrade"](view.trade_partners[0], (view.hand[0].id,), ()))
            )
            if table.seq == before:
                refused.update(codes)
                break
            turn_spam += 1
            mine = [o for o in latest[0].view.offers if o.seat == 0]
            send(MoveMessage(seq=table.seq, move=moves["WithdrawTrade"](mine[0].id)))
        assert turn_spam <= FREE_MOVES_PER_TURN
        spam += turn_spam
        move = core_bots.decide(brain, latest[0].view)
        if move is not None:
            send(MoveMessage(seq=latest[0].seq, move=move))
        clock += 0.05
        while (wake := table.next_wakeup()) is not None and wake <= clock:
            take(table.tick(clock))
        steps += 1
        if measure and (steps % 8 == 0 or table.phase != "playing"):
            gc.collect()
            samples.append((table.seq, _footprint(table), _rss()))
    return table, spam, refused, samples


def _footprint(table: Table) -> int:
    """Items in every list, dict, set, deque and tuple the table holds, but
    for the game's State, the rules and the wire's codec (bounded caches
    every table of the game shares)."""
    skip = {id(table.state), id(table.rules), id(table.wire)}
    seen: set[int] = set()
    stack: list = [table]
    total = 0
    while stack:
        obj = stack.pop()
        if id(obj) in seen or id(obj) in skip or isinstance(obj, _LEAVES):
            continue
        seen.add(id(obj))
        if isinstance(obj, (list, dict, set, frozenset, deque, tuple)):
            total += len(obj)
        stack.extend(gc.get_referents(obj))
    return total


_LEAVES = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType, str, bytes, int, float)


def test_offers_past_the_rules_cap_are_the_rules_refusal_and_cost_no_budget():
    """The host checks no move itself: an offer past the rules' own cap (or
    one naming a card not in hand) is refused by the rules, with their
    sentence, and spends nothing of the turn's budget; accepted offers
    spend it, and once it is spent the host refuses with ``rate_limited``."""
    table = Table(
        TableConfig(game="side-effects", seats=3, bots=2, headless=True, bot_delay=1000.0, seed=4, autostart=True)
    )
    wire = Wire(table.rules)
    moves = moves_of("side-effects")
    latest: list[View] = []
    refusals: list[Error] = []

    def send(message) -> None:
        for action in table.receive(1, wire.encode(message), 0.0):
            if isinstance(action, Send) and action.conn == 1:
                reply = wire.decode_from_host(action.data)
                if isinstance(reply, View):
                    latest[:] = [reply]
                elif isinstance(reply, Error):
                    refusals.append(reply)

    table.connect(1, "127.0.0.1", 0.0)
    send(Hello(version=PROTOCOL_VERSION, name="Offers"))
    for action in table.tick(0.0):
        if isinstance(action, Send) and action.conn == 1:
            latest[:] = [m for m in [wire.decode_from_host(action.data)] if isinstance(m, View)] or latest
    view = latest[0].view
    assert view.trade_partners and view.hand, "seed 4 deals a table where seat 0 may trade at once"
    offer = moves["OfferTrade"](view.trade_partners[0], (view.hand[0].id,), ())

    def accepted(move) -> bool:
        before = table.seq
        send(MoveMessage(seq=table.seq, move=move))
        return table.seq > before

    assert all(accepted(offer) for _ in range(MAX_OPEN_OFFERS))
    assert not accepted(offer)
    assert [(e.code, e.message) for e in refusals] == [
        ("illegal_move", f"You already have {MAX_OPEN_OFFERS} open offers; withdraw one first.")
    ]
    assert not accepted(moves["OfferTrade"](view.trade_partners[0], (10_000,), ()))  # no such card in hand
    assert refusals[-1].code == "illegal_move" and "10000" in refusals[-1].message
    made = MAX_OPEN_OFFERS
    while True:
        mine = [o for o in latest[0].view.offers if o.seat == 0]
        assert accepted(moves["WithdrawTrade"](mine[0].id))  # a listed move: free
        if not accepted(offer):
            break
        made += 1
    assert made == FREE_MOVES_PER_TURN  # the refusals above spent nothing
    assert refusals[-1].code == "rate_limited" and refusals[-1].retry_after == 0
    assert refusals[-1].message == "That is as many offers as a player may make in one turn; wait for the next turn."


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs /proc")
def test_a_long_game_of_trade_spam_is_bounded_per_turn_and_keeps_memory_flat():
    """A seat that offers and withdraws a trade as fast as it can, all game
    long: each turn only so many are accepted, and nothing the host holds
    grows with the moves (only the journal, which this table does not keep).
    Measured as what the table's own containers hold, and as the process's
    RSS, from a third of the way through the game to its end."""
    table, spam, refused, samples = _spam_game(3, measure=True)
    assert table.outcome is not None and spam > 100 and "rate_limited" in refused
    third = next(s for s in samples if s[0] >= table.seq // 3)
    later = [s for s in samples if s[0] >= third[0]]
    grown = max(s[1] for s in later) - third[1]
    rss_grown = max(s[2] for s in later) - third[2]
    assert grown <= 64, f"the table holds {grown} more items after {table.seq - third[0]} more moves"
    assert rss_grown < 16 * 1024 * 1024, f"RSS grew by {rss_grown} bytes"


# --- 6. impersonation ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "copy",
    [
        "Bot0\u200b",  # a zero-width space
        "B\u200dot0",  # a zero-width joiner
        "bot0",  # case
        "Bot 0",  # a space
        "Ｂｏｔ０",  # full-width letters (NFKC)
        "ВОТ0",  # Cyrillic look-alikes
        "BotO",  # a letter for a digit
        "Bo\u0301t0",  # an accent
        "Bot\u17b40",  # an invisible Khmer vowel
        "Bot0\ufe0f",  # a variation selector
        "B\U000e0041ot0",  # a tag character
        "BOT0",  # capitals, a zero for an O
        "B0t0",  # a zero for the o too
    ],
)
def test_no_one_takes_a_name_that_looks_like_one_in_use(copy):
    d = shed(seats=3)
    d.join(1, "Bot0")
    d.join(2, copy)
    d.join(3, copy, spectate=True)
    lobby = d.of(1, Lobby)[-1]
    seat_names = [s.name for s in lobby.seats if s.kind == "human"]
    assert seat_names[0] == "Bot0" and seat_names[1] != copy and seat_names[1].endswith(" 2")
    assert lobby.watchers and lobby.watchers[0].endswith(" 3")  # told apart from both seats


def test_combining_marks_are_capped_and_spectators_are_named_in_the_lobby():
    d = shed(seats=2)
    d.join(1, "Z" + "\u0301" * 40 + "oe")
    name = d.of(1, Lobby)[-1].seats[0].name
    assert name == unicodedata.normalize("NFC", "Z\u0301\u0301oe")
    d.join(2, "Ann", spectate=True)
    d.join(3, "Ann", spectate=True)
    assert d.of(1, Lobby)[-1].watchers == ("Ann", "Ann 2") and d.of(1, Lobby)[-1].spectators == 2
    d.join(4, "ann")  # a seat may not take a spectator's name either
    assert d.of(1, Lobby)[-1].seats[1].name == "ann 3"


def test_the_client_sends_again_only_what_waiting_can_help():
    for_the_turn = Error(
        code="rate_limited",
        message="That is as many offers as a player may make in one turn.",
        refused="move",
        retry_after=0.0,
    )
    too_fast = Error(code="rate_limited", message="Too many messages.", refused="move", retry_after=0.01)
    chat = Error(code="rate_limited", message="You are chatting too fast.", refused="chat", retry_after=0.5)
    assert not worth_resending(for_the_turn) and not worth_resending(chat)
    assert worth_resending(too_fast)


def test_after_a_reconnection_only_what_was_missed_is_sent_again_by_number_not_by_words():
    """The host numbers each seat's log lines and the table's chat lines; a client back says
    the last numbers it has, and gets only what came after: a line said twice ("gg") is
    sent twice, and the lines said while away come however much they look like old ones."""
    d = shed(seats=2)
    d.join(1, "Ann")
    d.join(2, "Bob")
    d.send(1, Ready())
    d.send(2, Ready())
    d.send(1, Start())
    for text in ("gg", "gg"):
        d.send(2, Say(text=text))
    ann = d.of(1, ChatLine)
    assert [c.text for c in ann] == ["gg", "gg"] and [c.number for c in ann] == [1, 2]
    views = d.of(1, View)
    last = max((v.log_from + len(v.log) - 1 for v in views if v.log), default=0)
    token = d.welcome(1).token
    d.disconnect(1)
    d.send(2, Say(text="gg"))  # said while Ann is away: the same words as before
    d.advance(1.0)
    d.connect(3)
    before = len(d.inbox[3])
    d.send(3, Hello(version=PROTOCOL_VERSION, name="Ann", token=token, log_seen=last, chat_seen=2))
    back = d.inbox[3][before:]
    chat = [m for m in back if isinstance(m, ChatLine)]
    assert [(c.text, c.number) for c in chat] == [("gg", 3)]
    (recap,) = [m for m in back if isinstance(m, View)]
    assert [line.text for line in recap.log] == ["You were away: the connection was lost."]
    assert recap.log_from == last + 1  # numbered on from what Ann had
    # A fresh client (nothing seen) gets the whole backlog and recent log.
    d.connect(4)
    before = len(d.inbox[4])
    d.send(4, Hello(version=PROTOCOL_VERSION, name="Walt", spectate=True))
    assert [c.number for c in d.inbox[4][before:] if isinstance(c, ChatLine)] == [1, 2, 3]


async def test_a_web_page_of_another_site_cannot_open_the_table_s_socket():
    """A page on any other origin, opened in a browser on this machine, is refused at the
    handshake (403), even at a loopback table with no room code; quackbox's own clients
    (no Origin) are served as ever, and so is the host's own browser door's origin."""
    from websockets.exceptions import InvalidStatus

    from quackbox.net.host import HostConfig

    cfg = HostConfig(game="side-effects", seats=2, headless=True, bind="127.0.0.1", port=0, seed=1)
    async with asyncio.timeout(30):
        async with Host(cfg) as host:
            assert host.code is None  # loopback: no room code
            for origin in ("http://evil.example", "null", f"http://127.0.0.1:{host.port}"):
                with pytest.raises(InvalidStatus) as refused:
                    async with connect(host.url, origin=origin):
                        pass
                assert refused.value.response.status_code == 403
                assert b"web pages" in refused.value.response.body
            assert not host.table.lobby.peers  # nothing reached the table
            client = await Client.connect(host.url, name="Ann")
            assert client.seat is not None
            await client.close()
            host.origins.add("http://127.0.0.1:7118")
            async with connect(host.url, origin="http://127.0.0.1:7118") as ws:
                await ws.send(Wire(None).encode(Hello(version=PROTOCOL_VERSION, name="Page")))
                assert isinstance(Wire(None).decode_from_host(await ws.recv()), Welcome)


async def test_half_open_connections_never_crowd_the_table_s_port_past_its_budget():
    """Connections that never finish their handshake are held within the port's budget (the
    oldest of the crowded address makes way), and a friend's hello gets in all the same."""
    from quackbox.net import host as host_module
    from quackbox.net.host import HostConfig

    cfg = HostConfig(game="side-effects", seats=2, headless=True, bind="127.0.0.1", port=0, seed=1)
    async with asyncio.timeout(30):
        async with Host(cfg) as host:
            held = []
            for _ in range(host_module.WAITING_PER_ADDRESS + 20):
                reader, writer = await asyncio.open_connection("127.0.0.1", host.port)
                writer.write(b"GET / HTTP/1.1\r\nHost: x\r\n")  # and never the end of the head
                held.append((reader, writer))
            await until(
                lambda: len(host.waiting) <= host_module.WAITING_PER_ADDRESS, what="the port's budget to be kept"
            )
            closed = 0
            for reader, _writer in held:
                try:
                    if await asyncio.wait_for(reader.read(1), 0.01) == b"":
                        closed += 1
                except TimeoutError:
                    pass
            assert closed >= 20  # the oldest made way
            friend = await Client.connect(host.url, name="Ann")
            assert friend.seat is not None
            await friend.close()
            for _reader, writer in held:
                writer.close()
