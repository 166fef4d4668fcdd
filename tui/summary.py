"""The end of a game: who won, and every seat's place with the figures its game gives
(:meth:`quackbox.tui.games.GameUI.summary`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Static

from quackbox.tui.names import name_of, seat_name

if TYPE_CHECKING:
    from quackbox.core.rules import GameView, Outcome
    from quackbox.tui.games import AnyGameUI, Record


def final_outcome(view: GameView) -> Outcome:
    """How the game ``view`` shows ended: a summary is made only once it has."""
    if view.outcome is None:
        raise ValueError("a summary is made once the game is over, and this view's game goes on")
    return view.outcome


def headline(view: GameView, names: Sequence[str]) -> Text:
    outcome = final_outcome(view)
    me = view.seat
    text = Text(style="bold")
    winners = list(outcome.winners)
    if not winners:
        text.append("Nobody wins.")
    elif me in winners and len(winners) == 1:
        text.append("You win!", style="bold green")
    else:
        who = [name_of(names, w, me) for w in winners]
        if len(who) == 1:
            text.append(f"{who[0]} wins.")
        else:
            text.append(f"{', '.join(who[:-1])} and {who[-1]} share the win.")
    return text


def standings(view: GameView, names: Sequence[str], rows: Sequence[tuple[int, int, Text]]) -> Text:
    """Every seat by place: ``rows`` of (place, seat, the figures that decided it), best first."""
    me = view.seat
    winners = final_outcome(view).winners
    out = Text(no_wrap=True, overflow="ellipsis")
    for i, (place, seat, figures) in enumerate(rows):
        if i:
            out.append("\n")
        name = seat_name(names, seat)
        if seat == me:
            name += " (you)"
        out.append(f"{place:>2}. ", style="bold")
        out.append(name[:22].ljust(23), style="bold green" if seat in winners else "bold" if seat == me else "")
        out.append_text(figures)
    return out


class SummaryScreen(ModalScreen[str | None]):
    """The end-of-game summary. Dismisses with ``again``, ``lobby``, ``leave`` or None (look at the table)."""

    DEFAULT_CSS = """
    SummaryScreen { align: center middle; }
    SummaryScreen > Vertical { width: 78; max-width: 100%; height: auto; max-height: 100%;
                               border: thick $success; background: $panel; padding: 0 1; }
    SummaryScreen VerticalScroll { height: auto; max-height: 16; }
    SummaryScreen .part { margin-bottom: 1; }
    SummaryScreen Horizontal { height: auto; align-horizontal: center; }
    SummaryScreen Button { margin: 0 1; }
    """

    BINDINGS = [
        Binding("a", "choose('again')", "play again", show=False),
        Binding("b", "choose('lobby')", "lobby", show=False),
        Binding("escape", "choose('look')", "look at the table"),
        Binding("q", "choose('leave')", "leave"),
    ]

    def __init__(
        self, ui: AnyGameUI, view: GameView, names: Sequence[str], record: Record, *, can_again: bool, can_lobby: bool
    ) -> None:
        super().__init__()
        self.ui = ui
        self.view = view
        self.names = tuple(names)
        self.record = record
        self.can_again = can_again
        self.can_lobby = can_lobby

    def compose(self) -> ComposeResult:
        view = self.view
        with Vertical() as box:
            box.border_title = Text("Game over")
            with VerticalScroll():
                yield Static(headline(view, self.names), classes="part", id="headline")
                for part_id, part in self.ui.summary(view, self.names, self.record):
                    yield Static(part, classes="part", id=part_id)
            with Horizontal():
                if self.can_again:
                    yield Button("Play again", id="again", variant="success")
                if self.can_lobby:
                    yield Button("Back to the lobby", id="lobby", variant="primary")
                yield Button("Look at the table", id="look")
                yield Button("Leave", id="leave", variant="error")
        yield Footer()

    def on_mount(self) -> None:
        self.query(Button).first().focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id if event.button.id != "look" else None)

    def action_choose(self, what: str) -> None:
        if what == "again" and not self.can_again:
            return
        if what == "lobby" and not self.can_lobby:
            return
        self.dismiss(None if what == "look" else what)
