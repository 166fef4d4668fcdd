"""A tiny made-up game that exercises every part of the Rules interface the
host relies on, with nothing else to get in the way.

"Shed": each seat holds a hidden hand; on your turn play a card from it, or
draw one from the hidden draw pile. Empty your hand to win. At any time a
seat that is not being waited on may *poke* another seat (twice per game at
most); the poked seat must then drop a card within ``POKE_SECONDS``, or the
host runs out the countdown with :class:`Timeout` and the seat draws two.
Card ids are public names; which ids are in which hand is not.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Any, Mapping, Sequence

from quackbox.core.rules import (
    BadOptions,
    Deadline,
    Event,
    GameOver,
    IllegalMove,
    LineKind,
    MalformedMove,
    Move,
    NotYourTurn,
    Outcome,
)

POKE_SECONDS = 1.0
HAND = 3
DECK = 30
POKES = 2


@dataclass(frozen=True, slots=True)
class Card:
    id: int
    name: str


@dataclass(frozen=True, slots=True)
class Play(Move):
    card: int


@dataclass(frozen=True, slots=True)
class Draw(Move):
    pass


@dataclass(frozen=True, slots=True)
class Poke(Move):
    target: int


@dataclass(frozen=True, slots=True)
class Drop(Move):
    card: int


@dataclass(frozen=True, slots=True)
class Timeout(Move):
    pass


@dataclass(frozen=True, slots=True)
class Played(Event):
    seat: int
    card: int


@dataclass(frozen=True, slots=True)
class Drew(Event):
    seat: int
    cards: tuple[int, ...]
    count: int


@dataclass(frozen=True, slots=True)
class Poked(Event):
    seat: int
    target: int


@dataclass(frozen=True, slots=True)
class Dropped(Event):
    seat: int
    card: int


@dataclass(frozen=True, slots=True)
class ShedView:
    seat: int | None
    hand: tuple[Card, ...]
    hand_sizes: tuple[int, ...]
    draw_count: int
    top: Card | None
    current: int
    poked: int | None
    legal: tuple[Move, ...]
    waiting_for: tuple[int, ...]
    outcome: Outcome | None


class ShedState:
    def __init__(self, seats: int, rng: random.Random) -> None:
        self.seats = seats
        self.rng = rng
        self.draw = list(range(DECK))
        rng.shuffle(self.draw)
        self.hands = [[self.draw.pop() for _ in range(HAND)] for _ in range(seats)]
        self.discard: list[int] = []
        self.current = 0
        self.poked: int | None = None
        self.pokes = [POKES] * seats
        self.winner: int | None = None
        self.start_events: tuple = ()
        """Nothing happens while dealing (core.rules.GameState)."""


class Shed:
    name = "shed"
    title = "Shed"
    min_seats = 2
    max_seats = 8

    def default_options(self) -> dict:
        return {}

    def parse_options(self, values: Mapping[str, Any]) -> dict:
        if values:
            raise BadOptions(f"Shed has no options, not {', '.join(values)}.")
        return {}

    def new_game(self, *, seats: int, options: Any = None, seed: int) -> ShedState:
        return ShedState(seats, random.Random(seed))

    def waiting_for(self, state: ShedState) -> tuple[int, ...]:
        if state.winner is not None:
            return ()
        return (state.poked,) if state.poked is not None else (state.current,)

    def deadline(self, state: ShedState) -> Deadline | None:
        if state.poked is None or state.winner is not None:
            return None
        return Deadline(state.poked, POKE_SECONDS, "poke", Timeout())

    def legal_moves(self, state: ShedState, seat: int) -> tuple[Move, ...]:
        if state.winner is not None:
            return ()
        if state.poked is not None:
            return tuple(Drop(c) for c in state.hands[seat]) if seat == state.poked else ()
        moves: list[Move] = []
        if seat == state.current:
            moves += [Play(c) for c in state.hands[seat]]
            moves.append(Draw())
        if state.pokes[seat] > 0:
            moves += [Poke(t) for t in range(state.seats) if t != seat and state.hands[t]]
        return tuple(moves)

    def check(self, state: ShedState, seat: int, move: Move) -> None:
        if state.winner is not None:
            raise GameOver("The game is over.")
        if not isinstance(move, (Play, Draw, Poke, Drop, Timeout)):
            raise MalformedMove(f"{move!r} is not a Shed move.")
        if isinstance(move, Timeout):
            if seat != state.poked:
                raise IllegalMove("No countdown is running for that seat.")
            return
        if move not in self.legal_moves(state, seat):
            if seat not in self.waiting_for(state) and not isinstance(move, Poke):
                raise NotYourTurn(f"It is seat {self.waiting_for(state)[0]}'s move.")
            raise IllegalMove(f"{move!r} is not allowed now.")

    def apply(self, state: ShedState, seat: int, move: Move) -> list[Event]:
        self.check(state, seat, move)
        events: list[Event] = []
        if isinstance(move, Play):
            state.hands[seat].remove(move.card)
            state.discard.append(move.card)
            events.append(Played(seat, move.card))
            if not state.hands[seat]:
                state.winner = seat
            else:
                state.current = (state.current + 1) % state.seats
        elif isinstance(move, Draw):
            drawn = self._draw(state, seat, 1)
            events.append(Drew(seat, drawn, len(drawn)))
            state.current = (state.current + 1) % state.seats
        elif isinstance(move, Poke):
            state.pokes[seat] -= 1
            state.poked = move.target
            events.append(Poked(seat, move.target))
        elif isinstance(move, Drop):
            state.hands[seat].remove(move.card)
            state.discard.append(move.card)
            state.poked = None
            events.append(Dropped(seat, move.card))
            if not state.hands[seat]:
                state.winner = seat
        else:  # Timeout
            drawn = self._draw(state, seat, 2)
            state.poked = None
            events.append(Drew(seat, drawn, len(drawn)))
        return events

    def _draw(self, state: ShedState, seat: int, n: int) -> tuple[int, ...]:
        if not state.draw:
            state.draw, state.discard = state.discard, []
            state.rng.shuffle(state.draw)
        drawn = tuple(state.draw.pop() for _ in range(min(n, len(state.draw))))
        state.hands[seat].extend(drawn)
        return drawn

    def view(self, state: ShedState, seat: int | None) -> ShedView:
        return ShedView(
            seat=seat,
            hand=tuple(Card(c, f"card {c}") for c in state.hands[seat]) if seat is not None else (),
            hand_sizes=tuple(len(h) for h in state.hands),
            draw_count=len(state.draw),
            top=Card(state.discard[-1], f"card {state.discard[-1]}") if state.discard else None,
            current=state.current,
            poked=state.poked,
            legal=self.legal_moves(state, seat) if seat is not None else (),
            waiting_for=self.waiting_for(state),
            outcome=self.outcome(state),
        )

    def views(self, state: ShedState, seats: Sequence[int | None]) -> tuple[ShedView, ...]:
        return tuple(self.view(state, seat) for seat in seats)

    def redact(self, event: Event, seat: int | None) -> Event | None:
        if isinstance(event, Drew) and seat != event.seat:
            return replace(event, cards=())
        return event

    def describe(self, event: Event, names: Sequence[str], seat: int | None = None) -> str:
        return f"{type(event).__name__} by {names[event.seat]}"

    def line_kind(self, event: Event, seat: int | None = None) -> LineKind:
        return LineKind.MINE if seat is not None and event.seat == seat else LineKind.EVENT  # type: ignore[attr-defined]

    def outcome(self, state: ShedState) -> Outcome | None:
        if state.winner is None:
            return None
        places = tuple(1 if s == state.winner else 2 for s in range(state.seats))
        return Outcome(winners=(state.winner,), places=places, reason="A hand was emptied.")

    def move_types(self) -> tuple[type, ...]:
        return (Play, Draw, Poke, Drop, Timeout)

    def unlisted_moves(self) -> tuple[type[Move], ...]:
        return ()  # a Poke is listed: its space is small

    def timeout_moves(self) -> tuple[type[Move], ...]:
        return (Timeout,)

    def wire_types(self) -> tuple[type, ...]:
        return self.move_types() + (Played, Drew, Poked, Dropped, Card, ShedView, Outcome)

    def wire_refs(self) -> Mapping[type, Sequence[Any]]:
        return {}  # its cards travel as tagged maps, so the wire's tests see both ways


RULES = Shed()
