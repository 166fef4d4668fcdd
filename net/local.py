"""Local play: a host in this process with bot seats, reached like any other.

The TUI plays a local game through exactly the client it uses over the
network, against a real host listening on 127.0.0.1 on a free port. Why the
loopback socket rather than an in-memory transport: it is the same code path
byte for byte (framing, size limits, the outbox, reconnecting), there is no
second transport to keep in step, and its cost is a few milliseconds to open
and well under a millisecond per move, which nobody can see. Because other
users of a shared machine can reach 127.0.0.1 too, a local table always has
a room code; only this process knows it (and the host's seat token).

A hosted table may also have its doors beside it, the SSH door
(:class:`quackbox.net.ssh.SshServer`) and the browser door
(:class:`quackbox.net.web.WebServer`): friends come in with plain ``ssh`` or
a link in their browser while the host's person plays seat 0 here, and
closing the table closes every door's session with it.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping, overload

from quackbox.net.client import Client
from quackbox.net.host import Host, HostConfig
from quackbox.net.room import new_room_code

if TYPE_CHECKING:  # net.ssh needs asyncssh, loaded only for a table with an SSH door
    from quackbox.net.ssh import SshConfig, SshServer
    from quackbox.net.web import WebConfig, WebServer

__all__ = ["LocalGame", "open_door", "open_table", "ssh_command", "start_local_game"]

DEFAULT_BOT_DELAY = 0.8
"""Seconds between bot moves in a game a person watches."""


def ssh_command(address: str, port: int) -> str:
    """``ssh -p 2222 ADDRESS``: what a friend types to reach an SSH door on ``port``."""
    return f"ssh -p {port} {address}" if port != 22 else f"ssh {address}"


@dataclass
class LocalGame:
    """The running host behind a client (and its doors, if any); :meth:`close` ends them all."""

    host: Host
    client: Client
    ssh: SshServer | None = None
    web: WebServer | None = None
    _closing: asyncio.Task[None] | None = field(default=None, repr=False)

    @property
    def closed(self) -> bool:
        return self._closing is not None

    async def close(self) -> None:
        """Leave the table, close the doors' sessions (their children reaped) and stop the host.

        Safe to call twice, and to give up on: the closing runs in a task of
        its own that a cancelled caller does not stop, and a later call
        waits for that same task, so no door's child is left behind by a
        caller that stopped waiting (an app closing on a timeout).
        """
        if self._closing is None:
            self._closing = asyncio.get_running_loop().create_task(self._close())
        await asyncio.shield(self._closing)

    async def _close(self) -> None:
        try:
            await self.client.close()
        finally:
            await _stop(self.host, self.ssh, self.web)


@overload
async def open_door(config: SshConfig, host: Host) -> SshServer: ...


@overload
async def open_door(config: WebConfig, host: Host) -> WebServer: ...


async def open_door(config: SshConfig | WebConfig, host: Host) -> SshServer | WebServer:
    """Start a door of the running ``host``: the SSH door for an SshConfig, the browser door for
    a WebConfig. The one way a door opens.

    Raises:
        DoorError: a HostError with the door's sentence (the port is in use, the host key
            cannot be used, the table has no room code).
    """
    from quackbox.net.web import WebConfig, WebServer

    door: SshServer | WebServer
    if isinstance(config, WebConfig):
        door = WebServer(config, host)
    else:
        from quackbox.net.ssh import SshServer  # asyncssh, loaded only for a table with an SSH door

        door = SshServer(config, host)
    await door.start()
    return door


async def _stop(host: Host, *doors: SshServer | WebServer | None) -> None:
    """Close the doors' sessions first (each is told the table has closed), then the table."""
    try:
        await asyncio.gather(*(door.stop() for door in doors if door is not None))
    finally:
        await host.stop()


async def open_table(
    config: HostConfig,
    *,
    name: str,
    rules: Any = None,
    ssh: SshConfig | None = None,
    web: WebConfig | None = None,
) -> tuple[Client, LocalGame]:
    """Start a host for ``config`` and connect its own seat (seat 0) to it.

    This is ``quackbox host`` with a person at the table: friends join the
    same host over the network while the host's person plays through the
    returned client. With ``ssh``, the table's SSH door listens beside it
    (every SSH player takes one of the other seats: the host's own seat is
    not an SSH session); with ``web``, its browser door.

    Raises:
        HostError: with a sentence: the table's port or a door's port is in
            use, the SSH host key cannot be used.
    """
    if config.headless:
        raise ValueError("a headless table has no seat for the host to play")
    host = Host(config, rules=rules)
    await host.start()
    door = browser = None
    try:
        if ssh is not None:
            door = await open_door(ssh, host)
        if web is not None:
            browser = await open_door(web, host)
        client = await Client.connect(host.url, name=name, code=host.code, token=host.host_token)
    except BaseException:
        await _stop(host, door, browser)
        raise
    return client, LocalGame(host, client, ssh=door, web=browser)


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
