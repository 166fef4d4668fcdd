"""Side Effects events as plain sentences for the log.

Told from one seat's side: that seat reads "You", everyone else their name.
Cards hidden from the reader were already emptied by ``redact``, so a
sentence names a card only when the reader may know it.
"""

from __future__ import annotations

from typing import Any, Sequence

from quackbox.core.rules import NONE, Event
from quackbox.core.side_effects import moves
from quackbox.core.side_effects.cards import Punishment
from quackbox.core.side_effects.moves import DiscardReason, HandDiscardReason, Taking, TradeEnd

PUNISHMENT_TEXT = {
    Punishment.DISCARD_DRUGS: "every Drug on {their} Psyche is discarded",
    Punishment.DISCARD_HAND: "{they} {must} discard {their} whole hand",
    Punishment.SKIP_TURN: "{they} {skip} {their} next turn",
    Punishment.TREMORS: "{they} {must} discard 3 cards in time or lose {their} hand",
    Punishment.RANDOM_STEAL: "{inflictor} {take} up to 3 cards from {their} hand at random",
    Punishment.REVEAL_AND_TAKE: "{they} {show} {their} hand to {inflictor_obj}, who may take a card",
    Punishment.NO_PLAY: "{they} may not play cards on {their} next turn",
    Punishment.NO_DRAW: "{they} will not draw on {their} next turn",
}

WHY_HAND_DISCARDED = {HandDiscardReason.WON: " on leaving the game", HandDiscardReason.TREMORS: " (Tremors)"}
WHY_CARD_DISCARDED = {DiscardReason.HAND_LIMIT: " to keep six", DiscardReason.TREMORS: " (Tremors)"}


class _Who:
    """Pronouns and verb forms for one seat, as the reader sees it."""

    def __init__(self, names: Sequence[str], reader: int | None) -> None:
        self.names = names
        self.reader = reader

    def name(self, seat: int) -> str:
        if seat == self.reader:
            return "You"
        if 0 <= seat < len(self.names):
            return self.names[seat]
        return f"Seat {seat + 1}"

    def obj(self, seat: int) -> str:
        return "you" if seat == self.reader else self.name(seat)

    def poss(self, seat: int) -> str:
        return "your" if seat == self.reader else f"{self.name(seat)}'s"

    def verb(self, seat: int, you: str, other: str) -> str:
        return you if seat == self.reader else other


def _cards(rules: Any, ids: tuple[int, ...]) -> str:
    names = [rules.card_name(i) for i in ids]
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def _n(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def describe(rules: Any, event: Event, names: Sequence[str], seat: int | None = None) -> str:
    """``event`` as a sentence for ``seat``'s log; ``names`` are the players'
    names by seat, and ``rules`` names the cards (its ``card_name``)."""
    w = _Who(names, seat)
    card = rules.card_name
    e: Any = event
    kind = type(event)
    if kind is moves.GameStarted:
        return f"A game for {e.seats} begins. {w.name(e.first)} {w.verb(e.first, 'go', 'goes')} first."
    if kind is moves.TurnStarted:
        return f"Turn {e.turn}: {w.name(e.seat)} to play."
    if kind is moves.TurnSkipped:
        return f"{w.name(e.seat)} {w.verb(e.seat, 'sit', 'sits')} this turn out (Depression)."
    if kind is moves.CardsDrawn:
        if e.cards:
            return f"{w.name(e.seat)} drew {_cards(rules, e.cards)}."
        if e.count == 0:
            return f"{w.name(e.seat)} had nothing left to draw."
        return f"{w.name(e.seat)} drew {_n(e.count, 'card')}."
    if kind is moves.DeckReshuffled:
        return f"The discard pile was shuffled into a new draw pile of {e.count}."
    if kind is moves.DrawPrevented:
        return f"{w.name(e.seat)} {w.verb(e.seat, 'draw', 'draws')} nothing this turn (Anorexia)."
    if kind is moves.PlaysPrevented:
        return f"{w.name(e.seat)} may play no cards this turn (Impotence)."
    if kind is moves.DisorderTreated:
        whose = "" if e.target == e.seat else f" on {w.poss(e.target)} Psyche"
        return f"{w.name(e.seat)} treated {card(e.disorder)} with {card(e.drug)}{whose}."
    if kind is moves.DisorderGiven:
        return f"{w.name(e.seat)} gave {w.obj(e.target)} {card(e.card)}."
    if kind is moves.TherapyUsed:
        return f"{w.name(e.seat)} used Therapy to remove {card(e.disorder)}."
    if kind is moves.EpisodePlayed:
        text = PUNISHMENT_TEXT.get(e.punishment, e.punishment)
        they = w.name(e.target)
        line = text.format(
            they=they,
            their="your" if e.target == seat else "their",
            must=w.verb(e.target, "must", "must"),
            skip=w.verb(e.target, "skip", "skips"),
            show=w.verb(e.target, "show", "shows"),
            take=w.verb(e.seat, "take", "takes"),
            inflictor=w.name(e.seat),
            inflictor_obj=w.obj(e.seat),
        )
        line = line[0].upper() + line[1:]
        nothing = "" if e.effective else " It does nothing."
        return f"{w.name(e.seat)} played an Episode on {w.poss(e.target)} {card(e.disorder)}: {line}.{nothing}"
    if kind is moves.DrugsDiscarded:
        return f"{w.name(e.seat)} lost {_cards(rules, e.cards)} from {w.verb(e.seat, 'your', 'their')} Psyche."
    if kind is moves.HandDiscarded:
        why = WHY_HAND_DISCARDED.get(e.reason, "")
        return f"{w.name(e.seat)} discarded {w.verb(e.seat, 'your', 'their')} whole hand{why}: {_cards(rules, e.cards)}."
    if kind is moves.SkipAdded:
        return f"{w.name(e.seat)} will sit out {_n(e.skips, 'turn')}."
    if kind is moves.PlaysBlocked:
        return f"{w.name(e.seat)} may not play cards next turn."
    if kind is moves.DrawBlocked:
        return f"{w.name(e.seat)} will not draw next turn."
    if kind is moves.TremorsStarted:
        timed = f" within {e.seconds:g} seconds" if e.seconds else ""
        return f"Tremors! {w.name(e.seat)} must discard {e.count} cards{timed}."
    if kind is moves.CardDiscarded:
        why = WHY_CARD_DISCARDED.get(e.reason, "")
        return f"{w.name(e.seat)} discarded {card(e.card)}{why}."
    if kind is moves.CardsTaken:
        what = _cards(rules, e.cards) if e.cards else _n(e.count, "card")
        how = " at random" if e.how == Taking.RANDOM else ""
        return f"{w.name(e.seat)} took {what} from {w.poss(e.target)} hand{how}."
    if kind is moves.HandShown:
        if e.cards:
            return f"{w.poss(e.target).capitalize()} hand: {_cards(rules, e.cards)}."
        if e.count == 0:
            return f"{w.name(e.target)} had no cards to show."
        return f"{w.name(e.target)} showed {w.verb(e.target, 'your', 'their')} hand to {w.obj(e.seat)}."
    if kind is moves.MisdiagnosisPlayed:
        return (
            f"Misdiagnosis! {w.name(e.seat)} swapped {card(e.mine)} for {w.poss(e.target)} {card(e.theirs)}."
        )
    if kind is moves.HighTolerancePlayed:
        return f"High Tolerance: {w.poss(e.target)} {card(e.drug)} was discarded."
    if kind is moves.TradeOffered:
        if e.give or e.want:
            give = _cards(rules, e.give) or "nothing"
            want = ", ".join(e.want) or "nothing"
            return f"{w.name(e.seat)} offered {w.obj(e.to)} {give} for {want} (offer {e.offer})."
        return f"{w.name(e.seat)} made {w.obj(e.to)} a trade offer."
    if kind is moves.TradeAccepted:
        if e.gave or e.got:
            gave = _cards(rules, e.gave) or "nothing"
            got = _cards(rules, e.got) or "nothing"
            return f"{w.name(e.to)} accepted: {gave} for {got}."
        return f"{w.name(e.seat)} and {w.name(e.to)} traded {_n(e.count, 'card')}."
    if kind is moves.TradeClosed:
        if e.how == TradeEnd.DECLINED:
            return f"{w.name(e.to)} declined {w.poss(e.seat)} offer."
        if e.how == TradeEnd.WITHDRAWN:
            return f"{w.name(e.seat)} withdrew an offer to {w.obj(e.to)}."
        return f"An offer from {w.name(e.seat)} to {w.obj(e.to)} lapsed: a hand changed."
    if kind is moves.TurnEnded:
        return f"{w.name(e.seat)} ended the turn."
    if kind is moves.PlayerWon:
        if e.place == 1:
            return f"{w.name(e.seat)} treated every Disorder and {w.verb(e.seat, 'win', 'wins')}!"
        return f"{w.name(e.seat)} recovered in place {e.place}."
    if kind is moves.GameEnded:
        if e.loser != NONE:
            return f"The game is over. {w.name(e.loser)} {w.verb(e.loser, 'are', 'is')} the last one left."
        return "The game is over."
    return type(event).__name__
