"""Side Effects at the generic screens: its board, trading (SE10), the game's
figures for the summary, and the rules page (see :class:`quackbox.tui.games.GameUI`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Sequence

from rich.console import RenderableType
from rich.text import Text

from quackbox.core import side_effects as se
from quackbox.core.rules import Move
from quackbox.tui import rules_text
from quackbox.tui.games import GameAction, GameUI, Table
from quackbox.tui.modals import ChoiceScreen
from quackbox.tui.names import seat_name
from quackbox.tui.se_text import cannot_accept, describe_move, offer_text
from quackbox.tui.summary import final_outcome

if TYPE_CHECKING:
    from quackbox.net.protocol import View
    from quackbox.tui.clock import Clock
    from quackbox.tui.se_board import SEBoard

    SETable = Table[se.SEView, SEBoard, "SERecord"]
    """The table as Side Effects' actions see it."""


@dataclass
class SERecord:
    """What the summary tells of a game: turns, and each seat's Disorders and Episodes.

    Counted from the events this table was sent (all of these are public),
    so a table that joined late counts from when it joined.
    """

    turns: int = 0
    treated: dict[int, int] = field(default_factory=dict)
    """Disorders each seat treated with a Drug."""
    received: dict[int, int] = field(default_factory=dict)
    """Disorders each seat was given."""
    played: dict[int, int] = field(default_factory=dict)
    """Episodes each seat played."""
    suffered: dict[int, int] = field(default_factory=dict)
    """Episodes played on each seat."""

    def see(self, message: View) -> None:
        view: se.SEView = message.view
        self.turns = max(self.turns, view.turn)
        for event in message.events:
            if type(event) is se.DisorderTreated:
                _add(self.treated, event.seat)
            elif type(event) is se.DisorderGiven:
                _add(self.received, event.target)
            elif type(event) is se.EpisodePlayed:
                _add(self.played, event.seat)
                _add(self.suffered, event.target)


def _add(counts: dict[int, int], seat: int) -> None:
    counts[seat] = counts.get(seat, 0) + 1


def untreated(player: se.PlayerView) -> int:
    return sum(1 for slot in player.psyche if slot.drug is None)


def ranked(view: se.SEView) -> list[tuple[int, int]]:
    """Every seat as (place, seat), best first.

    The rules place the winners (with "until one loser", in the order they
    went out) and put everyone else level behind them; the summary orders
    those by how close they came: fewest untreated Disorders, then most
    treated. Seats level on both share a place.
    """
    places = final_outcome(view).places

    def key(seat: int) -> tuple[int, int, int]:
        player = view.players[seat]
        return places[seat], untreated(player), -(len(player.psyche) - untreated(player))

    order = sorted(range(len(view.players)), key=lambda s: (key(s), s))
    out: list[tuple[int, int]] = []
    for i, seat in enumerate(order):
        place = out[-1][0] if i and key(order[i - 1]) == key(seat) else i + 1
        out.append((place, seat))
    return out


def progress(view: se.SEView, seat: int) -> Text:
    """How far a player got: their Psyche at the end, the label before the figure as in
    the figures beneath ("Disorders treated 1/3")."""
    player = view.players[seat]
    if not player.psyche:
        return Text("Psyche emptied")
    return Text(f"Disorders treated {len(player.psyche) - untreated(player)}/{len(player.psyche)}")


def figures_table(view: se.SEView, names: Sequence[str], record: SERecord) -> Text:
    """What each seat did over the game, as columns: Drugs played (a Disorder treated, which a
    later Madness may undo, so not the standings' figure), Disorders received, Episodes
    played and suffered; seats named as the standings name them."""
    out = Text(no_wrap=True, overflow="ellipsis")
    out.append(
        f"{f'Over {record.turns} turns':<24}{'Drugs':>8}{'Disorders':>11}  {'Episodes':>8}{'Episodes':>10}\n",
        style="bold",
    )
    out.append(f"{'':<24}{'played':>8}{'received':>11}  {'played':>8}{'suffered':>10}", style="dim")
    for _place, seat in ranked(view):
        name = seat_name(names, seat)[:22] + (" (you)" if seat == view.seat else "")
        out.append("\n")
        out.append(f"{name[:23]:<24}")
        out.append(
            f"{record.treated.get(seat, 0):>8}{record.received.get(seat, 0):>11}  "
            f"{record.played.get(seat, 0):>8}{record.suffered.get(seat, 0):>10}"
        )
    return out


class SideEffectsUI:
    """Side Effects' :class:`~quackbox.tui.games.GameUI`."""

    game = se.GAME
    title = "Side Effects"
    actions = (
        GameAction("trade", "Offer a trade", "Cards from your hand for cards from theirs", key="t", label="trade"),
        GameAction("offers", "Answer trade offers", "Accept, decline or withdraw", key="o", label="offers", show=False),
        GameAction("end_turn", "End turn", "End your turn now"),
    )

    def board(self, *, clock: Clock, id: str) -> SEBoard:
        from quackbox.tui.se_board import SEBoard

        return SEBoard(clock=clock, id=id)

    def record(self) -> SERecord:
        return SERecord()

    def can(self, action: str, table: SETable) -> bool:
        view = table.view
        if view is None:
            return False
        if action == "trade":
            return bool(view.trade_partners)
        if action == "offers":
            return bool(view.offers)
        if action == "end_turn":
            return se.EndTurn() in view.legal
        return False

    def run(self, action: str, table: SETable) -> None:
        if action == "trade":
            self._trade(table)
        elif action == "offers":
            self._offers(table)
        elif action == "end_turn":
            table.board.action_end_turn()

    def _trade(self, table: SETable) -> None:
        if table.view is None or not self.can("trade", table):
            table.tell("Trading waits until the game is back to ordinary play.", severity="warning")
            return
        from quackbox.tui.trade import TradeScreen

        def made(move: se.OfferTrade | None) -> None:
            if move is not None:
                table.send(move)

        table.show(TradeScreen(table.view, table.names), made)

    def _offers(self, table: SETable) -> None:
        view, names = table.view, table.names
        if view is None:  # not yet dealt: the action does not apply (``can``)
            return
        answers = [m for m in view.legal if isinstance(m, se.TRADE_ANSWERS)]
        if not answers:
            if view.offers:
                lines = "; ".join(offer_text(view, o, names) for o in view.offers)
                table.tell(f"Open offers: {lines}. They can be answered during ordinary play.")
            else:
                table.tell("No open trade offers.")
            return
        labels: list[Text] = []
        moves: list[Move | None] = []
        for offer in view.offers:
            mine = [m for m in answers if m.offer == offer.id]
            if offer.to == view.seat and mine and se.AcceptTrade(offer.id) not in mine:
                # The rules list no Accept: say why where the Accept would be.
                labels.append(
                    Text(
                        f"Cannot accept {offer_text(view, offer, names)}: {cannot_accept(view, offer)}.", style="italic"
                    )
                )
                moves.append(None)
            for move in mine:
                labels.append(Text(describe_move(view, move, names)))
                moves.append(move)

        def chosen(index: int | None) -> None:
            move = moves[index] if index is not None else None
            if move is not None:
                table.send(move)

        notes = [i for i, m in enumerate(moves) if m is None]
        table.show(ChoiceScreen(Text("Trade offers"), labels, notes=notes), chosen)

    def announce(self, table: SETable, message: View) -> None:
        view: se.SEView = message.view
        if view.seat is None:
            return
        seen = table.announced
        open_now = {offer.id for offer in view.offers}
        for offer_id in seen - open_now:
            # Answered, withdrawn or lapsed: its notice would go on asking to answer it.
            table.untell(f"offer {offer_id}")
        for offer in view.offers:
            if offer.id not in seen and offer.to == view.seat:
                text = offer_text(view, offer, table.names, opening=True)
                if se.AcceptTrade(offer.id) not in view.legal and se.DeclineTrade(offer.id) in view.legal:
                    text += f" ({cannot_accept(view, offer)})"
                # It matters: held below the log until it is answered, not until the next key.
                table.tell(text + ". Press o to answer.", title="Trade offer", until=f"offer {offer.id}")
            seen.add(offer.id)
        seen &= open_now

    def summary(self, view: se.SEView, names: Sequence[str], record: SERecord) -> list[tuple[str, RenderableType]]:
        from quackbox.tui.summary import standings

        rows = [(place, seat, progress(view, seat)) for place, seat in ranked(view)]
        return [("standings", standings(view, names, rows)), ("figures", figures_table(view, names, record))]

    def rules(self) -> str:
        return rules_text.side_effects_rules()


UI: GameUI[se.SEView, SEBoard, SERecord] = SideEffectsUI()
