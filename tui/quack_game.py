"""Quack in the Box at the generic screens: its board, the money over the rounds,
the summary and the rules page (see :class:`quackbox.tui.games.GameUI`).

Nothing of Quack in the Box is imported until a Quack table asks for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from rich.console import RenderableType

from quackbox.core import games
from quackbox.tui import rules_text
from quackbox.tui.games import GameAction, GameUI, Table

if TYPE_CHECKING:
    from quackbox.core.quack import QuackView
    from quackbox.net.protocol import View
    from quackbox.tui.clock import Clock
    from quackbox.tui.quack_board import QuackBoard

    QuackTable = Table[QuackView, QuackBoard, "MoneyHistory"]
    """The table as Quack in the Box's actions see it."""


class MoneyHistory:
    """Every doctor's money at the start of each round, and at the end of the game."""

    def __init__(self) -> None:
        self.rounds: list[tuple[int, tuple[int, ...]]] = []
        """(round, every doctor's money), oldest first."""

    def see(self, message: View) -> None:
        view: QuackView = message.view
        money = tuple(d.money for d in view.players)
        if not self.rounds or self.rounds[-1][0] != view.round:
            self.rounds.append((view.round, money))
        elif view.outcome is not None or self.rounds[-1][1] != money:
            # Keep the latest figure of the round, so the chart ends where the game did.
            self.rounds[-1] = (view.round, money)


class QuackUI:
    """Quack in the Box's :class:`~quackbox.tui.games.GameUI`."""

    game = games.QUACK
    title = "Quack in the Box"
    actions = (
        GameAction("money", "Money chart", "Everyone's money round by round", key="m", label="money", show=False),
        GameAction("pass", "Pass", "Let the moment go by without an Anytime card"),
    )

    def board(self, *, clock: Clock, id: str) -> QuackBoard:
        from quackbox.tui.quack_board import QuackBoard

        return QuackBoard(clock=clock, id=id)

    def record(self) -> MoneyHistory:
        return MoneyHistory()

    def can(self, action: str, table: QuackTable) -> bool:
        if action == "money":
            return True
        if action == "pass":
            from quackbox.core import quack as q

            return table.view is not None and q.Pass() in table.view.legal
        return False

    def run(self, action: str, table: QuackTable) -> None:
        if action == "money" and table.view is not None:
            from quackbox.tui.quack_summary import MoneyScreen

            table.show(MoneyScreen(table.view, table.names, table.record.rounds))
        elif action == "pass":
            table.board.action_pass_window()

    def announce(self, table: QuackTable, message: View) -> None:
        """Nothing beyond the board and the log."""

    def summary(self, view: QuackView, names: Sequence[str], record: MoneyHistory) -> list[tuple[str, RenderableType]]:
        from quackbox.tui.quack_summary import money_chart, quack_figures
        from quackbox.tui.summary import final_outcome, standings

        outcome = final_outcome(view)
        rows = [(outcome.places[seat], seat, quack_figures(view, seat)) for seat in outcome.ranking]
        parts: list[tuple[str, RenderableType]] = [("standings", standings(view, names, rows))]
        if len(record.rounds) > 1:
            parts.append(("chart", money_chart(record.rounds, names, 72, view.seat)))
        return parts

    def rules(self) -> str:
        return rules_text.quack_rules()


UI: GameUI[QuackView, QuackBoard, MoneyHistory] = QuackUI()
