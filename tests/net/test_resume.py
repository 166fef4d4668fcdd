"""Never lose a game: SIGKILL the host mid-game, resume it, and play on.

The host runs as a real ``quackbox host --headless`` process; the players are
bot clients in this process that reconnect by themselves. Every view a client
ever received is checked against a clean replay of the journal: the view
numbered ``seq`` must be exactly the view after the journal's first ``seq``
moves. So no move anyone heard of was lost, and the final state is the
journal's.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from quackbox.core import bots as core_bots
from quackbox.core import games
from quackbox.core.bots import decide
from quackbox.net import journal as jn
from quackbox.net.client import Client
from quackbox.net.protocol import Lobby, View
from tests.waiting import Changes

pytestmark = pytest.mark.timeout(240)


class Player:
    """A bot client that keeps every view it receives."""

    def __init__(self, url: str, name: str, seed: int, think: float, heard: Changes | None = None) -> None:
        self.url, self.name, self.seed, self.think = url, name, seed, think
        self.heard = heard
        """Told of each view received, and of the end of play."""
        self.views: list[View] = []
        self.client: Client | None = None
        self.outcome: Any = None

    async def play(self) -> None:
        self.client = client = await Client.connect(self.url, name=self.name, reconnect_for=90.0)
        try:
            bot = core_bots.make(client.game, "heuristic", self.seed)
            await client.ready()
            async for message in client:
                if isinstance(message, Lobby):
                    if (
                        message.starter == client.seat
                        and all(s.kind != "open" for s in message.seats)
                        and all(s.ready for s in message.seats)
                        and not message.started
                        and not message.over
                    ):
                        await client.start()
                elif isinstance(message, View):
                    self.views.append(message)
                    if self.heard is not None:
                        self.heard.changed()
                    if message.view.outcome is not None:
                        self.outcome = message.view.outcome
                        return
                    await asyncio.sleep(self.think)  # a person's time to think, so the kill lands mid-game
                    if client.view is not None and client.view.seq != message.seq:
                        continue
                    move = decide(bot, message.view)
                    if move is not None:
                        try:
                            await client.move(move, message.seq)
                        except Exception:
                            pass  # the host is down: the next view after the reconnect decides again
        finally:
            await client.close()


def _start_host(args: list[str], env: dict[str, str]) -> tuple[subprocess.Popen, int]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "quackbox", "host", "--headless", "--bind", "127.0.0.1", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        found = re.search(r"on port (\d+)", line)
        if found:
            # Keep reading what it prints, so a full pipe never blocks it.
            threading.Thread(target=proc.stdout.read, daemon=True).start()
            return proc, int(found.group(1))
    raise AssertionError(f"the host did not start: exit {proc.wait()}")


def _check_views(players: list[Player], record: jn.Journal) -> None:
    """Each view seq k equals the view after the journal's first k moves."""
    rules = games.get(record.header.game)
    wanted: dict[int, list[tuple[int, Any]]] = {}
    for player in players:
        seat = player.client.seat
        for message in player.views:
            wanted.setdefault(message.seq, []).append((seat, message.view))
    assert max(wanted) <= len(record.moves)
    state = rules.new_game(
        seats=record.header.seats, options=rules.parse_options(record.header.options), seed=record.header.seed
    )
    checked = 0
    for k in range(len(record.moves) + 1):
        for seat, view in wanted.get(k, ()):
            assert view == rules.view(state, seat), f"the view seq {k} of seat {seat} is not the journal's"
            checked += 1
        if k < len(record.moves):
            rules.apply(state, *record.moves[k])
    assert checked == sum(len(p.views) for p in players)


async def _crash_and_resume(tmp_path: Path, seed: int, *, kill_when) -> tuple[list[Player], jn.Journal, bool]:
    """Kill the host when ``kill_when(players)``, then resume it from its journal."""
    env = dict(os.environ, QUACKBOX_STATE_DIR=str(tmp_path / "state"))
    journal_dir = tmp_path / f"games-{seed}"
    host, port = _start_host(
        [
            "--game",
            "side-effects",
            "--seats",
            "3",
            "--port",
            "0",
            "--seed",
            str(seed),
            "--bot-delay",
            "0",
            "--journal-dir",
            str(journal_dir),
            "-o",
            "tremors-seconds=30",
        ],
        env,
    )
    url = f"ws://127.0.0.1:{port}"
    heard = Changes()
    players = [Player(url, f"P{i}", seed * 10 + i, think=0.05, heard=heard) for i in range(3)]
    tasks = [asyncio.create_task(p.play()) for p in players]
    for task in tasks:
        task.add_done_callback(heard.changed)
    killed = False
    resumed = None
    try:
        with contextlib.suppress(AssertionError):  # no moment to kill at in 30 s: play on unkilled
            await heard.until(lambda: any(t.done() for t in tasks) or kill_when(players), 30, "the moment to kill")
        if not any(t.done() for t in tasks) and kill_when(players):
            host.send_signal(signal.SIGKILL)
            host.wait()
            killed = True
        if killed:
            (path,) = journal_dir.glob("*.qbj")
            before = jn.read(path)
            assert not before.finished
            heard = max(p.views[-1].seq for p in players if p.views)
            assert len(before.moves) >= heard, "a move a client saw is missing from the journal"
            resumed, _ = _start_host(
                ["--resume", str(path), "--port", str(port), "--bot-delay", "0", "--journal-dir", str(journal_dir)], env
            )
        await asyncio.wait_for(asyncio.gather(*tasks), timeout=180)
    finally:
        for proc in (host, resumed):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait()
    (path,) = journal_dir.glob("*.qbj")
    return players, jn.read(path), killed


def _in_tremors(players: list[Player]) -> bool:
    for p in players:
        if p.views and p.views[-1].view.prompt is not None and p.views[-1].view.prompt.kind == "tremors":
            return True
    return False


def _after_moves(count: int):
    return lambda players: any(p.views and p.views[-1].seq >= count for p in players)


async def test_host_killed_in_an_ordinary_turn_resumes_and_finishes(tmp_path: Path) -> None:
    players, record, killed = await _crash_and_resume(tmp_path, 11, kill_when=_after_moves(12))
    assert killed, "the game ended before the host could be killed"
    assert record.finished and all(p.outcome == record.outcome for p in players)
    _check_views(players, record)


async def test_host_killed_during_a_tremors_prompt_resumes_and_finishes(tmp_path: Path) -> None:
    """The Tremors answer owed when the host died is given after the resume."""
    for seed in range(20, 40):
        players, record, killed = await _crash_and_resume(tmp_path, seed, kill_when=_in_tremors)
        if killed:
            break
    else:
        pytest.fail("no game in 20 seeds reached a Tremors prompt")
    assert record.finished and all(p.outcome == record.outcome for p in players)
    _check_views(players, record)
    rules = games.get("side-effects")
    state = jn.rebuild(record)
    assert rules.outcome(state) == record.outcome
