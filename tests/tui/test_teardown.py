"""No callback outlives what it touches: a resize's settling, a table's timers and the app's
deferred calls do nothing once their screen, their widget or the app has gone."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Static

from quackbox.core.side_effects import RULES
from quackbox.tui.clock import WALL, alive, while_alive
from tests.core.se_helpers import table
from tests.tui.conftest import SIZE
from tests.tui.fakes import RulesTable, at_table, screen_text, settled, wait_for


def a_table() -> RulesTable:
    state = table(
        3,
        psyches={0: ["Madness", "Anxiety"], 1: ["Depression"], 2: ["Impotence"]},
        hands={0: ["Lithium", "Episode"]},
        current=0,
    )
    return RulesTable(RULES, state)


async def test_a_resize_that_settles_after_the_app_has_quit_does_nothing(app_for):
    """The settle timer of a resize under way when the app quits finds no screen: it paints
    nothing and raises nothing (Textual closes the screens before it stops the app's timers)."""
    session = a_table()
    app = app_for(session)
    app.resize_settle = 600.0  # still settling when the app quits, however slow the machine
    async with at_table(app, session, SIZE) as (pilot, _board):
        await pilot.resize_terminal(120, 40)
        assert app.resizing
        app.exit()
    assert not app.screen_stack
    app.settle_resize()  # as the timer would, had it fired while the screens were going
    assert not app.resizing


async def test_quitting_in_the_middle_of_a_resize_raises_nothing(app_for):
    """Resize and quit at once, twice over: the app ends cleanly, with its return code."""
    session = a_table()
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, _board):
        await pilot.resize_terminal(120, 40)
        await pilot.resize_terminal(100, 30)
        await pilot.press("ctrl+q")
    assert app.return_code == 0


async def test_a_table_closed_during_a_resize_leaves_the_home_screen_painted(app_for):
    """Leaving a table while its resize settles: the settling paints the screen under it."""
    session = a_table()
    app = app_for(session, home=True)
    async with app.run_test(size=SIZE) as pilot:
        app.open_session(lambda: _opened(session), "Opening")
        await wait_for(pilot, lambda: app.table_screen is not None and app.table_screen.ready, what="the table")
        app.resize_settle = 600.0  # held open until the table has gone
        await pilot.resize_terminal(100, 30)
        assert app.resizing
        app.leave_table()
        await pilot.pause()
        app.settle_resize()  # as its timer would
        await settled(pilot, app)
        assert app.table_screen is None
        assert "Play vs bots" in screen_text(app)
        assert app.size == (100, 30)


async def _opened(session: RulesTable) -> RulesTable:
    session.begin()
    return session


class _Holder(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("here", id="here")


async def test_a_timer_or_deferred_call_of_a_removed_widget_does_nothing():
    """``while_alive``: a callback whose widget was removed, or whose app is ending, is not called."""
    app = _Holder()
    calls: list[str] = []
    async with app.run_test() as pilot:
        widget = app.query_one("#here", Static)
        assert alive(widget) and alive(app)
        on_widget = while_alive(widget, lambda: calls.append("widget"))
        on_app = while_alive(app, lambda: calls.append("app"))
        on_widget()
        on_app()
        assert calls == ["widget", "app"]
        await widget.remove()
        await pilot.pause()
        assert not alive(widget)
        on_widget()
        WALL.after(app, 0.01, lambda: calls.append("timer"))
        await wait_for(pilot, lambda: "timer" in calls, what="the app's timer")
        late = WALL.after(app, 0.01, lambda: calls.append("late"))
        app.exit()
    assert not alive(app)
    on_app()
    late.stop()
    assert calls == ["widget", "app", "timer"]
