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
"""

from __future__ import annotations

import random
from typing import Any, Callable, Protocol

from core.rules import Move


class Bot(Protocol):
    name: str
    reacts: bool
    """False when :meth:`react` always returns None, so runners may skip asking."""

    def choose(self, view: Any) -> Move: ...

    def react(self, view: Any) -> Move | None: ...


class RandomBot:
    """Picks uniformly among the legal moves; never acts unasked."""

    name = "random"
    reacts = False

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: Any) -> Move:
        return self.rng.choice(view.legal)

    def react(self, view: Any) -> Move | None:
        return None


BotFactory = Callable[[int], Bot]
"""Makes a bot from a seed."""

_REGISTRY: dict[tuple[str, str], BotFactory] = {}


def register(game: str, kind: str, factory: BotFactory) -> None:
    """Make ``kind`` available for ``game`` (``*`` for every game)."""
    _REGISTRY[(game, kind)] = factory


def kinds(game: str) -> tuple[str, ...]:
    """The bot kinds that can play ``game``."""
    _load_game_bots(game)
    return tuple(sorted({k for g, k in _REGISTRY if g in (game, "*")}))


def make(game: str, kind: str, seed: int) -> Bot:
    """A new bot of ``kind`` for ``game``; ValueError naming the choices if unknown."""
    _load_game_bots(game)
    factory = _REGISTRY.get((game, kind)) or _REGISTRY.get(("*", kind))
    if factory is None:
        raise ValueError(f"no bot called {kind!r} for {game}; choose from {', '.join(kinds(game))}")
    return factory(seed)


def _load_game_bots(game: str) -> None:
    # A game's bot module registers its bots when the game is first loaded;
    # importing the registry here (not at module top) keeps this module free
    # of cycles.
    from core import games

    if game in games.GAMES:
        games.get(game)


register("*", "random", RandomBot)
