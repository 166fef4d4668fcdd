"""The host: a thin asyncio shell around :class:`net.table.Table`.

It listens with websockets' ``serve``, feeds every frame to the table with
the loop's clock, and delivers what the table says to send. Each connection
has its own outbox, so one client that never reads cannot hold up the
others: its backlog is capped and, past the cap, its connection is dropped
(the seat goes away and can be reclaimed with its token). A frame goes
straight to the socket's buffer when nothing is waiting before it; only a
connection whose buffer is full gets its frames written by its own task.

Journal records are written (and fsynced) on a worker thread, so the disk
never stalls the loop and every other table with it; the actions after a
record wait for it, so a move is still on disk before anyone hears of it.

Entry points for the command line: :class:`HostConfig` and :func:`run_host`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import errno
import functools
import ipaddress
import itertools
import logging
import socket
import queue
import threading
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.protocol import State

from core.rules import Outcome
from net.protocol import DEFAULT_PORT, MAX_FRAME, Error, ErrorCode
from net import journal as jn
from net.table import OVER, Close, JournalEnd, JournalMove, JournalStart, Send, Table, TableConfig, new_room_code

__all__ = ["Host", "HostConfig", "HostError", "run_host"]

log = logging.getLogger("quackbox.net")

HARD_MAX_SIZE = 16 * MAX_FRAME
"""Frames up to this size are read and refused with ``frame_too_large``;
bigger ones are cut off by websockets itself (close code 1009)."""
SEND_BACKLOG = 2 * 1024 * 1024
"""Bytes queued for one connection before it counts as never reading."""
FLUSH_TIMEOUT = 2.0
"""Seconds to let goodbyes reach every client when the host stops."""
JOURNAL_THREADS = 4
"""Threads writing journals for every host in the process: an fsync mostly
waits for the disk, and each table waits for its own records only."""


class _Disk:
    """Journal writer threads shared by every host in the process.

    A host hands over one record at a time and waits for it (its later
    actions are held), so its journal is only ever touched by one thread at
    a time. Lighter than an executor and ``run_in_executor``: one queue put
    on the way in and one ``call_soon_threadsafe`` on the way out, which
    matters at hundreds of moves a second.
    """

    def __init__(self, threads: int) -> None:
        self.jobs: queue.SimpleQueue[tuple[Callable[[], None], asyncio.AbstractEventLoop, Callable[[], None]]]
        self.jobs = queue.SimpleQueue()
        self.threads = [
            threading.Thread(target=self._work, name=f"quackbox-journal-{i}", daemon=True) for i in range(threads)
        ]
        for thread in self.threads:
            thread.start()

    def submit(self, job: Callable[[], None], loop: asyncio.AbstractEventLoop, done: Callable[[], None]) -> None:
        """Run ``job`` on a writer thread, then ``done`` on ``loop``."""
        self.jobs.put((job, loop, done))

    def _work(self) -> None:
        while True:
            job, loop, done = self.jobs.get()
            try:
                job()
            except BaseException:  # the job reports its own errors; never lose the thread
                log.exception("a journal write failed")
            try:
                loop.call_soon_threadsafe(done)
            except RuntimeError:  # the loop is closed: nobody is waiting any more
                pass


_disk: _Disk | None = None
_disk_lock = threading.Lock()


def _journal_disk() -> _Disk:
    """The process's journal writers, started on first use."""
    global _disk
    with _disk_lock:
        if _disk is None:
            _disk = _Disk(JOURNAL_THREADS)
        return _disk


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
    """fsync each journal record (off only for benchmarks of the rest)."""


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
            return probe.getsockname()[0]
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
    """

    def __init__(self, config: HostConfig, *, rules: Any = None) -> None:
        if config.code is None and not is_loopback(config.bind):
            config = dataclasses.replace(config, code=new_room_code())
        self.config = config
        self.journal: jn.JournalWriter | None = None
        """What resuming had to say (a torn last record dropped), for the person."""
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
        self._held: list[Any] | None = None
        """Actions waiting for the journal record being written, in order (None: none is)."""
        self._written_event: asyncio.Event | None = None
        """Set when a journal record lands, for stop() to wait on."""
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
            )
        except OSError as exc:
            raise HostError(_explain(exc, self.config.bind, self.config.port)) from None
        self.port = self._server.sockets[0].getsockname()[1]
        if self.config.resume:
            self.table.restart_clock(self._now())
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
        deadline = asyncio.get_running_loop().time() + FLUSH_TIMEOUT
        while self._held is not None:
            self._written_event = asyncio.Event()
            try:
                async with asyncio.timeout_at(deadline):
                    await self._written_event.wait()
            except TimeoutError:
                log.error("the game journal did not finish writing in time")
                break
        if self._held is None and self.journal is not None:
            # An unfinished game: every record is on disk; let go of the file.
            try:
                self.journal.close()
            except OSError as exc:
                log.error("cannot close the game journal: %s", exc)
            self.journal = None
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

    # --- delivering what the table says ---------------------------------------------

    def _now(self) -> float:
        return asyncio.get_running_loop().time()

    def _do(self, actions: list[Any]) -> None:
        self._deliver(actions)
        self._settle()
        if not self._stopped:
            self._reschedule()

    def _settle(self) -> None:
        """Report the game over once everything it sent is on its way (nothing held)."""
        if self.table.phase == OVER and self._held is None and self._over is not None and not self._over.done():
            self._over.set_result(self.table.outcome)

    def _deliver(self, actions: list[Any]) -> None:
        """Carry out ``actions`` in order; from a journal record on, they wait for it."""
        for i, action in enumerate(actions):
            if self._held is not None:
                self._held.extend(actions[i:])
                return
            kind = type(action)
            if kind is JournalMove or kind is JournalStart or kind is JournalEnd:
                # No record is written in flight (what follows waits), so
                # self.journal is settled here.
                if self.journal is not None or (kind is JournalStart and self.config.journal_dir is not None):
                    self._held = []
                    # A move is encoded here, on the loop that owns the wire
                    # codec; the writer thread only writes bytes.
                    data = self.journal.move_record(action.seat, action.move) if kind is JournalMove else b""
                    job = functools.partial(self._record, action, data)
                    _journal_disk().submit(job, asyncio.get_running_loop(), self._written)
                continue
            box = self._outboxes.get(action.conn)
            if box is None:
                continue
            if kind is Send:
                box.send(action.data)
            else:
                box.close(action.code, action.reason)

    def _written(self) -> None:
        """A journal record is on disk (or failed, and said so): deliver what waited for it."""
        held, self._held = self._held or [], None
        self._deliver(held)
        self._settle()
        if self._written_event is not None:
            self._written_event.set()

    def _record(self, action: Any, data: bytes) -> None:
        """Write a journal record (on a journal thread; one at a time per host);
        ``data`` is a JournalMove's record, already encoded."""
        try:
            if type(action) is JournalStart:
                if self.journal is not None:
                    self.journal.close()
                    self.journal = None
                if self.config.journal_dir is None:
                    return
                when = time.time()
                header = dataclasses.replace(action.header, created=when)
                self.journal = jn.JournalWriter.create_new(
                    self.config.journal_dir, header, when, sync=self.config.journal_sync
                )
                log.info("journal: %s", self.journal.path)
            elif self.journal is not None:
                if type(action) is JournalMove:
                    self.journal.append_record(data)
                else:
                    self.journal.finish(action.outcome)
                    self.journal.close()
                    self.journal = None
        except (OSError, jn.JournalError) as exc:
            # Play goes on; the game just cannot be resumed after a crash.
            log.error("cannot write the game journal: %s", exc)
            if self.journal is not None:
                try:
                    self.journal.close()
                except OSError:
                    pass
            self.journal = None

    @property
    def journal_path(self) -> Path | None:
        """The journal being written, if any."""
        return self.journal.path if self.journal is not None else None

    def _reschedule(self) -> None:
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
        try:
            actions = self.table.tick(self._now())
        except Exception:
            log.exception("the table failed on a tick")
            # Retry in a second rather than spin on the same failure.
            self._timer = asyncio.get_running_loop().call_later(1.0, self._on_timer)
            return
        self._do(actions)


class _Outbox:
    """Frames waiting to go out on one connection.

    While nothing waits and the socket's buffer has room, a frame is handed
    to websockets' protocol and written at once, as ``send`` would but
    without a task switch per frame (the host sends four or more frames per
    move). Otherwise it queues for the connection's writer task, which
    awaits ``send`` and so waits for the buffer to drain.
    """

    def __init__(self, ws: ServerConnection, limit: int) -> None:
        self.ws = ws
        self.limit = limit
        self.queued = 0
        self.items: deque[bytes | Close] = deque()
        self.wakeup = asyncio.Event()
        self.closing = False
        # Only a websockets connection offers the direct way (tests pass stand-ins).
        protocol = getattr(ws, "protocol", None)
        self.direct = protocol is not None and hasattr(ws, "send_data") and hasattr(ws, "paused")
        self.task = asyncio.create_task(self._write())

    def send(self, data: bytes) -> None:
        if self.closing:
            return
        if self.direct and not self.items and self._send_now(data):
            return
        self.items.append(data)
        self.queued += len(data)
        self.wakeup.set()
        if self.queued > self.limit:
            # A client this far behind is not reading: drop it rather than
            # buffer without end. Its seat goes away and can be reclaimed.
            log.warning("dropping a connection that is %d bytes behind", self.queued)
            self.abort()

    def _send_now(self, data: bytes) -> bool:
        """Write ``data`` now if the connection is open and its buffer not full."""
        ws = self.ws
        if ws.paused or ws.protocol.state is not State.OPEN or ws.transport is None or ws.transport.is_closing():
            return False
        try:
            # What ``send`` does inside its send_context, minus the waiting.
            ws.protocol.send_binary(data)
            ws.send_data()
        except Exception as exc:  # the connection is going: let its reader see it close
            log.debug("could not write to a connection: %r", exc)
            self.abort()
        return True

    def close(self, code: int, reason: str) -> None:
        if self.closing:
            return
        self.closing = True
        self.items.append(Close(0, code, reason))
        self.wakeup.set()

    def abort(self) -> None:
        """Drop the connection now, unsent frames and all."""
        self.closing = True
        self.items.clear()
        if not self.task.done():
            self.task.cancel()
        transport = self.ws.transport
        if transport is not None and not transport.is_closing():
            transport.abort()

    async def _write(self) -> None:
        try:
            while True:
                while not self.items:
                    self.wakeup.clear()
                    await self.wakeup.wait()
                item = self.items.popleft()
                if isinstance(item, Close):
                    await self.ws.close(item.code, item.reason)
                    return
                self.queued -= len(item)
                await self.ws.send(item)
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
