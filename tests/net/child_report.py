"""A stand-in for a door's child that says what it was started with, for the zygote's tests.

python child_report.py report     one JSON line: its session, terminal, signals, environment,
                                  descriptors, streams...; then it echoes lines until its input ends
python child_report.py exit N     exit with status N
"""

from __future__ import annotations

import gc
import json
import os
import signal
import sys
import threading


def _handler(signum: int) -> str:
    handler = signal.getsignal(signum)
    if handler is signal.SIG_DFL:
        return "default"
    if handler is signal.SIG_IGN:
        return "ignored"
    return getattr(handler, "__name__", "python")


def report() -> dict[str, object]:
    fds = {}
    for fd in range(4096):
        try:
            os.fstat(fd)
        except OSError:
            continue
        fds[fd] = os.readlink(f"/proc/self/fd/{fd}")
    umask = os.umask(0)
    os.umask(umask)
    try:
        ctty = os.tcgetpgrp(0) == os.getpgrp()
    except OSError:
        ctty = False
    return {
        "pid": os.getpid(),
        "ppid": os.getppid(),
        "session_leader": os.getsid(0) == os.getpid(),
        "group_leader": os.getpgrp() == os.getpid(),
        "ctty": ctty,
        "ttys": [os.ttyname(fd) if os.isatty(fd) else None for fd in (0, 1, 2)],
        "fds": sorted(fds),
        "fd_names": {str(fd): name for fd, name in fds.items()},
        "signals": {
            s.name: _handler(s)
            for s in (
                signal.SIGHUP,
                signal.SIGINT,
                signal.SIGTERM,
                signal.SIGPIPE,
                signal.SIGCHLD,
                signal.SIGUSR1,
                signal.SIGWINCH,
                signal.SIGXFSZ,
            )
        },
        "blocked": sorted(int(s) for s in signal.pthread_sigmask(signal.SIG_BLOCK, ())),
        "env": dict(os.environ),
        "argv": sys.argv,
        "umask": umask,
        "cwd": os.getcwd(),
        "threads": threading.active_count(),
        "gc": gc.isenabled(),
        "stdout": {
            "tty": sys.stdout.isatty(),
            "line_buffering": sys.stdout.line_buffering,
            "encoding": sys.stdout.encoding,
            "is_dunder": sys.stdout is sys.__stdout__,
        },
        "stdin_tty": sys.stdin.isatty() and sys.__stdin__ is sys.stdin,
        "main": __name__,
    }


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "report"
    if mode == "exit":
        sys.exit(int(sys.argv[2]))
    print(json.dumps(report()), flush=True)
    for line in sys.stdin:
        print(f"got {line.strip()}", flush=True)


if __name__ == "__main__":
    main()
