"""The real ``quackbox host`` with a seat, run on an 80x24 pseudo-terminal as a person runs it,
its screen drawn by pyte as the output comes (read on the running loop)."""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import struct
import subprocess
import sys
import termios
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pyte

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class HostOnATerminal:
    proc: subprocess.Popen[bytes]
    master: int
    """The terminal's side a person types on and reads."""
    screen: pyte.Screen

    @property
    def text(self) -> str:
        """What the terminal shows now."""
        return "\n".join(self.screen.display)

    def type(self, keys: bytes) -> None:
        os.write(self.master, keys)


def quackbox_env(tmp_path: Path) -> dict[str, str]:
    """The environment a test runs ``quackbox`` in: its folders under ``tmp_path``, a colour terminal."""
    return {
        **os.environ,
        "QUACKBOX_DATA_DIR": str(tmp_path / "data"),
        "QUACKBOX_STATE_DIR": str(tmp_path / "state"),
        "QUACKBOX_CONFIG_DIR": str(tmp_path / "config"),
        "TERM": "xterm-256color",
    }


def on_a_terminal(command: list[str], env: dict[str, str] | None = None) -> tuple[subprocess.Popen[bytes], int]:
    """``command`` started on a new 80x24 pseudo-terminal, in a session of its own, from the
    project's folder: the process, and the terminal's side a person types on and reads."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    try:
        proc = subprocess.Popen(
            command, cwd=ROOT, env=env, stdin=slave, stdout=slave, stderr=slave, start_new_session=True
        )
    except BaseException:
        os.close(master)
        raise
    finally:
        os.close(slave)
    return proc, master


@contextlib.asynccontextmanager
async def seated_host(tmp_path: Path, *args: str) -> AsyncIterator[HostOnATerminal]:
    """``quackbox host`` for Side Effects, two seats, Hana at the first, no journal, with
    ``args`` (a door's flags); its folders under ``tmp_path``. Killed at the end if still there."""
    argv = "host --game side-effects --seats 2 --name Hana --bind 127.0.0.1 --port 0 --no-journal".split()
    proc, master = on_a_terminal([sys.executable, "-m", "quackbox", *argv, *args], quackbox_env(tmp_path))
    os.set_blocking(master, False)
    screen = pyte.Screen(80, 24)
    stream = pyte.ByteStream(screen)
    loop = asyncio.get_running_loop()

    def read() -> None:
        try:
            stream.feed(os.read(master, 65536))
        except OSError:  # EIO: the host closed its terminal
            loop.remove_reader(master)

    loop.add_reader(master, read)
    try:
        yield HostOnATerminal(proc, master, screen)
    finally:
        loop.remove_reader(master)
        os.close(master)
        if proc.poll() is None:
            proc.kill()
            proc.wait()


__all__ = ["HostOnATerminal", "on_a_terminal", "quackbox_env", "seated_host"]
