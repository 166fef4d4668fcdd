"""The SSH door of a table: ``ssh -p 2222 HOST`` and you are at the table, nothing installed.

:class:`SshServer` listens beside a running :class:`quackbox.net.host.Host` (asyncssh,
on the same address) and hands what happens to a :class:`quackbox.net.door.Door`,
which holds what every door shares: the children, the limits, the player
folders and the sentences. What is SSH's own is here: the host key, who may
log in, the session requests (a terminal, ``spectate``, nothing else) and
the channel each session's child talks through.

The key is the identity. Any public key may come in (``--ssh-allow`` limits
a private table to an ``authorized_keys`` file); passwords and
keyboard-interactive are refused. Each key fingerprint names a folder of its
own, where the child keeps its settings and seat token, so a key that comes
back finds the token its last session was given and reclaims the same seat
and hand through the table's ordinary token path. The SSH user name is the
player's name; the name a key first used at this table stays its name there.

A session that cannot be let in is still accepted and told why in a sentence
before it closes (exit status 1), and a connection that is refused is closed
with a sentence as its reason, never a bare failure.
"""

from __future__ import annotations

import asyncio
import errno
import logging
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable

from quackbox.net.door import Door, DoorServer, DoorSession, SessionRequest
from quackbox.net.door_launch import PASSED_ENV, ChildProgram, Launch, safe_value
from quackbox.net.door_policy import DoorLimits
from quackbox.net.errors import DoorError
from quackbox.net.player_folders import Key, PlayerFolders
from quackbox.net.protocol import DEFAULT_SSH_PORT
from quackbox.net.ssh_keys import AllowList, SshKeyError, load_host_key, players_dir
from quackbox.net.sshlib import asyncssh

__all__ = ["DEFAULT_SSH_PORT", "SshConfig", "SshError", "SshServer", "ssh_key"]

log = logging.getLogger("quackbox.ssh")

SPECTATE = "spectate"
"""The one command a session may ask for: watch instead of play."""
WINDOW = 64 * 1024
"""Bytes a client may send on a session before the host has read them (SSH's
window): what a player could type in several seconds, and all the input a
session waiting on its typing rate holds on the host."""


class SshError(DoorError):
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
    limits: DoorLimits = field(default_factory=DoorLimits)
    """The door's limits (sessions, strangers, deadlines, typing, window sizes)."""
    keepalive_interval: float = 15.0
    keepalive_count: int = 3
    """Keepalives unanswered before the connection is dropped (3 x 15 s: 45 s of silence)."""
    program: ChildProgram | None = None
    """What a session's child runs (the command gives ``quackbox join``'s: quackbox.door_child)."""
    command: Callable[[Launch], list[str]] | None = None
    """What a session runs (tests); default the door's ``quackbox join`` (:func:`quackbox.net.door_launch.child_command`)."""
    warm: bool = True
    """Fork each session's child from a warm process (:mod:`quackbox.net.zygote`); False: a fresh Python each."""


def ssh_key(fingerprint: str) -> Key:
    """The door's key for an SSH key with ``fingerprint`` (``SHA256:...``): its folder is named by the digest."""
    digest = fingerprint.partition(":")[2] or fingerprint
    # Base64 may hold '/' and '+': not in a file name.
    return Key(fingerprint, digest.replace("/", "_").replace("+", "-").rstrip("="))


class SshServer(DoorServer):
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
        self._connections: list[_Connection] = []
        self.door = Door(
            host,
            config.limits,
            PlayerFolders(players_dir(config.players_dir)),
            disconnect=self._disconnect,
            watch_how=self._watch_how,
            via=self._via,
            program=config.program,
            command=config.command,
            warm=config.warm,
        )

    @property
    def connections(self) -> int:
        """How many SSH connections are open, with a session or not."""
        return len(self._connections)

    async def start(self) -> None:
        try:
            key = load_host_key(self.config.host_key)
            self._allow = AllowList(self.config.allow) if self.config.allow else None
            self.door.open()
        except (OSError, SshKeyError, DoorError) as exc:
            raise SshError(str(exc)) from None
        self.fingerprint = self.door.host_key = key.get_fingerprint("sha256")
        config = self.config
        try:
            self._server = await asyncssh.create_server(
                lambda: _Connection(self),
                config.bind or None,
                config.port,
                server_host_keys=[key],
                server_version="quackbox",
                login_timeout=config.limits.connection_deadline,
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
                window=WINDOW,
                # No user config: ~/.ssh of whoever runs the host has no say here.
                config=[],
            )
        except OSError as exc:
            await self.door.close()  # its warm start process, started as it opened
            where = f"{config.bind or 'every address'} port {config.port}"
            if exc.errno == errno.EADDRINUSE:
                raise SshError(
                    f"Cannot serve SSH on {where}: the port is already in use; pick another with --ssh PORT."
                ) from None
            raise SshError(f"Cannot serve SSH on {where}: {exc.strerror or exc}.") from None
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        """Close every session (their children hung up and reaped), then stop listening."""
        if self._server is not None:
            self._server.close()
        await self.door.close()
        for conn in list(self._connections):
            conn.close()
        if self._server is not None:
            await self._server.wait_closed()
            self._server = None

    # --- connections ---------------------------------------------------------------------

    def _arrived(self, conn: _Connection) -> None:
        self._connections.append(conn)
        self.door.arrived(conn, conn.address)

    def _left(self, conn: _Connection) -> None:
        if conn in self._connections:
            self._connections.remove(conn)
        self.door.left(conn)

    def _disconnect(self, conn: Hashable, sentence: str) -> None:
        if isinstance(conn, _Connection):
            conn.disconnect(sentence)

    def allows_key(self, key: asyncssh.SSHKey, address: str) -> bool:
        return self._allow is None or self._allow.allows(key, address, address)

    # --- what the door says ------------------------------------------------------------

    def _how_to(self, request: SessionRequest) -> str:
        """``-p 2222 ADDRESS``: what to type to reach this server, as the session did."""
        where = request.conn.server_address if isinstance(request.conn, _Connection) else ""
        where = where or "HOST"
        if ":" in where:
            where = f"[{where}]"
        return f"-p {self.port} {where}" if self.port != 22 else where

    def _watch_how(self, request: SessionRequest) -> str:
        return f"ssh -t {self._how_to(request)} {SPECTATE}"

    def _via(self, request: SessionRequest) -> str:
        return f"ssh {self._how_to(request)}"

    def refusal(self, session: _Session, request: SessionRequest) -> str | None:
        """Why an SSH session cannot even ask the door (a sentence), or None."""
        how = self._how_to(request)
        if session.command is not None and session.command != SPECTATE:
            return (
                f"There is no command {session.command[:40]!r} here: this is a game table. "
                f"Play with 'ssh {how}', watch with 'ssh -t {how} {SPECTATE}'."
            )
        if not session.has_pty:
            what = f"ssh -t {how} {SPECTATE}" if session.command == SPECTATE else f"ssh -t {how}"
            return f"This game needs a terminal: connect with '{what}'."
        return None


class _Connection(asyncssh.SSHServer):
    """One SSH connection: its address, its key."""

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
        self.server._arrived(self)

    def connection_lost(self, exc: Exception | None) -> None:
        self.server._left(self)

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()

    def disconnect(self, sentence: str) -> None:
        """Close the connection, giving ``sentence`` as the reason (OpenSSH prints it)."""
        if self.conn is not None:
            self.conn.disconnect(asyncssh.DISC_TOO_MANY_CONNECTIONS, sentence)

    def begin_auth(self, username: str) -> bool:
        # The key exchange is done: a client at work, not a socket left open.
        self.server.door.progressed(self)
        return True  # always: the key is the identity

    def password_auth_supported(self) -> bool:
        return False

    def kbdint_auth_supported(self) -> bool:
        return False

    def public_key_auth_supported(self) -> bool:
        return True

    async def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        if not self.server.allows_key(key, self.address):
            return False
        fingerprint = key.get_fingerprint("sha256")
        if fingerprint != self.fingerprint:
            # asyncssh asks again for the signed attempt, so the last key asked
            # about before logging in is the key that logged in; the door hears of it once.
            self.fingerprint = fingerprint
            door, identity = self.server.door, ssh_key(fingerprint)
            refusal = await door.identify(self, identity, door.name_for(identity, username))
            if refusal is not None:
                # Closes the connection with the sentence as its reason (OpenSSH prints it).
                raise asyncssh.DisconnectError(asyncssh.DISC_TOO_MANY_CONNECTIONS, refusal)
        return True

    def session_requested(self) -> _Session:
        return _Session(self)


class _Session(asyncssh.SSHServerSession):  # type: ignore[type-arg]
    """One SSH session: what the client asks for, then its channel as the door's :class:`Terminal`."""

    def __init__(self, conn: _Connection) -> None:
        self.conn = conn
        self.server = conn.server
        self.chan: Any = None
        self.command: str | None = None
        self.has_pty = False
        self.term = "xterm"
        self.size = (80, 24)
        self.door: DoorSession | None = None

    # --- what the client asks for --------------------------------------------------

    def connection_made(self, chan: Any) -> None:
        self.chan = chan

    def pty_requested(self, term_type: str, term_size: tuple[int, int, int, int], term_modes: Any) -> bool:
        self.has_pty = True
        if term_type and safe_value(term_type):
            self.term = term_type
        if term_size[0] > 0 and term_size[1] > 0:
            self.size = (term_size[0], term_size[1])
        return True

    def terminal_size_changed(self, width: int, height: int, pixwidth: int, pixheight: int) -> None:
        if self.door is not None:
            self.door.resized(width, height)
        elif width > 0 and height > 0:
            self.size = (width, height)

    def shell_requested(self) -> bool:
        return True

    def exec_requested(self, command: str) -> bool:
        self.command = command.strip()
        return True  # answered with a sentence in session_started

    def subsystem_requested(self, subsystem: str) -> bool:
        return False

    # --- the session itself ----------------------------------------------------------

    def session_started(self) -> None:
        server = self.server
        env = self.chan.get_environment()
        key = ssh_key(self.conn.fingerprint)
        request = SessionRequest(
            conn=self.conn,
            key=key,
            name=server.door.name_for(key, self.chan.get_extra_info("username") or ""),
            watch=self.command == SPECTATE,
            term=self.term,
            size=self.size,
            client_env={k: v for k, v in env.items() if k in PASSED_ENV and isinstance(v, str)},
            newline="\r\n" if self.has_pty else "\n",
        )
        self.door = server.door.session(request, self)
        refusal = server.refusal(self, request)
        if refusal is not None:
            self.door.refuse(refusal)
            return
        server.door.track(asyncio.get_running_loop().create_task(self.door.begin()))

    def data_received(self, data: bytes, datatype: Any) -> None:
        if self.door is not None:
            self.door.typed(data)

    def eof_received(self) -> bool:
        if self.door is not None:
            self.door.input_closed()
        return True  # the door says goodbye and closes

    def pause_writing(self) -> None:
        if self.door is not None:
            self.door.pause_output()

    def resume_writing(self) -> None:
        if self.door is not None:
            self.door.resume_output()

    def connection_lost(self, exc: Exception | None) -> None:
        if self.door is not None:
            self.door.lost()

    # --- the door's Terminal ---------------------------------------------------------

    def write(self, data: bytes) -> None:
        self.chan.write(data)  # BrokenPipeError (an OSError) once the channel is closing

    def pause_reading(self) -> None:
        self.chan.pause_reading()

    def resume_reading(self) -> None:
        self.chan.resume_reading()

    def finish(self, status: int, sentence: str = "") -> None:
        self.chan.exit(status)  # the sentence is on the player's screen already

    async def wait_closed(self) -> None:
        await self.chan.wait_closed()
