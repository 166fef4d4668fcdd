"""The time the table counts by, and its timers, as one thing handed down.

Countdowns, a response window that passes by itself and the pause before the
summary all read the time and set timers. They take both from a
:class:`Clock` given to the app (and by it to the table and the boards), so
a test can hand in a clock it moves itself and see a countdown end, or see
that nothing happened in a window's time, without waiting for it.

Every timer's callback, and every call the app defers to a later refresh, goes
through :func:`while_alive`: a callback never reaches for a screen, a widget
or a session that has gone, which it could while Textual takes an app down
(it closes the screens first and stops the app's own timers last).
"""

from __future__ import annotations

import time
from typing import Any, Callable, Protocol

from textual.message_pump import MessagePump
from textual.types import NoActiveAppError

__all__ = ["Clock", "Stoppable", "WALL", "alive", "while_alive"]


class Stoppable(Protocol):
    def stop(self) -> None:
        """Never fire (again)."""


def alive(owner: MessagePump) -> bool:
    """Whether ``owner`` (the app, a screen or a widget) is still part of a running app."""
    try:
        app = owner.app
    except NoActiveAppError:  # it has ended, or was never started
        return False
    if not app.is_running or app.return_code is not None:
        return False
    return owner is app or (owner.is_running and owner.is_attached)


def while_alive(owner: MessagePump, callback: Callable[..., object]) -> Callable[..., None]:
    """``callback``, made to do nothing once ``owner`` has left its app or the app is ending."""

    def call(*args: Any) -> None:
        if alive(owner):
            callback(*args)

    return call


class Clock:
    """Wall-clock time (monotonic seconds) and Textual's timers."""

    def __call__(self) -> float:
        """Now, in seconds."""
        return time.monotonic()

    def after(self, owner: MessagePump, seconds: float, callback: Callable[[], object]) -> Stoppable:
        """Call ``callback`` once, ``seconds`` from now, on ``owner``'s loop (ends with ``owner``)."""
        return self.start(owner, seconds, while_alive(owner, callback), repeat=False)

    def every(self, owner: MessagePump, seconds: float, callback: Callable[[], object]) -> Stoppable:
        """Call ``callback`` every ``seconds``, on ``owner``'s loop, until stopped or ``owner`` ends."""
        return self.start(owner, seconds, while_alive(owner, callback), repeat=True)

    def start(self, owner: MessagePump, seconds: float, callback: Callable[[], None], *, repeat: bool) -> Stoppable:
        """A timer of ``owner``'s calling ``callback`` in ``seconds`` (and every ``seconds``
        after, if ``repeat``): what a clock that keeps its own time replaces."""
        if repeat:
            return owner.set_interval(seconds, callback)
        return owner.set_timer(seconds, callback)


WALL = Clock()
"""The clock a person's table runs on."""
