"""Stack a Side Effects table for scenario tests.

:func:`table` deals a real game with ``RULES.new_game`` and then moves real
card ids between the piles until the named cards sit where the test says, so
every card of the deck is still in exactly one place (the 89-card
conservation holds). Cards are named, never numbered: the helper picks an
unused id of the named kind, preferring the draw pile, then the discard
pile, and only then a seat the test left alone (which gets a replacement).

Conventions:

- ``psyches={seat: [entry, ...]}``: an entry is a Disorder name (untreated)
  or a ``(disorder, drug)`` pair (treated). Seats not named keep their dealt
  Psyche.
- ``hands={seat: [name, ...]}``: seats not named keep their dealt hand.
- ``draw=[...]`` and ``discard=[...]`` are listed **top first**: ``draw[0]``
  is the next card drawn, ``discard[0]`` the face-up card.
- Every card not placed (the *leftovers*) goes under the draw pile (the
  default), under the discard pile (``leftovers="discard"``), or into a
  seat's hand (``leftovers=2``) so both piles can be left empty.
- The table is set at the start of ``current``'s plays: this turn's draw
  has already happened, ``plays_left`` is 2, and no offer is open.
"""

from __future__ import annotations

import copy
import random
from collections import Counter
from dataclasses import replace
from typing import Any, Iterable, Mapping, Sequence

from quackbox.cards import side_effects as se_cards
from quackbox.core import side_effects as se
from quackbox.core.rules import NONE, Event, Move
from quackbox.core.side_effects import RULES, SEOptions, SEState

Entry = str | tuple[str, str]


def options(**values: Any) -> SEOptions:
    """SEOptions with the given fields set (the rest default)."""
    return replace(SEOptions(), **values)


def table(
    seats: int = 3,
    *,
    psyches: Mapping[int, Sequence[Entry]] | None = None,
    hands: Mapping[int, Sequence[str]] | None = None,
    draw: Sequence[str] | None = None,
    discard: Sequence[str] | None = None,
    leftovers: str | int = "draw",
    current: int = 0,
    options: SEOptions | Mapping[str, Any] | None = None,
    seed: int = 0,
) -> SEState:
    """A dealt game rearranged as described in the module docstring."""
    opts = se.parse_options(options)
    opts = replace(opts, first_seat=current)
    state = RULES.new_game(seats=seats, options=opts, seed=seed)
    psyches = dict(psyches or {})
    hands = dict(hands or {})
    cards = state.cards

    # Where every card lies now, in the order cards are taken from.
    loose = list(reversed(state.draw)) + list(reversed(state.discard))
    for s in range(seats):  # restacked seats give up all their cards freely
        if s in hands:
            loose += state.hands[s]
        if s in psyches:
            loose += [c for slot in state.psyche[s] for c in (slot.disorder, slot.drug) if c != NONE]
    kept_hands = {s: list(state.hands[s]) for s in range(seats) if s not in hands}
    kept_psyches = {
        s: [[slot.disorder, slot.drug] for slot in state.psyche[s]] for s in range(seats) if s not in psyches
    }
    reserve = [c for h in kept_hands.values() for c in h]
    reserve += [c for p in kept_psyches.values() for slot in p for c in slot if c != NONE]
    taken: set[int] = set()

    def take(name: str, pool: Iterable[int] | None = None) -> int:
        for c in pool if pool is not None else loose + reserve:
            if c not in taken and cards[c].name == name:
                taken.add(c)
                return c
        raise ValueError(f"no free card named {name!r} is left in this deck")

    new_psyches: dict[int, list[list[int]]] = {}
    for s, entries in psyches.items():
        slots = []
        for entry in entries:
            disorder, drug = (entry, None) if isinstance(entry, str) else entry
            d = take(disorder)
            if cards[d].kind != se_cards.DISORDER:
                raise ValueError(f"{disorder!r} is not a Disorder")
            g = take(drug) if drug is not None else NONE
            slots.append([d, g])
        new_psyches[s] = slots
    new_hands = {s: [take(name) for name in names] for s, names in hands.items()}
    top_of_draw = [take(name) for name in draw or ()]
    top_of_discard = [take(name) for name in discard or ()]

    # Seats left alone lose a card only when no loose copy was left: refill
    # them from the loose cards (a Disorder the seat does not hold yet).
    for _s, slots in kept_psyches.items():
        for slot in slots:
            if slot[0] in taken:
                held = {cards[d].name for d, _g in slots}
                slot[0] = next(
                    c
                    for c in loose
                    if c not in taken and cards[c].kind == se_cards.DISORDER and cards[c].name not in held
                )
                taken.add(slot[0])
    for _s, hand in kept_hands.items():
        for i, c in enumerate(hand):
            if c in taken:
                hand[i] = next(c for c in loose if c not in taken)
                taken.add(hand[i])
    kept = {c for h in kept_hands.values() for c in h}
    kept |= {c for p in kept_psyches.values() for slot in p for c in slot if c != NONE}

    rest = [c for c in loose + reserve if c not in taken and c not in kept]
    for s in range(seats):
        pairs = new_psyches[s] if s in new_psyches else kept_psyches[s]
        state.psyche[s] = [se.PsycheSlot(d, g) for d, g in pairs]
        state.hands[s] = new_hands[s] if s in new_hands else kept_hands[s]
    # Piles keep their top at the end of the list.
    state.draw = list(reversed(top_of_draw))
    state.discard = list(reversed(top_of_discard))
    if leftovers == "draw":
        state.draw[:0] = reversed(rest)
    elif leftovers == "discard":
        state.discard[:0] = reversed(rest)
    elif isinstance(leftovers, int) and not isinstance(leftovers, bool) and 0 <= leftovers < seats:
        state.hands[leftovers].extend(rest)
    else:
        raise ValueError(f"leftovers must be 'draw', 'discard' or a seat, not {leftovers!r}")

    state.phase = se.PLAY
    state.plays_left = se.PLAYS_PER_TURN
    state.impotent = False
    state.offers.clear()
    assert_conserved(state)
    return state


# --- finding cards ----------------------------------------------------------


def card_id(state: SEState, seat: int, name: str) -> int:
    """The id of a card called ``name`` in ``seat``'s hand (the first one)."""
    for c in state.hands[seat]:
        if state.cards[c].name == name:
            return c
    raise ValueError(f"seat {seat} holds no {name!r}: {hand_names(state, seat)}")


def slot_of(state: SEState, seat: int, name: str) -> se.PsycheSlot:
    """The slot of the Disorder ``name`` on ``seat``'s Psyche."""
    for slot in state.psyche[seat]:
        if state.cards[slot.disorder].name == name:
            return slot
    raise ValueError(f"seat {seat} has no {name!r}: {psyche_names(state, seat)}")


def disorder_id(state: SEState, seat: int, name: str) -> int:
    """The card id of the Disorder ``name`` on ``seat``'s Psyche (what moves name)."""
    return slot_of(state, seat, name).disorder


def drug_on(state: SEState, seat: int, name: str) -> int:
    """The id of the Drug on ``seat``'s Disorder ``name`` (NONE if untreated)."""
    return slot_of(state, seat, name).drug


def names(state: SEState, ids: Iterable[int]) -> list[str]:
    return [state.cards[c].name for c in ids]


def hand_names(state: SEState, seat: int) -> list[str]:
    """``seat``'s hand as names, sorted (order in hand does not matter)."""
    return sorted(names(state, state.hands[seat]))


def psyche_names(state: SEState, seat: int) -> list[Entry]:
    """``seat``'s Psyche written the way :func:`table` takes it."""
    out: list[Entry] = []
    for slot in state.psyche[seat]:
        d, g = slot.disorder, slot.drug
        out.append(state.cards[d].name if g == NONE else (state.cards[d].name, state.cards[g].name))
    return out


def of_type(events: Iterable[Event], kind: type) -> list[Any]:
    """The events of one class, in order."""
    return [e for e in events if type(e) is kind]


# --- invariants -------------------------------------------------------------


def locations(state: SEState) -> Counter:
    """How many times each card id appears across every pile."""
    seen: Counter = Counter(state.draw)
    seen.update(state.discard)
    for s in range(state.seats):
        seen.update(state.hands[s])
        seen.update(c for slot in state.psyche[s] for c in (slot.disorder, slot.drug) if c != NONE)
    return seen


def assert_conserved(state: SEState) -> None:
    """Every card of the deck lies in exactly one place (89, or 93 with bonus cards)."""
    seen = locations(state)
    doubled = {c: n for c, n in seen.items() if n != 1}
    assert not doubled, f"cards in more than one place: {doubled}"
    assert set(seen) == set(range(len(state.cards))), "cards lost: " + str(set(range(len(state.cards))) - set(seen))


def snapshot(state: SEState) -> dict[str, Any]:
    """Every field of the state as a comparable value, ``rng`` as its getstate().

    Walks ``__slots__`` so a field added later is covered too. A value
    without value equality is compared by identity.
    """
    out: dict[str, Any] = {}
    for name in type(state).__slots__:
        value = getattr(state, name)
        if isinstance(value, random.Random):
            out[name] = ("rng", value.getstate())
            continue
        copied = copy.deepcopy(value)
        out[name] = copied if copied == value else ("object", id(value))
    return out


def play(state: SEState, seat: int, *moves: Move) -> list[Event]:
    """Apply ``moves`` for ``seat`` in turn; return all their events."""
    events: list[Event] = []
    for move in moves:
        events += RULES.apply(state, seat, move)
    return events


def end_turn(state: SEState, seat: int) -> list[Event]:
    """End ``seat``'s turn, discarding its first cards down to 6 if it must (SE5)."""
    events = RULES.apply(state, seat, se.EndTurn())
    while state.phase == se.DISCARD_DOWN and state.current == seat:
        events += RULES.apply(state, seat, se.Discard(state.hands[seat][0]))
    return events
