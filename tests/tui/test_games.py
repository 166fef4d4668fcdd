"""The generic screens know no game: each game plugs in through tui.games."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from quackbox.core import games
from quackbox.core.side_effects import RULES as SE
from quackbox.tui.games import action_bindings, ui_for
from tests.tui.conftest import SIZE
from tests.tui.fakes import RulesTable, at_table, notices

TUI = Path(__file__).resolve().parents[2] / "tui"
GENERIC = ("table.py", "summary.py", "replay.py", "app.py")
GAME_MODULES = (
    "quackbox.core.side_effects",
    "quackbox.core.quack",
    "quackbox.tui.se_board",
    "quackbox.tui.quack_board",
    "quackbox.tui.se_text",
    "quackbox.tui.trade",
)


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


def test_no_import_circles_in_the_tui():
    """Every import between tui modules (at the top, for types only, or inside a function)
    runs one way: a game's module and the generic screens meet only through tui.games."""
    graph: dict[str, set[str]] = {}
    for path in TUI.glob("*.py"):
        names = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "quackbox.tui":
                names |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("quackbox.tui."):
                names.add(node.module.split(".")[2])
            elif isinstance(node, ast.Import):
                names |= {a.name.split(".")[2] for a in node.names if a.name.startswith("quackbox.tui.")}
        graph[path.stem] = names - {path.stem}

    def circle_from(start: str) -> list[str] | None:
        path, todo = [start], [iter(sorted(graph[start]))]
        while todo:
            step = next(todo[-1], None)
            if step is None:
                path.pop(), todo.pop()
            elif step == start:
                return path + [start]
            elif step not in path and step in graph:
                path.append(step), todo.append(iter(sorted(graph[step])))
        return None

    circles = [c for c in map(circle_from, sorted(graph)) if c]
    assert not circles, "import circles: " + "; ".join(" -> ".join(c) for c in circles)


async def test_a_games_own_move_goes_through_the_tables_checks(app_for):
    """A move a game's action makes (a trade, an answer to an offer) is sent the way a card
    picked on the board is: not while the connection is down, and with the view's number."""
    from quackbox.core import side_effects as se
    from quackbox.tui.table import ONLINE, RECONNECTING

    session = RulesTable(SE, SE.new_game(seats=3, seed=3))
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, _board):
        screen = app.table_screen
        screen.connection = RECONNECTING
        screen.at_table.send(se.EndTurn())
        await pilot.pause()
        assert session.moves == []
        assert any("Not connected" in n for n in notices(app))
        screen.connection = ONLINE
        screen.at_table.send(se.EndTurn())
        await pilot.pause()
        assert session.sent[-1] == ("move", (se.EndTurn(), screen.seq))
