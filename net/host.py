"""The host: a thin asyncio shell around :class:`quackbox.net.table.Table`.

It listens with websockets' ``serve``, feeds every frame to the table with
the loop's clock, and carries out what the table says, in order:

- Frames go to each connection's outbox: straight to its socket when
  nothing waits there, else to a queue that the connection's own writer
  task empties with ``await ws.send``. So sends never wait on each other,
  and one client that never reads holds up only itself: its backlog is
  capped and, past the cap, its connection is dropped (the seat goes away
  and can be reclaimed with its token).
- Journal records go to a :class:`quackbox.net.journal.GroupCommit` as the
  table accepts their moves: it writes the records of one turn of the event
  loop (of every host sharing it) and puts them on disk together, with one
  sync, at the end of that turn. The table's actions are carried out in one
  line, in order, as they come; the line stops at a record until it is on
  disk, so nothing the table says after an accepted move is sent before the
  move is on disk.

Each hand-over between tasks costs a turn of the event loop, and on a busy
host a turn of the loop is a turn of every table's work: so a frame is
sent in the turn the table says it, or (behind a record) in the turn the
commit tells of the sync, with no task in between.

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
import socket
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from websockets.asyncio.server import ServerConnection, broadcast, serve
from websockets.exceptions import ConnectionClosed

from quackbox.core.rules import Outcome
from quackbox.net.protocol import DEFAULT_PORT, MAX_FRAME, Error, ErrorCode
from quackbox.net import journal as jn
from quackbox.net.loops import call_soon_from_thread
from quackbox.net.lobby import HELLO_TIMEOUT
from quackbox.net.config import TableConfig
from quackbox.net.table import OVER, Action, Close, JournalEnd, JournalMove, JournalStart, Send, Table, new_room_code

__all__ = ["Host", "HostConfig", "HostError", "run_host"]

log = logging.getLogger("quackbox.net")

HARD_MAX_SIZE = 16 * MAX_FRAME
"""Frames up to this size are read and refused with ``frame_too_large``;
bigger ones are cut off by websockets itself (close code 1009)."""
SEND_BACKLOG = 2 * 1024 * 1024
"""Bytes queued for one connection before it counts as never reading."""
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


_RECORDS = (JournalStart, JournalMove, JournalEnd)


class HostError(Exception):
    """The host cannot run; the message is a sentence for the person who started it."""


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
        commit: what puts journal records on disk; hosts in one process may
            share one, so their records share trips to the disk. Default: a
            :class:`quackbox.net.journal.GroupCommit` of its own.
    """

    def __init__(self, config: HostConfig, *, rules: Any = None, commit: jn.GroupCommit | None = None) -> None:
        if config.code is None and not is_loopback(config.bind):
            config = dataclasses.replace(config, code=new_room_code())
        self.config = config
        self.journal: jn.JournalWriter | None = None
        """The journal being written; once the host runs, only the commit's
        trips change it."""
        self.commit = commit if commit is not None else jn.GroupCommit()
        self._own_commit = commit is None
        """Whether this host made its commit (and so closes its logs as it stops)."""
        if config.resume:
            record = config.resume_record
            if record is None:
                record = jn.read(config.resume)  # JournalError names the file
            self.journal = jn.JournalWriter.resume(record, sync=config.journal_sync)
            # The clock starts when the loop runs; deadlines restart in full then.
            self.table = Table.resume(config, record, 0.0, rules=rules)
            self.config = config = dataclasses.replace(config, code=self.table.code)
        else:
            self.table = Table(config, rules=rules)
        self._server: Any = None
        self._outboxes: dict[int, _Outbox] = {}
        self._ids = itertools.count(1)
        self._timer: asyncio.TimerHandle | None = None
        self._over: asyncio.Future[Outcome] | None = None
        self._stopped = False
        self._line: collections.deque[Action | asyncio.Future[None]] = collections.deque()
        """What the table said to do and is not done yet, in order (see :meth:`_carry_out`);
        a journal record stands there as the future of its write."""
        self._line_done = asyncio.Event()
        """Set while nothing is left in the line."""
        self._line_done.set()
        self.port = config.port

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
            )
        except OSError as exc:
            raise HostError(_explain(exc, self.config.bind, self.config.port)) from None
        self.port = self._server.sockets[0].getsockname()[1]
        if self.config.resume:
            self.table.restart_clock(self._now())
        # A slow bot thinks in a worker thread; its answer wakes the table here.
        self.table.bots.on_thought = functools.partial(call_soon_from_thread, asyncio.get_running_loop(), self._on_timer)
        self._reschedule()

    async def stop(self, reason: str = "shutdown", message: str = "The host closed the table.") -> None:
        """Say goodbye to everyone (with ``reason``), then stop listening."""
        if self._stopped:
            return
        self._stopped = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._do(self.table.shutdown(reason, message))
        # The goodbyes may wait behind journal records: let them land first.
        try:
            async with asyncio.timeout(FLUSH_TIMEOUT):
                await self._line_done.wait()
                if self.journal is not None:
                    # Closed in a trip, like every other change to the journal:
                    # after any record a late bot move handed over.
                    await self.commit.write(self._close_journal)
                if self._own_commit:
                    await self.commit.write(self.commit.close_logs)
        except TimeoutError:
            log.error("the game journal did not finish writing in time")
        boxes = list(self._outboxes.values())
        if boxes:
            await asyncio.wait([b.task for b in boxes], timeout=FLUSH_TIMEOUT)
        for box in boxes:
            box.abort()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
        if self._over is not None and not self._over.done():
            self._over.cancel()

    async def game_over(self) -> Outcome:
        """Wait for the current game to end; its outcome."""
        if self._over is None:
            raise RuntimeError("start() the host before waiting for its game")
        return await asyncio.shield(self._over)

    # --- the connection handler ---------------------------------------------------

    async def _serve(self, ws: ServerConnection) -> None:
        conn = next(self._ids)
        box = _Outbox(ws, self.config.send_backlog)
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
                    error = Error(ErrorCode.HOST_ERROR.value, "The host failed on that message (a bug).")
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
        """Carry out ``actions`` behind everything the table said before them;
        journal records go to the disk at once (see :meth:`_to_disk`)."""
        if actions:
            if self.config.journal_dir is not None or self.journal is not None:
                self._line.extend(self._to_disk(a) if isinstance(a, _RECORDS) else a for a in actions)
            else:
                self._line.extend(actions)
            self._line_done.clear()
            self._carry_out()
        if not self._stopped:
            self._reschedule()

    def _carry_out(self) -> None:
        """Carry out the line of actions, in order, up to a journal record not yet on disk.

        Frames go to their connections' outboxes now, in the turn of the loop
        the table said them (not a task's turn later: on a busy host, a turn
        of the loop is a turn of every table's work). A record's frames wait
        until the record is on disk, so no one hears of a move that is not;
        the commit calls this again as soon as it is (``told``).
        """
        line = self._line
        while line:
            action = line[0]
            if isinstance(action, asyncio.Future):
                if not action.done():
                    return  # told when it is on disk
                line.popleft()
                self._on_disk(action)
                continue
            line.popleft()
            if isinstance(action, _RECORDS):
                continue  # this host keeps no journal
            try:
                box = self._outboxes.get(action.conn)
                if box is None:
                    continue  # that connection is gone
                if isinstance(action, Send):
                    box.send(action.data)
                else:
                    box.close(action.code, action.reason)
            except Exception:
                # A bug here must not stop every later delivery with it.
                log.exception("the host failed to carry out %r", action)
        self._line_done.set()
        outcome = self.table.outcome
        if self.table.phase == OVER and outcome is not None and self._over is not None and not self._over.done():
            # The game is over and everything it said is on its way.
            self._over.set_result(outcome)

    def _to_disk(self, action: JournalStart | JournalMove | JournalEnd) -> asyncio.Future[None]:
        """Hand a journal record to the commit as the table accepts its move, so
        every record accepted in this turn of the loop (at every host sharing
        the commit) goes to disk in one trip. Its future, which stands in the
        line, is done once the record is on disk, and the line goes on in that
        same turn (``told``)."""
        data = b""
        if isinstance(action, JournalMove):
            # Encoded as the table accepts it: the record's time is the move's.
            data = jn.move_record(self.table.wire.values, action.seat, action.move)
        return self.commit.write(functools.partial(self._record, action, data), told=self._carry_out)

    @staticmethod
    def _on_disk(written: asyncio.Future[None]) -> None:
        """A record is on disk, or failed to be: a disk that failed loses the journal, not the game."""
        if written.cancelled():
            return
        exc = written.exception()
        if isinstance(exc, (OSError, jn.JournalError)):
            # Play goes on; the game just cannot be resumed after a crash.
            log.error("cannot put the game journal on disk: %s", exc)
        elif exc is not None:
            log.error("cannot put the game journal on disk (a bug)", exc_info=exc)

    def _record(self, action: JournalStart | JournalMove | JournalEnd, data: bytes) -> jn.JournalWriter | None:
        """Write a journal record, in the commit's trip (records are written
        one at a time, in the order they were handed over); the
        journal to sync after, if any. ``data`` is a JournalMove's record,
        already encoded.

        A journal that cannot be written is let go: play goes on, the game
        just cannot be resumed after a crash.
        """
        try:
            if isinstance(action, JournalStart):
                self._let_go_of_journal()  # the last game's, over and on disk
                if self.config.journal_dir is None:
                    return None
                when = time.time()
                header = dataclasses.replace(action.header, created=when)
                self.journal = jn.JournalWriter.create_new(
                    self.config.journal_dir, header, when, sync=self.config.journal_sync
                )
                log.info("journal: %s", self.journal.path)
            elif self.journal is not None:
                if isinstance(action, JournalMove):
                    self.journal.append_record(data, later=True)
                else:
                    self.journal.finish(action.outcome, later=True)
        except (OSError, jn.JournalError) as exc:
            log.error("cannot write the game journal: %s", exc)
            self._let_go_of_journal()
        except Exception:
            log.exception("cannot write the game journal (a bug)")
            self._let_go_of_journal()
        return self.journal

    def _close_journal(self) -> None:
        """The last job of a stopping host for the commit (nothing to sync after)."""
        self._let_go_of_journal()

    def _let_go_of_journal(self) -> None:
        """Close the journal file, if one is open; a game nobody made a move in is not
        kept (it listed as a saved game with nothing in it)."""
        journal, self.journal = self.journal, None
        if journal is not None:
            try:
                journal.close()
                if journal.moves == 0:
                    journal.path.unlink(missing_ok=True)
            except OSError as exc:
                log.error("cannot close the game journal: %s", exc)

    @property
    def journal_path(self) -> Path | None:
        """The journal being written, if any."""
        return self.journal.path if self.journal is not None else None

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


class _Outbox:
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
        return f"Cannot listen on {where}: permission denied. Ports below 1024 need privileges; try --port {DEFAULT_PORT}."
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
