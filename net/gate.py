"""Connections not yet through their handshake: how many a port holds, and which make way.

A port holds a descriptor for each connection from the moment it accepts it,
long before it knows whose it is: an HTTP request's head, an SSH login, a
socket's first message are still to come. A neighbour can open as many as
the host lets him and leave each of them half said, until the process has no
descriptor left for anyone. :class:`Gate` keeps those connections within a
budget, in total and per address, and never by refusing the newcomer: when
the budget is full, a connection already waiting makes way for it.

Which one makes way:

- past the budget of one address, the oldest of that address: a flood from
  one address crowds out only itself;
- past the total, the oldest of the address that holds the most (of the one
  whose oldest waited longest, when they hold as many);
- and among them, one that has not yet shown itself to be a client at work
  (:meth:`Gate.progressed`: a whole request head, a finished key exchange)
  goes before one that has.

So a person whose client speaks at once (a browser sends its request as it
connects; ssh logs in within a few round trips) is through long before a
flood of silent or dribbling connections can push it out, and a flood never
holds more than the budget. A connection leaves the gate when it comes
through (:meth:`Gate.through`) or closes (:meth:`Gate.left`); one that waits
past its deadline is returned by :meth:`Gate.overdue`, to be closed.

No IO and no clock: every call that notes a time takes it. The doors use a
gate for the browser door's HTTP connections before they become a terminal
socket, and for the strangers among their connections (those without a
session or a seat: see :class:`quackbox.net.door_policy.Doorkeeper`). Any port can
put one in front of its own handshake the same way: tell it of each
connection accepted, close what :meth:`Gate.arrived` returns, and tell it
when the connection comes through or closes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Hashable, Iterator

__all__ = ["Gate"]


@dataclass(slots=True)
class _Waiting:
    address: str
    since: float
    progressed: bool = False


class Gate:
    """The connections waiting at a port, within ``total`` at once and ``per_address`` from one address.

    Args:
        total: connections waiting at once, from every address.
        per_address: connections waiting at once from one address.
        deadline: seconds a connection may wait; None: as long as it likes.
    """

    def __init__(self, *, total: int, per_address: int, deadline: float | None = None) -> None:
        if total < 1 or per_address < 1:
            raise ValueError("a gate lets at least one connection wait")
        self.total = total
        self.per_address = per_address
        self.deadline = deadline
        self._waiting: dict[Hashable, _Waiting] = {}
        """Every connection waiting, the longest waiting first."""
        self._by_address: dict[str, dict[Hashable, None]] = {}
        """The same, by address (each in the order they came)."""

    def __len__(self) -> int:
        return len(self._waiting)

    def __contains__(self, conn: object) -> bool:
        return conn in self._waiting

    def __iter__(self) -> Iterator[Hashable]:
        """The connections waiting, the longest waiting first."""
        return iter(list(self._waiting))

    def from_address(self, address: str) -> int:
        """How many connections from ``address`` are waiting."""
        return len(self._by_address.get(address, ()))

    def arrived(self, conn: Hashable, address: str, now: float) -> tuple[Hashable, ...]:
        """Connection ``conn`` from ``address`` began to wait at ``now`` (again, if it was through):
        the connections that make way for it (forgotten here: close them)."""
        self.left(conn)
        evict: list[Hashable] = []
        mine = self._by_address.get(address)
        if mine is not None and len(mine) >= self.per_address:
            evict.append(self._first_to_go(mine))
        elif len(self._waiting) >= self.total:
            evict.append(self._first_to_go(self._by_address[self._crowd()]))
        for old in evict:
            self.left(old)
        self._waiting[conn] = _Waiting(address, now)
        self._by_address.setdefault(address, {})[conn] = None
        return tuple(evict)

    def progressed(self, conn: Hashable) -> None:
        """``conn`` showed it is a client at work (a whole request, a finished key exchange):
        it makes way only after those of its crowd that have not."""
        waiting = self._waiting.get(conn)
        if waiting is not None:
            waiting.progressed = True

    def through(self, conn: Hashable) -> None:
        """``conn`` came through its handshake: it no longer waits."""
        self.left(conn)

    def left(self, conn: Hashable) -> None:
        """``conn`` closed (or is no longer this gate's business)."""
        waiting = self._waiting.pop(conn, None)
        if waiting is None:
            return
        mine = self._by_address[waiting.address]
        del mine[conn]
        if not mine:
            del self._by_address[waiting.address]

    def overdue(self, now: float) -> list[Hashable]:
        """The connections past their deadline at ``now`` (forgotten here: close them)."""
        if self.deadline is None:
            return []
        late = [conn for conn, waiting in self._waiting.items() if now >= waiting.since + self.deadline]
        for conn in late:
            self.left(conn)
        return late

    def next_deadline(self) -> float | None:
        """When the next connection's deadline comes; None if none will."""
        if self.deadline is None or not self._waiting:
            return None
        return min(waiting.since for waiting in self._waiting.values()) + self.deadline

    # --- who makes way ------------------------------------------------------------------

    def _crowd(self) -> str:
        """The address holding the most waiting connections (of those, the one whose oldest came first)."""

        def weight(address: str) -> tuple[int, float]:
            mine = self._by_address[address]
            return len(mine), -self._waiting[next(iter(mine))].since

        return max(self._by_address, key=weight)

    def _first_to_go(self, conns: dict[Hashable, None]) -> Hashable:
        """Of ``conns`` (in the order they came), the oldest that has not progressed, else the oldest."""
        for conn in conns:
            if not self._waiting[conn].progressed:
                return conn
        return next(iter(conns))
