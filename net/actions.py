"""What the table asks its shell (the host) to do: send, close, and put journal records on disk.

The table returns these in order. Journal actions come before the sends that
depend on them, so a move is on disk before anyone is told of it. A send or
close marked ``free`` tells nothing of the game (a welcome, chat, a refused
hello, a pause): the host may carry it out before records still on their
way to the disk, so a disk that fails keeps no one from hearing why.
"""

from __future__ import annotations

from dataclasses import dataclass

from quackbox.core.rules import Move, Outcome
from quackbox.net.journal import Header

__all__ = ["Action", "Close", "JournalEnd", "JournalMove", "JournalNote", "JournalStart", "Send"]


@dataclass(frozen=True, slots=True)
class Send:
    """Send ``data`` (one binary frame) on connection ``conn``."""

    conn: int
    data: bytes
    free: bool = False
    """It tells nothing of the game: it need not wait for the journal."""


@dataclass(frozen=True, slots=True)
class Close:
    """Close connection ``conn`` after the frames queued before this."""

    conn: int
    code: int
    reason: str
    free: bool = False
    """A connection that was never told anything of the game: it need not wait for the journal."""


@dataclass(frozen=True, slots=True)
class JournalStart:
    """Begin a journal for the game just dealt (before its first view goes out)."""

    header: Header


@dataclass(frozen=True, slots=True)
class JournalMove:
    """Put this accepted move on disk; the sends after it must wait for that."""

    seat: int
    move: Move


@dataclass(frozen=True, slots=True)
class JournalEnd:
    """The game is over: record how it ended."""

    outcome: Outcome


@dataclass(frozen=True, slots=True)
class JournalNote:
    """Put on disk what the host did to keep order (a person removed, a seat's chat muted),
    so a resumed table does it again: ``kind`` is ``removed`` or ``muted``."""

    kind: str
    seat: int | None
    token_hash: str = ""
    """``removed``: the removed seat token's hash (it may never sit again)."""
    muted: bool = False


Action = Send | Close | JournalStart | JournalMove | JournalEnd | JournalNote
"""What the table asks its shell to do, in order."""
