"""Reaching an event loop from another thread.

A slow bot's worker answers through the pool's thread and tells its loop
when a thought is done; the journal's saving thread does the same. Such a
thread may finish after the loop has closed (a table stopped while a bot
still thought, a client that left mid-thought): then nobody waits for what
it has to say, and it must not raise into a thread that has no one to
report to.
"""

from __future__ import annotations

import asyncio
from typing import Any, Callable

__all__ = ["call_soon_from_thread"]


def call_soon_from_thread(loop: asyncio.AbstractEventLoop, callback: Callable[..., object], *args: Any) -> None:
    """Run ``callback(*args)`` on ``loop`` from another thread; nothing once the loop has closed."""
    try:
        loop.call_soon_threadsafe(callback, *args)
    except RuntimeError:
        pass  # the loop has closed: its tables are gone, and nobody waits
