"""The host and clients over real sockets on 127.0.0.1, port 0.

Full games with bot clients, hostile input while a game goes on, seats that
drop and come back (also in the middle of a Tremors prompt), refused joins,
and the host's own edges (port taken, shutdown). Every test bounds its time.
"""

from __future__ import annotations

import asyncio
import os
import random
import socket

import msgpack
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from quackbox.core import bots as core_bots
from quackbox.core import games
from quackbox.core.bots import decide
from quackbox.net import journal as jn
from quackbox.net.client import (
    BadToken,
    Client,
    Disconnected,
    GameStarted,
    NoHost,
    Reconnected,
    TableFull,
    VersionMismatch,
    WrongCode,
)
from quackbox.net.config import TableConfig
from quackbox.net.host import Host, HostConfig, HostError, Outbox
from quackbox.net.local import start_local_game
from quackbox.net.network_bot import run_network_bot
from quackbox.net.protocol import PROTOCOL_VERSION, Bye, ChatLine, Error, Lobby, MoveMessage, View, Welcome, Wire
from quackbox.net.table import Table
from tests.net.sansio import Driver

GAME_NAMES = sorted(games.GAMES)
SE_WIRE = Wire(games.get("side-effects"))
"""Made once: reading every annotation takes milliseconds, too long to do per frame."""
# Quack games are long; a low round limit keeps them whole games, but short ones.
FAST_OPTIONS = {"quack": {"round_limit": 3}}


def config(**fields) -> HostConfig:
    fields.setdefault("headless", True)
    fields.setdefault("bot_delay", 0.0)
    fields.setdefault("bind", "127.0.0.1")
    fields.setdefault("port", 0)
    fields.setdefault("seed", 1)
    return HostConfig(**fields)


async def play_with(client: Client, brain, *, until=None) -> object:
    """Play ``client``'s seat with ``brain`` until the game ends (or ``until(view)``)."""
    async for message in client:
        if isinstance(message, View):
            view = message.view
            if view.outcome is not None:
                return view.outcome
            if until is not None and until(message):
                return message
            if client.view is not None and client.view.seq > message.seq:
                continue
            move = decide(brain, view)
            if move is not None:
                await client.move(move, message.seq)
    return None


# --- whole games --------------------------------------------------------------------


@pytest.mark.parametrize("game", GAME_NAMES)
@pytest.mark.parametrize("seats", [2, 4, 8])
async def test_full_game_with_bot_clients(game, seats):
    """Every seat a bot over the network: the game ends and every seat agrees how."""
    rules = games.get(game)
    if seats > rules.max_seats:
        pytest.skip(f"{game} seats at most {rules.max_seats}")
    cfg = config(game=game, seats=seats, autostart=True, seed=seats, options=FAST_OPTIONS.get(game, {}))
    async with asyncio.timeout(90):
        async with Host(cfg) as host:
            names: list[list[str]] = [[] for _ in range(seats)]
            players = [
                run_network_bot(host.url, f"Bot{i}", kind="heuristic", seed=i, names=names[i]) for i in range(seats)
            ]
            outcomes = await asyncio.gather(*players)
    assert host.table.outcome is not None
    assert all(o == host.table.outcome for o in outcomes)
    assert host.table.seq > seats
    # Each bot learns every seat's name, to name the winners.
    assert all(n == list(host.table.outcome_names) for n in names)
    assert sorted(names[0]) == sorted(f"Bot{i}" for i in range(seats))


@pytest.mark.parametrize("think", [0.0, 0.01])
async def test_a_slow_bot_over_the_network_thinks_in_a_worker_process_as_the_hosts_do(monkeypatch, tmp_path, think):
    """The network bot runs its bot as the host's bot driver does: a slow one chooses in a
    worker process, never beside the event loop (with a pace, its thought starts as the pace
    does), and is shown each move's events here, between its decisions; it plays the game
    to its end."""
    from tests.net.workers import NotingRandom

    record = tmp_path / "pids"
    monkeypatch.setitem(core_bots._REGISTRY, ("quack", "noting"), lambda seed: NotingRandom(seed, str(record)))
    cfg = config(game="quack", seats=3, bots=2, autostart=True, options=FAST_OPTIONS["quack"])
    async with asyncio.timeout(60):
        async with Host(cfg) as host:
            outcome = await run_network_bot(host.url, "Slow", kind="noting", seed=1, think=think)
    assert outcome is not None and outcome == host.table.outcome
    chose_in = {int(line) for line in record.read_text().split()}
    assert chose_in and os.getpid() not in chose_in


async def test_bots_fill_open_seats_and_people_and_bots_share_a_table(tmp_path):
    cfg = config(seats=4, bots=2, autostart=True, bot_delay=0.001, journal_dir=str(tmp_path))
    async with asyncio.timeout(60):
        async with Host(cfg) as host:
            outcomes = await asyncio.gather(
                run_network_bot(host.url, "Ann", seed=1), run_network_bot(host.url, "Ben", seed=2)
            )
    assert outcomes[0] == outcomes[1] == host.table.outcome
    assert [s.kind for s in host.table.seats][2:] == ["bot", "bot"]
    (saved,) = tmp_path.glob("*.qbj")
    assert {seat for seat, _ in jn.read(saved).moves} == {0, 1, 2, 3}  # people and bots all played


async def test_local_game_plays_through_the_same_client_and_can_rematch():
    client, game = await start_local_game("side-effects", 3, name="Me", seed=4, bot_delay=0.0)
    try:
        async with asyncio.timeout(60):
            assert client.seat == 0 and client.welcome.starter
            brain = core_bots.make("side-effects", "heuristic", 1)
            first = await play_with(client, brain)
            assert first is not None
            await client.start()  # the table went back to its lobby: play again
            second = await play_with(client, brain)
            assert second is not None
            assert game.host.table.games_played == 2
    finally:
        await game.close()
    assert client.lobby.seats[0].name == "Me"


# --- refused joins --------------------------------------------------------------------------


async def test_refused_joins_raise_plain_errors():
    cfg = config(seats=2, code="KQXZ", autostart=False)
    async with asyncio.timeout(30):
        async with Host(cfg) as host:
            with pytest.raises(WrongCode, match="room code"):
                await Client.connect(host.url, name="x")
            with pytest.raises(WrongCode):
                await Client.connect(host.url, name="x", code="ZZZZ")
            with pytest.raises(BadToken):
                await Client.connect(host.url, name="x", code="kqxz", token="forged")
            a = await Client.connect(host.url, name="A", code="kqxz")
            b = await Client.connect(host.url, name="B", code="kqxz")
            with pytest.raises(TableFull, match="taken"):
                await Client.connect(host.url, name="C", code="kqxz")
            await b.ready()
            async for message in a:  # the start waits until the host has B ready
                if isinstance(message, Lobby) and message.seats[b.seat].ready:
                    break
            await a.start()
            async for message in a:
                if isinstance(message, View):
                    break
            with pytest.raises(GameStarted, match="spectator"):
                await Client.connect(host.url, name="D", code="kqxz")
            watcher = await Client.connect(host.url, name="W", code="kqxz", spectate=True)
            assert watcher.seat is None
            for c in (a, b, watcher):
                await c.close()


async def test_version_mismatch_and_no_host():
    async with Host(config()) as host:
        async with connect(host.url) as ws:
            await ws.send(msgpack.packb({"type": "hello", "version": PROTOCOL_VERSION + 1, "name": "x"}))
            reply = Wire(None).decode_from_host(await ws.recv())
            assert isinstance(reply, Error) and reply.code == "version_mismatch"
            with pytest.raises(ConnectionClosed):
                await ws.recv()
        port = host.port
    with pytest.raises(NoHost, match="No quackbox host answered"):
        await Client.connect(f"ws://127.0.0.1:{port}", name="late", reconnect=False)


def test_version_mismatch_error_class():
    # The client maps the host's code to the typed error the TUI shows.
    assert (
        issubclass(VersionMismatch, Exception) and VersionMismatch("version_mismatch", "x").code == "version_mismatch"
    )


async def test_port_taken_is_a_sentence_not_a_traceback():
    async with Host(config()) as first:
        with pytest.raises(HostError, match="already in use"):
            async with Host(config(port=first.port)):
                pass


async def test_beyond_loopback_a_room_code_is_made_up():
    host = Host(config(bind="0.0.0.0"))
    assert host.code is not None and len(host.code.replace("-", "")) == 12
    assert Host(config(bind="127.0.0.1")).code is None


async def test_shutdown_tells_every_client_why():
    async with asyncio.timeout(20):
        host = Host(config(seats=3))
        await host.start()
        client = await Client.connect(host.url, name="A")
        await host.stop("shutdown", "The host closed the table.")
        seen = [m async for m in client]
        assert isinstance(seen[-1], Bye) and seen[-1].reason == "shutdown"
        await client.close()


# --- hostile input --------------------------------------------------------------------------


async def raw(host: Host):
    return await connect(host.url, max_size=None, compression=None)


async def replies(ws, count: int = 1, timeout: float = 5.0) -> list:
    wire = Wire(games.get("side-effects"))
    out = []
    async with asyncio.timeout(timeout):
        while len(out) < count:
            out.append(wire.decode_from_host(await ws.recv()))
    return out


async def closed_with(ws) -> int | None:
    async with asyncio.timeout(5):
        try:
            while True:
                await ws.recv()
        except ConnectionClosed as exc:
            return exc.rcvd.code if exc.rcvd else None


async def hello(ws, name="Mallory", spectate=True) -> None:
    await ws.send(msgpack.packb({"type": "hello", "version": PROTOCOL_VERSION, "name": name, "spectate": spectate}))
    (welcome,) = await replies(ws)
    assert isinstance(welcome, Welcome)


async def test_hostile_clients_get_errors_and_the_table_plays_on():
    cfg = config(seats=3, autostart=True, once=False, send_backlog=64 * 1024)
    async with asyncio.timeout(90):
        async with Host(cfg) as host:
            # Bots that think a little, so the game is still going while the attacks land.
            game = asyncio.gather(*(run_network_bot(host.url, f"B{i}", seed=i, think=0.2) for i in range(3)))
            rng = random.Random(7)

            # Random bytes, truncated msgpack, a text frame: bad_frame, then closed.
            for frame in (rng.randbytes(200), msgpack.packb({"type": "hello", "version": 1, "name": "x"})[:-3], "hi"):
                ws = await raw(host)
                await ws.send(frame)
                (error,) = await replies(ws)
                assert error.code == "bad_frame"
                assert await closed_with(ws) == 1008

            # Wrong field types: an error, and the connection may try again.
            ws = await raw(host)
            await ws.send(msgpack.packb({"type": "hello", "version": "1", "name": 5}))
            (error,) = await replies(ws)
            assert error.code == "bad_message"
            await hello(ws)

            # Unknown message types and malformed moves: errors, still connected.
            await ws.send(msgpack.packb({"type": "launch", "missiles": True}))
            await ws.send(
                msgpack.packb({"type": "move", "seq": 0, "move": {"@": "Treat", "drug": True, "disorder": 1}})
            )
            await ws.send(msgpack.packb({"type": "move", "seq": 0, "move": {"@": "EndTurn"}}))
            codes = set()
            async with asyncio.timeout(5):
                while len(codes) < 3:
                    message = SE_WIRE.decode_from_host(await ws.recv())
                    if isinstance(message, Error):
                        codes.add(message.code)
            assert codes == {"bad_message", "malformed_move", "not_seated"}

            # A frame over the limit: frame_too_large, closed with 1009.
            await ws.send(b"\x00" * (100 * 1024))
            assert (await replies_until_error(ws))[-1].code == "frame_too_large"  # after any views of the game
            assert await closed_with(ws) == 1009

            # Far over the limit: cut off by the WebSocket layer itself.
            ws = await raw(host)
            await ws.send(b"\x00" * (3 * 1024 * 1024))
            assert await closed_with(ws) == 1009

            # A flood: rate limited, then closed as a flood.
            ws = await raw(host)
            await hello(ws)
            frame = msgpack.packb({"type": "ready", "ready": True})
            for _ in range(1500):
                try:
                    await ws.send(frame)
                except ConnectionClosed:
                    break
            seen = []
            try:
                async with asyncio.timeout(10):
                    async for data in ws:
                        seen.append(SE_WIRE.decode_from_host(data))
            except ConnectionClosed:
                pass
            assert any(isinstance(m, Error) and m.code == "rate_limited" for m in seen)
            assert any(isinstance(m, Bye) and m.reason == "flood" for m in seen)

            # A client that never reads (a tiny receive buffer, and no reading at all).
            sock = socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
            sock.connect(("127.0.0.1", host.port))
            idle = await connect(host.url, sock=sock, max_queue=1)
            await idle.send(
                msgpack.packb({"type": "hello", "version": PROTOCOL_VERSION, "name": "Sloth", "spectate": True})
            )

            assert host.table.phase == "playing", "the attacks should land while the game goes on"
            outcomes = await game
            assert all(o == outcomes[0] and o is not None for o in outcomes)

            # The host is still up and takes new people.
            late = await Client.connect(host.url, name="Late", spectate=True)
            assert late.seat is None
            await late.close()
            idle.transport.abort()


async def replies_until_error(ws) -> list:
    out = []
    async with asyncio.timeout(5):
        while not out or not isinstance(out[-1], Error):
            out.append(SE_WIRE.decode_from_host(await ws.recv()))
    return out


async def test_a_move_for_another_seat_is_refused():
    cfg = config(seats=2, bots=1, autostart=True, bot_delay=30.0)  # the bot sits on its turn
    async with asyncio.timeout(20):
        async with Host(cfg) as host:
            client = await Client.connect(host.url, name="Me")
            async for message in client:
                if isinstance(message, View):
                    break
            table = host.table
            # Make it the bot's turn, then play a move that only the bot's seat could make.
            while table.rules.waiting_for(table.state) != (1,):
                move = decide(core_bots.make("side-effects", "heuristic", 0), client.view.view)
                await client.move(move)
                async for message in client:
                    if isinstance(message, View):
                        break
            theirs = table.rules.legal_moves(table.state, 1)[0]
            await client.move(theirs)
            async for message in client:
                if isinstance(message, Error):
                    assert message.code in ("not_your_turn", "illegal_move"), message
                    break
            await client.close()


async def test_slow_reader_is_dropped_without_holding_up_the_writer():
    """The outbox gives up on a connection that stops draining (unit level)."""

    class StuckSocket:
        transport = None

        def __init__(self):
            self.sent = 0
            self.aborted = False
            self.writing = asyncio.Event()

        async def send(self, data):
            self.sent += 1
            self.writing.set()
            await asyncio.Event().wait()  # never returns: the peer does not read

        async def close(self, *args):
            pass

    ws = StuckSocket()

    class Transport:
        def is_closing(self):
            return ws.aborted

        def abort(self):
            ws.aborted = True

        def get_write_buffer_limits(self):
            return 16 * 1024, 64 * 1024

        def get_write_buffer_size(self):
            return 64 * 1024  # full: the peer does not read

    ws.transport = Transport()
    box = Outbox(ws, limit=10_000)
    for _ in range(5):
        box.send(b"x" * 1000)
    await asyncio.wait_for(ws.writing.wait(), 5)  # the writer is stuck on the first frame
    assert not ws.aborted and ws.sent == 1
    for _ in range(10):
        box.send(b"x" * 1000)
    assert ws.aborted and box.closing
    await asyncio.wait([box.task], timeout=5)
    assert box.task.done()


async def test_a_frame_for_an_idle_connection_is_with_its_socket_in_the_same_turn_and_order_holds():
    """A frame for a connection with nothing queued goes to the socket as it is sent, not a
    turn of the event loop later (on a busy host, a turn of every table's work); frames sent
    while the socket is too full to take them wait in the queue, and all arrive in order."""
    from websockets.asyncio.client import connect
    from websockets.asyncio.server import serve

    count, size = 100, 64 * 1024
    done, reading = asyncio.Event(), asyncio.Event()
    same_turn: list[bool] = []
    queued_some: list[bool] = []

    async def handler(ws):
        box = Outbox(ws, limit=count * size * 2)
        writes: list[int] = []
        real_write = ws.transport.write

        def write(data):
            writes.append(len(data))
            real_write(data)

        ws.transport.write = write
        await reading.wait()
        box.send(b"first")
        same_turn.append(bool(writes))  # no await since: already with the socket
        for number in range(count):
            box.send(number.to_bytes(4, "big") + os.urandom(size))  # random: deflate cannot shrink it
        queued_some.append(box.queued > 0)
        await done.wait()
        box.close(1000, "done")
        await box.task

    async with asyncio.timeout(30):
        async with serve(handler, "127.0.0.1", 0) as server:
            port = server.sockets[0].getsockname()[1]
            async with connect(f"ws://127.0.0.1:{port}", max_size=None) as client:
                # Small socket buffers (loopback's grow to megabytes): the socket fills
                # long before the frames are all sent, and the rest must wait in the queue.
                client.transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16 * 1024)
                reading.set()
                assert await client.recv() == b"first"
                numbers = [int.from_bytes((await client.recv())[:4], "big") for _ in range(count)]
                done.set()
    assert same_turn == [True]
    assert queued_some == [True]  # the socket filled, and the rest waited their turn
    assert numbers == list(range(count))


async def test_what_the_table_says_reaches_the_outboxes_at_once_and_a_record_holds_what_follows(tmp_path):
    """No task stands between the table and the outboxes: frames are handed over as the
    table says them. Behind a journal record they wait until the saver has synced it;
    a free frame (it tells nothing of the game) does not wait."""
    from quackbox.core.side_effects import EndTurn
    from quackbox.net.actions import JournalMove, JournalStart, Send
    from quackbox.net.journal_writer import Disk

    class Box:
        def __init__(self):
            self.sent: list[bytes] = []

        def send(self, data):
            self.sent.append(data)

    box = Box()
    sent_at_sync: list[list[bytes]] = []

    class Watched(Disk):
        def sync(self, fd):
            sent_at_sync.append(list(box.sent))
            super().sync(fd)

    async with Host(config(seats=2, journal_dir=tmp_path), disk=Watched()) as host:
        host._outboxes[99] = box
        host._do([Send(99, b"one"), Send(99, b"two")])
        assert box.sent == [b"one", b"two"]  # no await since

        # A game's header and a move's record, and frames behind them: the frame waits for the sync.
        header = jn.Header(game="side-effects", seed=1, seats=2, names=("a", "b"))
        host._do([JournalStart(header), JournalMove(0, EndTurn()), Send(99, b"three"), Send(99, b"chat", free=True)])
        assert box.sent == [b"one", b"two", b"chat"]  # the free frame passed; three waits for the disk
        async with asyncio.timeout(5):
            await host.delivered()
        assert sent_at_sync[0] == [b"one", b"two", b"chat"]  # three was not sent when the records were synced
        assert box.sent[3:] == [b"three"]
        assert len(jn.read(host.journal_path).moves) == 1
        del host._outboxes[99]


async def test_a_client_that_never_reads_is_dropped_and_the_game_plays_on():
    """Over a real socket: the outbox of a spectator that reads nothing fills
    past its cap, the host drops the connection, and the table carries on.
    No Angry Mob and no fleeing, so the game runs to its round limit: it must
    send more than the sockets' buffers hold (megabytes, on loopback) before it ends."""
    long_game = {"round_limit": 100, "infamy_threshold": 50, "deathmatch": True}
    cfg = config(game="quack", seats=4, bots=4, autostart=True, send_backlog=16 * 1024, options=long_game)
    async with asyncio.timeout(60):
        async with Host(cfg) as host:
            sock = socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
            sock.connect(("127.0.0.1", host.port))
            idle = await connect(host.url, sock=sock, max_queue=1, compression=None)
            await idle.send(
                msgpack.packb({"type": "hello", "version": PROTOCOL_VERSION, "name": "Sloth", "spectate": True})
            )
            idle.transport.pause_reading()  # and never read again
            await host.until(lambda: host.connections == 0)
            assert host.table.phase == "playing", "the game should still be going when the reader is dropped"
            assert await host.game_over() is not None
            idle.transport.abort()


# --- names and chat -------------------------------------------------------------------------


async def test_escapes_are_stripped_and_markup_arrives_as_plain_characters():
    async with asyncio.timeout(20):
        async with Host(config(seats=3)) as host:
            evil = await Client.connect(host.url, name="\x1b[2J\x1b]0;owned\x07[red]Mal[/red]\x9b31m")
            other = await Client.connect(host.url, name="Ana")
            await evil.chat("\x1b[31mhello\x1b[0m [bold]world[/bold]\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\\n")
            async for message in other:
                if isinstance(message, ChatLine):
                    break
            assert message.text == "hello [bold]world[/bold]link"
            assert message.name == "[red]Mal[/red]" == other.lobby.seats[0].name
            for c in (evil, other):
                await c.close()


# --- dropping and reconnecting --------------------------------------------------------------


async def test_dropped_seat_reconnects_to_the_same_seat_and_hand():
    cfg = config(seats=3, autostart=True, bot_delay=0.002)
    async with asyncio.timeout(60):
        async with Host(cfg) as host:
            others = asyncio.gather(*(run_network_bot(host.url, f"B{i}", seed=i) for i in range(2)))
            me = await Client.connect(host.url, name="Me")
            brain = core_bots.make("side-effects", "heuristic", 9)
            seat, token = me.seat, me.token
            # Play a few moves, then lose the connection without a goodbye.
            view = await play_with(me, brain, until=lambda m: m.seq >= 6)
            hand = [c.id for c in host.table.rules.view(host.table.state, seat).hand]
            me.drop()
            notices = await after_reconnecting(me)
            assert me.seat == seat and me.token == token
            fresh = notices[-1]
            if fresh.seq == view.seq:  # nothing happened while away: the very same hand
                assert [c.id for c in fresh.view.hand] == hand
            assert [c.id for c in fresh.view.hand] == host.table.state.hands[seat]
            move = decide(brain, fresh.view)  # the game may be waiting for us
            if move is not None:
                await me.move(move, fresh.seq)
            outcome = await play_with(me, brain)
            assert outcome is not None and outcome == host.table.outcome
            assert all(o == outcome for o in await others)
            await me.close()


async def after_reconnecting(client: Client) -> list:
    """The messages up to the first view after the client noticed the drop and
    reconnected by itself (views queued before the drop are skipped)."""
    seen: list = []
    async for message in client:
        if isinstance(message, (Disconnected, Reconnected)):
            seen.append(message)
        elif isinstance(message, View) and any(isinstance(m, Reconnected) for m in seen):
            seen.append(message)
            break
    assert [type(m) for m in seen] == [Disconnected, Reconnected, View], seen
    return seen


def tremors_seed(seats: int, brain_seed: int, options: dict) -> int:
    """A seed whose game puts seat 0 (a person) under a Tremors prompt, found by
    playing the same table without sockets."""
    from quackbox.core import side_effects as se

    for seed in range(400):
        table = Table(
            TableConfig(
                game="side-effects",
                seats=seats,
                bots=seats - 1,
                headless=True,
                bot_delay=0,
                seed=seed,
                options=options,
                autostart=True,
            )
        )
        d = Driver(table)
        d.join(1, "Me")
        d.advance(0)
        brain = core_bots.make("side-effects", "heuristic", brain_seed)
        for _ in range(2000):
            if table.phase != "playing":
                break
            state = table.state
            if state.phase == se.TREMORS and state.prompt_seat == 0:
                return seed
            view = d.view(1)
            if 0 in view.view.waiting_for:
                d.send(1, MoveMessage(seq=view.seq, move=brain.choose(view.view)))
            d.advance(0.001)
    raise AssertionError("no seed gives seat 0 a Tremors prompt")


async def test_seat_dropped_during_a_tremors_prompt_comes_back_to_it():
    from quackbox.core import side_effects as se

    options = {"tremors_seconds": 30.0}
    seed = tremors_seed(3, 5, options)
    cfg = config(seats=3, bots=2, autostart=True, seed=seed, options=options, bot_delay=0.001)
    async with asyncio.timeout(60):
        async with Host(cfg) as host:
            me = await Client.connect(host.url, name="Me")
            brain = core_bots.make("side-effects", "heuristic", 5)

            def prompted(message):
                prompt = message.view.prompt
                return prompt is not None and prompt.kind == se.TREMORS and prompt.seat == me.seat

            async def choose_only(client):
                async for message in client:
                    if isinstance(message, View):
                        if message.view.outcome is not None:
                            return message.view.outcome
                        if prompted(message):
                            return message
                        if client.seat in message.view.waiting_for and client.view.seq == message.seq:
                            await client.move(brain.choose(message.view), message.seq)

            at_prompt = await choose_only(me)
            assert isinstance(at_prompt, View), "the game never put seat 0 under a Tremors prompt"
            hand = [c.id for c in at_prompt.view.hand]
            me.drop()
            message = (await after_reconnecting(me))[-1]
            assert prompted(message), "after reconnecting, the prompt should still be waiting"
            assert [c.id for c in message.view.hand] == hand
            assert message.deadline is not None and message.deadline.seat == me.seat
            await me.move(brain.choose(message.view), message.seq)
            outcome = await play_with(me, brain)
            assert outcome == host.table.outcome
            await me.close()


async def test_stopping_mid_game_lets_go_of_the_journal(tmp_path):
    """A table closed before its game ends closes its journal file (every
    record is on disk already), rather than leave it open until collected."""
    from quackbox.net import journal as jn

    cfg = config(seats=2, bots=2, autostart=True, journal_dir=str(tmp_path), bot_delay=0.05)
    async with asyncio.timeout(30):
        async with Host(cfg) as host:
            await host.until(lambda: host.journal_path is not None and host.table.seq >= 2)
            writer = host.saver.writer
    assert host.saver.writer is None and not writer.is_open
    assert not jn.read(writer.path).finished


async def test_a_game_closed_before_its_first_move_keeps_no_journal(tmp_path):
    """Issue 25: every table closed before anyone moved listed as a saved game
    "unfinished at move 0"; a journal with no move is not kept."""
    cfg = config(seats=2, bots=1, autostart=False, journal_dir=str(tmp_path), bot_delay=30.0)  # nobody moves
    async with asyncio.timeout(30):
        async with Host(cfg) as host:
            client = await Client.connect(host.url, name="Ann")
            await client.start()
            await host.until(lambda: host.journal_path is not None)
            path = host.journal_path
            assert path.exists()
            await client.close()
    assert not path.exists() and list(tmp_path.iterdir()) == []


def test_a_resumed_host_reads_its_journal_once(tmp_path, monkeypatch):
    """quackbox host reads the journal to check it; the host then uses that
    reading, and does not open the file to read it again."""
    from quackbox.net import journal as jn
    from tests.net.test_journal import _play

    path = tmp_path / "game.qbj"
    _play("side-effects", 2, 5, path, stop_after=6)
    record = jn.read(path)
    monkeypatch.setattr(jn, "read", lambda _path: pytest.fail("the journal was read a second time"))
    host = Host(config(game="side-effects", seats=2, resume=str(path), resume_record=record))
    try:
        assert host.table.seq == 6
    finally:
        host.saver.writer.close()


def test_a_bot_s_thought_that_ends_after_the_host_s_loop_has_closed_is_let_go_quietly():
    """A slow bot's thought runs in a thread and may end after the host (and
    its loop) are gone: it must not raise into that thread."""
    hosts: list[Host] = []

    async def host_a_while() -> None:
        async with Host(config(game="quack", seats=2, bots=1)) as host:
            hosts.append(host)

    asyncio.run(host_a_while())
    [host] = hosts
    host.table.bots.on_thought()  # as the thinking thread would, after the loop closed
