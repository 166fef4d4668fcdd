"""The seats of a table: who holds each one, its token and name, and whether its person is here.

A seat is open, a person's or a bot's. A person's seat has a secret token
(from :mod:`secrets`); saying hello with it reclaims the seat, hand and all.
Beside each token the table keeps its hash, which is all a journal (and so a
resumed table) knows of it. Seat 0 is the host's own person's unless the
table is headless.

No IO and no clock: every call that notes a time takes it.
"""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass
from typing import AbstractSet, Iterator

from quackbox.net.journal import Header, token_hash
from quackbox.net.protocol import BOT, HUMAN, MAX_NAME, OPEN, SeatInfo
from quackbox.net.text import clean_name, name_keys

__all__ = ["LOBBY_SEAT_GRACE", "Seat", "Seats"]

LOBBY_SEAT_GRACE = 20.0
"""Seconds a seat waits in the lobby for its person to come back before it
opens for anyone: long enough for a dropped connection to come back (a
network blip, a terminal reopened), short enough that people who came and
went cannot keep a table full. In a game an away seat waits (a bot plays
for it)."""


@dataclass
class Seat:
    """One seat and who holds it."""

    index: int
    kind: str = OPEN
    """OPEN, HUMAN or BOT."""
    name: str = ""
    token: str | None = None
    token_hash: str = ""
    """SHA-256 of the token: all a resumed table knows of a seat's token."""
    conn: int | None = None
    """The connection of the person holding the seat now; None: nobody is here."""
    ready: bool = False
    away_since: float | None = None
    """When the seat's person left."""
    idle: bool = False
    """The turn timer ran out: a bot plays for the seat until its person acts."""


class Seats:
    """A table's seats, in order.

    Args:
        count: how many seats.
        host_name: the name of the host's own person, who holds seat 0;
            None for a headless table.
        host_token: seat 0's token when there is a host's person.
        bots: how many seats, the last ones, are bots from the start.
    """

    def __init__(self, count: int, *, host_name: str | None, host_token: str | None, bots: int) -> None:
        self._seats = [Seat(i) for i in range(count)]
        self.headless = host_name is None
        if host_name is not None:
            host = self._seats[0]
            host.kind, host.name = HUMAN, clean_name(host_name)[:MAX_NAME] or "Host"
            self.give_token(host, host_token)
        for seat in self._seats[count - bots :]:
            self.make_bot(seat)

    def __iter__(self) -> Iterator[Seat]:
        return iter(self._seats)

    def __len__(self) -> int:
        return len(self._seats)

    def __getitem__(self, index: int) -> Seat:
        return self._seats[index]

    # --- who sits where ---------------------------------------------------------------

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(seat.name for seat in self._seats)

    @property
    def starter(self) -> int | None:
        """The seat that may start the game: the host's, else the first person's who is here."""
        if not self.headless:
            return 0
        for seat in self._seats:
            if seat.kind == HUMAN and seat.conn is not None:
                return seat.index
        return None

    def info(self, *, playing: bool, muted: AbstractSet[int] = frozenset()) -> tuple[SeatInfo, ...]:
        """The seats as the lobby message shows them (away only counts in a game; ``muted``:
        the seats whose chat the host muted)."""
        return tuple(
            SeatInfo(
                seat=s.index,
                name=s.name,
                kind=s.kind,
                connected=s.kind == BOT or s.conn is not None,
                ready=s.kind == BOT or s.ready,
                away=playing and s.kind == HUMAN and (s.conn is None or s.idle),
                muted=s.index in muted,
            )
            for s in self._seats
        )

    def not_ready(self, besides: int) -> list[str]:
        """The names of the people here who are not ready, but for seat ``besides``."""
        return [
            s.name for s in self._seats if s.kind == HUMAN and s.conn is not None and not s.ready and s.index != besides
        ]

    def all_taken(self) -> bool:
        """Whether every seat is a bot's or a person's who is here (autostart)."""
        return all(s.kind == BOT or (s.kind == HUMAN and s.conn is not None) for s in self._seats)

    # --- tokens and names ------------------------------------------------------------

    def by_token(self, token: str) -> Seat | None:
        """The seat ``token`` belongs to, or None."""
        given = token_hash(token).encode()
        found = None
        for seat in self._seats:  # compare every seat, in constant time each
            if seat.token_hash and hmac.compare_digest(given, seat.token_hash.encode()):
                found = seat
        return found

    def give_token(self, seat: Seat, token: str | None) -> None:
        seat.token = token
        seat.token_hash = token_hash(token) if token else ""

    def unique_name(self, name: str, index: int | None, *, taken: AbstractSet[str] = frozenset()) -> str:
        """``name``, or ``name 2``, ``name 3``... if another seat (but seat
        ``index``) already goes by it, or by a name that looks the same
        (:func:`~quackbox.net.text.name_keys`); ``taken`` holds the keys of other
        names in use (the spectators')."""
        used = set(taken).union(*(name_keys(s.name) for s in self._seats if s.index != index and s.kind != OPEN))
        if name_keys(name).isdisjoint(used):
            return name
        for n in range(2, len(self._seats) + len(used) + 3):
            candidate = f"{name[: MAX_NAME - 1 - len(str(n))]} {n}"
            if name_keys(candidate).isdisjoint(used):
                return candidate
        raise AssertionError("unreachable: more numbers than names in use")  # pragma: no cover

    # --- people coming and going -----------------------------------------------------

    def take_open(self, name: str, conn: int, *, taken: AbstractSet[str] = frozenset()) -> Seat | None:
        """Give the first open seat to the person on ``conn``, with a fresh token; None if none is open."""
        seat = next((s for s in self._seats if s.kind == OPEN), None)
        if seat is None:
            return None
        seat.kind, seat.ready = HUMAN, False
        self.give_token(seat, secrets.token_urlsafe(16))
        seat.name = self.unique_name(name or f"Player {seat.index + 1}", seat.index, taken=taken)
        seat.conn, seat.away_since = conn, None
        return seat

    def reclaim(
        self, seat: Seat, token: str, conn: int, *, name: str = "", taken: AbstractSet[str] = frozenset()
    ) -> None:
        """The person with ``token`` is back on ``conn`` (``name``: a new name, in the lobby)."""
        if name:
            seat.name = self.unique_name(name, seat.index, taken=taken)
        seat.token = token  # a resumed table knew only its hash
        seat.conn, seat.away_since = conn, None

    def gone(self, seat: Seat, conn: int, now: float) -> None:
        """The connection ``conn`` of the seat's person closed at ``now``: the seat waits for them."""
        if seat.conn == conn:  # else a newer connection holds the seat
            seat.conn, seat.away_since = None, now

    def left(self, seat: Seat, conn: int, now: float, *, in_game: bool) -> None:
        """The person on ``conn`` said goodbye at ``now``.

        In a game the seat waits for them (away); otherwise it opens again,
        but for the host's own seat.
        """
        if seat.conn != conn:
            return
        self.gone(seat, conn, now)
        if not in_game and not (seat.index == 0 and not self.headless):
            self.free(seat)

    def abandoned(self, now: float, grace: float) -> list[Seat]:
        """The people's seats whose person has been gone ``grace`` seconds at
        ``now`` (never the host's own seat): what a table not playing opens again."""
        return [
            s
            for s in self._seats
            if s.kind == HUMAN
            and s.conn is None
            and s.away_since is not None
            and now - s.away_since >= grace
            and not (s.index == 0 and not self.headless)
        ]

    def waiting_since(self) -> list[float]:
        """When each person's seat that waits for its person was left."""
        return [s.away_since for s in self._seats if s.kind == HUMAN and s.conn is None and s.away_since is not None]

    def free(self, seat: Seat) -> None:
        """Open ``seat`` again for anyone (its token no longer holds it)."""
        seat.kind, seat.name, seat.ready, seat.conn, seat.away_since, seat.idle = OPEN, "", False, None, None, False
        self.give_token(seat, None)

    def revoke(self, seat: Seat) -> None:
        """In a game, the seat's person was removed: no token holds the seat any more, and a
        bot plays it (as for a person who went idle) for the rest of the game."""
        self.give_token(seat, None)
        seat.conn, seat.idle = None, True

    def make_bot(self, seat: Seat) -> None:
        seat.kind, seat.conn, seat.ready = BOT, None, True
        self.give_token(seat, None)
        seat.name = self.unique_name(f"Bot {seat.index + 1}", seat.index)

    # --- games -----------------------------------------------------------------------

    def deal(self) -> None:
        """A game begins: open seats get bots, and nobody is idle."""
        for seat in self._seats:
            if seat.kind == OPEN:
                self.make_bot(seat)
            seat.idle = False

    def game_over(self) -> None:
        """Everyone but the bots must get ready again for the next game."""
        for seat in self._seats:
            seat.ready = seat.kind == BOT

    def restore(self, header: Header, now: float) -> None:
        """Seats as a journal's header says (resuming its game at ``now``).

        Bots are bots again; people are away until they reclaim their seats
        with their tokens, checked against the header's hashes. The host's own
        seat, when not headless, keeps the fresh token it was given: whoever
        holds the journal file owns that seat.
        """
        for seat, name in zip(self._seats, header.names):
            if seat.index < len(header.bots) and header.bots[seat.index]:
                self.make_bot(seat)
            elif seat.index == 0 and not self.headless:
                seat.kind = HUMAN
            else:
                seat.kind = HUMAN
                seat.token, seat.conn, seat.away_since = None, None, now
                seat.token_hash = header.token_hashes[seat.index] if seat.index < len(header.token_hashes) else ""
            seat.name = name

    def away_from(self, now: float) -> None:
        """Every person not here counts as away from ``now`` (the host was down until then)."""
        for seat in self._seats:
            if seat.kind == HUMAN and seat.conn is None:
                seat.away_since = now
