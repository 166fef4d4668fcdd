"""The games quackbox knows, by their command-line name.

A game's module is imported the first time the game is asked for, with its
bot module (which registers its bots): loading a game's rules and cards is a
tenth of a second, and `quackbox play side-effects` has no use for Quack in
the Box. Names and titles are known without loading anything.
"""

from __future__ import annotations

from importlib import import_module
from typing import Iterator, Mapping

from quackbox.core.rules import AnyRules

SIDE_EFFECTS = "side-effects"
QUACK = "quack"

_MODULES: dict[str, tuple[str, str]] = {
    SIDE_EFFECTS: ("quackbox.core.side_effects", "quackbox.core.side_effects.bot"),
    QUACK: ("quackbox.core.quack", "quackbox.core.quack.bot"),
}
TITLES: dict[str, str] = {SIDE_EFFECTS: "Side Effects", QUACK: "Quack in the Box"}
"""Each game's title, as its rules give it (a test keeps the two the same)."""


class _Games(Mapping[str, AnyRules]):
    """Game name -> rules, each game imported on first use."""

    def __init__(self) -> None:
        self._loaded: dict[str, AnyRules] = {}

    def __getitem__(self, name: str) -> AnyRules:
        rules = self._loaded.get(name)
        if rules is None:
            rules_module, bot_module = _MODULES[name]
            rules = import_module(rules_module).RULES
            import_module(bot_module)
            self._loaded[name] = rules
        return rules

    def __contains__(self, name: object) -> bool:
        # Mapping's own test would look the game up, and so load it.
        return name in _MODULES

    def __iter__(self) -> Iterator[str]:
        return iter(_MODULES)

    def __len__(self) -> int:
        return len(_MODULES)


GAMES: Mapping[str, AnyRules] = _Games()


def modules(name: str) -> tuple[str, ...]:
    """The modules a game loads (its rules, its bots), for whoever imports them ahead."""
    return _MODULES[name]


def get(name: str) -> AnyRules:
    """The rules called ``name``; ValueError listing the games otherwise."""
    try:
        return GAMES[name]
    except KeyError:
        raise ValueError(f"unknown game {name!r}; choose from {', '.join(sorted(GAMES))}") from None


def title(name: str) -> str:
    """The title of game ``name``, without loading it; ValueError if unknown."""
    try:
        return TITLES[name]
    except KeyError:
        raise ValueError(f"unknown game {name!r}; choose from {', '.join(sorted(GAMES))}") from None
