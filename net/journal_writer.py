"""Writing a game's journal, and keeping its promise when the disk fails.

A :class:`JournalWriter` holds every record of its game in memory as well as
in the file (a whole game is tens of kilobytes), and knows how much of it is
on disk (:attr:`JournalWriter.durable`). :meth:`JournalWriter.commit` puts
the rest there: it writes what the file lacks and syncs. When a write or a
sync fails (a full disk, a quota, a file-size limit, a folder that may not
be written, a read-only disk, an I/O error), nothing that failed counts as
on disk; the file is cut back to what is, where that can be done, and the
next commit writes everything after it again. So a commit either puts every
record held on disk or raises the :class:`OSError` that stopped it, and a
later commit that succeeds leaves the file exactly as if nothing had failed.

This is what a database does after a failed sync: it does not trust what
the failed call may have left in the system's cache, it writes again from
what it knows.

A writer does its IO on the calling thread and blocks. The host calls it
from a thread of its own (:mod:`quackbox.net.saver`); tools and tests call
it directly. Every call to the system goes through a :class:`Disk`, so a
test can make any of them fail with the errno it chooses.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
from pathlib import Path

from quackbox.core import games
from quackbox.core.rules import AnyRules, Move, Outcome
from quackbox.net import places
from quackbox.net.codec import Codec
from quackbox.net.journal import Header, Journal, JournalError, end_record, header_record, journal_names, move_record
from quackbox.net.protocol import Wire

__all__ = ["DISK", "Disk", "JournalWriter"]

_datasync = getattr(os, "fdatasync", os.fsync)
"""fdatasync where the system has it: an appended record needs its bytes and
the file's new length on disk, not the file's times."""


class Disk:
    """The system calls a journal is written with: the real ones here; a test's
    subclass fails the one it is told to, with the errno it is given."""

    def create(self, path: Path) -> int:
        """A new file at ``path``, private to its owner, open for writing
        (FileExistsError if there is one)."""
        places.private_dir(path.parent)
        return places.open_private(path, os.O_WRONLY | os.O_EXCL)

    def open(self, path: Path) -> int:
        """The existing file at ``path``, open for writing."""
        return os.open(path, os.O_WRONLY | getattr(os, "O_NOFOLLOW", 0))

    def write(self, fd: int, data: bytes, offset: int) -> int:
        """Write ``data`` at ``offset``; how many bytes were written."""
        return os.pwrite(fd, data, offset)

    def sync(self, fd: int) -> None:
        _datasync(fd)

    def truncate(self, fd: int, size: int) -> None:
        os.ftruncate(fd, size)

    def sync_folder(self, folder: Path) -> None:
        """Put a folder's list of names on disk (a new file's name lives there, not in the file)."""
        if os.name != "posix":
            return  # folders cannot be opened for syncing elsewhere; the file system keeps names itself
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    def close(self, fd: int) -> None:
        os.close(fd)

    def remove(self, path: Path) -> None:
        path.unlink(missing_ok=True)


DISK = Disk()


class JournalWriter:
    """Writes one game's journal; see the module's docstring for what it promises.

    Made by :meth:`new` (the file is made by the first commit), :meth:`create`,
    :meth:`create_new` or :meth:`resume`. The host adds records as its table
    accepts moves (:meth:`add_move`, :meth:`add_end`) and commits them in its
    saving thread; :meth:`append` and :meth:`finish` add and commit at once.

    Args:
        sync: False never syncs (for tests and benchmarks of the rest).
    """

    def __init__(
        self,
        header: Header,
        kept: bytes,
        *,
        folder: Path,
        path: Path | None = None,
        when: float = 0.0,
        disk: Disk = DISK,
        sync: bool = True,
    ) -> None:
        self.header = header
        self.folder = folder
        self.path = path
        """The file, once it is made (a new journal's name is taken at its first commit)."""
        self.when = when
        self.disk = disk
        self.sync_enabled = sync
        self._kept = bytearray(kept)
        """Every byte of the journal, on disk or not yet."""
        self.durable = 0
        """How many of those bytes are known to be on disk."""
        self._fd: int | None = None
        self._new = False
        """The file was made and its name is not on disk yet."""
        self.failure: OSError | None = None
        """Why the last commit failed (None: it did not)."""
        self.moves = 0
        """Move records held (on disk or not)."""
        self.finished = False

    # --- making one --------------------------------------------------------------------

    @classmethod
    def new(
        cls, folder: os.PathLike[str] | str, header: Header, when: float, *, disk: Disk = DISK, sync: bool = True
    ) -> JournalWriter:
        """A journal for a new game, to be made in ``folder`` under the first free name of
        :func:`~quackbox.net.journal.journal_names` at its first commit. No IO here."""
        return cls(header, header_record(header), folder=Path(folder), when=when, disk=disk, sync=sync)

    @classmethod
    def create(
        cls, path: os.PathLike[str] | str, header: Header, *, sync: bool = True, disk: Disk = DISK
    ) -> JournalWriter:
        """A new journal at ``path``, its header on disk (JournalError if the name is taken)."""
        path = Path(path)
        writer = cls(header, header_record(header), folder=path.parent, path=path, disk=disk, sync=sync)
        try:
            writer.commit()
        except FileExistsError:
            raise JournalError(path, "a journal by that name exists already") from None
        return writer

    @classmethod
    def create_new(
        cls, folder: os.PathLike[str] | str, header: Header, when: float, *, sync: bool = True, disk: Disk = DISK
    ) -> JournalWriter:
        """:meth:`new`, its header on disk at once."""
        writer = cls.new(folder, header, when, disk=disk, sync=sync)
        writer.commit()
        return writer

    @classmethod
    def resume(cls, journal: Journal, *, sync: bool = True, disk: Disk = DISK) -> JournalWriter:
        """Carry on after ``journal``'s last whole record: a torn tail is cut off, so the
        next record starts on a boundary."""
        if journal.finished:
            raise JournalError(journal.path, "that game is over; there is nothing to resume")
        try:
            kept = journal.path.read_bytes()[: journal.good_length]
        except OSError as exc:
            raise JournalError(journal.path, f"cannot be read ({exc.strerror or exc})") from None
        writer = cls(journal.header, kept, folder=journal.path.parent, path=journal.path, disk=disk, sync=sync)
        writer.durable = len(kept)
        writer.moves = len(journal.moves)
        try:
            writer._fd = disk.open(journal.path)
            disk.truncate(writer._fd, len(kept))
            if sync:
                disk.sync(writer._fd)
        except OSError as exc:
            writer.close()
            raise JournalError(journal.path, f"cannot be written ({exc.strerror or exc})") from None
        return writer

    # --- adding records ----------------------------------------------------------------

    @property
    def is_open(self) -> bool:
        """Whether the journal's file is open (from its first commit until :meth:`close`)."""
        return self._fd is not None

    @property
    def rules(self) -> AnyRules:
        return games.get(self.header.game)

    @functools.cached_property
    def codec(self) -> Codec:
        """The game's wire codec (a journal holds moves as the wire carries them), made
        when first needed: making one takes a while, and the host brings records made
        with its own."""
        return Wire(self.rules).values

    def add_move(self, record: bytes) -> None:
        """Hold a move record (made by :func:`~quackbox.net.journal.move_record`) for the next commit."""
        self._kept += record
        self.moves += 1

    def add_note(self, record: bytes) -> None:
        """Hold a host's note (made by :func:`~quackbox.net.journal.note_record`) for the next commit."""
        self._kept += record

    def add_end(self, record: bytes) -> None:
        """Hold the end record (made by :func:`~quackbox.net.journal.end_record`) for the next commit."""
        self._kept += record
        self.finished = True

    def append(self, seat: int, move: Move, *, at: float | None = None) -> None:
        """Record one accepted move (or timeout) for ``seat``, on disk when this returns."""
        self.add_move(move_record(self.codec, seat, move, at=at))
        self.commit()

    def finish(self, outcome: Outcome) -> None:
        """Record how the game ended, on disk when this returns."""
        self.add_end(end_record(outcome))
        self.commit()

    @property
    def pending(self) -> int:
        """Bytes held that are not known to be on disk."""
        return len(self._kept) - self.durable

    # --- putting them on disk ------------------------------------------------------------

    def commit(self) -> None:
        """Put every record held on disk; the OSError that stopped it, if one did.

        After a failure the file is cut back to what is known to be on disk
        (where the system lets it be), and the next commit writes the rest
        again: nothing a failed call may have left behind is trusted.
        """
        if self.durable == len(self._kept) and self._fd is not None:
            return
        upto = len(self._kept)
        try:
            fd = self._fd
            if fd is None:
                fd = self._fd = self._open()
            elif self.failure is not None:
                self.disk.truncate(fd, self.durable)
            offset = self.durable
            data = memoryview(bytes(self._kept[offset:upto]))
            while data:
                written = self.disk.write(fd, bytes(data), offset)
                if written <= 0:  # no progress and no error: never spin on it
                    raise OSError(errno.EIO, "the disk took nothing of a write")
                data = data[written:]
                offset += written
            if self.sync_enabled:
                self.disk.sync(fd)
                if self._new:
                    self.disk.sync_folder(self.folder)
        except OSError as exc:
            self.failure = exc
            self._cut_back()
            raise
        self._new = False
        self.failure = None
        self.durable = upto

    def _open(self) -> int:
        """Make the file (a new journal: the first free name) or open it again."""
        if self.path is not None and self.durable:
            return self.disk.open(self.path)
        if self.path is not None:
            names = iter([self.path])
        else:
            names = journal_names(self.folder, self.header.game, self.when, self.header.room)
        for path in names:
            try:
                fd = self.disk.create(path)
            except FileExistsError:
                if self.path is not None:
                    raise
                continue  # another game took that name first
            self.path = path
            self._new = True
            return fd
        raise AssertionError("unreachable: the names never run out")  # pragma: no cover

    def _cut_back(self) -> None:
        """After a failure: the file holds only what is on disk, if the system lets us say so
        (what a full disk took is given back; a file that cannot be written stays as it is)."""
        if self._fd is None:
            return
        with contextlib.suppress(OSError):
            self.disk.truncate(self._fd, self.durable)

    def close(self) -> None:
        """Commit what is held (unless the last commit failed: what it held was never
        seen by anyone), and close the file."""
        try:
            if self.failure is None and self._fd is not None:
                self.commit()
        finally:
            fd, self._fd = self._fd, None
            if fd is not None:
                with contextlib.suppress(OSError):
                    self.disk.close(fd)

    def remove(self) -> None:
        """Remove the file (closed first): a game nobody made a move in is not kept, as it
        would list as a saved game with nothing in it."""
        with contextlib.suppress(OSError):
            self.close()
        if self.path is not None:
            with contextlib.suppress(OSError):
                self.disk.remove(self.path)
