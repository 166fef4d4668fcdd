"""clone and sample, for both games: what a search bot stands on.

``sample(view, rng, memory)`` must build a State the view could have come
from (the same view back, every card once), must not depend on anything the
view hides, and a seat's Memory must only ever hold what is true.
``clone`` must copy a State so that both play on alike and apart.
"""

from __future__ import annotations

import copy
import dataclasses
import random
from typing import Any, Iterator

import pytest

from quackbox.core import bots as bot_registry
from quackbox.core import quack as q
from quackbox.core import side_effects as se
from quackbox.core.bots import next_move
from quackbox.core.quack.legal import patient_holder
from quackbox.core.rules import NONE
from tests.core import invariants
from tests.core.test_invariants import SE_OPTION_CHOICES, SideEffectsAdapter, TradingBot

QUACK_OPTIONS = (
    None,
    {"turbo-infamy": True, "group-practice": True, "infamy-threshold": 10, "round-limit": 12},
    {"deathmatch": True, "window-seconds": 0.0, "two-player-endgame": "play_on", "first-seat": 1},
)


def se_cards_placed(state: se.SEState) -> list[int]:
    return SideEffectsAdapter().locations(state)


def quack_cards_placed(state: q.QuackState) -> list[int]:
    where = state.patient_deck + state.patient_discard + state.doc_deck + state.doc_discard
    for hand in state.hands:
        where += hand
    for doctor in state.doctors:
        where += doctor.reminders
        if doctor.case is not None:
            where += [doctor.case.card, *doctor.case.treatments, *doctor.case.reminders]
    return sorted(where)


def snapshot(value: Any) -> Any:
    """A State (or any part of it) as plain comparable values, its RNG's state included."""
    if isinstance(value, random.Random):
        return value.getstate()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return type(value).__name__, tuple(snapshot(getattr(value, f.name)) for f in dataclasses.fields(value))
    if isinstance(value, (list, tuple)):
        return tuple(snapshot(v) for v in value)
    if isinstance(value, (set, frozenset)):
        return tuple(sorted(value))
    if isinstance(value, dict):
        return tuple((k, snapshot(v)) for k, v in value.items())
    return value


def played(rules: Any, state: Any, table: list, memories: list, moves: int = 3000) -> Iterator[int]:
    """Play ``state`` on with ``table``, feeding each seat's memory its redacted
    events; yield the step number before each move."""
    for seat, memory in enumerate(memories):
        memory.observe([rules.redact(e, seat) for e in state.start_events])
    for step in range(moves):
        if rules.outcome(state) is not None:
            return
        yield step
        seat, move = next_move(rules, state, table)
        events = rules.apply(state, seat, move)
        for s, memory in enumerate(memories):
            memory.observe([rules.redact(e, s) for e in events])


def se_game(seed: int) -> tuple[se.SEState, list]:
    rng = random.Random(seed)
    seats = 2 + seed % 7
    options = invariants.random_options(se.RULES, rng, SE_OPTION_CHOICES)
    table = [
        TradingBot(seed * 10 + s) if s % 2 else bot_registry.make(se.GAME, "heuristic", seed * 10 + s)
        for s in range(seats)
    ]
    return se.RULES.new_game(seats=seats, options=options, seed=seed), table


def quack_game(seed: int) -> tuple[q.QuackState, list]:
    seats = 2 + seed % 7
    table = [bot_registry.make(q.GAME, "heuristic" if s % 2 == 0 else "random", seed * 10 + s) for s in range(seats)]
    return q.RULES.new_game(seats=seats, options=QUACK_OPTIONS[seed % 3], seed=seed), table


# --- sample(view) gives the view back, with every card once ----------------------------------


def check_samples(rules: Any, make: Any, seeds: range, placed: Any, memory_right: Any) -> int:
    """Sample every seat's view at every step of the games of ``seeds``, with
    and without memory: the view comes back and every card is in one place;
    ``memory_right(state, made, memory)`` checks what the memory knew. The
    number of samples checked."""
    checked = 0
    for seed in seeds:
        state, table = make(seed)
        memories = [rules.memory(s) for s in range(state.seats)]
        everything = list(range(len(state.cards)))
        for step in played(rules, state, table, memories):
            for seat in range(state.seats):
                view = rules.view(state, seat)
                for memory in (None, memories[seat]):
                    made = rules.sample(view, random.Random(step * 31 + seat), memory)
                    assert rules.view(made, seat) == view, (seed, step, seat)
                    assert placed(made) == everything
                    checked += 1
                memory_right(state, made, memories[seat])
    return checked


def se_memory_right(state: se.SEState, made: se.SEState, memory: se.Memory) -> None:
    """The discard pile card by card, and what it knows of other hands."""
    assert made.discard == state.discard
    for other, cards in memory.known.items():
        assert cards <= set(state.hands[other]), (other, cards)


def quack_memory_right(state: q.QuackState, made: q.QuackState, memory: q.Memory) -> None:
    """What memory saw go face up is in the discard piles; the view's first
    seat, this turn's pay and the Wrong Charts' aims are the true ones."""
    assert made.first == state.first
    assert [t for t, _p in made.plays] == [t for t, p in state.plays if p not in state.dead]
    assert (memory.doc_public & set(made.doc_discard)) <= set(state.doc_discard)
    assert (memory.patients_gone & set(made.patient_discard)) <= set(state.patient_discard)
    for s, doctor in enumerate(state.doctors):
        if doctor.redirect_card != NONE:
            assert patient_holder(made, made.doctors[s].redirect_to) == patient_holder(state, doctor.redirect_to)


@pytest.mark.parametrize("chunk", range(3))
def test_side_effects_sample_gives_the_view_back(chunk: int) -> None:
    """view(sample(view), seat) == view, with and without memory, and every card is in one place."""
    seeds = range(chunk * 5, chunk * 5 + 5)
    assert check_samples(se.RULES, se_game, seeds, se_cards_placed, se_memory_right) > 1000


@pytest.mark.parametrize("chunk", range(3))
def test_quack_sample_gives_the_view_back(chunk: int) -> None:
    """view(sample(view), seat) == view, with and without memory, and every card is in one place."""
    seeds = range(chunk * 3, chunk * 3 + 3)
    assert check_samples(q.RULES, quack_game, seeds, quack_cards_placed, quack_memory_right) > 1000


def test_a_memory_that_missed_the_start_is_not_used() -> None:
    """A seat that joined late cannot know the discard pile, so sample deals it at random."""
    rules = se.RULES
    state, table = se_game(3)
    late = rules.memory(0)
    for _step in played(rules, state, table, [rules.memory(s) for s in range(state.seats)], moves=40):
        pass
    assert not late.complete
    view = rules.view(state, 0)
    assert rules.sample(view, random.Random(1), late).discard == rules.sample(view, random.Random(1)).discard


# --- sample never reads what the view hides ------------------------------------------------


def se_hidden_shuffle(state: se.SEState, seat: int, rng: random.Random) -> se.SEState:
    """A State that differs from ``state`` only in what ``seat`` cannot see:
    the hidden cards of other hands (with no open offer) and the draw pile, dealt again."""
    other = se.clone(state)
    hidden = SideEffectsAdapter().hidden_from(state, seat)
    in_offers = {s for o in state.offers.values() for s in (o.seat, o.to)}
    hands = [s for s in range(state.seats) if s != seat and s not in in_offers]
    if state.phase == se.ANXIETY:
        hands = [s for s in hands if s != state.prompt_seat]
    pool = [c for c in other.draw if c in hidden] + [c for s in hands for c in other.hands[s] if c in hidden]
    rng.shuffle(pool)
    other.draw = [pool.pop() if c in hidden else c for c in other.draw]
    for s in hands:
        other.hands[s] = [pool.pop() if c in hidden else c for c in other.hands[s]]
    return other


def quack_hidden_shuffle(state: q.QuackState, seat: int, rng: random.Random) -> q.QuackState:
    """Likewise for Quack: the Doc deck and the hands of other practising doctors
    dealt again, and any face-down Patient swapped with one in the Patient deck."""
    other = q.clone(state)
    hands = [s for s, d in enumerate(other.doctors) if s != seat and d.status == q.PRACTISING]
    pool = other.doc_deck + [c for s in hands for c in other.hands[s]]
    rng.shuffle(pool)
    other.doc_deck = [pool.pop() for _ in other.doc_deck]
    for s in hands:
        other.hands[s] = [pool.pop() for _ in other.hands[s]]
    for doctor in other.doctors:
        case = doctor.case
        if case is not None and case.face_down and other.patient_deck:
            i = rng.randrange(len(other.patient_deck))
            case.card, other.patient_deck[i] = other.patient_deck[i], case.card
    return other


@pytest.mark.parametrize(
    ("rules", "make", "shuffle", "fingerprint"),
    [
        (se.RULES, se_game, se_hidden_shuffle, snapshot),
        (q.RULES, quack_game, quack_hidden_shuffle, snapshot),
    ],
    ids=["side-effects", "quack"],
)
def test_sample_reads_nothing_hidden(rules: Any, make: Any, shuffle: Any, fingerprint: Any) -> None:
    """Two true States that differ only in what the seat cannot see give equal
    views, and sample with equal RNGs builds equal States from them."""
    differed = 0
    for seed in range(4):
        state, table = make(seed)
        for step in played(rules, state, table, [], moves=400):
            if step % 25:
                continue
            for seat in range(state.seats):
                twin = shuffle(state, seat, random.Random(step))
                differed += fingerprint(twin) != fingerprint(state)
                view = rules.view(state, seat)
                assert rules.view(twin, seat) == view
                a = rules.sample(view, random.Random(seed), None)
                b = rules.sample(rules.view(twin, seat), random.Random(seed), None)
                assert fingerprint(a) == fingerprint(b)
    assert differed > 10  # the twins really hid something different


# --- clone ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("rules", "make"), [(se.RULES, se_game), (q.RULES, quack_game)], ids=["side-effects", "quack"])
def test_clone_plays_on_like_the_original_and_apart_from_it(rules: Any, make: Any) -> None:
    """clone then the same moves gives the same game; moves on the copy leave the original alone."""
    for seed in range(6):
        state, table = make(seed)
        for step in played(rules, state, table, [], moves=300):
            if step % 40:
                continue
            before = copy.deepcopy(state)
            twin = rules.clone(state)
            other = rules.clone(state)
            for _ in range(30):
                if rules.outcome(twin) is not None:
                    break
                seat, move = next_move(rules, twin, table)
                assert rules.apply(twin, seat, move) == rules.apply(other, seat, move)
            assert snapshot(twin) == snapshot(other)
            assert snapshot(state) == snapshot(before)  # the copies never touched the original


# --- what other seats' own moves say of their hands (Side Effects) ----------------------------


def test_the_marks_on_heuristic_hands_are_true() -> None:
    """A table of normal bots: whatever a memory marked as most likely not in a hand never is
    there beyond what the unmarked cards allow (the marks are nested, oldest most), and the
    marks say something (a normal bot ends many turns with plays left)."""
    rules = se.RULES
    marked = 0
    for seed in range(4):
        table = [bot_registry.make(se.GAME, "normal", seed * 10 + s) for s in range(4)]
        state = rules.new_game(seats=4, seed=seed)
        memories = [rules.memory(s) for s in range(4)]
        for step in played(rules, state, table, memories, moves=400):
            seat = rules.waiting_for(state)[0]
            memories[seat].see(rules.view(state, seat))
            for memory in memories:
                names = memory.names()
                for other, marks in memory.marks.items():
                    hand = state.hands[other]
                    assert len(marks) == len(hand), (seed, step, other)
                    assert all(a | b == a for a, b in zip(marks, marks[1:])), marks
                    for need, mask in enumerate(sorted(marks, reverse=True), start=1):
                        assert sum(1 for c in hand if not mask & names.bit(c)) >= need, (seed, step, other)
                    marked += any(marks)
    assert marked > 500


def test_a_seat_that_passed_its_plays_is_seldom_dealt_the_drug_it_needed() -> None:
    """Seat 1 ends its turn with both plays left and Madness untreated: it held no Chlorpromazine,
    most likely, so a memory that saw it deals seat 1 a Chlorpromazine far less often than a
    sample that knows nothing."""
    from tests.core.se_helpers import table

    rules = se.RULES
    state = table(
        3,
        hands={0: ["Episode", "Therapy"], 1: ["Episode", "Tremors", "Lithium", "Fluoxetine"]},
        psyches={0: ["Anxiety"], 1: ["Madness", "Impotence"], 2: ["Depression"]},
        draw=["Lorazepam", "Clozapine"],
        current=1,
    )
    memory = rules.memory(0)
    memory.observe([rules.redact(e, 0) for e in state.start_events])
    memory.see(rules.view(state, 0))
    for event in rules.apply(state, 1, se.EndTurn()):
        memory.observe([rules.redact(event, 0)])
    assert memory.marks[1] and all(memory.marks[1])
    view = rules.view(state, 0)
    cards = state.cards

    def dealt(memory: Any) -> int:
        rng = random.Random(5)
        return sum(
            any(cards[c].name == "Chlorpromazine" for c in rules.sample(view, rng, memory).hands[1][:4])
            for _ in range(300)
        )

    assert dealt(memory) * 3 < dealt(None)
