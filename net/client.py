"""The client: one seat (or a spectator) at a host's table, over one WebSocket.

Shared by the TUI and the bots. :meth:`Client.connect` does the handshake and
raises a :class:`NetError` with a sentence a person can read when it cannot
join (no host there, wrong code, table full, game already started, version
mismatch). After that, ``async for message in client`` yields the host's
messages as typed values (:class:`~quackbox.net.protocol.Lobby`,
:class:`~quackbox.net.protocol.View`, :class:`~quackbox.net.protocol.ChatLine`,
:class:`~quackbox.net.protocol.Error`, ...) plus two local notices,
:class:`Disconnected` and :class:`Reconnected`: when the connection drops
without a goodbye, the client reconnects by itself with its seat token (the
first retry within a second) and the host sends a fresh view.

:func:`run_network_bot` is a bot seat over the network, for
``quackbox join HOST --bot``; it runs its bot as the host's bot driver does
(:func:`quackbox.net.bot_driver.seated`).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any, AsyncIterator

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from quackbox.core import games
from quackbox.core.rules import Move
from quackbox.net.errors import NetError
from quackbox.net.protocol import (
    DEFAULT_PORT,
    MAX_HOST_FRAME,
    PROTOCOL_VERSION,
    Bye,
    ChatLine,
    Error,
    ErrorCode,
    Hello,
    Lobby,
    MoveMessage,
    Mute,
    ProtocolError,
    Ready,
    Remove,
    Say,
    Start,
    View,
    Welcome,
    Wire,
)
from quackbox.net.tokens import TokenStore

__all__ = [
    "BadToken",
    "Removed",
    "Client",
    "ConnectionLost",
    "Disconnected",
    "GameStarted",
    "HostClosed",
    "NetError",
    "NoHost",
    "NotConnected",
    "Reconnected",
    "Refused",
    "TableFull",
    "VersionMismatch",
    "WrongCode",
    "table_url",
]

log = logging.getLogger("quackbox.net")

RECONNECT_DELAYS = (0.2, 0.5, 1.0, 2.0, 3.0, 5.0)
"""Seconds before each reconnection attempt; the last repeats."""
RECONNECT_FOR = 60.0
"""Seconds to keep trying before giving up on a lost host."""
OPEN_TIMEOUT = 5.0
RESENDS = 5
"""Times a move the host refused for rate is sent again (after the wait the
host gave) before the refusal is passed on."""


# --- errors ----------------------------------------------------------------------
#
# NetError             something went wrong with the host; str() is a sentence
#  +-- NoHost          nothing answered at that address
#  +-- Refused         the host answered but would not seat us; .code says why
#  |    +-- WrongCode, TableFull, GameStarted, VersionMismatch, BadToken, Removed
#  +-- HostClosed      the host said goodbye (.reason)
#  +-- ConnectionLost  the connection dropped and reconnecting failed
#  +-- NotConnected    a send while the connection is down (reconnecting)


class NoHost(NetError):
    """Nothing (or nothing speaking WebSocket) answered at the address."""

    code = "no_host"


class Refused(NetError):
    """The host answered but refused the join; ``code`` is the host's error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class WrongCode(Refused):
    """The room code is missing or wrong."""


class TableFull(Refused):
    """Every seat (or every spectator place) is taken."""


class GameStarted(Refused):
    """The game began without us; join as a spectator instead."""


class VersionMismatch(Refused):
    """The host runs a different protocol version."""


class BadToken(Refused):
    """The seat token is not valid at this table (a different or restarted table)."""


class Removed(Refused):
    """The host removed this seat's person from the table: its token never sits there again."""


class HostClosed(NetError):
    """The host said goodbye; ``reason`` is its stable word for why."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message or f"The host closed the connection ({reason}).")
        self.reason = reason


class ConnectionLost(NetError):
    """The connection dropped and could not be re-established."""

    code = "connection_lost"


class NotConnected(NetError):
    """Nothing can be sent while the connection is down."""

    code = "not_connected"


_REFUSALS: dict[str, type[Refused]] = {
    ErrorCode.WRONG_CODE: WrongCode,
    ErrorCode.TABLE_FULL: TableFull,
    ErrorCode.GAME_STARTED: GameStarted,
    ErrorCode.VERSION_MISMATCH: VersionMismatch,
    ErrorCode.BAD_TOKEN: BadToken,
    ErrorCode.REMOVED: Removed,
}


# --- local notices (not wire messages) -------------------------------------------------


@dataclass(frozen=True, slots=True)
class Disconnected:
    """The connection dropped; the client is reconnecting."""

    reason: str


@dataclass(frozen=True, slots=True)
class Reconnected:
    """The connection is back; a fresh view follows."""


_END = object()


def table_url(host: str, port: int | None = None) -> str:
    """The WebSocket URL for ``host`` as a person types it.

    Accepts ``10.0.0.5``, ``10.0.0.5:7117``, ``[::1]:7117``, ``box.lan`` or a
    full ``ws://`` URL; ``port`` applies when the text names none.
    """
    host = host.strip()
    if host.startswith(("ws://", "wss://")):
        return host
    if host.startswith("["):  # [v6]:port
        end = host.find("]")
        name, rest = host[: end + 1], host[end + 1 :]
        given = rest[1:] if rest.startswith(":") else ""
    elif host.count(":") == 1:
        name, given = host.split(":")
    elif ":" in host:  # a bare IPv6 address
        name, given = f"[{host}]", ""
    else:
        name, given = host, ""
    return f"ws://{name}:{given or port or DEFAULT_PORT}"


def worth_resending(error: Error) -> bool:
    """Whether ``error`` refused a move for its rate alone, so the same move sent again after
    ``error.retry_after`` seconds will be taken. A refusal for what the seat did this turn
    (``retry_after`` 0), or of anything but a move, is not."""
    return error.code == ErrorCode.RATE_LIMITED and error.refused == MoveMessage.TYPE and error.retry_after > 0


class Client:
    """A connection to a host's table. Make one with :meth:`connect`.

    Attributes:
        welcome: the host's ``welcome`` (game, seats, your seat and token).
        lobby: the latest ``lobby`` message, or None.
        view: the latest ``view`` message, or None (``view.view`` is the game view).
    """

    def __init__(
        self,
        url: str,
        *,
        name: str,
        code: str | None,
        token: str | None,
        spectate: bool,
        reconnect: bool,
        reconnect_for: float,
    ) -> None:
        self.url = url
        self.name = name
        self.code = code
        self.token = token
        self.spectate = spectate
        self.reconnect = reconnect
        self.reconnect_for = reconnect_for
        self.welcome: Welcome | None = None
        self.lobby: Lobby | None = None
        self.view: View | None = None
        self.wire: Wire | None = None
        self._handshake = Wire(None)
        self._ws: ClientConnection | None = None
        self._queue: asyncio.Queue[Any] = asyncio.Queue()
        self._reader: asyncio.Task[None] | None = None
        self._closing = False
        self._failure: NetError | None = None
        self._last_move: MoveMessage | None = None
        self._resends = 0
        self._resend: asyncio.Task[None] | None = None
        self.log_seen = -1
        """The number of the last log line received (-1: none): a reconnection asks only for
        the lines after it, so a line said twice is shown twice, and one missed once."""
        self.chat_seen = -1
        """The number of the last chat line received (-1: none), likewise."""

    # --- opening ---------------------------------------------------------------------

    @classmethod
    async def connect(
        cls,
        url: str,
        *,
        name: str,
        code: str | None = None,
        token: str | None = None,
        spectate: bool = False,
        reconnect: bool = True,
        reconnect_for: float = RECONNECT_FOR,
        tokens: TokenStore | None = None,
    ) -> Client:
        """Join the table at ``url``: a seat (or the seat ``token`` holds), or a spectator place.

        With ``tokens`` (and no ``token``), the token last given at ``url`` is
        offered first, so a player finds their seat again after either side
        restarted; a token the host no longer knows is forgotten and the
        player joins as a newcomer. The token given is remembered there.

        Raises:
            NoHost: nothing answered at ``url``.
            Refused: the host would not seat us (a subclass says why).
        """
        recalled = None
        if token is None and tokens is not None and not spectate:
            token = recalled = tokens.recall(url, name)
        client = cls(
            url,
            name=name,
            code=code,
            token=token,
            spectate=spectate,
            reconnect=reconnect,
            reconnect_for=reconnect_for,
        )
        try:
            await client._open()
        except BadToken:
            if recalled is None or tokens is None:
                raise
            tokens.forget(url, name)
            client.token = None
            await client._open()
        if tokens is not None and client.token:
            tokens.remember(url, client.token, name=name, game=client.game)
        client._reader = asyncio.create_task(client._read())
        return client

    async def _open(self) -> None:
        try:
            ws = await connect(
                self.url,
                max_size=MAX_HOST_FRAME,
                compression=None,
                # Tables are on the LAN or this machine: an HTTP proxy from the
                # environment would only get in the way.
                proxy=None,
                open_timeout=OPEN_TIMEOUT,
                close_timeout=2.0,
                ping_interval=10.0,
                ping_timeout=10.0,
            )
        except InvalidURI:
            raise NoHost(f"{self.url} is not a table address.") from None
        except (OSError, InvalidHandshake, TimeoutError) as exc:
            raise NoHost(f"No quackbox host answered at {self.url} ({_why(exc)}).") from None
        try:
            hello = Hello(
                version=PROTOCOL_VERSION,
                name=self.name,
                token=self.token,
                code=self.code,
                spectate=self.spectate,
                log_seen=self.log_seen,
                chat_seen=self.chat_seen,
            )
            await ws.send(self._handshake.encode(hello))
            async with asyncio.timeout(OPEN_TIMEOUT):
                first = self._handshake.decode_from_host(await ws.recv())
        except (ConnectionClosed, TimeoutError, OSError) as exc:
            await ws.close()
            raise NoHost(f"The host at {self.url} did not answer the handshake ({_why(exc)}).") from None
        except ProtocolError as exc:
            await ws.close()
            raise NoHost(f"Whatever answered at {self.url} does not speak quackbox ({exc}).") from None
        if isinstance(first, Error):
            await ws.close()
            kind = _REFUSALS.get(first.code, Refused)
            raise kind(first.code, first.message)
        if isinstance(first, Bye):
            await ws.close()
            raise HostClosed(first.reason, first.message)
        welcome: Welcome = first
        if self.wire is None or self.welcome is None or self.welcome.game != welcome.game:
            try:
                self.wire = Wire(games.get(welcome.game))
            except ValueError:
                await ws.close()
                raise NetError(f"The host plays {welcome.title}, which this quackbox does not know.") from None
        self.welcome = welcome
        self.token = welcome.token
        self._ws = ws

    # --- reading ---------------------------------------------------------------------

    async def _read(self) -> None:
        try:
            while True:
                bye = await self._pump()
                if bye is not None or self._closing:
                    break
                if not self.reconnect:
                    self._failure = ConnectionLost("The connection to the host was lost.")
                    break
                self._queue.put_nowait(Disconnected("The connection to the host was lost."))
                if not await self._reconnect():
                    break
                self._queue.put_nowait(Reconnected())
        except Exception as exc:  # a bug here must end the stream loudly, not hang it
            log.exception("the client's reader failed")
            self._failure = ConnectionLost(f"The connection failed unexpectedly ({exc}).")
        finally:
            self._queue.put_nowait(_END)

    async def _pump(self) -> Bye | None:
        """Read frames until the connection ends; the host's bye, if it said one."""
        ws, wire = self._ws, self.wire
        if ws is None or wire is None:  # pragma: no cover - _read starts only after a successful open
            return None
        try:
            async for frame in ws:
                try:
                    message = wire.decode_from_host(frame)
                except ProtocolError as exc:
                    # A host sending nonsense is a bug on its side; skip the frame.
                    log.warning("skipping a frame the host sent: %s", exc)
                    continue
                kind = type(message)
                if kind is Error and self._resend_later(message):
                    continue
                if kind is View:
                    if message.log:
                        self.log_seen = message.log_from + len(message.log) - 1
                    self.view = message
                elif kind is ChatLine:
                    self.chat_seen = max(self.chat_seen, message.number)
                elif kind is Lobby:
                    self.lobby = message
                elif kind is Welcome:
                    self.welcome = message
                self._queue.put_nowait(message)
                if isinstance(message, Bye):  # the host said why; the stream ends after it, without an error
                    return message
        except ConnectionClosed:
            pass
        return None

    def _resend_later(self, error: Error) -> bool:
        """Whether ``error`` refused our latest move for rate, and that move
        will be sent again after the wait the host gave (the error is then
        not passed on: the person never has to make the move twice)."""
        move = self._last_move
        if move is None or not worth_resending(error):
            return False
        if self._resends >= RESENDS:
            return False
        self._resends += 1
        log.info("the host refused a move for rate; sending it again in %.3f s", error.retry_after)
        self._resend = asyncio.create_task(self._send_after(error.retry_after, move))
        return True

    async def _send_after(self, seconds: float, move: MoveMessage) -> None:
        await asyncio.sleep(seconds)
        if move is self._last_move:  # else a newer move went out meanwhile
            try:
                await self._send(move)
            except NotConnected:
                pass  # a fresh view follows the reconnection

    async def _reconnect(self) -> bool:
        loop = asyncio.get_running_loop()
        give_up = loop.time() + self.reconnect_for
        attempt = 0
        self._ws = None
        while not self._closing:
            await asyncio.sleep(RECONNECT_DELAYS[min(attempt, len(RECONNECT_DELAYS) - 1)])
            attempt += 1
            try:
                await self._open()
                return True
            except NoHost as exc:
                if loop.time() >= give_up:
                    self._failure = ConnectionLost(f"Lost the host and could not reconnect: {exc}")
                    return False
            except NetError as exc:  # refused, or the host said goodbye: retrying will not help
                self._failure = exc
                return False
        return False

    def __aiter__(self) -> AsyncIterator[Any]:
        return self.messages()

    async def messages(self) -> AsyncIterator[Any]:
        """The host's messages in order, and Disconnected/Reconnected notices.

        Ends after the host's ``bye`` or :meth:`close`; raises the NetError
        (e.g. ConnectionLost) if the connection ended any other way.
        """
        while True:
            item = await self._queue.get()
            if item is _END:
                self._queue.put_nowait(_END)  # later readers end too
                if self._failure is not None and not self._closing:
                    raise self._failure
                return
            yield item

    # --- properties ------------------------------------------------------------------

    @property
    def game(self) -> str:
        return self.welcome.game if self.welcome else ""

    @property
    def rules(self) -> Any:
        return self.wire.rules if self.wire else None

    @property
    def seat(self) -> int | None:
        return self.welcome.seat if self.welcome else None

    @property
    def connected(self) -> bool:
        return self._ws is not None and not self._closing

    def drop(self) -> None:
        """Lose the connection at once, with no goodbye, as a failing network loses it: the
        host keeps the seat for its token, and a client made to reconnect does so."""
        ws = self._ws
        if ws is not None:
            ws.transport.abort()

    # --- sending ---------------------------------------------------------------------

    async def _send(self, message: Any) -> None:
        ws = self._ws
        if ws is None or self._closing or self.wire is None:
            raise NotConnected("Not connected to the host right now.")
        try:
            await ws.send(self.wire.encode(message))
        except ConnectionClosed:
            raise NotConnected("The connection to the host dropped; reconnecting.") from None

    async def move(self, move: Move, seq: int | None = None) -> None:
        """Make ``move``, chosen from the view numbered ``seq`` (default: the latest)."""
        if seq is None:
            seq = self.view.seq if self.view is not None else 0
        self._last_move = message = MoveMessage(seq=seq, move=move)
        self._resends = 0
        await self._send(message)

    async def chat(self, text: str) -> None:
        """Say ``text`` to the table (the host cleans and limits it)."""
        await self._send(Say(text=text))

    async def ready(self, ready: bool = True) -> None:
        await self._send(Ready(ready=ready))

    async def start(self) -> None:
        """Ask to start the game (only the starter seat may)."""
        await self._send(Start())

    async def remove(self, name: str) -> None:
        """Remove the person called ``name`` from the table (the host's seat only)."""
        await self._send(Remove(name=name))

    async def mute(self, name: str, muted: bool = True) -> None:
        """Mute the chat of the person called ``name`` (``muted`` false: let it go; the host's seat only)."""
        await self._send(Mute(name=name, muted=muted))

    async def close(self, reason: str = "left") -> None:
        """Say goodbye and close. Safe to call more than once."""
        if self._closing:
            return
        self._closing = True
        ws = self._ws
        if ws is not None:
            try:
                await ws.send(self._handshake.encode(Bye(reason=reason)))
            except ConnectionClosed:
                pass
            await ws.close()
        if self._resend is not None:
            self._resend.cancel()
        if self._reader is not None:
            self._reader.cancel()
            try:
                await self._reader
            except asyncio.CancelledError:
                pass
        self._queue.put_nowait(_END)

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()


def _why(exc: BaseException) -> str:
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    if isinstance(exc, TimeoutError):
        return "timed out"
    if isinstance(exc, ConnectionClosed):
        return "the connection closed"
    text = str(exc)
    return text or type(exc).__name__
