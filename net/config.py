"""How a table is run: :class:`TableConfig`, read by the table, its lobby and its bot driver.

Its own module so that each of them imports it without importing the others.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from quackbox.net.seats import LOBBY_SEAT_GRACE

__all__ = ["TableConfig"]


@dataclass
class TableConfig:
    """How a table is run. Every field has a default; see ``quackbox host --help``."""

    game: str = "side-effects"
    seats: int = 4
    bots: int = 0
    """Seats given to bots from the start (the last ones). Open seats also
    get a bot when the game starts."""
    headless: bool = False
    """No seat for the host's person; the first person to join may start."""
    host_name: str = "Host"
    code: str | None = None
    """The room code players must give; None: no code needed."""
    options: Mapping[str, Any] = field(default_factory=dict)
    seed: int | None = None
    """The game's seed (never sent to anyone); None: a random one."""
    bot_kind: str = "heuristic"
    bot_delay: float = 0.8
    """Seconds between a change and a bot's move, so people can follow (0: at once)."""
    first_move_delay: float = 0.0
    """Seconds after a game is dealt before any bot moves, so a person sees the table first."""
    away_grace: float | None = 15.0
    """Seconds an away seat's turn waits before a bot plays for it; None: wait for ever."""
    turn_timer: float | None = None
    """Seconds a person may take for each move before a bot plays for them; None: no limit."""
    deadline_grace: float = 0.5
    """Seconds added to every rules deadline for network latency."""
    autostart: bool = False
    """Start as soon as every seat is taken (by a person who is connected, or a bot)."""
    max_spectators: int = 16
    lobby_grace: float = LOBBY_SEAT_GRACE
    """Seconds a seat left before the game starts waits for its person before it opens for anyone."""
