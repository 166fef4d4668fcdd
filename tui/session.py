"""One seat at one table, however it was reached: the TUI's only door to the network.

A :class:`Session` wraps a :class:`quackbox.net.client.Client` (and, for a game
against bots or a hosted table, the :class:`quackbox.net.local.LocalGame` running the
host in this process). Screens never touch sockets: the app runs
:meth:`Session.messages` in a worker and sends moves through a worker too.

Tests give the app anything with the same few members (see
``tests/tui/fakes.py``), so screens can be fed fixture views.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, AsyncIterator, Mapping

from quackbox.core import games
from quackbox.core.rules import AnyRules, Move
from quackbox.net import places
from quackbox.net.client import Client, Disconnected, NetError, Reconnected, table_url
from quackbox.net.host import Host, HostConfig
from quackbox.net.local import LocalGame, open_table, ssh_command, start_local_game
from quackbox.net.protocol import DEFAULT_PORT, HostMessage
from quackbox.net.tokens import TokenStore

if TYPE_CHECKING:
    from quackbox.net.ssh import SshConfig
    from quackbox.net.web import WebConfig

LOCAL = "local"
"""A game against bots in this process."""
HOSTING = "host"
"""A table this process hosts, with the person in seat 0."""
JOINED = "join"
"""A seat (or a spectator place) at someone else's table."""

Received = HostMessage | Disconnected | Reconnected
"""What a session's :meth:`~Session.messages` yields: the host's messages, and the
client's own word that the connection dropped or came back."""

FIRST_MOVE_DELAY = 2.5
"""Seconds a new game against bots waits before the first bot move: time to look at the table."""


@dataclass
class Session:
    """A connected seat. ``mode`` is LOCAL, HOSTING or JOINED."""

    client: Client
    mode: str
    local: LocalGame | None = None
    address: str = ""
    """How others reach the table (hosting) or where we joined."""
    room_code: str | None = None
    ssh_door: str | None = None
    """What friends type to come in over SSH (``ssh -p 2222 10.0.0.5``), when hosting with an SSH door."""
    host_key: str | None = None
    """The SSH door's host key fingerprint (``SHA256:...``), for friends to check."""
    web_link: str | None = None
    """What friends open in a browser (``http://10.0.0.5:7118/#KQXZ``), when hosting with a browser door."""

    # --- what the screens read ---------------------------------------------------------

    @property
    def game(self) -> str:
        return self.client.game

    @property
    def rules(self) -> AnyRules:
        return self.client.rules if self.client.rules is not None else games.get(self.client.game)

    @property
    def seat(self) -> int | None:
        return self.client.seat

    @property
    def title(self) -> str:
        return self.client.welcome.title if self.client.welcome else ""

    @property
    def starter(self) -> bool:
        return bool(self.client.welcome and self.client.welcome.starter)

    @property
    def token(self) -> str | None:
        return self.client.token

    @property
    def url(self) -> str:
        return self.client.url

    @property
    def host(self) -> Host | None:
        """The host in this process (a local game, or a table hosted here), if any."""
        return self.local.host if self.local is not None else None

    @property
    def latest_seq(self) -> int:
        return self.client.view.seq if self.client.view is not None else 0

    # --- talking to the host --------------------------------------------------------------

    def messages(self) -> AsyncIterator[Received]:
        return self.client.messages()

    async def move(self, move: Move, seq: int | None = None) -> None:
        await self.client.move(move, seq)

    async def chat(self, text: str) -> None:
        await self.client.chat(text)

    async def ready(self, ready: bool = True) -> None:
        await self.client.ready(ready)

    async def start(self) -> None:
        await self.client.start()

    async def remove(self, name: str) -> None:
        await self.client.remove(name)

    async def mute(self, name: str, muted: bool = True) -> None:
        await self.client.mute(name, muted)

    async def close(self) -> None:
        if self.local is not None:
            await self.local.close()
        else:
            await self.client.close()


# --- opening a session ------------------------------------------------------------------------


async def open_local(
    game: str,
    *,
    players: int,
    options: Mapping[str, Any] | None,
    name: str,
    seed: int | None,
    bot_delay: float,
    bot_kind: str = "heuristic",
    first_move_delay: float = FIRST_MOVE_DELAY,
) -> Session:
    """A game against ``players - 1`` bots, dealt at once (the person holds seat 0); the bots
    wait ``first_move_delay`` after each deal, so the person sees the table before they move."""
    client, local = await start_local_game(
        game,
        players,
        dict(options or {}),
        name,
        seed,
        bot_kind=bot_kind,
        bot_delay=bot_delay,
        journal_dir=str(places.games_dir()),
        first_move_delay=first_move_delay,
    )
    return Session(client, LOCAL, local=local, address="this machine", room_code=local.host.code)


async def open_hosted(
    config: HostConfig,
    *,
    name: str,
    lan_address: str | None = None,
    ssh: SshConfig | None = None,
    web: WebConfig | None = None,
) -> Session:
    """``quackbox host`` with a person at the table: friends join over the network
    (and, with ``ssh``, over plain ssh too; with ``web``, in a browser).

    Raises:
        HostError: a port is in use, the SSH host key cannot be used (a sentence).
    """
    client, local = await open_table(config, name=name, ssh=ssh, web=web)
    machine = lan_address or "127.0.0.1"
    where = machine if local.host.port == DEFAULT_PORT else f"{machine}:{local.host.port}"
    session = Session(client, HOSTING, local=local, address=where, room_code=local.host.code)
    if local.ssh is not None:
        session.ssh_door = ssh_command(machine, local.ssh.port)
        session.host_key = local.ssh.fingerprint
    if local.web is not None:
        session.web_link = local.web.link()
    return session


async def open_joined(
    address: str,
    *,
    port: int | None = None,
    code: str | None,
    name: str,
    spectate: bool = False,
    tokens: TokenStore | None = None,
) -> Session:
    """Take a seat at ``address`` (``10.0.0.5``, ``10.0.0.5:7117``, ``ws://...``).

    With ``tokens``, the seat token this player was last given at that
    address is offered first, so a restarted app (or a resumed host) gives
    back the same seat and hand; a token the table does not know is dropped.

    Raises:
        NetError: with a sentence for people (no host, wrong code, table full...).
    """
    url = table_url(address, port)
    client = await Client.connect(url, name=name, code=code or None, spectate=spectate, tokens=tokens)
    return Session(client, JOINED, address=address, room_code=code or None)


__all__ = ["HOSTING", "JOINED", "LOCAL", "NetError", "Received", "Session", "open_hosted", "open_joined", "open_local"]
