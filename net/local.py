"""Local play: a host in this process with bot seats, reached like any other.

The TUI plays a local game through exactly the client it uses over the
network, against a real host listening on 127.0.0.1 on a free port. Why the
loopback socket rather than an in-memory transport: it is the same code path
byte for byte (framing, size limits, the outbox, reconnecting), there is no
second transport to keep in step, and its cost is a few milliseconds to open
and well under a millisecond per move, which nobody can see. Because other
users of a shared machine can reach 127.0.0.1 too, a local table always has
a room code; only this process knows it (and the host's seat token).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from net.client import Client
from net.host import Host, HostConfig
from net.table import new_room_code

__all__ = ["LocalGame", "open_table", "start_local_game"]

DEFAULT_BOT_DELAY = 0.8
"""Seconds between bot moves in a game a person watches."""


@dataclass
class LocalGame:
    """The running host behind a client; :meth:`close` ends both."""

    host: Host
    client: Client
    closed: bool = field(default=False)

    async def close(self) -> None:
        """Leave the table and stop the host (safe to call twice)."""
        if self.closed:
            return
        self.closed = True
        try:
            await self.client.close()
        finally:
            await self.host.stop()


async def open_table(config: HostConfig, *, name: str, rules: Any = None) -> tuple[Client, LocalGame]:
    """Start a host for ``config`` and connect its own seat (seat 0) to it.

    This is ``quackbox host`` with a person at the table: friends join the
    same host over the network while the host's person plays through the
    returned client.
    """
    if config.headless:
        raise ValueError("a headless table has no seat for the host to play")
    host = Host(config, rules=rules)
    await host.start()
    try:
        client = await Client.connect(host.url, name=name, code=host.code, token=host.host_token)
    except BaseException:
        await host.stop()
        raise
    return client, LocalGame(host, client)


async def start_local_game(
    game: str,
    seats: int,
    options: Mapping[str, Any] | None = None,
    name: str = "You",
    seed: int | None = None,
    bot_kind: str = "heuristic",
    bot_delay: float = DEFAULT_BOT_DELAY,
    *,
    away_grace: float | None = None,
    journal_dir: str | None = None,
    first_move_delay: float = 0.0,
) -> tuple[Client, LocalGame]:
    """A game against ``seats - 1`` bots, started at once; the person holds seat 0.
    The bots wait ``first_move_delay`` seconds after each deal before their first move.

    After the game ends the table returns to its lobby, so ``client.start()``
    deals a new game with the same seats.

    Raises:
        ValueError / core.rules.BadOptions: bad game, seat count or options.
    """
    config = HostConfig(
        game=game,
        seats=seats,
        bots=seats - 1,
        host_name=name,
        code=new_room_code(),
        options=dict(options or {}),
        seed=seed,
        bot_kind=bot_kind,
        bot_delay=bot_delay,
        first_move_delay=first_move_delay,
        # Nobody else can take the seat, so a bot never plays for the person
        # unless asked (the person may simply be reading the table).
        away_grace=away_grace,
        autostart=True,
        bind="127.0.0.1",
        port=0,
        once=False,
        journal_dir=journal_dir,
    )
    return await open_table(config, name=name)
