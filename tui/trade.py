"""Side Effects bargaining (SE10): make an offer. Dismisses with the OfferTrade, or None."""

from __future__ import annotations

from typing import Sequence, TypeVar

from rich.segment import Segment
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.strip import Strip
from textual.widgets import Button, Checkbox, Footer, Label, Select, SelectionList, Static
from textual.widgets.option_list import OptionDoesNotExist
from textual.widgets.selection_list import Selection

from quackbox.core import side_effects as se
from quackbox.tui import se_text
from quackbox.tui.names import seat_name


def wanted_names(view: se.SEView) -> list[str]:
    """Every card name of the deck in play, in deck order (bonus cards only with the option)."""
    names: list[str] = []
    for card in se.RULES.deck.kinds:
        if card.bonus and not view.options.bonus_cards:
            continue
        if card.name not in names:
            names.append(card.name)
    return names


ValueT = TypeVar("ValueT")


class TickList(SelectionList[ValueT]):
    """A SelectionList whose box is empty until ticked: ticked or not shows in the mark
    itself, not only in its colour (so it shows with NO_COLOR, or on a terminal without colours)."""

    def render_line(self, y: int) -> Strip:
        line = super().render_line(y)
        try:
            selection = self.get_option_at_index(self.scroll_offset.y + y)
        except OptionDoesNotExist:
            return line
        if selection.value in self.selected:
            return line
        segments = list(line)
        # The box is drawn as its left side, its mark and its right side.
        if len(segments) > 1 and segments[1].text == Checkbox.BUTTON_INNER:
            segments[1] = Segment(" " * len(Checkbox.BUTTON_INNER), segments[1].style, segments[1].control)
        return Strip(segments, line.cell_length)


class TradeScreen(ModalScreen[se.OfferTrade | None]):
    """Pick a player, the cards you give and the cards you want."""

    DEFAULT_CSS = """
    TradeScreen { align: center middle; }
    TradeScreen > Vertical { width: 80; max-width: 100%; height: auto; max-height: 100%;
                             border: thick $accent; background: $panel; padding: 0 1; }
    TradeScreen #to-row { height: 3; }
    TradeScreen #to-row Label { padding: 1 1 0 0; }
    TradeScreen #to { width: 1fr; }
    TradeScreen #lists { height: auto; max-height: 13; }
    TradeScreen SelectionList { width: 1fr; height: auto; max-height: 13; }
    TradeScreen #summary { height: auto; padding: 0 0 0 1; color: $text-muted; }
    TradeScreen #buttons { height: 3; align-horizontal: right; }
    TradeScreen Button { margin-left: 2; }
    """

    BINDINGS = [Binding("escape", "cancel", "cancel"), Binding("ctrl+s", "offer", "offer")]

    def __init__(self, view: se.SEView, names: Sequence[str]) -> None:
        super().__init__()
        self.view = view
        self.names = tuple(names)

    def seat_name(self, seat: int) -> str:
        return seat_name(self.names, seat)

    def compose(self) -> ComposeResult:
        view = self.view
        others = [(Text(self.seat_name(seat)), seat) for seat in view.trade_partners]
        give = [Selection(Text(f"{c.name}  ({se_text.card_blurb(c)})"), c.id) for c in view.hand]
        want = [Selection(Text(name), name) for name in wanted_names(view)]
        with Vertical() as box:
            box.border_title = Text("Offer a trade (Space ticks a card, Tab moves on)")
            with Horizontal(id="to-row"):
                yield Label("To")
                if others:
                    yield Select(others, id="to", allow_blank=False, value=others[0][1])
                else:
                    yield Select([], id="to", allow_blank=True, prompt="nobody left to trade with")
            with Horizontal(id="lists"):
                yield TickList(*give, id="give")
                yield TickList(*want, id="want")
            yield Static("", id="summary")
            with Horizontal(id="buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Offer", id="offer", variant="primary")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#give", SelectionList).border_title = Text("You give")
        self.query_one("#want", SelectionList).border_title = Text("You want")
        self.query_one("#to", Select).focus()
        self._update_summary()

    @on(SelectionList.SelectedChanged)
    @on(Select.Changed)
    def _changed(self) -> None:
        self._update_summary()

    def _update_summary(self) -> None:
        give = self.query_one("#give", SelectionList).selected
        want = self.query_one("#want", SelectionList).selected
        cards = {c.id: c.name for c in self.view.hand}
        to = self.query_one("#to", Select).value
        who = self.seat_name(to) if isinstance(to, int) else "nobody"
        text = Text()
        text.append(f"Offer {who}: ")
        text.append(", ".join(cards[c] for c in give) or "nothing")
        text.append(" for ")
        text.append(", ".join(want) or "nothing")
        if not give and not want:
            text.append("  (tick at least one card)", style="italic")
        self.query_one("#summary", Static).update(text)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "offer":
            self.action_offer()
        else:
            self.dismiss(None)

    def action_offer(self) -> None:
        to = self.query_one("#to", Select).value
        give = tuple(self.query_one("#give", SelectionList).selected)
        want = tuple(self.query_one("#want", SelectionList).selected)
        # Said in the form itself: a notice would go to the table's log, behind the form.
        if not isinstance(to, int):
            self._say("Choose who the offer is for.")
            return
        if not give and not want:
            self._say("Tick at least one card to give or to ask for.")
            return
        self.dismiss(se.OfferTrade(to=to, give=give, want=want))

    def _say(self, why: str) -> None:
        self.query_one("#summary", Static).update(Text(why, style="bold yellow"))

    def action_cancel(self) -> None:
        self.dismiss(None)
