"""A full Quack in the Box State built from one seat's view: what a search bot plays on.

:func:`sample` deals a State consistent with everything the seat may know:
its own hand, every office (a face-down Patient stays unknown, QR18), the
reminders, money and Infamy, the counts of hands and piles, the response
window it may be answering, and what its :class:`Memory` recorded. The cards
it cannot place are dealt at random: a face-down Patient from the Patients it
cannot place, chosen among those still alive after the Treatments it has had.
Nothing here takes a State, so a sample cannot betray what the seat does not know.

:class:`Memory` is a per-seat record built from the events as redacted for
that seat: which Doc cards and Patients went face up since their deck was
last reshuffled (so most of each discard pile is known card by card).
"""

from __future__ import annotations

import random
from typing import Iterable

from quackbox.cards import quack as qc
from quackbox.cards.quack import Anytime, Card, Patient
from quackbox.core.quack.cards import case_fate, treatment_points
from quackbox.core.quack.moves import (
    AnytimePlayed,
    CardsDiscarded,
    DeckReshuffled,
    PatientCured,
    PatientDied,
    PatientDischarged,
    Pile,
    TreatmentPlayed,
    TurnStarted,
    WindowOpened,
)
from quackbox.core.quack.state import SWITZERLAND, Case, Doctor, QuackState
from quackbox.core.quack.view import CaseView, QuackView
from quackbox.core.rules import NONE, Event

__all__ = ["Memory", "sample"]


class Memory:
    """What one seat has seen of a game, from its redacted events.

    It is complete only when its first event was the game's first turn;
    until then :func:`sample` does not use it.
    """

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.complete = False
        self.seen_any = False
        self.doc_public: set[int] = set()
        """Doc cards that went face up since the Doc deck was last made."""
        self.patients_gone: set[int] = set()
        """Patients that left an office since the Patient deck was last made."""
        self.window = 0

    def see(self, view: QuackView) -> None:
        """Nothing to take from a view: the events say all this memory keeps."""

    def observe(self, events: Iterable[Event]) -> None:
        """Record ``events`` (as redacted for this seat), in the order they happened."""
        for event in events:
            if not self.seen_any:
                self.seen_any = True
                self.complete = isinstance(event, TurnStarted) and event.round == 1
            match event:
                case TreatmentPlayed() | AnytimePlayed():
                    self.doc_public.add(event.card)
                case CardsDiscarded():
                    self.doc_public.update(event.cards)
                case DeckReshuffled():
                    (self.doc_public if event.pile == Pile.DOC else self.patients_gone).clear()
                case PatientCured() | PatientDied() | PatientDischarged():
                    self.patients_gone.add(event.patient)
                case WindowOpened():
                    self.window = event.window


def sample(view: QuackView, rng: random.Random, cards: tuple[Card, ...], memory: Memory | None = None) -> QuackState:
    """A State that ``view`` could have come from, the unseen cards dealt by ``rng``.

    ``view(sample(view), view.seat) == view`` always holds.
    """
    me = view.seat
    seats = len(view.players)
    # What the seat remembers, if it saw the whole game so far (else nothing).
    seen = memory if memory is not None and memory.complete and memory.seat == me else None
    state = QuackState(seats=seats, options=view.options, rng=random.Random(rng.getrandbits(64)), cards=cards)
    placed: set[int] = set()
    face_down: list[tuple[Case, CaseView]] = []
    for d in view.players:
        doctor = Doctor(d.money, d.infamy, d.status, None, [c.id for c in d.reminders])
        placed.update(doctor.reminders)
        p = d.case
        if p is not None:
            case = Case(
                p.patient.id if p.patient is not None else NONE,
                p.face_down,
                p.cure_points or 0,
                p.harm_points or 0,
                p.received,
                [c.id for c in p.treatments],
                [c.id for c in p.reminders],
            )
            placed.update(case.treatments)
            placed.update(case.reminders)
            if p.patient is not None:
                placed.add(case.card)
            else:
                face_down.append((case, p))
            doctor.case = case
        for r in d.reminders:
            if r.effect == qc.REDIRECT:
                doctor.redirect_card = r.id
        state.doctors.append(doctor)
    hand = [c.id for c in view.hand] if me is not None else []
    placed.update(hand)

    # The discard piles: the cards memory saw go face up since each deck was
    # made (a card still on the table when its deck was reshuffled and
    # discarded since is not among them: the rest of a pile is dealt at random).
    doc_discard: list[int] = []
    patient_discard: list[int] = []
    if seen is not None:
        doc_discard = sorted(seen.doc_public - placed)
        if len(doc_discard) > view.doc_discard_count:
            doc_discard = []
        patient_discard = sorted(seen.patients_gone - placed)
        if len(patient_discard) > view.patient_discard_count:
            patient_discard = []
    placed.update(doc_discard)
    placed.update(patient_discard)

    patients = [c.id for c in cards if isinstance(c, Patient) and c.id not in placed]
    rng.shuffle(patients)
    for case, pv in face_down:
        _deal_face_down(case, pv, patients, state)
    doc = [c.id for c in cards if not isinstance(c, Patient) and c.id not in placed]
    rng.shuffle(doc)
    anytime = [c for c in doc if isinstance(cards[c], Anytime)]

    state.hands = [[] for _ in range(seats)]
    if me is not None:
        state.hands[me] = hand
    # The Swiss hold Anytime cards only (QB7): deal theirs first.
    order = sorted((d for d in view.players if d.seat != me), key=lambda d: d.status != SWITZERLAND)
    for d in order:
        pool = anytime if d.status == SWITZERLAND and len(anytime) >= d.hand_size else doc
        dealt = pool[len(pool) - d.hand_size :] if d.hand_size else []
        for c in dealt:
            doc.remove(c)
            if c in anytime:
                anytime.remove(c)
        state.hands[d.seat] = dealt
    more = view.doc_discard_count - len(doc_discard)
    if more > 0:
        doc_discard, doc = doc_discard + doc[len(doc) - more :], doc[: len(doc) - more]
    more = view.patient_discard_count - len(patient_discard)
    if more > 0:
        patient_discard, patients = patient_discard + patients[len(patients) - more :], patients[: len(patients) - more]
    state.doc_deck, state.doc_discard = doc, doc_discard
    state.patient_deck, state.patient_discard = patients, patient_discard

    state.first = view.first
    state.current, state.round, state.phase = view.current, view.round, view.phase
    state.die, state.owed = view.die, view.owed
    state.window_seats = list(view.window_seats)
    state.window = seen.window if seen is not None else 0
    state.endgame = view.endgame
    state.final_pending = {d.seat for d in view.players if d.final_turn}
    state.outcome = view.outcome
    for d in view.players:  # QR16: the Patient a waiting Wrong Chart sends the next Treatment to
        if d.redirect_seat != NONE:
            state.doctors[d.seat].redirect_to = state.case(d.redirect_seat).card
    # Payday pays this turn's Treatments on the Patients that are still alive:
    # on a Patient still in an office, or one gone home cured.
    state.plays = [(t.id, _patient_holding(state, t.id)) for t in view.paying]
    return state


def _deal_face_down(case: Case, pv: CaseView, patients: list[int], state: QuackState) -> None:
    """A face-down Patient: the first unplaced one still alive after the
    Treatments it received (the points follow from the card drawn)."""
    treatments = [state.treatment(t) for t in case.treatments]
    chosen = None
    for i in range(len(patients) - 1, -1, -1):
        patient = state.patient(patients[i])
        cure = harm = 0
        for t in treatments:
            points = treatment_points(t, patient)
            cure, harm = cure + points.cure, harm + points.harm
        alive = case_fate(patient, cure, harm, pv.received) is None
        if alive or chosen is None:
            chosen = (i, min(cure, patient.cure - 1), min(harm, patient.kill - 1))
        if alive:
            break
    if chosen is None:
        return  # no Patient left to be had: it keeps no card (a broken view)
    i, case.cure, case.harm = chosen
    case.card = patients.pop(i)


def _patient_holding(state: QuackState, treatment: int) -> int:
    """The Patient card a Treatment lies on, or NONE if that Patient has left."""
    for doctor in state.doctors:
        if doctor.case is not None and treatment in doctor.case.treatments:
            return doctor.case.card
    return NONE
