"""The terminal driver of a door's child: input beyond what a person could make is dropped, never queued,
and a terminal that has hung up ends the child.

Textual's driver reads the terminal on a thread of its own and hands every
event it parses to the app's loop at once, however busy the app is; a
session typed megabytes of keys would queue millions of events (gigabytes).
A door (:mod:`quackbox.net.door`) starts its children with this driver
(through Textual's own ``TEXTUAL_DRIVER`` setting): keys, mouse reports and
pastes pass at most at :data:`~quackbox.net.door_policy.CHILD_EVENTS_PER_SECOND`
after a burst of :data:`~quackbox.net.door_policy.CHILD_EVENT_BURST`, more than a
person makes, and the rest are dropped as they are read. Everything else
(window sizes, focus) passes as it comes.

A child's session ends with its terminal's hangup, whose SIGHUP ends the
child. Should that signal never reach it (ignored, or the child no longer
the terminal's), Textual's input thread would take the hung-up terminal's
end of input for no input yet and read it again and again, half a core for
ever. So the driver watches the terminal itself: once it has hung up (or
its other side has closed), the child ends as the hangup would have ended it.
"""

from __future__ import annotations

import asyncio
import os
import select
import signal
import time
from typing import Any

from textual import events
from textual.drivers.linux_driver import LinuxDriver
from textual.message import Message

from quackbox.net.door_policy import CHILD_EVENT_BURST, CHILD_EVENTS_PER_SECOND
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
    """Textual's driver for Linux and macOS, with input bounded by :class:`InputBound`,
    ending the process when its terminal hangs up."""

    def __init__(self, app: Any, **kwargs: Any) -> None:
        super().__init__(app, **kwargs)
        self._bound = InputBound(time.monotonic())
        self._hangup: select.epoll | None = None
        self._watched_on: asyncio.AbstractEventLoop | None = None
        """The loop the hangup is watched on (the app's own, as it starts)."""

    def send_message(self, message: Message) -> None:
        # Called on the input thread for what it parsed (and on the loop for the rest).
        if self._bound.passes(message, time.monotonic()):
            super().send_message(message)

    def start_application_mode(self) -> None:
        super().start_application_mode()  # type: ignore[no-untyped-call]  # Textual leaves it unannotated
        if os.isatty(self.fileno) and hasattr(select, "epoll"):
            # Registered for no event at all, the terminal still reports what epoll always
            # reports, a hangup or an error, and nothing else: typing never wakes it.
            self._hangup = select.epoll()
            self._hangup.register(self.fileno, 0)
            self._watched_on = asyncio.get_running_loop()  # the app starts its driver on its own loop
            self._watched_on.add_reader(self._hangup.fileno(), self._hung_up)

    def stop_application_mode(self) -> None:
        self._unwatch()
        super().stop_application_mode()

    def _unwatch(self) -> None:
        hangup, self._hangup = self._hangup, None
        loop, self._watched_on = self._watched_on, None
        if hangup is not None:
            if loop is not None and not loop.is_closed():
                loop.remove_reader(hangup.fileno())
            hangup.close()

    def _hung_up(self) -> None:
        """The terminal is gone for good: end as its hangup ends a process (SIGHUP's default
        action), whatever this one was told to do with SIGHUP. Nothing is left to draw on,
        and the seat stays the player's, as after any dropped connection."""
        self._unwatch()
        try:
            signal.signal(signal.SIGHUP, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGHUP})
            os.kill(os.getpid(), signal.SIGHUP)
        finally:
            os._exit(128 + signal.SIGHUP)  # only if the signal did not end it
