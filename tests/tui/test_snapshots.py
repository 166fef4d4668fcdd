"""Text snapshots of the main screens at 80x24, from fixed seeds and fixture views.

Each test renders a screen to plain text and compares it with the file in
``tests/tui/snapshots/``. After a deliberate change to a screen, look at the
new text and refresh the files with ``QUACKBOX_UPDATE_SNAPSHOTS=1 pytest tests/tui/test_snapshots.py``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from quackbox.core.quack import RULES as QUACK
from quackbox.core.side_effects import RULES as SE
from tests.tui.conftest import SIZE
from tests.tui.fakes import FakeSession, RulesTable, advance, at_table, lobby_of, screen_text, wait_for

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


async def se_table_with_a_card_picked(app_for, size: tuple[int, int]) -> tuple[object, str]:
    """Side Effects, 4 seats, seed 3, turn 1, the Clozapine aimed at our Suicidal Thoughts: the app and screen."""
    session = RulesTable(SE, SE.new_game(seats=4, seed=3))
    app = app_for(session)
    async with at_table(app, session, size) as (pilot, _board):
        await pilot.press("2")
        await pilot.pause()
        return app, screen_text(app)


async def test_side_effects_table_with_a_card_picked(app_for):
    """Side Effects, 4 seats, seed 3, turn 1, the Clozapine aimed at our Suicidal Thoughts."""
    _app, text = await se_table_with_a_card_picked(app_for, SIZE)
    check("side_effects_table", text)


async def test_side_effects_table_on_a_big_terminal(app_for):
    """The same table at 120x40: wider cards with their whole text, the log the whole width below."""
    _app, text = await se_table_with_a_card_picked(app_for, (120, 40))
    check("side_effects_table_120x40", text)


async def test_side_effects_table_in_ascii(app_for, monkeypatch):
    """--ascii: the 80x24 table drawn with nothing but ASCII, every mark still told apart."""
    from quackbox.tui.looks import ASCII_ENV, ASCII_TABLE, Ascii

    monkeypatch.setenv(ASCII_ENV, "1")
    app, text = await se_table_with_a_card_picked(app_for, SIZE)
    assert app.ascii and any(isinstance(f, Ascii) for f in app.get_line_filters())
    text = text.translate(ASCII_TABLE)
    assert text.isascii(), sorted({ch for ch in text if not ch.isascii()})
    assert "x Gambling Addiction" in text and "* Suicidal Thoughts" in text  # untreated, aimed
    check("side_effects_table_ascii", text)


async def test_home_screen(app_for, tmp_path):
    """The home screen with a remembered name and game."""
    config = tmp_path / "config"
    config.mkdir(parents=True, exist_ok=True)
    (config / "settings.json").write_text(json.dumps({"name": "Ann", "game": "quack", "players": 5}))
    app = app_for(home=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: "palette" in screen_text(app), what="the footer")
        check("home", screen_text(app))


async def test_lobby_of_a_hosted_table(app_for):
    """Hosting: the room code in block letters, the join command, seats with ready marks."""
    session = FakeSession("side-effects", mode="host", room_code="KQXZ", address="10.0.0.5")
    app = app_for(session)
    async with app.run_test(size=SIZE) as pilot:
        session.push(
            lobby_of(
                ["Ann", "Ben [red]", "Cy", ""],
                started=False,
                kinds=["human", "human", "human", "open"],
                ready=[False, True, False, False],
            )
        )
        await wait_for(pilot, lambda: app.lobby_screen is not None)
        # On a busy machine the footer comes a frame later than the rest.
        await wait_for(pilot, lambda: "palette" in screen_text(app), what="the footer")
        check("lobby", screen_text(app))


async def test_quack_summary(app_for):
    """The end of a Quack game: winner, places, money."""
    state = QUACK.new_game(seats=4, seed=8, options={"window_seconds": 0})
    advance(QUACK, state, until=lambda s: False, seed=8)
    session = RulesTable(QUACK, state)
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, _board):
        await pilot.press("g")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "SummaryScreen")
        await pilot.pause()
        check("quack_summary", screen_text(app))


@pytest.mark.parametrize("size", [(80, 24), (120, 40), (160, 40)])
async def test_a_long_room_code_never_breaks_a_join_command(app_for, size):
    """A twelve-letter code in block letters fills 80 columns: how to join goes under it,
    each command whole on its line, wherever it would not fit beside it (at 80 columns it
    was squeezed out of sight; at 120 the commands broke across lines)."""
    code = "KQXZ-TBDF-MNPW"
    session = FakeSession(
        "side-effects",
        mode="host",
        room_code=code,
        address="10.0.0.5:7777",
        ssh_door="ssh -p 2222 10.0.0.5",
        web_link=f"http://10.0.0.5:7118/#{code}",
    )
    app = app_for(session)
    async with app.run_test(size=size) as pilot:
        session.push(
            lobby_of(["Ann", "", "", ""], started=False, kinds=["human", "open", "open", "open"], ready=[False] * 4)
        )
        await wait_for(pilot, lambda: app.lobby_screen is not None)
        await wait_for(pilot, lambda: "7118" in screen_text(app), what="the lobby's words")
        lines = screen_text(app).splitlines()
        for command in (
            f"quackbox join 10.0.0.5:7777 --code {code}",
            "ssh -p 2222 10.0.0.5",
            f"http://10.0.0.5:7118/#{code}",
        ):
            assert any(command in line for line in lines), (command, lines)
