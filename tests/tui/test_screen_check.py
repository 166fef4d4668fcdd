"""The screen check, bounded: seeded games of both games, seated and watching, at three sizes.

After every frame the app writes, the terminal (an emulator fed every byte)
must show exactly what a full repaint would (tests/tui/screen_check.py).
``python -m bench.terminal --verify`` plays whole games the same way.
"""

from __future__ import annotations

import pytest

from quackbox.tui import terminal
from tests.tui.screen_check import Game, check_game

FRAMES = 70
"""Frames compared per game here (a game may end sooner)."""


@pytest.mark.parametrize(
    "spec",
    [
        Game("side-effects", 1, (80, 24), seated=True, frames=FRAMES),
        Game("side-effects", 3, (100, 30), seated=False, frames=FRAMES),
        Game("quack", 1, (120, 40), seated=True, frames=FRAMES),
        Game("quack", 2, (80, 24), seated=False, frames=FRAMES),
    ],
    ids=lambda spec: f"{spec.game}-{'seated' if spec.seated else 'watching'}-{spec.size[0]}x{spec.size[1]}",
)
async def test_the_terminal_shows_what_a_full_repaint_would(spec):
    tally = await check_game(spec)
    assert tally.frames >= FRAMES
    assert tally.differing_cells == 0, "\n".join(str(d) for d in tally.differences)


async def test_the_check_sees_cells_left_behind(monkeypatch):
    """A writer that leaves the last cell of every change unwritten (as a widget that
    guessed what the terminal shows would) is caught at once."""
    runs = terminal.changed_runs

    def short(y, old, new, x0=0):
        found = runs(y, old, new, x0)
        for run in found:
            if len(run.cells) > 1:
                run.cells.pop()
        return found

    monkeypatch.setattr(terminal, "changed_runs", short)
    tally = await check_game(Game("side-effects", 1, (80, 24), seated=True, frames=6))
    assert tally.differing_cells > 0
    assert "terminal" in str(tally.differences[0]) and "repaint" in str(tally.differences[0])
