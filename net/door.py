"""The doors of a table: a terminal of one's own at the table, with nothing installed.

A door (SSH, a browser's terminal) gives each session its own
``quackbox join`` child on a pseudo-terminal, pointed at the table over
loopback. What the doors share is here; each door brings only its transport
(a :class:`Terminal`) and its kind of key (a :class:`Key`: an SSH key's
fingerprint, a browser's random id):

- **The child** (:func:`child_command`, :func:`child_environment`): the
  host's own Python in safe-path mode (``-P``: neither the folder the host
  was started in nor the child's own is on its import path), started in a
  folder of the door's own that nobody else may write to, with an
  environment made from scratch. It imports quackbox only from where it is
  installed (:func:`child_import_path` says when that takes a PYTHONPATH,
  and refuses one that others could plant modules in). :meth:`Door.launch`
  is the one way a door starts one: forked from the door's zygote once it is
  warm (:mod:`quackbox.net.zygote`: Python and the table imported once, for
  every session), else a fresh Python, with the same rules either way.
- **Who may come in** (:class:`Doorkeeper`, :func:`admission`): a key that
  holds a seat always gets back to it; strangers (connections and sessions
  without a seat) have budgets and deadlines of their own. Nothing keyed by
  address ever refuses a person who holds a seat (on a shared box everyone is
  127.0.0.1, and friends behind one router share an address): before a
  connection says whose it is, its address only decides which waiting
  connection makes way for a newcomer (:class:`quackbox.net.gate.Gate`);
  the rate of new connections per address counts only those whose key turned
  out to hold no seat. Who holds a seat is known without reading files on
  the event loop: each key's seat token is read once, in a thread, as its
  connection says whose it is, and the table's seats are asked for it.
- **A session's traffic** (:class:`DoorSession`): keys pass on to the child
  at most as fast as a person could type (the rest waits in the player's own
  client, by the transport's flow control), window sizes are clamped and
  their changes coalesced (:class:`WindowSize`), a session whose terminal can
  no longer be written ends, an idle one is closed.
- **Player folders** (:class:`PlayerFolders`): each key's settings and seat
  token, made when the key takes a seat (its child saves the token there),
  never for a stranger; folders unseen for 30 days go when a door opens.
- **Sentences**: every refusal is one, named below.

The pure parts (:class:`Doorkeeper`, :func:`admission`, :class:`WindowSize`,
:func:`stale_folders`) do no IO and read no clock: every call takes the time.

What the child runs is the command's to say (:class:`ChildProgram`, given by
the wiring layer, ``quackbox.door_child``): its first step makes its files
private (umask 077), moves to the working folder, then runs ``quackbox join``.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import importlib.machinery
import logging
import os
import shutil
import site
import stat
import sys
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Hashable, Iterable, Mapping, Protocol, Self, Sequence

from quackbox.net import places
from quackbox.net.errors import DoorError
from quackbox.net.gate import Gate
from quackbox.net.journal import token_hash
from quackbox.net.limits import TokenBucket
from quackbox.net.lobby import LOBBY, OVER
from quackbox.net.protocol import MAX_NAME, OPEN
from quackbox.net.pty_child import HANGUP_GRACE, PtyChild
from quackbox.net.resources import QuietLog
from quackbox.net.text import clean_name
from quackbox.net.tokens import FILENAME as TOKENS_FILE, TokenStore
from quackbox.net.zygote import Zygote

__all__ = [
    "CHILD_EVENTS_PER_SECOND",
    "CHILD_EVENT_BURST",
    "DRIVER_ENV",
    "HOST_KEY_ENV",
    "PASSED_ENV",
    "ROOM_CODE_ENV",
    "SESSION_ENV",
    "VIA_ENV",
    "Admission",
    "Door",
    "DoorError",
    "DoorLimits",
    "DoorSession",
    "Doorkeeper",
    "Key",
    "Launch",
    "PlayerFolders",
    "Terminal",
    "WindowSize",
    "admission",
    "ChildProgram",
    "child_command",
    "child_environment",
    "child_import_path",
    "clamp_size",
    "interpreter_environment",
    "stale_folders",
]

log = logging.getLogger("quackbox.door")

# --- limits ---------------------------------------------------------------------------------

STRANGER_CONNECTIONS = 32
STRANGER_CONNECTIONS_PER_ADDRESS = 16
"""Connections at once without a session or a seat (connecting, logging in,
or logged in with a key that holds no seat and not yet asking for a
terminal), in all and from one address. Their own budget, apart from the
sessions: when one more opens, one of them is closed (the oldest of its
address, or of the address holding the most: :class:`quackbox.net.gate.Gate`),
so a crowd of silent or idle connections never keeps out a person who comes
in right after connecting."""
CONNECTION_DEADLINE = 10.0
"""Seconds from connecting to having a session; a connection without one
after that is closed (and one whose sessions all ended, that long after)."""
CONNECTION_BURST = 10
CONNECTIONS_PER_SECOND = 1.0
"""New connections one address may open whose key holds no seat: a burst,
then so many a second. Counted once a connection says whose it is (an SSH
key, a browser's id with the room code), so a seat holder is never refused
for what others do from its address; a person reconnecting never comes near it."""
ADDRESSES_REMEMBERED = 1024
"""Addresses whose connection rate is kept; past this the oldest are forgotten."""
SPECTATORS = 4
"""Sessions that watch without holding a seat (a seat holder's own second
window does not count)."""
PER_KEY = 2
"""Sessions one key may have at once (a player's second window). A key that
holds a seat is never refused for it: its oldest session makes way."""
IDLE_TIMEOUT = 30 * 60.0
"""Seconds without a key press before a session is closed."""
INPUT_BURST = 32 * 1024
INPUT_PER_SECOND = 2 * 1024
"""Bytes typed into a session that pass on to its child: a burst (a paste,
a mouse swept across the table: a dozen bytes a report), then so many a
second, five times what the fastest typing with key repeat sends (a few
hundred bytes a second). Beyond it the transport stops reading, so the rest
waits in the player's own client, and a flood at this rate costs a child
little of a core (Textual's parser reads each byte)."""
CHILD_EVENT_BURST = 120
CHILD_EVENTS_PER_SECOND = 60.0
"""Input events (keys, mouse reports, pastes) a door's child turns into
events for its screen: a burst, then so many a second, more than key repeat
or a mouse swept across the table make; the rest are dropped as they are
read, never queued (by the terminal driver of the child's program)."""
RESIZE_INTERVAL = 0.25
"""Seconds between two window sizes given to a child: a flood of window
changes reaches it as at most four a second, the last one always."""
MAX_COLS = 300
MAX_ROWS = 100
"""The largest terminal a child is given: the table has nothing to show
beyond, and each screen costs memory and bytes in proportion."""
FOLDER_MAX_AGE = 30 * 24 * 3600.0
"""Seconds a key's folder is kept after the key was last seen at a door."""

ROOM_CODE_ENV = "QUACKBOX_ROOM_CODE"
"""The room code for ``quackbox join`` when no --code is given: not on the
command line, which any local user can read."""
VIA_ENV = "QUACKBOX_DOOR_VIA"
"""How the player reached the table (``ssh -p 2222 HOST``, ``http://HOST:7118``): what their screen calls it."""
HOST_KEY_ENV = "QUACKBOX_SSH_HOST_KEY"
"""The SSH host key's fingerprint, shown in the lobby so players can check it."""
DRIVER_ENV = "TEXTUAL_DRIVER"
"""Textual's own setting for the terminal driver: a door's child reads its keys
through its program's driver (:attr:`ChildProgram.driver`), which drops what no
person could type."""
PASSED_ENV = ("COLORTERM", "NO_COLOR", "UNICODE_VERSION")
"""What a client may send (SSH's SendEnv/SetEnv) that reaches the child. UNICODE_VERSION
is Rich's: the Unicode version whose character widths the child counts by, for a
terminal that counts by an older one (the browser door's page says its own)."""
SESSION_ENV = frozenset({"HOME", "TERM", "QUACKBOX_CONFIG_DIR", "QUACKBOX_STATE_DIR", "QUACKBOX_DATA_DIR",
                         ROOM_CODE_ENV, VIA_ENV, HOST_KEY_ENV, *PASSED_ENV})
"""What of a child's environment is its session's own; the rest (:func:`interpreter_environment`)
is every child's, and its zygote's. Nothing here may be read as a warm module is imported."""
_SAFE_VALUE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._+-")


@dataclass(frozen=True)
class DoorLimits:
    """A door's limits; the defaults are the constants above."""

    spectators: int = SPECTATORS
    per_key: int = PER_KEY
    stranger_connections: int = STRANGER_CONNECTIONS
    stranger_connections_per_address: int = STRANGER_CONNECTIONS_PER_ADDRESS
    connection_deadline: float = CONNECTION_DEADLINE
    connection_burst: int = CONNECTION_BURST
    connections_per_second: float = CONNECTIONS_PER_SECOND
    idle_timeout: float | None = IDLE_TIMEOUT
    """None: never."""
    hangup_grace: float = HANGUP_GRACE
    """Seconds a child has to exit after its session's hangup before it is killed."""
    input_burst: int = INPUT_BURST
    input_per_second: float = INPUT_PER_SECOND
    resize_interval: float = RESIZE_INTERVAL
    max_cols: int = MAX_COLS
    max_rows: int = MAX_ROWS


# --- sentences ------------------------------------------------------------------------------


def started_sentence(watch: str) -> str:
    return f"The game has already started. Watch with '{watch}'."


def full_sentence(watch: str) -> str:
    return f"This table is full: every seat is taken. Watch with '{watch}'."


COMING_IN = "Someone is taking the last open seat right now; try again in a moment."
WATCHERS_FULL = "This table has all the watchers it can take; try again later."
CANNOT_START = "The table could not start your session; tell the host."
TABLE_CLOSED = "The table has closed."
REMOVED = "The host removed you from this table; you may still watch it."
INPUT_CLOSED = "Your input closed, so the session ended."
REPLACED = "This key opened another session at this table; this one was closed."
TOO_FAST = "Too many new connections from your address; wait a few seconds and try again."
CROWDED = "Too many connections are waiting to come in, and yours waited longest; connect again."


def per_key_sentence(count: int) -> str:
    return f"This key already has {count} sessions at this table; close one first."


def no_session_sentence(seconds: float) -> str:
    return f"No session was opened within {seconds:g} seconds of connecting."


def idle_sentence(seconds: float) -> str:
    what = f"{seconds / 60:g} minutes" if seconds >= 120 else f"{seconds:g} seconds"
    return f"Closed after {what} without a key press."


# --- who may come in (pure) -----------------------------------------------------------------


@dataclass
class _Connection:
    address: str
    sessions: int = 0
    seated: bool = False
    """Its key holds a seat: it is no stranger."""


class Doorkeeper:
    """The connections at a door: the strangers among them (without a session or a seat), with
    their budget and deadline, and how fast each address opens connections whose key holds no seat.
    No IO, no clock: every call takes the time it happens.

    A connection is a stranger from the moment it opens until it says whose it is
    (:meth:`identified`) with a key that holds a seat, or until its first session begins. Strangers
    wait in a :class:`~quackbox.net.gate.Gate`: within a budget, in all and per address, the oldest
    making way for a newcomer, each closed at its deadline. A seat holder's connection without a
    session has the same deadline, but never makes way.
    """

    def __init__(self, limits: DoorLimits) -> None:
        self.limits = limits
        self._connections: dict[Hashable, _Connection] = {}
        self._strangers = Gate(total=limits.stranger_connections, per_address=limits.stranger_connections_per_address,
                               deadline=limits.connection_deadline)
        self._seated_waiting: dict[Hashable, float] = {}
        """Seat holders' connections without a session, and since when."""
        self._rates: OrderedDict[str, TokenBucket] = OrderedDict()

    def __len__(self) -> int:
        return len(self._connections)

    def strangers(self) -> list[Hashable]:
        """The connections without a session or a seat, the longest waiting first."""
        return list(self._strangers)

    def arrived(self, conn: Hashable, address: str, now: float) -> tuple[Hashable, ...]:
        """Connection ``conn`` from ``address`` opened at ``now``: the waiting connections
        that make way for it (forgotten here: close them). A newcomer is never refused."""
        self._connections[conn] = _Connection(address)
        return self._forget(self._strangers.arrived(conn, address, now))

    def progressed(self, conn: Hashable) -> None:
        """``conn`` showed it is a client at work (its key exchange is done): it makes way
        only after the strangers of its crowd that have not."""
        self._strangers.progressed(conn)

    def identified(self, conn: Hashable, *, seated: bool, now: float) -> str | None:
        """``conn`` said whose it is at ``now``; ``seated``: its key holds a seat. None if it may
        stay, else the sentence to close it with: a key without a seat from an address that
        opens such connections too fast. A seat holder is never refused."""
        held = self._connections.get(conn)
        if held is None:
            return None  # closed meanwhile
        if seated:
            if not held.seated and not held.sessions:
                self._strangers.through(conn)
                self._seated_waiting[conn] = now
            held.seated = True
            return None
        rate = self._rates.pop(held.address, None)
        if rate is None:
            rate = TokenBucket(self.limits.connection_burst, self.limits.connections_per_second, now)
            while len(self._rates) >= ADDRESSES_REMEMBERED:
                self._rates.popitem(last=False)
        self._rates[held.address] = rate  # the most recent last
        return None if rate.take(now) else TOO_FAST

    def left(self, conn: Hashable) -> None:
        self._connections.pop(conn, None)
        self._strangers.left(conn)
        self._seated_waiting.pop(conn, None)

    def session_began(self, conn: Hashable) -> None:
        held = self._connections.get(conn)
        if held is not None:
            held.sessions += 1
            self._strangers.through(conn)
            self._seated_waiting.pop(conn, None)

    def session_ended(self, conn: Hashable, now: float) -> tuple[Hashable, ...]:
        """A session of ``conn`` ended at ``now``: with none left it waits again, from now (a
        stranger again unless its key holds a seat); the connections that make way for it."""
        held = self._connections.get(conn)
        if held is None or not held.sessions:
            return ()
        held.sessions -= 1
        if held.sessions:
            return ()
        if held.seated:
            self._seated_waiting[conn] = now
            return ()
        return self._forget(self._strangers.arrived(conn, held.address, now))

    def overdue(self, now: float) -> list[Hashable]:
        """The connections without a session past their deadline at ``now`` (forgotten here: close them)."""
        deadline = self.limits.connection_deadline
        late = self._strangers.overdue(now)
        late += [conn for conn, since in self._seated_waiting.items() if now >= since + deadline]
        for conn in late:
            self.left(conn)
        return late

    def next_deadline(self) -> float | None:
        due = [at for at in (self._strangers.next_deadline(),) if at is not None]
        if self._seated_waiting:
            due.append(min(self._seated_waiting.values()) + self.limits.connection_deadline)
        return min(due, default=None)

    def _forget(self, evicted: tuple[Hashable, ...]) -> tuple[Hashable, ...]:
        for old in evicted:
            self._connections.pop(old, None)
        return evicted


class Admission(enum.Enum):
    """A session let in: as it is, or in place of its key's oldest session."""

    IN = "in"
    REPLACING = "replacing"


@dataclass(frozen=True, slots=True)
class Present:
    """One session already in, as :func:`admission` counts it."""

    key: str
    watching: bool
    seated: bool
    """Whether its key holds a seat now."""


def admission(
    *, key: str, watch: bool, seated: bool, present: Iterable[Present], phase: str, open_seats: int,
    limits: DoorLimits, watch_how: str,
) -> Admission | str:
    """Whether a session of ``key`` may come in: an :class:`Admission`, or a sentence saying why not.

    A key that holds a seat always gets back to it (past :data:`PER_KEY`
    sessions its oldest makes way). The others are strangers: at most
    ``limits.spectators`` watch, and at most as many come in to play as there
    are open seats, before a game only.

    Args:
        watch: the session asks to watch, not to play.
        seated: ``key`` holds a seat at the table now.
        present: the sessions already in.
        phase: the table's (LOBBY, PLAYING, OVER).
        open_seats: seats nobody holds.
        watch_how: what to type to watch instead (named by the refusals).
    """
    present = list(present)
    mine = sum(1 for p in present if p.key == key)
    if mine >= limits.per_key:
        if seated:
            return Admission.REPLACING
        return per_key_sentence(limits.per_key)
    if seated:
        return Admission.IN
    if watch:
        if sum(1 for p in present if p.watching and not p.seated) >= limits.spectators:
            return WATCHERS_FULL
        return Admission.IN
    if phase not in (LOBBY, OVER):
        return started_sentence(watch_how)
    if open_seats <= 0:
        return full_sentence(watch_how)
    if sum(1 for p in present if not p.watching and not p.seated) >= open_seats:
        return COMING_IN
    return Admission.IN


# --- window sizes (pure) --------------------------------------------------------------------


def clamp_size(cols: int, rows: int, *, max_cols: int = MAX_COLS, max_rows: int = MAX_ROWS) -> tuple[int, int]:
    """``cols`` x ``rows`` within 1 x 1 and ``max_cols`` x ``max_rows``."""
    return max(1, min(cols, max_cols)), max(1, min(rows, max_rows))


class WindowSize:
    """A session's terminal size as its child gets it: clamped, and changed at
    most once every ``interval`` seconds (the latest size asked for wins).
    No IO, no clock."""

    def __init__(self, cols: int, rows: int, *, interval: float = RESIZE_INTERVAL, max_cols: int = MAX_COLS,
                 max_rows: int = MAX_ROWS) -> None:
        self.interval = interval
        self.max_cols = max_cols
        self.max_rows = max_rows
        self.size = self.clamp(cols, rows)
        """The size the child has."""
        self._wanted: tuple[int, int] | None = None
        self._changed = float("-inf")
        self._due: float | None = None

    def clamp(self, cols: int, rows: int) -> tuple[int, int]:
        return clamp_size(cols, rows, max_cols=self.max_cols, max_rows=self.max_rows)

    def ask(self, cols: int, rows: int, now: float) -> float | None:
        """The terminal became ``cols`` x ``rows`` at ``now``: when to call
        :meth:`due` (``now`` itself: at once), or None if a call is already due."""
        if cols <= 0 or rows <= 0:
            return None
        self._wanted = self.clamp(cols, rows)
        if self._due is not None:
            return None
        self._due = max(now, self._changed + self.interval)
        return self._due

    def due(self, now: float) -> tuple[int, int] | None:
        """The size to give the child at ``now``, or None if it already has it."""
        self._due = None
        wanted, self._wanted = self._wanted, None
        if wanted is None or wanted == self.size:
            return None
        self.size = wanted
        self._changed = now
        return wanted


# --- player folders -------------------------------------------------------------------------


def stale_folders(seen: Mapping[str, float], now: float, max_age: float = FOLDER_MAX_AGE) -> list[str]:
    """The folders (by name, with when their key was last seen) unseen for ``max_age`` at ``now``."""
    return sorted(name for name, when in seen.items() if now - when > max_age)


@dataclass(frozen=True)
class Key:
    """A player's identity at a door: ``id`` (an SSH key's fingerprint, a
    browser's random id) and ``folder``, the name of its folder (a file name
    made from it, the same every time)."""

    id: str
    folder: str


class PlayerFolders:
    """Each key's folder under ``root`` (its settings and seat token), readable by the host's user only.

    The root is the door's own folder, and the children's working folder. A
    key's folder is not made here: its child makes it when it first saves
    there (its seat token, when the key takes a seat), so a stranger leaves
    nothing behind.
    """

    def __init__(self, root: Path) -> None:
        self.root = root

    def open(self, now: float) -> int:
        """Make the root (private), and remove the folders of keys unseen for
        :data:`FOLDER_MAX_AGE`; how many were removed."""
        places.private_dir(self.root)
        seen = {}
        for entry in self.root.iterdir():
            with contextlib.suppress(OSError):
                info = entry.lstat()
                if stat.S_ISDIR(info.st_mode):
                    seen[entry.name] = info.st_mtime
        removed = 0
        for name in stale_folders(seen, now):
            try:
                shutil.rmtree(self.root / name)
                removed += 1
            except OSError as exc:
                log.warning("cannot remove the old player folder %s: %s", self.root / name, exc)
        return removed

    def of(self, key: Key) -> Path:
        return self.root / key.folder

    def seen(self, key: Key) -> None:
        """The key came in: its folder, if it has one, counts as seen now."""
        with contextlib.suppress(OSError):
            os.utime(self.of(key))

    def tokens(self, key: Key) -> TokenStore:
        return TokenStore(self.of(key) / "state" / TOKENS_FILE)


# --- the child ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Launch:
    """What a session's child is started with."""

    url: str
    """The table over loopback."""
    name: str
    spectate: bool
    folder: Path
    """The key's own folder: the child's settings and seat tokens (made by the child when it saves)."""
    workdir: Path
    """The child's working folder: the door's own, which nobody else may write to."""
    term: str = "xterm"
    """TERM, from the terminal request."""
    code: str | None = None
    """The table's room code."""
    client_env: Mapping[str, str] = field(default_factory=dict)
    """What the client sent of :data:`PASSED_ENV`."""
    via: str = ""
    """How the player reached the table: ``ssh -p 2222 HOST``."""
    host_key: str = ""
    """The SSH host key's SHA256 fingerprint."""


def safe_value(text: str) -> bool:
    """Whether ``text`` may go into a child's environment (a terminal type, COLORTERM...)."""
    return 0 < len(text) <= 64 and all(ch in _SAFE_VALUE for ch in text)


@dataclass(frozen=True)
class ChildProgram:
    """What a door's child runs, as the layer above says (net/ names nothing above it):
    ``python -P -m MODULE WORKDIR join ...``, its terminal driver, and what a warm
    start imports before its first fork."""

    module: str
    """The module run with ``-m``: it makes its files private, moves to WORKDIR and runs
    ``quackbox`` with the rest of the command line."""
    driver: str
    """Textual's terminal driver for the child (``module:Class``)."""
    warm: tuple[str, ...] = ()
    """What the zygote imports (or, ``module:function``, calls) before its first fork."""


def child_command(launch: Launch, program: ChildProgram) -> list[str]:
    """``python -P -m MODULE WORKDIR join URL --name=NAME [--spectate]`` with the host's own Python.

    ``-P``: the folder the child starts in is not on its import path. The
    name goes in the same argument as its flag: an SSH user name such as
    ``--spectate`` or ``-x`` is a name, never an option.
    """
    argv = [sys.executable, "-P", "-m", program.module, str(launch.workdir), "join", launch.url,
            f"--name={launch.name}"]
    return argv + ["--spectate"] if launch.spectate else argv


def interpreter_environment(import_path: Sequence[str] = (), program: ChildProgram | None = None) -> dict[str, str]:
    """What every child's environment holds, whatever its session: how to run Python
    (``import_path``: what :func:`child_import_path` found it needs) and its program's driver.
    A zygote's environment too (with a HOME of its own): what is read as Python starts
    and as the warm modules are imported must be what a child would have read."""
    env = {
        "PATH": os.environ.get("PATH", os.defpath),
        "LANG": "C.UTF-8",
        "LC_CTYPE": "C.UTF-8",
        "PYTHONIOENCODING": "utf-8",
        "PYTHONSAFEPATH": "1",
    }
    if program is not None:
        env[DRIVER_ENV] = program.driver
    if import_path:
        env["PYTHONPATH"] = os.pathsep.join(import_path)
    if site.ENABLE_USER_SITE and site.USER_BASE:
        # HOME is the key's folder: a user install of the host's is found through its base.
        env["PYTHONUSERBASE"] = site.USER_BASE
    return env


def child_environment(launch: Launch, import_path: Sequence[str] = (), program: ChildProgram | None = None
                      ) -> dict[str, str]:
    """The child's whole environment: nothing of the host's but how to run Python
    (:func:`interpreter_environment`), then what is its session's own (:data:`SESSION_ENV`)."""
    folder = launch.folder
    env = interpreter_environment(import_path, program)
    env.update({
        "HOME": str(folder),
        "TERM": launch.term,
        "QUACKBOX_CONFIG_DIR": str(folder / "config"),
        "QUACKBOX_STATE_DIR": str(folder / "state"),
        "QUACKBOX_DATA_DIR": str(folder / "data"),
    })
    if launch.code:
        env[ROOM_CODE_ENV] = launch.code
    if launch.via:
        env[VIA_ENV] = launch.via
    if launch.host_key:
        env[HOST_KEY_ENV] = launch.host_key
    for key in PASSED_ENV:
        value = launch.client_env.get(key)
        if value is not None and safe_value(value):
            env[key] = value
    return env


def child_import_path() -> list[str]:
    """The folders a child needs on PYTHONPATH to import quackbox from where the host did.

    None when quackbox is installed (the child's Python finds it by itself,
    in safe-path mode). A host run from a checkout that is not installed
    imported it from the checkout: that folder is passed on, and so are the
    host's own PYTHONPATH entries, but never the folder the host was started
    in and never one that other users can write to (they could plant a
    module there, and it would run as the host's user).

    Raises:
        DoorError: quackbox itself lives in such a folder.
    """
    import quackbox

    package = Path(quackbox.__file__).resolve()
    cwd = Path.cwd().resolve()
    given = [] if sys.flags.ignore_environment else [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    start = sys.path[:1] if not sys.flags.safe_path else []
    own = [p for p in sys.path if p and p not in given and p not in start and Path(p).resolve() != cwd]
    path: list[str] = []
    if _find_quackbox(own) != package:
        root = package.parent.parent
        refusal = _unsafe_folder(root, cwd)
        if refusal:
            raise DoorError(
                f"quackbox runs from {root}, which {refusal}: each session would import what is put there. "
                "Install quackbox (pip install .) or run it from a folder only you can write to."
            )
        path.append(str(root))
    for entry in given:
        folder = Path(entry).resolve()
        refusal = _unsafe_folder(folder, cwd)
        if refusal:
            log.warning("PYTHONPATH %s is not passed to sessions: it %s", entry, refusal)
        elif str(folder) not in path:
            path.append(str(folder))
    return path


def _find_quackbox(path: list[str]) -> Path | None:
    """Where a Python with import path ``path`` (and this one's import hooks) finds quackbox."""
    for finder in sys.meta_path:
        find = getattr(finder, "find_spec", None)
        if find is None:
            continue
        try:
            spec = find("quackbox", path) if finder is importlib.machinery.PathFinder else find("quackbox", None)
        except (ImportError, ValueError, TypeError):
            continue
        if spec is not None and spec.origin:
            return Path(spec.origin).resolve()
    return None


def _unsafe_folder(folder: Path, cwd: Path) -> str:
    """Why modules in ``folder`` could be someone else's (a phrase), or ""."""
    if folder == cwd:
        return "is the folder the host was started in"
    try:
        info = folder.stat()
    except OSError:
        return "cannot be read"
    if info.st_uid not in (0, os.getuid()):
        return "belongs to another user"
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return "other users can write to"
    return ""


# --- a session ------------------------------------------------------------------------------


class Terminal(Protocol):
    """A door's transport, as one session's child sees it (an SSH channel, a browser's socket)."""

    def write(self, data: bytes) -> None:
        """Send ``data`` to the player; OSError when it can no longer be written."""

    def pause_reading(self) -> None:
        """Stop taking the player's input (the transport's flow control holds it back)."""

    def resume_reading(self) -> None: ...

    def finish(self, status: int, sentence: str = "") -> None:
        """End the session with exit status ``status``. ``sentence``: why, when the door
        said so (already written to the terminal; a browser's page shows it beside it too)."""

    async def wait_closed(self) -> None:
        """Until the player's side has closed."""


GOODBYE_WAIT = 2.0
"""Seconds a session closed by the host waits for the player's side to close
before the connection is cut: OpenSSH drops what it has not yet shown when
the connection is cut, so the last sentence would never be seen."""
# Leave the alternate screen, show the cursor, stop mouse reports, reset colours:
# a child killed at a hangup cannot put the player's terminal back itself.
RESET_TERMINAL = b"\x1b[?1049l\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?2004l\x1b[?25h\x1b[0m"


@dataclass
class SessionRequest:
    """What a session asks for, once its transport knows."""

    conn: Hashable
    """Its connection (what :class:`Doorkeeper` counts)."""
    key: Key
    name: str
    """The name it comes in under."""
    watch: bool
    term: str = "xterm"
    size: tuple[int, int] = (80, 24)
    client_env: Mapping[str, str] = field(default_factory=dict)
    newline: str = "\r\n"
    """How its sentences end (``\\n`` without a terminal)."""


class Door:
    """What a door holds while it is open: its table, its limits, its folders, its sessions.

    A door's transport (:class:`quackbox.net.ssh.SshServer`,
    :class:`quackbox.net.web.WebServer`) tells it of
    connections (:meth:`arrived`, :meth:`left`) and sessions
    (:meth:`session`); the door answers with sentences, starts children and
    ends them.

    Args:
        host: the running table; its :attr:`~quackbox.net.host.Host.url` and room code
            are what each child is given, its seats say who may still sit.
        disconnect: closes one of the transport's connections with a sentence.
        watch_how: what a person types to watch this table through this door.
        via: how the table is named on the child's screen (``ssh -p 2222 HOST``).
        program: what a session's child runs (``quackbox join``, as the command says).
        command: what a session runs instead (tests).
        warm: fork the children from a zygote (:mod:`quackbox.net.zygote`), shared with
            the host's other door, once it is warm; False: every child is a fresh Python.
    """

    def __init__(
        self, host: Any, limits: DoorLimits, folders: PlayerFolders, *,
        disconnect: Callable[[Hashable, str], None],
        watch_how: Callable[[SessionRequest], str] = lambda request: "",
        via: Callable[[SessionRequest], str] = lambda request: "",
        host_key: str = "",
        program: ChildProgram | None = None,
        command: Callable[[Launch], list[str]] | None = None,
        warm: bool = True,
    ) -> None:
        self.host = host
        self.limits = limits
        self.folders = folders
        self.keeper = Doorkeeper(limits)
        self.sessions: list[DoorSession] = []
        """The sessions let in, each with its child."""
        self.host_key = host_key
        self._disconnect = disconnect
        self._watch_how = watch_how
        self._via = via
        self._program = program
        self._command = command
        self._warm = warm
        self.zygote: Zygote | None = None
        """Where the children are forked from, while the door is open (None: they start fresh)."""
        self._import_path: list[str] = []
        self._names: dict[str, tuple[Key, str]] = {}
        """The name each key came in under, kept while it has a session here or holds a seat
        (a stranger's is forgotten as its last session ends, so the map stays as small as the table)."""
        self._tokens: dict[str, str] = {}
        """The seat token each key was last found to hold (read from its folder in a thread)."""
        self._ending: set[asyncio.Task[None]] = set()
        self._timer: asyncio.TimerHandle | None = None
        self._closed = False
        self._quiet = QuietLog(log)
        """What a crowd repeats (connections pushed out, refused): a line a minute at most."""

    def open(self) -> None:
        """Ready the children's import path and the player folders.

        Raises:
            DoorError: a sentence (quackbox runs from a folder others may write to).
        """
        self._import_path = child_import_path() if self._command is None else []
        try:
            removed = self.folders.open(time.time())
        except OSError as exc:
            raise DoorError(f"Cannot use the player folder {self.folders.root}: {exc}.") from None
        if removed:
            log.info("door: removed %d player folders unseen for %g days", removed, FOLDER_MAX_AGE / 86400)
        if self._warm and Zygote.available():
            env = interpreter_environment(self._import_path, self._program) | {"HOME": str(self.folders.root)}
            warm = self._program.warm if self._program is not None else ()
            self.zygote = Zygote.shared(env, self.folders.root, session_env=SESSION_ENV, warm=warm)

    async def wait_warm(self) -> bool:
        """Until the children are forked warm (True), or will not be (False)."""
        return self.zygote is not None and await self.zygote.wait_warm()

    @property
    def closed(self) -> bool:
        """Whether the door has closed (or is closing): nobody more comes in."""
        return self._closed

    async def close(self) -> None:
        """End every session (its child hung up and reaped), telling each the table has closed."""
        self._closed = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        for session in list(self.sessions):
            session.close(TABLE_CLOSED, status=0)
        while self._ending:
            await asyncio.gather(*self._ending, return_exceptions=True)
        if self.zygote is not None:
            warm, self.zygote = self.zygote, None
            await warm.release()

    @property
    def children(self) -> list[int]:
        """The process ids of the sessions' children still running."""
        return [s.child.pid for s in self.sessions if s.child is not None and s.child.running]

    # --- connections ------------------------------------------------------------------

    def arrived(self, conn: Hashable, address: str) -> None:
        """A new connection: counted among the strangers (which may close others: never this one)."""
        self._make_way(self.keeper.arrived(conn, address, _now()))

    def progressed(self, conn: Hashable) -> None:
        """The connection's client is at work (its key exchange is done)."""
        self.keeper.progressed(conn)

    async def identify(self, conn: Hashable, key: Key, name: str) -> str | None:
        """Connection ``conn`` says it is ``key``'s, under ``name``: None if it may stay, else the
        sentence to close it with (a key that holds no seat, from an address opening such
        connections too fast). Its seat token is read in a thread, once."""
        await self._learn_seats([(key, name)])
        refusal = self.keeper.identified(conn, seated=self._holds_seat(key), now=_now())
        if refusal is not None:
            self._quiet.log(logging.INFO, f"door: refused a connection: {refusal}")
        return refusal

    def left(self, conn: Hashable) -> None:
        self.keeper.left(conn)
        self._watch_deadlines()

    def _make_way(self, evicted: Iterable[Hashable]) -> None:
        for old in evicted:
            self._quiet.log(logging.INFO, "door: closed a connection that waited longest without a session")
            self._disconnect(old, CROWDED)
        self._watch_deadlines()

    def _watch_deadlines(self) -> None:
        at = self.keeper.next_deadline()
        if self._timer is not None:
            if at is not None and self._timer.when() == at:
                return
            self._timer.cancel()
            self._timer = None
        if at is not None:
            self._timer = asyncio.get_running_loop().call_at(at, self._deadlines)

    def _deadlines(self) -> None:
        self._timer = None
        for conn in self.keeper.overdue(_now()):
            self._disconnect(conn, no_session_sentence(self.limits.connection_deadline))
        self._watch_deadlines()

    # --- sessions ---------------------------------------------------------------------

    def name_for(self, key: Key, wanted: str) -> str:
        """The player's name: ``wanted``, cleaned, unless the key came in under another name
        and still has a session here or holds a seat (its seat token is filed under that name).
        Nothing is remembered here: a key that only logs in (and may be refused) costs the door
        no memory; a session let in is remembered as it comes in."""
        known = self._names.get(key.id)
        if known is not None:
            return known[1]
        return clean_name(wanted)[:MAX_NAME].strip() or "Player"

    def known_name(self, key: Key, wanted: str) -> str:
        """The same as :meth:`name_for`."""
        return self.name_for(key, wanted)

    def holds_seat(self, key: Key) -> bool:
        """Whether ``key`` holds a seat at the table now, as far as its token was read (no IO)."""
        return self._holds_seat(key)

    def _holds_seat(self, key: Key) -> bool:
        token = self._tokens.get(key.id)
        return token is not None and self.host.table.seats.by_token(token) is not None

    async def _learn_seats(self, keys: Iterable[tuple[Key, str]], *, seen: Key | None = None) -> None:
        """Read, in a thread, the seat tokens of ``keys`` (each with its name) not known to hold a
        seat now; and with ``seen``, count that key's folder as seen now."""
        unknown = {key.id: (key, name) for key, name in keys if not self._holds_seat(key)}
        if not unknown and seen is None:
            return
        url, folders = self.host.url, self.folders

        def read() -> dict[str, str | None]:
            if seen is not None:
                folders.seen(seen)
            return {key.id: folders.tokens(key).recall(url, name) for key, name in unknown.values()}

        for key_id, token in (await asyncio.to_thread(read)).items():
            if token is None:
                self._tokens.pop(key_id, None)
            else:
                self._tokens[key_id] = token

    def session(self, request: SessionRequest, terminal: Terminal) -> DoorSession:
        """A session asks to come in: a :class:`DoorSession` to hand the transport's events to;
        its :meth:`DoorSession.begin` lets it in (its child started) or tells it why not."""
        return DoorSession(self, request, terminal)

    async def admit(self, session: DoorSession) -> Admission | str:
        """Whether ``session`` may come in. What is read from files to know it (the seat tokens of
        its key and of the sessions in that may have sat since) is read in a thread."""
        request = session.request
        players = [(s.request.key, s.request.name) for s in self.sessions if not s.request.watch]
        await self._learn_seats([(request.key, request.name), *players], seen=request.key)
        if self._closed:
            return TABLE_CLOSED
        table = self.host.table
        token = self._tokens.get(request.key.id)
        if not request.watch and token is not None and token_hash(token) in table.lobby.removed:
            return REMOVED
        present = [Present(s.request.key.id, s.request.watch, self._holds_seat(s.request.key)) for s in self.sessions]
        return admission(
            key=request.key.id, watch=request.watch, seated=self._holds_seat(request.key), present=present,
            phase=table.phase, open_seats=sum(1 for seat in table.seats if seat.kind == OPEN), limits=self.limits,
            watch_how=self._watch_how(request),
        )

    async def launch(self, session: DoorSession) -> PtyChild:
        """Start the session's child: forked from the zygote when it is warm (the loop goes on
        while it forks), else a fresh Python, either way on a PTY of its own (OSError if it
        cannot be started)."""
        request = session.request
        launch = Launch(
            url=self.host.url, name=request.name, spectate=request.watch, folder=self.folders.of(request.key),
            workdir=self.folders.root, term=request.term, code=self.host.code, client_env=request.client_env,
            via=self._via(request), host_key=self.host_key,
        )
        if self._command is not None:
            argv = self._command(launch)
        elif self._program is not None:
            argv = child_command(launch, self._program)
        else:
            raise OSError("this door was given no program for its children")
        env = child_environment(launch, self._import_path, self._program)
        cols, rows = session.window.size
        if self.zygote is not None:
            child = await self.zygote.spawn(argv, env, cols=cols, rows=rows)
            if child is not None:
                return child
        return PtyChild.spawn(argv, env, cols=cols, rows=rows)

    def admitted(self, session: DoorSession, how: Admission) -> None:
        if how is Admission.REPLACING:
            mine = [s for s in self.sessions if s.request.key.id == session.request.key.id]
            if mine:
                mine[0].close(REPLACED, status=1)
        self.sessions.append(session)
        self._names.setdefault(session.request.key.id, (session.request.key, session.request.name))
        self.keeper.session_began(session.request.conn)
        self._watch_deadlines()

    def ended(self, session: DoorSession, task: asyncio.Task[None] | None) -> None:
        if session in self.sessions:
            self.sessions.remove(session)
            self._make_way(self.keeper.session_ended(session.request.conn, _now()))
            self.track(asyncio.get_running_loop().create_task(self._forget_names()))
        if task is not None:
            self.track(task)

    async def _forget_names(self) -> None:
        """Forget the names of keys with no session here that hold no seat (any more): their
        seat tokens are read again first, in a thread (one may have sat since it came in)."""
        present = {s.request.key.id for s in self.sessions}
        await self._learn_seats([entry for key_id, entry in self._names.items() if key_id not in present])
        present = {s.request.key.id for s in self.sessions}
        for key_id, (key, _name) in list(self._names.items()):
            if key_id not in present and not self.holds_seat(key):
                del self._names[key_id]

    def track(self, task: asyncio.Task[None]) -> None:
        """A session's beginning or ending, which :meth:`close` waits for."""
        self._ending.add(task)
        task.add_done_callback(self._ending.discard)


class DoorServer:
    """What the SSH door and the browser door share as servers: a :class:`Door`, started and
    stopped as an async context (``async with SshServer(...) as ssh:``), and its sessions."""

    door: Door

    async def start(self) -> None:
        raise NotImplementedError

    async def stop(self) -> None:
        raise NotImplementedError

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    @property
    def sessions(self) -> list[DoorSession]:
        """The sessions let in, each with its child."""
        return self.door.sessions

    @property
    def children(self) -> list[int]:
        """The process ids of the sessions' children still running."""
        return self.door.children


def _now() -> float:
    return asyncio.get_running_loop().time()


class DoorSession:
    """One session at a door: its terminal, its child, what passes between them, and its end.

    Made by :meth:`Door.session`; the transport calls :meth:`begin` once it
    may write, then hands on what happens: :meth:`typed`, :meth:`resized`,
    :meth:`input_closed`, :meth:`pause_output` / :meth:`resume_output`, and
    :meth:`lost` when the connection is gone.
    """

    def __init__(self, door: Door, request: SessionRequest, terminal: Terminal) -> None:
        self.door = door
        self.request = request
        self.terminal = terminal
        limits = door.limits
        self.window = WindowSize(*request.size, interval=limits.resize_interval, max_cols=limits.max_cols,
                                 max_rows=limits.max_rows)
        self.child: PtyChild | None = None
        self._typing = TokenBucket(limits.input_burst, limits.input_per_second, _now())
        self._held = bytearray()
        """Input the child may not have yet (the transport is paused meanwhile)."""
        self._release: asyncio.TimerHandle | None = None
        self._paused: set[str] = set()
        """Why the transport's input is paused: "typing" (too fast), "child" (not read yet),
        "starting" (no child yet)."""
        self._resize: asyncio.TimerHandle | None = None
        self._idle: asyncio.TimerHandle | None = None
        self._last_key = 0.0
        self._done = False

    @property
    def name(self) -> str:
        return self.request.name

    async def begin(self) -> None:
        """Let the session in and start its child, or tell it why not and end it.

        Neither step holds up the event loop: what is read from files is read in a thread,
        and a child forked from the zygote is awaited. Meanwhile the session may end (its
        connection gone, the door closed): then nothing starts, or what started is ended.
        """
        door = self.door
        verdict = await door.admit(self)
        if self._gone():
            return
        if door.closed:
            verdict = TABLE_CLOSED
        if isinstance(verdict, str):
            self.refuse(verdict)
            return
        door.admitted(self, verdict)  # counted from now: nobody takes its place while it starts
        launched_at = self.window.size
        try:
            child = await door.launch(self)
        except OSError as exc:
            log.error("door: cannot start a session's child: %s", exc)
            door.ended(self, None)
            self.refuse(CANNOT_START)
            return
        if self._gone():
            # Gone while its child started: the child goes too.
            door.track(asyncio.get_running_loop().create_task(self._reap(child)))
            return
        self.child = child
        log.info("door: %s (%s) came in: child %d", self.name, self.request.key.id, child.pid)
        child.start(self._output, self._child_backlog)
        asyncio.get_running_loop().create_task(self._watch_child())
        if self.window.size != launched_at:
            child.resize(*self.window.size)
        self._key_pressed()
        self._unpause("starting")
        if self._held:
            self._pass_on()

    def _gone(self) -> bool:
        """Whether the session has ended (asked after an await: it may have, meanwhile)."""
        return self._done

    def refuse(self, sentence: str) -> None:
        """Tell the player ``sentence`` and end the session (exit status 1)."""
        self._done = True
        self.say(sentence)
        with contextlib.suppress(OSError):
            self.terminal.finish(1, sentence)

    def say(self, text: str) -> None:
        with contextlib.suppress(OSError):
            self.terminal.write(f"{text}{self.request.newline}".encode("utf-8"))

    # --- what the player does ---------------------------------------------------------

    def typed(self, data: bytes) -> None:
        """Keys typed: on to the child at most as fast as a person types; the
        rest waits, with the transport paused, until it may go (and all of it
        until the child has started)."""
        if self._done:
            return
        self._held += data
        if self.child is None:
            self._pause("starting")
            return
        self._key_pressed()
        self._pass_on()

    def _pass_on(self) -> None:
        self._release = None
        if self.child is None or self._done:
            return
        now = _now()
        count = self._typing.take_up_to(len(self._held), now)
        if count:
            self.child.write(bytes(self._held[:count]))
            del self._held[:count]
        if self._held:
            self._pause("typing")
            wait = self._typing.wait_for(len(self._held))
            self._release = asyncio.get_running_loop().call_at(now + wait, self._pass_on)
        else:
            self._unpause("typing")

    def resized(self, cols: int, rows: int) -> None:
        at = self.window.ask(cols, rows, _now())
        if at is not None and not self._done:
            self._resize = asyncio.get_running_loop().call_at(at, self._give_size)

    def _give_size(self) -> None:
        self._resize = None
        size = self.window.due(_now())
        if size is not None and self.child is not None:
            self.child.resize(*size)

    def input_closed(self) -> None:
        """The player's side will send nothing more (``ssh ... < /dev/null``): the session ends."""
        self.close(INPUT_CLOSED, status=0)

    def pause_output(self) -> None:
        """The player's side is not keeping up: stop reading the child, which
        then blocks on its terminal rather than the host buffering without end."""
        if self.child is not None:
            self.child.pause_output()

    def resume_output(self) -> None:
        if self.child is not None:
            self.child.resume_output()

    def lost(self) -> None:
        """The connection is gone."""
        self._end()

    # --- flow -------------------------------------------------------------------------

    def _output(self, data: bytes) -> None:
        try:
            self.terminal.write(data)
        except OSError:
            # The player's side can no longer be written (closed, half-closed): the session is over.
            log.info("door: %s's terminal closed; ending the session", self.name)
            self._end()

    def _child_backlog(self, full: bool) -> None:
        if full:
            self._pause("child")
        else:
            self._unpause("child")

    def _pause(self, why: str) -> None:
        if not self._paused:
            self.terminal.pause_reading()
        self._paused.add(why)

    def _unpause(self, why: str) -> None:
        if why in self._paused:
            self._paused.discard(why)
            if not self._paused and not self._done:
                self.terminal.resume_reading()

    # --- ending -----------------------------------------------------------------------

    def close(self, message: str, *, status: int) -> None:
        """End the session from the host's side, telling the player ``message``."""
        if self._done:
            return
        task = self._end()
        terminal = self.terminal

        async def then_say() -> None:
            if task is not None:
                await task
            try:
                terminal.write(RESET_TERMINAL)
                terminal.write(f"{message}{self.request.newline}".encode("utf-8"))
                terminal.finish(status, message)
            except OSError:
                return  # the player's side closed meanwhile: nobody to tell
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(terminal.wait_closed(), GOODBYE_WAIT)

        self.door.track(asyncio.get_running_loop().create_task(then_say()))

    def _end(self) -> asyncio.Task[None] | None:
        """Hang up the child (once); the task that reaps it."""
        if self._done:
            return None
        self._done = True
        for timer in (self._idle, self._release, self._resize):
            if timer is not None:
                timer.cancel()
        self._held.clear()
        task = None
        if self.child is not None:
            task = asyncio.get_running_loop().create_task(self._reap(self.child))
        self.door.ended(self, task)
        return task

    async def _reap(self, child: PtyChild) -> None:
        status = await child.end(self.door.limits.hangup_grace)
        log.info("door: %s left; child %d ended (%d)", self.name, child.pid, status)

    async def _watch_child(self) -> None:
        """The child exited by itself (the player left): pass on what it wrote last, and its status."""
        child = self.child
        if child is None:
            return
        status = await child.wait()
        if self._done:
            return
        child.flush_output()
        if not self._done:  # else its terminal closed while the last of it was passed on
            self._end()
            with contextlib.suppress(OSError):
                self.terminal.finish(status if status >= 0 else 1)  # killed by a signal: a plain failure

    def _key_pressed(self) -> None:
        idle = self.door.limits.idle_timeout
        if idle is None:
            return
        loop = asyncio.get_running_loop()
        self._last_key = loop.time()
        if self._idle is None:
            self._idle = loop.call_at(self._last_key + idle, self._check_idle)

    def _check_idle(self) -> None:
        self._idle = None
        idle = self.door.limits.idle_timeout
        if idle is None or self._done:
            return
        loop = asyncio.get_running_loop()
        if loop.time() - self._last_key < idle:
            self._idle = loop.call_at(self._last_key + idle, self._check_idle)
            return
        self.close(idle_sentence(idle), status=1)
