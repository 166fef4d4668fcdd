"""End to end: the real ``quackbox`` program in tmux, two people at a headless host on 127.0.0.1.

A headless host and two ``quackbox join`` table screens run in their own
80x24 tmux sessions (TERM=xterm-256color) on a private tmux server; the test
types keys into them and reads their screens back with ``capture-pane``.
Skipped only when tmux is not installed.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Callable, TypeVar

import pytest

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

ROOT = Path(__file__).resolve().parents[2]
QUACKBOX = [sys.executable, "-m", "quackbox"]

T = TypeVar("T")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Tmux:
    """A private tmux server; each program gets a session of its own, 80x24."""

    def __init__(self, env: dict[str, str]) -> None:
        self.socket = f"quackbox-test-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self.env = env

    def run(self, *args: str, check: bool = True) -> str:
        out = subprocess.run(
            ["tmux", "-L", self.socket, "-f", "/dev/null", *args],
            capture_output=True,
            text=True,
            check=check,
            timeout=20,
        )
        return out.stdout

    def start(self, name: str, argv: list[str]) -> None:
        env = " ".join(f"{k}={v}" for k, v in self.env.items())
        command = f"cd {ROOT} && env {env} " + " ".join(argv)
        self.run("new-session", "-d", "-s", name, "-x", "80", "-y", "24", command)
        self.run("set-option", "-t", name, "remain-on-exit", "on")

    def keys(self, name: str, *keys: str) -> None:
        self.run("send-keys", "-t", name, *keys)

    def text(self, name: str, *keys: str) -> None:
        self.run("send-keys", "-t", name, "-l", *keys)

    def screen(self, name: str) -> str:
        return self.run("capture-pane", "-p", "-t", name)

    def wait(self, name: str, needle: str, timeout: float = 20.0) -> str:
        """``name``'s screen once ``needle`` is on it (runs of spaces and line ends as one space)."""

        def shown() -> str | None:
            screen = self.screen(name)
            return screen if needle in " ".join(screen.split()) else None

        return self.until(
            shown,
            timeout,
            lambda: f"{needle!r} never appeared in {name}:\n{self.screen(name)}",
        )

    def until(self, found: Callable[[], T | None], timeout: float, failure: Callable[[], str]) -> T:
        """What ``found()`` returns once it is not None, asked again as the screens change;
        AssertionError with ``failure()`` after ``timeout`` seconds. (The screens are read
        with ``capture-pane``: tmux tells nothing when a pane changes, so they are read
        again every tenth of a second.)"""
        end = time.monotonic() + timeout
        while (value := found()) is None:
            if time.monotonic() > end:
                raise AssertionError(failure())
            time.sleep(0.1)
        return value

    def close(self) -> None:
        self.run("kill-server", check=False)


@pytest.fixture
def tmux(tmp_path):
    env = {
        "TERM": "xterm-256color",
        "QUACKBOX_CONFIG_DIR": str(tmp_path / "config"),
        "PYTHONPATH": str(ROOT),
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    server = Tmux(env)
    try:
        yield server
    finally:
        server.close()


def whose_turn(tmux: Tmux, names: list[str]) -> str:
    return tmux.until(
        lambda: next((name for name in names if "your turn" in tmux.screen(name).splitlines()[0]), None),
        15,
        lambda: "nobody's screen says it is their turn:\n" + "\n".join(tmux.screen(n) for n in names),
    )


def test_two_people_at_a_headless_table(tmux):
    """Join, ready, start, chat (shown as typed, never as markup), and pass the turn back and forth."""
    port = free_port()
    tmux.start(
        "host",
        QUACKBOX
        + [
            "host",
            "--headless",
            "--bind",
            "127.0.0.1",
            "--port",
            str(port),
            "--seats",
            "2",
            "--seed",
            "3",
            "--bot-delay",
            "0",
        ],
    )
    tmux.wait("host", f"port {port}")
    tmux.start("ann", QUACKBOX + ["join", f"127.0.0.1:{port}", "--name", "Ann"])
    tmux.wait("ann", "Seats")
    tmux.start("ben", QUACKBOX + ["join", f"127.0.0.1:{port}", "--name", "Ben"])
    tmux.wait("ben", "Seats")
    tmux.wait("ann", "Ben")

    tmux.keys("ben", "C-r")  # in the lobby letters are chat; its keys are not letters
    tmux.wait("ann", "Ben player ✓ ready")
    tmux.keys("ann", "C-s")
    for name in ("ann", "ben"):
        tmux.wait(name, "Turn 1")
        screen = tmux.screen(name)
        assert len(screen.splitlines()) <= 24 and all(len(line) <= 80 for line in screen.splitlines())

    tmux.keys("ann", "c")
    tmux.wait("ann", "Say something to the table")
    tmux.text("ann", "hello [bold]there[/]")
    tmux.keys("ann", "Enter")
    for name in ("ann", "ben"):
        tmux.wait(name, "Ann: hello [bold]there[/]")

    first = whose_turn(tmux, ["ann", "ben"])
    other = "ben" if first == "ann" else "ann"
    tmux.keys(first, "e")
    tmux.wait(other, "your turn")
    tmux.wait(first, "ended the turn")
    tmux.keys(other, "e")
    tmux.wait(first, "your turn")
    tmux.wait(other, "Turn 3")

    tmux.keys(first, "q")
    tmux.wait(first, "Leave")
    tmux.keys(first, "y")
    tmux.wait(other, "away", timeout=10)
