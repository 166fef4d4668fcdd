"""The legality gate: every legal move in order, and one verifier per kind of move.

:func:`legal_moves` lists what a seat may do now, in this order (bots, tests
and the TUI rely on it):

- the phase's own moves, for the seat the game waits on: ``StayHome``, then
  ``FleeToSwitzerland`` unless Deathmatch (phase 1); ``PlayTreatment`` by hand
  order, then by target seat, your own Patient (NONE) first (phase 5);
  ``Pass`` (in a response window);
- then ``PlayAnytime`` by hand order, then target seat, then second seat,
  then the card to discard in hand order (any doctor still in the game, at
  any time: QB8);
- then ``Discard`` of each Anytime card by hand order (short-hand rule only).

``Timeout`` is never listed: only the host applies it, from ``deadline``.

Each kind of move has one verifier (``verify_*``), run after
:func:`verify_seat`: it raises the :class:`~quackbox.core.rules.RulesError`
that refuses the move, with a plain sentence, or returns its plan, what
applying it needs (a :class:`TreatmentPlan`, an :class:`AnytimePlan`, or None
for the moves that need nothing). ``core.quack.rules.MOVES`` pairs each
verifier with the ``do_*`` function that makes the move. Nothing here
changes the State.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from quackbox.cards import quack as qc
from quackbox.cards.quack import Anytime, Card, Patient, Treatment
from quackbox.core.quack.cards import AIMS, DOCTOR, OWN_HAND, PATIENT, REDIRECT, SWAP, UNIQUE_REMINDERS
from quackbox.core.quack.moves import (
    MOVE_TYPES,
    Discard,
    FleeToSwitzerland,
    Pass,
    PlayAnytime,
    PlayTreatment,
    QuackMove,
    StayHome,
    Timeout,
)
from quackbox.core.quack.state import FLEE, MOBBED, OVER, PRACTISING, SHORT_HAND, TREAT, WINDOW, Doctor, QuackState
from quackbox.core.rules import (
    NONE,
    GameOver,
    IllegalMove,
    MalformedMove,
    MoveForms,
    NotYourTurn,
    seat_label,
    seat_text,
)

__all__ = [
    "AnytimePlan",
    "FORMS",
    "MoveTable",
    "TreatmentPlan",
    "anytime_moves",
    "is_seat",
    "legal_moves",
    "paired_targets",
    "patient_holder",
    "single_targets",
    "verify_anytime",
    "verify_discard",
    "verify_pass",
    "verify_seat",
    "verify_stay_or_flee",
    "verify_timeout",
    "verify_treatment",
    "waiting_for",
    "window_seats",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class TreatmentPlan:
    """A verified ``PlayTreatment``: the card, and the seat whose Patient it
    is aimed at (a waiting Wrong Chart may still send it elsewhere)."""

    treatment: Treatment
    target: int


@dataclass(frozen=True, slots=True, kw_only=True)
class AnytimePlan:
    """A verified ``PlayAnytime``: the card, and what playing it also does."""

    card: Anytime
    answers_window: bool
    """The seat is one the open response window waits for: playing answers it."""
    meets_short_hand: bool
    """The doctor whose turn it is meets the short-hand rule with it."""


# --- listing ----------------------------------------------------------------


def waiting_for(state: QuackState) -> tuple[int, ...]:
    """The seats the game needs to hear from: the open window's, or the doctor whose turn it is."""
    if state.phase == WINDOW:
        return tuple(state.window_seats)
    if state.phase == OVER:
        return ()
    return (state.current,)


def patient_holder(state: QuackState, patient: int) -> int:
    """The seat whose office holds the Patient card ``patient``, or NONE (QR16: where a Wrong Chart sends)."""
    for s, doctor in enumerate(state.doctors):
        if doctor.case is not None and doctor.case.card == patient:
            return s
    return NONE


def legal_moves(state: QuackState, seat: int, table: MoveTable) -> tuple[QuackMove, ...]:
    """Every move ``seat`` may make now, in the order above, as ``table`` holds them."""
    if state.phase == OVER or not is_seat(state, seat) or state.doctors[seat].status == MOBBED:
        return ()
    phase = state.phase
    on_turn = seat == state.current
    moves: list[QuackMove] = []
    if on_turn and phase == FLEE:
        moves.append(table.stay)
        if not state.options.deathmatch:
            moves.append(table.flee)
    elif on_turn and phase == TREAT:
        moves += _treatment_moves(state, seat, table)
    elif phase == WINDOW and seat in state.window_seats:
        moves.append(table.pass_)
    anytime = _anytime_cards(state, seat, table)
    for card in anytime:
        moves += anytime_moves(state, seat, card, table)
    if on_turn and phase == SHORT_HAND:
        moves += [table.discards[card.id] for card in anytime]
    return tuple(moves)


def _treatment_moves(state: QuackState, seat: int, table: MoveTable) -> list[PlayTreatment]:
    """Every PlayTreatment: on your own Patient, and with Group Practice on every other one."""
    own = table.own_treatments
    if not state.options.group_practice:
        return [own[c] for c in state.hands[seat] if c in own]
    doctors = state.doctors
    targets = [NONE] + [t for t in range(state.seats) if t != seat and doctors[t].case is not None]
    return [table.treatments[c, t] for c in state.hands[seat] if c in own for t in targets]


def anytime_moves(state: QuackState, seat: int, card: Anytime, table: MoveTable) -> list[PlayAnytime]:
    """Every legal play of the Anytime ``card`` by ``seat``, in the documented order (QB8, QR14-QR16)."""
    aim = AIMS[card.effect]
    if aim == PATIENT or aim == DOCTOR:
        on = table.single[card.id]
        return [on[t] for t in single_targets(state, card)]
    plays = table.plays[card.id]
    return [plays[aimed] for aimed in paired_targets(state, seat, card)]


def paired_targets(state: QuackState, seat: int, card: Anytime) -> list[tuple[int, int, int]]:
    """The (target, other, discard) of every legal play of ``card``, an Anytime
    card that names more than one target seat (:func:`single_targets` gives
    the rest): your own hand and the card to shred, or two seats."""
    aim = AIMS[card.effect]
    if aim == OWN_HAND:
        return [(seat, NONE, d) for d in state.hands[seat] if d != card.id]
    patients = _seats_with_a_patient(state)
    if aim == SWAP:
        return [(t, o, NONE) for i, t in enumerate(patients) for o in patients[i + 1 :]]
    return [(t, o, NONE) for t in _redirect_targets(state) for o in patients if o != t]  # REDIRECT


def window_seats(state: QuackState) -> list[int]:
    """The seats a response window after a Treatment waits for (QR13): the
    other doctors still in the game, in turn order from the next one, who may
    play an Anytime card now."""
    others = [(state.current + i) % state.seats for i in range(1, state.seats)]
    return [s for s in others if state.doctors[s].status != MOBBED and _can_play_anytime(state, s)]


def _can_play_anytime(state: QuackState, seat: int) -> bool:
    """Whether ``seat`` holds an Anytime card it may play now."""
    for c in state.hands[seat]:
        card = state.cards[c]
        if isinstance(card, Anytime):
            aim = AIMS[card.effect]
            single = aim == PATIENT or aim == DOCTOR
            if single_targets(state, card) if single else paired_targets(state, seat, card):
                return True
    return False


class MoveTable:
    """Every move :func:`legal_moves` can list for one deck, made once.

    Moves are frozen values, so every game of the deck may be handed the same
    ones; and making a frozen dataclass costs about as much as the rest of a
    decision. So the Rules object makes them all when it is built (the deck
    and the most seats there can be are known then), and nothing writes the
    table afterwards.
    """

    def __init__(self, cards: Sequence[Card], max_seats: int) -> None:
        seats = range(max_seats)
        doc_cards = [c.id for c in cards if not isinstance(c, Patient)]
        self.stay = StayHome()
        self.flee = FleeToSwitzerland()
        self.pass_ = Pass()
        self.treatments = {
            (c.id, t): PlayTreatment(c.id, t) for c in cards if isinstance(c, Treatment) for t in (NONE, *seats)
        }
        """By (card, target)."""
        self.own_treatments = {c: move for (c, t), move in self.treatments.items() if t == NONE}
        """By Treatment card: the move on your own Patient."""
        anytime = [c for c in cards if isinstance(c, Anytime)]
        self.anytime_cards = frozenset(c.id for c in anytime)
        self.discards = {c.id: Discard(c.id) for c in anytime}
        self.single: dict[int, tuple[PlayAnytime, ...]] = {}
        """The plays of each one-target Anytime card (its aim a Patient or a doctor), by target seat."""
        self.plays: dict[int, dict[tuple[int, int, int], PlayAnytime]] = {}
        """The plays of each other Anytime card, by (target, other, discard)."""
        for card in anytime:
            aim = AIMS[card.effect]
            if aim == OWN_HAND:
                plays = [(s, NONE, d) for s in seats for d in doc_cards if d != card.id]
            elif aim == SWAP or aim == REDIRECT:
                plays = [(t, o, NONE) for t in seats for o in seats if o != t]
            else:
                self.single[card.id] = tuple(PlayAnytime(card.id, t) for t in seats)
                continue
            self.plays[card.id] = {(t, o, d): PlayAnytime(card.id, t, o, d) for t, o, d in plays}


def _anytime_cards(state: QuackState, seat: int, table: MoveTable) -> list[Anytime]:
    """The Anytime cards in ``seat``'s hand, in hand order."""
    return [state.anytime(c) for c in state.hands[seat] if c in table.anytime_cards]


def _seats_with_a_patient(state: QuackState) -> list[int]:
    return [t for t, doctor in enumerate(state.doctors) if doctor.case is not None]


def single_targets(state: QuackState, card: Anytime) -> list[int]:
    """The seats the one-target Anytime ``card`` may be played on now (QR14, QR15):
    a doctor with a Patient for a card that acts on the Patient, else a
    practising doctor, who must not have that reminder waiting already, must
    have Infamy to lose (Glowing Online Review) or money to lose (Tax Audit)."""
    doctors = enumerate(state.doctors)
    effect = card.effect
    if AIMS[effect] == PATIENT:
        return [t for t, d in doctors if d.case is not None]
    if effect in UNIQUE_REMINDERS:
        return [t for t, d in doctors if d.status == PRACTISING and not _waiting(state, d, effect)]
    if effect == qc.INFAMY_DOWN:
        return [t for t, d in doctors if d.status == PRACTISING and d.infamy > 0]
    if effect == qc.FINE:
        return [t for t, d in doctors if d.status == PRACTISING and d.money > 0]
    return [t for t, d in doctors if d.status == PRACTISING]


def _waiting(state: QuackState, doctor: Doctor, effect: str) -> bool:
    """Whether a reminder with ``effect`` waits beside ``doctor``."""
    for r in doctor.reminders:
        if state.anytime(r).effect == effect:
            return True
    return False


def _redirect_targets(state: QuackState) -> list[int]:
    """The doctors whose next Treatment Wrong Chart may redirect (QR16): practising, with none waiting."""
    return [t for t, d in enumerate(state.doctors) if d.status == PRACTISING and d.redirect_card == NONE]


# --- verifying ----------------------------------------------------------------


FORMS = MoveForms(MOVE_TYPES, "Quack in the Box")
"""Each move's fields: every one holds a card id, a seat or a window number."""


def verify_seat(state: QuackState, seat: Any, move: Any) -> None:
    """What every move must pass before its own verifier: a move of this game
    with whole numbers in its fields, from a seat of the table, in a game not
    over, by a doctor still in it (any seat may carry the host's Timeout)."""
    FORMS.check(move)
    if not is_seat(state, seat):
        raise MalformedMove(f"There is no {seat_text(seat)} at this table of {state.seats}.")
    if state.phase == OVER:
        raise GameOver("The game is over.")
    # Any seat may carry the host's Timeout: it speaks for nobody in particular.
    if type(move) is not Timeout and state.doctors[seat].status == MOBBED:
        raise NotYourTurn("The Angry Mob ran you out of town: you are out of the game.")


# One verifier per kind of move (core.quack.rules.MOVES pairs each with the
# do_* function that makes the move): each runs after verify_seat and returns
# the move's plan.


def verify_timeout(state: QuackState, seat: int, move: Timeout) -> None:
    if state.phase != WINDOW or move.window != state.window:
        raise IllegalMove(f"Response window {move.window} is not open, so it cannot time out.")


def verify_pass(state: QuackState, seat: int, move: Pass) -> None:
    if state.phase == WINDOW:
        _waited_on_in_window(state, seat)
        return
    _on_turn(state, seat)
    raise IllegalMove("There is no response window open to pass in.")


def verify_stay_or_flee(state: QuackState, seat: int, move: StayHome | FleeToSwitzerland) -> None:
    _decides_now(state, seat)
    if type(move) is FleeToSwitzerland and state.options.deathmatch:
        raise IllegalMove("Deathmatch: nobody can flee the country.")
    if state.phase != FLEE:
        raise IllegalMove("Staying or fleeing is decided at the start of your turn, before you draw.")


def verify_treatment(state: QuackState, seat: int, move: PlayTreatment) -> TreatmentPlan:
    _decides_now(state, seat)
    if state.phase == FLEE:
        raise IllegalMove("First decide whether to stay or flee to Switzerland.")
    if state.phase != TREAT:
        raise IllegalMove("You have no Treatments left to play: play or discard one Anytime card.")
    card = _card_in_hand(state, seat, move.card)
    if not isinstance(card, Treatment):
        raise IllegalMove(f"{card.name} is not a Treatment.")
    target = move.target
    if target == NONE:
        return TreatmentPlan(treatment=card, target=seat)
    if target == seat:
        # One move, one spelling: legal_moves names your own Patient by NONE.
        raise IllegalMove(f"Your own Patient is named by no target ({NONE}), not by your seat.")
    if not state.options.group_practice:
        raise IllegalMove("You may treat only your own Patient (Group Practice is off).")
    if not 0 <= target < state.seats:
        raise IllegalMove(f"There is no {seat_label(target)} at this table.")
    if state.doctors[target].case is None:
        raise IllegalMove(f"{_seat_first(target)} has no Patient to treat.")
    return TreatmentPlan(treatment=card, target=target)


def verify_discard(state: QuackState, seat: int, move: Discard) -> None:
    _decides_now(state, seat)
    if state.phase != SHORT_HAND:
        raise IllegalMove("You may discard an Anytime card only when the short-hand rule asks for it.")
    card = _card_in_hand(state, seat, move.card)
    if not isinstance(card, Anytime):
        raise IllegalMove(f"{card.name} is not an Anytime card.")


def verify_anytime(state: QuackState, seat: int, move: PlayAnytime) -> AnytimePlan:
    card = _card_in_hand(state, seat, move.card)
    if not isinstance(card, Anytime):
        raise IllegalMove(f"{card.name} is not an Anytime card.")
    t, o, d = move.target, move.other, move.discard
    seats = state.seats
    if not 0 <= t < seats:
        raise IllegalMove(f"There is no {seat_label(t)} at this table.")
    aim = AIMS[card.effect]
    two_seats = aim in (REDIRECT, SWAP)
    if not two_seats and o != NONE:
        raise IllegalMove(f"{card.name} takes one target; leave the second seat empty ({NONE}).")
    if aim != OWN_HAND and d != NONE:
        raise IllegalMove(f"{card.name} does not discard a card; leave discard empty ({NONE}).")
    if two_seats and not 0 <= o < seats:
        raise IllegalMove(f"{card.name} needs a second seat, and there is no {seat_label(o)}.")
    doctors = state.doctors
    if aim == OWN_HAND:
        if t != seat:
            raise IllegalMove(f"{card.name} works only on your own hand.")
        if d == card.id:
            raise IllegalMove(f"{card.name} cannot discard itself; name another card from your hand.")
        _card_in_hand(state, seat, d)
    elif aim == SWAP:
        if o == t:
            raise IllegalMove(f"{card.name} needs two different doctors.")
        if doctors[t].case is None or doctors[o].case is None:
            raise IllegalMove(f"{card.name} needs two doctors who both have a Patient.")
        if o < t:
            raise IllegalMove(
                f"Name the lower seat first for {card.name}: target {seat_label(o)}, other {seat_label(t)}."
            )
    elif aim == REDIRECT:
        if t not in _redirect_targets(state):
            if doctors[t].status != PRACTISING:
                raise IllegalMove(f"{_seat_first(t)} no longer practises, so has no Treatment to redirect.")
            raise IllegalMove(f"{_seat_first(t)} already has a {card.name} waiting.")
        if o == t:
            raise IllegalMove(f"{card.name} must send the Treatment to another doctor's Patient.")
        if doctors[o].case is None:
            raise IllegalMove(f"{_seat_first(o)} has no Patient to receive the Treatment.")
    elif t not in single_targets(state, card):
        raise IllegalMove(_why_not(state, card, t))
    return AnytimePlan(
        card=card,
        answers_window=state.phase == WINDOW and seat in state.window_seats,
        meets_short_hand=state.phase == SHORT_HAND and seat == state.current,
    )


def _why_not(state: QuackState, card: Anytime, t: int) -> str:
    """Why :func:`single_targets` leaves seat ``t`` out for ``card``, in a sentence."""
    doctor = state.doctors[t]
    seat = _seat_first(t)
    if AIMS[card.effect] == PATIENT:
        return f"{seat} has no Patient for {card.name}."
    if doctor.status != PRACTISING:
        return f"{seat} no longer practises, so {card.name} has nothing to act on."
    if card.effect in UNIQUE_REMINDERS:
        return f"{seat} already has a {card.name} waiting."
    if card.effect == qc.INFAMY_DOWN:
        return f"{seat} has no Infamy to lose."
    return f"{seat} has no money to lose."


# --- who may act ------------------------------------------------------------------


def is_seat(state: QuackState, seat: Any) -> bool:
    """Whether ``seat`` is a seat of this game (anything else views as a spectator)."""
    # type(): True == 1, but a bool is no seat.
    return type(seat) is int and 0 <= seat < state.seats


def _waited_on_in_window(state: QuackState, seat: int) -> None:
    if seat not in state.window_seats:
        waiting = ", ".join(seat_label(s) for s in state.window_seats)
        raise NotYourTurn(f"The game is waiting for {waiting} to play an Anytime card or pass.")


def _on_turn(state: QuackState, seat: int) -> None:
    if seat != state.current:
        raise NotYourTurn(f"It is {seat_label(state.current)}'s turn, not {seat_label(seat)}'s.")


def _decides_now(state: QuackState, seat: int) -> None:
    """The seat is the one whose decision the game waits for, outside a response window."""
    if state.phase == WINDOW:
        _waited_on_in_window(state, seat)
        raise IllegalMove("A response window is open: play an Anytime card or pass.")
    _on_turn(state, seat)


def _card_in_hand(state: QuackState, seat: int, card: int) -> Card:
    if card not in state.hands[seat]:
        if 0 <= card < len(state.cards):
            raise IllegalMove(f"{state.cards[card].name} (card {card}) is not in your hand.")
        raise IllegalMove(f"There is no card {card} in this game.")
    return state.cards[card]


def _seat_first(seat: int) -> str:
    """``seat_label`` at the start of a sentence: "Seat 3"."""
    return seat_label(seat).capitalize()
