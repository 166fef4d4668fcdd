"""Waiting in tests for what happens, not for time.

:class:`Changes` is the way to wait: whoever changes what a test watches (a terminal's
output, a log) calls :meth:`Changes.changed`, and the test wakes then to look again.
:func:`until` polls, for what tells no one when it changes (another process's memory or
files, a kernel's socket buffers); it is the one place tests sleep for a while.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

POLL = 0.02
"""Seconds between two looks of :func:`until`."""


async def until(check: Callable[[], Any], timeout: float = 60.0, what: str = "") -> Any:
    """Wait until ``check()`` (a function, or a coroutine function) is truthy; its value.

    Raises AssertionError naming ``what`` when ``timeout`` seconds pass first."""
    try:
        async with asyncio.timeout(timeout):
            while True:
                value = check()
                if inspect.isawaitable(value):
                    value = await value
                if value:
                    return value
                await asyncio.sleep(POLL)
    except TimeoutError:
        raise AssertionError(f"timed out waiting for {what or check}") from None


class Changes:
    """Something a test watches, told each time it changes; tasks wait until a check over it holds."""

    def __init__(self) -> None:
        self._event = asyncio.Event()

    def changed(self, *_args: object) -> None:
        """What is watched changed: every waiter looks again (takes and ignores any arguments,
        so it can stand as a callback)."""
        self._event.set()

    async def until(self, check: Callable[[], Any], timeout: float = 60.0, what: str = "") -> Any:
        """Wait until ``check()`` is truthy, looking again at each change; its value.

        Raises AssertionError naming ``what`` when ``timeout`` seconds pass first."""
        try:
            async with asyncio.timeout(timeout):
                while not (value := check()):
                    self._event.clear()
                    await self._event.wait()
                return value
        except TimeoutError:
            raise AssertionError(f"timed out waiting for {what or check}") from None

    def feeding(self, sink: Callable[[bytes], object]) -> Callable[[bytes], None]:
        """A callback that passes data to ``sink``, then tells of the change."""

        def feed(data: bytes) -> None:
            sink(data)
            self.changed()

        return feed


class Clock:
    """A clock a test moves by hand (``clock.now += 1``): what is timed by it waits for the test."""

    def __init__(self, now: float = 0.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class _Told(logging.Handler):
    def __init__(self, changes: Changes) -> None:
        super().__init__(logging.DEBUG)
        self.changes = changes

    def emit(self, record: logging.LogRecord) -> None:
        self.changes.changed()


@contextmanager
def logging_changes(logger: str = "") -> Iterator[Changes]:
    """Changes told of each record ``logger`` (the root logger by default) handles."""
    changes = Changes()
    handler = _Told(changes)
    target = logging.getLogger(logger)
    target.addHandler(handler)
    try:
        yield changes
    finally:
        target.removeHandler(handler)


__all__ = ["POLL", "Changes", "Clock", "logging_changes", "until"]
