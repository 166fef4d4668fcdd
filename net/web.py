"""The browser door of a table: open a link and you are at the table, nothing installed.

:class:`WebServer` listens beside a running :class:`quackbox.net.host.Host`
(websockets' asyncio server, on the same address) and serves, on one port,
the table's page and its terminal socket. What every door shares (the
children, the limits, the player folders, the sentences) is
:class:`quackbox.net.door.Door`'s; what the HTTP side answers is
:mod:`quackbox.net.web_http`'s. What is the browser's own is here: the
socket's small protocol, the identity a page keeps, the room code's check
and the socket as the door's :class:`~quackbox.net.door.Terminal`.

The socket's protocol (the page's ``door.js`` speaks it):

1. The page's first message is text, a JSON object::

       {"hello": 1, "code": "KQXZ-...", "id": "<64 hex digits>", "name": "Ann",
        "watch": false, "cols": 80, "rows": 24}

   The room code rides there, never in a URL (the link carries it in its
   fragment, which a browser never sends). It is checked before anything
   starts, in constant time; an address that keeps giving wrong codes is
   answered ever later (:class:`quackbox.net.limits.SlowDown`, as the table
   answers wrong codes).
2. Then the page sends binary frames, the keys typed, and text frames
   ``{"resize": [cols, rows]}``; the host sends binary frames, the
   terminal's output.
3. The host closes the socket with code 1000 when the session ended as the
   player asked (they left the table), :data:`REFUSED` (4000) with a
   sentence as the reason when it refused or ended the session, and
   :data:`WRONG_CODE` (4001) when the room code is wrong. The page comes
   back by itself only after other closes (a dropped network).

Identity: the page keeps a random id in the browser's localStorage. Its
SHA-256 names the player's folder (:func:`browser_key`), so the same browser
reopening the link gets its seat and hand back; the id itself, which is as
good as the seat, is never written down by the host.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import errno
import hashlib
import json
import logging
import os
import re
import socket
from dataclasses import dataclass, field
from http import HTTPStatus
from pathlib import Path
from typing import Any, Callable, Hashable

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response
from websockets.protocol import State

from quackbox.net import places
from quackbox.net.door import Door, DoorServer, DoorSession, SessionRequest
from quackbox.net.door_launch import ChildProgram, Launch
from quackbox.net.door_policy import DoorLimits
from quackbox.net.door_session import loop_now
from quackbox.net.errors import DoorError
from quackbox.net.gate import Gate
from quackbox.net.limits import SlowDown, TokenBucket
from quackbox.net.player_folders import Key, PlayerFolders
from quackbox.net.protocol import DEFAULT_WEB_PORT
from quackbox.net.resources import QuietLog
from quackbox.net.room import same_code
from quackbox.net.web_http import Page, allowed_hosts, answer

__all__ = [
    "DEFAULT_WEB_PORT",
    "REFUSED",
    "WRONG_CODE",
    "BrowserHello",
    "WebConfig",
    "WebError",
    "WebServer",
    "browser_key",
    "read_hello",
    "web_link",
]

log = logging.getLogger("quackbox.web")

REFUSED = 4000
"""Close code: the door refused or ended the session; the reason is the sentence."""
WRONG_CODE = 4001
"""Close code: the room code is wrong (the page asks for it)."""
LEFT = 1000
"""Close code: the session ended as the player asked (they left the table)."""
MAX_REASON = 123
"""Bytes a close reason may hold (RFC 6455)."""

MAX_MESSAGE = 16 * 1024
"""The largest message a page may send; the page sends keys in pieces of 4 KiB."""
MESSAGE_QUEUE = 8
"""Messages read ahead of the door before the socket stops reading (its
input then waits in the browser and the network, as over SSH)."""
MESSAGE_BURST = 200
MESSAGES_PER_SECOND = 100.0
"""Messages (keys, mouse reports, sizes) a socket is read at: a burst, then
so many a second, more than a person sends with key repeat and a mouse swept
across the table; a flood beyond it is left unread, so it costs the host no
more than this."""
OUTPUT_BACKLOG = 64 * 1024
"""Bytes of a child's output waiting for a browser that does not keep up
before the child is no longer read (it then blocks on its terminal)."""
HTTP_CONNECTIONS = 128
HTTP_CONNECTIONS_PER_ADDRESS = 32
"""Connections at once not yet a terminal socket (a request on its way, its answer being
sent), in all and from one address: a browser opens a few at once for the page, and friends
behind one router share an address. Past either, the oldest makes way for the newcomer
(:class:`quackbox.net.gate.Gate`), one whose request is still unfinished first; so half-sent
requests, however many, hold only these descriptors, and never keep a newcomer out. Each
has :data:`quackbox.net.door_policy.CONNECTION_DEADLINE` from connecting to its request answered
or its socket open."""
PEEK = 8192
"""Bytes of a connection's request looked at as it is accepted (a browser's head is smaller)."""
GOODBYE_WAIT = 2.0
"""Seconds the last output and the goodbye may take to reach a browser before the socket is cut."""
KEEPALIVE_INTERVAL = 15.0
KEEPALIVE_TIMEOUT = 30.0
"""A ping every 15 s; one unanswered for 30 s more (45 s of silence) drops the socket, as over SSH."""

PLAYERS_DIR = "web-players"
"""Each browser's folder, in the user data directory, named by its id's SHA-256."""
_HEX_ID = re.compile(r"[0-9a-f]{32,128}")
UNICODE_WIDTHS = "12.1.0"
"""The Unicode version whose character widths a browser's child counts by (Rich's
tables, through UNICODE_VERSION): the one whose wide characters (emoji, CJK) are
those of the page's width addon for xterm.js. That addon is named for Unicode 11,
but its table makes wide what Unicode 12.1 does; the newest Unicode, a terminal's
child's default, makes more emoji wide than xterm.js would draw wide."""
_TERM = "xterm-256color"
_CLIENT_ENV = {"COLORTERM": "truecolor", "UNICODE_VERSION": UNICODE_WIDTHS}
"""What xterm.js is: the child draws for it as for any modern terminal, counting widths as it does."""

BAD_HELLO = "This page does not speak this table's language; reload it."
NO_CODE = "This link has no room code; ask the host for the whole link."
BAD_CODE = "That is not this table's room code; ask the host for the link."
LEFT_SENTENCE = "You left the table."
ENDED = "Your session at the table ended."


class WebError(DoorError):
    """The browser door cannot open; the message is a sentence for the person who started the host."""


@dataclass
class WebConfig:
    """How the browser door is run. Every field has a default; see ``quackbox host --help``."""

    port: int = DEFAULT_WEB_PORT
    """0 picks a free port (see :attr:`WebServer.port`)."""
    bind: str = "0.0.0.0"
    names: tuple[str, ...] = ()
    """The names and addresses the table is announced under (the first is the link's):
    a browser must ask for one of them, a loopback name or the bind address."""
    players_dir: str | None = None
    """Where each browser's folder goes; default ``web-players`` in the user data directory."""
    limits: DoorLimits = field(default_factory=DoorLimits)
    """The door's limits (sessions, strangers, deadlines, typing, window sizes)."""
    keepalive_interval: float = KEEPALIVE_INTERVAL
    keepalive_timeout: float = KEEPALIVE_TIMEOUT
    program: ChildProgram | None = None
    """What a session's child runs (the command gives ``quackbox join``'s: quackbox.door_child)."""
    command: Callable[[Launch], list[str]] | None = None
    """What a session runs (tests); default the door's ``quackbox join``."""
    http_connections: int = HTTP_CONNECTIONS
    http_connections_per_address: int = HTTP_CONNECTIONS_PER_ADDRESS
    """Connections at once that are not yet a terminal socket, in all and from one address."""
    warm: bool = True
    """Fork each session's child from a warm process (:mod:`quackbox.net.zygote`); False: a fresh Python each."""


def browser_key(page_id: str) -> Key:
    """The door's key for a page's random id: filed under its SHA-256, and known by the first
    64 bits of it (in logs, and to tell sessions apart), never by the id itself."""
    digest = hashlib.sha256(page_id.encode("ascii")).hexdigest()
    return Key(f"browser:{digest[:16]}", digest)


def web_link(address: str, port: int, code: str | None) -> str:
    """``http://10.0.0.5:7118/#KQXZ``: what a friend opens; the code in the fragment."""
    if ":" in address and not address.startswith("["):
        address = f"[{address}]"
    where = address if port == 80 else f"{address}:{port}"
    return f"http://{where}/" + (f"#{code}" if code else "")


# --- the page's first message (pure) ------------------------------------------------------


@dataclass(frozen=True)
class BrowserHello:
    """The page's first message, checked."""

    code: str
    id: str
    name: str
    watch: bool
    cols: int
    rows: int


def read_hello(message: str | bytes) -> BrowserHello | None:
    """The page's first message, or None if it is not one (the socket is then refused)."""
    if not isinstance(message, str) or len(message) > 4096:
        return None
    try:
        data = json.loads(message)
    except ValueError:
        return None
    if not isinstance(data, dict) or data.get("hello") != 1:
        return None
    code, page_id, name = data.get("code", ""), data.get("id"), data.get("name", "")
    watch, cols, rows = data.get("watch", False), data.get("cols", 80), data.get("rows", 24)
    if not (isinstance(code, str) and isinstance(name, str) and isinstance(page_id, str)):
        return None
    if not _HEX_ID.fullmatch(page_id) or not isinstance(watch, bool):
        return None
    return BrowserHello(code[:64], page_id, name[:200], watch, _dimension(cols, 80), _dimension(rows, 24))


def _dimension(value: Any, default: int) -> int:
    """A terminal dimension from the page (the door clamps it); ``default`` for anything else."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 < value < 100_000:
        return value
    return default


def read_resize(message: str) -> tuple[int, int] | None:
    """``{"resize": [cols, rows]}``, or None for anything else (ignored)."""
    try:
        data = json.loads(message)
    except ValueError:
        return None
    size = data.get("resize") if isinstance(data, dict) else None
    if not isinstance(size, list) or len(size) != 2:
        return None
    cols, rows = _dimension(size[0], 0), _dimension(size[1], 0)
    return (cols, rows) if cols and rows else None


def close_reason(sentence: str) -> str:
    """``sentence`` as a close reason: at most :data:`MAX_REASON` bytes, cut at a word."""
    if len(sentence.encode("utf-8")) <= MAX_REASON:
        return sentence
    cut = sentence.encode("utf-8")[: MAX_REASON - 3].decode("utf-8", "ignore")
    return cut.rsplit(" ", 1)[0] + "…"


# --- the server ---------------------------------------------------------------------------


class WebServer(DoorServer):
    """The browser door of ``host``. Use as ``async with WebServer(config, host) as web:``.

    Args:
        config: where to listen, under which names, and the limits.
        host: the running table; its :attr:`~quackbox.net.host.Host.url` and room code
            are what each child is given, its seats say who may still sit.

    Raises:
        WebError: at start, with a plain sentence (the port is taken, the table has no room code).
    """

    def __init__(self, config: WebConfig, host: Any) -> None:
        self.config = config
        self.host = host
        self.port = config.port
        self.hosts: frozenset[str] = frozenset()
        """The names a Host header may give (set at start)."""
        self._server: Server | None = None
        self._page: Page | None = None
        self._sockets: set[_Socket] = set()
        self.wrong_tries = SlowDown()
        """Wrong room codes, per address: how long an answer to one is held back."""
        self._waiting = Gate(total=config.http_connections, per_address=config.http_connections_per_address)
        """The connections not yet a terminal socket (their deadline is websockets' open_timeout)."""
        self.quiet = QuietLog(log)
        """What a crowd repeats: a line a minute at most."""
        players = Path(config.players_dir) if config.players_dir else places.data_dir() / PLAYERS_DIR
        self.door = Door(
            host,
            config.limits,
            PlayerFolders(players),
            disconnect=self._disconnect,
            watch_how=self._watch_how,
            via=self._via,
            program=config.program,
            command=config.command,
            warm=config.warm,
        )

    @property
    def connections(self) -> int:
        """How many terminal sockets are open, with a session or not."""
        return len(self._sockets)

    def link(self, address: str | None = None) -> str:
        """What a friend opens: ``http://ADDRESS:PORT/#CODE`` (the first name announced by default)."""
        return web_link(address or self._names()[0], self.port, self.host.code)

    def _names(self) -> list[str]:
        bind = self.config.bind
        names = list(self.config.names)
        if bind not in ("", "0.0.0.0", "::"):
            names.append(bind)
        return names + ["127.0.0.1", "localhost", "::1"]

    async def start(self) -> None:
        if not self.host.code:
            raise WebError("A table opened to browsers needs a room code: give one with --code.")
        try:
            self._page = Page()
            self.door.open()
        except (OSError, DoorError) as exc:
            raise WebError(str(exc)) from None
        config = self.config
        try:
            self._server = await serve(
                self._socket,
                config.bind or None,
                config.port,
                process_request=self._http,
                server_header=None,
                # No permessage-deflate. A move's screen changes are a few kilobytes, nothing
                # to any network; zlib's contexts, though, are made at the handshake, before the
                # room code is checked, so every stranger's socket has them, and a closed one's
                # go only when Python's collector (which does not count them) reaches it: a
                # churn of sockets piles them up, and the allocator keeps what they took
                # (python -m bench.churn).
                compression=None,
                open_timeout=config.limits.connection_deadline,
                ping_interval=config.keepalive_interval,
                ping_timeout=config.keepalive_timeout,
                close_timeout=GOODBYE_WAIT,
                max_size=MAX_MESSAGE,
                max_queue=MESSAGE_QUEUE,
                create_connection=self._counted(),
            )
        except OSError as exc:
            await self.door.close()  # its warm start process, started as it opened
            where = f"{config.bind or 'every address'} port {config.port}"
            if exc.errno == errno.EADDRINUSE:
                raise WebError(
                    f"Cannot serve the browser page on {where}: the port is already in use; "
                    "pick another with --web PORT."
                ) from None
            raise WebError(f"Cannot serve the browser page on {where}: {exc.strerror or exc}.") from None
        self.port = self._server.sockets[0].getsockname()[1]
        self.hosts = allowed_hosts(self._names())
        # The door's own page may reach the table's socket; no other site's may.
        self.host.origins.update(
            f"{scheme}://{name}:{self.port}" for name in self.hosts for scheme in ("http", "https")
        )

    async def stop(self) -> None:
        """Close every session (their children hung up and reaped), then stop listening."""
        if self._server is not None:
            self._server.close(close_connections=False)
        await self.door.close()
        for sock in list(self._sockets):
            sock.disconnect("The table has closed.")
        if self._server is not None:
            await self._server.wait_closed()
            self._server = None

    # --- connections before they are a socket ------------------------------------------

    def _counted(self) -> type[ServerConnection]:
        """websockets' connection, counted in :attr:`_waiting` from the moment it is accepted."""
        web = self

        class Counted(ServerConnection):
            def connection_made(self, transport: asyncio.BaseTransport) -> None:
                super().connection_made(transport)
                web._accepted(self)

            def data_received(self, data: bytes) -> None:
                super().data_received(data)
                if self.request is not None:
                    web._waiting.progressed(self)  # its request is whole: it is being answered

            def connection_lost(self, exc: Exception | None) -> None:
                web._waiting.left(self)
                super().connection_lost(exc)

        return Counted

    def _accepted(self, connection: ServerConnection) -> None:
        transport = connection.transport
        peer = transport.get_extra_info("peername") or ("",)
        for old in self._waiting.arrived(connection, str(peer[0]), asyncio.get_running_loop().time()):
            self.quiet.log(logging.INFO, "web: closed a connection that waited longest without being answered")
            if isinstance(old, ServerConnection):  # the gate holds nothing else
                old.transport.abort()
        # A browser sends its request as it connects: when connections crowd in, it is already
        # here by the time the connection is taken, and the connection counts as one at work
        # before a crowd taken with it can push it out.
        if b"\r\n\r\n" in _unread(transport):
            self._waiting.progressed(connection)

    # --- HTTP ---------------------------------------------------------------------------

    def _http(self, connection: ServerConnection, request: Request) -> Response | None:
        assert self._page is not None  # started
        self._waiting.progressed(connection)  # its request is whole: it is being answered
        headers = {}
        for name in ("host", "origin", "accept-encoding", "if-none-match"):
            values = request.headers.get_all(name)
            # Two Host or Origin headers are someone's trick: as good as none.
            headers[name] = values[0] if len(values) == 1 else ""
        got = answer(self._page, request.path, headers, self.hosts, method=request.method)
        if got.upgrade:
            return None
        status = HTTPStatus(got.status)
        extra = [("Date", email.utils.formatdate(usegmt=True)), ("Connection", "close")]
        return Response(status.value, status.phrase, Headers(extra + list(got.headers)), got.body)

    # --- sockets ------------------------------------------------------------------------

    async def _socket(self, ws: ServerConnection) -> None:
        self._waiting.through(ws)  # a socket now: a stranger at the door until it says hello
        sock = _Socket(self, ws)
        self._sockets.add(sock)
        self.door.arrived(sock, sock.address)
        try:
            await sock.run()
        finally:
            self._sockets.discard(sock)
            self.door.left(sock)

    def _disconnect(self, conn: Hashable, sentence: str) -> None:
        if isinstance(conn, _Socket):
            conn.disconnect(sentence)

    def wrong_code(self, address: str) -> float:
        """Seconds to hold back the answer to a wrong room code from ``address``."""
        return self.wrong_tries.failed(address, asyncio.get_running_loop().time())

    # --- what the door says ------------------------------------------------------------

    def _where(self, request: SessionRequest) -> str:
        """``10.0.0.5:7118``: where the page was opened, as its address bar says."""
        return request.conn.where if isinstance(request.conn, _Socket) else self._names()[0]

    def _watch_how(self, request: SessionRequest) -> str:
        return f"http://{self._where(request)}/?watch=1#{self.host.code}"

    def _via(self, request: SessionRequest) -> str:
        return f"http://{self._where(request)}"


def _unread(transport: asyncio.BaseTransport) -> bytes:
    """What the client has sent on ``transport`` that nobody has read yet, left where it is."""
    sock = transport.get_extra_info("socket")
    if sock is None:
        return b""
    try:
        with socket.socket(fileno=os.dup(sock.fileno())) as peek:
            return peek.recv(PEEK, socket.MSG_PEEK | socket.MSG_DONTWAIT)
    except OSError:  # nothing yet, or no descriptor to spare: it will be read as ever
        return b""


class _Socket:
    """One terminal socket: its hello, then its session's :class:`~quackbox.net.door.Terminal`."""

    def __init__(self, server: WebServer, ws: ServerConnection) -> None:
        self.server = server
        self.ws = ws
        peer = ws.remote_address or ("",)
        self.address = str(peer[0])
        self.where = (ws.request.headers.get("Host", "") if ws.request is not None else "") or "localhost"
        """The Host the page was opened at (one the table announced: checked before the upgrade)."""
        self.session: DoorSession | None = None
        self._may_read = asyncio.Event()
        self._may_read.set()
        self._out = bytearray()
        self._pending = asyncio.Event()
        self._output_paused = False
        self._ending: tuple[int, str] | None = None
        self._writer: asyncio.Task[None] | None = None
        self._closing: asyncio.Task[None] | None = None
        self._cutting: asyncio.TimerHandle | None = None

    @property
    def backlog(self) -> int:
        """Bytes of the child's output held for the page, not yet handed to the socket."""
        return len(self._out)

    @property
    def output_paused(self) -> bool:
        """Whether the child's output is held back because the page is not reading."""
        return self._output_paused

    # --- the socket's life ------------------------------------------------------------

    async def run(self) -> None:
        try:
            hello = read_hello(await self.ws.recv())
        except ConnectionClosed:
            return
        if hello is None:
            await self._close(REFUSED, BAD_HELLO)
            return
        if not same_code(hello.code, self.server.host.code or ""):
            # Held back as the table holds back wrong codes; the right one never waits.
            await asyncio.sleep(self.server.wrong_code(self.address))
            await self._close(WRONG_CODE, BAD_CODE if hello.code.strip() else NO_CODE)
            return
        door = self.server.door
        key = browser_key(hello.id)
        refusal = await door.identify(self, key, door.name_for(key, hello.name))
        if refusal is not None:
            await self._close(REFUSED, refusal)
            return
        request = SessionRequest(
            conn=self,
            key=key,
            name=door.name_for(key, hello.name),
            watch=hello.watch,
            term=_TERM,
            size=(hello.cols, hello.rows),
            client_env=_CLIENT_ENV,
        )
        loop = asyncio.get_running_loop()
        self._writer = loop.create_task(self._write())
        session = self.session = door.session(request, self)
        await session.begin()
        # Refused, the session's goodbye is on its way; let in, the page's keys go to its child.
        reader = loop.create_task(self._read(session)) if session.child is not None else None
        try:
            await self.ws.wait_closed()
        finally:
            if reader is not None:
                reader.cancel()
            session.lost()
            if self._closing is not None:
                await self._closing
            self._writer.cancel()
            # Closed: the cut-off timer would keep the socket, and all it holds, for seconds more.
            if self._cutting is not None:
                self._cutting.cancel()
                self._cutting = None

    async def _read(self, session: DoorSession) -> None:
        """The page's keys and sizes, on to the session; never faster than :data:`MESSAGES_PER_SECOND`."""
        clock = self.server.door.limits.clock or loop_now
        rate = TokenBucket(MESSAGE_BURST, MESSAGES_PER_SECOND, clock())
        try:
            while True:
                await self._may_read.wait()
                if not rate.take(clock()):
                    await asyncio.sleep(rate.wait())
                    continue
                message = await self.ws.recv()
                if isinstance(message, bytes):
                    session.typed(message)
                elif (size := read_resize(message)) is not None:
                    session.resized(*size)
        except ConnectionClosed:
            return

    def disconnect(self, sentence: str) -> None:
        """Close the socket with ``sentence`` (a stranger's budget or deadline, the table closing)."""
        if self._closing is None:
            self._closing = asyncio.get_running_loop().create_task(self._close(REFUSED, sentence))

    async def _close(self, code: int, sentence: str) -> None:
        self.server.quiet.log(
            logging.INFO, f"web: closed a socket from {self.address}: {sentence}", kind=("closed", sentence)
        )
        await self.ws.close(code, close_reason(sentence))

    # --- the door's Terminal ----------------------------------------------------------

    def write(self, data: bytes) -> None:
        if self._ending is not None or self.ws.state is not State.OPEN:
            raise BrokenPipeError("the browser's socket is closed")
        self._out += data
        self._pending.set()
        if len(self._out) > OUTPUT_BACKLOG and not self._output_paused and self.session is not None:
            self._output_paused = True
            self.session.pause_output()

    def pause_reading(self) -> None:
        self._may_read.clear()

    def resume_reading(self) -> None:
        self._may_read.set()

    def finish(self, status: int, sentence: str = "") -> None:
        if self._ending is None:
            self._ending = (LEFT, sentence or LEFT_SENTENCE) if status == 0 else (REFUSED, sentence or ENDED)
            self._pending.set()
            # A page that reads nothing never takes the goodbye: the socket is cut all the same.
            self._cutting = asyncio.get_running_loop().call_later(2 * GOODBYE_WAIT + 1, self._cut)

    def _cut(self) -> None:
        self._cutting = None
        if self.ws.state is not State.CLOSED and self.ws.transport is not None:
            log.info("web: cut a socket from %s that took no goodbye", self.address)
            self.ws.transport.abort()

    async def wait_closed(self) -> None:
        await self.ws.wait_closed()

    async def _write(self) -> None:
        """Send the child's output as it comes, one frame for what gathered meanwhile; after
        :meth:`finish`, what is left, then the close (cut after :data:`GOODBYE_WAIT`)."""
        try:
            while True:
                await self._pending.wait()
                self._pending.clear()
                while self._out:
                    chunk = bytes(self._out)
                    self._out.clear()
                    if self._ending is not None:
                        with contextlib.suppress(TimeoutError):
                            await asyncio.wait_for(self.ws.send(chunk), GOODBYE_WAIT)
                        break
                    await self.ws.send(chunk)  # waits while the browser is not keeping up
                    if self._output_paused and len(self._out) <= OUTPUT_BACKLOG // 4 and self.session is not None:
                        self._output_paused = False
                        self.session.resume_output()
                if self._ending is not None:
                    await self._close(*self._ending)
                    return
        except ConnectionClosed:
            return
