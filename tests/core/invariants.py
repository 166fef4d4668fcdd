"""One invariant harness for every game (OpenSpiel's shared random-simulation test).

A game joins by providing an :class:`Adapter`: where every card is, which
cards a seat may not see, and any checks of its own. The harness plays seeded
games with bots and, at every step, checks what must hold for any game:

- the game waits for someone until it ends, and that seat has a legal move;
- every offered move passes ``check`` and is accepted by ``apply``;
- every card is in exactly one place (card conservation);
- no view, and no event as redacted for a seat, names a card hidden from it;
- ``views`` gives every seat what ``view`` gives it;
- every game ends;
- the same seed and moves give the same game, whatever the global RNG does.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any, Callable, Iterable, Sequence

from quackbox.core.bots import Bot
from quackbox.core.play import next_move
from quackbox.core.rules import Rules


class Adapter:
    """What the harness needs to know about one game's State."""

    rules: Rules
    card_types: tuple[type, ...] = ()
    event_card_fields: frozenset[str] = frozenset()

    def all_cards(self, state: Any) -> list[int]:
        """Every physical card id of the game, each once, sorted."""
        raise NotImplementedError

    def locations(self, state: Any) -> list[int]:
        """Every card id found in every pile, hand and tableau, sorted (so a
        duplicate or a lost card shows)."""
        raise NotImplementedError

    def hidden_from(self, state: Any, seat: int | None) -> set[int]:
        """Card ids ``seat`` may not see now (None: a spectator)."""
        raise NotImplementedError

    def before_step(self, state: Any) -> Any:
        """A note taken before each move, passed to :meth:`shown_during`."""
        return None

    def shown_during(self, note: Any, state: Any, events: Sequence[Any]) -> set[int]:
        """Cards that were face up at some moment of the last move, though
        hidden before and after it (an Episode discarded, then reshuffled
        into the draw pile in the same move): events may name them."""
        return set()

    def check_step(self, state: Any, events: Sequence[Any]) -> None:
        """Game-specific checks after each applied move."""

    def fingerprint(self, state: Any) -> Any:
        """A value equal for equal states (for determinism)."""
        raise NotImplementedError


_PLAIN = (int, float, str, bool, type(None), bytes)
_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def card_ids_in(value: Any, card_types: tuple[type, ...]) -> set[int]:
    """Every card id shown in a view: the ``id`` of each card object inside."""
    found: set[int] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind in _PLAIN:
            continue
        if isinstance(item, card_types):
            found.add(item.id)
        elif kind is tuple or kind is list:
            stack.extend(item)
        elif kind is dict:
            stack.extend(item.values())
        else:
            names = _FIELD_NAMES.get(kind)
            if names is None:
                names = _FIELD_NAMES[kind] = (
                    tuple(f.name for f in dataclasses.fields(item)) if dataclasses.is_dataclass(item) else ()
                )
            stack.extend([getattr(item, n) for n in names])
    return found


_CARD_FIELDS: dict[tuple[type, frozenset[str]], tuple[str, ...]] = {}


def event_card_ids(event: Any, names: frozenset[str]) -> set[int]:
    """The card ids an event names, in the fields that hold card ids."""
    found: set[int] = set()
    key = (type(event), names)
    wanted = _CARD_FIELDS.get(key)
    if wanted is None:
        wanted = _CARD_FIELDS[key] = tuple(f.name for f in dataclasses.fields(event) if f.name in names)
    for name in wanted:
        value = getattr(event, name)
        if isinstance(value, int) and not isinstance(value, bool):
            found.add(value)
        elif isinstance(value, tuple):
            found.update(v for v in value if isinstance(v, int) and not isinstance(v, bool))
    return found


def play_checked(
    adapter: Adapter,
    bots: Sequence[Bot],
    *,
    seed: int,
    options: Any,
    check_views_every: int = 1,
    max_moves: int = 100_000,
) -> tuple[list[tuple[int, Any]], Any]:
    """Play one game under every invariant; return (moves, final state)."""
    rules = adapter.rules
    state = rules.new_game(seats=len(bots), options=options, seed=seed)
    everything = adapter.all_cards(state)
    seats = list(range(len(bots)))
    moves: list[tuple[int, Any]] = []
    step = 0
    while rules.outcome(state) is None:
        assert step < max_moves, f"seed {seed}: the game did not end within {max_moves} moves"
        waiting = rules.waiting_for(state)
        assert waiting, f"seed {seed}: the game is not over but waits for nobody"
        for seat in waiting:
            assert rules.legal_moves(state, seat), f"seed {seed}: seat {seat} is waited on but has no legal move"
        seat, move = next_move(rules, state, bots)
        legal = rules.legal_moves(state, seat)
        view = rules.view(state, seat)
        assert view.legal == legal, f"seed {seed}: the view's legal moves differ from legal_moves"
        assert move in legal or _unenumerated(move), f"seed {seed}: bot chose {move!r}, which is not offered"
        rules.check(state, seat, move)
        hidden_before = {s: adapter.hidden_from(state, s) for s in [*seats, None]}
        note = adapter.before_step(state)
        events = rules.apply(state, seat, move)
        moves.append((seat, move))
        step += 1
        assert adapter.locations(state) == everything, f"seed {seed}: cards were lost or duplicated after {move!r}"
        adapter.check_step(state, events)
        hidden_after = {s: adapter.hidden_from(state, s) for s in [*seats, None]}
        shown = adapter.shown_during(note, state, events)
        for viewer in [*seats, None]:
            secret = (hidden_before[viewer] & hidden_after[viewer]) - shown
            for event in events:
                seen = rules.redact(event, viewer)
                if seen is None:
                    continue
                leaked = event_card_ids(seen, adapter.event_card_fields) & secret
                assert not leaked, f"seed {seed}: {seen!r} shows seat {viewer} hidden cards {leaked}"
        if step % check_views_every == 0 or rules.outcome(state) is not None:
            everyone = [*seats, None]
            assert rules.views(state, everyone) == tuple(rules.view(state, v) for v in everyone), (
                f"seed {seed}: views() differs from view() for each seat"
            )
            for viewer in everyone:
                visible = card_ids_in(rules.view(state, viewer), adapter.card_types)
                leaked = visible & hidden_after[viewer]
                assert not leaked, f"seed {seed}: the view for seat {viewer} shows hidden cards {leaked}"
    assert rules.waiting_for(state) == (), "a finished game still waits for someone"
    for seat in seats:
        assert rules.legal_moves(state, seat) == (), "a finished game still offers moves"
    return moves, state


def _unenumerated(move: Any) -> bool:
    # Trade offers are legal but not enumerated (their space is every subset of a hand).
    return type(move).__name__ == "OfferTrade"


def replay(adapter: Adapter, seats: int, seed: int, options: Any, moves: Iterable[tuple[int, Any]]) -> Any:
    """Rebuild a game from its seed and moves."""
    state = adapter.rules.new_game(seats=seats, options=options, seed=seed)
    for seat, move in moves:
        adapter.rules.apply(state, seat, move)
    return state


def disturb_global_random() -> None:
    """Use the global RNG between runs: a game must not depend on it."""
    random.seed(random.random())
    for _ in range(random.randrange(1, 50)):
        random.random()


def random_options(rules: Rules, rng: random.Random, choices: dict[str, Sequence[Any]]) -> Any:
    """Options with each named field set to one of its ``choices``."""
    return rules.parse_options({name: rng.choice(values) for name, values in choices.items()})


OptionPicker = Callable[[random.Random], Any]
