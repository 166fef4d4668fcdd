"""The zygote (net.zygote): a warm child is started as a fresh one would be, nothing of one
session is seen by another, and a zygote that ends or misbehaves never stops a door opening.

Most tests warm their zygote with next to nothing (``LIGHT``): the rules of a forked
child do not depend on what was imported before the fork, and a light zygote starts
in a tenth of the time. The SSH tests (tests/net/test_ssh.py) run the real one.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import importlib.util
import json
import logging
import os
import re
import signal
import sys
from pathlib import Path
from typing import Any, AsyncIterator

import pytest

from quackbox.net import zygote as zygote_module
from quackbox.net.door_launch import SESSION_ENV, Launch, child_environment, interpreter_environment
from quackbox.net.fork_server import entry
from quackbox.net.pty_child import PtyChild
from quackbox.net.zygote import Zygote
from tests.waiting import Changes, until

REPORT = str(Path(__file__).with_name("child_report.py"))
LIGHT = ("json",)
START = 60.0
"""Seconds a zygote or a child may take to start on a busy machine."""

pytestmark = pytest.mark.skipif(not Zygote.available(), reason="no pidfd here: the door starts every child fresh")


def env_of(
    tmp_path: Path, *, code: str = "KQXZ", name: str = "key", import_path: tuple[str, ...] = ()
) -> dict[str, str]:
    launch = Launch(
        url="ws://127.0.0.1:1",
        name="ann",
        spectate=False,
        folder=tmp_path / name,
        workdir=tmp_path,
        term="xterm-256color",
        code=code,
        client_env={"COLORTERM": "truecolor"},
    )
    return child_environment(launch, import_path)


@contextlib.asynccontextmanager
async def warm(
    tmp_path: Path, modules: tuple[str, ...] = LIGHT, import_path: tuple[str, ...] = ()
) -> AsyncIterator[Zygote]:
    env = interpreter_environment(import_path) | {"HOME": str(tmp_path)}
    zygote = Zygote(env, tmp_path, session_env=SESSION_ENV, warm=modules)
    zygote.start()
    try:
        assert await asyncio.wait_for(zygote.wait_warm(), START)
        yield zygote
    finally:
        await zygote.stop()


class Screen:
    """What a child writes on its terminal."""

    def __init__(self, child: PtyChild) -> None:
        self.child = child
        self.out = bytearray()
        self.changes = Changes()
        child.start(self.changes.feeding(self.out.extend))

    async def wait_for(self, needle: str, timeout: float = START) -> str:
        try:
            await self.changes.until(lambda: needle in self.text, timeout)
        except AssertionError:
            raise AssertionError(f"{needle!r} never came; the child wrote:\n{self.text}") from None
        return self.text

    @property
    def text(self) -> str:
        return self.out.decode("utf-8", "replace")

    async def report(self) -> dict[str, Any]:
        await self.wait_for("}\r\n")
        return json.loads(self.text.split("\r\n")[0])


async def spawn(zygote: Zygote, env: dict[str, str], *args: str) -> PtyChild:
    child = await zygote.spawn([sys.executable, REPORT, *(args or ("report",))], env, cols=91, rows=27)
    assert child is not None, "the zygote did not fork"
    return child


def reaped(pid: int) -> bool:
    return not Path(f"/proc/{pid}").exists()


def memory_holds(pid: int, needle: bytes) -> bool:
    """Whether any readable part of process ``pid``'s memory holds ``needle``."""
    with open(f"/proc/{pid}/maps") as maps, open(f"/proc/{pid}/mem", "rb", buffering=0) as mem:
        for line in maps:
            span, perms = line.split()[:2]
            if not perms.startswith("r") or line.rstrip().endswith(("[vvar]", "[vsyscall]")):
                continue
            start, end = (int(x, 16) for x in span.split("-"))
            try:
                mem.seek(start)
                if needle in mem.read(end - start):
                    return True
            except OSError:
                continue
    return False


# --- what a fresh Python would run ------------------------------------------------------------


def test_the_zygote_runs_what_python_would_run_and_nothing_else() -> None:
    py = sys.executable
    assert entry([py, "-P", "-m", "quackbox.door_child", "/w", "join"]) == (
        "module",
        "quackbox.door_child",
        ["/w", "join"],
    )
    assert entry([py, "script.py", "-x"]) == ("path", "script.py", ["-x"])
    assert entry([py, "-P", "script.py"]) == ("path", "script.py", [])
    for other in (
        [py, "-c", "print(1)"],
        [py, "-X", "dev", "-m", "m"],
        ["/bin/sh", "-c", "x"],
        [py],
        [py, "-m"],
        ["/usr/bin/python3", "script.py"],
    ):
        assert entry(other) is None, other


# --- a warm child is a fresh one --------------------------------------------------------------


async def test_a_warm_child_is_started_as_a_fresh_one_is(tmp_path: Path) -> None:
    """Its own session with the PTY as its controlling terminal, Python's own signals and no
    signal blocked, exactly its session's environment, no descriptor of the zygote's, fresh
    standard streams on the terminal, run as ``__main__``; the same as a child started afresh."""
    env = env_of(tmp_path)
    async with warm(tmp_path) as zygote:
        warm_child = await spawn(zygote, env)
        got = await Screen(warm_child).report()
        fresh_child = PtyChild.spawn([sys.executable, REPORT, "report"], env, cols=91, rows=27)
        fresh = await Screen(fresh_child).report()
        assert got["ppid"] == zygote.pid and got["pid"] == warm_child.pid
        assert got["session_leader"] and got["group_leader"] and got["ctty"]
        assert got["ttys"][0] and got["ttys"] == [got["ttys"][0]] * 3
        assert got["env"] == env
        assert got["signals"] == {
            "SIGHUP": "default",
            "SIGINT": "default_int_handler",
            "SIGTERM": "default",
            "SIGPIPE": "ignored",
            "SIGCHLD": "default",
            "SIGUSR1": "default",
            "SIGWINCH": "default",
            "SIGXFSZ": "ignored",
        }
        assert got["blocked"] == [] and got["fds"] == [0, 1, 2] and got["threads"] == 1 and got["gc"]
        assert got["argv"] == [REPORT, "report"] and got["main"] == "__main__"
        assert got["stdout"] == {"tty": True, "line_buffering": True, "encoding": "utf-8", "is_dunder": True}
        same = (
            "session_leader",
            "group_leader",
            "ctty",
            "env",
            "signals",
            "blocked",
            "fds",
            "threads",
            "gc",
            "argv",
            "main",
            "stdout",
            "stdin_tty",
        )
        assert {k: got[k] for k in same} == {k: fresh[k] for k in same}
        for child in (warm_child, fresh_child):
            await child.end(1.0)


async def test_signals_the_host_blocks_are_blocked_in_neither_the_zygote_nor_a_child(tmp_path: Path) -> None:
    """A blocked signal, like an ignored one, is inherited across exec: a host started with
    SIGHUP and SIGTERM blocked must not hand that on, fresh or warm."""
    blocked = {signal.SIGHUP, signal.SIGTERM, signal.SIGUSR1}
    was = signal.pthread_sigmask(signal.SIG_BLOCK, blocked)
    try:
        env = env_of(tmp_path)
        async with warm(tmp_path) as zygote:
            assert zygote.pid is not None
            status = Path(f"/proc/{zygote.pid}/status").read_text()
            assert re.search(r"^SigBlk:\s*0+$", status, re.M), status
            warm_child = await spawn(zygote, env)
            fresh_child = PtyChild.spawn([sys.executable, REPORT, "report"], env, cols=80, rows=24)
            for child in (warm_child, fresh_child):
                assert (await Screen(child).report())["blocked"] == []
                assert await child.end(5.0) == -signal.SIGHUP
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, was)


async def test_the_zygote_imports_nothing_from_the_folder_the_host_was_started_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Started, as a fresh child is, in safe-path mode: a module planted where the host was
    started, named like what the zygote imports (itself, and what it warms), never runs."""
    shared = tmp_path / "shared"
    (shared / "quackbox" / "net").mkdir(parents=True)
    marker = tmp_path / "planted-code-ran"
    for name in (
        "json.py",
        "quackbox/__init__.py",
        "quackbox/net/__init__.py",
        "quackbox/net/zygote.py",
        "sitecustomize.py",
    ):
        (shared / name).write_text(f"open({str(marker)!r}, 'a').write({name!r})\n")
    monkeypatch.chdir(shared)
    async with warm(tmp_path) as zygote:
        child = await spawn(zygote, env_of(tmp_path))
        await Screen(child).report()
        await child.end(1.0)
    assert not marker.exists(), marker.read_text()


def test_every_warm_module_is_there_to_import() -> None:
    """A module the zygote cannot find is skipped (a start is never lost), so a renamed one
    would quietly cost every child its warmth: each is checked here instead."""
    from quackbox.door_child import warm_modules

    for name in warm_modules():
        module, _, function = name.partition(":")
        assert importlib.util.find_spec(module) is not None, name
        if function:
            assert callable(getattr(importlib.import_module(module), function)), name


async def test_nothing_of_a_session_passes_through_the_zygote(tmp_path: Path) -> None:
    """What a child alone may know (its room code, its name, its folder) never enters the zygote's
    memory, so a child forked after it cannot find it in the memory it was forked from."""
    first, second = (f"QBSECRET{os.urandom(8).hex()}" for _ in range(2))
    async with warm(tmp_path) as zygote:
        one = await spawn(zygote, env_of(tmp_path, code=first, name=first))
        assert (await Screen(one).report())["env"]["QUACKBOX_ROOM_CODE"] == first
        two = await spawn(zygote, env_of(tmp_path, code=second, name=second))
        await Screen(two).report()
        assert memory_holds(one.pid, first.encode())  # the check can see a secret where there is one
        assert zygote.pid is not None and not memory_holds(zygote.pid, first.encode())
        assert not memory_holds(zygote.pid, second.encode())
        assert not memory_holds(two.pid, first.encode())
        for child in (one, two):
            await child.end(1.0)


async def test_a_childs_end_is_heard_with_its_status_and_it_is_reaped(tmp_path: Path) -> None:
    async with warm(tmp_path) as zygote:
        done = await spawn(zygote, env_of(tmp_path), "exit", "3")
        assert await asyncio.wait_for(done.wait(), START) == 3
        await until(lambda: reaped(done.pid), 10, "the zygote to reap its child")
        held = await spawn(zygote, env_of(tmp_path))
        await Screen(held).report()
        assert await held.end(5.0) == -signal.SIGHUP  # the hangup, as for a fresh child
        await until(lambda: reaped(held.pid), 10, "the zygote to reap its child")
        assert zygote.children == []


# --- a zygote that ends never stops the door --------------------------------------------------


async def test_a_killed_zygote_leaves_its_children_playing_and_is_started_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(zygote_module, "RESTART_INTERVAL", 0.5)
    caplog.set_level(logging.INFO, "quackbox.door")
    async with warm(tmp_path) as zygote:
        child = await spawn(zygote, env_of(tmp_path))
        screen = Screen(child)
        await screen.report()
        first = zygote.pid
        assert first is not None
        os.kill(first, signal.SIGKILL)
        await until(lambda: zygote.pid != first, 10, "the zygote's end to be heard")
        assert (
            await zygote.spawn([sys.executable, REPORT], env_of(tmp_path), cols=80, rows=24) is None
        )  # start it fresh
        assert re.search(rf"warm start process {first} was killed by signal 9; sessions start fresh", caplog.text)
        child.write(b"still here\r")
        await screen.wait_for("got still here")
        assert await asyncio.wait_for(zygote.wait_warm(), START) and zygote.pid not in (None, first)
        again = await spawn(zygote, env_of(tmp_path))
        assert (await Screen(again).report())["ppid"] == zygote.pid
        # The orphan's end is still heard (its status went to whoever adopted it).
        assert await child.end(5.0) == 0 and not child.running
        await again.end(1.0)


async def test_a_zygote_that_does_not_answer_is_replaced_and_the_session_starts_fresh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A stopped zygote holds up only the session that asked it: the event loop runs on while
    it waits, and past SPAWN_TIMEOUT the zygote is killed and started again."""
    monkeypatch.setattr(zygote_module, "SPAWN_TIMEOUT", 0.3)
    monkeypatch.setattr(zygote_module, "RESTART_INTERVAL", 0.1)
    async with warm(tmp_path) as zygote:
        stuck = zygote.pid
        assert stuck is not None
        os.kill(stuck, signal.SIGSTOP)
        loop = asyncio.get_running_loop()
        asking = loop.create_task(zygote.spawn([sys.executable, REPORT], env_of(tmp_path), cols=80, rows=24))
        ran_with_it_asking: asyncio.Future[bool] = loop.create_future()
        # Runs right after the asking task's first step: a spawn that waited on the zygote there
        # would have finished (given up) before this ever ran.
        loop.call_soon(lambda: ran_with_it_asking.set_result(not asking.done()))
        assert await ran_with_it_asking, "the loop waited for the zygote"
        assert await asking is None
        assert "failed (no answer within 0.3 s); this session starts fresh" in caplog.text
        await until(lambda: reaped(stuck), 10, "the stuck zygote to be killed and reaped")
        assert await asyncio.wait_for(zygote.wait_warm(), START)
        child = await spawn(zygote, env_of(tmp_path))
        await Screen(child).report()
        await child.end(1.0)


_NATIVE_THREAD = """
import ctypes
libc = ctypes.CDLL(None)
thread = ctypes.c_ulong()
libc.pthread_create(ctypes.byref(thread), None, ctypes.cast(libc.sleep, ctypes.c_void_p), ctypes.c_void_p(60))
"""


@pytest.mark.parametrize(
    ("trouble", "said"),
    [
        ("raise RuntimeError('broken on purpose')", "broken on purpose"),
        (
            "import threading, time; threading.Thread(target=time.sleep, args=(60,), daemon=True).start()",
            "threads were started while warming (Thread-1 (sleep))",
        ),
        (_NATIVE_THREAD, "threads were started while warming (not started by Python)"),
        ("held = open(__file__)", "descriptors were left open while warming: "),
        ("import asyncio; loop = asyncio.new_event_loop()", "descriptors were left open while warming: "),
    ],
    ids=["raises", "starts-a-thread", "starts-a-thread-python-never-sees", "leaves-a-file-open", "makes-an-event-loop"],
)
async def test_a_zygote_that_cannot_warm_is_given_up_after_a_few_tries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, trouble: str, said: str
) -> None:
    """A warm module that fails, that starts a thread (a fork would copy it half-done), or that
    leaves a descriptor open (every child would share it): the door says so, tries again a few
    times, then starts every child fresh."""
    monkeypatch.setattr(zygote_module, "RESTART_INTERVAL", 0.05)
    modules = tmp_path / "modules"
    modules.mkdir()
    (modules / "troubled.py").write_text(trouble + "\n")
    env = interpreter_environment([str(modules)]) | {"HOME": str(tmp_path)}
    zygote = Zygote(env, tmp_path, session_env=SESSION_ENV, warm=("json", "troubled"))
    zygote.start()
    try:
        await until(lambda: "every session starts fresh from now on" in caplog.text, START, "the zygote to be given up")
        assert not zygote.ready and zygote.pid is None
        assert said in caplog.text
        assert caplog.text.count("cannot warm") == zygote_module.START_ATTEMPTS
        assert (
            await zygote.spawn(
                [sys.executable, REPORT], env_of(tmp_path, import_path=(str(modules),)), cols=80, rows=24
            )
            is None
        )
    finally:
        await zygote.stop()


async def test_the_zygote_ends_when_the_hosts_end_of_its_socket_closes(tmp_path: Path) -> None:
    """What happens when the host is killed: the zygote hears its socket close, and goes."""
    async with warm(tmp_path) as zygote:
        pid = zygote.pid
        assert pid is not None
        zygote._close_socket()
        await until(lambda: zygote.pid is None, 10, "the zygote to end")
        assert reaped(pid)


async def test_a_child_the_zygote_cannot_run_as_python_would_is_left_to_a_fresh_start(tmp_path: Path) -> None:
    env = env_of(tmp_path)
    async with warm(tmp_path) as zygote:
        assert await zygote.spawn([sys.executable, "-c", "print(1)"], env, cols=80, rows=24) is None
        assert await zygote.spawn(["/bin/sh", REPORT], env, cols=80, rows=24) is None
        # Another interpreter's environment (another import path): its imports would differ.
        other = env_of(tmp_path, import_path=(str(tmp_path),))
        assert await zygote.spawn([sys.executable, REPORT], other, cols=80, rows=24) is None
        assert zygote.children == []


async def test_the_doors_of_one_host_share_one_zygote(tmp_path: Path) -> None:
    env = interpreter_environment() | {"HOME": str(tmp_path)}
    one = Zygote.shared(env, tmp_path, session_env=SESSION_ENV)
    two = Zygote.shared(env | {"HOME": str(tmp_path / "other")}, tmp_path, session_env=SESSION_ENV)
    try:
        assert one is two and one.pid is not None
        await one.release()
        assert one.pid is not None  # the other door still uses it
    finally:
        await two.release()
    assert one.pid is None
    third = Zygote.shared(env, tmp_path, session_env=SESSION_ENV)
    assert third is not one
    await third.release()
