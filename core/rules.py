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

from dataclasses import MISSING, dataclass, fields
from typing import Any, ClassVar, Mapping, Protocol, Sequence

__all__ = [
    "Deadline",
    "Event",
    "GameOver",
    "IllegalMove",
    "MalformedMove",
    "Move",
    "NotYourTurn",
    "Outcome",
    "Rules",
    "RulesError",
    "BadOptions",
    "record",
    "Shared",
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
    """A move was refused. The message is a plain sentence naming the bad input."""

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


def record(cls: type) -> type:
    """Make ``cls`` a frozen, slotted dataclass, cheaper to build and to define.

    Moves and events are made on every decision of every simulated game, and
    a frozen dataclass's own ``__init__`` (one ``object.__setattr__`` call
    per field) took half the time of making an event. With four fields or
    more, this ``__init__`` fills the new object as a private twin class
    (the same slots, but ordinary attribute setting, which the interpreter
    does inline) and then makes it a ``cls``; with fewer, it sets each slot
    through its descriptor, which is then cheaper. Either way the result is
    the same frozen value, two to three times faster to build than the
    dataclass one (see bench/rules.py). Defaults are kept.

    Calling a class costs a trip from the interpreter into C and back
    (``__init__`` runs in a fresh interpreter loop), where calling a plain
    function does not. So every record whose fields are all its own slots
    also gets ``make``, a plain function with the same parameters that fills
    a new twin and makes it a ``cls``: the same value again, about a third
    cheaper. The engines call it on their hot paths (``TreatmentPlayed.make(...)``);
    everything else calls the class. ``make`` builds exactly ``cls``, never a
    subclass.

    Defining the classes costs too: ``dataclass`` compiles each generated
    method on its own, and the two games' moves and events were a fifth of
    the program's start-up. So ``__init__``, ``__repr__``, ``__eq__`` and
    ``__hash__`` are compiled together, in one piece, and behave as the
    dataclass ones do (equal when of the same class with equal fields).
    """
    cls = dataclass(frozen=True, slots=True, init=False, repr=False, eq=False)(cls)
    names = [f.name for f in fields(cls)]
    params, body, env = [], [], {}
    own = cls.__dict__.get("__slots__", ())
    has_twin = bool(names) and len(own) == len(names)  # every field a slot of cls itself
    twin = has_twin and len(names) >= 4  # __init__ fills a twin (see above)
    if has_twin:
        env["_cls"] = cls
        env["_new"] = object.__new__
        env["_twin"] = type(
            cls.__name__,
            cls.__bases__,
            {"__slots__": own, "__setattr__": object.__setattr__, "__delattr__": object.__delattr__},
        )
        env["_set_class"] = object.__dict__["__class__"].__set__
    if twin:
        # Subclasses of cls that add slots cannot take the twin's place: they use the descriptors.
        body.append("    if self.__class__ is _cls:")
        body.append("        _set_class(self, _twin)")
        body.extend(f"        self.{n} = {n}" for n in names)
        body.append("        self.__class__ = _cls")
        body.append("        return")
    for i, f in enumerate(fields(cls)):
        if f.default is not MISSING:
            env[f"_default{i}"] = f.default
            params.append(f"{f.name}=_default{i}")
        elif f.default_factory is not MISSING:  # pragma: no cover - records use plain defaults
            raise TypeError(f"{cls.__name__}.{f.name}: records take plain defaults only")
        else:
            params.append(f.name)
        env[f"_set{i}"] = getattr(cls, f.name).__set__
        body.append(f"    _set{i}(self, {f.name})")
    mine = "".join(f"self.{n}, " for n in names)
    theirs = "".join(f"other.{n}, " for n in names)
    shown = ", ".join(f"{n}={{self.{n}!r}}" for n in names)
    make = (
        [
            f"def make({', '.join(params)}):",
            "    self = _new(_twin)",
            *(f"    self.{n} = {n}" for n in names),
            "    self.__class__ = _cls",
            "    return self",
        ]
        if has_twin
        else []
    )
    source = "\n".join(
        [
            *make,
            f"def __init__(self, {', '.join(params)}):",
            *(body or ["    pass"]),
            "def __repr__(self):",
            f"    return f'{{self.__class__.__qualname__}}({shown})'",
            "def __eq__(self, other):",
            "    if other.__class__ is self.__class__:",
            f"        return ({mine}) == ({theirs})",
            "    return NotImplemented",
            "def __hash__(self):",
            f"    return hash(({mine}))",
        ]
    )
    exec(source, env)  # noqa: S102 - builds plain methods from field names, as dataclasses itself does
    for name in ("__init__", "__repr__", "__eq__", "__hash__"):
        method = env[name]
        method.__qualname__ = f"{cls.__qualname__}.{name}"
        setattr(cls, name, method)
    if has_twin:
        env["make"].__qualname__ = f"{cls.__qualname__}.make"
        cls.make = staticmethod(env["make"])
    else:  # fields inherited from a base: make is the class call itself
        cls.make = staticmethod(cls)
    return cls


SHARED_LIMIT = 20_000
"""A :class:`Shared` cache stops growing here (the values that repeat come early)."""


class Shared(dict):
    """The events of one class, made once per distinct value and handed to
    every game: ``cache[fields]`` is the one ``cls(*fields)``; the key of a
    one-field event is that field itself (``cache[seat]``).

    Records are frozen values, so a game may hand every game the same event
    object instead of building an equal one each time; the rules engines do
    so for their commonest events with few distinct values. A lookup is a
    plain dict lookup (``__missing__`` builds the event the first time), and
    a cache stops growing at SHARED_LIMIT values, so none grows without bound.
    """

    __slots__ = ("cls", "single")

    def __init__(self, cls: type) -> None:
        super().__init__()
        self.cls = cls
        self.single = len(fields(cls)) == 1

    def __missing__(self, key: Any) -> Any:
        event = self.cls(key) if self.single else self.cls(*key)
        if len(self) < SHARED_LIMIT:
            self[key] = event
        return event


@record
class Move:
    """Base of every move. Subclasses are imperative: ``Treat``, ``EndTurn``."""


@record
class Event:
    """Base of every event. Subclasses are past tense: ``DisorderTreated``."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a finished game ended.

    ``winners`` are the seats that won (several on a shared win); ``ranking``
    lists every seat best first, and ``places`` gives each seat's place (1 is
    best; tied seats share a place). ``reason`` is a short plain sentence that
    names no seat: seat numbers mean nothing to people, so callers name them.
    """

    winners: tuple[int, ...]
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


class Rules(Protocol):
    """The interface of one game's rules. See docs/ARCHITECTURE.md."""

    name: str
    """The game's id on the command line and the wire: ``side-effects``, ``quack``."""
    title: str
    min_seats: int
    max_seats: int

    def default_options(self) -> Any:
        """The options dataclass with every default."""

    def parse_options(self, values: Mapping[str, Any]) -> Any:
        """Build options from plain values (command line, wire); raise BadOptions."""

    def new_game(self, *, seats: int, options: Any = None, seed: int) -> Any:
        """A new State for ``seats`` players, shuffled by ``random.Random(seed)``.

        What happened while dealing (the first turn's draw, say) is kept in
        ``state.start_events`` for the host to relay like any other events.
        """

    def legal_moves(self, state: Any, seat: int) -> tuple[Move, ...]:
        """Every move ``seat`` may make now, in a documented deterministic order."""

    def check(self, state: Any, seat: int, move: Move) -> None:
        """Raise a RulesError if ``seat`` may not make ``move`` now; change nothing."""

    def apply(self, state: Any, seat: int, move: Move) -> list[Event]:
        """Check, then make the move, returning what happened (unredacted)."""

    def waiting_for(self, state: Any) -> tuple[int, ...]:
        """The seats whose move the game needs in order to go on (empty when over)."""

    def deadline(self, state: Any) -> Deadline | None:
        """The timed wait the game is in, if any."""

    def view(self, state: Any, seat: int | None) -> Any:
        """What ``seat`` may see (None: a spectator), including its legal moves."""

    def redact(self, event: Event, seat: int | None) -> Event | None:
        """``event`` as ``seat`` may see it, or None if it is not theirs to see."""

    def describe(self, event: Event, names: Sequence[str], seat: int | None = None) -> str:
        """``event`` as a plain sentence for the log, told from ``seat``'s side."""

    def outcome(self, state: Any) -> Outcome | None:
        """None while the game runs, then how it ended."""

    def move_types(self) -> tuple[type, ...]:
        """Every Move class of the game (for the wire codec)."""

    def wire_types(self) -> tuple[type, ...]:
        """Every dataclass that can appear in a move, event or view (for the wire)."""
