"""What one seat may see: :func:`view` and :func:`redact`.

A view holds card objects only for cards its seat may see: its own hand, the
Patients in the offices (not a face-down one, QR18), the Treatments on them
and the reminders. Events are redacted the same way: drawn cards only for the
drawer, a face-down Patient and its points (from a Treatment or an Anytime
card) for nobody.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from quackbox.cards.quack import Anytime, Patient, Treatment
from quackbox.core.quack.legal import patient_holder, waiting_for
from quackbox.core.quack.moves import AnytimePlayed, CardsDrawn, PatientAdmitted, TreatmentPlayed
from quackbox.core.quack.state import GAME, Case, Phase, QuackOptions, QuackState, Status
from quackbox.core.rules import NONE, Event, Move, Outcome, Seat, SeatOrNone, verify_view_seats

__all__ = ["DoctorView", "CaseView", "QuackView", "redact", "view", "views"]


@dataclass(frozen=True, slots=True)
class CaseView:
    """A Patient in an office. While ``face_down`` nobody (its doctor included)
    sees ``patient``, ``cure_points`` or ``harm_points``: they are None."""

    patient: Patient | None
    face_down: bool
    cure_points: int | None
    harm_points: int | None
    received: int
    """Treatment cards received so far (what Mortal counts)."""
    treatments: tuple[Treatment, ...]
    reminders: tuple[Anytime, ...]


@dataclass(frozen=True, slots=True)
class DoctorView:
    seat: Seat
    status: Status
    money: int
    infamy: int
    hand_size: int
    case: CaseView | None
    """The Patient in this doctor's office, if any."""
    reminders: tuple[Anytime, ...]
    """Anytime cards waiting to act on this doctor (QB8)."""
    final_turn: bool
    """In the endgame: this doctor still has their one more turn to take."""
    redirect_seat: SeatOrNone
    """Where this doctor's waiting Wrong Chart sends the next Treatment (QR16):
    the seat whose office holds that Patient now; NONE with no Wrong Chart
    waiting or once that Patient has left."""


@dataclass(frozen=True, slots=True)
class QuackView:
    """Everything one seat may see, including its legal moves."""

    game: str
    seat: Seat | None
    round: int
    current: Seat
    """The seat whose turn it is."""
    phase: Phase
    die: int
    """This turn's roll, 0 before it is rolled."""
    owed: int
    """Treatments the doctor whose turn it is must still play this round."""
    players: tuple[DoctorView, ...]
    """Every doctor, by seat."""
    hand: tuple[Treatment | Anytime, ...]
    doc_deck_count: int
    doc_discard_count: int
    patient_deck_count: int
    patient_discard_count: int
    window_seats: tuple[Seat, ...]
    """Seats still to answer in the open response window."""
    endgame: bool
    threshold: int
    first: Seat
    """The seat that took the first turn: each round starts with its turn."""
    paying: tuple[Treatment, ...]
    """The Treatments played this turn that payday will pay for (QB5): those
    whose Patient has not died this turn, in the order played."""
    legal: tuple[Move, ...]
    waiting_for: tuple[Seat, ...]
    outcome: Outcome | None
    options: QuackOptions


def view(state: QuackState, seat: int | None, legal: tuple[Move, ...]) -> QuackView:
    """What ``seat`` may see, with its ``legal`` moves; None is a spectator, and
    anything else that is not a seat of the game a MalformedMove."""
    return views(state, (seat,), (legal,))[0]


def views(state: QuackState, seats: Sequence[int | None], legal: Sequence[tuple[Move, ...]]) -> tuple[QuackView, ...]:
    """The views of ``seats``, each with its ``legal`` moves (in the same
    order), as :func:`view` gives each.

    The host needs every seat's view after each move; the public part (the
    doctors and the piles) is made once and shared, as views are frozen values.
    """
    verify_view_seats(seats, state.seats)
    doctors = tuple(
        DoctorView(
            seat=s,
            status=doctor.status,
            money=doctor.money,
            infamy=doctor.infamy,
            hand_size=len(state.hands[s]),
            case=None if doctor.case is None else _case_view(state, doctor.case),
            reminders=tuple(state.anytime(c) for c in doctor.reminders),
            final_turn=state.endgame and s in state.final_pending,
            redirect_seat=patient_holder(state, doctor.redirect_to) if doctor.redirect_card != NONE else NONE,
        )
        for s, doctor in enumerate(state.doctors)
    )
    window_seats, waiting = tuple(state.window_seats), waiting_for(state)
    paying = tuple(state.treatment(c) for c, patient in state.plays if patient not in state.dead)
    return tuple(
        [
            QuackView(
                game=GAME,
                seat=seat,
                round=state.round,
                current=state.current,
                phase=state.phase,
                die=state.die,
                owed=state.owed,
                players=doctors,
                hand=tuple(state.doc_card(c) for c in state.hands[seat]) if seat is not None else (),
                doc_deck_count=len(state.doc_deck),
                doc_discard_count=len(state.doc_discard),
                patient_deck_count=len(state.patient_deck),
                patient_discard_count=len(state.patient_discard),
                window_seats=window_seats,
                endgame=state.endgame,
                threshold=state.options.infamy_threshold,
                first=state.first,
                paying=paying,
                legal=seat_legal,
                waiting_for=waiting,
                outcome=state.outcome,
                options=state.options,
            )
            for seat, seat_legal in zip(seats, legal, strict=True)
        ]
    )


def _case_view(state: QuackState, case: Case) -> CaseView:
    hidden = case.face_down
    return CaseView(
        patient=None if hidden else state.patient(case.card),
        face_down=hidden,
        cure_points=None if hidden else case.cure,
        harm_points=None if hidden else case.harm,
        received=case.received,
        treatments=tuple(state.treatment(c) for c in case.treatments),
        reminders=tuple(state.anytime(c) for c in case.reminders),
    )


def redact(event: Event, seat: int | None) -> Event:
    """``event`` as ``seat`` may see it: drawn cards only for the drawer; a
    face-down Patient and its points for nobody (QR18)."""
    if type(event) is CardsDrawn and seat != event.seat:
        return replace(event, cards=())
    if type(event) is PatientAdmitted and event.face_down:
        return replace(event, patient=NONE)
    if type(event) is TreatmentPlayed and event.face_down:
        return replace(event, patient=NONE, cure=NONE, harm=NONE, total_cure=NONE, total_harm=NONE)
    if type(event) is AnytimePlayed and event.face_down:
        return replace(event, cure=NONE, harm=NONE, total_cure=NONE, total_harm=NONE)
    return event
