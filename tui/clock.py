"""The time the table counts by, and its timers, as one thing handed down.

Countdowns, a response window that passes by itself and the pause before the
summary all read the time and set timers. They take both from a
:class:`Clock` given to the app (and by it to the table and the boards), so
a test can hand in a clock it moves itself and see a countdown end, or see
that nothing happened in a window's time, without waiting for it.
"""

from __future__ import annotations

import time
from typing import Callable, Protocol

from textual.message_pump import MessagePump

__all__ = ["Clock", "Stoppable", "WALL"]


class Stoppable(Protocol):
    def stop(self) -> None:
        """Never fire (again)."""


class Clock:
    """Wall-clock time (monotonic seconds) and Textual's timers."""

    def __call__(self) -> float:
        """Now, in seconds."""
        return time.monotonic()

    def after(self, owner: MessagePump, seconds: float, callback: Callable[[], object]) -> Stoppable:
        """Call ``callback`` once, ``seconds`` from now, on ``owner``'s loop (ends with ``owner``)."""
        return owner.set_timer(seconds, callback)

    def every(self, owner: MessagePump, seconds: float, callback: Callable[[], object]) -> Stoppable:
        """Call ``callback`` every ``seconds``, on ``owner``'s loop, until stopped or ``owner`` ends."""
        return owner.set_interval(seconds, callback)


WALL = Clock()
"""The clock a person's table runs on."""
