"""Text snapshots of the main screens at 80x24, from fixed seeds and fixture views.

Each test renders a screen to plain text and compares it with the file in
``tests/tui/snapshots/``. After a deliberate change to a screen, look at the
new text and refresh the files with ``QUACKBOX_UPDATE_SNAPSHOTS=1 pytest tests/tui/test_snapshots.py``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from core import quack as q
from core.quack import RULES as QUACK
from core.side_effects import RULES as SE
from tests.tui.conftest import SIZE
from tests.tui.fakes import FakeSession, RulesTable, advance, lobby_of, opened, screen_text, wait_for

SNAPSHOTS = Path(__file__).parent / "snapshots"
UPDATE = os.environ.get("QUACKBOX_UPDATE_SNAPSHOTS") == "1"


def check(name: str, text: str) -> None:
    path = SNAPSHOTS / f"{name}.txt"
    if UPDATE or not path.exists():
        SNAPSHOTS.mkdir(exist_ok=True)
        path.write_text(text + "\n", encoding="utf-8")
        if not UPDATE:
            raise AssertionError(f"{path.name} did not exist and was written: look at it, then run again")
        return
    expected = path.read_text(encoding="utf-8").rstrip("\n")
    assert text == expected, f"{name} changed; run with QUACKBOX_UPDATE_SNAPSHOTS=1 if on purpose.\n{text}"


async def test_side_effects_table_with_a_card_picked(app_for):
    """Side Effects, 4 seats, seed 3, turn 1, the Clozapine aimed at our Suicidal Thoughts."""
    session = RulesTable(SE, SE.new_game(seats=4, seed=3))
    app = app_for(session)
    async with app.run_test(size=SIZE) as pilot:
        session.begin()
        await opened(pilot)
        await pilot.press("2")
        await pilot.pause()
        check("side_effects_table", screen_text(app))


async def test_home_screen(app_for, tmp_path):
    """The home screen with a remembered name and game."""
    config = tmp_path / "config"
    config.mkdir(parents=True, exist_ok=True)
    (config / "settings.json").write_text(json.dumps({"name": "Ann", "game": "quack", "players": 5}))
    app = app_for(home=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        check("home", screen_text(app))


async def test_lobby_of_a_hosted_table(app_for):
    """Hosting: the room code in block letters, the join command, seats with ready marks."""
    session = FakeSession("side-effects", mode="host", room_code="KQXZ", address="10.0.0.5")
    app = app_for(session)
    async with app.run_test(size=SIZE) as pilot:
        session.push(lobby_of(["Ann", "Ben [red]", "Cy", ""], started=False,
                              kinds=["human", "human", "human", "open"], ready=[False, True, False, False]))
        await wait_for(pilot, lambda: app.lobby_screen is not None)
        await pilot.pause()
        check("lobby", screen_text(app))


async def test_quack_summary(app_for):
    """The end of a Quack game: winner, places, money."""
    state = QUACK.new_game(seats=4, seed=8, options={"window_seconds": 0})
    advance(QUACK, state, until=lambda s: False, seed=8)
    session = RulesTable(QUACK, state)
    app = app_for(session)
    async with app.run_test(size=SIZE) as pilot:
        session.begin()
        await opened(pilot)
        await pilot.press("g")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "SummaryScreen")
        await pilot.pause()
        check("quack_summary", screen_text(app))
