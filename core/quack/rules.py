"""Quack in the Box: making moves, the six phases of a turn, and the end (QB1-QB10).

Every doctor keeps one Patient at a time and a hand of six Doc cards. Each
turn has six phases (rulebook, "Sequence of Play"):

1. flee to Switzerland, or stay (a decision; none in Deathmatch);
2. draw up to six (in Switzerland: draw until one Anytime card, discard the rest);
3. admit a Patient if you have none, collect the $50 co-pay (face down under
   Diagnostic Dilemma until its first round of Treatments is done);
4. roll the required Treatments, 2-5 (a die rerolling 1s and 6s);
5. play them one at a time (QB4); short of Treatments, play them all, then
   play or discard one Anytime card; then payday (QB5);
6. the Angry Mob (QB6).

Anytime cards (QB8) may be played by any doctor still in the game, on anyone,
at any time. To give people a fair chance between any two Treatments, each
Treatment opens a response *window*: the other doctors who could play an
Anytime card are waited for, each answering ``Pass`` or ``PlayAnytime``. The
window has a :class:`~quackbox.core.rules.Deadline`; when it passes the host applies
its ``Timeout``, which closes the window for everyone who has not answered.
``window_seconds = 0`` turns windows off.

:data:`RULES` holds no game: the State (:mod:`quackbox.core.quack.state`) is the
caller's. :func:`verify` is the one legality gate; ``apply``
always passes through it first.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any, Mapping, Sequence, SupportsIndex

from quackbox.cards import quack as qc
from quackbox.cards.quack import Anytime, Patient, Treatment
from quackbox.core import options as core_options
from quackbox.core.quack import balance, legal, sampling, text
from quackbox.core.quack import view as views
from quackbox.core.quack.cards import (
    Fate,
    Points,
    case_fate,
    fine_taken,
    infamy_after,
    mob_comes,
    owed_after,
    signed_amount,
    split_infamy,
    treatment_points,
)
from quackbox.core.quack.legal import (
    AnytimePlan,
    MoveTable,
    TreatmentPlan,
    legal_moves,
    patient_holder,
    waiting_for,
    window_seats,
)
from quackbox.core.quack.moves import (
    EVENT_TYPES,
    MOVE_TYPES,
    AnytimePlayed,
    CardsDiscarded,
    CardsDrawn,
    DeckReshuffled,
    DieRolled,
    Discard,
    DiscardReason,
    DischargeReason,
    DoctorFled,
    DoctorMobbed,
    EndgameStarted,
    FleeToSwitzerland,
    GameEnded,
    InfamyChanged,
    InfamyReason,
    LossReason,
    MoneyLost,
    MoneyPaid,
    Pass,
    PatientAdmitted,
    PatientCured,
    PatientDied,
    PatientDischarged,
    PatientRevealed,
    PayReason,
    Pile,
    PlayAnytime,
    PlayTreatment,
    QuackMove,
    ReminderDiscarded,
    ReminderOutcome,
    StayHome,
    Timeout,
    TreatmentNote,
    TreatmentPlayed,
    TreatmentsOwedChanged,
    TurnStarted,
    WindowOpened,
)
from quackbox.core.quack.state import (
    END,
    FLEE,
    GAME,
    MOBBED,
    OVER,
    PRACTISING,
    SHORT_HAND,
    SWITZERLAND,
    TREAT,
    WINDOW,
    Case,
    Doctor,
    Phase,
    QuackOptions,
    QuackState,
    TwoPlayerEndgame,
    clone,
)
from quackbox.core.quack.view import CaseView, DoctorView, QuackView

if TYPE_CHECKING:
    from quackbox.core.play import GameRecord
from quackbox.core.rules import (
    NONE,
    AnyMoveKind,
    BadOptions,
    Deadline,
    Event,
    LineKind,
    Memory,
    Move,
    Outcome,
    Rules,
    Verified,
    move_kind,
    move_table,
    verify_view_seats,
)

HAND_SIZE = 6
CO_PAY = 50
DIE_SIDES = 6
DIE_LOW, DIE_HIGH = 2, 5
"""Phase 4: a roll outside these is thrown again."""


class Quack:
    """The Quack in the Box rules object (see core.rules.Rules)."""

    name = GAME
    title = "Quack in the Box"
    min_seats = 2
    max_seats = 8
    options_type = QuackOptions

    sim_needs_events = True
    """``quackbox sim`` keeps the events: the balance figures count them."""

    def __reduce_ex__(self, protocol: SupportsIndex) -> str | tuple[Any, ...]:
        """The game's own rules object pickles by name (a bot sent to think in another
        process carries its rules so, not its card tables); another one (a test's deck)
        pickles whole."""
        from quackbox.core.games import get

        if get(self.name) is self:
            return get, (self.name,)
        return super().__reduce_ex__(protocol)

    def __init__(self, deck: qc.Deck | None = None) -> None:
        self.deck = deck if deck is not None else qc.load()
        self.cards = self.deck.build()
        self._patient_ids = tuple(c.id for c in self.cards if isinstance(c, Patient))
        self._doc_ids = tuple(c.id for c in self.cards if not isinstance(c, Patient))
        """The two decks in id order: new_game copies them and shuffles the Doc deck."""
        self._moves = MoveTable(self.cards, self.max_seats)

    def card_name(self, card_id: int) -> str:
        """The name of card ``card_id`` (for sentences; ids are public)."""
        return self.cards[card_id].name if 0 <= card_id < len(self.cards) else f"card {card_id}"

    # options ---------------------------------------------------------------

    def default_options(self) -> QuackOptions:
        return QuackOptions()

    def parse_options(self, values: object) -> QuackOptions:
        return core_options.parse(QuackOptions, values, title=self.title)

    # setup -----------------------------------------------------------------

    def new_game(self, *, seats: int, options: Any = None, seed: int) -> QuackState:
        """Shuffle both decks, deal six Doc cards each (rulebook, Starting the Game)."""
        if isinstance(seats, bool) or not isinstance(seats, int) or not self.min_seats <= seats <= self.max_seats:
            raise BadOptions(f"Quack in the Box is for {self.min_seats} to {self.max_seats} players, not {seats!r}.")
        opts = self.parse_options(options)
        if opts.first_seat >= seats:
            raise BadOptions(f"Option first-seat must be a seat from 0 to {seats - 1}, not {opts.first_seat}.")
        rng = random.Random(seed)
        state = QuackState(seats=seats, options=opts, rng=rng, cards=self.cards)
        state.doctors = [Doctor() for _ in range(seats)]
        state.patient_deck = list(self._patient_ids)  # in no order: see admit
        state.doc_deck = deck = list(self._doc_ids)
        shuffle(rng, deck)
        # Deal six each, one at a time round the table from the top of the
        # deck (its end): the k-th card off the deck goes to seat k % seats.
        dealt = [deck.pop() for _ in range(min(HAND_SIZE * seats, len(deck)))]
        state.hands = [dealt[seat::seats] for seat in range(seats)]
        state.first = opts.first_seat if opts.first_seat >= 0 else rng.randrange(seats)
        events: list[Event] = []
        start_turn(state, state.first, events)
        proceed(state, events)
        state.start_events = tuple(events)
        return state

    # queries ---------------------------------------------------------------

    def waiting_for(self, state: QuackState) -> tuple[int, ...]:
        return waiting_for(state)

    def deadline(self, state: QuackState) -> Deadline | None:
        """The response window's deadline. Its seat is the doctor whose turn it
        is; its Timeout closes the whole window (every seat not yet answered passes)."""
        if state.phase == WINDOW and state.options.window_seconds > 0:
            return Deadline(state.current, state.options.window_seconds, WINDOW, Timeout(state.window))
        return None

    def outcome(self, state: QuackState) -> Outcome | None:
        return state.outcome

    def legal_moves(self, state: QuackState, seat: int) -> tuple[QuackMove, ...]:
        """Every move ``seat`` may make now (order: :mod:`quackbox.core.quack.legal`)."""
        return legal_moves(state, seat, self._moves)

    def check(self, state: QuackState, seat: int, move: Move) -> None:
        """Raise a RulesError with a plain sentence if the move is not allowed."""
        verify(state, seat, move)

    def view(self, state: QuackState, seat: int | None) -> QuackView:
        return views.view(state, seat, self.legal_moves(state, seat) if seat is not None else ())

    def views(self, state: QuackState, seats: Sequence[int | None]) -> tuple[QuackView, ...]:
        verify_view_seats(seats, state.seats)
        legal = [self.legal_moves(state, s) if s is not None else () for s in seats]
        return views.views(state, seats, legal)

    def redact(self, event: Event, seat: int | None) -> Event | None:
        return views.redact(event, seat)

    def describe(self, event: Event, names: Sequence[str], seat: int | None = None) -> str:
        return text.describe(event, names, seat, self.cards)

    def line_kind(self, event: Event, seat: int | None = None) -> LineKind:
        return text.LOG.line_kind(event, seat)

    def clone(self, state: QuackState) -> QuackState:
        return clone(state)

    def sample(self, view: QuackView, rng: random.Random, memory: Memory | None = None) -> QuackState:
        """A State consistent with ``view`` and ``memory`` (a Quack memory), the
        unseen cards dealt by ``rng`` (:func:`quackbox.core.quack.sampling.sample`)."""
        own = memory if isinstance(memory, sampling.Memory) else None
        return sampling.sample(view, rng, self.cards, own)

    def memory(self, seat: int) -> sampling.Memory:
        """A new record of what ``seat`` sees over a game, for :meth:`sample`."""
        return sampling.Memory(seat)

    def sim_summary(self, records: Sequence[GameRecord]) -> dict[str, Any]:
        return balance.sim_summary(records)

    def move_types(self) -> tuple[type[Move], ...]:
        return MOVE_TYPES

    def unlisted_moves(self) -> tuple[type[Move], ...]:
        """Every move a player may make is listed in ``legal_moves``."""
        return ()

    def timeout_moves(self) -> tuple[type[Move], ...]:
        """A response window's Timeout (``deadline``)."""
        return (Timeout,)

    def wire_types(self) -> tuple[type, ...]:
        return (
            MOVE_TYPES
            + EVENT_TYPES
            + (Patient, Treatment, Anytime, CaseView, DoctorView, QuackView, QuackOptions, Outcome)
        )

    def wire_refs(self) -> Mapping[type, Sequence[Any]]:
        """Cards travel by id: the Patients, Treatments and Anytime cards of the
        deck (one id space, so a hand's Treatment or Anytime is told by its id)."""
        kinds = (Patient, Treatment, Anytime)
        return {kind: tuple(card for card in self.cards if type(card) is kind) for kind in kinds}

    # making a move -----------------------------------------------------------

    def apply(self, state: QuackState, seat: int, move: Move) -> list[Event]:
        """Check ``move``, then make it from its plan; return the events (unredacted)."""
        verified = verify(state, seat, move)
        events: list[Event] = []
        verified.do(state, seat, events)
        proceed(state, events)
        return events


# --- making each move, from its plan -------------------------------------------------


def do_stay(state: QuackState, seat: int, move: StayHome, plan: None, events: list[Event]) -> None:
    """Phase 1: stay, so phases 2-4 follow."""
    practise(state, seat, events)


def do_flee(state: QuackState, seat: int, move: FleeToSwitzerland, plan: None, events: list[Event]) -> None:
    flee(state, seat, events)


def do_treatment(state: QuackState, seat: int, move: PlayTreatment, plan: TreatmentPlan, events: list[Event]) -> None:
    """Phase 5, one Treatment; then the other doctors' response window (QR13), if windows are on."""
    play_treatment(state, seat, plan, events)
    if state.options.window_seconds > 0:
        open_window(state, window_seats(state), events)


def do_anytime(state: QuackState, seat: int, move: PlayAnytime, plan: AnytimePlan, events: list[Event]) -> None:
    """QB8: an Anytime card, which may also answer the open window or meet the short-hand rule."""
    if plan.answers_window:
        state.window_seats.remove(seat)
    elif plan.meets_short_hand:
        state.short_done = True
    play_anytime(state, seat, move, plan.card, events)


def do_discard(state: QuackState, seat: int, move: Discard, plan: None, events: list[Event]) -> None:
    """The short-hand rule (QR7): out of Treatments, one Anytime card thrown away."""
    state.hands[seat].remove(move.card)
    state.doc_discard.append(move.card)
    state.short_done = True
    events.append(CardsDiscarded(seat=seat, cards=(move.card,), reason=DiscardReason.SHORT_HAND))


def do_pass(state: QuackState, seat: int, move: Pass, plan: None, events: list[Event]) -> None:
    state.window_seats.remove(seat)


def do_timeout(state: QuackState, seat: int, move: Timeout, plan: None, events: list[Event]) -> None:
    """The window's time ran out: everyone who has not answered passes."""
    state.window_seats.clear()


MOVES: Mapping[type[Move], AnyMoveKind[QuackState]] = move_table(
    move_kind(StayHome, legal.verify_stay_or_flee, do_stay),
    move_kind(FleeToSwitzerland, legal.verify_stay_or_flee, do_flee),
    move_kind(PlayTreatment, legal.verify_treatment, do_treatment),
    move_kind(PlayAnytime, legal.verify_anytime, do_anytime),
    move_kind(Discard, legal.verify_discard, do_discard),
    move_kind(Pass, legal.verify_pass, do_pass),
    move_kind(Timeout, legal.verify_timeout, do_timeout),
)
"""Every kind of move: its class, its verifier (core.quack.legal) and the function that makes it."""


def verify(state: QuackState, seat: Any, move: Move) -> Verified[QuackState]:
    """The legality gate: refuse ``move`` by ``seat`` with a RulesError, or
    return it with its plan (what applying it needs), ready to be made."""
    legal.verify_seat(state, seat, move)
    return MOVES[type(move)].check(state, seat, move)


# --- the turn ------------------------------------------------------------------


def proceed(state: QuackState, events: list[Event]) -> None:
    """Run the automatic steps until a seat must decide, or the game ends."""
    while state.phase != OVER:
        phase = state.phase
        doctor = state.doctors[state.current]
        at_work = doctor.status == PRACTISING
        if phase == WINDOW and state.window_seats:
            return
        if phase in (WINDOW, TREAT, SHORT_HAND) and at_work:
            owing = treatment_phase(state)
            if owing is not None:
                state.phase = owing
                return
            payday(state, events)
        elif phase == FLEE and at_work:
            return
        # The turn is over (a doctor who left practice mid-turn ends it at once).
        state.phase = END
        end_turn(state, events)
        if state.phase != OVER:
            next_turn(state, events)


def treatment_phase(state: QuackState) -> Phase | None:
    """Phase 5 goes on while Treatments are owed: TREAT while the hand holds
    one, else SHORT_HAND until one Anytime card is played or discarded (QR7);
    None when it is over."""
    doctor = state.doctors[state.current]
    if doctor.case is None or state.owed <= 0 or state.short_done:
        return None
    kinds = {type(state.cards[c]) for c in state.hands[state.current]}
    if Treatment in kinds:
        return TREAT
    if Anytime in kinds:
        return SHORT_HAND
    return None


def start_turn(state: QuackState, seat: int, events: list[Event]) -> None:
    state.current = seat
    state.die = 0
    state.owed = 0
    state.short_done = False
    state.plays.clear()
    state.dead.clear()
    events.append(TurnStarted(seat=seat, round=state.round))
    if state.endgame:
        state.final_pending.discard(seat)
    if state.doctors[seat].status == SWITZERLAND:
        swiss_draw(state, seat, events)
        state.phase = END
    elif state.options.deathmatch:
        practise(state, seat, events)
    else:
        state.phase = FLEE


def practise(state: QuackState, seat: int, events: list[Event]) -> None:
    """Phases 2-4: draw up to six, admit a Patient, roll the Treatments owed."""
    hand = state.hands[seat]
    if len(hand) < HAND_SIZE:
        draw(state, seat, HAND_SIZE - len(hand), events)
    doctor = state.doctors[seat]
    if doctor.case is None:
        admit(state, seat, events)
    state.phase = TREAT
    if doctor.case is None:
        return  # no Patient to be had: nothing to treat this round (QR3)
    rolls = [roll(state.rng)]
    while not DIE_LOW <= rolls[-1] <= DIE_HIGH:
        rolls.append(roll(state.rng))
    # Teaching Hospital and Staff Shortage waiting for this roll (QR17).
    change = 0
    for r in list(doctor.reminders):
        card = state.anytime(r)
        if card.effect in (qc.EXTRA_TREATMENT, qc.FEWER_TREATMENT):
            change += signed_amount(card)
            drop_reminder(state, seat, doctor.reminders, r, ReminderOutcome.USED, events)
    state.die = rolls[-1]
    state.owed = owed_after(state.die, change)
    events.append(DieRolled(seat=seat, rolls=tuple(rolls), value=state.die, owed=state.owed))


def roll(rng: random.Random) -> int:
    return int(rng.random() * DIE_SIDES) + 1


def admit(state: QuackState, seat: int, events: list[Event]) -> None:
    """Phase 3: a Patient from the Patient deck and the $50 co-pay (QB5)."""
    deck = state.patient_deck
    if not deck:
        if not state.patient_discard:
            return
        deck.extend(state.patient_discard)  # in no order: that is the shuffle
        state.patient_discard.clear()
        events.append(DeckReshuffled(pile=Pile.PATIENT, count=len(deck)))
    # The Patient deck is kept in no order and each admission takes a card at
    # random: the same chances as the top of a shuffled deck, and a game admits
    # only a handful of its Patients.
    case = Case(deck.pop(int(state.rng.random() * len(deck))))
    doctor = state.doctors[seat]
    for r in doctor.reminders:
        if state.anytime(r).effect == qc.FACE_DOWN:
            # Diagnostic Dilemma moves beside the Patient until it is revealed.
            doctor.reminders.remove(r)
            case.reminders.append(r)
            case.face_down = True
            break
    doctor.case = case
    events.append(PatientAdmitted(seat=seat, patient=case.card, face_down=case.face_down))
    doctor.money += CO_PAY
    events.append(MoneyPaid(seat=seat, amount=CO_PAY, reason=PayReason.CO_PAY, cards=(), billed=CO_PAY, reminder=NONE))


def flee(state: QuackState, seat: int, events: list[Event]) -> None:
    """QB7: final. The Patient goes with no pay and no Infamy; the Treatments
    in hand are dropped (QR11: they can never be played); then the
    Switzerland draw (QR12)."""
    doctor = state.doctors[seat]
    doctor.status = SWITZERLAND
    events.append(DoctorFled(seat=seat, money=doctor.money, infamy=doctor.infamy))
    leave_practice(state, seat, DischargeReason.FLED, events)
    hand = state.hands[seat]
    dropped = [c for c in hand if isinstance(state.cards[c], Treatment)]
    if dropped:
        hand[:] = [c for c in hand if not isinstance(state.cards[c], Treatment)]
        state.doc_discard.extend(dropped)
        events.append(CardsDiscarded(seat=seat, cards=tuple(dropped), reason=DiscardReason.FLED))
    check_endgame(state, events)
    swiss_draw(state, seat, events)
    state.phase = END


def swiss_draw(state: QuackState, seat: int, events: list[Event]) -> None:
    """QB7: draw until one Anytime card, discarding everything else. Stops
    once every card of the Doc deck and discard pile has been seen (QR12), so
    a deck without Anytime cards cannot loop for ever."""
    deck, discard = state.doc_deck, state.doc_discard
    thrown: list[int] = []

    def throw_away() -> None:
        if thrown:
            events.append(CardsDiscarded(seat=seat, cards=tuple(thrown), reason=DiscardReason.SWITZERLAND))
            thrown.clear()

    for _ in range(len(deck) + len(discard)):
        if not deck:
            throw_away()
            if not discard:
                break
            reshuffle_doc_discard(state, events)
        card = deck.pop()
        if isinstance(state.cards[card], Anytime):
            throw_away()
            state.hands[seat].append(card)
            events.append(CardsDrawn(seat=seat, cards=(card,), count=1))
            break
        discard.append(card)
        thrown.append(card)
    throw_away()


def play_treatment(state: QuackState, seat: int, plan: TreatmentPlan, events: list[Event]) -> None:
    """Phase 5, one Treatment (QB4); the response window after it is the caller's."""
    card = plan.treatment
    state.hands[seat].remove(card.id)
    doctor = state.doctors[seat]
    dest = plan.target
    redirected = False
    if doctor.redirect_card != NONE:
        # Wrong Chart (QR16): to that Patient wherever it is now, unless it left or is now our own.
        reminder, sent_to = doctor.redirect_card, doctor.redirect_to
        doctor.redirect_card = doctor.redirect_to = NONE
        holder = patient_holder(state, sent_to)
        redirected = holder != NONE and holder != seat
        outcome = ReminderOutcome.USED if redirected else ReminderOutcome.FIZZLED
        drop_reminder(state, seat, doctor.reminders, reminder, outcome, events)
        if redirected:
            dest = holder
    case = state.case(dest)
    patient = state.patient(case.card)
    points = treatment_points(card, patient)
    note, points = type_reminders(state, dest, case, card.treatment_type, points, events)
    case.treatments.append(card.id)
    case.received += 1
    case.cure += points.cure
    case.harm += points.harm
    state.plays.append((card.id, case.card))
    state.owed -= 1
    events.append(
        TreatmentPlayed(
            seat=seat,
            card=card.id,
            target=dest,
            patient=case.card,
            face_down=case.face_down,
            cure=points.cure,
            harm=points.harm,
            total_cure=case.cure,
            total_harm=case.harm,
            received=case.received,
            redirected=redirected,
            note=note,
        )
    )
    fate = case_fate(patient, case.cure, case.harm, case.received)
    if fate == Fate.CURED:
        cured(state, dest, seat, events)
    elif fate is not None:
        die(state, dest, fate, seat, events, redirected=redirected)


def type_reminders(
    state: QuackState, seat: int, case: Case, treatment_type: str, points: Points, events: list[Event]
) -> tuple[TreatmentNote, Points]:
    """Lost Lab Results and Extra Strength (QR15): the first waiting reminder
    of the Treatment's type acts, a nullifying one before a doubling one."""
    for effect in (qc.NULLIFY_TYPE, qc.BOOST_TYPE):
        for r in case.reminders:
            card = state.anytime(r)
            if card.effect == effect and card.treatment_type == treatment_type:
                drop_reminder(state, seat, case.reminders, r, ReminderOutcome.USED, events)
                if effect == qc.NULLIFY_TYPE:
                    return TreatmentNote.NULLIFIED, points._replace(cure=0, harm=0)
                return TreatmentNote.DOUBLED, points._replace(cure=points.cure * 2, harm=points.harm * 2)
    return TreatmentNote.PLAIN, points


def open_window(state: QuackState, seats: list[int], events: list[Event]) -> None:
    """After a Treatment (QR13): wait for ``seats`` (see core.quack.legal.window_seats), if any."""
    if seats:
        state.window += 1
        state.window_seats = seats
        state.phase = WINDOW
        events.append(WindowOpened(window=state.window, seats=tuple(seats)))


def payday(state: QuackState, events: list[Event]) -> None:
    """End of phase 5 (QB5, QR6): each Treatment played this round pays if its
    Patient did not die this round; Claim Denied or Upcoding acts on the sum
    (QR15). Then a face-down Patient is revealed (QR18)."""
    seat = state.current
    doctor = state.doctors[seat]
    if state.plays:
        paid = tuple(c for c, patient in state.plays if patient not in state.dead)
        billed = amount = sum(state.treatment(c).price for c in paid)
        acted = NONE
        for r in doctor.reminders:
            effect = state.anytime(r).effect
            if effect in (qc.NO_PAY, qc.DOUBLE_PAY):
                amount = 0 if effect == qc.NO_PAY else amount * 2
                acted = r
                drop_reminder(state, seat, doctor.reminders, r, ReminderOutcome.USED, events)
                break
        if amount or acted != NONE:
            # A Claim Denied that took the pay is said in numbers too ($0 instead of $1,200).
            doctor.money += amount
            events.append(
                MoneyPaid(
                    seat=seat, amount=amount, reason=PayReason.TREATMENTS, cards=paid, billed=billed, reminder=acted
                )
            )
    case = doctor.case
    if case is not None and case.face_down:
        case.face_down = False
        events.append(PatientRevealed(seat=seat, patient=case.card))
        for r in list(case.reminders):
            if state.anytime(r).effect == qc.FACE_DOWN:
                drop_reminder(state, seat, case.reminders, r, ReminderOutcome.USED, events)


def end_turn(state: QuackState, events: list[Event]) -> None:
    """Phase 6, the Angry Mob (QB6), then the endgame's end (QB9)."""
    threshold = state.options.infamy_threshold
    for s in practising(state):
        if mob_comes(state.doctors[s].infamy, threshold):
            mob(state, s, events)
    if state.endgame and not state.final_pending:
        finish(state, events)


def next_turn(state: QuackState, events: list[Event]) -> None:
    """The next doctor not mobbed; a new round when the first doctor's turn comes again."""
    doctors = state.doctors
    if all(d.status == MOBBED for d in doctors):
        finish(state, events)
        return
    seat = state.current
    while True:
        seat = (seat + 1) % state.seats
        if seat == state.first:
            state.round += 1
            limit = state.options.round_limit
            if state.round > limit and not state.endgame:
                start_endgame(state, f"round {limit} is over", events)  # QR22
                if not state.final_pending:
                    finish(state, events)
                    return
        if doctors[seat].status != MOBBED:
            break
    start_turn(state, seat, events)


# --- Anytime cards ---------------------------------------------------------------


def play_anytime(state: QuackState, seat: int, move: PlayAnytime, card: Anytime, events: list[Event]) -> None:
    """QB8: the card resolves at once; one that acts later stays as a reminder
    beside its target (or its target's Patient), the rest go to the discard."""
    c, t = card.id, move.target
    state.hands[seat].remove(c)
    effect = card.effect
    doctors = state.doctors
    target = doctors[t]
    if effect in (qc.CURE_POINTS, qc.HARM_POINTS, qc.RESET_HARM):
        points_card(state, seat, move, card, events)
        state.doc_discard.append(c)
        return
    events.append(
        AnytimePlayed(
            seat=seat,
            card=c,
            target=t,
            other=move.other,
            discard=move.discard,
            face_down=False,
            cure=NONE,
            harm=NONE,
            total_cure=NONE,
            total_harm=NONE,
        )
    )
    if effect in (qc.FACE_DOWN, qc.NO_PAY, qc.DOUBLE_PAY):
        target.reminders.append(c)
        return
    if effect in (qc.NULLIFY_TYPE, qc.BOOST_TYPE):
        state.case(t).reminders.append(c)
        return
    if effect == qc.REDIRECT:
        target.reminders.append(c)
        target.redirect_card = c
        target.redirect_to = state.case(move.other).card
        return
    if effect == qc.SHRED:
        state.hands[seat].remove(move.discard)
        state.doc_discard.append(move.discard)
        events.append(CardsDiscarded(seat=seat, cards=(move.discard,), reason=DiscardReason.SHRED))
        state.doc_discard.append(c)  # before the draw, so a reshuffle may find it
        draw(state, seat, 1, events)
        return
    if effect in (qc.EXTRA_TREATMENT, qc.FEWER_TREATMENT):
        # QR17: at once on the doctor whose Treatments are being played, else at their next roll.
        if t == state.current and state.die and state.phase in (TREAT, SHORT_HAND, WINDOW):
            state.owed = owed_after(state.owed, signed_amount(card))
            events.append(TreatmentsOwedChanged(seat=t, owed=state.owed))
        else:
            target.reminders.append(c)
            return
    elif effect in (qc.INFAMY_UP, qc.INFAMY_DOWN):
        change_infamy(state, t, signed_amount(card), InfamyReason.ANYTIME, events)
    elif effect == qc.FINE:
        lost = fine_taken(target.money, card.amount)
        target.money -= lost
        events.append(MoneyLost(seat=t, amount=lost, reason=LossReason.FINE, total=target.money))
    elif effect == qc.TRANSFER:
        other = doctors[move.other]
        target.case, other.case = other.case, target.case
    state.doc_discard.append(c)


def points_card(state: QuackState, seat: int, move: PlayAnytime, card: Anytime, events: list[Event]) -> None:
    """Placebo, Nurse Has the Night Off, Miraculous Recovery: the Patient's
    points change at once, and the event says by how much (QB8)."""
    t = move.target
    case = state.case(t)
    cure, harm = case.cure, case.harm
    if card.effect == qc.CURE_POINTS:
        case.cure += card.amount
    elif card.effect == qc.HARM_POINTS:
        case.harm += card.amount
    else:  # RESET_HARM
        case.harm = 0
    events.append(
        AnytimePlayed(
            seat=seat,
            card=card.id,
            target=t,
            other=move.other,
            discard=move.discard,
            face_down=case.face_down,
            cure=case.cure - cure,
            harm=case.harm - harm,
            total_cure=case.cure,
            total_harm=case.harm,
        )
    )
    fate = case_fate(state.patient(case.card), case.cure, case.harm, case.received)
    if card.effect == qc.HARM_POINTS and fate == Fate.HARM:
        die(state, t, Fate.HARM, seat, events, by_anytime=True)
    elif card.effect == qc.CURE_POINTS and fate == Fate.CURED:
        cured(state, t, seat, events)


# --- deaths, cures, Infamy and the Mob ---------------------------------------------------


def die(
    state: QuackState,
    seat: int,
    cause: Fate,
    by: int,
    events: list[Event],
    *,
    redirected: bool = False,
    by_anytime: bool = False,
) -> None:
    """The Patient of ``seat`` dies: no pay this round for Treatments on it
    (QR6), and its Infamy (QR9): to its doctor; split, each rounding up, with
    the player of a redirected Treatment; all to the killer in Group Practice;
    to its doctor, always, when an Anytime card did it."""
    case = state.case(seat)
    cost = state.patient(case.card).infamy
    state.dead.add(case.card)
    events.append(PatientDied(seat=seat, patient=case.card, cause=cause, by=by))
    discharge(state, seat)
    if by_anytime:
        change_infamy(state, seat, cost, InfamyReason.DEATH, events)
    elif state.options.group_practice:
        change_infamy(state, by, cost, InfamyReason.DEATH, events)
    elif redirected:
        change_infamy(state, by, split_infamy(cost), InfamyReason.DEATH, events)
        change_infamy(state, seat, split_infamy(cost), InfamyReason.DEATH, events)
    else:
        change_infamy(state, seat, cost, InfamyReason.DEATH, events)
    if state.options.turbo_infamy:  # QR10
        for s in range(state.seats):
            change_infamy(state, s, 1, InfamyReason.TURBO, events)


def cured(state: QuackState, seat: int, by: int, events: list[Event]) -> None:
    events.append(PatientCured(seat=seat, patient=state.case(seat).card, by=by))
    discharge(state, seat)


def change_infamy(state: QuackState, seat: int, change: int, reason: InfamyReason, events: list[Event]) -> None:
    """A practising doctor's Infamy changes (it is frozen in Switzerland);
    the Mob comes at once if it reaches the threshold (QB6)."""
    doctor = state.doctors[seat]
    if doctor.status != PRACTISING:
        return
    total = infamy_after(doctor.infamy, change)
    if total == doctor.infamy:
        return
    events.append(InfamyChanged(seat=seat, change=total - doctor.infamy, total=total, reason=reason))
    doctor.infamy = total
    if mob_comes(total, state.options.infamy_threshold):
        mob(state, seat, events)


def mob(state: QuackState, seat: int, events: list[Event]) -> None:
    """QB6: out of the game, unable to win; hand, Patient and reminders discarded."""
    doctor = state.doctors[seat]
    doctor.status = MOBBED
    events.append(DoctorMobbed(seat=seat, infamy=doctor.infamy))
    hand = state.hands[seat]
    if hand:
        events.append(CardsDiscarded(seat=seat, cards=tuple(hand), reason=DiscardReason.MOBBED))
        state.doc_discard.extend(hand)
        hand.clear()
    leave_practice(state, seat, DischargeReason.MOBBED, events)
    if seat in state.window_seats:
        state.window_seats.remove(seat)
    check_endgame(state, events)


# --- the end ----------------------------------------------------------------------


def check_endgame(state: QuackState, events: list[Event]) -> None:
    """QB9, QR20: with 3+ seats the endgame starts when at most 2 doctors
    practise; with 2, as the ``two_player_endgame`` option says (QR21)."""
    if state.endgame:
        return
    left = len(practising(state))
    mode = state.options.two_player_endgame
    if state.seats >= 3:
        trigger = 2
    else:
        trigger = 0 if mode == TwoPlayerEndgame.PLAY_ON else 1
    if left <= trigger:
        who = "nobody is" if not left else f"only {left} doctor{'s' if left > 1 else ''}"
        start_endgame(state, f"{who} still practising", events)
        if state.seats == 2 and mode == TwoPlayerEndgame.IMMEDIATE:
            state.final_pending.clear()


def start_endgame(state: QuackState, reason: str, events: list[Event]) -> None:
    state.endgame = True
    seats = practising(state)
    state.final_pending = set(seats)
    events.append(EndgameStarted(seats=seats, reason=reason))


def finish(state: QuackState, events: list[Event]) -> None:
    """QB9, QR23: most money among doctors not mobbed wins; ties go to lower
    Infamy, then share. Mobbed doctors rank after everyone else."""
    ranks = [(d.status == MOBBED, -d.money, d.infamy) for d in state.doctors]  # lower is better
    order = sorted(range(state.seats), key=lambda s: ranks[s])
    places = [0] * state.seats
    for i, s in enumerate(order):
        tied_with_previous = i > 0 and ranks[s] == ranks[order[i - 1]]
        places[s] = places[order[i - 1]] if tied_with_previous else i + 1
    winners = tuple(s for s in order if places[s] == 1 and state.doctors[s].status != MOBBED)
    if not winners:
        reason = "The Angry Mob got every doctor; nobody wins."
    elif len(winners) == 1:
        reason = "The most money of the doctors the Mob did not get."
    else:
        reason = "A shared win: the most money, and the least Infamy, of the doctors the Mob did not get."
    state.phase = OVER
    state.window_seats = []
    state.outcome = Outcome(winners=winners, places=tuple(places), reason=reason)
    events.append(GameEnded(winners=winners, round=state.round, reason=reason))


# --- cards moving -------------------------------------------------------------------


def shuffle(rng: random.Random, pile: list[int]) -> None:
    """Shuffle ``pile`` in place with ``rng``: each card gets a random key, in pile
    order. Every shuffle of the Doc deck is made here, so the order a seed deals
    is made here only; Side Effects shuffles another way (docs/ARCHITECTURE.md
    says why both stay)."""
    pile.sort(key=lambda _card: rng.random())


def reshuffle_doc_discard(state: QuackState, events: list[Event]) -> None:
    """QR3: an empty Doc deck is replaced by the shuffled Doc discard pile."""
    state.doc_deck.extend(state.doc_discard)
    state.doc_discard.clear()
    shuffle(state.rng, state.doc_deck)
    events.append(DeckReshuffled(pile=Pile.DOC, count=len(state.doc_deck)))


def draw(state: QuackState, seat: int, count: int, events: list[Event]) -> None:
    """Draw from the Doc deck (QR3); with the discard pile empty too, the doctor
    draws what there is. Every draw is told, an empty one too, as in Side Effects (SE4)."""
    drawn: list[int] = []
    for _ in range(count):
        if not state.doc_deck:
            if not state.doc_discard:
                break
            reshuffle_doc_discard(state, events)
        drawn.append(state.doc_deck.pop())
    state.hands[seat].extend(drawn)
    events.append(CardsDrawn(seat=seat, cards=tuple(drawn), count=len(drawn)))


def drop_reminder(
    state: QuackState, seat: int, reminders: list[int], card: int, outcome: ReminderOutcome, events: list[Event]
) -> None:
    reminders.remove(card)
    state.doc_discard.append(card)
    events.append(ReminderDiscarded(seat=seat, card=card, reason=outcome))


def discharge(state: QuackState, seat: int) -> None:
    """The Patient leaves the office: its card to the Patient discard, its
    Treatments and reminders to the Doc discard."""
    case = state.case(seat)
    state.doctors[seat].case = None
    state.patient_discard.append(case.card)
    state.doc_discard.extend(case.treatments)
    state.doc_discard.extend(case.reminders)


def leave_practice(state: QuackState, seat: int, reason: DischargeReason, events: list[Event]) -> None:
    """A doctor flees or is mobbed: Patient and reminders go, no pay, no Infamy (QB7, QR11)."""
    doctor = state.doctors[seat]
    if doctor.case is not None:
        events.append(PatientDischarged(seat=seat, patient=doctor.case.card, reason=reason))
        discharge(state, seat)
    state.doc_discard.extend(doctor.reminders)
    doctor.reminders.clear()
    doctor.redirect_card = doctor.redirect_to = NONE
    state.final_pending.discard(seat)


def practising(state: QuackState) -> tuple[int, ...]:
    return tuple(s for s, d in enumerate(state.doctors) if d.status == PRACTISING)


RULES = Quack()
_CONFORMS: Rules[QuackState, QuackView, QuackMove] = RULES
"""The type checker holds the rules object to the Rules interface here."""
