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
are written together in one trip at the end of that turn, each to its
journal, and put on disk with one sync, of a :class:`CommitLog` that holds
the same bytes. After a power cut, :func:`recover` writes back into a journal what
only the log kept; the commands that read journals call it first.

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
import secrets
import struct
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
from quackbox.net.protocol import Wire

try:
    import fcntl
except ImportError:  # pragma: no cover - not a POSIX system: no commit logs there
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger("quackbox.journal")

__all__ = [
    "FORMAT",
    "CommitLog",
    "GroupCommit",
    "Journal",
    "JournalError",
    "JournalWriter",
    "Header",
    "read",
    "rebuild",
    "recover",
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
        the sync writes them in one call to the system."""
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
        if sync:
            # On disk before any record after it: a commit log's entries go where this cut leaves off.
            _datasync(handle.fileno())
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
        as the table accepts the move, and writes it here in the commit's
        trip); ``later``: leave it to :meth:`sync` to put it on disk."""
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

    @property
    def syncs_alone(self) -> bool:
        """Whether only a sync of its own will do: a new journal (its name in
        its folder must go on disk too), or one that never syncs."""
        return self._new or not self._sync

    def write_out(self) -> tuple[int, bytes]:
        """Hand the records held to the file without putting them on disk
        (a :class:`CommitLog` does that): where in the file they went, and
        their bytes."""
        data = bytes(self._held)
        self._hand_to_file()
        return self.bytes - len(data), data

    def fail(self, exc: OSError) -> None:
        """What was written could not be put on disk (by a commit log's
        sync): the journal takes nothing more, as after a failed sync."""
        self._failed = exc

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


LOG_MAGIC = b"QUACKBOX COMMIT LOG\n"
LOG_SUFFIX = ".qbl"
LOG_LIMIT = 4 << 20
"""Bytes a commit log holds before a checkpoint empties it (tens of
thousands of moves: a checkpoint syncs each journal written since the last
one, and there are as many as the tables that played meanwhile)."""


class CommitLog:
    """What makes one trip's records durable with one sync, for every
    journal in one folder.

    Each journal's new records are handed to its own file (no sync), and
    the same bytes, with the journal's name and where in it they went,
    are appended to the log as one entry; then the log alone is synced. So
    a trip that wrote to fifty journals costs one sync, not fifty. After a
    power cut, a journal may lack records that were told (they were in the
    page cache only); :func:`recover` writes them back from the log before
    anyone reads the journal.

    A journal's records before its first entry in the log are on disk by
    its own syncs: a new journal's first trip syncs the journal itself (its
    name in the folder must go on disk too), and a :meth:`checkpoint`,
    once the log passes :data:`LOG_LIMIT`, syncs every journal the log
    covers and then empties the log.

    The log is ``commit-<pid>-<random>.qbl`` in the journals' folder, 0600
    (it holds the moves), beginning :data:`LOG_MAGIC`, then one record per
    entry framed as journal records are: a map of ``journal`` (a file name
    in the same folder), ``at`` (a byte offset) and ``data`` (bytes). Its
    process holds an exclusive ``flock`` on it for as long as it lives, so
    :func:`recover` never touches the log of a living host.
    """

    def __init__(self, folder: Path) -> None:
        places.private_dir(folder)
        self.path = folder / f"commit-{os.getpid()}-{secrets.token_hex(4)}{LOG_SUFFIX}"
        fd = places.open_private(self.path, os.O_RDWR | os.O_APPEND | os.O_EXCL)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            _write_all(fd, LOG_MAGIC)
            _datasync(fd)
            _sync_folder(folder)  # the log's own name on disk before any record relies on it
        except BaseException:
            os.close(fd)
            self.path.unlink(missing_ok=True)
            raise
        self._fd = fd
        self.size = len(LOG_MAGIC)
        self._entries = bytearray()
        self.pending: list[JournalWriter] = []
        """Journals with records in this trip's entries, on disk at the next :meth:`sync`."""
        self.covered: set[JournalWriter] = set()
        """Journals with records on disk in this log alone (since the last checkpoint)."""

    def add(self, journal: JournalWriter) -> None:
        """Hand ``journal``'s held records to its file, and the same bytes to this log's next sync."""
        at, data = journal.write_out()
        if data:
            entry = {"journal": journal.path.name, "at": at, "data": data}
            self._entries += _frame(msgpack.packb(entry, use_bin_type=True))
        self.pending.append(journal)

    def sync(self) -> None:
        """Append the entries added since the last sync in one write, and put the log on disk."""
        if self._entries:
            _write_all(self._fd, self._entries)
            self.size += len(self._entries)
            self._entries.clear()
            _datasync(self._fd)
        self.covered.update(self.pending)
        self.pending.clear()

    def checkpoint(self, sync: Callable[[JournalWriter], None] = JournalWriter.sync) -> None:
        """Sync every journal the log covers, each by itself (with ``sync``), then empty the log."""
        for journal in list(self.covered):
            sync(journal)  # a closed journal was synced as it closed: nothing waits
            self.covered.discard(journal)
        os.ftruncate(self._fd, len(LOG_MAGIC))
        _datasync(self._fd)
        self.size = len(LOG_MAGIC)

    def abandon(self) -> None:
        """Close the log as it is (its lock goes with it): what it holds stays for :func:`recover`."""
        os.close(self._fd)

    def remove(self, sync: Callable[[JournalWriter], None] = JournalWriter.sync) -> None:
        """Put what the log holds into its journals (:meth:`checkpoint`), then delete it."""
        self.checkpoint(sync)
        self.path.unlink(missing_ok=True)
        os.close(self._fd)


def _write_all(fd: int, data: bytes | bytearray) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def recover(folder: os.PathLike[str] | str) -> list[str]:
    """Write back into their journals what the commit logs of hosts that
    died hold in ``folder`` (a power cut may have taken from a journal
    records whose moves its players had seen), then remove those logs. A
    log whose host still lives (its lock is held) is left alone, and so is
    one damaged before its last entry (what follows the damage cannot be
    trusted, nor thrown away). Returns one sentence per journal repaired or
    not repairable, and per log kept.

    An entry is written where it says only if the journal there differs
    and nothing after it does (the journal lost its tail); then the
    journal is cut after the entry, as any record after it was never told
    to anyone, and the log's later entries follow. A journal that is gone
    is left gone (a game nobody moved in is removed on purpose).
    """
    folder = Path(folder)
    notes: list[str] = []
    if fcntl is None or not folder.is_dir():
        return notes
    for path in sorted(folder.glob(f"*{LOG_SUFFIX}")):
        try:
            fd = os.open(path, os.O_RDWR | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            continue
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                continue  # a living host's
            problem = places.exposed(path)
            if problem:
                notes.append(f"{path}: left alone: {problem}")
                continue
            with open(fd, "rb", closefd=False) as handle:
                data = handle.read()
            if not data.startswith(LOG_MAGIC):
                notes.append(f"{path}: left alone: it is not a quackbox commit log")
                continue
            damage = _replay_log(folder, data, notes)
            if damage:
                notes.append(f"{path}: kept: {damage}")
                continue
            path.unlink()
            _sync_folder(folder)
        finally:
            os.close(fd)
    return notes


def _replay_log(folder: Path, data: bytes, notes: list[str]) -> str:
    """Apply a dead host's log (see :func:`recover`), adding a sentence to
    ``notes`` per journal repaired or not repairable; the damage that stopped
    it short of the log's end, or "". A torn last entry (the host died
    writing it, before anyone was told) is no damage: it is ignored."""
    repaired: dict[Path, int] = {}
    broken: dict[Path, str] = {}
    damage = ""
    for offset, end, entry, problem in _records(data, _Decoder(), start=len(LOG_MAGIC)):
        name, at, chunk = (entry.get("journal"), entry.get("at"), entry.get("data")) if entry else (None, None, None)
        if (not isinstance(name, str) or Path(name).name != name or not name.endswith(SUFFIX)
                or type(at) is not int or at < 0 or not isinstance(chunk, bytes)):
            if end < len(data) or entry is not None:
                damage = f"damaged at byte {offset} ({problem or 'not an entry quackbox writes'})"
            break
        path = folder / name
        if path in broken or not path.exists():
            continue
        try:
            problem = places.exposed(path)
            if problem:
                broken[path] = problem
                continue
            with os.fdopen(os.open(path, os.O_RDWR | getattr(os, "O_NOFOLLOW", 0)), "r+b") as handle:
                size = handle.seek(0, os.SEEK_END)
                if size < at:
                    broken[path] = f"it ends at byte {size}, before a record the log holds at byte {at}"
                    continue
                handle.seek(at)
                if handle.read(len(chunk)) == chunk:
                    continue
                if size > at + len(chunk):
                    # More after it, and different: not a lost tail but another game's records.
                    broken[path] = f"it holds other records where the log has some, at byte {at}"
                    continue
                handle.seek(at)
                handle.write(chunk)
                handle.truncate()
                handle.flush()
                _datasync(handle.fileno())
            repaired[path] = repaired.get(path, 0) + sum(1 for _ in _records(chunk, _Decoder(), start=0))
        except OSError as exc:
            broken[path] = f"could not be written ({exc.strerror or exc})"
    notes += [f"{path}: put back {count} record(s) a crash took, from a commit log" for path, count in repaired.items()]
    notes += [f"{path}: not repaired from a commit log: {why}" for path, why in broken.items()]
    return damage


Job = Callable[[], "JournalWriter | None"]
"""Writes records in a :class:`GroupCommit`'s trip; returns the journal it
wrote to (to be synced), or None."""

Told = Callable[[], None]
"""Called once a record's future is settled (see :meth:`GroupCommit.write`)."""

Waiter = tuple["asyncio.Future[None]", "Told | None"]
"""What waits for one record: its future, and whom to tell in the same breath."""

Trip = list[tuple[Job, Waiter]]
"""Records handed over together, each with what waits for it."""

class GroupCommit:
    """Puts the journal records of every table of an event loop on disk together.

    A host hands over each record as the table accepts its move
    (:meth:`write`). At the end of that turn of the event loop, the commit
    makes one trip for every record handed over during the turn: it writes
    each to its journal's file, and the trip's records of every journal in
    a folder go on disk with one sync, of that folder's :class:`CommitLog`
    (a new journal's first records, with its name in the folder, by a sync
    of the journal itself). The future :meth:`write` returns is done once
    its record is on disk, so a host that waits for it before telling
    anyone of the move loses nothing anyone saw. Records of one journal go
    to disk in the order they were handed over.

    One sync per trip, not one per journal it touched: a trip carrying one
    move for each of 50 journals took 12.9 ms (median) with a sync per
    journal, and 1.9-3.1 ms with the log (``bench.journal``).

    The trip runs on the loop's own thread, in a callback of its own after
    the turn. Every move waits for its record's sync anyway, and a trip is
    one sync however many tables it carries. A writer thread would keep the
    loop free during the sync, but each hand-over between the loop and a
    thread waits for the other's hold on the interpreter and, on a host
    whose cores are busy, for a core: in alternating runs at 150 to 250
    tables, the median of the runs' p50 (a move reaching every seat) was
    8.7 ms with the trips on the loop, 15.6 with a writer thread, 4.8 with
    no journal (``bench.net``). The price: while the log syncs, the loop
    does nothing else, so a slow disk holds up each turn that has moves in
    it by one sync (lobbies and chat included), and a disk that hangs holds
    up the host.

    Tables of one event loop may share a commit, and so its trips (the
    capacity benchmark's do); a :class:`quackbox.net.host.Host` makes its
    own unless given one. A process without ``flock`` (not POSIX) keeps no
    log: each journal a trip touched is synced by itself.

    Args:
        sync: puts one journal on disk (:meth:`JournalWriter.sync` unless a
            test slows it down or makes it fail).
        sync_log: puts a trip's log entries on disk (:meth:`CommitLog.sync`,
            likewise).
    """

    def __init__(
        self,
        *,
        sync: Callable[[JournalWriter], None] = JournalWriter.sync,
        sync_log: Callable[[CommitLog], None] = CommitLog.sync,
    ) -> None:
        self._sync = sync
        self._sync_log = sync_log
        self._logs: dict[Path, CommitLog] = {}
        """Each folder's log, made at the first trip that needs it."""
        self._no_log: set[Path] = set()
        """Folders where a log could not be made."""
        self._waiting: Trip = []
        """Records handed over in this turn of the loop, with what waits for each."""
        self.trips = 0
        """Trips made so far (``records / trips`` is how much grouping saves)."""
        self.records = 0
        """Records written so far."""
        self.syncs = 0
        """Syncs made so far, of journals and of logs, those that empty a log
        included (``syncs / records``: what each record cost the disk)."""
        self.sync_seconds = 0.0
        """Time spent in those syncs so far: the loop waits them out, so this is
        time every table of the loop was held up (``bench.net`` reports its share)."""

    def write(self, job: Job, told: Told | None = None) -> asyncio.Future[None]:
        """Run ``job`` (which writes a record) in the trip at the end of this
        turn of the loop; a future done once what it wrote is on disk, or
        holding the error that stopped it.

        ``told`` is called right after the future is settled, in the same
        callback: what waits on the future itself (a task, a done callback)
        runs a turn later, and on a busy host a turn of the loop is a turn
        of every table's work.
        """
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        if not self._waiting:
            # Behind every callback already due: all the records of this turn go in one trip.
            loop.call_soon(self._trip)
        self._waiting.append((job, (done, told)))
        return done

    def _trip(self) -> None:
        trip, self._waiting = self._waiting, []
        try:
            self._commit(trip)
        except Exception as exc:
            # A bug: the trip's waiters hear of it (else they, and their moves, would wait forever).
            log.exception("the journal failed a trip")
            _settle([waiter for _job, waiter in trip], exc)

    def _commit(self, trip: Trip) -> None:
        """One trip: run every job in order, then put what they wrote on disk
        (each folder's journals by one sync of its log, a journal that syncs
        alone by its own), telling the waiters as soon as theirs is."""
        touched: dict[JournalWriter, list[Waiter]] = {}
        for job, waiter in trip:
            try:
                journal = job()
            except Exception as exc:
                _settle([waiter], exc)
                continue
            if journal is None:
                _settle([waiter], None)
            else:
                touched.setdefault(journal, []).append(waiter)
        self.trips += 1
        self.records += len(trip)
        logged: dict[CommitLog, list[tuple[JournalWriter, list[Waiter]]]] = {}
        for journal, waiting in touched.items():
            commit_log = None if journal.syncs_alone else self._log_for(journal.path.parent)
            if commit_log is None:
                _settle(waiting, self._sync_one(journal))
                continue
            try:
                commit_log.add(journal)
            except Exception as exc:
                _settle(waiting, exc)
                continue
            logged.setdefault(commit_log, []).append((journal, waiting))
        for commit_log, entries in logged.items():
            self._sync_entries(commit_log, entries)

    def _log_for(self, folder: Path) -> CommitLog | None:
        """``folder``'s log, made if need be; None where there is none to make
        (no ``flock``, or it cannot be made: then each journal syncs itself)."""
        commit_log = self._logs.get(folder)
        if commit_log is None and fcntl is not None and folder not in self._no_log:
            try:
                commit_log = self._logs[folder] = CommitLog(folder)
            except OSError as exc:
                log.error("cannot keep a commit log in %s (%s); each journal is synced by itself",
                          folder, exc.strerror or exc)
                self._no_log.add(folder)
        return commit_log

    def _sync_entries(self, commit_log: CommitLog, entries: list[tuple[JournalWriter, list[Waiter]]]) -> None:
        """Sync the log, tell the entries' waiters, and empty the log into the journals once it is long."""
        try:
            self._timed(self._sync_log, commit_log)
        except Exception as exc:
            # What was written may not be on disk: those journals take nothing more.
            # The log is left for recover() (its lock goes as it closes); the next trip starts another.
            for journal, _waiting in entries:
                journal.fail(exc if isinstance(exc, OSError) else OSError(str(exc)))
            self._drop_log(commit_log)
            _settle([waiter for _journal, waiting in entries for waiter in waiting], exc)
            return
        _settle([waiter for _journal, waiting in entries for waiter in waiting], None)
        if commit_log.size > LOG_LIMIT:
            try:
                commit_log.checkpoint(self._sync_journal)
            except Exception as exc:
                # It still holds every record, on disk: left for recover(); the next trip starts another.
                log.error("cannot empty the commit log %s into its journals (%s)", commit_log.path, exc)
                self._drop_log(commit_log)

    def close_logs(self) -> None:
        """A job (for :meth:`write`) for when no more records will come: put
        what each log holds into its journals and delete the logs. A log
        that cannot be emptied is left for :func:`recover`."""
        logs, self._logs = list(self._logs.values()), {}
        for commit_log in logs:
            try:
                commit_log.remove(self._sync_journal)
            except Exception as exc:
                log.error("cannot empty the commit log %s into its journals (%s)", commit_log.path, exc)
                commit_log.abandon()

    def _drop_log(self, commit_log: CommitLog) -> None:
        self._logs.pop(commit_log.path.parent, None)
        try:
            commit_log.abandon()
        except OSError:
            pass

    def _sync_one(self, journal: JournalWriter) -> Exception | None:
        try:
            self._sync_journal(journal)
        except Exception as exc:
            return exc
        return None

    def _sync_journal(self, journal: JournalWriter) -> None:
        self._timed(self._sync, journal)

    def _timed(self, sync: Callable[[Any], None], what: JournalWriter | CommitLog) -> None:
        """``sync(what)``, counted in :attr:`syncs` and :attr:`sync_seconds`."""
        self.syncs += 1
        started = time.perf_counter()
        try:
            sync(what)
        finally:
            self.sync_seconds += time.perf_counter() - started


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


def _records(data: bytes, decode: Callable[[bytes], Any], start: int = len(MAGIC)
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
