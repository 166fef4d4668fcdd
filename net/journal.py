"""The game journal: every accepted move on disk before anyone hears of it.

A journal is one append-only file per game:

    MAGIC                       b"QUACKBOX JOURNAL\\n"
    record, record, ...         each: u32 length, u32 CRC-32, msgpack map

The first record is the header (format, game, options, seed, seats, names,
which seats are bots, SHA-256 hashes of the seat tokens, when it began); then
one record per accepted move or timeout, in order; then, once the game is
over, an end record. Each record is on disk (fdatasync) before the host
relays the move, so a crash or a power cut loses at most the moves being
written, which nobody had seen yet.

A host puts its records on disk through a :class:`GroupCommit`: the records
accepted during one turn of the event loop, at every table of the process,
are written together in one trip of a writer thread, which then syncs each
journal it touched.

Reading is strict about everything but the last record: a torn last record
(the host died mid-write) is dropped and reported, and the game resumes from
the last whole move; damage anywhere earlier, or a newer format, is refused
with a :class:`JournalError` that names the file.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import itertools
import logging
import os
import queue
import struct
import sys
import threading
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Callable, Iterator, Mapping

import msgpack

from quackbox.core import games
from quackbox.core.rules import AnyRules, Event, Move, Outcome, RulesError
from quackbox.net import places
from quackbox.net.codec import Codec, DecodeError
from quackbox.net.loops import call_soon_from_thread
from quackbox.net.protocol import Wire

log = logging.getLogger("quackbox.journal")

__all__ = [
    "FORMAT",
    "GroupCommit",
    "Journal",
    "JournalError",
    "JournalWriter",
    "Header",
    "read",
    "rebuild",
    "move_record",
    "token_hash",
]

MAGIC = b"QUACKBOX JOURNAL\n"
FORMAT = 1
"""Bumped when a record changes shape; a reader refuses a newer format."""
_FRAME = struct.Struct(">II")
MAX_RECORD = 1 << 20
"""No record comes near this (a move is tens of bytes); a bigger length is damage."""
SUFFIX = ".qbj"

_datasync = getattr(os, "fdatasync", os.fsync)
"""fdatasync where the system has it: an appended record needs its bytes and
the file's new length on disk, not the file's times."""

HEADER, MOVE, END = "header", "move", "end"


class JournalError(Exception):
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


def move_record(codec: Codec, seat: int, move: Move, *, at: float | None = None) -> bytes:
    """The bytes of one move (or timeout) record for ``seat``, packed with
    ``codec`` (the game's wire codec: a journal holds moves as the wire
    carries them)."""
    when = time.time() if at is None else at
    return _frame(codec.pack({"kind": MOVE, "seat": seat, "move": move, "at": when}))


class JournalWriter:
    """Appends records to one journal.

    Each record is on disk when :meth:`append` (or :meth:`finish`) returns,
    with every record before it (the header too); with ``later=True`` it is
    only held, and :meth:`sync` writes everything held in one call and puts
    it on disk (a :class:`GroupCommit` syncs each journal once per trip).

    Args:
        sync: False never syncs (for tests and benchmarks of the rest).
    """

    def __init__(self, path: Path, handle: BinaryIO, rules: AnyRules, *, sync: bool = True) -> None:
        self.path = path
        self._file = handle
        self.rules = rules
        self._sync = sync
        self._held = bytearray()
        """Records written since the last sync, not yet handed to the file:
        the sync writes them in one call (each call the writer thread makes
        waits for the event loop to let it run again, on a busy host)."""
        self._unsynced = False
        """Whether bytes were handed to the file since the last sync."""
        self._new = False
        """Whether the file is new: its name, in its folder, is not on disk yet."""
        self._failed: OSError | None = None
        """Why a sync failed: what was written may not be on disk, so nothing more is."""
        self.moves = 0
        self.finished = False
        self.bytes = handle.tell()

    @classmethod
    def create(cls, path: os.PathLike[str] | str, header: Header, *, sync: bool = True) -> JournalWriter:
        """Start a new journal at ``path`` (refusing to overwrite one), 0600 in
        a 0700 folder: it holds the seed, so it would give every hand away.
        The header is written; the next sync puts it, and the file's name in
        its folder, on disk."""
        path = Path(path)
        rules = games.get(header.game)
        places.private_dir(path.parent)
        try:
            fd = places.open_private(path, os.O_WRONLY | os.O_EXCL)
        except FileExistsError:
            raise JournalError(path, "a journal by that name exists already") from None
        handle = os.fdopen(fd, "wb")  # held open for the whole game
        writer = cls(path, handle, rules, sync=sync)
        writer._new = True
        writer._write(MAGIC + _frame(msgpack.packb(header.to_record(), use_bin_type=True)))
        writer._hand_to_file()  # a journal on disk always begins with its header
        return writer

    @classmethod
    def create_new(
        cls, directory: os.PathLike[str] | str, header: Header, when: float, *, sync: bool = True
    ) -> JournalWriter:
        """Start a new journal in ``directory`` under the first free name of
        the pattern ``20261130-101500-quack-KQXZ.qbj`` (then ``-2``, ``-3``...).
        Safe when several hosts in one process start games in the same
        second: each name is taken atomically."""
        for path in _names(directory, header.game, when, header.room):
            if path.exists():
                continue
            try:
                return cls.create(path, header, sync=sync)
            except JournalError:
                if not path.exists():  # not a lost race: a real failure
                    raise
        raise AssertionError("unreachable: the names never run out")  # pragma: no cover

    @classmethod
    def resume(cls, journal: Journal, *, sync: bool = True) -> JournalWriter:
        """Carry on appending to ``journal`` after its last whole record."""
        if journal.finished:
            raise JournalError(journal.path, "that game is over; there is nothing to resume")
        rules = games.get(journal.header.game)
        handle = open(journal.path, "r+b")  # noqa: SIM115 - held open for the whole game
        # A torn tail is cut off so the next record starts on a boundary.
        handle.truncate(journal.good_length)
        handle.seek(journal.good_length)
        writer = cls(journal.path, handle, rules, sync=sync)
        writer.moves = len(journal.moves)
        return writer

    @functools.cached_property
    def _codec(self) -> Codec:
        """The game's wire codec (a journal holds moves as the wire carries
        them), made when first needed: a host makes its records with its
        own, and making one takes milliseconds, at every game's start."""
        return Wire(self.rules).values

    def move_record(self, seat: int, move: Move, *, at: float | None = None) -> bytes:
        """The bytes of one move (or timeout) record for ``seat``, as
        :meth:`append` writes them."""
        return move_record(self._codec, seat, move, at=at)

    def append(self, seat: int, move: Move, *, at: float | None = None) -> None:
        """Record one accepted move (or timeout) for ``seat``."""
        self.append_record(self.move_record(seat, move, at=at))

    def append_record(self, data: bytes, *, later: bool = False) -> None:
        """Write a move record made by :func:`move_record` (the host makes it
        on its event loop and writes it here on a writer thread); ``later``:
        leave it to :meth:`sync` to put it on disk."""
        self._write(data)
        self.moves += 1
        if not later:
            self.sync()

    def finish(self, outcome: Outcome, *, later: bool = False) -> None:
        """Record how the game ended (``later``: as for :meth:`append_record`)."""
        record = {"kind": END, "winners": list(outcome.winners), "places": list(outcome.places),
                  "reason": outcome.reason, "at": time.time()}
        self._write(_frame(msgpack.packb(record, use_bin_type=True)))
        self.finished = True
        if not later:
            self.sync()

    def sync(self) -> None:
        """Put every record written so far on disk (a no-op when none is waiting).

        A failed sync may have lost what was written (the system need not
        keep it to try again), so the journal takes nothing more: later
        records would be on disk after a record that is not.
        """
        self._hand_to_file()
        if not self._unsynced or not self._sync:
            return
        try:
            _datasync(self._file.fileno())
            if self._new:
                _sync_folder(self.path.parent)
        except OSError as exc:
            self._failed = exc
            raise
        self._unsynced = self._new = False

    def _write(self, data: bytes) -> None:
        if self._failed is not None:
            raise JournalError(self.path, f"could not be put on disk ({self._failed.strerror or self._failed})")
        self._held += data
        self.bytes += len(data)

    def _hand_to_file(self) -> None:
        """Write the records held since the last sync, in one call to the system."""
        if not self._held:
            return
        try:
            self._file.write(self._held)
            self._file.flush()
        except OSError as exc:
            self._failed = exc
            raise
        self._held.clear()
        self._unsynced = True

    def close(self) -> None:
        """Put what is written on disk, then close the file."""
        try:
            if self._failed is None:
                self.sync()
        finally:
            self._file.close()


def _sync_folder(folder: Path) -> None:
    """Put a folder's list of names on disk (a new file's name lives there, not in the file)."""
    if os.name != "posix":
        return  # folders cannot be opened for syncing elsewhere; the file system keeps names itself
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


Job = Callable[[], "JournalWriter | None"]
"""Writes records in a :class:`GroupCommit`'s trip; returns the journal it
wrote to (to be synced), or None."""

Told = Callable[[], None]
"""Called on the loop once a record's future is settled (see :meth:`GroupCommit.write`)."""

Waiter = tuple["asyncio.Future[None]", "Told | None"]
"""What waits for one record: its future, and whom to tell in the same breath."""

Trip = list[tuple[Job, Waiter]]
"""Records handed over together, each with what waits for it."""

IDLE_SECONDS = 1.0
"""How long a :class:`GroupCommit`'s writer thread waits for more work before it ends."""
SWITCH_SECONDS = 0.0002
"""How long, at most, a thread that wants to run Python waits for the one
running to let it (Python's default is 5 ms): see :meth:`GroupCommit._start_thread`."""


class GroupCommit:
    """Puts the journal records of every table of a process on disk together.

    A host hands over each record as the table accepts its move
    (:meth:`write`). Every record handed over during one turn of the event
    loop goes to a writer thread in one trip; the thread writes each to its
    journal, then syncs each journal it touched, one after another, and the
    records of a journal are told on disk as soon as that journal's sync
    returns, not when the whole trip is done. Records handed over while the
    thread is busy go together in its next trip. The future :meth:`write`
    returns is done once the record is on disk, so a host that waits for it
    before telling anyone of the move loses nothing anyone saw.

    One long-lived thread, not a trip to a pool per turn: every hand-over
    between the event loop and a thread waits for the other side's hold on
    the interpreter, and on a busy host those waits, not the disk, were most
    of a record's time (see ``bench.net``). The thread ends after
    :data:`IDLE_SECONDS` with nothing to do, and starts again when needed.

    Records of one journal go to disk in the order they were handed over.
    Tables of one process may share a commit, and so its trips (the
    capacity benchmark's do); a :class:`quackbox.net.host.Host` makes its
    own unless given one.

    Args:
        sync: puts one journal on disk (:meth:`JournalWriter.sync` unless a
            test slows it down or makes it fail).
    """

    def __init__(self, *, sync: Callable[[JournalWriter], None] = JournalWriter.sync) -> None:
        self._sync = sync
        self._waiting: Trip = []
        """Records handed over in this turn of the loop, with what waits for each
        (handed to the thread at the turn's end)."""
        self._trips: queue.SimpleQueue[Trip] = queue.SimpleQueue()
        """Trips for the writer thread."""
        self._lock = threading.Lock()
        """Held to start the thread, and by the thread to end: a trip is never left with none to take it."""
        self._thread: threading.Thread | None = None
        self.trips = 0
        """Trips made so far (``records / trips`` is how much grouping saves)."""
        self.records = 0
        """Records written so far."""

    def write(self, job: Job, told: Told | None = None) -> asyncio.Future[None]:
        """Run ``job`` (which writes a record) in the writer thread's next trip;
        a future done once what it wrote is on disk, or holding the error that
        stopped it.

        ``told`` is called on the loop right after the future is settled, in
        the same turn of the loop: what waits on the future itself (a task, a
        done callback) runs a turn later, and on a busy host a turn of the
        loop is a turn of every table's work.
        """
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        if not self._waiting:
            # At the end of this turn: every record accepted in it goes in one trip.
            loop.call_soon(self._hand_over)
        self._waiting.append((job, (done, told)))
        return done

    def _hand_over(self) -> None:
        trip, self._waiting = self._waiting, []
        with self._lock:
            self._trips.put(trip)
            if self._thread is None:
                self._start_thread()

    def _start_thread(self) -> None:
        """Start the writer thread, and make Python hand over between threads
        within :data:`SWITCH_SECONDS` in this process.

        The writer thread runs Python between its calls to the system (a
        write, a sync), and for each it must wait until the event loop's
        thread lets it: by default up to 5 ms each time the loop is busy,
        several times a trip, while the moves wait. A tenth of that halved
        the time a move took to reach every seat on a busy host (``bench.net``
        at 150 tables); 0.2 ms instead of 0.5 lowered the p50 again at 150 to
        250 tables (in six alternating pairs of runs of six, by 5-29 %, and
        the p99 in five; 0.1 ms did less). It costs nothing while no other
        thread wants to run. It is a setting of the whole process, so it is
        only ever lowered.
        """
        if sys.getswitchinterval() > SWITCH_SECONDS:
            sys.setswitchinterval(SWITCH_SECONDS)
        self._thread = threading.Thread(target=self._work, name="quackbox-journal", daemon=True)
        self._thread.start()

    def _work(self) -> None:
        """The writer thread: trips until none comes for :data:`IDLE_SECONDS`."""
        while True:
            try:
                trip = self._trips.get(timeout=IDLE_SECONDS)
            except queue.Empty:
                with self._lock:
                    if self._trips.empty():
                        if self._thread is threading.current_thread():
                            self._thread = None
                        return
                continue
            while not self._trips.empty():  # everything that came while the disk was busy: one trip
                trip += self._trips.get()
            self._commit(trip)

    def _commit(self, trip: Trip) -> None:
        """One trip: run every job in order, then sync each journal they
        touched, telling its records' waiters as soon as it is on disk."""
        touched: dict[JournalWriter, list[Waiter]] = {}
        for job, waiter in trip:
            try:
                journal = job()
            except Exception as exc:
                _tell([waiter], exc)
                continue
            if journal is None:
                _tell([waiter], None)
            else:
                touched.setdefault(journal, []).append(waiter)
        self.trips += 1
        self.records += len(trip)
        for journal, waiting in touched.items():
            _tell(waiting, self._sync_one(journal))

    def _sync_one(self, journal: JournalWriter) -> Exception | None:
        try:
            self._sync(journal)
        except Exception as exc:
            return exc
        return None


def _tell(waiting: list[Waiter], error: Exception | None) -> None:
    """From the writer thread: settle ``waiting`` on their loops (one call for each loop in a row)."""
    for loop, waiters in itertools.groupby(waiting, key=lambda waiter: waiter[0].get_loop()):
        call_soon_from_thread(loop, _settle, list(waiters), error)


def _settle(waiting: list[Waiter], error: Exception | None) -> None:
    for done, _told in waiting:
        if done.done():
            continue  # its waiter gave up
        if error is None:
            done.set_result(None)
        else:
            done.set_exception(error)
    for _done, told in waiting:
        if told is not None:
            try:
                told()
            except Exception:
                # One waiter's failure must not keep the others from hearing.
                log.exception("a journal record's waiter failed on hearing it is on disk")


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


def _records(data: bytes, decode: _Decoder) -> Iterator[tuple[int, int, dict[str, Any] | None, str]]:
    """(offset, end, record or None, problem) for each record after the magic."""
    offset = len(MAGIC)
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
        else:
            raise JournalError(path, f"has a record of unknown kind {kind!r} at byte {offset}")
        good = end
    if header is None:
        raise JournalError(path, "has no header")
    return Journal(path, header, moves, times, outcome, dropped, good)


def _header(path: Path, record: Mapping[str, Any]) -> Header:
    if record.get("kind") != HEADER:
        raise JournalError(path, "does not begin with a header")
    version = record.get("format")
    if not isinstance(version, int) or isinstance(version, bool):
        raise JournalError(path, "has no format version")
    if version > FORMAT:
        raise JournalError(path, f"was written in format {version}, newer than this quackbox reads ({FORMAT}); "
                                 "upgrade quackbox to open it")
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
    for state, _events in replay(journal, upto):
        pass
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


def _names(directory: os.PathLike[str] | str, game: str, when: float, room: str) -> Iterator[Path]:
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(when))
    base = f"{stamp}-{game}" + (f"-{room}" if room else "")
    folder = Path(directory)
    yield folder / f"{base}{SUFFIX}"
    for counter in itertools.count(2):
        yield folder / f"{base}-{counter}{SUFFIX}"
