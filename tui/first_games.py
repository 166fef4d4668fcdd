"""A person's first games against bots: they sit first, and a card says how to play.

A median game of Side Effects is about six turns each and the first seat is
drawn at random (SE3), so a newcomer's first game could end before their
first turn. In a person's first :data:`FIRST_GAMES` games of each game
against bots (``quackbox play``, the home screen's Play vs bots) they take
the first turn, unless they chose the first seat themselves (the option
``first-seat``); after that the seats fall as the rules deal them. The
games dealt are counted per game in the settings, and so is the how-to-play
card shown before a person's very first game of each (``tui.how_to_play`` on
the table, as lines with ``--plain``). Imports no Textual: the plain mode
deals its games by the same counts.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Mapping

from quackbox.core import games
from quackbox.tui.config import Settings

FIRST_GAMES = 3
"""Games of each game in which a person sits first (unless they chose a seat)."""
FIRST_SEAT = "first_seat"
"""The option both games name the first seat by (core.options; ``first-seat`` on the command line)."""
PERSON = 0
"""The seat a person takes at a game against bots (``net.local``)."""


@dataclass
class BotGame:
    """A game against bots as the person asked for it: what ``quackbox play`` or the home
    screen's Play vs bots opens, and opens again for the next game."""

    game: str
    players: int
    options: dict[str, Any] = field(default_factory=dict)
    """The options as asked (``-o``, the options screen)."""
    name: str = "Player"
    seed: int | None = None
    bot_delay: float = 0.8
    level: str = "normal"

    def options_now(self, settings: Settings) -> dict[str, Any]:
        """The options to deal the next game with: the person sits first in their first
        games of this game, unless they chose the first seat."""
        if chose_first_seat(self.options) or not has_first_seat(self.game):
            return dict(self.options)
        if settings.played.get(self.game, 0) >= FIRST_GAMES:
            return dict(self.options)
        return {**self.options, FIRST_SEAT: PERSON}


def chose_first_seat(options: Mapping[str, Any]) -> bool:
    """Whether ``options`` name the first seat (written ``first-seat`` or ``first_seat``)."""
    return any(str(key).strip().replace("-", "_") == FIRST_SEAT for key in options)


def has_first_seat(game: str) -> bool:
    return any(f.name == FIRST_SEAT for f in fields(games.get(game).default_options()))


def dealt(settings: Settings, game: str) -> None:
    """Count a game of ``game`` against bots dealt to the person."""
    settings.played[game] = settings.played.get(game, 0) + 1


def needs_card(settings: Settings, game: str) -> bool:
    """Whether the person has yet to see how ``game`` is played."""
    return not settings.introduced.get(game)


def introduce(settings: Settings, game: str) -> None:
    """Remember that the person has seen how ``game`` is played (the card does not come back)."""
    settings.introduced[game] = 1


__all__ = ["FIRST_GAMES", "BotGame", "chose_first_seat", "dealt", "introduce", "needs_card"]
