"""The log's sentences: :func:`describe` tells an event from one reader's side ("You ...")."""

from __future__ import annotations

from typing import Any, Callable, Iterable, Sequence

from core.quack.cards import Fate
from core.quack.moves import (
    AnytimePlayed,
    CardsDiscarded,
    CardsDrawn,
    DeckReshuffled,
    DieRolled,
    DiscardReason,
    DoctorFled,
    DoctorMobbed,
    EndgameStarted,
    GameEnded,
    InfamyChanged,
    MoneyLost,
    MoneyPaid,
    PatientAdmitted,
    PatientCured,
    PatientDied,
    PatientDischarged,
    PatientRevealed,
    PayReason,
    Pile,
    ReminderDiscarded,
    ReminderOutcome,
    TreatmentNote,
    TreatmentPlayed,
    TreatmentsOwedChanged,
    TurnStarted,
    WindowOpened,
)
from core.rules import NONE, Event

__all__ = ["describe"]

_DISCARD_WHY = {
    DiscardReason.SWITZERLAND: " while looking for an Anytime card",
    DiscardReason.FLED: ", Treatments they will never play again",
    DiscardReason.MOBBED: " as the Mob dragged them off",
    DiscardReason.SHORT_HAND: " (out of Treatments)",
    DiscardReason.SHRED: " into the shredder",
}


def describe(event: Event, names: Sequence[str], reader: int | None, card_name: Callable[[int], str]) -> str:
    """``event`` as a plain sentence, told from ``reader``'s side; ``card_name`` names a card id."""

    def who(seat: int) -> str:
        if seat == reader:
            return "You"
        if 0 <= seat < len(names):
            return names[seat]
        return f"Seat {seat + 1}"

    def whose(seat: int) -> str:
        return "your" if seat == reader else f"{who(seat)}'s"

    def cap(text: str) -> str:
        return text[:1].upper() + text[1:]

    def card(c: int) -> str:
        return card_name(c)

    def cards(cs: Iterable[int]) -> str:
        return ", ".join(card(c) for c in cs)

    def verb(seat: int, you: str, other: str) -> str:
        return you if seat == reader else other

    def whom(actor: int, seat: int) -> str:
        """``seat`` as the object of ``actor``'s action."""
        if seat == actor:
            return "yourself" if seat == reader else "themselves"
        return "you" if seat == reader else who(seat)

    def whose_of(actor: int, seat: int) -> str:
        if seat == actor:
            return "your" if seat == reader else "their"
        return whose(seat)

    def listed(seats: Sequence[int], start: bool = True) -> str:
        words = [who(s) if i == 0 and start else whom(NONE, s) for i, s in enumerate(seats)]
        return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]

    kind = type(event)
    e: Any = event
    if kind is TurnStarted:
        return f"Round {e.round}: {whose(e.seat)} turn."
    if kind is DoctorFled:
        return f"{who(e.seat)} fled to Switzerland with ${e.money} and {e.infamy} Infamy."
    if kind is CardsDrawn:
        if e.cards:
            return f"{who(e.seat)} drew {cards(e.cards)}."
        return f"{who(e.seat)} drew {e.count} card{'s' if e.count != 1 else ''}."
    if kind is CardsDiscarded:
        return f"{who(e.seat)} discarded {cards(e.cards)}{_DISCARD_WHY.get(e.reason, '')}."
    if kind is DeckReshuffled:
        pile = "Patient" if e.pile == Pile.PATIENT else "Doc"
        return f"The {pile} discard pile was shuffled into a new deck of {e.count}."
    if kind is PatientAdmitted:
        if e.face_down or e.patient == NONE:
            return f"{who(e.seat)} admitted a Patient face down (Diagnostic Dilemma)."
        return f"{who(e.seat)} admitted {card(e.patient)}."
    if kind is PatientRevealed:
        return f"{cap(whose(e.seat))} face-down Patient is revealed: {card(e.patient)}."
    if kind is MoneyPaid:
        if e.reason == PayReason.CO_PAY:
            return f"{who(e.seat)} collected the ${e.amount} co-pay."
        return f"{who(e.seat)} {verb(e.seat, 'were', 'was')} paid ${e.amount} for {cards(e.cards)}."
    if kind is MoneyLost:
        return f"{who(e.seat)} lost ${e.amount} ({e.reason})."
    if kind is DieRolled:
        rerolls = f" after rerolling {', '.join(map(str, e.rolls[:-1]))}" if len(e.rolls) > 1 else ""
        return f"{who(e.seat)} rolled {e.value}{rerolls}: {e.owed} Treatment{'s' if e.owed != 1 else ''} owed."
    if kind is TreatmentPlayed:
        where = f"{whose_of(e.seat, e.target)} Patient"
        head = f"{who(e.seat)} played {card(e.card)} on {where}"
        if e.redirected:
            head += " (Wrong Chart)"
        if e.note == TreatmentNote.NULLIFIED:
            return f"{head}: it did nothing at all."
        if e.cure == NONE:
            return f"{head}, face down: nobody can tell what it did."
        effect = []
        if e.cure:
            effect.append(f"+{e.cure} Cure")
        if e.harm:
            effect.append(f"+{e.harm} Harm")
        what = ", ".join(effect) if effect else "no effect"
        if e.note == TreatmentNote.DOUBLED:
            what += ", doubled"
        return f"{head}: {what} (now {e.total_cure} Cure, {e.total_harm} Harm)."
    if kind is PatientCured:
        return f"{card(e.patient)} went home cured from {whose(e.seat)} office."
    if kind is PatientDied:
        why = "too many Treatments (Mortal)" if e.cause == Fate.MORTAL else "the Harm"
        return f"{card(e.patient)} died in {whose(e.seat)} office of {why}."
    if kind is PatientDischarged:
        return f"{card(e.patient)} left {whose(e.seat)} office unpaid and untreated."
    if kind is InfamyChanged:
        change = f"gained {e.change}" if e.change > 0 else f"lost {-e.change}"
        return f"{who(e.seat)} {change} Infamy (now {e.total})."
    if kind is AnytimePlayed:
        name = card(e.card)
        if e.discard != NONE:
            return f"{who(e.seat)} played {name}."
        if e.other != NONE:
            return f"{who(e.seat)} played {name} on {whom(e.seat, e.target)} and {whom(e.seat, e.other)}."
        return f"{who(e.seat)} played {name} on {whom(e.seat, e.target)}."
    if kind is ReminderDiscarded:
        how = "did its work" if e.reason == ReminderOutcome.USED else "fizzled"
        return f"The {card(e.card)} beside {who(e.seat) if e.seat != reader else 'you'} {how}."
    if kind is TreatmentsOwedChanged:
        plural = "s" if e.owed != 1 else ""
        return f"{who(e.seat)} now {verb(e.seat, 'owe', 'owes')} {e.owed} Treatment{plural} this round."
    if kind is WindowOpened:
        return f"{listed(e.seats)} may play an Anytime card now."
    if kind is DoctorMobbed:
        return f"The Angry Mob ran {who(e.seat) if e.seat != reader else 'you'} out of town at {e.infamy} Infamy."
    if kind is EndgameStarted:
        if not e.seats:
            return f"The endgame: {e.reason}; the game ends with this turn."
        return f"The endgame: {e.reason}; {listed(e.seats, start=False)} each take one more turn."
    if kind is GameEnded:
        if not e.winners:
            return f"Game over after {e.round} rounds: the Mob got everyone, nobody wins."
        wins = verb(e.winners[0], "win", "wins") if len(e.winners) == 1 else "win"
        return f"Game over after {e.round} rounds: {listed(e.winners)} {wins}."
    return repr(event)
