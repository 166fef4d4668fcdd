"""Quack in the Box's parts of the end-of-game summary, and its money chart on demand."""

from __future__ import annotations

from typing import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from quackbox.core import quack as q
from quackbox.tui import quack_text as qt
from quackbox.tui.names import seat_name

LEVELS = " ▁▂▃▄▅▆▇█"


def money_chart(
    history: Sequence[tuple[int, tuple[int, ...]]], names: Sequence[str], width: int, me: int | None = None
) -> Text:
    """Each doctor's money round by round as a bar line, all on one scale."""
    out = Text(no_wrap=True, overflow="ellipsis")
    if not history:
        out.append("No rounds played yet.", style="dim")
        return out
    seats = len(history[-1][1])
    top = max((m for _r, row in history for m in row), default=0) or 1
    name_w = min(14, max((len(n) for n in names), default=6) + 1)
    cells = max(4, width - name_w - 12)
    points = history[-cells:]
    out.append(
        " " * name_w + f"rounds {points[0][0]}-{points[-1][0]}, each ▇ column one round, top {qt.money(top)}",
        style="dim",
    )
    for seat in range(seats):
        out.append("\n")
        name = seat_name(names, seat)
        if seat == me:
            name = "You"
        out.append(name[: name_w - 1].ljust(name_w), style="bold" if seat == me else "")
        line = "".join(_level(row[seat], top) for _r, row in points)
        out.append(line.ljust(cells), style="green" if seat == me else "cyan")
        out.append(f" {qt.money(history[-1][1][seat]):>9}")
    return out


def _level(amount: int, top: int) -> str:
    """One column of the chart: ``·`` for no money, and any money at all shows
    (the first rounds' co-pays are tiny beside the final sums, yet not nothing)."""
    if amount <= 0:
        return "·"
    return LEVELS[max(1, min(8, round(8 * amount / top)))]


def quack_figures(view: q.QuackView, seat: int) -> Text:
    """A doctor's money and Infamy, and how they left the game."""
    out = Text()
    doctor = view.players[seat]
    out.append(f"{qt.money(doctor.money):>9}  Infamy {doctor.infamy}")
    if doctor.status != q.PRACTISING:
        out.append(
            "  " + ("in Switzerland" if doctor.status == q.SWITZERLAND else "mobbed"),
            style="cyan" if doctor.status == q.SWITZERLAND else "red",
        )
    return out


class MoneyScreen(ModalScreen[None]):
    """Quack: the money chart so far, on demand."""

    DEFAULT_CSS = """
    MoneyScreen { align: center middle; }
    MoneyScreen > Vertical { width: 78; max-width: 100%; height: auto; border: thick $accent;
                             background: $panel; padding: 0 1; }
    """

    BINDINGS = [Binding("escape,m,q", "close", "close")]

    def __init__(self, view: q.QuackView, names: Sequence[str], history: Sequence[tuple[int, tuple[int, ...]]]) -> None:
        super().__init__()
        self.view = view
        self.names = tuple(names)
        self.history = list(history)

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = Text("Money over the rounds")
            yield Static(money_chart(self.history, self.names, 72, self.view.seat))
        yield Footer()

    def action_close(self) -> None:
        self.dismiss(None)
