"""The games quackbox knows, by their command-line name."""

from __future__ import annotations

from core import quack, quack_bot, side_effects, side_effects_bot  # noqa: F401  (the bot modules register their bots)
from core.rules import Rules

GAMES: dict[str, Rules] = {rules.name: rules for rules in (side_effects.RULES, quack.RULES)}


def get(name: str) -> Rules:
    """The rules called ``name``; ValueError listing the games otherwise."""
    try:
        return GAMES[name]
    except KeyError:
        raise ValueError(f"unknown game {name!r}; choose from {', '.join(sorted(GAMES))}") from None
