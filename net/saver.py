"""Putting a table's journal on disk off the event loop, and saying so when the disk fails.

The host's loop carries every person's moves and every door's keystrokes, so
it never waits on the disk: a :class:`Saver` hands the journal's records to
a thread of its own, which writes and syncs them
(:class:`quackbox.net.journal_writer.JournalWriter`), and tells the loop
once they are on disk. Records handed over in one turn of the loop go to
disk together, with one sync.

When the disk fails, the saver says why, in a sentence for the people at the
table (``on_trouble``), and tries again every :data:`RETRY_SECONDS` until it
can: the records it holds are never dropped, and the futures of those not on
disk stay pending meanwhile (the host sends nothing that tells of them). A
disk that does not answer within :data:`SAVE_DEADLINE` is trouble too, and
the saver waits on: when the answer comes it carries on from there. Once
everything held is on disk, ``on_trouble(None)`` says play may go on.

The log hears of a failure once, and then once a minute with a count, not
at every try.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import queue
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from quackbox.net.journal import Header
from quackbox.net.journal_writer import DISK, Disk, JournalWriter

__all__ = ["RETRY_SECONDS", "SAVE_DEADLINE", "Saver", "trouble_sentence"]

log = logging.getLogger("quackbox.journal")

SAVE_DEADLINE = 2.0
"""Seconds a batch of records may take to reach the disk before the table is
told the disk is not answering (it waits on for the answer all the same)."""
RETRY_SECONDS = 3.0
"""Seconds between two tries to save after a failure."""
LOG_EVERY = 60.0
"""Seconds between two log lines about the same trouble."""


class DiskHung(Exception):
    """The disk did not answer within the deadline (the thread still waits on it)."""


_CAUSES = {
    errno.ENOSPC: "its disk is full",
    errno.EDQUOT: "its disk quota is used up",
    errno.EFBIG: "the game's file has reached the largest size this host may write",
    errno.EACCES: "it may not write in its games folder",
    errno.EPERM: "it may not write in its games folder",
    errno.EROFS: "its disk is read-only",
    errno.EIO: "its disk reports an input/output error",
}


def trouble_sentence(exc: BaseException) -> str:
    """What the people at the table are told when saving fails with ``exc``."""
    if isinstance(exc, DiskHung):
        cause = "its disk is not answering"
    elif isinstance(exc, OSError) and exc.errno in _CAUSES:
        cause = _CAUSES[exc.errno]
    elif isinstance(exc, OSError):
        cause = f"its disk failed ({exc.strerror or exc})"
    else:
        cause = "of a fault in quackbox (the host's log says more)"
    return f"The host cannot save the game: {cause}. Play waits until it can; nothing is lost."


def _described(exc: BaseException, deadline: float) -> str:
    """``exc`` as the host's log says it."""
    if isinstance(exc, DiskHung):
        return f"the disk did not answer within {deadline:g} s"
    if isinstance(exc, OSError) and exc.errno is not None:
        return f"{errno.errorcode.get(exc.errno, exc.errno)}: {exc.strerror or exc}"
    return repr(exc)


@dataclass(frozen=True, slots=True)
class Start:
    """A new game's journal, in ``folder`` (the previous one, if any, is closed)."""

    header: Header
    when: float


@dataclass(frozen=True, slots=True)
class Record:
    """A move record's bytes, or (``end``) the end record's, or (``note``) a host's note's."""

    data: bytes
    end: bool = False
    note: bool = False


@dataclass(frozen=True, slots=True)
class Close:
    """No more records: close the journal (removed if nobody made a move)."""


Op = Start | Record | Close


class Saver:
    """One table's journal, saved by a thread of its own.

    Args:
        folder: where new games' journals are made (None: no new journal is made).
        on_trouble: told a sentence when saving fails, None once all is on disk again.
        on_saved: called on the loop each time records handed over are on disk.
        writer: a resumed game's journal, to carry on.
        disk: the system calls (a test's, to make them fail).
        sync: False never syncs (tests, benchmarks).
    """

    def __init__(
        self,
        folder: str | Path | None,
        *,
        on_trouble: Callable[[str | None], None],
        on_saved: Callable[[], None] = lambda: None,
        writer: JournalWriter | None = None,
        disk: Disk = DISK,
        sync: bool = True,
        deadline: float = SAVE_DEADLINE,
        retry: float = RETRY_SECONDS,
    ) -> None:
        self.folder = Path(folder) if folder is not None else None
        self.on_trouble = on_trouble
        self.on_saved = on_saved
        self.disk = disk
        self.sync = sync
        self.deadline = deadline
        self.retry = retry
        self.writer = writer
        """The current game's journal (changed only in the saving thread)."""
        self._retiring: list[JournalWriter] = []
        """Finished journals still to close (in the saving thread)."""
        self._queue: list[tuple[Op, asyncio.Future[None]]] = []
        self._more = asyncio.Event()
        self._thread = _DiskThread()
        self._task: asyncio.Task[None] | None = None
        self.trouble: str | None = None
        """The sentence the table was told, while saving fails."""
        self._tries = 0
        self._logged = 0.0
        self.saves = 0
        """Batches put on disk so far."""
        self.kept: tuple[Path, bool] | None = None
        """The last journal closed with a move in it, and whether its game was over."""

    @property
    def path(self) -> Path | None:
        """The current journal's file, once it is made."""
        writer = self.writer
        return writer.path if writer is not None else None

    @property
    def saved_game(self) -> tuple[Path, bool] | None:
        """The game on disk now, if it has a move: its journal, and whether it is over."""
        writer = self.writer
        if writer is not None and writer.moves and writer.path is not None and writer.durable:
            return writer.path, writer.finished
        return self.kept

    @property
    def busy(self) -> bool:
        """Whether records handed over are not on disk yet."""
        return bool(self._queue) or self._saving

    _saving = False

    def start(self) -> None:
        """Start saving (on the running loop)."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name="quackbox journal saver")

    def save(self, op: Op) -> asyncio.Future[None]:
        """Hand ``op`` over: a future done once it is on disk (it never fails: a disk
        that fails is tried again until it takes the records)."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.append((op, done))
        self._more.set()
        return done

    async def close(self, timeout: float) -> None:
        """Close the journal once what was handed over is on disk (within ``timeout``
        seconds; while the disk fails, at once: what is not on disk was never told
        to anyone), then stop the thread."""
        closing = self.save(Close())
        if self.trouble is None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(closing), timeout)
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if not closing.done() and not self._thread.stuck:
            # Saving failed or took too long: let go of the file as it is.
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._thread.run(self._let_go), timeout)
        self._thread.stop()

    # --- the loop's side ------------------------------------------------------------------

    async def _run(self) -> None:
        while True:
            await self._more.wait()
            self._more.clear()
            batch, self._queue = self._queue, []
            if not batch:
                continue
            self._saving = True
            try:
                await self._put_on_disk([op for op, _done in batch])
            finally:
                self._saving = False
            self.saves += 1
            for _op, done in batch:
                if not done.done():
                    done.set_result(None)
            if self.trouble is not None:
                self._recovered()
            self.on_saved()

    async def _put_on_disk(self, ops: list[Op]) -> None:
        """Until the batch is on disk: its records taken in, then committed, tried again
        after each failure (the records are taken in once, so a retry only commits)."""
        first = True
        while True:
            work = self._take_and_commit if first else self._commit
            running = self._thread.run(work, ops) if first else self._thread.run(work)
            first = False
            try:
                try:
                    await asyncio.wait_for(asyncio.shield(running), self.deadline)
                except TimeoutError:
                    self._failed(DiskHung())
                    await running
                return
            except Exception as exc:
                self._failed(exc)
            await asyncio.sleep(self.retry)

    def _failed(self, exc: BaseException) -> None:
        self._tries += 1
        sentence = trouble_sentence(exc)
        now = time.monotonic()
        what = _described(exc, self.deadline)
        if self.trouble is None:
            self._logged = now
            if isinstance(exc, (OSError, DiskHung)):
                log.error(
                    "cannot save the game journal %s (%s); play is paused until it can", self.path or self.folder, what
                )
            else:
                log.error("cannot save the game journal (a bug); play is paused", exc_info=exc)
        elif now - self._logged >= LOG_EVERY:
            self._logged = now
            log.error("still cannot save the game journal after %d tries (%s)", self._tries, what)
        if sentence != self.trouble:
            self.trouble = sentence
            self.on_trouble(sentence)

    def _recovered(self) -> None:
        log.warning("the game journal %s is on disk again after %d failed tries; play goes on", self.path, self._tries)
        self.trouble = None
        self._tries = 0
        self.on_trouble(None)

    # --- the saving thread's side ---------------------------------------------------------

    def _take_and_commit(self, ops: list[Op]) -> None:
        for op in ops:
            if isinstance(op, Start):
                if self.writer is not None:
                    self._retiring.append(self.writer)
                self.writer = (
                    JournalWriter.new(self.folder, op.header, op.when, disk=self.disk, sync=self.sync)
                    if self.folder is not None
                    else None
                )
            elif isinstance(op, Record):
                if self.writer is not None:
                    if op.end:
                        self.writer.add_end(op.data)
                    elif op.note:
                        self.writer.add_note(op.data)
                    else:
                        self.writer.add_move(op.data)
            elif self.writer is not None:
                self._retiring.append(self.writer)
                self.writer = None
        self._commit()

    def _commit(self) -> None:
        while self._retiring:
            old = self._retiring[0]
            if old.moves:
                old.close()
                if old.path is not None:
                    self.kept = (old.path, old.finished)
            else:
                old.remove()
            self._retiring.pop(0)
        if self.writer is not None:
            self.writer.commit()

    def _let_go(self) -> None:
        for writer in [*self._retiring, self.writer]:
            if writer is not None:
                with contextlib.suppress(OSError):
                    writer.close()
        self._retiring = []
        self.writer = None


class _DiskThread:
    """A daemon thread that runs one call at a time for the loop (a disk that hangs for
    good holds up only this thread, and never the process's exit)."""

    def __init__(self) -> None:
        self._calls: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._busy_since: float | None = None

    @property
    def stuck(self) -> bool:
        """Whether a call has been running for longer than a save may take."""
        since = self._busy_since
        return since is not None and time.monotonic() - since > SAVE_DEADLINE

    def run(self, call: Callable[..., None], *args: Any) -> asyncio.Future[None]:
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        if self._thread is None:
            self._thread = threading.Thread(target=self._work, name="quackbox-journal", daemon=True)
            self._thread.start()
        self._calls.put((loop, done, call, args))
        return done

    def stop(self) -> None:
        if self._thread is not None:
            self._calls.put(None)
            self._thread = None

    def _work(self) -> None:
        while True:
            item = self._calls.get()
            if item is None:
                return
            loop, done, call, args = item
            self._busy_since = time.monotonic()
            try:
                call(*args)
            except BaseException as exc:  # handed to the loop, which says what failed
                _settle(loop, done, exc)
            else:
                _settle(loop, done, None)
            finally:
                self._busy_since = None


def _settle(loop: asyncio.AbstractEventLoop, done: asyncio.Future[None], exc: BaseException | None) -> None:
    def settle() -> None:
        if done.done():
            return
        if exc is None:
            done.set_result(None)
        else:
            done.set_exception(exc)

    with contextlib.suppress(RuntimeError):  # the loop has closed: nobody waits any more
        loop.call_soon_threadsafe(settle)
