"""A program on a pseudo-terminal of its own: the process behind one session at a door (SSH, browser).

:meth:`PtyChild.spawn` starts the program with ``os.posix_spawn`` (no
``fork`` of the host with its threads and sockets, no ``preexec_fn``); a
door's zygote (:mod:`quackbox.net.zygote`) forks one on a PTY made by
:func:`open_pty`, with the same rules, and tells the host of its end (an
:class:`ExitSource`). Either way:

- a new session (``setsid``) whose controlling terminal is the fresh PTY:
  the child opens the PTY's name itself after ``setsid``, which on Linux
  makes it the session's terminal, so a hangup reaches it as a person's
  terminal closing would;
- default handling of every signal, and none blocked: a host started under
  ``nohup`` ignores SIGHUP, and ignored (or blocked) signals are inherited
  across ``exec``, so without this a child whose session closed would not
  hear the hangup;
- only the environment it is given, and no file descriptor of the host
  (Python makes every descriptor it opens non-inheritable; those the host
  was itself handed by whoever started it are closed: :func:`inherited_fds`).

The host's side of the PTY is read with the event loop: output goes to a
callback until :meth:`pause_output` (the SSH channel is backed up) and again
after :meth:`resume_output`. Input is written without blocking; what the
child has not read yet waits in a buffer, and the caller is told when that
buffer is too full so it can stop reading the network.

:meth:`end` is the one way a session's child goes: hang up the PTY, SIGHUP
the child's process group, SIGKILL it after a grace period, reap it.
"""

from __future__ import annotations

import asyncio
import errno
import fcntl
import logging
import os
import signal
import struct
import termios
from typing import Callable, Mapping, Protocol, Sequence

__all__ = ["DEFAULT_SIGNALS", "HANGUP_GRACE", "ExitSource", "PtyChild", "inherited_fds", "open_pty"]

log = logging.getLogger("quackbox.door")

HANGUP_GRACE = 3.0
"""Seconds a child has to exit after the hangup before it is killed."""
READ_SIZE = 64 * 1024
INPUT_BACKLOG = 64 * 1024
"""Bytes of input the child has not read before the network is paused."""
POLL_INTERVAL = 0.1
"""How often to look for the child's exit where there is no pidfd."""

DEFAULT_SIGNALS = frozenset(s for s in signal.valid_signals() if s not in (signal.SIGKILL, signal.SIGSTOP))
"""Every signal a child may be handed ignored (SIGKILL and SIGSTOP cannot be): each is set to its default."""


def _set_size(fd: int, cols: int, rows: int) -> None:
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


def open_pty(cols: int, rows: int) -> tuple[int, int]:
    """A fresh PTY of ``cols`` x ``rows``: its master and slave (both non-inheritable)."""
    master, slave = os.openpty()
    try:
        _set_size(master, max(cols, 1), max(rows, 1))
    except BaseException:
        os.close(master)
        os.close(slave)
        raise
    return master, slave


def inherited_fds() -> list[int]:
    """The descriptors past the standard three that a program this process starts would
    inherit: none that Python opened (it makes them non-inheritable), but maybe some this
    process was itself given by whoever started it. A child is given none of them."""
    try:
        names = os.listdir("/proc/self/fd")
    except OSError:
        try:
            names = os.listdir("/dev/fd")
        except OSError:
            return []
    found = []
    for name in names:
        fd = int(name)
        if fd > 2:
            try:
                if os.get_inheritable(fd):
                    found.append(fd)
            except OSError:
                continue  # the one listdir read the folder with
    return found


class ExitSource(Protocol):
    """Who hears of the exit of a child that is not the host's own (a zygote's)."""

    def watch(self, pid: int, on_exit: Callable[[int], None]) -> None:
        """Call ``on_exit(status)`` once child ``pid`` has exited (its status as :meth:`PtyChild.wait` gives it)."""


class PtyChild:
    """A running child on its own PTY. Make one with :meth:`spawn`, or from a
    process started elsewhere (``exits``: who hears of its end, since it is not
    the host's own child to wait for)."""

    def __init__(self, pid: int, master: int, *, exits: ExitSource | None = None) -> None:
        self.pid = pid
        """The child's process id (and its process group's, and its session's)."""
        self._master: int | None = master
        self._loop = asyncio.get_running_loop()
        self._exited: asyncio.Future[int] = self._loop.create_future()
        self._on_output: Callable[[bytes], None] | None = None
        self._on_backlog: Callable[[bool], None] | None = None
        self._reading = False
        self._paused = False
        self._pending = bytearray()
        self._pidfd: int | None = None
        self._poll: asyncio.TimerHandle | None = None
        if exits is None:
            self._watch_exit()
        else:
            exits.watch(pid, self._exited_with)

    @classmethod
    def spawn(cls, argv: Sequence[str], env: Mapping[str, str], *, cols: int, rows: int) -> PtyChild:
        """Start ``argv`` (its first item a path) on a fresh PTY of ``cols`` x ``rows``.

        Raises:
            OSError: no PTY could be made, or the program could not be started.
        """
        master, slave = open_pty(cols, rows)
        try:
            name = os.ttyname(slave)
            pid = os.posix_spawn(
                argv[0],
                list(argv),
                dict(env),
                file_actions=[
                    # Opened after setsid, so it becomes the controlling terminal.
                    (os.POSIX_SPAWN_OPEN, 0, name, os.O_RDWR, 0),
                    (os.POSIX_SPAWN_DUP2, 0, 1),
                    (os.POSIX_SPAWN_DUP2, 0, 2),
                    *((os.POSIX_SPAWN_CLOSE, fd) for fd in inherited_fds()),
                ],
                setsid=True,
                setsigdef=DEFAULT_SIGNALS,
                setsigmask=(),  # none blocked, whatever the host was started with
            )
        except BaseException:
            os.close(master)
            raise
        finally:
            os.close(slave)
        os.set_blocking(master, False)
        return cls(pid, master)

    # --- output and input ---------------------------------------------------------------

    def start(self, on_output: Callable[[bytes], None], on_backlog: Callable[[bool], None] | None = None) -> None:
        """Send what the child writes to ``on_output``; ``on_backlog(True)``
        says the child's unread input passed :data:`INPUT_BACKLOG` (stop
        reading the network), ``on_backlog(False)`` that it drained."""
        self._on_output = on_output
        self._on_backlog = on_backlog
        self._update_reader()

    def pause_output(self) -> None:
        """Stop reading the child's output (whoever it goes to is backed up);
        the child blocks once the PTY's own buffer fills."""
        self._paused = True
        self._update_reader()

    @property
    def output_paused(self) -> bool:
        """Whether the child's output is not being read (see :meth:`pause_output`)."""
        return self._paused

    def resume_output(self) -> None:
        self._paused = False
        self._update_reader()

    def write(self, data: bytes) -> None:
        """Type ``data`` into the child's terminal, never blocking."""
        if self._master is None or not data:
            return
        was_full = len(self._pending) > INPUT_BACKLOG
        if not self._pending:
            data = data[self._write_now(data) :]
            if not data:
                return
            self._loop.add_writer(self._master, self._drain)
        self._pending += data
        if not was_full and len(self._pending) > INPUT_BACKLOG and self._on_backlog is not None:
            self._on_backlog(True)

    def resize(self, cols: int, rows: int) -> None:
        """Set the terminal's size; the kernel sends the child SIGWINCH."""
        if self._master is not None and cols > 0 and rows > 0:
            try:
                _set_size(self._master, cols, rows)
            except OSError as exc:
                log.debug("cannot resize the PTY of %d: %s", self.pid, exc)

    # --- the end --------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return not self._exited.done()

    async def wait(self) -> int:
        """Wait for the child to exit; its exit status (-N: killed by signal N)."""
        return await asyncio.shield(self._exited)

    async def end(self, grace: float = HANGUP_GRACE) -> int:
        """Hang up, SIGHUP the process group, SIGKILL after ``grace`` seconds, reap.

        Safe to call more than once and after the child has exited.
        """
        self._close_master()  # the hangup: the child's terminal is gone
        if self.running:
            self._signal_group(signal.SIGHUP)
            try:
                async with asyncio.timeout(grace):
                    return await self.wait()
            except TimeoutError:
                log.warning("child %d outlived its hangup by %.1f s: killing it", self.pid, grace)
                self._signal_group(signal.SIGKILL)
        return await self.wait()

    def flush_output(self) -> None:
        """Read what the child wrote before it exited, even while paused."""
        if self._master is None or self._on_output is None:
            return
        while self._master is not None:
            chunk = self._read()
            if not chunk:
                return

    # --- inside ---------------------------------------------------------------------------

    def _update_reader(self) -> None:
        master = self._master
        want = master is not None and self._on_output is not None and not self._paused
        if master is not None and want and not self._reading:
            self._loop.add_reader(master, self._readable)
        elif master is not None and not want and self._reading:
            self._loop.remove_reader(master)
        self._reading = want

    def _readable(self) -> None:
        self._read()

    def _read(self) -> bytes:
        """One read of the PTY, handed to the output callback; b"" at its end."""
        if self._master is None:
            return b""
        try:
            chunk = os.read(self._master, READ_SIZE)
        except BlockingIOError:
            return b""
        except OSError as exc:
            # EIO: every process holding the other side is gone.
            if exc.errno != errno.EIO:
                log.debug("reading the PTY of %d: %s", self.pid, exc)
            self._close_master()
            return b""
        if not chunk:
            self._close_master()
            return b""
        if self._on_output is not None:
            self._on_output(chunk)
        return chunk

    def _write_now(self, data: bytes | bytearray) -> int:
        """Write what the PTY takes now; the count written."""
        if self._master is None:
            return len(data)
        try:
            return os.write(self._master, data)
        except BlockingIOError:
            return 0
        except OSError:
            self._close_master()
            return len(data)

    def _drain(self) -> None:
        was_full = len(self._pending) > INPUT_BACKLOG
        del self._pending[: self._write_now(self._pending)]
        if not self._pending and self._master is not None:
            self._loop.remove_writer(self._master)
        if was_full and len(self._pending) <= INPUT_BACKLOG and self._on_backlog is not None:
            self._on_backlog(False)

    def _close_master(self) -> None:
        master, self._master = self._master, None
        if master is None:
            return
        if self._reading:
            self._loop.remove_reader(master)
            self._reading = False
        if self._pending:
            self._loop.remove_writer(master)
            self._pending.clear()
        os.close(master)

    def _signal_group(self, signum: int) -> None:
        try:
            os.killpg(self.pid, signum)
        except ProcessLookupError:
            pass  # already gone (the group's leader may still be unreaped)
        except PermissionError:
            # The pid was reused by someone else's process: never signal it.
            log.error("cannot signal child group %d", self.pid)

    def _watch_exit(self) -> None:
        """Learn of the child's exit from a pidfd where there is one, else by polling."""
        try:
            self._pidfd = os.pidfd_open(self.pid)
        except (AttributeError, OSError):
            self._poll = self._loop.call_later(POLL_INTERVAL, self._check_exit)
            return
        self._loop.add_reader(self._pidfd, self._check_exit)

    def _check_exit(self) -> None:
        self._poll = None
        try:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
        except ChildProcessError:  # reaped elsewhere: all we can know is that it is gone
            pid, status = self.pid, 0
        if pid == 0:
            if self._pidfd is None:
                self._poll = self._loop.call_later(POLL_INTERVAL, self._check_exit)
            return
        if self._pidfd is not None:
            self._loop.remove_reader(self._pidfd)
            os.close(self._pidfd)
            self._pidfd = None
        self._exited_with(os.waitstatus_to_exitcode(status))

    def _exited_with(self, status: int) -> None:
        if not self._exited.done():
            self._exited.set_result(status)
