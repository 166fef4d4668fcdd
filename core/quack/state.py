"""A game of Quack in the Box as data: its options and its facts, nothing else.

The State is mutable and owned by whoever runs the game; :mod:`quackbox.core.quack.rules`
changes it, and a State edited by hand (a test stacking the deck) needs
nothing more. Card ids index ``cards``. Piles are lists whose top is the
*end* of the list.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from enum import StrEnum
from typing import cast

from quackbox.cards.quack import Anytime, Card, Patient, Treatment
from quackbox.core import options
from quackbox.core.rules import NONE, Event, Outcome, SeatOrRandom

__all__ = [
    "END",
    "FLEE",
    "GAME",
    "MOBBED",
    "OVER",
    "PRACTISING",
    "SHORT_HAND",
    "SWITZERLAND",
    "TREAT",
    "WINDOW",
    "Case",
    "Doctor",
    "Phase",
    "QuackOptions",
    "QuackState",
    "Status",
    "TwoPlayerEndgame",
    "clone",
]

GAME = "quack"
"""The game's name on the command line and the wire."""


class Phase(StrEnum):
    """What the game is waiting for."""

    FLEE = "flee"
    """Phase 1: the doctor whose turn it is decides to stay or flee to Switzerland."""
    TREAT = "treat"
    """Phase 5: the doctor plays Treatments."""
    SHORT_HAND = "short_hand"
    """Phase 5, out of Treatments: the doctor plays or discards one Anytime card."""
    WINDOW = "window"
    """After a Treatment: the other doctors may play an Anytime card."""
    OVER = "over"
    """The game has ended."""
    END = "end"
    """Inside a move only, never seen outside it: the turn is over, the Angry
    Mob and the next turn follow."""


class Status(StrEnum):
    """Where a doctor is."""

    PRACTISING = "practising"
    SWITZERLAND = "switzerland"
    """Fled for good (QB7): Money and Infamy frozen, Anytime cards only."""
    MOBBED = "mobbed"
    """Run out of town (QB6): out of the game, unable to win."""


FLEE, TREAT, SHORT_HAND, WINDOW, OVER, END = (
    Phase.FLEE,
    Phase.TREAT,
    Phase.SHORT_HAND,
    Phase.WINDOW,
    Phase.OVER,
    Phase.END,
)
PRACTISING, SWITZERLAND, MOBBED = Status.PRACTISING, Status.SWITZERLAND, Status.MOBBED
"""The phases and statuses by their own names, as the rules read them (``state.phase == TREAT``)."""


class TwoPlayerEndgame(StrEnum):
    """QB3/QR21: what happens when one of two doctors leaves practice."""

    ONE_LEFT = "one_left"
    """The doctor left practising takes one more turn."""
    IMMEDIATE = "immediate"
    """The game ends with the current turn."""
    PLAY_ON = "play_on"
    """The last doctor plays on until they flee or are mobbed (or the round limit)."""


@dataclass(frozen=True, slots=True)
class QuackOptions:
    """Table options (QB3). The defaults are the rulebook game."""

    infamy_threshold: int = options.option(6, low=1, high=50)
    """The Angry Mob comes for a doctor at or above this much Infamy (QB6)."""
    two_player_endgame: str = options.option(TwoPlayerEndgame.ONE_LEFT.value, choices=tuple(TwoPlayerEndgame))
    """With 2 seats, a :class:`TwoPlayerEndgame` value (QB3)."""
    turbo_infamy: bool = False
    """Variant: when a Patient dies, every practising doctor gains 1 Infamy."""
    group_practice: bool = False
    """Variant: Treatments may go on any Patient; the killer takes all the Infamy."""
    deathmatch: bool = False
    """Variant: nobody can flee the country."""
    round_limit: int = options.option(30, low=1, high=500)
    """After this many rounds the endgame starts, so every game ends (QB3)."""
    window_seconds: float = options.option(10.0, low=0.0, high=600.0)
    """How long other doctors have to answer with an Anytime card after each
    Treatment (QB8); 0 opens no windows."""
    first_seat: SeatOrRandom = options.option(-1, low=-1, high=7)
    """The seat that starts, counted from 0; -1 draws it at random."""


@dataclass(slots=True)
class Case:
    """A Patient in an office, with what it has been through."""

    card: int
    face_down: bool = False
    """Diagnostic Dilemma: nobody, its doctor included, sees the Patient (QR18)."""
    cure: int = 0
    harm: int = 0
    received: int = 0
    """Treatment cards received (what Mortal counts)."""
    treatments: list[int] = field(default_factory=list)
    """Treatment cards on the Patient (discarded when it leaves)."""
    reminders: list[int] = field(default_factory=list)
    """Anytime cards waiting beside the Patient."""


@dataclass(slots=True)
class Doctor:
    """One seat's doctor."""

    money: int = 0
    infamy: int = 0
    status: Status = PRACTISING
    case: Case | None = None
    """The Patient in the doctor's office, if any (there is never more than one)."""
    reminders: list[int] = field(default_factory=list)
    """Anytime cards waiting beside the doctor (QB8)."""
    redirect_card: int = NONE
    """The Wrong Chart waiting beside the doctor (it is among ``reminders`` too)..."""
    redirect_to: int = NONE
    """...and the Patient card it sends the doctor's next Treatment to (QR16)."""


@dataclass(slots=True)
class QuackState:
    """One game of Quack in the Box.

    Where each card is: ``patient_deck``, ``patient_discard``, ``doc_deck``,
    ``doc_discard``, ``hands[seat]``, a doctor's Patient
    (``doctors[seat].case``: the card, its Treatments and reminders) or a
    doctor's ``reminders``.
    """

    seats: int
    options: QuackOptions
    rng: random.Random
    cards: tuple[Card, ...]
    """The deck: every physical card of the game, by id."""
    patient_deck: list[int] = field(default_factory=list)
    """In no order: each admission takes a Patient at random."""
    patient_discard: list[int] = field(default_factory=list)
    doc_deck: list[int] = field(default_factory=list)
    doc_discard: list[int] = field(default_factory=list)
    hands: list[list[int]] = field(default_factory=list)
    doctors: list[Doctor] = field(default_factory=list)
    first: int = 0
    """The seat that took the first turn: a round starts with its turn."""
    current: int = 0
    """The seat whose turn it is."""
    round: int = 1
    phase: Phase = FLEE
    die: int = 0
    """This turn's roll, 0 before it is rolled."""
    owed: int = 0
    """Treatments the doctor whose turn it is must still play this round."""
    short_done: bool = False
    """The short-hand Anytime card has been played or discarded this turn."""
    plays: list[tuple[int, int]] = field(default_factory=list)
    """(Treatment card, Patient card) played this turn by the doctor whose turn it is."""
    dead: set[int] = field(default_factory=set)
    """Patient cards that died this turn: Treatments on them pay nothing."""
    window_seats: list[int] = field(default_factory=list)
    """The seats the open response window still waits for, in turn order."""
    window: int = 0
    """The number of the latest response window (a Timeout names the one it closes)."""
    endgame: bool = False
    final_pending: set[int] = field(default_factory=set)
    """In the endgame: practising seats that have not yet started their last turn."""
    outcome: Outcome | None = None
    """How the game ended, once it has (QB9)."""
    start_events: tuple[Event, ...] = ()
    """What happened inside new_game (the first turn's start), for the log."""

    @property
    def over(self) -> bool:
        return self.outcome is not None

    # The deck holds the three kinds of card by id; where a card lies says its
    # kind (a reminder is an Anytime card, a Patient pile holds Patients), so
    # these give it its type for the reader, at no cost.

    def patient(self, card: int) -> Patient:
        """The card ``card``, which the caller knows to be a Patient."""
        return cast(Patient, self.cards[card])

    def treatment(self, card: int) -> Treatment:
        """The card ``card``, which the caller knows to be a Treatment."""
        return cast(Treatment, self.cards[card])

    def anytime(self, card: int) -> Anytime:
        """The card ``card``, which the caller knows to be an Anytime card."""
        return cast(Anytime, self.cards[card])

    def doc_card(self, card: int) -> Treatment | Anytime:
        """The card ``card``, which the caller knows to be a Doc card (in a hand, say)."""
        return cast(Treatment | Anytime, self.cards[card])

    def case(self, seat: int) -> Case:
        """The Patient in ``seat``'s office, which the caller knows to hold one."""
        case = self.doctors[seat].case
        if case is None:
            raise RuntimeError(f"seat {seat + 1} has no Patient: a bug in the rules")
        return case


def clone(state: QuackState) -> QuackState:
    """An independent copy of ``state``: its piles, doctors and RNG are copies
    (the options, cards, events and outcome are immutable and shared)."""
    rng = random.Random()
    rng.setstate(state.rng.getstate())
    return QuackState(
        seats=state.seats,
        options=state.options,
        rng=rng,
        cards=state.cards,
        patient_deck=list(state.patient_deck),
        patient_discard=list(state.patient_discard),
        doc_deck=list(state.doc_deck),
        doc_discard=list(state.doc_discard),
        hands=[list(hand) for hand in state.hands],
        doctors=[_clone_doctor(d) for d in state.doctors],
        first=state.first,
        current=state.current,
        round=state.round,
        phase=state.phase,
        die=state.die,
        owed=state.owed,
        short_done=state.short_done,
        plays=list(state.plays),
        dead=set(state.dead),
        window_seats=list(state.window_seats),
        window=state.window,
        endgame=state.endgame,
        final_pending=set(state.final_pending),
        outcome=state.outcome,
        start_events=state.start_events,
    )


def _clone_doctor(doctor: Doctor) -> Doctor:
    case = doctor.case
    if case is not None:
        case = Case(
            case.card, case.face_down, case.cure, case.harm, case.received, list(case.treatments), list(case.reminders)
        )
    return Doctor(
        doctor.money,
        doctor.infamy,
        doctor.status,
        case,
        list(doctor.reminders),
        doctor.redirect_card,
        doctor.redirect_to,
    )
