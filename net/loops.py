"""Reaching an event loop from another thread.

A slow bot thinks in a thread of its own and tells its loop when it is
done. Such a thread may finish after the loop has closed (a table stopped
while a bot still thought, a client that left mid-thought): then nobody
waits for what it has to say, and it must not raise into a thread that has
no one to report to.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any, Callable

__all__ = ["SWITCH_SECONDS", "call_soon_from_thread", "quick_hand_over"]

SWITCH_SECONDS = 0.0002
"""How long, at most, a thread that wants to run Python waits for the one
running to let it, once :func:`quick_hand_over` was called (Python's default
is 5 ms)."""


def quick_hand_over() -> None:
    """Make Python hand over between threads within :data:`SWITCH_SECONDS`, in this process.

    Called where a thread that runs Python for long (a slow bot thinking)
    starts beside an event loop: the loop gives up the interpreter at every
    call to the system (a send, a wait for sockets), and by default it then
    waits up to 5 ms to get it back from the thinking thread, each time.
    While a search bot thought, the loop woke 5.8 ms late at the median
    (16 ms at the 99th percentile); with 0.2 ms, 0.5 ms (5.5). A setting of
    the whole process, so it is only ever lowered.
    """
    if sys.getswitchinterval() > SWITCH_SECONDS:
        sys.setswitchinterval(SWITCH_SECONDS)


def call_soon_from_thread(loop: asyncio.AbstractEventLoop, callback: Callable[..., object], *args: Any) -> None:
    """Run ``callback(*args)`` on ``loop`` from another thread; nothing once the loop has closed."""
    try:
        loop.call_soon_threadsafe(callback, *args)
    except RuntimeError:
        pass  # the loop has closed: its tables are gone, and nobody waits
