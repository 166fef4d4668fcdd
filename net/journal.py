"""The game journal's format, and reading it: every accepted move, on disk before anyone hears of it.

A journal is one append-only file per game:

    MAGIC                       b"QUACKBOX JOURNAL\\n"
    record, record, ...         each: u32 length, u32 CRC-32, msgpack map

The first record is the header (format, game, options, seed, seats, names,
which seats are bots, SHA-256 hashes of the seat tokens, when it began); then
one record per accepted move or timeout, in order, with a note wherever the
host removed a person or muted a seat's chat (format 2); then, once the
game is over, an end record. Writing it, and keeping that promise when the disk
fails, is :mod:`quackbox.net.journal_writer`'s; putting it on disk off the
host's event loop is :mod:`quackbox.net.saver`'s.

Reading is strict about everything but the last record: a torn last record
(the host died mid-write) is dropped and reported, and the game resumes from
the last whole move; damage anywhere earlier, or a newer format, is refused
with a :class:`JournalError` that names the file.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import struct
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

import msgpack

from quackbox.core import games
from quackbox.core.rules import Event, Move, Outcome, RulesError
from quackbox.net import places
from quackbox.net.codec import Codec, DecodeError
from quackbox.net.errors import NetError
from quackbox.net.protocol import Wire

__all__ = [
    "FORMAT",
    "MAGIC",
    "SUFFIX",
    "Header",
    "Journal",
    "JournalError",
    "end_record",
    "header_record",
    "journal_names",
    "move_record",
    "note_record",
    "read",
    "rebuild",
    "replay",
    "summaries",
    "token_hash",
]

MAGIC = b"QUACKBOX JOURNAL\n"
FORMAT = 2
"""Bumped when a record changes shape; a reader refuses a newer format. Format 2 added
the host's notes (``removed``, ``muted``); a format 1 journal reads as ever."""
_FRAME = struct.Struct(">II")
MAX_RECORD = 1 << 20
"""No record comes near this (a move is tens of bytes); a bigger length is damage."""
SUFFIX = ".qbj"

HEADER, MOVE, END = "header", "move", "end"
REMOVED, MUTED = "removed", "muted"
"""The kinds of a host's note."""


class JournalError(NetError):
    """A journal that cannot be used; the message names the file."""

    def __init__(self, path: os.PathLike[str] | str, problem: str) -> None:
        self.path = str(path)
        self.problem = problem
        super().__init__(f"{self.path}: {problem}")


def token_hash(token: str) -> str:
    """What the journal keeps of a seat token: enough to check one, not to forge one."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Header:
    """Everything needed to deal the same game again."""

    game: str
    seed: int
    seats: int
    names: tuple[str, ...]
    options: Mapping[str, Any] = field(default_factory=dict)
    bots: tuple[bool, ...] = ()
    """Per seat, whether a bot plays it."""
    token_hashes: tuple[str, ...] = ()
    """Per seat, :func:`token_hash` of its seat token ("" for none)."""
    created: float = 0.0
    """Seconds since the epoch when the game began."""
    room: str = ""
    format: int = FORMAT

    def to_record(self) -> dict[str, Any]:
        return {
            "kind": HEADER,
            "format": self.format,
            "game": self.game,
            "seed": self.seed,
            "seats": self.seats,
            "names": list(self.names),
            "options": dict(self.options),
            "bots": list(self.bots),
            "token_hashes": list(self.token_hashes),
            "created": self.created,
            "room": self.room,
        }


@dataclass
class Journal:
    """A journal as read from disk."""

    path: Path
    header: Header
    moves: list[tuple[int, Move]]
    times: list[float]
    """When each move was accepted (seconds since the epoch)."""
    outcome: Outcome | None = None
    removed: list[tuple[int | None, str]] = field(default_factory=list)
    """The people the host removed, in order: their seat (None: one taken from them in the
    lobby) and their seat token's hash."""
    muted: dict[int, bool] = field(default_factory=dict)
    """The seats whose chat the host muted (True) or let go again (False), as last noted."""
    dropped: str = ""
    """Why a torn last record was dropped ("" if none was)."""
    good_length: int = 0
    """Bytes of whole records, where an appending writer must carry on."""

    @property
    def finished(self) -> bool:
        return self.outcome is not None


def _frame(payload: bytes) -> bytes:
    """One record: its length, its checksum, then the msgpack map itself."""
    return _FRAME.pack(len(payload), zlib.crc32(payload)) + payload


def header_record(header: Header) -> bytes:
    """The bytes a journal begins with: the magic, then the header's record."""
    return MAGIC + _frame(msgpack.packb(header.to_record(), use_bin_type=True))


def move_record(codec: Codec, seat: int, move: Move, *, at: float | None = None) -> bytes:
    """The bytes of one move (or timeout) record for ``seat``, packed with
    ``codec`` (the game's wire codec: a journal holds moves as the wire
    carries them)."""
    when = time.time() if at is None else at
    return _frame(codec.pack({"kind": MOVE, "seat": seat, "move": move, "at": when}))


def note_record(
    kind: str, seat: int | None, *, token_hash: str = "", muted: bool = False, at: float | None = None
) -> bytes:
    """The bytes of a host's note: a person removed (``removed``), or a seat's chat muted
    or let go (``muted``)."""
    record: dict[str, Any] = {"kind": kind, "seat": seat, "at": time.time() if at is None else at}
    if kind == REMOVED:
        record["token_hash"] = token_hash
    else:
        record["muted"] = muted
    return _frame(msgpack.packb(record, use_bin_type=True))


def end_record(outcome: Outcome, *, at: float | None = None) -> bytes:
    """The bytes of the record that says how the game ended."""
    record = {
        "kind": END,
        "winners": list(outcome.winners),
        "places": list(outcome.places),
        "reason": outcome.reason,
        "at": time.time() if at is None else at,
    }
    return _frame(msgpack.packb(record, use_bin_type=True))


class _Decoder:
    """Unpacks records, and the move of a move record once the header names the game."""

    def __init__(self) -> None:
        self.codec: Codec | None = None
        """The host's wire codec: a journal holds moves the wire accepted."""

    def __call__(self, payload: bytes) -> Any:
        record = msgpack.unpackb(payload, raw=False, strict_map_key=True, use_list=False)
        if self.codec is not None and isinstance(record, dict) and record.get("kind") == MOVE and "move" in record:
            record["move"] = self.codec.decode(record["move"], Move, where="move")
        return record


def _records(
    data: bytes, decode: Callable[[bytes], Any], start: int = len(MAGIC)
) -> Iterator[tuple[int, int, dict[str, Any] | None, str]]:
    """(offset, end, record or None, problem) for each record from ``start`` (after the magic)."""
    offset = start
    while offset < len(data):
        if offset + _FRAME.size > len(data):
            yield offset, len(data), None, "the last record is cut short"
            return
        length, crc = _FRAME.unpack_from(data, offset)
        start, end = offset + _FRAME.size, offset + _FRAME.size + length
        if length > MAX_RECORD:
            yield offset, end, None, f"a record claims {length} bytes"
            return
        if end > len(data):
            yield offset, len(data), None, "the last record is cut short"
            return
        payload = data[start:end]
        if zlib.crc32(payload) != crc:
            yield offset, end, None, "a record fails its checksum"
            return
        try:
            record = decode(payload)
        except DecodeError as exc:
            yield offset, end, None, f"a record holds a bad value ({exc})"
            return
        except Exception:  # msgpack raises several types for bad bytes
            yield offset, end, None, "a record is not valid msgpack"
            return
        if not isinstance(record, dict):
            yield offset, end, None, "a record is not a map"
            return
        yield offset, end, record, ""
        offset = end


def read(path: os.PathLike[str] | str) -> Journal:
    """Read a journal; drop (and report) a torn last record; refuse other
    damage, and a journal another user could read or write."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise JournalError(path, "no such file") from None
    except OSError as exc:
        raise JournalError(path, f"cannot be read ({exc.strerror or exc})") from None
    if not data.startswith(MAGIC):
        raise JournalError(path, "is not a quackbox journal")
    exposed = places.exposed(path)
    if exposed:
        raise JournalError(path, exposed)
    header: Header | None = None
    moves: list[tuple[int, Move]] = []
    times: list[float] = []
    outcome: Outcome | None = None
    removed: list[tuple[int | None, str]] = []
    muted: dict[int, bool] = {}
    good = len(MAGIC)
    dropped = ""
    decode = _Decoder()
    for offset, end, record, problem in _records(data, decode):
        if record is None:
            if end >= len(data) and header is not None:
                # Only the very last record may be damaged: that is a torn write.
                dropped = f"dropped a damaged last record at byte {offset} ({problem})"
                break
            raise JournalError(path, f"is damaged at byte {offset}: {problem}")
        kind = record.get("kind")
        if header is None:
            header = _header(path, record)
            decode.codec = Wire(games.get(header.game)).values
        elif outcome is not None:
            raise JournalError(path, f"has a record after the end of the game at byte {offset}")
        elif kind == MOVE:
            seat, move, at = _move(path, record, offset, header)
            moves.append((seat, move))
            times.append(at)
        elif kind == END:
            outcome = _outcome(path, record, offset, header)
        elif kind in (REMOVED, MUTED) and header.format >= 2:
            noted = _note_seat(path, record, offset, header)
            if kind == REMOVED:
                removed.append((noted, str(record.get("token_hash") or "")))
            elif noted is not None:
                muted[noted] = bool(record.get("muted"))
        else:
            raise JournalError(path, f"has a record of unknown kind {kind!r} at byte {offset}")
        good = end
    if header is None:
        raise JournalError(path, "has no header")
    return Journal(
        path=path,
        header=header,
        moves=moves,
        times=times,
        outcome=outcome,
        removed=removed,
        muted=muted,
        dropped=dropped,
        good_length=good,
    )


def _header(path: Path, record: Mapping[str, Any]) -> Header:
    if record.get("kind") != HEADER:
        raise JournalError(path, "does not begin with a header")
    version = record.get("format")
    if not isinstance(version, int) or isinstance(version, bool):
        raise JournalError(path, "has no format version")
    if version > FORMAT:
        raise JournalError(
            path,
            f"was written in format {version}, newer than this quackbox reads ({FORMAT}); upgrade quackbox to open it",
        )
    try:
        game = record["game"]
        if game not in games.GAMES:
            raise JournalError(path, f"is a game of {game!r}, which this quackbox does not know")
        seats = _int(record["seats"])
        header = Header(
            game=game,
            seed=_int(record["seed"]),
            seats=seats,
            names=tuple(str(n) for n in record["names"]),
            options=dict(record.get("options") or {}),
            bots=tuple(bool(b) for b in record.get("bots") or ()),
            token_hashes=tuple(str(t) for t in record.get("token_hashes") or ()),
            created=float(record.get("created") or 0.0),
            room=str(record.get("room") or ""),
            format=version,
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise JournalError(path, f"has a broken header ({exc})") from None
    if len(header.names) != seats:
        raise JournalError(path, "has a header whose names do not match its seats")
    return header


def _int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"expected a whole number, got {value!r}")
    return value


def _move(path: Path, record: Mapping[str, Any], offset: int, header: Header) -> tuple[int, Move, float]:
    try:
        seat = _int(record["seat"])
        move = record["move"]
        at = float(record.get("at") or 0.0)
    except (KeyError, TypeError, ValueError) as exc:
        raise JournalError(path, f"has a broken move at byte {offset} ({exc})") from None
    if not isinstance(move, Move) or not 0 <= seat < header.seats:
        raise JournalError(path, f"has a broken move at byte {offset}")
    return seat, move, at


def _note_seat(path: Path, record: Mapping[str, Any], offset: int, header: Header) -> int | None:
    seat = record.get("seat")
    if seat is None:
        return None
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < header.seats:
        raise JournalError(path, f"has a broken note at byte {offset}")
    return seat


def _outcome(path: Path, record: Mapping[str, Any], offset: int, header: Header) -> Outcome:
    try:
        return Outcome(
            winners=tuple(_int(w) for w in record["winners"]),
            places=tuple(_int(p) for p in record["places"]),
            reason=str(record.get("reason", "")),
        )
    except (KeyError, TypeError) as exc:
        raise JournalError(path, f"has a broken end record at byte {offset} ({exc})") from None


def replay(journal: Journal, upto: int | None = None) -> Iterator[tuple[Any, tuple[Event, ...]]]:
    """Deal the journal's game again and apply its first ``upto`` moves (all
    by default), yielding (state, events): first the deal and its start
    events, then after each move. The state is the same object throughout.

    Every move goes through ``apply``, so a journal that does not replay
    (edited by hand, or written by different rules) is refused by name.
    """
    header = journal.header
    rules = games.get(header.game)
    try:
        options = rules.parse_options(header.options)
        state = rules.new_game(seats=header.seats, options=options, seed=header.seed)
    except ValueError as exc:
        raise JournalError(journal.path, f"cannot deal its game again ({exc})") from None
    yield state, tuple(state.start_events)
    for number, (seat, move) in enumerate(journal.moves[:upto]):
        try:
            events = rules.apply(state, seat, move)
        except RulesError as exc:
            raise JournalError(journal.path, f"move {number + 1} does not replay: {exc}") from None
        yield state, tuple(events)


def rebuild(journal: Journal, upto: int | None = None) -> Any:
    """The game's State after its first ``upto`` moves (all of them by default);
    JournalError if the journal does not replay (see :func:`replay`)."""
    state = None
    for step in replay(journal, upto):
        state = step[0]
    return state


def summaries(directory: os.PathLike[str] | str) -> list[tuple[Path, Journal | JournalError]]:
    """Every journal in ``directory``, newest first, read (or the error reading it)."""
    found: list[tuple[Path, Journal | JournalError]] = []
    folder = Path(directory)
    if not folder.is_dir():
        return found
    for path in sorted(folder.glob(f"*{SUFFIX}"), key=lambda p: p.stat().st_mtime, reverse=True):
        try:
            found.append((path, read(path)))
        except JournalError as exc:
            found.append((path, exc))
    return found


def journal_names(directory: os.PathLike[str] | str, game: str, when: float, room: str) -> Iterator[Path]:
    """The names a new journal may take, in order: ``20261130-101500-quack-KQXZ.qbj``, then ``-2``, ``-3``..."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(when))
    base = f"{stamp}-{game}" + (f"-{room}" if room else "")
    folder = Path(directory)
    yield folder / f"{base}{SUFFIX}"
    for counter in itertools.count(2):
        yield folder / f"{base}-{counter}{SUFFIX}"
