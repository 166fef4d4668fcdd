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

:func:`verify` raises the :class:`~core.rules.RulesError` that refuses a move,
with a plain sentence, or returns what applying it needs: a
:class:`TreatmentPlan`, an :class:`AnytimePlan`, or None for the moves that
need nothing. Neither function changes the State.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Callable

from cards import quack as qc
from cards.quack import Anytime, Card, Treatment
from core.quack.cards import AIMS, UNIQUE_REMINDERS, Aim
from core.quack.moves import (
    MOVE_TYPES,
    Discard,
    FleeToSwitzerland,
    Pass,
    PlayAnytime,
    PlayTreatment,
    StayHome,
    Timeout,
)
from core.quack.state import Doctor, Phase, QuackState, Status
from core.rules import NONE, GameOver, IllegalMove, MalformedMove, Move, NotYourTurn, seat_label

__all__ = [
    "AnytimePlan", "TreatmentPlan", "anytime_moves", "can_play_anytime", "legal_moves", "verify", "waiting_for",
]


@dataclass(frozen=True, slots=True)
class TreatmentPlan:
    """A verified ``PlayTreatment``: the card, and the seat whose Patient it
    is aimed at (a waiting Wrong Chart may still send it elsewhere)."""

    treatment: Treatment
    target: int


@dataclass(frozen=True, slots=True)
class AnytimePlan:
    """A verified ``PlayAnytime``: the card, and what playing it also does."""

    card: Anytime
    answers_window: bool
    """The seat is one the open response window waits for: playing answers it."""
    meets_short_hand: bool
    """The doctor whose turn it is meets the short-hand rule with it."""


Plan = TreatmentPlan | AnytimePlan | None


# --- listing ----------------------------------------------------------------


def waiting_for(state: QuackState) -> tuple[int, ...]:
    """The seats the game needs to hear from: the open window's, or the doctor whose turn it is."""
    if state.phase == Phase.WINDOW:
        return tuple(state.window)
    if state.phase == Phase.OVER:
        return ()
    return (state.turn,)


def legal_moves(state: QuackState, seat: int) -> tuple[Move, ...]:
    """Every move ``seat`` may make now, in the order above."""
    if state.over or not _is_seat(state, seat) or state.doctors[seat].status == Status.MOBBED:
        return ()
    phase = state.phase
    on_turn = seat == state.turn
    moves: list[Move] = []
    if on_turn and phase == Phase.FLEE:
        moves.append(StayHome())
        if not state.options.deathmatch:
            moves.append(FleeToSwitzerland())
    elif on_turn and phase == Phase.TREAT:
        moves += _treatment_moves(state, seat)
    elif phase == Phase.WINDOW and seat in state.window:
        moves.append(Pass())
    anytime = _anytime_cards(state, seat)
    for card in anytime:
        moves += anytime_moves(state, seat, card)
    if on_turn and phase == Phase.SHORT_HAND:
        moves += [Discard(card.id) for card in anytime]
    return tuple(moves)


def _treatment_moves(state: QuackState, seat: int) -> list[PlayTreatment]:
    treatments = [c for c in state.hands[seat] if isinstance(state.cards[c], Treatment)]
    if not state.options.group_practice:
        return [PlayTreatment(c) for c in treatments]
    doctors = state.doctors
    targets = [NONE] + [t for t in range(state.seats) if t != seat and doctors[t].patient is not None]
    return [PlayTreatment(c, t) for c in treatments for t in targets]


def anytime_moves(state: QuackState, seat: int, card: Anytime) -> list[PlayAnytime]:
    """Every legal play of the Anytime ``card`` by ``seat``, in the documented order."""
    c = card.id
    aim = AIMS[card.effect]
    if aim == Aim.OWN_HAND:
        return [PlayAnytime(c, seat, NONE, d) for d in state.hands[seat] if d != c]
    if aim == Aim.SWAP:
        patients = _seats_with_a_patient(state)
        return [PlayAnytime(c, t, o) for i, t in enumerate(patients) for o in patients[i + 1:]]
    if aim == Aim.REDIRECT:
        patients = _seats_with_a_patient(state)
        return [
            PlayAnytime(c, t, o)
            for t, doctor in enumerate(state.doctors)
            if _redirect_refusal(doctor) is None
            for o in patients
            if o != t
        ]
    return [PlayAnytime(c, t) for t in range(state.seats) if _single_target_refusal(state, card, t) is None]


def can_play_anytime(state: QuackState, seat: int) -> bool:
    """Whether ``seat`` holds an Anytime card it may play now (who a response window waits for)."""
    return any(anytime_moves(state, seat, card) for card in _anytime_cards(state, seat))


def _anytime_cards(state: QuackState, seat: int) -> list[Anytime]:
    cards = state.cards
    return [cards[c] for c in state.hands[seat] if isinstance(cards[c], Anytime)]


def _seats_with_a_patient(state: QuackState) -> list[int]:
    return [t for t, doctor in enumerate(state.doctors) if doctor.patient is not None]


def _single_target_refusal(state: QuackState, card: Anytime, t: int) -> str | None:
    """Why the one-target Anytime ``card`` may not be played on seat ``t`` now,
    as a sentence naming ``{seat}`` and ``{card}``; None when it may (QR14, QR15)."""
    doctor = state.doctors[t]
    effect = card.effect
    if AIMS[effect] == Aim.PATIENT:
        return None if doctor.patient is not None else "{seat} has no Patient for {card}."
    if doctor.status != Status.PRACTISING:
        return "{seat} no longer practises, so {card} has nothing to act on."
    if effect in UNIQUE_REMINDERS and any(state.cards[r].effect == effect for r in doctor.reminders):
        return "{seat} already has a {card} waiting."
    if effect == qc.INFAMY_DOWN and doctor.infamy <= 0:
        return "{seat} has no Infamy to lose."
    if effect == qc.FINE and doctor.money <= 0:
        return "{seat} has no money to lose."
    return None


def _redirect_refusal(doctor: Doctor) -> str | None:
    """Why Wrong Chart may not aim at ``doctor``'s next Treatment (QR16); None when it may."""
    if doctor.status != Status.PRACTISING:
        return "{seat} no longer practises, so has no Treatment to redirect."
    if doctor.redirect_card != NONE:
        return "{seat} already has a Wrong Chart waiting."
    return None


# --- verifying ----------------------------------------------------------------


def verify(state: QuackState, seat: Any, move: Any) -> Plan:
    """Refuse ``move`` by ``seat`` with a RulesError, or return what applying it needs."""
    verifier = _VERIFIERS.get(type(move))
    if verifier is None:
        raise MalformedMove(f"{move!r} is not a Quack in the Box move.")
    for name in _FIELDS[type(move)]:
        value = getattr(move, name)
        if type(value) is not int:
            raise MalformedMove(f"{type(move).__name__}.{name} must be a whole number, not {value!r}.")
    if not _is_seat(state, seat):
        raise MalformedMove(f"There is no seat {seat!r} at this table of {state.seats}; seats count from 0.")
    if state.over:
        raise GameOver("The game is over.")
    return verifier(state, seat, move)


def _verify_timeout(state: QuackState, seat: int, move: Timeout) -> None:
    # Any seat may carry the host's timeout: it speaks for nobody in particular.
    if state.phase != Phase.WINDOW or move.window != state.window_id:
        raise IllegalMove(f"Response window {move.window} is not open, so it cannot time out.")


def _verify_pass(state: QuackState, seat: int, move: Pass) -> None:
    _still_in_the_game(state, seat)
    if state.phase == Phase.WINDOW:
        _waited_on_in_window(state, seat)
        return
    _on_turn(state, seat)
    raise IllegalMove("There is no response window open to pass in.")


def _verify_stay_or_flee(state: QuackState, seat: int, move: StayHome | FleeToSwitzerland) -> None:
    _decides_now(state, seat)
    if type(move) is FleeToSwitzerland and state.options.deathmatch:
        raise IllegalMove("Deathmatch: nobody can flee the country.")
    if state.phase != Phase.FLEE:
        raise IllegalMove("Staying or fleeing is decided at the start of your turn, before you draw.")


def _verify_treatment(state: QuackState, seat: int, move: PlayTreatment) -> TreatmentPlan:
    _decides_now(state, seat)
    if state.phase == Phase.FLEE:
        raise IllegalMove("First decide whether to stay or flee to Switzerland.")
    if state.phase != Phase.TREAT:
        raise IllegalMove("You have no Treatments left to play: play or discard one Anytime card.")
    card = _card_in_hand(state, seat, move.card)
    if not isinstance(card, Treatment):
        raise IllegalMove(f"{card.name} is not a Treatment.")
    target = move.target
    if target == NONE or target == seat:
        return TreatmentPlan(card, seat)
    if not state.options.group_practice:
        raise IllegalMove("You may treat only your own Patient (Group Practice is off).")
    if not 0 <= target < state.seats:
        raise IllegalMove(f"There is no {seat_label(target)} at this table.")
    if state.doctors[target].patient is None:
        raise IllegalMove(f"{_seat_first(target)} has no Patient to treat.")
    return TreatmentPlan(card, target)


def _verify_discard(state: QuackState, seat: int, move: Discard) -> None:
    _decides_now(state, seat)
    if state.phase != Phase.SHORT_HAND:
        raise IllegalMove("You may discard an Anytime card only when the short-hand rule asks for it.")
    card = _card_in_hand(state, seat, move.card)
    if not isinstance(card, Anytime):
        raise IllegalMove(f"{card.name} is not an Anytime card.")


def _verify_anytime(state: QuackState, seat: int, move: PlayAnytime) -> AnytimePlan:
    _still_in_the_game(state, seat)
    card = _card_in_hand(state, seat, move.card)
    if not isinstance(card, Anytime):
        raise IllegalMove(f"{card.name} is not an Anytime card.")
    t, o, d = move.target, move.other, move.discard
    seats = state.seats
    if not 0 <= t < seats:
        raise IllegalMove(f"There is no {seat_label(t)} at this table.")
    aim = AIMS[card.effect]
    two_seats = aim in (Aim.REDIRECT, Aim.SWAP)
    if not two_seats and o != NONE:
        raise IllegalMove(f"{card.name} takes one target; leave the second seat empty ({NONE}).")
    if aim != Aim.OWN_HAND and d != NONE:
        raise IllegalMove(f"{card.name} does not discard a card; leave discard empty ({NONE}).")
    if two_seats and not 0 <= o < seats:
        raise IllegalMove(f"{card.name} needs a second seat, and there is no {seat_label(o)}.")
    doctors = state.doctors
    if aim == Aim.OWN_HAND:
        if t != seat:
            raise IllegalMove(f"{card.name} works only on your own hand.")
        if d == card.id:
            raise IllegalMove(f"{card.name} cannot discard itself; name another card from your hand.")
        _card_in_hand(state, seat, d)
    elif aim == Aim.SWAP:
        if o == t:
            raise IllegalMove(f"{card.name} needs two different doctors.")
        if doctors[t].patient is None or doctors[o].patient is None:
            raise IllegalMove(f"{card.name} needs two doctors who both have a Patient.")
        if o < t:
            raise IllegalMove(f"Name the lower seat first for {card.name}: "
                              f"target {seat_label(o)}, other {seat_label(t)}.")
    elif aim == Aim.REDIRECT:
        refusal = _redirect_refusal(doctors[t])
        if refusal is not None:
            raise IllegalMove(refusal.format(seat=_seat_first(t)))
        if o == t:
            raise IllegalMove(f"{card.name} must send the Treatment to another doctor's Patient.")
        if doctors[o].patient is None:
            raise IllegalMove(f"{_seat_first(o)} has no Patient to receive the Treatment.")
    else:
        refusal = _single_target_refusal(state, card, t)
        if refusal is not None:
            raise IllegalMove(refusal.format(seat=_seat_first(t), card=card.name))
    return AnytimePlan(
        card,
        answers_window=state.phase == Phase.WINDOW and seat in state.window,
        meets_short_hand=state.phase == Phase.SHORT_HAND and seat == state.turn,
    )


_VERIFIERS: dict[type, Callable[[QuackState, int, Any], Plan]] = {
    StayHome: _verify_stay_or_flee,
    FleeToSwitzerland: _verify_stay_or_flee,
    PlayTreatment: _verify_treatment,
    PlayAnytime: _verify_anytime,
    Discard: _verify_discard,
    Pass: _verify_pass,
    Timeout: _verify_timeout,
}
_FIELDS = {cls: tuple(f.name for f in fields(cls)) for cls in MOVE_TYPES}
"""Each move's field names: every one holds a card id, a seat or a window number."""


# --- who may act ------------------------------------------------------------------


def _is_seat(state: QuackState, seat: Any) -> bool:
    # type(): True == 1, but a bool is no seat.
    return type(seat) is int and 0 <= seat < state.seats


def _still_in_the_game(state: QuackState, seat: int) -> None:
    if state.doctors[seat].status == Status.MOBBED:
        raise NotYourTurn("The Angry Mob ran you out of town: you are out of the game.")


def _waited_on_in_window(state: QuackState, seat: int) -> None:
    if seat not in state.window:
        waiting = ", ".join(seat_label(s) for s in state.window)
        raise NotYourTurn(f"The game is waiting for {waiting} to play an Anytime card or pass.")


def _on_turn(state: QuackState, seat: int) -> None:
    if seat != state.turn:
        raise NotYourTurn(f"It is {seat_label(state.turn)}'s turn, not {seat_label(seat)}'s.")


def _decides_now(state: QuackState, seat: int) -> None:
    """The seat is the one whose decision the game waits for, outside a response window."""
    _still_in_the_game(state, seat)
    if state.phase == Phase.WINDOW:
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
