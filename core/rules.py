"""The rules interface both games implement, and the values it speaks in.

Every game module exports one object satisfying :class:`Rules`. The host, the
bots, ``quackbox sim``, the replay viewer and the TUI's generic screens are
written once against it; only the table widgets know which game they show.

The shape follows a Game/State split: a :class:`Rules` object is immutable
and holds no game; a State is a plain mutable object owned by whoever runs
the game (the host, a simulation), holding everything including the seeded
``random.Random``. Same seed and same moves give the same game.

Moves, events and views are frozen dataclasses built from ints, strs, bools,
floats, None, tuples and other such dataclasses, so the wire can encode and
validate them without knowing which game they belong to.
"""

from __future__ import annotations

import enum
import random
import typing
from dataclasses import dataclass, fields
from operator import attrgetter
from typing import (
    TYPE_CHECKING,
    Annotated,
    Any,
    Callable,
    ClassVar,
    Generic,
    Iterable,
    Mapping,
    Protocol,
    Sequence,
    TypeVar,
)

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

    from quackbox.core.play import GameRecord

__all__ = [
    "Deadline",
    "Event",
    "GameOver",
    "GameState",
    "GameView",
    "IllegalMove",
    "LineKind",
    "MalformedMove",
    "Memory",
    "Move",
    "MoveForms",
    "AnyMoveKind",
    "MoveKind",
    "Verified",
    "VerifiedMove",
    "move_kind",
    "move_table",
    "NotYourTurn",
    "Outcome",
    "AnyRules",
    "Rules",
    "RulesError",
    "BadOptions",
    "NONE",
    "Seat",
    "SeatOrNone",
    "SeatOrRandom",
    "Wire",
    "seat_label",
    "seat_text",
    "verify_view_seats",
]


# --- errors -----------------------------------------------------------------
#
# RulesError
#  +-- MalformedMove   the move is not a move of this game, or a field has the wrong type
#  +-- NotYourTurn     the seat may not act now
#  +-- IllegalMove     the move names cards or targets that do not allow it now
#  +-- GameOver        the game has ended
# BadOptions          a game option is unknown or out of range (not a move error)
#
# Each class carries the stable wire error code the network layer replies with.


class RulesError(Exception):
    """A move was refused. The message is a plain sentence naming the bad input;
    it counts seats as people do, from 1 (see :func:`seat_label`)."""

    code: ClassVar[str] = "illegal_move"


class MalformedMove(RulesError):
    """The move is not a move of this game, or one of its fields has the wrong type."""

    code = "malformed_move"


class NotYourTurn(RulesError):
    """The seat may not make this move now (another seat is being waited on)."""

    code = "not_your_turn"


class IllegalMove(RulesError):
    """The move is well formed but the rules do not allow it in this state."""

    code = "illegal_move"


class GameOver(RulesError):
    """No move is accepted once the game has ended."""

    code = "game_over"


class BadOptions(ValueError):
    """A game option is unknown, of the wrong type, or out of range."""

    code: ClassVar[str] = "bad_options"


# --- values -----------------------------------------------------------------

NONE = -1
"""In a move, an event or a view of either game: no card, or no seat."""


@dataclass(frozen=True, slots=True)
class Wire:
    """What a whole-number field of a move, an event or a view holds, said in
    its annotation (``Annotated[int, Wire("seat")]``) for docs/PROTOCOL.md,
    which is written from these (``python -m quackbox.net.wire_fields``).
    A plain ``int`` is a number (a count, money, points)."""

    text: str


Seat = Annotated[int, Wire("seat")]
"""A seat, counted from 0."""
SeatOrNone = Annotated[int, Wire("seat, or -1 for none")]
SeatOrRandom = Annotated[int, Wire("seat, or -1 to draw it at random")]


def seat_label(seat: int) -> str:
    """``seat`` as people count it (from 1), for the sentences of errors."""
    return f"seat {seat + 1}"


def seat_text(value: object) -> str:
    """A seat as people count them ("seat 3", :func:`seat_label`), or a bad value as given."""
    return seat_label(value) if type(value) is int else f"seat {value!r}"


def verify_view_seats(seats: Sequence[int | None], table: int) -> None:
    """MalformedMove unless each of ``seats`` is a seat of a table of ``table``
    (counted from 0) or None, a spectator: both games' ``view`` and ``views``."""
    for seat in seats:
        if seat is not None and (type(seat) is not int or not 0 <= seat < table):
            raise MalformedMove(f"There is no {seat_text(seat)} at this table.")


@dataclass(frozen=True, slots=True)
class Move:
    """Base of every move. Subclasses are imperative: ``Treat``, ``EndTurn``."""


@dataclass(frozen=True, slots=True)
class Event:
    """Base of every event. Subclasses are past tense: ``DisorderTreated``."""


class LineKind(enum.Enum):
    """What a line of the log tells, so a reader can set it apart without reading its words."""

    EVENT = "event"
    """Something that happened in the game."""
    MINE = "mine"
    """Something the reader's own seat did (or that happened to its own seat)."""
    TURN = "turn"
    """A turn, or a round, begins: a quiet line between the others."""
    NOTICE = "notice"
    """About a seat's person rather than the game (left, back, a bot played for them)."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a finished game ended.

    ``winners`` are the seats that won (several on a shared win); ``ranking``
    lists every seat best first, and ``places`` gives each seat's place (1 is
    best; tied seats share a place). ``reason`` is a short plain sentence that
    names no seat: seat numbers mean nothing to people, so callers name them.
    """

    winners: tuple[Seat, ...]
    places: tuple[int, ...]
    reason: str

    @property
    def ranking(self) -> tuple[int, ...]:
        return tuple(sorted(range(len(self.places)), key=lambda s: (self.places[s], s)))


@dataclass(frozen=True, slots=True)
class Deadline:
    """A timed wait the host must enforce.

    The rules never read a clock: a deadline says *who* must answer and *how
    long* they have from the moment it appeared. When it passes, the host
    applies ``timeout`` on behalf of ``seat``; the timeout is journalled like
    any other move, so a replay needs no clock.
    """

    seat: int
    seconds: float
    kind: str
    timeout: Move


S = TypeVar("S")
S_contra = TypeVar("S_contra", contravariant=True)
M = TypeVar("M", bound=Move)
P = TypeVar("P")


class Verified(Protocol[S_contra]):
    """A move its kind's verifier allowed, holding the plan the verifier returned
    (of the plan type its :class:`MoveKind` binds): what a game's ``verify`` gives
    ``apply``, which makes the move from that plan and nothing else."""

    def do(self, state: S_contra, seat: int, events: list[Event]) -> None:
        """Make the move on ``state`` (the State it was verified on) for ``seat``, from its plan."""


class AnyMoveKind(Protocol[S_contra]):
    """A :class:`MoveKind` of a game whose State is ``S``, whichever its move and
    plan types: what a ``MOVES`` table holds. Those types were bound where the
    kind was made (:func:`move_kind`), so the table need not know them."""

    @property
    def move(self) -> type[Move]:
        """The move class this kind verifies and makes."""

    def check(self, state: S_contra, seat: int, move: Move) -> Verified[S_contra]:
        """Run the verifier on ``move`` (of :attr:`move`): a RulesError, or the move with its plan."""


@dataclass(frozen=True, slots=True)
class MoveKind(Generic[S, M, P]):
    """One kind of move of a game: its move class, its verifier, which refuses
    the move with a RulesError or returns its plan (what the check found, a
    frozen value or None), and the ``do_*`` function that makes the move from
    that plan.

    Each game's ``rules.py`` lists its kinds in one table (``MOVES``, made by
    :func:`move_table` from :func:`move_kind`); ``check`` runs the verifier,
    ``apply`` the verifier and then ``do`` with what it returned. The type
    checker holds the three to the same move type and the verifier and
    ``do`` to the same plan type.
    """

    move: type[M]
    verify: Callable[[S, int, M], P]
    do: Callable[[S, int, M, P, list[Event]], None]

    def check(self, state: S, seat: int, move: Move) -> VerifiedMove[S, M, P]:
        """Run the verifier: a RulesError, or ``move`` with its plan, ready for ``do``."""
        if type(move) is not self.move:
            raise MalformedMove(f"{move!r} is not a {self.move.__name__} move.")
        return VerifiedMove(self, move, self.verify(state, seat, move))


# Not frozen: one is made for every move applied (a search applies many), and a frozen
# dataclass sets each field through object.__setattr__. Nothing keeps one past apply.
@dataclass(slots=True)
class VerifiedMove(Generic[S, M, P]):
    """A move of ``kind`` its verifier allowed, and the plan the verifier returned (:class:`Verified`)."""

    kind: MoveKind[S, M, P]
    move: M
    plan: P

    def do(self, state: S, seat: int, events: list[Event]) -> None:
        self.kind.do(state, seat, self.move, self.plan, events)


def move_kind(
    move: type[M], verify: Callable[[S, int, M], P], do: Callable[[S, int, M, P, list[Event]], None]
) -> AnyMoveKind[S]:
    """The kind of move ``move``: made with ``verify`` and ``do``, which the type checker
    holds to ``move`` and to one plan type (a verifier or a ``do_*`` of another move,
    or a ``do_*`` wanting another plan, is a type error here). Its move and plan types
    stay bound inside; a table of kinds need only know the State."""
    return MoveKind(move, verify, do)


def move_table(*kinds: AnyMoveKind[S]) -> Mapping[type[Move], AnyMoveKind[S]]:
    """A game's ``MOVES``: each of ``kinds`` under its move class (one kind per class)."""
    table: dict[type[Move], AnyMoveKind[S]] = {}
    for kind in kinds:
        if kind.move in table:
            raise ValueError(f"two kinds of move for {kind.move.__name__}")
        table[kind.move] = kind
    return table


class MoveForms:
    """The fields of a game's move classes and the types they must hold:
    ``int``, or a tuple of ``int`` or of ``str`` (card names).

    Moves reach the rules from bots, tests and the wire; the wire's codec
    checks types already, but the rules are the gate for every caller, so a
    move whose fields are not what its class says is refused here, before any
    verifier reads it (a bool is not an int here, as on the wire).
    """

    def __init__(self, move_types: Sequence[type[Move]], title: str) -> None:
        self.title = title
        self._forms: dict[type, tuple[Callable[[Any], tuple[Any, ...]], tuple[tuple[str, Any], ...]]] = {}
        for cls in move_types:
            hints = typing.get_type_hints(cls)
            names = tuple(f.name for f in fields(cls))
            self._forms[cls] = (_reader(names), tuple((name, hints[name]) for name in names))

    def check(self, move: object) -> None:
        """MalformedMove unless ``move`` is a move of this game with fields of the right types."""
        form = self._forms.get(type(move))
        if form is None:
            raise MalformedMove(f"{move!r} is not a {self.title} move.")
        read, annotations = form
        values = read(move)
        for value, (name, annotation) in zip(values, annotations):
            if annotation is int:
                ok = type(value) is int  # bools are not ints here
                wanted = "a whole number"
            else:
                item = typing.get_args(annotation)[0]
                ok = type(value) is tuple and all(type(v) is item for v in value)
                wanted = "a list of whole numbers" if item is int else "a list of card names"
            if not ok:
                raise MalformedMove(f"{type(move).__name__}.{name} must be {wanted}, not {value!r}.")


def _reader(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """A function giving the values of the fields ``names`` of a move, as a tuple."""
    if not names:
        return lambda move: ()
    if len(names) == 1:
        one = attrgetter(names[0])
        return lambda move: (one(move),)
    return attrgetter(*names)


class GameState(Protocol):
    """What every game's State offers the runners (the host, ``sim``, a
    replay); the rest of a State is its game's own."""

    seats: int
    start_events: tuple[Event, ...]
    """What happened inside ``new_game`` (the deal, the first turn), for the
    host to relay like any other events."""


class GameView(Protocol):
    """What every game's View offers a runner or a bot; the rest (hands,
    Psyches, offices) is for its game's bot and table."""

    @property
    def game(self) -> str: ...

    @property
    def seat(self) -> int | None:
        """Whose view it is; None for a spectator."""

    @property
    def current(self) -> int:
        """The seat whose turn it is."""

    @property
    def players(self) -> Sequence[object]:
        """The public part of each seat, by seat."""

    @property
    def legal(self) -> tuple[Move, ...]:
        """The moves this seat may make now (empty for a spectator)."""

    @property
    def waiting_for(self) -> tuple[int, ...]: ...

    @property
    def outcome(self) -> Outcome | None: ...


class Memory(Protocol):
    """What one seat has been shown over a game, kept by a search bot for
    :meth:`Rules.sample` (each game's ``sampling.Memory``)."""

    @property
    def seat(self) -> int: ...

    def observe(self, events: Iterable[Event]) -> None:
        """Record ``events``, as redacted for this seat, in the order they happened."""

    def see(self, view: Any) -> None:
        """Note what this seat's ``view`` shows now (a memory may keep public facts from it)."""


StateT = TypeVar("StateT", bound=GameState)
ViewT = TypeVar("ViewT", bound=GameView)
MoveT_co = TypeVar("MoveT_co", bound=Move, covariant=True)


class Rules(Protocol[StateT, ViewT, MoveT_co]):
    """The interface of one game's rules, generic over its State, View and
    Move types: everything the host, the bots, ``sim``, the search bot and
    the TUI call. See docs/ARCHITECTURE.md.

    Each game's module checks its rules object against it
    (``RULES: Rules[SEState, SEView, SEMove]``), so a type checker, not a
    probe at run time, says what a game offers.
    """

    @property
    def name(self) -> str:
        """The game's id on the command line and the wire: ``side-effects``, ``quack``."""

    @property
    def title(self) -> str: ...

    @property
    def min_seats(self) -> int: ...

    @property
    def max_seats(self) -> int: ...

    @property
    def options_type(self) -> type[DataclassInstance]:
        """The game's options: a frozen dataclass read by :mod:`quackbox.core.options`."""

    @property
    def sim_needs_events(self) -> bool:
        """``quackbox sim`` keeps every game's events for :meth:`sim_summary`."""

    def default_options(self) -> DataclassInstance:
        """The options dataclass with every default."""

    def parse_options(self, values: object) -> DataclassInstance:
        """Options from plain or text values (command line, wire, journal), or
        an options value; raise BadOptions. (:func:`quackbox.core.options.parse`
        for the game's options.)"""

    def card_name(self, card_id: int) -> str:
        """The name of card ``card_id`` (ids are public; for sentences)."""

    def new_game(self, *, seats: int, options: object = None, seed: int) -> StateT:
        """A new State for ``seats`` players, shuffled by ``random.Random(seed)``.

        What happened while dealing (the first turn's draw, say) is kept in
        ``state.start_events`` for the host to relay like any other events.
        """

    def legal_moves(self, state: StateT, seat: int) -> tuple[MoveT_co, ...]:
        """Every move ``seat`` may make now, in a documented deterministic order."""

    def unlisted_moves(self) -> tuple[type[Move], ...]:
        """The move classes a player may send that :meth:`legal_moves` never
        lists, their space being too large (Side Effects' ``OfferTrade``):
        only :meth:`check` judges them."""

    def timeout_moves(self) -> tuple[type[Move], ...]:
        """The move classes only the host applies, when a :class:`Deadline` passes."""

    def check(self, state: StateT, seat: int, move: Move) -> None:
        """Raise a RulesError if ``seat`` may not make ``move`` now; change nothing."""

    def apply(self, state: StateT, seat: int, move: Move) -> list[Event]:
        """Check, then make the move, returning what happened (unredacted)."""

    def waiting_for(self, state: StateT) -> tuple[int, ...]:
        """The seats whose move the game needs in order to go on (empty when over)."""

    def deadline(self, state: StateT) -> Deadline | None:
        """The timed wait the game is in, if any."""

    def view(self, state: StateT, seat: int | None) -> ViewT:
        """What ``seat`` may see (None: a spectator), including its legal moves;
        MalformedMove for a seat not at the table."""

    def views(self, state: StateT, seats: Sequence[int | None]) -> tuple[ViewT, ...]:
        """The views of ``seats`` at once, each as :meth:`view` gives it (the
        host's fan-out after every move: the public part is made once)."""

    def redact(self, event: Event, seat: int | None) -> Event | None:
        """``event`` as ``seat`` may see it, or None if it is not theirs to see."""

    def describe(self, event: Event, names: Sequence[str], seat: int | None = None) -> str:
        """``event`` as a plain sentence for the log, told from ``seat``'s side."""

    def line_kind(self, event: Event, seat: int | None = None) -> LineKind:
        """What ``event``'s line in ``seat``'s log tells (never NOTICE: that is the host's)."""

    def outcome(self, state: StateT) -> Outcome | None:
        """None while the game runs, then how it ended."""

    def clone(self, state: StateT) -> StateT:
        """An independent copy of ``state`` (its RNG included), for search."""

    def sample(self, view: ViewT, rng: random.Random, memory: Memory | None = None) -> StateT:
        """A State consistent with ``view`` (and the seat's ``memory``), the
        cards it cannot see dealt by ``rng``: what a search bot plays on."""

    def memory(self, seat: int) -> Memory:
        """A new record of what ``seat`` is shown over a game, for :meth:`sample`."""

    def sim_summary(self, records: Sequence[GameRecord]) -> dict[str, Any]:
        """The game's own figures for ``quackbox sim`` over finished games."""

    def move_types(self) -> tuple[type[Move], ...]:
        """Every Move class of the game (for the wire codec)."""

    def wire_types(self) -> tuple[type, ...]:
        """Every dataclass that can appear in a move, event or view (for the wire)."""

    def wire_refs(self) -> Mapping[type, Sequence[Any]]:
        """The classes of :meth:`wire_types` whose values are facts of the game
        (its cards), each with every one of its values: the wire carries such
        a value as its ``id`` (:mod:`quackbox.net.codec`). ``{}`` for none."""


AnyRules = Rules[Any, Any, Move]
"""The rules of whichever game: what the host, ``sim`` and the generic screens hold."""
