"""A warm start for a door's children: one process imports the table once, and forks a child per session.

A fresh ``quackbox join`` of a door spends most of its start importing
Textual and quackbox, and holds all it imported as memory of its own. The
zygote does that once. The door starts it as it starts a child (the
host's Python in safe-path mode, in a folder of its own, an environment
made from scratch, every signal at its default) and in a session of its
own with no terminal; it imports the join path (what its door's program names), freezes
its garbage collector (the objects it made are never scanned again, so the
pages that hold them stay shared with every child) and waits, with no
thread and no event loop, for the host to ask for a child.

For each session the host makes the PTY and a pipe that holds what that
child alone is to know: its command line and environment (the room code,
the player's name and folder). The zygote is handed both, forks, and answers
with the child's pid. It never reads the pipe: nothing of a session passes
through it, so no child can find another session's secrets in the memory it
was forked from. The host never waits for the answer: the session awaits it
while the event loop goes on, and a zygote that does not answer within
:data:`SPAWN_TIMEOUT` (stopped, stuck) is killed and started again while the
session starts fresh.

In the child, before anything of its session runs: nothing of the zygote's
(its socket and its watch on the other children closed), a session of its
own (``setsid``) whose controlling terminal is the PTY, every signal as a
fresh Python has it (default, but SIGINT raises KeyboardInterrupt and
SIGPIPE and SIGXFSZ are ignored) and none blocked, the session's
environment and nothing else, fresh standard streams on the PTY. Then the
command runs as a fresh Python would run it (``-m MODULE`` or a script:
:func:`entry`), to its own exit.

The zygote stays its children's parent: it tells the host when one exits,
with its status, and reaps it only once the host has heard, so a child's
pid is never reused while the host may still signal it. It exits when the
host's end of its socket closes, so killing the host ends it too (the
children end at their terminals' hangup, as ever). A zygote that ends
anyway is started again (:data:`RESTART_INTERVAL`); meanwhile, and wherever
there is none (not Linux: no pidfd), the door starts its children fresh.

The protocol, over a SOCK_SEQPACKET socket pair (one message a packet):
host to zygote ``S`` with the PTY and the pipe as SCM_RIGHTS (fork one),
``R`` + pid (the host heard of its exit: reap it); zygote to host ``W``
(warm: ready to fork), ``E`` + text (it cannot be), ``P`` + pid (forked),
``F`` + text (could not fork), ``X`` + pid and status (a child exited).
"""

from __future__ import annotations

import array
import asyncio
import contextlib
import json
import logging
import os
import signal
import socket
import sys
import weakref
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Collection, Mapping, Sequence

from quackbox.net.fork_server import EXIT, MAX_REQUEST, PID, entry
from quackbox.net.pty_child import DEFAULT_SIGNALS, PtyChild, inherited_fds, open_pty

__all__ = ["RESTART_INTERVAL", "SPAWN_TIMEOUT", "STOP_TIMEOUT", "Zygote"]

log = logging.getLogger("quackbox.door")

SPAWN_TIMEOUT = 1.0
"""Seconds a session waits for the zygote to fork its child (a few milliseconds as
a rule; the event loop goes on meanwhile). Past it the zygote is taken for
broken (stopped, stuck): it is killed and started again, and the session
starts fresh."""
STOP_TIMEOUT = 2.0
"""Seconds a zygote told to stop has to exit before it is killed."""
RESTART_INTERVAL = 10.0
"""Seconds between two starts of a zygote: one that ends is started again, at most this often."""
START_ATTEMPTS = 3
"""Zygotes in a row that end before they are warm, after which the door stops
starting them (every child then starts fresh) and says so."""
# --- the host's side ---------------------------------------------------------------------------


@dataclass
class _Child:
    """A child of the zygote, as the host watches it."""

    pidfd: int
    """The host's own handle on it: how it learns of its end should the zygote be gone."""
    on_exit: Callable[[int], None] | None = None
    status: int | None = None
    """Its exit status, if it came before anyone watched."""


class Zygote:
    """The host's side of a zygote: starts it, asks it for children, hears of their ends.

    Args:
        env: the zygote's whole environment. A child's must be the same but
            for ``session_env``: what Python and the warm modules read as they
            start must be what the child would have read.
        workdir: the zygote's working folder (the door's own).
        session_env: the variables that differ from one session to the next.
        warm: what it does before its first fork: import each module named, or call
            each ``module:function`` named (with no argument). A module named that
            does not exist is skipped (a renamed one costs warmth, never a start).
    """

    def __init__(
        self, env: Mapping[str, str], workdir: Path, *, session_env: Collection[str], warm: Sequence[str] = ()
    ) -> None:
        self.env = dict(env)
        self.workdir = workdir
        self.session_env = frozenset(session_env)
        self.warm_modules = tuple(warm)
        self.pid: int | None = None
        self.ready = False
        """Warm: a child asked for now is forked."""
        self.warm_seconds: float | None = None
        """How long the zygote took to warm, as it said."""
        self._loop = asyncio.get_running_loop()
        self._sock: socket.socket | None = None
        self._pidfd: int | None = None
        self._children: dict[int, _Child] = {}
        self._started = float("-inf")
        self._failed_starts = 0
        self._restart: asyncio.TimerHandle | None = None
        self._stopping = False
        self._ended: asyncio.Future[int] | None = None
        self._asked: deque[asyncio.Future[int | str]] = deque()
        """The forks asked for and not yet answered, in order: each gets the zygote's next
        answer, a pid (forked) or why not."""
        self._warmed = asyncio.Event()
        """Set while the zygote is warm, and once it will not be (stopped, or given up)."""
        self._warm_once = False
        """Whether the running zygote got warm (one that ends before is a failed start)."""
        self._users = 0

    @classmethod
    def shared(
        cls, env: Mapping[str, str], workdir: Path, *, session_env: Collection[str], warm: Sequence[str] = ()
    ) -> Zygote:
        """The zygote for children whose environment is ``env`` but for ``session_env``,
        started if there is none yet: one for each event loop and interpreter, so the SSH
        and browser doors of one host share theirs. Each door gives it back with :meth:`release`."""
        shared = _SHARED.setdefault(asyncio.get_running_loop(), {})
        key = frozenset((k, v) for k, v in env.items() if k not in session_env)
        zygote = shared.get(key)
        if zygote is None:
            zygote = shared[key] = cls(env, workdir, session_env=session_env, warm=warm)
            zygote.start()
        zygote._users += 1
        return zygote

    async def release(self) -> None:
        """A door is done with this zygote: the last one to be done stops it."""
        self._users -= 1
        if self._users > 0:
            return
        shared = _SHARED.get(self._loop, {})
        for key, held in list(shared.items()):
            if held is self:
                del shared[key]
        await self.stop()

    @staticmethod
    def available() -> bool:
        """Whether this system has what a zygote needs (Linux's pidfd and SOCK_SEQPACKET)."""
        if not hasattr(socket, "SOCK_SEQPACKET") or not hasattr(os, "pidfd_open"):
            return False
        try:
            os.close(os.pidfd_open(os.getpid()))
        except OSError:
            return False
        return True

    # --- its life ---------------------------------------------------------------------

    def start(self) -> None:
        """Start the zygote; it says when it is warm (:attr:`ready`). Meanwhile children start fresh."""
        self._restart = None
        if self._stopping or self.pid is not None:
            return
        self._started = self._loop.time()
        self._warm_once = False
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        argv = [sys.executable, "-P", "-m", "quackbox.net.fork_server", str(self.workdir), *self.warm_modules]
        try:
            self.pid = os.posix_spawn(
                argv[0],
                argv,
                self.env,
                file_actions=[
                    (os.POSIX_SPAWN_DUP2, theirs.fileno(), 0),  # its socket, taken from stdin as it starts
                    (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                    (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
                    *((os.POSIX_SPAWN_CLOSE, fd) for fd in inherited_fds()),
                ],
                setsid=True,  # no terminal: a Ctrl-C or hangup of the host's own terminal is not its business
                setsigdef=DEFAULT_SIGNALS,
                setsigmask=(),
            )
            self._pidfd = os.pidfd_open(self.pid)
        except OSError as exc:
            ours.close()
            if self.pid is not None:  # started, but it cannot be watched: it goes at once
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
                self.pid = None
            log.warning("door: cannot start the warm start process (%s); sessions start fresh", exc)
            self._ended_early()
            return
        finally:
            theirs.close()
        ours.setblocking(False)
        self._sock = ours
        self._ended = self._loop.create_future()
        self._loop.add_reader(ours.fileno(), self._readable)
        self._loop.add_reader(self._pidfd, self._exited)
        log.info("door: warm start process %d starting", self.pid)

    async def wait_warm(self) -> bool:
        """Until the zygote is warm (True) or will not be (False)."""
        await self._warmed.wait()
        return self.ready

    async def stop(self) -> None:
        """End the zygote and reap it. Its children live on to their own ends (their doors
        end them first), which are still heard."""
        self._stopping = True
        if self._restart is not None:
            self._restart.cancel()
            self._restart = None
        self._close_socket()  # a warm zygote hears it and exits
        if not self.ready:
            self._kill()  # one still warming would hear it only once warm
        if self.pid is not None and self._ended is not None:
            try:
                async with asyncio.timeout(STOP_TIMEOUT):
                    await asyncio.shield(self._ended)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(self.pid, signal.SIGKILL)
                await asyncio.shield(self._ended)
        self._warmed.set()

    # --- children ---------------------------------------------------------------------

    async def spawn(self, argv: Sequence[str], env: Mapping[str, str], *, cols: int, rows: int) -> PtyChild | None:
        """Fork a child that runs ``argv`` with ``env`` on a fresh PTY of ``cols`` x ``rows``;
        None if this zygote cannot (not warm, another program, another interpreter's
        environment, or it failed or gave no answer within :data:`SPAWN_TIMEOUT`: then it is
        started again, and the reason logged). The event loop goes on while the zygote forks."""
        if not self.ready or entry(argv) is None:
            return None
        if self._interpreter(env) != self._interpreter(self.env):
            return None
        request = json.dumps({"argv": list(argv), "env": dict(env)}).encode("utf-8")
        if len(request) > MAX_REQUEST:
            return None
        master, slave = open_pty(cols, rows)
        try:
            try:
                answer = self._ask(request, slave)
            finally:
                os.close(slave)
            pid = await self._answered(answer)
        except _Trouble as exc:
            os.close(master)
            log.warning("door: the warm start process failed (%s); this session starts fresh", exc)
            self._kill()
            return None
        except BaseException:
            # The session went while its child was asked for: the child, if forked, hangs up.
            os.close(master)
            raise
        return PtyChild(pid, master, exits=self)

    def watch(self, pid: int, on_exit: Callable[[int], None]) -> None:
        """Call ``on_exit(status)`` when child ``pid`` exits (at once, if it has)."""
        child = self._children.get(pid)
        if child is None:
            on_exit(0)  # nothing is known of it any more: all that is left to say is that it is gone
            return
        if child.status is not None:
            self._forget(pid, child.status, on_exit)
        else:
            child.on_exit = on_exit

    @property
    def children(self) -> list[int]:
        """The pids of its children the host has not yet heard the end of."""
        return [pid for pid, child in self._children.items() if child.status is None]

    # --- inside -----------------------------------------------------------------------

    def _interpreter(self, env: Mapping[str, str]) -> dict[str, str]:
        """What of ``env`` is the same for every session: how Python and the warm modules start."""
        return {k: v for k, v in env.items() if k not in self.session_env}

    def _ask(self, request: bytes, slave: int) -> asyncio.Future[int | str]:
        """Ask the zygote to fork a child on ``slave`` for ``request``: the answer to await."""
        if self._sock is None:
            raise _Trouble("it has ended")
        read, write = os.pipe2(os.O_CLOEXEC)
        try:
            os.write(write, request)  # fits the pipe (MAX_REQUEST): nobody reads it before the child
            os.close(write)
            write = -1
            # The socket does not block: a zygote that reads nothing more fills it, and that is an answer too.
            self._sock.sendmsg([b"S"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [slave, read]))])
        except OSError as exc:
            raise _Trouble(str(exc)) from None
        finally:
            os.close(read)
            if write >= 0:
                os.close(write)
        answer: asyncio.Future[int | str] = self._loop.create_future()
        self._asked.append(answer)
        return answer

    async def _answered(self, answer: asyncio.Future[int | str]) -> int:
        """The pid the zygote answered with (_Trouble: why not, or no answer in time)."""
        try:
            async with asyncio.timeout(SPAWN_TIMEOUT):
                got = await answer
        except TimeoutError:
            raise _Trouble(f"no answer within {SPAWN_TIMEOUT:g} s") from None
        if isinstance(got, str):
            raise _Trouble(got)
        return got

    def _receive(self) -> list[bytes]:
        """The messages waiting on the socket (none once it has closed)."""
        messages = []
        while self._sock is not None:
            try:
                data = self._sock.recv(4096)
            except BlockingIOError:
                break
            except OSError:
                data = b""
            if not data:
                self._close_socket()
                break
            messages.append(data)
        return messages

    def _readable(self) -> None:
        for message in self._receive():
            self._handle(message)

    def _handle(self, message: bytes) -> None:
        kind, body = message[:1], message[1:]
        if kind == b"P":
            pid: int = PID.unpack(body)[0]
            # Unreaped whatever it does meanwhile (the zygote waits for our word), so the
            # pid is its own until then.
            forked = self._children[pid] = _Child(os.pidfd_open(pid))
            answer = self._asked.popleft() if self._asked else None
            if answer is None or answer.done():
                # Nobody waits for it any more (its session went): its terminal is gone, so it
                # ends by itself, and is reaped once it has.
                forked.on_exit = _nobody
            else:
                answer.set_result(pid)
        elif kind == b"F":
            answer = self._asked.popleft() if self._asked else None
            if answer is not None and not answer.done():
                answer.set_result(body.decode("utf-8", "replace"))
        elif kind == b"X":
            pid, status = EXIT.unpack(body)
            child = self._children.get(pid)
            if child is None:
                return
            if child.on_exit is None:
                child.status = status
            else:
                self._forget(pid, status, child.on_exit)
        elif kind == b"W":
            self.ready = self._warm_once = True
            self._failed_starts = 0
            with contextlib.suppress(ValueError):
                self.warm_seconds = float(body)
            log.info("door: warm start process %s ready after %.2f s", self.pid, self.warm_seconds or 0.0)
            self._warmed.set()
        elif kind == b"E":
            log.warning("door: the warm start process cannot warm: %s", body.decode("utf-8", "replace"))

    def _forget(self, pid: int, status: int, on_exit: Callable[[int], None]) -> None:
        child = self._children.pop(pid)
        if child.pidfd >= 0:
            self._loop.remove_reader(child.pidfd)
            os.close(child.pidfd)
        if self._sock is not None:
            with contextlib.suppress(OSError):
                self._sock.send(b"R" + PID.pack(pid))  # heard: now it may be reaped
        on_exit(status)

    def _close_socket(self) -> None:
        sock, self._sock = self._sock, None
        if sock is not None:
            self._loop.remove_reader(sock.fileno())
            sock.close()
        while self._asked:
            answer = self._asked.popleft()
            if not answer.done():
                answer.set_result("it ended")

    def _kill(self) -> None:
        """A zygote that misbehaves is ended; its end starts another."""
        self.ready = False
        self._close_socket()
        if self.pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)

    def _exited(self) -> None:
        """The zygote itself ended: reap it, watch its children ourselves, start another."""
        assert self.pid is not None and self._pidfd is not None
        try:
            reaped, status = os.waitpid(self.pid, os.WNOHANG)
        except ChildProcessError:
            reaped, status = self.pid, 0
        if not reaped:
            return
        self._loop.remove_reader(self._pidfd)
        os.close(self._pidfd)
        self._pidfd = None
        pid, self.pid = self.pid, None
        self.ready = False
        self._close_socket()
        code = os.waitstatus_to_exitcode(status)
        if self._ended is not None and not self._ended.done():
            self._ended.set_result(code)
        for child_pid, child in list(self._children.items()):
            # Its children live on (their PTYs are ours): each is watched by its pidfd now.
            if child.status is None:
                self._loop.add_reader(child.pidfd, self._orphan_exited, child_pid)
        if self._stopping:
            return
        how = f"was killed by signal {-code}" if code < 0 else f"exited with status {code}"
        log.warning("door: the warm start process %d %s; sessions start fresh until another is warm", pid, how)
        self._warmed.clear()
        if self._warm_once:
            self._schedule_restart()
        else:
            self._ended_early()

    def _orphan_exited(self, pid: int) -> None:
        child = self._children.get(pid)
        if child is None:
            return
        # Reaped by whoever adopted it: its status is theirs to know.
        if child.on_exit is None:
            child.status = 0
            self._loop.remove_reader(child.pidfd)
        else:
            self._forget(pid, 0, child.on_exit)

    def _ended_early(self) -> None:
        self._failed_starts += 1
        if self._failed_starts >= START_ATTEMPTS:
            log.warning(
                "door: %d warm start processes in a row ended before they were ready; "
                "every session starts fresh from now on",
                self._failed_starts,
            )
            self._warmed.set()
            return
        self._schedule_restart()

    def _schedule_restart(self) -> None:
        at = max(self._loop.time(), self._started + RESTART_INTERVAL)
        self._restart = self._loop.call_at(at, self.start)


class _Trouble(Exception):
    """The zygote did not fork as asked."""


def _nobody(status: int) -> None:
    """Hears the end of a child whose session went before it was forked."""


_SHARED: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[frozenset[tuple[str, str]], Zygote]] = (
    weakref.WeakKeyDictionary()
)
"""The zygotes in use, by event loop and interpreter environment (see :meth:`Zygote.shared`)."""
