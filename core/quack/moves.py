"""What a doctor may do (moves, imperative) and what happened (events, past tense).

Cards and seats are named by id; :data:`~quackbox.core.rules.NONE` is "no card" or
"no seat". The words an event carries about *why* (a discard's reason, a
death's cause) are StrEnums equal to the plain words.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated

from quackbox.core.quack.cards import Fate
from quackbox.core.rules import NONE, Event, Move, Seat, SeatOrNone, Wire

__all__ = [
    "AnytimePlayed",
    "CardsDiscarded",
    "CardsDrawn",
    "DeckReshuffled",
    "DieRolled",
    "Discard",
    "DiscardReason",
    "DischargeReason",
    "DoctorFled",
    "DoctorMobbed",
    "EVENT_TYPES",
    "EndgameStarted",
    "FleeToSwitzerland",
    "GameEnded",
    "InfamyChanged",
    "InfamyReason",
    "LossReason",
    "MOVE_TYPES",
    "MoneyLost",
    "MoneyPaid",
    "Pass",
    "PatientAdmitted",
    "PatientCured",
    "PatientDied",
    "PatientDischarged",
    "PatientRevealed",
    "PayReason",
    "QuackMove",
    "Pile",
    "PlayAnytime",
    "PlayTreatment",
    "ReminderDiscarded",
    "ReminderOutcome",
    "StayHome",
    "Timeout",
    "TreatmentNote",
    "TreatmentPlayed",
    "TreatmentsOwedChanged",
    "TurnStarted",
    "WindowOpened",
]


PatientId = Annotated[int, Wire("card id (Patient)")]
PatientOrNone = Annotated[int, Wire("card id (Patient), or -1 while it is face down")]
TreatmentId = Annotated[int, Wire("card id (Treatment)")]
AnytimeId = Annotated[int, Wire("card id (Anytime)")]
AnytimeOrNone = Annotated[int, Wire("card id (Anytime), or -1 for none")]
DocCardId = Annotated[int, Wire("card id (Treatment or Anytime)")]
DocCardOrNone = Annotated[int, Wire("card id (Treatment or Anytime), or -1 for none")]
WindowNumber = Annotated[int, Wire("window number")]
"""A response window, by the number its WindowOpened gave it."""
PointsOrNone = Annotated[int, Wire("number, or -1 while the Patient is face down")]
PointsTotalOrNone = Annotated[int, Wire("number, or -1 when the card changed no points or the Patient is face down")]
PointsChange = Annotated[
    int,
    Wire(
        "a change of points, negative when some were taken away; meaningful only when "
        "`total_cure` is not -1, and then -1 is a change like any other"
    ),
]
"""An Anytime card's change to a Patient's points: signed, so NONE cannot mark its absence
(the totals, never negative, do)."""

# --- moves ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StayHome(Move):
    """Phase 1: face another day at the office."""


@dataclass(frozen=True, slots=True)
class FleeToSwitzerland(Move):
    """Phase 1: a one-way trip; Money and Infamy freeze for good (QB7)."""


@dataclass(frozen=True, slots=True)
class PlayTreatment(Move):
    """Phase 5: play the Treatment ``card`` on your Patient, or (Group Practice)
    on the Patient of seat ``target``; NONE means your own."""

    card: TreatmentId
    target: SeatOrNone = NONE


@dataclass(frozen=True, slots=True)
class PlayAnytime(Move):
    """Play the Anytime ``card`` on seat ``target`` (a doctor, or the doctor
    whose Patient it aims at). ``other`` is the second seat for Wrong Chart
    (whose Patient receives the Treatment) and Patient Transfer; ``discard`` is
    the card Paper Shredder throws away. Unused fields stay NONE."""

    card: AnytimeId
    target: Seat
    other: SeatOrNone = NONE
    discard: DocCardOrNone = NONE


@dataclass(frozen=True, slots=True)
class Discard(Move):
    """Short-hand rule: out of Treatments, discard the Anytime ``card`` instead of playing it."""

    card: AnytimeId


@dataclass(frozen=True, slots=True)
class Pass(Move):
    """In a response window: let the moment pass without playing an Anytime card."""


@dataclass(frozen=True, slots=True)
class Timeout(Move):
    """Applied by the host, never sent by a player: response window ``window``
    ran out of time. Every doctor who has not answered passes."""

    window: WindowNumber


MOVE_TYPES = (StayHome, FleeToSwitzerland, PlayTreatment, PlayAnytime, Discard, Pass, Timeout)
QuackMove = StayHome | FleeToSwitzerland | PlayTreatment | PlayAnytime | Discard | Pass | Timeout
"""Any Quack in the Box move."""


# --- the words of events ----------------------------------------------------------


class DiscardReason(StrEnum):
    SWITZERLAND = "switzerland"
    """The Switzerland draw throws away everything but one Anytime card."""
    FLED = "fled"
    """Treatments dropped on fleeing: they can never be played (QR11)."""
    MOBBED = "mobbed"
    SHORT_HAND = "short_hand"
    SHRED = "shred"


class Pile(StrEnum):
    DOC = "doc"
    PATIENT = "patient"


class PayReason(StrEnum):
    CO_PAY = "co-pay"
    TREATMENTS = "treatments"


class LossReason(StrEnum):
    FINE = "fine"


class DischargeReason(StrEnum):
    FLED = "fled"
    MOBBED = "mobbed"


class InfamyReason(StrEnum):
    DEATH = "death"
    TURBO = "turbo"
    ANYTIME = "anytime"


class ReminderOutcome(StrEnum):
    USED = "used"
    """It acted."""
    FIZZLED = "fizzled"
    """Its target was gone."""


class TreatmentNote(StrEnum):
    PLAIN = ""
    NULLIFIED = "nullified"
    DOUBLED = "doubled"


# --- events -----------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnStarted(Event):
    seat: Seat
    round: int


@dataclass(frozen=True, slots=True, kw_only=True)
class DoctorFled(Event):
    """``seat`` left for Switzerland with this Money and Infamy, frozen for good."""

    seat: Seat
    money: int
    infamy: int


@dataclass(frozen=True, slots=True, kw_only=True)
class CardsDrawn(Event):
    """``cards`` is empty in every copy but the drawer's; ``count`` is public."""

    seat: Seat
    cards: tuple[DocCardId, ...]
    count: int


@dataclass(frozen=True, slots=True, kw_only=True)
class CardsDiscarded(Event):
    """Cards went face up to the discard pile."""

    seat: Seat
    cards: tuple[DocCardId, ...]
    reason: DiscardReason


@dataclass(frozen=True, slots=True, kw_only=True)
class DeckReshuffled(Event):
    """The discard pile became the ``pile`` deck."""

    pile: Pile
    count: int


@dataclass(frozen=True, slots=True, kw_only=True)
class PatientAdmitted(Event):
    """``patient`` is NONE in every copy while ``face_down`` (Diagnostic Dilemma)."""

    seat: Seat
    patient: PatientOrNone
    face_down: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class PatientRevealed(Event):
    seat: Seat
    patient: PatientId


@dataclass(frozen=True, slots=True, kw_only=True)
class MoneyPaid(Event):
    """``cards`` are the Treatments paid for (none for the co-pay). ``billed``
    is what they came to before a Claim Denied or Upcoding, ``reminder``, acted
    on the sum (NONE when none did: then ``billed`` equals ``amount``)."""

    seat: Seat
    amount: int
    reason: PayReason
    cards: tuple[TreatmentId, ...]
    billed: int
    reminder: AnytimeOrNone


@dataclass(frozen=True, slots=True, kw_only=True)
class MoneyLost(Event):
    """``total`` is the money left after it."""

    seat: Seat
    amount: int
    reason: LossReason
    total: int


@dataclass(frozen=True, slots=True, kw_only=True)
class DieRolled(Event):
    """``rolls`` are every throw (1s and 6s rerolled); ``owed`` is the Treatments
    required after reminders (Teaching Hospital, Staff Shortage)."""

    seat: Seat
    rolls: tuple[int, ...]
    value: int
    owed: int


@dataclass(frozen=True, slots=True, kw_only=True)
class TreatmentPlayed(Event):
    """``seat`` played ``card`` on the Patient of ``target``. ``cure``/``harm``
    are the points it gave, ``total_cure``/``total_harm`` the Patient's totals;
    all four and ``patient`` are NONE in every copy while ``face_down``."""

    seat: Seat
    card: TreatmentId
    target: Seat
    patient: PatientOrNone
    face_down: bool
    cure: PointsOrNone
    harm: PointsOrNone
    total_cure: PointsOrNone
    total_harm: PointsOrNone
    received: int
    redirected: bool
    note: TreatmentNote


@dataclass(frozen=True, slots=True, kw_only=True)
class PatientCured(Event):
    """The Patient of ``seat`` went home cured; ``by`` played the card that did it."""

    seat: Seat
    patient: PatientId
    by: Seat


@dataclass(frozen=True, slots=True, kw_only=True)
class PatientDied(Event):
    """The Patient of ``seat`` died of ``cause`` (Harm or Mortal); ``by``
    played the card that did it."""

    seat: Seat
    patient: PatientId
    cause: Fate
    by: Seat


@dataclass(frozen=True, slots=True, kw_only=True)
class PatientDischarged(Event):
    """The Patient left with no cure and no death: its doctor fled or was mobbed."""

    seat: Seat
    patient: PatientId
    reason: DischargeReason


@dataclass(frozen=True, slots=True, kw_only=True)
class InfamyChanged(Event):
    """``change`` may be negative; ``total`` is the Infamy after it."""

    seat: Seat
    change: int
    total: int
    reason: InfamyReason


@dataclass(frozen=True, slots=True, kw_only=True)
class AnytimePlayed(Event):
    """``seat`` played ``card`` on ``target`` (with ``other`` and ``discard`` as
    in :class:`PlayAnytime`). A card that changes a Patient's points at once
    (Placebo, Nurse Has the Night Off, Miraculous Recovery) gives the change,
    ``cure``/``harm`` (negative when taken away), and the Patient's totals
    after it; they are NONE for every other card, and in every copy while
    the Patient is ``face_down``: the totals (never negative) say which."""

    seat: Seat
    card: AnytimeId
    target: Seat
    other: SeatOrNone
    discard: DocCardOrNone
    face_down: bool
    cure: PointsChange
    harm: PointsChange
    total_cure: PointsTotalOrNone
    total_harm: PointsTotalOrNone


@dataclass(frozen=True, slots=True, kw_only=True)
class ReminderDiscarded(Event):
    """A reminder card next to ``seat`` (or their Patient) went to the discard pile."""

    seat: Seat
    card: AnytimeId
    reason: ReminderOutcome


@dataclass(frozen=True, slots=True, kw_only=True)
class TreatmentsOwedChanged(Event):
    seat: Seat
    owed: int


@dataclass(frozen=True, slots=True, kw_only=True)
class WindowOpened(Event):
    """After a Treatment: ``seats`` may play an Anytime card before play goes on."""

    window: WindowNumber
    seats: tuple[Seat, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class DoctorMobbed(Event):
    seat: Seat
    infamy: int


@dataclass(frozen=True, slots=True, kw_only=True)
class EndgameStarted(Event):
    """Each of ``seats`` takes one more turn, then the game ends (QB9);
    ``reason`` is a plain sentence that names no seat."""

    seats: tuple[Seat, ...]
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class GameEnded(Event):
    winners: tuple[Seat, ...]
    round: int
    reason: str


EVENT_TYPES = (
    TurnStarted,
    DoctorFled,
    CardsDrawn,
    CardsDiscarded,
    DeckReshuffled,
    PatientAdmitted,
    PatientRevealed,
    MoneyPaid,
    MoneyLost,
    DieRolled,
    TreatmentPlayed,
    PatientCured,
    PatientDied,
    PatientDischarged,
    InfamyChanged,
    AnytimePlayed,
    ReminderDiscarded,
    TreatmentsOwedChanged,
    WindowOpened,
    DoctorMobbed,
    EndgameStarted,
    GameEnded,
)
