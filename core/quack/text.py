"""The log's sentences: :func:`describe` tells an event from one reader's side ("You ...").

Every sentence about a change of Cure, Harm, money or Infamy gives the
numbers, and money is always written by :func:`money` (the table uses it too).
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from quackbox.cards import quack as qc
from quackbox.cards.quack import Anytime, Card, Patient
from quackbox.core.quack.cards import AIMS, PATIENT, Fate
from quackbox.core.quack.moves import (
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
    LossReason,
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
from quackbox.core.rules import NONE, Event

__all__ = ["describe", "money"]


def money(amount: int) -> str:
    """An amount of money as every screen and log line writes it: ``$1,100``."""
    return f"-${-amount:,}" if amount < 0 else f"${amount:,}"


_DISCARD_WHY = {
    DiscardReason.SWITZERLAND: " while looking for an Anytime card",
    DiscardReason.FLED: ", Treatments they will never play again",
    DiscardReason.MOBBED: " as the Mob dragged them off",
    DiscardReason.SHORT_HAND: " (out of Treatments)",
    DiscardReason.SHRED: " into the shredder",
}


_PATIENT_REMINDERS = frozenset(e for e, aim in AIMS.items() if aim == PATIENT) | {qc.FACE_DOWN}
"""Reminders that wait beside a Patient rather than its doctor (Diagnostic Dilemma moves there)."""


def describe(event: Event, names: Sequence[str], reader: int | None, deck: Sequence[Card]) -> str:
    """``event`` as a plain sentence, told from ``reader``'s side; ``deck`` holds the cards by id."""

    def lookup(c: int) -> Card | None:
        return deck[c] if 0 <= c < len(deck) else None

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
        found = lookup(c)
        return found.name if found is not None else f"card {c}"

    def plural(n: int, word: str) -> str:
        return f"{n} {word}{'s' if n != 1 else ''}"

    def now(total_cure: int, total_harm: int) -> str:
        return f"(now {total_cure} Cure, {total_harm} Harm)"

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

    def anytime_played(e: AnytimePlayed) -> str:
        """An Anytime card played: on whom, and what it does or will do, with the numbers."""
        card = lookup(e.card)
        name = card.name if card is not None else f"card {e.card}"
        head = f"{who(e.seat)} played {name}"
        if not isinstance(card, Anytime):
            return f"{head} on {whom(e.seat, e.target)}."
        effect = card.effect
        on = whom(e.seat, e.target)
        theirs = whose_of(e.seat, e.target)
        if effect == qc.SHRED:
            return f"{head}."
        if effect == qc.TRANSFER:
            return f"{head} on {on} and {whom(e.seat, e.other)}: they swap Patients."
        if effect == qc.REDIRECT:
            return f"{head} on {on}: {theirs} next Treatment goes to {whose_of(e.seat, e.other)} Patient."
        if effect in (qc.CURE_POINTS, qc.HARM_POINTS, qc.RESET_HARM):
            head = f"{head} on {theirs} Patient"
            if e.cure == NONE:
                return f"{head}, face down: nobody can tell what it did."
            if effect == qc.CURE_POINTS:
                return f"{head}: +{e.cure} Cure {now(e.total_cure, e.total_harm)}."
            if effect == qc.HARM_POINTS:
                return f"{head}: +{e.harm} Harm {now(e.total_cure, e.total_harm)}."
            if not e.harm:
                return f"{head}: it had no Harm to lose."
            return f"{head}: its {-e.harm} Harm is gone {now(e.total_cure, e.total_harm)}."
        if effect in (qc.NULLIFY_TYPE, qc.BOOST_TYPE):
            does = "does nothing" if effect == qc.NULLIFY_TYPE else "counts double"
            return f"{head} on {theirs} Patient: its next {card.treatment_type} Treatment {does}."
        if effect == qc.FACE_DOWN:
            return f"{head} on {on}: {theirs} next Patient arrives face down."
        if effect in (qc.NO_PAY, qc.DOUBLE_PAY):
            does = "is cancelled" if effect == qc.NO_PAY else "is doubled"
            return f"{head} on {on}: {theirs} next pay for Treatments {does}."
        if effect in (qc.EXTRA_TREATMENT, qc.FEWER_TREATMENT):
            more = "more" if effect == qc.EXTRA_TREATMENT else "fewer"
            count = plural(card.amount, f"{more} Treatment")
            return f"{head} on {on}: {count} to play, now or after {theirs} next roll."
        # Infamy and fines: the line after this one gives the numbers.
        return f"{head} on {on}."

    kind = type(event)
    e: Any = event
    if kind is TurnStarted:
        return f"Round {e.round}: {whose(e.seat)} turn."
    if kind is DoctorFled:
        return f"{who(e.seat)} fled to Switzerland with {money(e.money)} and {e.infamy} Infamy."
    if kind is CardsDrawn:
        if e.cards:
            return f"{who(e.seat)} drew {cards(e.cards)}."
        return f"{who(e.seat)} drew {plural(e.count, 'card')}."
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
            return f"{who(e.seat)} collected the {money(e.amount)} co-pay."
        reminder = lookup(e.reminder)
        if reminder is None:
            return f"{who(e.seat)} {verb(e.seat, 'were', 'was')} paid {money(e.amount)} for {cards(e.cards)}."
        if reminder.effect == qc.NO_PAY:
            if not e.billed:
                return f"{reminder.name}: {whose(e.seat)} pay this round is cancelled, though it came to $0 anyway."
            return (f"{reminder.name}: {whose(e.seat)} pay this round is cancelled: "
                    f"{money(e.amount)} instead of {money(e.billed)}.")
        how = "doubled" if reminder.effect == qc.DOUBLE_PAY else "changed"
        if not e.billed:
            return f"{reminder.name}: {whose(e.seat)} pay this round would have been {how}, but it came to $0."
        return (f"{reminder.name}: {whose(e.seat)} pay this round is {how}: "
                f"{money(e.amount)} instead of {money(e.billed)}.")
    if kind is MoneyLost:
        if e.reason == LossReason.FINE:
            return f"{who(e.seat)} paid a {money(e.amount)} fine, leaving {money(e.total)}."
        return f"{who(e.seat)} lost {money(e.amount)} ({e.reason}), leaving {money(e.total)}."
    if kind is DieRolled:
        rerolls = f" after rerolling {', '.join(map(str, e.rolls[:-1]))}" if len(e.rolls) > 1 else ""
        owed = f"{plural(e.owed, 'Treatment')} owed"
        if e.owed != e.value:
            change = e.owed - e.value
            sign = "+" if change > 0 else "-"
            owed += f" ({e.value} {sign} {abs(change)} from the cards beside {whom(NONE, e.seat)})"
        return f"{who(e.seat)} rolled {e.value}{rerolls}: {owed}."
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
        return f"{head}: {what} {now(e.total_cure, e.total_harm)}."
    if kind is PatientCured:
        return f"{card(e.patient)} went home cured from {whose(e.seat)} office."
    if kind is PatientDied:
        patient = lookup(e.patient)
        if e.cause == Fate.MORTAL:
            why = "too many Treatments"
            if isinstance(patient, Patient):
                why += f" (Mortal {patient.mortal})"
        else:
            why = "the Harm"
            if isinstance(patient, Patient):
                why += f" (Kill {patient.kill})"
        return f"{card(e.patient)} died in {whose(e.seat)} office of {why}."
    if kind is PatientDischarged:
        return f"{card(e.patient)} left {whose(e.seat)} office unpaid and untreated."
    if kind is InfamyChanged:
        change = f"gained {e.change}" if e.change > 0 else f"lost {-e.change}"
        return f"{who(e.seat)} {change} Infamy (now {e.total})."
    if kind is AnytimePlayed:
        return anytime_played(e)
    if kind is ReminderDiscarded:
        reminder = lookup(e.card)
        beside = whom(NONE, e.seat)
        if isinstance(reminder, Anytime) and reminder.effect in _PATIENT_REMINDERS:
            beside = f"{whose(e.seat)} Patient"
        if e.reason == ReminderOutcome.FIZZLED:
            return f"The {card(e.card)} beside {beside} fizzled: its Patient is gone."
        used = isinstance(reminder, Anytime) and reminder.effect == qc.FACE_DOWN
        return f"The {card(e.card)} beside {beside} {'is used up' if used else 'takes effect'}."
    if kind is TreatmentsOwedChanged:
        return f"{who(e.seat)} now {verb(e.seat, 'owe', 'owes')} {plural(e.owed, 'Treatment')} this round."
    if kind is WindowOpened:
        return ""  # no line of the log: the table's status line shows the window while it is open
    if kind is DoctorMobbed:
        return f"The Angry Mob ran {whom(NONE, e.seat)} out of town at {e.infamy} Infamy."
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

