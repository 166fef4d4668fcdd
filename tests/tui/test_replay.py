"""quackbox replay: stepping through a saved game in the table view, every hand shown."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from quackbox.core import bots, games
from quackbox.core.play import next_move
from quackbox.net import journal as jn
from quackbox.net.journal_writer import JournalWriter
from quackbox.tui.replay import Replay, ReplayApp

SIZE = (80, 24)


def _journal(tmp_path: Path, game: str, seats: int = 3, seed: int = 5) -> Path:
    rules = games.get(game)
    state = rules.new_game(seats=seats, seed=seed)
    header = jn.Header(game=game, seed=seed, seats=seats, names=("Ana", "Ben", "Cy", "Dee")[:seats], created=1.7e9)
    path = tmp_path / f"{game}.qbj"
    writer = JournalWriter.create(path, header, sync=False)
    table = [bots.make(game, "heuristic", seed + s) for s in range(seats)]
    while rules.outcome(state) is None:
        seat, move = next_move(rules, state, table)
        rules.apply(state, seat, move)
        writer.append(seat, move)
    writer.finish(rules.outcome(state))
    writer.close()
    return path


@pytest.mark.parametrize("game", ["side-effects", "quack"])
async def test_replay_steps_jumps_and_switches_seat(tmp_path: Path, game: str) -> None:
    record = jn.read(_journal(tmp_path, game))
    rules = games.get(game)
    app = ReplayApp(record)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        await pilot.press("right", "right", "right")
        assert screen.position == 3
        assert screen.board.view == rules.view(jn.rebuild(record, upto=3), 0)
        await pilot.press("left")
        assert screen.position == 2
        await pilot.press("end")
        assert screen.position == len(record.moves)
        assert "game over" in str(screen.query_one("#status").render())
        replay = screen.replay
        target = max(2, replay.turns // 2)
        await pilot.press("g", *str(target), "enter")
        assert screen.position == replay.start_of(target)
        assert replay.turn_at(screen.position) == target
        assert replay.turn_at(screen.position - 1) == target - 1
        await pilot.press("down")
        assert replay.turn_at(screen.position) == target + 1
        await pilot.press("up", "up")
        assert replay.turn_at(screen.position) == target - 1
        await pilot.press("v")
        assert screen.viewpoint == 1 and screen.board.view.seat == 1
        state = jn.rebuild(record, upto=screen.position)
        hands = str(screen.query_one("#hands").render())
        for seat, hand in enumerate(state.hands):
            assert f"{record.header.names[seat]} ({len(hand)})" in hands
            for card in hand:
                assert state.cards[card].name in hands
        await pilot.press("home")
        assert screen.position == 0


async def test_replay_refuses_a_turn_out_of_range(tmp_path: Path) -> None:
    app = ReplayApp(jn.read(_journal(tmp_path, "side-effects")))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("right", "g", "9", "9", "9", "enter")
        assert app.screen.position == 1


def test_replay_start_of_turns_is_consistent(tmp_path: Path) -> None:
    replay = Replay(jn.read(_journal(tmp_path, "quack")))
    starts = [replay.start_of(t) for t in range(1, replay.turns + 1)]
    assert starts == sorted(starts) and starts[0] == 0
    for turn, start in enumerate(starts, 1):
        assert replay.turn_at(start) == turn


def test_replay_command_prints_the_log_and_refuses_damage(tmp_path: Path) -> None:
    path = _journal(tmp_path, "side-effects")
    out = subprocess.run(
        [sys.executable, "-m", "quackbox", "replay", str(path), "--text"], capture_output=True, text=True, check=True
    )
    assert "Turn 1:" in out.stdout and "game is over" in out.stdout.lower()
    bad = tmp_path / "bad.qbj"
    bad.write_bytes(b"hello")
    out = subprocess.run([sys.executable, "-m", "quackbox", "replay", str(bad)], capture_output=True, text=True)
    assert out.returncode == 1 and "bad.qbj" in out.stderr and "Traceback" not in out.stderr


LIVE_WORDS = (
    "Your turn",
    "Your chance",
    "press",
    "Press",
    "space",
    "Enter",
    "o to answer",
    "s stay",
    "f flee",
    "pick a card",
    "TREMORS!",
)
"""Words of the prompts that ask the person at a live table to act."""


@pytest.mark.parametrize("game", ["side-effects", "quack"])
async def test_a_replay_shows_no_live_prompts(tmp_path: Path, game: str) -> None:
    """Issue 41, item 8: the replay said "Your turn: s stay..." as if a key would play; at
    every point of a whole game, from every seat, its prompt names what the table waits
    for and no key to press."""
    record = jn.read(_journal(tmp_path, game))
    app = ReplayApp(record)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        said = set()
        for seat in range(record.header.seats):
            screen.viewpoint = seat
            for position in range(len(record.moves) + 1):
                screen.position = position
                prompt = screen.board.prompt().plain
                said.add(prompt)
                assert not [w for w in LIVE_WORDS if w in prompt], (position, seat, prompt)
        assert "Game over." in said and len(said) > 5


async def test_question_mark_shows_the_replays_keys(tmp_path: Path) -> None:
    from quackbox.tui.modals import ReadingScreen

    app = ReplayApp(jn.read(_journal(tmp_path, "quack")))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert "? keys" in str(app.screen.query_one("#keys").render())
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, ReadingScreen) and app.screen.page_title == "Replay keys"
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("right")
        assert app.screen.position == 1


async def test_a_replays_notices_are_not_toasts(tmp_path: Path) -> None:
    """Said in the keys line until the next key, not over the log."""
    app = ReplayApp(jn.read(_journal(tmp_path, "side-effects")))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("g", "9", "9", "9", "enter")
        await pilot.pause()
        keys = str(app.screen.query_one("#keys").render())
        assert "This game has turns 1 to" in keys and not app.screen.query("Toast")
        await pilot.press("right")
        await pilot.pause()
        assert "? keys" in str(app.screen.query_one("#keys").render())
