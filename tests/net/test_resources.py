"""What a host process may hold and what it says under a flood (net.resources, net.limits.Repeats):
its descriptor limit raised as ``quackbox host`` starts, a repeated error logged once a minute."""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import re
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from quackbox.net import limits
from quackbox.net.limits import Repeats
from quackbox.net.resources import QuietLog, describe_error, quiet_loop_errors
from tests.waiting import logging_changes

ROOT = Path(__file__).resolve().parents[2]


# --- how often a kind of line is written (pure) -----------------------------------------------


def test_a_repeated_line_is_written_once_then_once_an_interval_with_its_count():
    repeats = Repeats(60.0)
    assert repeats.seen("accept", 0.0) == 1
    assert [repeats.seen("accept", 0.5 + i / 100) for i in range(999)] == [None] * 999
    assert repeats.seen("other", 1.0) == 1  # each kind on its own
    assert repeats.next_due() == 60.0 and repeats.due(59.9) == []
    assert repeats.due(60.0) == [("accept", 999)] and repeats.next_due() is None
    assert repeats.seen("accept", 61.0) is None  # the lines held are said: it counts as written
    assert repeats.seen("accept", 121.0) == 2  # written with the one held since


def test_the_kinds_remembered_are_bounded():
    repeats = Repeats(60.0)
    for i in range(limits.REPEAT_KINDS + 10):
        assert repeats.seen(("kind", i), 0.0) == 1
    assert len(repeats) == limits.REPEAT_KINDS


# --- the event loop's errors ------------------------------------------------------------------


def _accept_error(loop: asyncio.AbstractEventLoop) -> None:
    loop.call_exception_handler(
        {"message": "socket.accept() out of system resource", "exception": OSError(errno.EMFILE, "Too many open files")}
    )


async def test_an_error_the_loop_repeats_is_logged_once_then_with_its_count(caplog: pytest.LogCaptureFixture) -> None:
    loop = asyncio.get_running_loop()
    previous = loop.get_exception_handler()
    caplog.set_level(logging.ERROR)
    quiet_loop_errors(loop, interval=0.2)
    try:
        with logging_changes() as logged:
            for _ in range(1000):
                _accept_error(loop)
            first = [r for r in caplog.records if "out of system resource" in r.getMessage()]
            assert len(first) == 1 and first[0].exc_info is not None  # the first as ever, with its traceback
            await logged.until(lambda: "999 more times" in caplog.text, timeout=10, what="the count of the rest")
        assert "socket.accept() out of system resource: [Errno 24] Too many open files (999 more times" in caplog.text
        assert len([r for r in caplog.records if "out of system resource" in r.getMessage()]) == 2
    finally:
        loop.set_exception_handler(previous)


def test_errors_of_one_kind_are_told_apart_from_others():
    emfile = {"message": "socket.accept() out of system resource", "exception": OSError(errno.EMFILE, "x")}
    enobufs = {"message": "socket.accept() out of system resource", "exception": OSError(errno.ENOBUFS, "y")}
    assert describe_error(emfile)[0] != describe_error(enobufs)[0]
    assert describe_error({"message": "Task exception was never retrieved"}) == (
        ("Task exception was never retrieved",),
        "Task exception was never retrieved",
    )


async def test_a_quiet_log_counts_what_it_holds_back(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, "quackbox.test")
    quiet = QuietLog(logging.getLogger("quackbox.test"), interval=0.2)
    with logging_changes("quackbox.test") as logged:
        for i in range(500):
            quiet.log(logging.INFO, f"door: closed a connection from 127.0.0.{i % 3}", kind="closed")
        assert len(caplog.records) == 1
        await logged.until(lambda: len(caplog.records) >= 2, timeout=10, what="the count of the rest")
    assert re.search(
        r"door: closed a connection from 127\.0\.0\.\d \(499 more times since it was last logged\)",
        caplog.records[1].getMessage(),
    )


# --- the descriptor limit ---------------------------------------------------------------------


def _soft_limit(pid: int) -> int:
    line = next(
        line for line in Path(f"/proc/{pid}/limits").read_text().splitlines() if line.startswith("Max open files")
    )
    return int(line.split()[3])


def test_raising_the_limit_takes_it_to_the_hard_one() -> None:
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    code = (
        "import resource, sys\n"
        "from quackbox.net.resources import raise_descriptor_limit\n"
        f"resource.setrlimit(resource.RLIMIT_NOFILE, (64, {hard}))\n"
        "print(*raise_descriptor_limit(), resource.getrlimit(resource.RLIMIT_NOFILE)[0])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    expected = hard if hard != resource.RLIM_INFINITY else 65536
    assert out.stdout.split() == ["64", str(expected), str(expected)]


def test_quackbox_host_starts_with_its_descriptor_limit_raised(tmp_path: Path) -> None:
    """Started with a soft limit of 256, the host serves with the hard limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard <= 256:
        pytest.skip("the hard limit is too low to see it raised")
    env = {
        **os.environ,
        "QUACKBOX_DATA_DIR": str(tmp_path / "data"),
        "QUACKBOX_STATE_DIR": str(tmp_path / "state"),
        "QUACKBOX_CONFIG_DIR": str(tmp_path / "config"),
    }

    def lowered() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))

    proc = subprocess.Popen(
        [sys.executable, "-m", "quackbox", "host", "--headless", "--bind", "127.0.0.1", "--port", "0", "--no-journal"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        preexec_fn=lowered,
    )
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith("Press Ctrl-C"):
                break
        assert _soft_limit(proc.pid) == (hard if hard != resource.RLIM_INFINITY else 65536)
    finally:
        proc.terminate()
        proc.wait(20)
