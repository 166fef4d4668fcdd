"""Bots: players that choose a move from their seat's view, and nothing else.

A bot never sees a State. It receives the same View a person's screen would
(its own hand, public information, its legal moves) and returns one of
``view.legal``. Bots hold their own ``random.Random`` so games stay
reproducible.

Two calls:

- :meth:`Bot.choose` when the game is waiting for this seat; it must return a
  move from ``view.legal``.
- :meth:`Bot.react` when the seat *may* act but the game does not wait for
  it (an answer to a trade offer, an Anytime card on someone else's turn); it
  returns a move or None to let the moment pass.

A bot that keeps a memory (the search bot, ``remembers``) is also shown the
events of every move as redacted for its seat (:meth:`Bot.observe`, through
:func:`observe`), so it remembers what it was shown, never more.

Which of the two to ask is decided in one place, :func:`decide`, and the order
in which a table of bots is asked in another, :func:`next_move`. Every runner
uses them: ``core.play`` (``quackbox sim``), the host's table (which adds
pacing, so people can follow) and a bot seat over the network.
"""

from __future__ import annotations

import dataclasses
import random
from abc import ABC, abstractmethod
from typing import Any, Callable, Generic, Mapping, Protocol, Sequence, TypeVar

from quackbox.core.rules import AnyRules, Event, GameView, Move

V = TypeVar("V", bound=GameView)


class Bot(ABC, Generic[V]):
    """A player that sees only its seat's views (of type ``V``, its game's).

    What a runner may ask of a bot is declared here, so no runner asks at
    run time what a bot can do: :meth:`choose` always, :meth:`react` when
    ``reacts``, :meth:`observe` when ``remembers``, and ``slow`` bots off the
    event loop.
    """

    name: str = "bot"
    """The kind of bot (``heuristic``, ``search``...)."""
    reacts: bool = False
    """False when :meth:`react` always returns None, so runners may skip asking."""
    remembers: bool = False
    """True when the bot keeps a memory: runners show it every move's events (:meth:`observe`)."""
    slow: bool = False
    """It thinks for about a second: a table with people runs it off its event loop."""

    @abstractmethod
    def choose(self, view: V) -> Move:
        """One of ``view.legal``: the game is waiting for this seat."""

    def react(self, view: V) -> Move | None:
        """A move the seat may make though the game does not wait for it, or None."""
        return None

    def observe(self, events: Sequence[Event], seat: int) -> None:
        """Remember ``events``, as redacted for ``seat`` (this bot's): only if ``remembers``."""


class Player(Protocol):
    """Whoever :func:`decide` asks to play a seat: a :class:`Bot`, or a
    runner's wrapper of one. The host's wrapper of a slow bot thinks in a
    thread and has no move until its thought is done: its ``choose`` may
    return None (no move yet), which :func:`decide` passes on as it does
    a reaction's None."""

    @property
    def reacts(self) -> bool: ...

    @property
    def remembers(self) -> bool: ...

    def choose(self, view: Any) -> Move | None: ...

    def react(self, view: Any) -> Move | None: ...

    def observe(self, events: Sequence[Event], seat: int) -> None: ...


class RandomBot(Bot[GameView]):
    """Picks uniformly among the legal moves; never acts unasked."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: GameView) -> Move:
        return self.rng.choice(view.legal)


class GameStalled(RuntimeError):
    """The game waited for nobody (or for a seat with no legal move) before it
    ended: a bug in the rules."""


def decide(bot: Player, view: GameView) -> Move | None:
    """What ``bot`` does at the seat ``view`` belongs to: the one "choose or react" rule.

    A seat the game waits for must choose one of its legal moves; any other
    seat may react (or let the moment pass, None). A spectator's view, a
    finished game and a seat with no legal move call for nothing.
    """
    seat = view.seat
    if seat is None or view.outcome is not None or not view.legal:
        return None
    if seat in view.waiting_for:
        return bot.choose(view)
    return bot.react(view) if bot.reacts else None


def first_reaction(rules: AnyRules, state: Any, bots: Mapping[int, Player]) -> tuple[int, Move] | None:
    """The first reaction of a bot the game is not waiting for, in seat order.

    Only bots that react at all are asked, and only at seats with a legal
    move (:func:`decide`: a reaction needs one). None: nobody reacts now.
    """
    asked = _reacting(rules.waiting_for(state), bots)
    return _reaction(asked, rules.views(state, asked), bots) if asked else None


def _reacting(waiting: Sequence[int], bots: Mapping[int, Player]) -> list[int]:
    return [seat for seat, bot in bots.items() if seat not in waiting and bot.reacts]


def _reaction(asked: Sequence[int], views: Sequence[GameView], bots: Mapping[int, Player]) -> tuple[int, Move] | None:
    for seat, view in zip(asked, views):
        move = decide(bots[seat], view)
        if move is not None:
            return seat, move
    return None


def next_move(rules: AnyRules, state: Any, bots: Sequence[Bot[Any]]) -> tuple[int, Move]:
    """The next (seat, move) at a table where ``bots[seat]`` plays every seat.

    A reaction goes first (:func:`first_reaction`), so an answer to an offer
    or an Anytime card gets its moment; else the first seat the game waits
    for chooses. GameStalled if the game waits for no seat that can move.

    The views of the seats that may react and of the one waited for are
    made together (``rules.views`` shares their public part): in Quack in
    the Box most seats may play an Anytime card after most moves, and a
    search bot's playouts ask them every move.
    """
    waiting = rules.waiting_for(state)
    if not waiting:
        raise GameStalled("the game is not over but waits for no seat")
    table = dict(enumerate(bots))
    asked = _reacting(waiting, table)
    seat = waiting[0]
    *reacting, chooser = rules.views(state, [*asked, seat])
    reaction = _reaction(asked, reacting, table)
    if reaction is not None:
        return reaction
    move = decide(bots[seat], chooser)
    if move is None:
        raise GameStalled(f"the game waits for seat {seat + 1}, which has no legal move")
    return seat, move


BotFactory = Callable[..., Bot[Any]]
"""Makes a bot from a seed (and, for a search bot, an optional ``budget``)."""

EASY, NORMAL, HARD = "easy", "normal", "hard"
LEVELS = (EASY, NORMAL, HARD)
"""The three levels a person picks from, weakest first: a weak but sensible
bot, the heuristic, the search bot (:mod:`quackbox.core.search`)."""

_REGISTRY: dict[tuple[str, str], BotFactory] = {}


def register(game: str, kind: str, factory: BotFactory) -> None:
    """Make ``kind`` available for ``game`` (``*`` for every game)."""
    _REGISTRY[(game, kind)] = factory


def kinds(game: str) -> tuple[str, ...]:
    """The bot kinds that can play ``game``."""
    _load_game_bots(game)
    return tuple(sorted({k for g, k in _REGISTRY if g in (game, "*")}))


def make(game: str, kind: str, seed: int, *, budget: int | None = None) -> Bot[Any]:
    """A new bot of ``kind`` for ``game``; ValueError naming the choices if unknown.
    ``budget`` sets a search bot's simulated games per decision (others ignore it)."""
    _load_game_bots(game)
    factory = _REGISTRY.get((game, kind)) or _REGISTRY.get(("*", kind))
    if factory is None:
        raise ValueError(f"no bot called {kind!r} for {game}; choose from {', '.join(kinds(game))}")
    return factory(seed, budget=budget) if budget is not None and kind == HARD else factory(seed)


def distinct(moves: Sequence[Move], names: Mapping[int, str]) -> list[Move]:
    """``moves`` without repeats, in order, a card played from the hand standing
    for every card of its name (``names``: the names of the cards in hand, by
    id): a search weighs one Discard of two Lithiums, not both."""
    seen: set[tuple[object, ...]] = set()
    out = []
    for move in moves:
        values = dataclasses.astuple(move)
        played = bool(values) and dataclasses.fields(move)[0].name in ("card", "drug")
        key = (type(move), names.get(values[0], values[0]) if played else None, *values[1 if played else 0 :])
        if key not in seen:
            seen.add(key)
            out.append(move)
    return out


def observe(bot: Player, rules: AnyRules, seat: int, events: Sequence[Event]) -> None:
    """Show ``bot`` at ``seat`` the ``events`` as redacted for that seat, if it
    keeps a memory (a search bot does); never more than the seat may see."""
    if bot.remembers:
        seen = [e for e in (rules.redact(event, seat) for event in events) if e is not None]
        bot.observe(seen, seat)


def _load_game_bots(game: str) -> None:
    # A game's bot module registers its bots when the game is first loaded;
    # importing the registry here (not at module top) keeps this module free
    # of cycles.
    from quackbox.core import games

    if game in games.GAMES:
        games.get(game)


register("*", "random", RandomBot)
