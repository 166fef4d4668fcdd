"""The generic screens know no game: each game plugs in through tui.games."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from quackbox.core import games
from quackbox.core.side_effects import RULES as SE
from tests.tui.conftest import SIZE
from tests.tui.fakes import RulesTable, at_table
from quackbox.tui.games import action_bindings, ui_for

TUI = Path(__file__).resolve().parents[2] / "tui"
GENERIC = ("table.py", "summary.py", "replay.py", "app.py")
GAME_MODULES = ("quackbox.core.side_effects", "quackbox.core.quack", "quackbox.tui.se_board", "quackbox.tui.quack_board", "quackbox.tui.se_text",
                "quackbox.tui.trade")


@pytest.mark.parametrize("game", sorted(games.GAMES))
def test_every_game_has_its_ui_with_the_rules_title(game):
    ui = ui_for(game)
    assert ui.game == game
    assert ui.title == games.title(game)
    assert ui.rules().lstrip().startswith(f"# {ui.title}")


def test_no_two_games_bind_one_key_to_different_actions():
    keys = [b.key for b in action_bindings()]
    assert len(keys) == len(set(keys))
    assert {"t", "o", "m"} <= set(keys)


@pytest.mark.parametrize("name", GENERIC)
def test_the_generic_screens_name_no_game(name):
    """No import of a game's rules or board, and no game name, in the screens both games share
    (the summary keeps the Quack money chart, which its GameUI calls)."""
    tree = ast.parse((TUI / name).read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module)
            imported |= {f"{node.module}.{a.name}" for a in node.names}
        elif isinstance(node, ast.Import):
            imported |= {a.name for a in node.names}
    allowed = {"quackbox.core.quack", "quackbox.tui.quack_text"} if name == "summary.py" else set()
    assert not (imported & set(GAME_MODULES)) - allowed
    literals = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    assert not literals & set(games.GAMES)


async def test_a_side_effects_table_offers_trades_not_the_money_chart(app_for):
    session = RulesTable(SE, SE.new_game(seats=3, seed=3))
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, _board):
        screen = app.table_screen
        assert screen.check_action("game", ("trade",))
        assert not screen.check_action("game", ("money",))
        titles = {c.title for c in app.get_system_commands(screen)}
        assert {"Offer a trade", "Answer trade offers", "End turn"} <= titles
        assert "Money chart" not in titles and "Pass" not in titles
        assert sum(1 for c in app.get_system_commands(screen) if c.title.startswith("Keys")) == 1
