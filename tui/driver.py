"""The terminal driver of a door's child: input beyond what a person could make is dropped, never queued.

Textual's driver reads the terminal on a thread of its own and hands every
event it parses to the app's loop at once, however busy the app is; a
session typed megabytes of keys would queue millions of events (gigabytes).
A door (:mod:`quackbox.net.door`) starts its children with this driver
(through Textual's own ``TEXTUAL_DRIVER`` setting): keys, mouse reports and
pastes pass at most at :data:`~quackbox.net.door.CHILD_EVENTS_PER_SECOND`
after a burst of :data:`~quackbox.net.door.CHILD_EVENT_BURST`, more than a
person makes, and the rest are dropped as they are read. Everything else
(window sizes, focus) passes as it comes.
"""

from __future__ import annotations

import time
from typing import Any

from textual import events
from textual.drivers.linux_driver import LinuxDriver
from textual.message import Message

from quackbox.net.door import CHILD_EVENT_BURST, CHILD_EVENTS_PER_SECOND
from quackbox.net.limits import TokenBucket

__all__ = ["DoorDriver", "InputBound"]


class InputBound:
    """Which input events go on to the app: every one while a person's pace
    allows, none beyond it. Each call takes the time it happens."""

    def __init__(self, now: float, burst: int = CHILD_EVENT_BURST, per_second: float = CHILD_EVENTS_PER_SECOND) -> None:
        self._bucket = TokenBucket(burst, per_second, now)
        self.dropped = 0
        """Input events dropped so far."""

    def passes(self, message: Message, now: float) -> bool:
        if not isinstance(message, (events.InputEvent, events.Paste)):
            return True
        if self._bucket.take(now):
            return True
        self.dropped += 1
        return False


class DoorDriver(LinuxDriver):
    """Textual's driver for Linux and macOS, with input bounded by :class:`InputBound`."""

    def __init__(self, app: Any, **kwargs: Any) -> None:
        super().__init__(app, **kwargs)
        self._bound = InputBound(time.monotonic())

    def send_message(self, message: Message) -> None:
        # Called on the input thread for what it parsed (and on the loop for the rest).
        if self._bound.passes(message, time.monotonic()):
            super().send_message(message)
