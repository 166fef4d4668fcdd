"""A guest who leaves a game that goes on is told, as the app ends, that the seat is kept."""

from __future__ import annotations

from quackbox.core.side_effects import RULES as SE
from quackbox.net.client import ConnectionLost
from quackbox.tui.app import KEPT_SEAT
from tests.core.se_helpers import table
from tests.tui.conftest import SIZE
from tests.tui.fakes import RulesTable, at_table, flat, screen_text, wait_for


def guest(**kwargs) -> RulesTable:
    return RulesTable(SE, table(3, current=1), mode="join", **kwargs)


async def _leave(pilot, app) -> None:
    await pilot.press("q")
    await wait_for(pilot, lambda: "Your seat is kept" in flat(screen_text(app)), what="the question")
    await pilot.press("y")
    await wait_for(pilot, lambda: app.return_code is not None, what="the app to quit")


async def test_a_guest_leaving_a_game_that_goes_on_is_told_the_seat_is_kept(app_for):
    session = guest()
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, _board):
        await _leave(pilot, app)
    assert session.closed
    assert app.exit_lines == [KEPT_SEAT]


async def test_nothing_is_said_of_a_seat_when_the_table_is_gone(app_for):
    """A table the host closed keeps nothing: leaving it says nothing of a seat."""
    session = guest()
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, _board):
        session.push(ConnectionLost("Lost the host and could not reconnect."))
        await wait_for(pilot, lambda: "Lost the host" in flat(screen_text(app)), what="the lost table")
        await pilot.press("q")
        await wait_for(pilot, lambda: app.return_code is not None, what="the app to quit")
    assert KEPT_SEAT not in app.exit_lines


async def test_a_spectator_leaving_is_told_nothing_of_a_seat(app_for):
    session = guest(seat=None)
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, _board):
        await pilot.press("q")
        await wait_for(pilot, lambda: app.return_code is not None, what="the app to quit")
    assert app.exit_lines == []
