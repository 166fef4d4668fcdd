"""Who may come in at a door, and what it says: pure policy, no IO and no clock.

Every call takes the time. :class:`Doorkeeper` and :func:`admission` decide
who comes in (a key that holds a seat always gets back to it; strangers have
budgets and deadlines of their own); :class:`WindowSize` clamps and coalesces
a session's window sizes; :func:`stale_folders` says which player folders
have gone unused; the sentences are every refusal a door speaks. The doors
(:mod:`quackbox.net.door`) do the IO.
"""

from __future__ import annotations

import enum
from collections import OrderedDict
from dataclasses import dataclass
from typing import Callable, Hashable, Iterable, Mapping

from quackbox.net.gate import Gate
from quackbox.net.limits import TokenBucket
from quackbox.net.lobby import LOBBY, OVER
from quackbox.net.pty_child import HANGUP_GRACE

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
    clock: Callable[[], float] | None = None
    """What a session's typing budget, window changes and idle time (and a browser's message
    budget) are timed by, in seconds; None: the event loop's clock. A clock held still lets no budget
    refill, so what passes is decided by the budgets alone (a test's)."""


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
        self._strangers = Gate(
            total=limits.stranger_connections,
            per_address=limits.stranger_connections_per_address,
            deadline=limits.connection_deadline,
        )
        self._seated_waiting: dict[Hashable, float] = {}
        """Seat holders' connections without a session, and since when."""
        self._rates: OrderedDict[str, TokenBucket] = OrderedDict()
        """The connection rate of each address seen lately, the most recent last."""

    def __len__(self) -> int:
        """How many connections are held (from :meth:`arrived` until they leave)."""
        return len(self._connections)

    @property
    def addresses_remembered(self) -> int:
        """How many addresses' connection rates are remembered (at most :data:`ADDRESSES_REMEMBERED`)."""
        return len(self._rates)

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
    *,
    key: str,
    watch: bool,
    seated: bool,
    present: Iterable[Present],
    phase: str,
    open_seats: int,
    limits: DoorLimits,
    watch_how: str,
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

    def __init__(
        self,
        cols: int,
        rows: int,
        *,
        interval: float = RESIZE_INTERVAL,
        max_cols: int = MAX_COLS,
        max_rows: int = MAX_ROWS,
    ) -> None:
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


def stale_folders(seen: Mapping[str, float], now: float, max_age: float = FOLDER_MAX_AGE) -> list[str]:
    """The folders (by name, with when their key was last seen) unseen for ``max_age`` at ``now``."""
    return sorted(name for name, when in seen.items() if now - when > max_age)
