"""Side Effects events as plain sentences for the log.

Told from one seat's side: that seat reads "You", everyone else their name.
Cards hidden from the reader were already emptied by ``redact``, so a
sentence names a card only when the reader may know it.
"""

from __future__ import annotations

from typing import Any, Sequence

from core import side_effects as se
from core.rules import Event

PUNISHMENT_TEXT = {
    "discard_drugs": "every Drug on {their} Psyche is discarded",
    "discard_hand": "{they} {must} discard {their} whole hand",
    "skip_turn": "{they} {skip} {their} next turn",
    "tremors": "{they} {must} discard 3 cards in time or lose {their} hand",
    "random_steal": "{inflictor} {take} up to 3 cards from {their} hand at random",
    "reveal_and_take": "{they} {show} {their} hand to {inflictor_obj}, who may take a card",
    "no_play": "{they} may not play cards on {their} next turn",
    "no_draw": "{they} will not draw on {their} next turn",
}


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
    names = [rules.deck_name(i) for i in ids]
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def _n(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def describe(rules: Any, event: Event, names: Sequence[str], seat: int | None = None) -> str:
    w = _Who(names, seat)
    card = rules.deck_name
    e: Any = event
    kind = type(event)
    if kind is se.GameStarted:
        return f"A game for {e.seats} begins. {w.name(e.first)} {w.verb(e.first, 'go', 'goes')} first."
    if kind is se.TurnStarted:
        return f"Turn {e.turn}: {w.name(e.seat)} to play."
    if kind is se.TurnSkipped:
        return f"{w.name(e.seat)} {w.verb(e.seat, 'sit', 'sits')} this turn out (Depression)."
    if kind is se.CardsDrawn:
        if e.cards:
            return f"{w.name(e.seat)} drew {_cards(rules, e.cards)}."
        if e.count == 0:
            return f"{w.name(e.seat)} had nothing left to draw."
        return f"{w.name(e.seat)} drew {_n(e.count, 'card')}."
    if kind is se.DeckReshuffled:
        return f"The discard pile was shuffled into a new draw pile of {e.count}."
    if kind is se.DrawPrevented:
        return f"{w.name(e.seat)} {w.verb(e.seat, 'draw', 'draws')} nothing this turn (Anorexia)."
    if kind is se.PlaysPrevented:
        return f"{w.name(e.seat)} may play no cards this turn (Impotence)."
    if kind is se.DisorderTreated:
        whose = "" if e.target == e.seat else f" on {w.poss(e.target)} Psyche"
        return f"{w.name(e.seat)} treated {card(e.disorder)} with {card(e.drug)}{whose}."
    if kind is se.DisorderGiven:
        return f"{w.name(e.seat)} gave {w.obj(e.target)} {card(e.card)}."
    if kind is se.TherapyUsed:
        return f"{w.name(e.seat)} used Therapy to remove {card(e.disorder)}."
    if kind is se.EpisodePlayed:
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
    if kind is se.DrugsDiscarded:
        return f"{w.name(e.seat)} lost {_cards(rules, e.cards)} from {w.verb(e.seat, 'your', 'their')} Psyche."
    if kind is se.HandDiscarded:
        why = {"won": " on leaving the game", "tremors": " (Tremors)", "suicidal_thoughts": ""}.get(e.reason, "")
        return f"{w.name(e.seat)} discarded {w.verb(e.seat, 'your', 'their')} whole hand{why}: {_cards(rules, e.cards)}."
    if kind is se.SkipAdded:
        return f"{w.name(e.seat)} will sit out {_n(e.skips, 'turn')}."
    if kind is se.PlaysBlocked:
        return f"{w.name(e.seat)} may not play cards next turn."
    if kind is se.DrawBlocked:
        return f"{w.name(e.seat)} will not draw next turn."
    if kind is se.TremorsStarted:
        timed = f" within {e.seconds:g} seconds" if e.seconds else ""
        return f"Tremors! {w.name(e.seat)} must discard {e.count} cards{timed}."
    if kind is se.CardDiscarded:
        why = {"hand_limit": " to keep six", "tremors": " (Tremors)"}.get(e.reason, "")
        return f"{w.name(e.seat)} discarded {card(e.card)}{why}."
    if kind is se.CardsTaken:
        what = _cards(rules, e.cards) if e.cards else _n(e.count, "card")
        how = " at random" if e.how == "random" else ""
        return f"{w.name(e.seat)} took {what} from {w.poss(e.target)} hand{how}."
    if kind is se.HandShown:
        if e.cards:
            return f"{w.poss(e.target).capitalize()} hand: {_cards(rules, e.cards)}."
        if e.count == 0:
            return f"{w.name(e.target)} had no cards to show."
        return f"{w.name(e.target)} showed {w.verb(e.target, 'your', 'their')} hand to {w.obj(e.seat)}."
    if kind is se.MisdiagnosisPlayed:
        return (
            f"Misdiagnosis! {w.name(e.seat)} swapped {card(e.mine)} for {w.poss(e.target)} {card(e.theirs)}."
        )
    if kind is se.HighTolerancePlayed:
        return f"High Tolerance: {w.poss(e.target)} {card(e.drug)} was discarded."
    if kind is se.TradeOffered:
        if e.give or e.want:
            give = _cards(rules, e.give) or "nothing"
            want = ", ".join(e.want) or "nothing"
            return f"{w.name(e.seat)} offered {w.obj(e.to)} {give} for {want} (offer {e.offer})."
        return f"{w.name(e.seat)} made {w.obj(e.to)} a trade offer."
    if kind is se.TradeAccepted:
        if e.gave or e.got:
            gave = _cards(rules, e.gave) or "nothing"
            got = _cards(rules, e.got) or "nothing"
            return f"{w.name(e.to)} accepted: {gave} for {got}."
        return f"{w.name(e.seat)} and {w.name(e.to)} traded {_n(e.count, 'card')}."
    if kind is se.TradeClosed:
        if e.how == "declined":
            return f"{w.name(e.to)} declined {w.poss(e.seat)} offer."
        if e.how == "withdrawn":
            return f"{w.name(e.seat)} withdrew an offer to {w.obj(e.to)}."
        return f"An offer from {w.name(e.seat)} to {w.obj(e.to)} lapsed: a hand changed."
    if kind is se.TurnEnded:
        return f"{w.name(e.seat)} ended the turn."
    if kind is se.PlayerWon:
        if e.place == 1:
            return f"{w.name(e.seat)} treated every Disorder and {w.verb(e.seat, 'win', 'wins')}!"
        return f"{w.name(e.seat)} recovered in place {e.place}."
    if kind is se.GameEnded:
        if e.loser >= 0:
            return f"The game is over. {w.name(e.loser)} {w.verb(e.loser, 'are', 'is')} the last one left."
        return "The game is over."
    return type(event).__name__
