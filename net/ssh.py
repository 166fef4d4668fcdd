"""The SSH door of a table: ``ssh -p 2222 HOST`` and you are at the table, nothing installed.

:class:`SshServer` listens beside a running :class:`quackbox.net.host.Host` (asyncssh,
on the same address). Every session that asks for a terminal gets its own
``quackbox join`` process, started with the host's own Python on a fresh
pseudo-terminal (:class:`quackbox.net.ssh_pty.PtyChild`) and pointed at the table
over loopback with the room code already given, so the player never types
an address or a code. The SSH user name is the player's name.

The key is the identity. Any public key may come in (``--ssh-allow`` limits
a private table to an ``authorized_keys`` file); passwords and
keyboard-interactive are refused. Each key fingerprint has a folder of its
own which the child uses for its settings and seat tokens, so a key that
comes back finds the token its last session was given and reclaims the same
seat and hand through the table's ordinary token path: the host core needs
no change. The name a key first used at this table stays its name there.

Limits: sessions at most seats plus a spectator allowance, at most two per
key and per address, a login timeout, keepalives, an idle timeout. A session
that cannot be let in is still accepted and told why in a sentence before it
closes (exit status 1), never a bare failure.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import asyncssh

from quackbox.net.lobby import LOBBY
from quackbox.net.protocol import DEFAULT_SSH_PORT, MAX_NAME, OPEN
from quackbox.net.text import clean_text
from quackbox.net.ssh_keys import AllowList, SshKeyError, fingerprint_folder, load_host_key, players_dir
from quackbox.net.ssh_child import PASSED_ENV, Launch, child_environment, join_command, safe_value
from quackbox.net.ssh_pty import HANGUP_GRACE, PtyChild
from quackbox.net.tokens import FILENAME as TOKENS_FILE, TokenStore

__all__ = ["DEFAULT_SSH_PORT", "SshConfig", "SshError", "SshServer"]

log = logging.getLogger("quackbox.ssh")

SPECTATE = "spectate"
"""The one command a session may ask for: watch instead of play."""
MAX_CONNECTIONS = 64
"""Connections at once, logged in or not; more are closed at once."""
MAX_CONNECTIONS_PER_ADDRESS = 8
GOODBYE_WAIT = 2.0
"""Seconds a session closed by the host waits for the client to close its side
before the connection is cut: OpenSSH drops what it has not yet shown when the
connection is cut, so the last sentence would never be seen."""
# Leave the alternate screen, show the cursor, stop mouse reports, reset colours:
# a child killed at a hangup cannot put the player's terminal back itself.
RESET_TERMINAL = b"\x1b[?1049l\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?2004l\x1b[?25h\x1b[0m"


class SshError(Exception):
    """The SSH server cannot run; the message is a sentence for the person who started it."""


@dataclass
class SshConfig:
    """How the SSH door is run. Every field has a default; see ``quackbox host --help``."""

    port: int = DEFAULT_SSH_PORT
    """0 picks a free port (see :attr:`SshServer.port`)."""
    bind: str = "0.0.0.0"
    allow: str | None = None
    """An ``authorized_keys`` file: only its keys come in. None: any key."""
    host_key: str | None = None
    """The host key file; default ``ssh_host_ed25519_key`` in the user data directory."""
    players_dir: str | None = None
    """Where each key's folder goes; default ``ssh-players`` in the user data directory."""
    spectators: int = 4
    """Sessions allowed beyond one per seat (spectators, a second session of a player)."""
    per_key: int = 2
    per_address: int = 2
    login_timeout: float = 30.0
    """Seconds from connecting to being logged in."""
    keepalive_interval: float = 15.0
    keepalive_count: int = 3
    """Keepalives unanswered before the connection is dropped (3 x 15 s: 45 s of silence)."""
    idle_timeout: float | None = 30 * 60.0
    """Seconds without a key press before a session is closed; None: never."""
    hangup_grace: float = HANGUP_GRACE
    command: Callable[[Launch], list[str]] | None = None
    """What a session runs (tests); default ``python -m quackbox join`` (:func:`quackbox.net.ssh_child.join_command`)."""


class SshServer:
    """The SSH door of ``host``. Use as ``async with SshServer(config, host) as ssh:``.

    Args:
        config: where to listen and the limits.
        host: the running table; its :attr:`~quackbox.net.host.Host.url` and room code
            are what each child is given, its seats say who may still sit.

    Raises:
        SshError: at start, with a plain sentence (the port is taken, a key is unusable).
    """

    def __init__(self, config: SshConfig, host: Any) -> None:
        self.config = config
        self.host = host
        self.port = config.port
        self.fingerprint = ""
        """The host key's SHA256 fingerprint, once started."""
        self._server: asyncssh.SSHAcceptor | None = None
        self._allow: AllowList | None = None
        self._players = players_dir(config.players_dir)
        self._connections: list[_Connection] = []
        self.sessions: list[_Session] = []
        """The sessions let in, each with its child."""
        self._names: dict[str, str] = {}
        """The name each key fingerprint first used at this table."""
        self._ending: set[asyncio.Task[None]] = set()

    async def __aenter__(self) -> SshServer:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    @property
    def children(self) -> list[int]:
        """The process ids of the sessions' children still running."""
        return [s.child.pid for s in self.sessions if s.child is not None and s.child.running]

    async def start(self) -> None:
        try:
            key = load_host_key(self.config.host_key)
            self._allow = AllowList(self.config.allow) if self.config.allow else None
        except (OSError, SshKeyError) as exc:
            raise SshError(str(exc)) from None
        self.fingerprint = key.get_fingerprint("sha256")
        config = self.config
        try:
            self._server = await asyncssh.create_server(
                lambda: _Connection(self),
                config.bind or None,
                config.port,
                server_host_keys=[key],
                server_version="quackbox",
                login_timeout=config.login_timeout,
                keepalive_interval=config.keepalive_interval,
                keepalive_count_max=config.keepalive_count,
                password_auth=False,
                kbdint_auth=False,
                host_based_auth=False,
                gss_kex=False,
                gss_auth=False,
                agent_forwarding=False,
                x11_forwarding=False,
                allow_scp=False,
                line_editor=False,
                encoding=None,
                # No user config: ~/.ssh of whoever runs the host has no say here.
                config=[],
            )
        except OSError as exc:
            where = f"{config.bind or 'every address'} port {config.port}"
            if exc.errno == errno.EADDRINUSE:
                raise SshError(f"Cannot serve SSH on {where}: the port is already in use; "
                               "pick another with --ssh PORT.") from None
            raise SshError(f"Cannot serve SSH on {where}: {exc.strerror or exc}.") from None
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        """Close every session (their children hung up and reaped), then stop listening."""
        if self._server is not None:
            self._server.close()
        for session in list(self.sessions):
            session.close("The table has closed.", status=0)
        while self._ending:
            await asyncio.gather(*self._ending, return_exceptions=True)
        for conn in list(self._connections):
            conn.close()
        if self._server is not None:
            await self._server.wait_closed()
            self._server = None

    # --- who may come in -------------------------------------------------------------

    def _register(self, conn: _Connection) -> bool:
        """A new connection: whether it may stay."""
        same = sum(1 for c in self._connections if c.address == conn.address)
        if len(self._connections) >= MAX_CONNECTIONS or same >= MAX_CONNECTIONS_PER_ADDRESS:
            log.warning("ssh: too many connections (from %s): closed", conn.address)
            return False
        self._connections.append(conn)
        return True

    def _forget(self, conn: _Connection) -> None:
        if conn in self._connections:
            self._connections.remove(conn)

    def allows_key(self, key: asyncssh.SSHKey, address: str) -> bool:
        return self._allow is None or self._allow.allows(key, address, address)

    def refusal(self, session: _Session) -> str | None:
        """Why ``session`` cannot be let in (a sentence), or None."""
        config = self.config
        table = self.host.table
        how = self._how_to(session)
        if session.command is not None and session.command != SPECTATE:
            return (f"There is no command {session.command[:40]!r} here: this is a game table. "
                    f"Play with 'ssh {how}', watch with 'ssh -t {how} {SPECTATE}'.")
        if not session.has_pty:
            what = f"ssh -t {how} {SPECTATE}" if session.command == SPECTATE else f"ssh -t {how}"
            return f"This game needs a terminal: connect with '{what}'."
        # A host with a seat plays it at its own terminal: that seat is never an SSH session.
        ssh_seats = len(table.seats) - (0 if self.host.host_token is None else 1)
        if len(self.sessions) >= ssh_seats + config.spectators:
            return "This table is full: it takes no more sessions. Try again later."
        fingerprint, address = session.conn.fingerprint, session.conn.address
        if sum(1 for s in self.sessions if s.conn.fingerprint == fingerprint) >= config.per_key:
            return f"This key already has {config.per_key} sessions at this table; close one first."
        if sum(1 for s in self.sessions if s.conn.address == address) >= config.per_address:
            return f"Your address already has {config.per_address} sessions at this table; close one first."
        if session.command == SPECTATE or self._holds_seat(session):
            return None
        if table.phase != LOBBY:
            return f"The game has already started. Watch with 'ssh -t {how} {SPECTATE}'."
        if not any(seat.kind == OPEN for seat in table.seats):
            return f"This table is full: every seat is taken. Watch with 'ssh -t {how} {SPECTATE}'."
        return None

    def _how_to(self, session: _Session) -> str:
        """``-p 2222 ADDRESS``: what to type to reach this server, as the session did."""
        where = session.conn.server_address or "HOST"
        if ":" in where:
            where = f"[{where}]"
        return f"-p {self.port} {where}" if self.port != 22 else where

    def _holds_seat(self, session: _Session) -> bool:
        """Whether the session's key holds a seat at the table now (its child will reclaim it)."""
        token = self._tokens(session).recall(self.host.url, session.name)
        return token is not None and self.host.table.seats.by_token(token) is not None

    def _tokens(self, session: _Session) -> TokenStore:
        return TokenStore(self._folder(session) / "state" / TOKENS_FILE)

    def _folder(self, session: _Session) -> Path:
        return fingerprint_folder(self._players, session.conn.fingerprint)

    def name_for(self, fingerprint: str, username: str) -> str:
        """The player's name: the SSH user name, cleaned, unless the key already has one here."""
        known = self._names.get(fingerprint)
        if known is not None:
            return known
        name = clean_text(username)[:MAX_NAME].strip() or "Player"
        self._names[fingerprint] = name
        return name

    # --- the child ---------------------------------------------------------------------

    def launch(self, session: _Session) -> PtyChild:
        """Start the session's child (OSError if it cannot be)."""
        launch = Launch(
            url=self.host.url,
            name=session.name,
            spectate=session.command == SPECTATE,
            folder=self._folder(session),
            term=session.term,
            code=self.host.code,
            client_env=session.client_env,
            via=f"ssh {self._how_to(session)}",
            host_key=self.fingerprint,
        )
        argv = (self.config.command or join_command)(launch)
        cols, rows = session.size
        return PtyChild.spawn(argv, child_environment(launch), cols=cols, rows=rows)

    def admitted(self, session: _Session) -> None:
        self.sessions.append(session)

    def ended(self, session: _Session, task: asyncio.Task[None] | None) -> None:
        if session in self.sessions:
            self.sessions.remove(session)
        if task is not None:
            self.track(task)

    def track(self, task: asyncio.Task[None]) -> None:
        """A session's ending, which :meth:`stop` waits for."""
        self._ending.add(task)
        task.add_done_callback(self._ending.discard)


class _Connection(asyncssh.SSHServer):
    """One SSH connection: its address, its key, and its sessions."""

    def __init__(self, server: SshServer) -> None:
        self.server = server
        self.conn: asyncssh.SSHServerConnection | None = None
        self.address = ""
        self.server_address = ""
        self.fingerprint = ""
        """The SHA256 fingerprint of the key that logged in."""

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self.conn = conn
        peer = conn.get_extra_info("peername") or ("",)
        self.address = str(peer[0])
        local = conn.get_extra_info("sockname") or ("",)
        self.server_address = str(local[0])
        if not self.server._register(self):
            asyncio.get_running_loop().call_soon(conn.close)

    def connection_lost(self, exc: Exception | None) -> None:
        self.server._forget(self)

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()

    def begin_auth(self, username: str) -> bool:
        return True  # always: the key is the identity

    def password_auth_supported(self) -> bool:
        return False

    def kbdint_auth_supported(self) -> bool:
        return False

    def public_key_auth_supported(self) -> bool:
        return True

    def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        if not self.server.allows_key(key, self.address):
            return False
        # asyncssh asks again for the signed attempt, so the last key asked
        # about before logging in is the key that logged in.
        self.fingerprint = key.get_fingerprint("sha256")
        return True

    def session_requested(self) -> _Session:
        return _Session(self)


class _Session(asyncssh.SSHServerSession):  # type: ignore[type-arg]
    """One SSH session: a terminal, and the child behind it."""

    def __init__(self, conn: _Connection) -> None:
        self.conn = conn
        self.server = conn.server
        self.chan: Any = None
        self.child: PtyChild | None = None
        self.command: str | None = None
        self.has_pty = False
        self.term = "xterm"
        self.size = (80, 24)
        self.client_env: dict[str, str] = {}
        self.name = ""
        self._idle: asyncio.TimerHandle | None = None
        self._last_key = 0.0
        self._done = False

    # --- what the client asks for --------------------------------------------------

    def connection_made(self, chan: Any) -> None:
        self.chan = chan

    def pty_requested(self, term_type: str, term_size: tuple[int, int, int, int], term_modes: Any) -> bool:
        self.has_pty = True
        if term_type and safe_value(term_type):
            self.term = term_type
        self._set_size(term_size[0], term_size[1])
        return True

    def terminal_size_changed(self, width: int, height: int, pixwidth: int, pixheight: int) -> None:
        self._set_size(width, height)
        if self.child is not None:
            self.child.resize(*self.size)

    def shell_requested(self) -> bool:
        return True

    def exec_requested(self, command: str) -> bool:
        self.command = command.strip()
        return True  # answered with a sentence in session_started

    def subsystem_requested(self, subsystem: str) -> bool:
        return False

    def _set_size(self, cols: int, rows: int) -> None:
        if cols > 0 and rows > 0:
            self.size = (min(cols, 1000), min(rows, 1000))

    # --- the session itself ----------------------------------------------------------

    def session_started(self) -> None:
        server = self.server
        env = self.chan.get_environment()
        self.client_env = {k: v for k, v in env.items() if k in PASSED_ENV and isinstance(v, str)}
        self.name = server.name_for(self.conn.fingerprint, self.chan.get_extra_info("username") or "")
        refusal = server.refusal(self)
        if refusal is not None:
            self._say(refusal)
            self.chan.exit(1)
            return
        try:
            self.child = server.launch(self)
        except OSError as exc:
            log.error("ssh: cannot start a session's child: %s", exc)
            self._say("The table could not start your session; tell the host.")
            self.chan.exit(1)
            return
        server.admitted(self)
        log.info("ssh: %s (%s) from %s: child %d", self.name, self.conn.fingerprint, self.conn.address, self.child.pid)
        self.child.start(self.chan.write, self._input_backlog)
        asyncio.get_running_loop().create_task(self._watch_child())
        self._key_pressed()

    def data_received(self, data: bytes, datatype: Any) -> None:
        if self.child is not None:
            self._key_pressed()
            self.child.write(data)

    def eof_received(self) -> bool:
        return False  # no more input: the session is over

    def pause_writing(self) -> None:
        # The player's side is not keeping up: stop reading the child's
        # output, and the child blocks on its terminal rather than
        # the host buffering without end.
        if self.child is not None:
            self.child.pause_output()

    def resume_writing(self) -> None:
        if self.child is not None:
            self.child.resume_output()

    def connection_lost(self, exc: Exception | None) -> None:
        self._end()

    # --- ending --------------------------------------------------------------------------

    def close(self, message: str, *, status: int) -> None:
        """End the session from the host's side, telling the player ``message``."""
        if self._done:
            return
        task = self._end()
        chan = self.chan

        async def then_say() -> None:
            if task is not None:
                await task
            try:
                chan.write(RESET_TERMINAL)
                self._say(message)
                chan.exit(status)
            except OSError:
                return  # the player's side closed meanwhile: nobody to tell
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(chan.wait_closed(), GOODBYE_WAIT)

        self.server.track(asyncio.get_running_loop().create_task(then_say()))

    def _end(self) -> asyncio.Task[None] | None:
        """Hang up the child (once); the task that reaps it."""
        if self._done:
            return None
        self._done = True
        if self._idle is not None:
            self._idle.cancel()
        task = None
        if self.child is not None:
            task = asyncio.get_running_loop().create_task(self._reap(self.child))
        self.server.ended(self, task)
        return task

    async def _reap(self, child: PtyChild) -> None:
        status = await child.end(self.server.config.hangup_grace)
        log.info("ssh: %s left; child %d ended (%d)", self.name, child.pid, status)

    async def _watch_child(self) -> None:
        """The child exited by itself (the player left): pass on what it wrote last, and its status."""
        child = self.child
        if child is None:
            return
        status = await child.wait()
        if self._done:
            return
        child.flush_output()
        self._end()
        self.chan.exit(status if status >= 0 else 1)  # killed by a signal: a plain failure

    def _input_backlog(self, full: bool) -> None:
        if full:
            self.chan.pause_reading()
        else:
            self.chan.resume_reading()

    def _key_pressed(self) -> None:
        idle = self.server.config.idle_timeout
        if idle is None:
            return
        loop = asyncio.get_running_loop()
        self._last_key = loop.time()
        if self._idle is None:
            self._idle = loop.call_at(self._last_key + idle, self._check_idle)

    def _check_idle(self) -> None:
        self._idle = None
        idle = self.server.config.idle_timeout
        if idle is None or self._done:
            return
        loop = asyncio.get_running_loop()
        if loop.time() - self._last_key < idle:
            self._idle = loop.call_at(self._last_key + idle, self._check_idle)
            return
        self.close(f"Closed after {_duration(idle)} without a key press.", status=1)

    def _say(self, text: str) -> None:
        end = "\r\n" if self.has_pty else "\n"
        self.chan.write(f"{text}{end}".encode("utf-8"))


def _duration(seconds: float) -> str:
    """``30 minutes``, ``90 seconds``."""
    if seconds >= 120:
        return f"{seconds / 60:g} minutes"
    return f"{seconds:g} seconds"
