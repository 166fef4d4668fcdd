"""The host: a thin asyncio shell around :class:`quackbox.net.table.Table`.

It listens with websockets' ``serve``, feeds every frame to the table with
the loop's clock, and carries out what the table says, in order:

- Frames go to each connection's outbox: straight to its socket when
  nothing waits there, else to a queue that the connection's own writer
  task empties with ``await ws.send``. So sends never wait on each other,
  and one client that never reads holds up only itself: its backlog is
  capped and, past the cap, its connection is dropped (the seat goes away
  and can be reclaimed with its token).
- Journal records go to a :class:`quackbox.net.saver.Saver` as the table
  accepts their moves: a thread of its own writes them and puts them on
  disk, those of one turn of the loop with one sync, so the loop never waits
  on the disk. The table's actions are carried out in one line, in order, as
  they come; the line stops at a record until it is on disk, so nothing the
  table says after an accepted move is sent before the move is on disk.
  Only what tells nothing of the game (``free``: a welcome, chat, a refused
  hello, a pause) may pass the line.
- When the disk fails, the saver says why; the table pauses (no move is
  made, everyone is told the sentence) and goes on by itself once the
  records are on disk.

Entry points for the command line: :class:`HostConfig` and :func:`run_host`.
"""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import errno
import functools
import ipaddress
import itertools
import logging
import shlex
import socket
import time
from dataclasses import dataclass
from http import HTTPStatus
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence

from websockets.asyncio.server import ServerConnection, broadcast, serve
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from quackbox.core.rules import Outcome
from quackbox.net import journal as jn
from quackbox.net import text
from quackbox.net.actions import JournalNote
from quackbox.net.config import TableConfig
from quackbox.net.errors import HostError
from quackbox.net.gate import Gate
from quackbox.net.journal_writer import DISK, Disk, JournalWriter
from quackbox.net.lobby import HELLO_TIMEOUT
from quackbox.net.loops import call_soon_from_thread
from quackbox.net.protocol import DEFAULT_PORT, MAX_FRAME, Error, ErrorCode
from quackbox.net.room import new_room_code
from quackbox.net.saver import Record, Saver, Start
from quackbox.net.table import OVER, Action, Close, JournalEnd, JournalMove, JournalStart, Send, Table

if TYPE_CHECKING:
    from quackbox.net.program import ProgramSeats

__all__ = ["Host", "HostConfig", "HostError", "farewell", "run_host"]

log = logging.getLogger("quackbox.net")

HARD_MAX_SIZE = 16 * MAX_FRAME
"""Frames up to this size are read and refused with ``frame_too_large``;
bigger ones are cut off by websockets itself (close code 1009)."""
SEND_BACKLOG = 2 * 1024 * 1024
"""Bytes queued for one connection before it counts as never reading."""
WAITING = 128
WAITING_PER_ADDRESS = 32
"""Connections a table's port holds before their handshake is through, in all and from one
address; past it the oldest of the most crowded address makes way (:class:`Gate`)."""
FLUSH_TIMEOUT = 2.0
"""Seconds to let goodbyes reach every client when the host stops."""


@dataclass
class HostConfig(TableConfig):
    """A :class:`TableConfig` plus where to listen and when to stop."""

    bind: str = "127.0.0.1"
    """Address to listen on; anything beyond loopback requires a room code."""
    port: int = DEFAULT_PORT
    """0 picks a free port (see :attr:`Host.port`)."""
    once: bool = True
    """Stop after one game; else the table returns to its lobby for another."""
    send_backlog: int = SEND_BACKLOG
    journal_dir: str | None = None
    """Where each game's journal is written; None keeps no journal."""
    resume: str | None = None
    """A journal to carry on from instead of dealing a new game."""
    resume_record: jn.Journal | None = None
    """``resume`` as already read (``quackbox host`` reads it to check it
    first), so the host does not read the file a second time."""
    journal_sync: bool = True
    """Put each journal record on disk (off only for benchmarks of the rest)."""
    programs: tuple[tuple[str, ...], ...] = ()
    """Programs that play seats of this table (``--bot-cmd``), each a command and its
    arguments: started as the host opens, each takes an open seat over loopback
    (:func:`quackbox.net.program.start_program_seats`)."""


_RECORDS = (JournalStart, JournalMove, JournalEnd, JournalNote)


def farewell(saved: tuple[Path, bool] | None, resume_flags: Sequence[str] = ()) -> list[str]:
    """What a host's terminal says as its table closes: where the game was saved, and the
    command that resumes it (with ``resume_flags``, the doors and addresses it had)."""
    if saved is None:
        return ["No move was made, so no game was saved."]
    path, over = saved
    path = path.absolute()  # the command works from any folder
    if over:
        return [
            f"The game is over; it is saved in {path}",
            f"Watch it again with: quackbox replay {shlex.quote(str(path))}",
        ]
    command = shlex.join(["quackbox", "host", "--resume", str(path), *resume_flags])
    return [f"The game is saved in {path}", f"Resume it with: {command}"]


def is_loopback(bind: str) -> bool:
    """Whether ``bind`` only listens on this machine."""
    if bind == "localhost":
        return True
    try:
        return ipaddress.ip_address(bind).is_loopback
    except ValueError:
        return False


def lan_address() -> str | None:
    """This machine's address on the local network, best effort (no packet is
    sent): what friends type to join. None when there is no such network."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("10.255.255.255", 1))
            address: str = probe.getsockname()[0]
            return address
    except OSError:
        return None


class Host:
    """One table served over WebSockets.

    Use as ``async with Host(config) as host:``; :attr:`url`, :attr:`code`
    and :attr:`host_token` say how to reach it once started.

    Args:
        config: the table and where to listen. Without loopback and without
            a code, a room code is made up (see :attr:`code`).
        rules: the game's rules, for tests with a made-up game.
        disk: the system calls the journal is written with (a test's, to make them fail).
    """

    def __init__(self, config: HostConfig, *, rules: Any = None, disk: Disk = DISK) -> None:
        if config.code is None and not is_loopback(config.bind):
            config = dataclasses.replace(config, code=new_room_code())
        self.config = config
        writer = None
        if config.resume:
            record = config.resume_record
            if record is None:
                record = jn.read(config.resume)  # JournalError names the file
            writer = JournalWriter.resume(record, sync=config.journal_sync, disk=disk)
            # The clock starts when the loop runs; deadlines restart in full then.
            self.table = Table.resume(config, record, 0.0, rules=rules)
            self.config = config = dataclasses.replace(config, code=self.table.code)
        else:
            self.table = Table(config, rules=rules)
        self.saver = Saver(
            config.journal_dir,
            writer=writer,
            on_trouble=self._trouble,
            on_saved=self._saved,
            disk=disk,
            sync=config.journal_sync,
        )
        """Puts the journal on disk; says when it cannot."""
        self._journalling = config.journal_dir is not None or writer is not None
        self.waiting = Gate(total=WAITING, per_address=WAITING_PER_ADDRESS)
        """The connections accepted and not yet through their handshake (which has its deadline)."""
        self.origins: set[str] = set()
        """The web origins whose pages may open the table's socket: the host's own browser
        door's (it adds them as it opens). Any other page is refused."""
        self._server: Any = None
        self._outboxes: dict[int, Outbox] = {}
        self._ids = itertools.count(1)
        self._timer: asyncio.TimerHandle | None = None
        self._over: asyncio.Future[Outcome] | None = None
        self._stopped = False
        self._line: collections.deque[Send | Close | asyncio.Future[None]] = collections.deque()
        """What the table said to do and is not done yet, in order (see :meth:`_carry_out`);
        a journal record stands there as the future of its write."""
        self._line_done = asyncio.Event()
        """Set while nothing is left in the line."""
        self._line_done.set()
        self._changed = asyncio.Event()
        """Set, and replaced, each time the table has acted (see :meth:`until`)."""
        self.port = config.port
        self.programs: ProgramSeats | None = None
        """The seats programs play (``config.programs``), once started."""

    @property
    def code(self) -> str | None:
        """The room code players must give, or None."""
        return self.table.code

    @property
    def host_token(self) -> str | None:
        """The token of the host's own seat (seat 0), or None when headless."""
        return self.table.host_token

    @property
    def url(self) -> str:
        """A URL for a client on this machine."""
        bind = self.config.bind
        if bind in ("", "0.0.0.0"):
            bind = "127.0.0.1"
        elif bind == "::":
            bind = "::1"
        if ":" in bind:
            bind = f"[{bind}]"
        return f"ws://{bind}:{self.port}"

    async def __aenter__(self) -> Host:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        if self.table.phase == OVER:
            await self.stop("game_over", "The game is over. Thanks for playing!")
        else:
            await self.stop("shutdown", "The host closed the table.")

    async def start(self) -> None:
        """Listen; HostError with a plain sentence if the address cannot be used."""
        loop = asyncio.get_running_loop()
        try:  # off the loop: reading it takes a while, once
            await asyncio.to_thread(text.load_confusables)
        except text.TextDataError as exc:
            raise HostError(str(exc)) from None
        self._over = loop.create_future()
        bind = self.config.bind or None
        try:
            self._server = await serve(
                self._serve,
                bind,
                self.config.port,
                max_size=HARD_MAX_SIZE,
                # Views are small and LAN bandwidth is plenty: compression would
                # only cost CPU on every frame.
                compression=None,
                close_timeout=FLUSH_TIMEOUT,
                # A connection must finish the WebSocket handshake as quickly as
                # it must then say hello, or it holds a socket for nothing.
                open_timeout=HELLO_TIMEOUT,
                process_request=self._check_origin,
                create_connection=self._counted(),
            )
        except OSError as exc:
            raise HostError(_explain(exc, self.config.bind, self.config.port)) from None
        self.port = self._server.sockets[0].getsockname()[1]
        if self.config.resume:
            self.table.restart_clock(self._now())
        self.saver.start()
        # A slow bot thinks in a worker process; its answer wakes the table here.
        self.table.bots.on_thought = functools.partial(
            call_soon_from_thread, asyncio.get_running_loop(), self._on_timer
        )
        self._reschedule()
        if self.config.programs:
            from quackbox.net.program import ProgramError, start_program_seats

            try:
                self.programs = await start_program_seats(
                    self.url, self.config.programs, code=self.code, seed=self.config.seed
                )
            except ProgramError as exc:
                await self.stop()
                raise HostError(str(exc)) from None

    async def stop(self, reason: str = "shutdown", message: str = "The host closed the table.") -> None:
        """Say goodbye to everyone (with ``reason``), then stop listening."""
        if self._stopped:
            return
        self._stopped = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.table.paused is not None:
            # What waits in the line tells of records the disk never took: it goes
            # to no one, and the goodbyes go now.
            self._line.clear()
        self._do(self.table.shutdown(reason, message))
        # The goodbyes may wait behind journal records: let them land first.
        try:
            async with asyncio.timeout(FLUSH_TIMEOUT):
                await self._line_done.wait()
        except TimeoutError:
            log.error("the game journal did not finish writing in time")
        await self.saver.close(FLUSH_TIMEOUT)
        self.table.bots.close()
        boxes = list(self._outboxes.values())
        if boxes:
            await asyncio.wait([b.task for b in boxes], timeout=FLUSH_TIMEOUT)
        if self.programs is not None:
            await self.programs.stop()  # each has had the goodbye: its program is told and ended
        for box in boxes:
            box.abort()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
        if self._over is not None and not self._over.done():
            self._over.cancel()

    def _counted(self) -> type[ServerConnection]:
        """websockets' connection, held in :attr:`waiting` from the moment it is accepted until
        its handshake is through: a crowd of half-open connections never takes every descriptor."""
        host = self

        class Counted(ServerConnection):
            def connection_made(self, transport: asyncio.BaseTransport) -> None:
                super().connection_made(transport)
                peer = transport.get_extra_info("peername") or ("",)
                for old in host.waiting.arrived(self, str(peer[0]), asyncio.get_running_loop().time()):
                    if isinstance(old, ServerConnection) and old.transport is not None:
                        old.transport.abort()  # waited longest at the most crowded address

            def data_received(self, data: bytes) -> None:
                super().data_received(data)
                if self.request is not None:
                    host.waiting.progressed(self)  # its request is whole: it is being answered

            def connection_lost(self, exc: Exception | None) -> None:
                host.waiting.left(self)
                super().connection_lost(exc)

        return Counted

    def _check_origin(self, connection: ServerConnection, request: Request) -> Response | None:
        """Refuse a handshake from a web page, unless it is the host's own browser door's.

        Quackbox's own clients send no Origin; a browser always does, and a page of
        any other site, opened in a browser on this machine or this network, could
        otherwise take a seat at a table that has no room code (one hosted on loopback)."""
        origin = request.headers.get("Origin")
        if origin is None or origin in self.origins:
            return None
        log.info("refused a connection from a web page at %s", origin[:200])
        return connection.respond(HTTPStatus.FORBIDDEN, "This table does not take connections from web pages.\n")

    @property
    def connections(self) -> int:
        """How many connections are open (through their handshake and not yet gone)."""
        return len(self._outboxes)

    async def until(self, check: Callable[[], object]) -> None:
        """Wait until ``check()`` holds: looked at now, and again each time the table has acted
        (a frame, a timer, a connection come or gone, a record on disk). For what waits on a
        table's state (a test, a watcher) without polling it."""
        while not check():
            await self._changed.wait()

    async def delivered(self) -> None:
        """Wait until everything the table said has gone to its connections' outboxes (what
        waits for a journal record goes once the record is on disk)."""
        await self._line_done.wait()

    def _tell_changed(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    async def game_over(self) -> Outcome:
        """Wait for the current game to end; its outcome."""
        if self._over is None:
            raise RuntimeError("start() the host before waiting for its game")
        return await asyncio.shield(self._over)

    # --- the connection handler ---------------------------------------------------

    async def _serve(self, ws: ServerConnection) -> None:
        self.waiting.through(ws)  # through its handshake: the lobby counts it now, until its hello
        conn = next(self._ids)
        box = Outbox(ws, self.config.send_backlog)
        self._outboxes[conn] = box
        remote = ws.remote_address[0] if ws.remote_address else "unknown"
        self._do(self.table.connect(conn, str(remote), self._now()))
        try:
            async for frame in ws:
                try:
                    actions = self.table.receive(conn, frame, self._now())
                except Exception:
                    # A bug in the table: report it to this client and keep the table up.
                    log.exception("the table failed on a frame from connection %d", conn)
                    error = Error(code=ErrorCode.HOST_ERROR.value, message="The host failed on that message (a bug).")
                    actions = [Send(conn, self.table.wire.encode(error))]
                self._do(actions)
        except ConnectionClosed:
            pass
        finally:
            self._outboxes.pop(conn, None)
            self._do(self.table.disconnect(conn, self._now()))
            box.abort()

    # --- carrying out what the table says -------------------------------------------

    def _now(self) -> float:
        return asyncio.get_running_loop().time()

    def _do(self, actions: list[Action]) -> None:
        """Carry out ``actions`` behind everything the table said before them; journal
        records go to the saver at once (see :meth:`_to_disk`). What tells nothing of
        the game (``free``) goes at once even while the line waits for the disk."""
        if actions:
            line = self._line
            waiting = any(isinstance(item, asyncio.Future) for item in line)
            for action in actions:
                if isinstance(action, _RECORDS):
                    if self._journalling:
                        line.append(self._to_disk(action))
                        waiting = True
                elif waiting and action.free:
                    self._deliver(action)
                else:
                    line.append(action)
            self._line_done.clear()
            self._carry_out()
        if not self._stopped:
            self._reschedule()
        self._tell_changed()

    def _carry_out(self) -> None:
        """Carry out the line of actions, in order, up to a journal record not yet on disk.

        Frames go to their connections' outboxes now, in the turn of the loop
        the table said them. A record's frames wait until the record is on
        disk, so no one hears of a move that is not; the saver calls this
        again as soon as it is (:meth:`_saved`).
        """
        line = self._line
        while line:
            action = line[0]
            if isinstance(action, asyncio.Future):
                if not action.done():
                    return  # told when it is on disk
                line.popleft()
                continue
            line.popleft()
            self._deliver(action)
        self._line_done.set()
        outcome = self.table.outcome
        if self.table.phase == OVER and outcome is not None and self._over is not None and not self._over.done():
            # The game is over and everything it said is on its way.
            self._over.set_result(outcome)

    def _deliver(self, action: Send | Close) -> None:
        try:
            box = self._outboxes.get(action.conn)
            if box is None:
                return  # that connection is gone
            if isinstance(action, Send):
                box.send(action.data)
            else:
                box.close(action.code, action.reason)
        except Exception:
            # A bug here must not stop every later delivery with it.
            log.exception("the host failed to carry out %r", action)

    def _to_disk(self, action: JournalStart | JournalMove | JournalEnd | JournalNote) -> asyncio.Future[None]:
        """Hand a journal record to the saver as the table accepts its move; its future,
        which stands in the line, is done once the record is on disk. Until then the
        game does not move on by itself (:attr:`Table.holding`)."""
        if isinstance(action, JournalStart):
            when = time.time()
            op: Start | Record = Start(dataclasses.replace(action.header, created=when), when)
        elif isinstance(action, JournalMove):
            # Encoded as the table accepts it: the record's time is the move's.
            op = Record(jn.move_record(self.table.wire.values, action.seat, action.move))
        elif isinstance(action, JournalNote):
            op = Record(
                jn.note_record(action.kind, action.seat, token_hash=action.token_hash, muted=action.muted), note=True
            )
        else:
            op = Record(jn.end_record(action.outcome), end=True)
        self.table.holding = True
        return self.saver.save(op)

    def _saved(self) -> None:
        """Records are on disk: what waited for them goes out, and the game moves on."""
        self.table.holding = self.saver.busy
        self._carry_out()
        if not self._stopped:
            self._reschedule()
        self._tell_changed()

    def _trouble(self, sentence: str | None) -> None:
        """The saver cannot put the journal on disk (``sentence`` says why), or can again (None)."""
        if sentence is not None:
            self._do(self.table.pause(sentence))
        else:
            self._do(self.table.unpause(self._now()))

    @property
    def saved_game(self) -> tuple[Path, bool] | None:
        """The game on disk, if a move was made: its journal, and whether the game is over."""
        return self.saver.saved_game

    @property
    def journal_path(self) -> Path | None:
        """The journal being written, if any."""
        return self.saver.path

    def _reschedule(self) -> None:
        if self._stopped:
            return
        wake = self.table.next_wakeup()
        timer = self._timer
        if timer is not None:
            if wake is not None and timer.when() == wake:
                return
            timer.cancel()
            self._timer = None
        if wake is not None:
            self._timer = asyncio.get_running_loop().call_at(wake, self._on_timer)

    def _on_timer(self) -> None:
        self._timer = None
        if self._stopped:  # a bot's late thought, or a timer that fired as the table closed
            return
        try:
            actions = self.table.tick(self._now())
        except Exception:
            log.exception("the table failed on a tick")
            # Retry in a second rather than spin on the same failure.
            self._timer = asyncio.get_running_loop().call_later(1.0, self._on_timer)
            return
        self._do(actions)


class Outbox:
    """Frames waiting to go out on one connection, and the task that sends them.

    :meth:`send` never waits. A frame for a connection with nothing queued,
    whose writer is idle and whose socket buffer has room, goes to the
    socket at once, in this turn of the event loop: queued, it would wait
    for the writer task's next turn, and on a busy host each turn of the
    loop is a turn of every table's work. Otherwise it is queued, and the
    writer task awaits ``ws.send`` for each frame in turn, so a slow
    connection holds up only itself; frames go out in the order sent either
    way. The queue is bounded: a connection whose queued frames pass
    ``limit`` bytes is not reading, and is dropped.
    """

    def __init__(self, ws: ServerConnection, limit: int) -> None:
        self.ws = ws
        self.limit = limit
        self.queued = 0
        """Bytes in the queue."""
        self.frames: asyncio.Queue[bytes | Close] = asyncio.Queue()
        self.closing = False
        self._idle = True
        """The writer task waits for a frame (it is not sending one)."""
        self.task = asyncio.create_task(self._write())

    def send(self, data: bytes) -> None:
        if self.closing:
            return
        if self._idle and self.frames.empty() and self._room():
            # websockets' one call that sends without waiting: it frames the
            # message and hands it to the socket now (for one connection here).
            broadcast((self.ws,), data)
            return
        self.queued += len(data)
        if self.queued > self.limit:
            # A client this far behind is not reading: drop it rather than
            # buffer without end. Its seat goes away and can be reclaimed.
            log.warning("dropping a connection that is %d bytes behind", self.queued)
            self.abort()
            return
        self.frames.put_nowait(data)

    def close(self, code: int, reason: str) -> None:
        """Close the connection once the frames queued before are sent."""
        if self.closing:
            return
        self.closing = True
        self.frames.put_nowait(Close(0, code, reason))

    def abort(self) -> None:
        """Drop the connection now, unsent frames and all."""
        self.closing = True
        self.task.cancel()
        # websockets offers no call for this: close() first waits for the
        # write buffer to drain, which a peer that does not read never lets
        # happen. Aborting the asyncio transport ends the connection at once;
        # websockets then sees it lost, as after a network failure.
        transport = self.ws.transport
        if transport is not None and not transport.is_closing():
            transport.abort()

    def _room(self) -> bool:
        """Whether the socket takes a frame now: its buffer is below the mark
        at which ``ws.send`` would wait for it to drain."""
        transport = self.ws.transport
        if transport is None or transport.is_closing():
            return False  # the writer task finds the connection closed
        _low, high = transport.get_write_buffer_limits()
        return transport.get_write_buffer_size() < high

    async def _write(self) -> None:
        try:
            while True:
                item = await self.frames.get()
                self._idle = False
                if isinstance(item, Close):
                    await self.ws.close(item.code, item.reason)
                    return
                self.queued -= len(item)
                await self.ws.send(item)
                self._idle = True
        except ConnectionClosed:
            pass


def _explain(exc: OSError, bind: str, port: int) -> str:
    where = f"{bind or 'every address'} port {port}"
    if exc.errno == errno.EADDRINUSE:
        return (
            f"Cannot listen on {where}: the port is already in use (another quackbox host?). "
            "Stop it, or pick another port with --port."
        )
    if exc.errno in (errno.EACCES, errno.EPERM):
        return (
            f"Cannot listen on {where}: permission denied. Ports below 1024 need privileges; try --port {DEFAULT_PORT}."
        )
    if exc.errno == errno.EADDRNOTAVAIL:
        return f"Cannot listen on {where}: this machine has no such address. Try --bind 0.0.0.0 for every address."
    return f"Cannot listen on {where}: {exc.strerror or exc}."


async def run_host(config: HostConfig, *, on_ready: Callable[[Host], None] | None = None) -> Outcome | None:
    """Run a table until its game ends (``once``) or until cancelled.

    Args:
        on_ready: called once the host listens (e.g. to print the address and code).

    Returns:
        The outcome of the (last) game, or None if none finished.

    Raises:
        HostError: the address cannot be used (a plain sentence).
    """
    async with Host(config) as host:
        if on_ready is not None:
            on_ready(host)
        if config.once:
            return await host.game_over()
        await asyncio.Future()  # until cancelled (Ctrl-C); leaving the block says goodbye
    return None  # pragma: no cover - only reached through cancellation
