"""Rate limits: how fast one connection may talk, and how often one address may guess a room code.

No IO and no clock: every call takes the time it happens. The table asks
these and turns their answers into replies; what the answers mean on the wire
(an error, a goodbye) is the table's business.
"""

from __future__ import annotations

import enum
from collections import deque

__all__ = [
    "CHAT_BURST",
    "CHAT_PER_SECOND",
    "CODE_TRIES",
    "CODE_WINDOW",
    "FLOOD_LIMIT",
    "MESSAGES_PER_SECOND",
    "MESSAGE_BURST",
    "CodeTries",
    "MessageLimits",
    "Rate",
    "TokenBucket",
]

# A token bucket per connection for every message, and a smaller one for chat.
# Generous enough for a bot answering every view at once in a fast game,
# tight for a flood (which sends thousands a second).
MESSAGE_BURST = 200
MESSAGES_PER_SECOND = 100.0
CHAT_BURST = 5
CHAT_PER_SECOND = 1.0
FLOOD_LIMIT = 200
"""Messages dropped for rate before the connection is closed as a flood."""
WARN_EVERY = 1.0
"""Seconds between two "slow down" warnings to the same connection."""
CODE_TRIES = 5
CODE_WINDOW = 60.0
"""At most CODE_TRIES wrong room codes per address per CODE_WINDOW seconds."""
CODE_ADDRESSES = 1024
"""Addresses remembered for wrong codes; past this all but the latest are forgotten."""


class TokenBucket:
    """Up to ``burst`` tokens, refilled at ``per_second``; each use takes one.

    Args:
        now: when the bucket starts, full.
    """

    def __init__(self, burst: float, per_second: float, now: float) -> None:
        self.burst = burst
        self.per_second = per_second
        self.tokens = float(burst)
        self.refilled = now

    def take(self, now: float) -> bool:
        """Take a token at ``now`` if there is one; whether there was."""
        elapsed = max(0.0, now - self.refilled)
        self.refilled = now
        self.tokens = min(self.burst, self.tokens + elapsed * self.per_second)
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


class Rate(enum.Enum):
    """What to do with a message, as :meth:`MessageLimits.message` rules."""

    OK = "ok"
    """Handle it."""
    WARN = "warn"
    """Drop it and tell the sender to slow down."""
    DROP = "drop"
    """Drop it quietly (the sender was warned less than a second ago)."""
    FLOOD = "flood"
    """Drop it and close the connection: too many were dropped."""


class MessageLimits:
    """The limits of one connection: every message, chat lines, and floods."""

    def __init__(self, now: float) -> None:
        self.messages = TokenBucket(MESSAGE_BURST, MESSAGES_PER_SECOND, now)
        self.chat = TokenBucket(CHAT_BURST, CHAT_PER_SECOND, now)
        self.dropped = 0
        """Messages dropped for rate so far."""
        self.warned: float | None = None
        """When the connection was last told to slow down."""

    def message(self, now: float) -> Rate:
        """A message arrived at ``now``: handle it, or how to drop it."""
        if self.messages.take(now):
            return Rate.OK
        self.dropped += 1
        if self.dropped >= FLOOD_LIMIT:
            return Rate.FLOOD
        if self.warned is None or now - self.warned >= WARN_EVERY:
            self.warned = now
            return Rate.WARN
        return Rate.DROP

    def chat_line(self, now: float) -> bool:
        """Whether a chat line at ``now`` may go out (on top of :meth:`message`)."""
        return self.chat.take(now)


class CodeTries:
    """Wrong room codes per address: at most ``tries`` within ``window`` seconds."""

    def __init__(self, tries: int = CODE_TRIES, window: float = CODE_WINDOW) -> None:
        self.tries = tries
        self.window = window
        self._failures: dict[str, deque[float]] = {}

    def blocked(self, address: str, now: float) -> bool:
        """Whether ``address`` has used up its tries for now."""
        failures = self._failures.get(address)
        if failures is None:
            return False
        while failures and failures[0] < now - self.window:
            failures.popleft()
        return len(failures) >= self.tries

    def failed(self, address: str, now: float) -> None:
        """``address`` gave a wrong code at ``now``."""
        failures = self._failures.setdefault(address, deque())
        failures.append(now)
        if len(self._failures) > CODE_ADDRESSES:
            self._failures = {address: failures}  # forget the others rather than grow without end
