"""A stand-in for ``quackbox join`` behind an SSH session, for the SSH tests.

    python ssh_stub.py hold        say what it was started with, then echo keys
    python ssh_stub.py ignore-hup  the same, but deaf to SIGHUP and never reading (must be killed)
    python ssh_stub.py flood       write without end (flow control)
    python ssh_stub.py count       a raw terminal: say how many bytes were typed so far after each read

It starts with one line: ``ready COLSxROWS TERM=... hup=default|ignored
ctty=yes|no``, says ``size COLSxROWS`` after each resize, and echoes each
line typed as ``got ...``.
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import tty


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "hold"
    if mode == "flood":
        line = b"x" * 1023 + b"\n"
        while True:
            os.write(1, line)
    hup = "ignored" if signal.getsignal(signal.SIGHUP) == signal.SIG_IGN else "default"
    if mode == "ignore-hup":
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        ctty = "yes" if os.tcgetpgrp(0) == os.getpgrp() else "no"
    except OSError:
        ctty = "no"

    def size_line(*_: object) -> None:
        cols, rows = shutil.get_terminal_size()
        os.write(1, f"size {cols}x{rows}\r\n".encode())

    if mode == "count":
        tty.setraw(0)  # before saying ready: every byte typed after it is counted as it is
    cols, rows = shutil.get_terminal_size()
    term = os.environ.get("TERM", "")
    lang = os.environ.get("LANG", "")
    # The handler before the ready line: a test resizes as soon as it reads that line, and a
    # SIGWINCH that came first would be lost (its default is to be ignored).
    signal.signal(signal.SIGWINCH, size_line)
    os.write(1, f"ready {cols}x{rows} TERM={term} LANG={lang} hup={hup} ctty={ctty}\r\n".encode())
    if mode == "count":
        total = 0
        while chunk := os.read(0, 65536):
            total += len(chunk)
            os.write(1, f"count {total}\r\n".encode())
        return
    if mode == "ignore-hup":
        while True:  # deaf and dumb: neither the hangup nor its dead terminal stop it
            signal.pause()
    for line in sys.stdin:
        os.write(1, f"got {line.strip()}\r\n".encode())


if __name__ == "__main__":
    main()
