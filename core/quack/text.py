"""The log's sentences, one small function per event, told from one reader's
side ("You ...": :class:`quackbox.core.text.Teller`).

Every sentence about a change of Cure, Harm, money or Infamy gives the
numbers, and money is always written by :func:`money` (the table uses it too).
"""

from __future__ import annotations

from typing import Iterable, Sequence

from quackbox.cards import quack as qc
from quackbox.cards.quack import Anytime, Patient
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
from quackbox.core.text import Named, Sentences, Teller, counted

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

LOG = Sentences(unknown=repr)


def describe(event: Event, names: Sequence[str], seat: int | None, cards: Sequence[Named]) -> str:
    """``event`` as a plain sentence, told from ``seat``'s side; ``cards`` are the cards by id."""
    return LOG.describe(event, names, seat, cards)


def _cards(t: Teller, cards: Iterable[int]) -> str:
    return ", ".join(t.card(c) for c in cards)


def _now(total_cure: int, total_harm: int) -> str:
    return f"(now {total_cure} Cure, {total_harm} Harm)"


@LOG.of(TurnStarted, turn=True)
def _turn_started(e: TurnStarted, t: Teller) -> str:
    return f"Round {e.round}: {t.poss(e.seat)} turn."


@LOG.of(DoctorFled)
def _doctor_fled(e: DoctorFled, t: Teller) -> str:
    return f"{t.name(e.seat)} fled to Switzerland with {money(e.money)} and {e.infamy} Infamy."


@LOG.of(CardsDrawn)
def _cards_drawn(e: CardsDrawn, t: Teller) -> str:
    if e.cards:
        return f"{t.name(e.seat)} drew {_cards(t, e.cards)}."
    if e.count == 0:
        return f"{t.name(e.seat)} had nothing left to draw."
    return f"{t.name(e.seat)} drew {counted(e.count, 'card')}."


@LOG.of(CardsDiscarded)
def _cards_discarded(e: CardsDiscarded, t: Teller) -> str:
    return f"{t.name(e.seat)} discarded {_cards(t, e.cards)}{_DISCARD_WHY.get(e.reason, '')}."


@LOG.of(DeckReshuffled)
def _deck_reshuffled(e: DeckReshuffled, t: Teller) -> str:
    pile = "Patient" if e.pile == Pile.PATIENT else "Doc"
    return f"The {pile} discard pile was shuffled into a new deck of {e.count}."


@LOG.of(PatientAdmitted)
def _patient_admitted(e: PatientAdmitted, t: Teller) -> str:
    if e.face_down or e.patient == NONE:
        return f"{t.name(e.seat)} admitted a Patient face down (Diagnostic Dilemma)."
    return f"{t.name(e.seat)} admitted {t.card(e.patient)}."


@LOG.of(PatientRevealed)
def _patient_revealed(e: PatientRevealed, t: Teller) -> str:
    return f"{t.poss_first(e.seat)} face-down Patient is revealed: {t.card(e.patient)}."


@LOG.of(MoneyPaid)
def _money_paid(e: MoneyPaid, t: Teller) -> str:
    if e.reason == PayReason.CO_PAY:
        return f"{t.name(e.seat)} collected the {money(e.amount)} co-pay."
    reminder = t.lookup(e.reminder)
    if not isinstance(reminder, Anytime):
        return f"{t.name(e.seat)} {t.verb(e.seat, 'were', 'was')} paid {money(e.amount)} for {_cards(t, e.cards)}."
    if reminder.effect == qc.NO_PAY:
        if not e.billed:
            return f"{reminder.name}: {t.poss(e.seat)} pay this round is cancelled, though it came to $0 anyway."
        return (
            f"{reminder.name}: {t.poss(e.seat)} pay this round is cancelled: "
            f"{money(e.amount)} instead of {money(e.billed)}."
        )
    how = "doubled" if reminder.effect == qc.DOUBLE_PAY else "changed"
    if not e.billed:
        return f"{reminder.name}: {t.poss(e.seat)} pay this round would have been {how}, but it came to $0."
    return f"{reminder.name}: {t.poss(e.seat)} pay this round is {how}: {money(e.amount)} instead of {money(e.billed)}."


@LOG.of(MoneyLost)
def _money_lost(e: MoneyLost, t: Teller) -> str:
    """Money is lost to a fine only (``LossReason.FINE``, Tax Audit)."""
    return f"{t.name(e.seat)} paid a {money(e.amount)} fine, leaving {money(e.total)}."


@LOG.of(DieRolled)
def _die_rolled(e: DieRolled, t: Teller) -> str:
    rerolls = f" after rerolling {', '.join(map(str, e.rolls[:-1]))}" if len(e.rolls) > 1 else ""
    owed = f"{counted(e.owed, 'Treatment')} owed"
    if e.owed != e.value:
        change = e.owed - e.value
        sign = "+" if change > 0 else "-"
        owed += f" ({e.value} {sign} {abs(change)} from the cards beside {t.obj(e.seat)})"
    return f"{t.name(e.seat)} rolled {e.value}{rerolls}: {owed}."


@LOG.of(TreatmentPlayed)
def _treatment_played(e: TreatmentPlayed, t: Teller) -> str:
    head = f"{t.name(e.seat)} played {t.card(e.card)} on {t.poss_of(e.seat, e.target)} Patient"
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
    return f"{head}: {what} {_now(e.total_cure, e.total_harm)}."


@LOG.of(PatientCured)
def _patient_cured(e: PatientCured, t: Teller) -> str:
    return f"{t.card(e.patient)} went home cured from {t.poss(e.seat)} office."


@LOG.of(PatientDied)
def _patient_died(e: PatientDied, t: Teller) -> str:
    patient = t.lookup(e.patient)
    if e.cause == Fate.MORTAL:
        why = "too many Treatments"
        if isinstance(patient, Patient):
            why += f" (Mortal {patient.mortal})"
    else:
        why = "the Harm"
        if isinstance(patient, Patient):
            why += f" (Kill {patient.kill})"
    return f"{t.card(e.patient)} died in {t.poss(e.seat)} office of {why}."


@LOG.of(PatientDischarged)
def _patient_discharged(e: PatientDischarged, t: Teller) -> str:
    return f"{t.card(e.patient)} left {t.poss(e.seat)} office unpaid and untreated."


@LOG.of(InfamyChanged)
def _infamy_changed(e: InfamyChanged, t: Teller) -> str:
    change = f"gained {e.change}" if e.change > 0 else f"lost {-e.change}"
    return f"{t.name(e.seat)} {change} Infamy (now {e.total})."


@LOG.of(AnytimePlayed)
def _anytime_played(e: AnytimePlayed, t: Teller) -> str:
    """An Anytime card played: on whom, and what it does or will do, with the numbers."""
    card = t.lookup(e.card)
    head = f"{t.name(e.seat)} played {t.card(e.card)}"
    on = t.obj_of(e.seat, e.target)
    if not isinstance(card, Anytime):
        return f"{head} on {on}."
    effect = card.effect
    theirs = t.poss_of(e.seat, e.target)
    if effect == qc.SHRED:
        return f"{head}."
    if effect == qc.TRANSFER:
        return f"{head} on {on} and {t.obj_of(e.seat, e.other)}: they swap Patients."
    if effect == qc.REDIRECT:
        return f"{head} on {on}: {theirs} next Treatment goes to {t.poss_of(e.seat, e.other)} Patient."
    if effect in (qc.CURE_POINTS, qc.HARM_POINTS, qc.RESET_HARM):
        head = f"{head} on {theirs} Patient"
        now = _now(e.total_cure, e.total_harm)
        if e.cure == NONE:
            return f"{head}, face down: nobody can tell what it did."
        if effect == qc.CURE_POINTS:
            return f"{head}: +{e.cure} Cure {now}."
        if effect == qc.HARM_POINTS:
            return f"{head}: +{e.harm} Harm {now}."
        if not e.harm:
            return f"{head}: it had no Harm to lose."
        return f"{head}: its {-e.harm} Harm is gone {now}."
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
        return f"{head} on {on}: {counted(card.amount, f'{more} Treatment')} to play, now or after {theirs} next roll."
    # Infamy and fines: the line after this one gives the numbers.
    return f"{head} on {on}."


@LOG.of(ReminderDiscarded)
def _reminder_discarded(e: ReminderDiscarded, t: Teller) -> str:
    reminder = t.lookup(e.card)
    beside = t.obj(e.seat)
    if isinstance(reminder, Anytime) and reminder.effect in _PATIENT_REMINDERS:
        beside = f"{t.poss(e.seat)} Patient"
    if e.reason == ReminderOutcome.FIZZLED:
        return f"The {t.card(e.card)} beside {beside} fizzled: its Patient is gone."
    used = isinstance(reminder, Anytime) and reminder.effect == qc.FACE_DOWN
    return f"The {t.card(e.card)} beside {beside} {'is used up' if used else 'takes effect'}."


@LOG.of(TreatmentsOwedChanged)
def _treatments_owed_changed(e: TreatmentsOwedChanged, t: Teller) -> str:
    return f"{t.name(e.seat)} now {t.verb(e.seat, 'owe', 'owes')} {counted(e.owed, 'Treatment')} this round."


@LOG.of(WindowOpened)
def _window_opened(e: WindowOpened, t: Teller) -> str:
    return ""  # no line of the log: the table's status line shows the window while it is open


@LOG.of(DoctorMobbed)
def _doctor_mobbed(e: DoctorMobbed, t: Teller) -> str:
    return f"The Angry Mob ran {t.obj(e.seat)} out of town at {e.infamy} Infamy."


@LOG.of(EndgameStarted)
def _endgame_started(e: EndgameStarted, t: Teller) -> str:
    if not e.seats:
        return f"The endgame: {e.reason}; the game ends with this turn."
    return f"The endgame: {e.reason}; {t.listed(e.seats, subject=False)} each take one more turn."


@LOG.of(GameEnded)
def _game_ended(e: GameEnded, t: Teller) -> str:
    if not e.winners:
        return f"Game over after {e.round} rounds: the Mob got everyone, nobody wins."
    wins = t.verb(e.winners[0], "win", "wins") if len(e.winners) == 1 else "win"
    return f"Game over after {e.round} rounds: {t.listed(e.winners)} {wins}."
