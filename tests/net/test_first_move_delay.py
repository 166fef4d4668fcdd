"""A new game against bots holds the bots for ``first_move_delay`` after the deal (issue 14, item 6)."""

from __future__ import annotations

from quackbox.net.config import TableConfig
from quackbox.net.table import Table


def test_bots_wait_after_the_deal_then_keep_their_pace():
    config = TableConfig(
        game="side-effects",
        seats=3,
        bots=3,
        headless=True,
        bot_delay=0.0,
        first_move_delay=2.5,
        autostart=True,
        seed=5,
        away_grace=None,
    )
    table = Table(config)
    table.tick(100.0)  # every seat is a bot: the game is dealt at once
    assert table.state is not None and table.seq == 0
    assert table.next_wakeup() >= 102.5
    table.tick(101.0)
    table.tick(102.4)
    assert table.seq == 0  # held
    table.tick(102.5)
    assert table.seq > 0  # and then at their own pace
