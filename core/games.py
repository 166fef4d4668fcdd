"""The games quackbox knows, by their command-line name."""

from __future__ import annotations

from core.rules import Rules
from core import side_effects, side_effects_bot  # noqa: F401  (registers its bots)

GAMES: dict[str, Rules] = {side_effects.RULES.name: side_effects.RULES}

try:  # Quack in the Box joins when its module is present.
    from core import quack, quack_bot  # noqa: F401
except ImportError:  # pragma: no cover - only while the second game is being built
    pass
else:
    GAMES[quack.RULES.name] = quack.RULES


def get(name: str) -> Rules:
    """The rules called ``name``; ValueError listing the games otherwise."""
    try:
        return GAMES[name]
    except KeyError:
        raise ValueError(f"unknown game {name!r}; choose from {', '.join(sorted(GAMES))}") from None
