"""Every screen fits 80x24: no widget outside the screen or cut off by its container,
every player visible, the footer on the last row."""

from __future__ import annotations

import pytest

from quackbox.core import quack as q
from quackbox.core import side_effects as se
from quackbox.core.quack import RULES as QUACK
from quackbox.core.side_effects import RULES as SE
from quackbox.tui import rules_text
from quackbox.tui.games import rules_screen
from quackbox.tui.home import HostScreen, JoinScreen, OpenToNetworkScreen, OptionsScreen
from quackbox.tui.modals import ChoiceScreen, ConfirmScreen, ReadingScreen
from quackbox.tui.quack_summary import MoneyScreen
from quackbox.tui.trade import TradeScreen
from tests.tui.conftest import SIZE
from tests.tui.fakes import FakeSession, RulesTable, advance, at_table, clipped_widgets, lobby_of, screen_text, wait_for


def assert_fits(app, *, names=()) -> str:
    problems = clipped_widgets(app)
    text = screen_text(app)
    assert not problems, "\n".join(problems) + "\n" + text
    lines = text.split("\n")
    assert len(lines) <= SIZE[1] and all(len(line) <= SIZE[0] for line in lines)
    for name in names:
        assert name in text, f"{name} is not on screen:\n{text}"
    return text


def se_midgame(seats: int, seed: int) -> RulesTable:
    state = SE.new_game(seats=seats, seed=seed)
    advance(SE, state, until=lambda s: s.turn >= 3 * seats and s.current == 0 and s.phase == se.PLAY, seed=seed)
    return RulesTable(SE, state)


def quack_midgame(seats: int, seed: int) -> RulesTable:
    state = QUACK.new_game(seats=seats, seed=seed, options={"window_seconds": 0})
    advance(QUACK, state, until=lambda s: s.round >= 3 and s.current == 0 and s.phase == q.TREAT, seed=seed)
    return RulesTable(QUACK, state)


@pytest.mark.parametrize("seats", [2, 4, 6, 8])
async def test_side_effects_table_fits(app_for, seats):
    """The Side Effects table at 2-8 seats, mid-game, a card picked."""
    session = se_midgame(seats, seed=seats)
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, _board):
        assert_fits(app, names=session.names[1:])
        await pilot.press("1")
        assert_fits(app)


@pytest.mark.parametrize("seats", [2, 4, 6, 8])
async def test_quack_table_fits(app_for, seats):
    """The Quack in the Box table at 2-8 seats, mid-game."""
    session = quack_midgame(seats, seed=seats)
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, _board):
        assert_fits(app, names=session.names[1:])
        await pilot.press("1")
        assert_fits(app)


async def test_home_and_its_dialogs_fit(app_for):
    app = app_for(home=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        text = assert_fits(app)
        assert "Play vs bots" in text and "Join" in text and "Host" in text and "Quit" in text
        for screen in (
            OptionsScreen("side-effects", {}),
            OptionsScreen("quack", {}),
            JoinScreen("", ""),
            HostScreen(7117, True, "Side Effects for 4 players."),
            OpenToNetworkScreen("A table of Side Effects", "192.168.100.200", 7117),
        ):
            app.push_screen(screen)
            await pilot.pause()
            assert_fits(app)
            app.pop_screen()
            await pilot.pause()


@pytest.mark.parametrize("mode,seats", [("host", 4), ("join", 8)])
async def test_lobby_fits(app_for, mode, seats):
    session = FakeSession(
        "quack",
        mode=mode,
        room_code="KQXZ" if mode == "host" else None,
        address="10.0.0.5",
        seat=0 if mode == "host" else 2,
    )
    app = app_for(session)
    names = [f"Player {i + 1}" for i in range(seats)]
    async with app.run_test(size=SIZE) as pilot:
        session.push(lobby_of(names, started=False, kinds=["human"] * 3 + ["open"] * (seats - 3)))
        await wait_for(pilot, lambda: app.lobby_screen is not None, what="the lobby")
        await pilot.pause()
        assert_fits(app, names=names[:3])


async def test_reading_and_choice_screens_fit(app_for):
    session = se_midgame(4, seed=9)
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, _board):
        screens = [
            ReadingScreen("Keys", rules_text.TABLE_KEYS),
            rules_screen("side-effects"),
            rules_screen("quack"),
            ConfirmScreen("Flee to Switzerland? " * 4),
            ChoiceScreen("Pick one", [f"Choice {i}" for i in range(30)]),
            TradeScreen(app.table_screen.view, session.names),
        ]
        for screen in screens:
            app.push_screen(screen)
            await pilot.pause()
            assert_fits(app)
            app.pop_screen()
            await pilot.pause()


@pytest.mark.parametrize("game", ["side-effects", "quack"])
async def test_summary_fits(app_for, game):
    rules = SE if game == "side-effects" else QUACK
    state = rules.new_game(seats=6, seed=21)
    advance(rules, state, until=lambda s: False, seed=21)
    session = RulesTable(rules, state)
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, _board):
        await pilot.press("g")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "SummaryScreen", what="the summary")
        text = assert_fits(app, names=session.names[1:])
        assert "Game over" in text
        if game == "quack":
            app.push_screen(MoneyScreen(app.table_screen.view, session.names, app.table_screen.record.rounds))
            await pilot.pause()
            assert_fits(app)
