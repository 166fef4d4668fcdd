"""What a host process may hold, and what it says when a flood runs against it.

- **Descriptors** (:func:`raise_descriptor_limit`): every connection, every
  session's terminal and its process handle is a descriptor, and a login
  session usually starts a process with a soft limit of 1024 of them, far
  under what the system allows it (the hard limit). ``quackbox host`` raises
  its soft limit to the hard one as it starts, so a table and its doors run
  out of neither before their own budgets (:class:`quackbox.net.gate.Gate`)
  hold a crowd back.
- **Repeated errors** (:func:`quiet_loop_errors`, :class:`QuietLog`): a
  flood makes the same error over and over (asyncio's accept error with its
  traceback for every connection it could not take, the door's notice for
  every connection pushed out). Each kind is logged the first time as it
  comes, then at most once a minute with how many came meanwhile
  (:class:`quackbox.net.limits.Repeats`), so the log says what happened
  without filling the disk.
"""

from __future__ import annotations

import asyncio
import logging
import resource
from typing import Any, Hashable

from quackbox.net.limits import Repeats

__all__ = ["UNLIMITED_DESCRIPTORS", "QuietLog", "describe_error", "quiet_loop_errors", "raise_descriptor_limit"]

log = logging.getLogger("quackbox.host")


UNLIMITED_DESCRIPTORS = 65536
"""The soft limit asked for where the hard limit is none at all (a system that takes no
unlimited soft limit on descriptors)."""


def raise_descriptor_limit() -> tuple[int, int]:
    """Raise this process's soft limit on open descriptors to its hard limit (a process may
    always do so): the soft limit before and after. If the system refuses, it stays as it was."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = UNLIMITED_DESCRIPTORS if hard == resource.RLIM_INFINITY else hard
    if soft == resource.RLIM_INFINITY or soft >= wanted:
        return soft, soft
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    except (OSError, ValueError) as exc:
        log.warning("cannot raise the limit on open files from %d to %d: %s", soft, wanted, exc)
        return soft, soft
    return soft, wanted


def describe_error(context: dict[str, Any]) -> tuple[Hashable, str]:
    """An event loop's error (what its exception handler is given): its kind (what makes two of
    them the same error) and a line that says it."""
    message = str(context.get("message") or "Unhandled error in the event loop")
    exc = context.get("exception")
    if exc is None:
        return (message,), message
    said = str(exc) or type(exc).__name__
    return (message, type(exc).__name__, getattr(exc, "errno", None)), f"{message}: {said}"


def quiet_loop_errors(loop: asyncio.AbstractEventLoop, *, interval: float | None = None) -> None:
    """Log ``loop``'s errors through its exception handler as before, but each kind only the
    first time, then at most once each ``interval`` seconds (a minute) with how many came."""
    repeats = Repeats() if interval is None else Repeats(interval)
    previous = loop.get_exception_handler()
    timer: asyncio.TimerHandle | None = None

    def flush() -> None:
        nonlocal timer
        timer = None
        for kind, count in repeats.due(loop.time()):
            log.error("%s (%d more times since it was last logged)", held_lines.pop(kind, "an error"), count)
        watch()

    def watch() -> None:
        nonlocal timer
        at = repeats.next_due()
        if at is not None and timer is None:
            timer = loop.call_at(at, flush)

    held_lines: dict[Hashable, str] = {}

    def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        kind, line = describe_error(context)
        count = repeats.seen(kind, loop.time())
        if count is None:
            held_lines[kind] = line
            watch()
            return
        if count > 1:
            log.error("%s (%d times since it was last logged)", line, count)
        elif previous is not None:
            previous(loop, context)
        else:
            loop.default_exception_handler(context)

    loop.set_exception_handler(handler)


class QuietLog:
    """Lines of ``logger`` that a flood repeats: each kind logged the first time, then at most
    once each ``interval`` seconds (a minute) with how many came meanwhile. Used on an event
    loop (it keeps the held-back count's line for later with the loop's timer)."""

    def __init__(self, logger: logging.Logger, *, interval: float | None = None) -> None:
        self.logger = logger
        self._repeats = Repeats() if interval is None else Repeats(interval)
        self._held: dict[Hashable, tuple[int, str]] = {}
        self._timer: asyncio.TimerHandle | None = None

    def log(self, level: int, line: str, *, kind: Hashable | None = None) -> None:
        """Log ``line`` at ``level`` unless a line of its ``kind`` (by default the line itself) was
        logged within the interval; then it is counted, and said with the next."""
        loop = asyncio.get_running_loop()
        kind = line if kind is None else kind
        count = self._repeats.seen(kind, loop.time())
        if count is None:
            self._held[kind] = (level, line)
            self._watch(loop)
        elif count > 1:
            self.logger.log(level, "%s (%d times since it was last logged)", line, count)
        else:
            self.logger.log(level, "%s", line)

    def _watch(self, loop: asyncio.AbstractEventLoop) -> None:
        at = self._repeats.next_due()
        if at is not None and self._timer is None:
            self._timer = loop.call_at(at, self._flush, loop)

    def _flush(self, loop: asyncio.AbstractEventLoop) -> None:
        self._timer = None
        for kind, count in self._repeats.due(loop.time()):
            level, line = self._held.pop(kind, (logging.INFO, str(kind)))
            self.logger.log(level, "%s (%d more times since it was last logged)", line, count)
        self._watch(loop)
