"""Text snapshots of the Quack in the Box table at 80x24 and 120x40 (issue 14).

A seeded game mid-way, as it opens and with an Anytime card picked and
aimed, so the snapshots hold the prompt, the lit targets and the hand; at
120x40 the log sits beside the table and each card shows its whole text.
Refresh with ``QUACKBOX_UPDATE_SNAPSHOTS=1``.
"""

from __future__ import annotations

import pytest

from quackbox.core import quack as q
from quackbox.core.quack import RULES as QUACK
from tests.tui.fakes import RulesTable, advance, at_table, screen_text
from tests.tui.test_snapshots import check


def mid_game() -> RulesTable:
    """4 seats, seed 4, round 3: our turn to treat."""
    state = QUACK.new_game(seats=4, seed=4, options={"window_seconds": 0})
    advance(QUACK, state, until=lambda s: s.round >= 3 and s.current == 0 and s.phase == q.TREAT, seed=4)
    return RulesTable(QUACK, state)


async def test_quack_table_mid_game(app_for):
    """Quack in the Box, 4 seats, seed 4, round 3, our turn to treat."""
    session = mid_game()
    app = app_for(session)
    async with at_table(app, session, (80, 24)) as (pilot, _board):
        check("quack_table", screen_text(app))


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_quack_table_with_an_anytime_card_aimed(app_for, size):
    """The same table with the Wrong Chart picked: the prompt, the lit targets, the hand."""
    session = mid_game()
    app = app_for(session)
    async with at_table(app, session, size) as (pilot, _board):
        await pilot.press("1")
        await pilot.pause()
        check(f"quack_table_aimed_{size[0]}x{size[1]}", screen_text(app))
