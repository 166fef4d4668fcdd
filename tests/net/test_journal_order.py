"""The journal's order: no one hears of a move before its record is on disk.

In this process: every view a client receives must follow the write of the
moves it tells, and, with a disk whose syncs are slowed on purpose, the sync
that put them on disk; a host that sends first, and a disk that says "on
disk" before it syncs, are caught by the same checks. From outside, as a
crash: a real host process is killed with SIGKILL at random moments of a
game while a spectator keeps every view it receives; the journal read after
the kill must hold every move the spectator saw, and replay to exactly the
views it was sent.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import random
import signal
import threading
import time
from pathlib import Path
from typing import Any, Callable

import pytest

from quackbox.core import bots as core_bots
from quackbox.core import games
from quackbox.core.bots import decide
from quackbox.net import journal as jn
from quackbox.net.client import Client
from quackbox.net.host import Host, HostConfig
from quackbox.net.journal_writer import Disk
from quackbox.net.protocol import View
from quackbox.net.table import JournalStart
from tests.net.test_resume import _start_host
from tests.waiting import Changes

SLOW_SYNC = 0.02
"""Seconds each slowed sync takes: long beside a loop turn, so a view sent
early arrives well before the sync that should come first."""

Check = Callable[[Path, View], None]
"""Asserts, as a view arrives, that the journal at the path already holds what it must."""


async def play_checking(host: Host, check: Check) -> int:
    """Play a 2-seat game through ``host``, calling ``check`` at every view
    either client receives; the number of views checked."""
    checked = 0
    paths: list[Path | None] = [None]
    clients = [await Client.connect(host.url, name=f"P{i}") for i in range(2)]
    brains = [core_bots.make("side-effects", "heuristic", i) for i in range(2)]

    async def play(i: int) -> None:
        nonlocal checked
        client = clients[i]
        async for message in client:
            if not isinstance(message, View):
                continue
            path = paths[0] = host.journal_path or paths[0]
            assert path is not None, "a view came before the journal was begun"
            check(path, message)
            checked += 1
            if message.view.outcome is not None:
                return
            if client.view is not None and client.view.seq > message.seq:
                continue
            move = decide(brains[i], message.view)
            if move is not None:
                await client.move(move, message.seq)

    try:
        await asyncio.gather(play(0), play(1))
    finally:
        for client in clients:
            await client.close()
    return checked


def host_config(tmp_path: Path) -> HostConfig:
    return HostConfig(
        game="side-effects",
        seats=2,
        headless=True,
        autostart=True,
        bot_delay=0.0,
        seed=3,
        bind="127.0.0.1",
        port=0,
        journal_dir=str(tmp_path),
    )


# --- written before it is told --------------------------------------------------------------


def written(path: Path, message: View) -> None:
    """The journal file holds the moves ``message`` follows (and the end, if it tells it)."""
    record = jn.read(path)
    assert len(record.moves) >= message.seq, f"view {message.seq} came before its move was on disk"
    assert record.finished or message.view.outcome is None, "the end was told before it was on disk"


async def test_every_move_is_on_disk_before_anyone_sees_it(tmp_path):
    """The journal is written off the loop, but a view still waits for its move's record."""
    async with asyncio.timeout(60):
        async with Host(host_config(tmp_path)) as host:
            checked = await play_checking(host, written)
    assert checked > 10
    (path,) = tmp_path.glob("*.qbj")
    record = jn.read(path)
    assert record.outcome is not None and len(record.moves) == host.table.seq


class HastyHost(Host):
    """A host that sends what follows a move without waiting for its record,
    which it hands to the disk a little later (the journal itself it opens at
    once): the check above must catch it."""

    def _to_disk(self, action):
        if isinstance(action, JournalStart):
            return super()._to_disk(action)
        loop = asyncio.get_running_loop()
        loop.call_later(0.02, super()._to_disk, action)
        done = loop.create_future()
        done.set_result(None)
        return done


async def test_the_journal_check_catches_a_host_that_does_not_wait_for_the_disk(tmp_path):
    async with asyncio.timeout(60):
        async with HastyHost(host_config(tmp_path)) as host:
            with pytest.raises(AssertionError, match="before"):
                await play_checking(host, written)


# --- synced before it is told ---------------------------------------------------------------


def on_disk(fd: int) -> jn.Journal:
    """The journal open as ``fd``, as read from its file."""
    return jn.read(os.readlink(f"/proc/self/fd/{fd}"))


class Synced(Disk):
    """A disk whose syncs are slowed on purpose and note, per journal, how many move
    records (and whether the end) were on disk when they returned; as a check, that
    a view follows the sync of everything it tells."""

    def __init__(self) -> None:
        self.moves: dict[Path, int] = {}
        self.finished: set[Path] = set()
        self.calls = 0

    def sync(self, fd: int) -> None:
        time.sleep(SLOW_SYNC)
        super().sync(fd)
        self.calls += 1
        self.note(on_disk(fd))

    def note(self, record: jn.Journal) -> None:
        self.moves[record.path] = len(record.moves)
        if record.finished:
            self.finished.add(record.path)

    def check(self, path: Path, message: View) -> None:
        assert self.moves.get(path, -1) >= message.seq, f"view {message.seq} came before its move was synced"
        assert path in self.finished or message.view.outcome is None, "the end was told before it was synced"


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="reads a file by its descriptor through /proc")
async def test_no_view_goes_out_before_the_sync_that_puts_its_move_on_disk(tmp_path):
    synced = Synced()
    async with asyncio.timeout(90):
        async with Host(host_config(tmp_path), disk=synced) as host:
            checked = await play_checking(host, synced.check)
    assert checked >= 10 and synced.calls >= 5
    (path,) = tmp_path.glob("*.qbj")
    assert jn.read(path).finished


class Hasty(Synced):
    """A disk that says its records are on disk as soon as they are written, and only
    later notes them synced (as if it synced afterwards)."""

    def sync(self, fd: int) -> None:
        Disk.sync(self, fd)
        threading.Timer(SLOW_SYNC, self.note, args=(on_disk(fd),)).start()


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="reads a file by its descriptor through /proc")
async def test_the_sync_check_catches_a_disk_that_tells_before_it_syncs(tmp_path):
    hasty = Hasty()
    async with asyncio.timeout(90):
        async with Host(host_config(tmp_path), disk=hasty) as host:
            with pytest.raises(AssertionError, match="before"):
                await play_checking(host, hasty.check)


class BusyDisk(Disk):
    """A disk that takes the first ``quick`` syncs at once, then is busy until ``free``
    is set: its records wait, handed over, while the loop goes on (the host can be stopped)."""

    def __init__(self, quick: int) -> None:
        self.quick = quick
        self.free = threading.Event()
        self.waiting = threading.Event()

    def sync(self, fd: int) -> None:
        if self.quick > 0:
            self.quick -= 1
        else:
            self.waiting.set()
            self.free.wait(30)
        super().sync(fd)


async def test_a_host_stopped_while_records_wait_for_the_disk_closes_its_journal_after_every_record(tmp_path):
    """Stopping while records wait for the disk: the journal is closed only after them,
    so it holds every move the table accepted."""
    disk = BusyDisk(quick=4)
    config = dataclasses.replace(host_config(tmp_path), bots=2, bot_delay=0.005)
    async with asyncio.timeout(60):
        async with Host(config, disk=disk) as host:
            # Accepted, and waiting for the disk:
            assert await asyncio.to_thread(disk.waiting.wait, 30)
            assert host.saver.busy and host.table.holding
            stopping = asyncio.create_task(host.stop())
            # A stop that did not wait for the disk would be done by now: nothing else can tell.
            await asyncio.sleep(0.05)
            assert not stopping.done()
            disk.free.set()
            await stopping
    assert host.saver.writer is None
    (path,) = tmp_path.glob("*.qbj")
    record = jn.read(path)
    assert len(record.moves) == host.table.seq >= 3
    assert record.finished == (host.table.outcome is not None)


async def play_to_the_end(client: Client, seed: int) -> Any:
    brain = core_bots.make("side-effects", "heuristic", seed)
    try:
        async for message in client:
            if isinstance(message, View):
                if message.view.outcome is not None:
                    return message.view.outcome
                if client.view is not None and client.view.seq > message.seq:
                    continue
                move = decide(brain, message.view)
                if move is not None:
                    await client.move(move, message.seq)
    finally:
        await client.close()
    return None


# --- SIGKILL at random moments ------------------------------------------------------------

KILLS = 5
"""Hosts killed, each at a random moment of its own game."""
KILL_AFTER = 60
"""The most views a spectator sees before the kill (at random from 1); a game has more."""


async def watch(url: str, seen: list[View], views: Changes) -> None:
    """Keep every view a spectator receives, until the host is gone (``views`` told of each)."""
    client = await Client.connect(url, name="Watcher", spectate=True, reconnect=False)
    try:
        async for message in client:
            if isinstance(message, View):
                seen.append(message)
                views.changed()
    except Exception:
        pass  # the host died under it: what matters is what it saw
    finally:
        await client.close()


def check_against_the_journal(seen: list[View], record: jn.Journal) -> int:
    """Every view seen is the spectator's view after that many of the journal's
    moves; the number of moves the views covered."""
    heard = max(v.seq for v in seen)
    assert heard <= len(record.moves), f"the spectator saw move {heard}; the journal holds {len(record.moves)}"
    rules = games.get(record.header.game)
    by_seq = {v.seq: v.view for v in seen}
    for k, (state, _events) in enumerate(jn.replay(record, upto=heard)):
        if k in by_seq:
            assert by_seq[k] == rules.view(state, None), f"view {k} is not the journal's game after {k} moves"
    return heard


async def test_a_host_killed_at_any_moment_loses_no_move_anyone_saw(tmp_path):
    rng = random.Random(28)
    env = dict(
        os.environ, **{f"QUACKBOX_{kind}_DIR": str(tmp_path / kind.lower()) for kind in ("DATA", "CONFIG", "STATE")}
    )
    mid_game = 0
    async with asyncio.timeout(150):
        for trial in range(KILLS):
            folder = tmp_path / f"games-{trial}"
            host, port = _start_host(
                [
                    "--game",
                    "quack",
                    "--seats",
                    "4",
                    "--bots",
                    "4",
                    "--autostart",
                    "--bot-delay",
                    "0.005",
                    "--port",
                    "0",
                    "--seed",
                    str(trial),
                    "--journal-dir",
                    str(folder),
                ],
                env,
            )
            seen: list[View] = []
            views = Changes()
            watcher = asyncio.create_task(watch(f"ws://127.0.0.1:{port}", seen, views))
            watcher.add_done_callback(views.changed)
            try:
                after = rng.randint(1, KILL_AFTER)  # views seen: the kill falls among the host's moves
                await views.until(
                    lambda seen=seen, after=after, watcher=watcher: len(seen) >= after or watcher.done(),
                    30,
                    "the views before the kill",
                )
                host.send_signal(signal.SIGKILL)
                host.wait()
            finally:
                if host.poll() is None:
                    host.kill()
                    host.wait()
            await asyncio.wait_for(watcher, 30)
            (path,) = folder.glob("*.qbj")
            record = jn.read(path)
            heard = check_against_the_journal(seen, record)
            if not record.finished and heard > 0:
                mid_game += 1
    assert mid_game >= KILLS - 1, f"only {mid_game} of {KILLS} kills fell in the middle of a game"
