"""The zygote's own side: warm once, then fork a child per session on the host's request.

What runs in the zygote process (``python -P -m quackbox.net.fork_server WORKDIR
MODULE[:FUNCTION]...``, its socket on stdin) and what both sides of its socket
share (the messages' shapes, :func:`entry`). The host's side, which starts it
and asks it for children, is :mod:`quackbox.net.zygote`, whose docstring
tells the whole of it: what a child is given, and the protocol.
"""

from __future__ import annotations

import array
import contextlib
import fcntl
import gc
import importlib
import io
import json
import os
import runpy
import selectors
import signal
import socket
import struct
import sys
import termios
import threading
import time
import traceback
from typing import Any, Callable, Mapping, NoReturn, Sequence

from quackbox.net.pty_child import DEFAULT_SIGNALS

__all__ = ["EXIT", "FDS", "MAX_REQUEST", "PID", "entry", "main", "read_the_wire"]

MAX_REQUEST = 60 * 1024
"""Bytes of a child's command line and environment: they wait in a pipe
(64 KiB) until the child reads them, so they must fit it."""

_PYTHON_START: dict[int, Callable[[int, Any], Any] | signal.Handlers] = {
    signal.SIGINT: signal.default_int_handler,
    signal.SIGPIPE: signal.SIG_IGN,
    signal.SIGXFSZ: signal.SIG_IGN,
}
"""Where a fresh Python's signal handlers differ from the default (it sets these as it starts)."""
PID = struct.Struct("=i")
EXIT = struct.Struct("=ii")
FDS = array.array("i", [0, 0]).itemsize * 2


def read_the_wire() -> None:
    """Read every class the wire carries, for both games (what makes a Wire: a child makes
    two as it joins), so each child finds them read (:func:`quackbox.net.codec.type_hints`)."""
    from quackbox.core import games
    from quackbox.net.protocol import Wire

    Wire(None)
    for name in games.GAMES:
        Wire(games.get(name))


def entry(argv: Sequence[str]) -> tuple[str, str, list[str]] | None:
    """What a fresh Python with command line ``argv`` would run, if a zygote can run it too:
    ``("module", NAME, ARGS)`` for ``PYTHON [-P] -m NAME ARGS...``, ``("path", SCRIPT, ARGS)``
    for ``PYTHON [-P] SCRIPT ARGS...``; None for anything else (another program, other options)."""
    if len(argv) < 2 or argv[0] != sys.executable:
        return None
    rest = list(argv[1:])
    if rest[0] == "-P":  # the zygote and its children run in safe-path mode anyway
        rest.pop(0)
    if len(rest) >= 2 and rest[0] == "-m":
        return "module", rest[1], rest[2:]
    if rest and not rest[0].startswith("-"):
        return "path", rest[0], rest[1:]
    return None


def main(argv: Sequence[str]) -> int:
    """``python -P -m quackbox.net.fork_server WORKDIR MODULE[:FUNCTION]...``, its socket on stdin: warm, then fork on request."""
    # No collection until the children have been forked: garbage freed while warming would leave
    # holes in the pages the children share, and their first allocations would fill (copy) them.
    gc.disable()
    os.umask(0o077)
    os.chdir(argv[0])
    control = socket.socket(fileno=os.dup(0))
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    started = time.perf_counter()
    try:
        for name in argv[1:]:
            module_name, _, function = name.partition(":")
            try:
                module = importlib.import_module(module_name)
            except ModuleNotFoundError as exc:
                if exc.name != module_name:
                    raise  # it is there, and broken
                continue
            if function:
                getattr(module, function)()
    except Exception:  # noqa: BLE001 - told to the host, whatever it is
        control.send(b"E" + traceback.format_exc(limit=-3).encode("utf-8", "replace")[-3000:])
        return 1
    unfit = _unfit_to_fork(control.fileno())
    if unfit:
        control.send(b"E" + unfit.encode("utf-8", "replace"))
        return 1
    gc.freeze()
    control.send(b"W" + f"{time.perf_counter() - started:.3f}".encode())
    return _serve(control)


def _unfit_to_fork(control: int) -> str:
    """Why a child forked now would hold something of the zygote's besides its imports, or "".

    Another thread (Python's, or one a library started by itself): a fork copies only the
    calling one, so whatever the others held would be held for ever in every child. A
    descriptor a warm module left open (a file, an event loop's selector and self-pipe):
    every child would share it, and with it its offset or its wakeups."""
    try:
        threads = len(os.listdir("/proc/self/task"))
    except OSError:
        threads = threading.active_count()
    if threads != 1 or threading.active_count() != 1:
        names = ", ".join(t.name for t in threading.enumerate() if t is not threading.current_thread())
        return f"threads were started while warming ({names or 'not started by Python'})"
    left = []
    for fd in sorted(int(name) for name in os.listdir("/proc/self/fd")):
        if fd <= 2 or fd == control:
            continue
        try:
            left.append(f"{fd} ({os.readlink(f'/proc/self/fd/{fd}')})")
        except OSError:
            continue  # the one listdir read the folder with, closed since
    if left:
        return f"descriptors were left open while warming: {', '.join(left)}"
    return ""


def _serve(control: socket.socket) -> int:
    """Fork a child for each request until the host's end closes; tell the host of their ends."""
    selector = selectors.DefaultSelector()
    selector.register(control, selectors.EVENT_READ)
    watched: dict[int, int] = {}
    """Children not yet exited, and their pidfds."""
    exited: set[int] = set()
    """Children exited, the host told, not yet reaped."""
    while True:
        for key, _ in selector.select():
            if key.fileobj is not control:
                pid = key.data
                info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
                if info is None:
                    continue
                status = info.si_status if info.si_code == os.CLD_EXITED else -info.si_status
                selector.unregister(key.fileobj)
                os.close(watched.pop(pid))
                exited.add(pid)
                control.send(b"X" + EXIT.pack(pid, status))
                continue
            message, fds = _receive_request(control)
            if not message:
                return 0  # the host has gone: so do we
            if message[:1] == b"R":
                pid = PID.unpack(message[1:])[0]
                if pid in exited:
                    exited.discard(pid)
                    os.waitpid(pid, 0)
                continue
            if message[:1] != b"S" or len(fds) != 2:
                for fd in fds:
                    os.close(fd)
                control.send(b"F" + b"a request it does not understand")
                continue
            gc.freeze()  # what it made since the last fork stays out of the children's collections too
            try:
                pid = os.fork()
            except OSError as exc:
                for fd in fds:
                    os.close(fd)
                control.send(b"F" + str(exc).encode("utf-8", "replace"))
                continue
            if pid == 0:
                _become_child(control, selector, watched, *fds)
            for fd in fds:
                os.close(fd)
            pidfd = os.pidfd_open(pid)
            watched[pid] = pidfd
            selector.register(pidfd, selectors.EVENT_READ, pid)
            control.send(b"P" + PID.pack(pid))


def _receive_request(control: socket.socket) -> tuple[bytes, list[int]]:
    try:
        message, ancillary, _, _ = control.recvmsg(64, socket.CMSG_SPACE(FDS))
    except ConnectionError:
        return b"", []
    fds: list[int] = []
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            passed = array.array("i")
            passed.frombytes(data[: len(data) - len(data) % passed.itemsize])
            fds.extend(passed)
    return message, fds


def _become_child(
    control: socket.socket, selector: selectors.BaseSelector, watched: Mapping[int, int], terminal: int, request: int
) -> NoReturn:
    """In the forked child: shed the zygote, take the session's terminal and environment, run its command."""
    selector.close()
    control.close()
    for pidfd in watched.values():
        os.close(pidfd)
    os.setsid()
    fcntl.ioctl(terminal, termios.TIOCSCTTY, 0)
    for fd in (0, 1, 2):
        os.dup2(terminal, fd)
    os.close(terminal)
    with os.fdopen(request, "rb") as pipe:
        asked = json.loads(pipe.read(MAX_REQUEST + 1))
    for signum in DEFAULT_SIGNALS:
        with contextlib.suppress(OSError, ValueError):
            signal.signal(signum, _PYTHON_START.get(signum, signal.SIG_DFL))
    signal.pthread_sigmask(signal.SIG_SETMASK, ())
    os.environ.clear()
    os.environ.update(asked["env"])
    _fresh_streams()
    gc.enable()  # what was frozen before the fork stays out of its collections
    what = entry(asked["argv"])
    if what is None:  # the host asks only for what entry() accepts
        raise SystemExit(f"quackbox: cannot run {asked['argv'][:3]!r} here")
    kind, name, args = what
    # As ``python -m NAME ARGS`` or ``python SCRIPT ARGS``: its own __main__, its own exit
    # (SystemExit, or an exception's traceback, ends this process as it would end a fresh one).
    sys.argv = [name, *args]
    if kind == "module":
        runpy.run_module(name, run_name="__main__", alter_sys=True)
    else:
        runpy.run_path(name, run_name="__main__")
    raise SystemExit(0)


def _fresh_streams() -> None:
    """sys.stdin, stdout and stderr on the terminal, made as Python makes them at start."""
    for name, fd, mode in (("stdin", 0, "r"), ("stdout", 1, "w"), ("stderr", 2, "w")):
        old = getattr(sys, f"__{name}__") or getattr(sys, name)
        raw = io.FileIO(fd, mode, closefd=False)
        raw.name = f"<{name}>"
        buffered = io.BufferedReader(raw) if mode == "r" else io.BufferedWriter(raw)
        stream = io.TextIOWrapper(
            buffered,
            encoding=old.encoding if old else "utf-8",
            errors=old.errors if old else "strict",
            newline="\n",
            line_buffering=name == "stderr" or raw.isatty(),
        )
        stream.mode = mode  # type: ignore[misc]
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
