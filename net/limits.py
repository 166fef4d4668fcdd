"""Rate limits: how fast one connection may talk, how much one seat may do in a turn, how
quickly one address hears that a room code or a seat token was wrong, and how often the same
error is written to the log.

No IO and no clock: every call takes the time it happens. The table asks
these and turns their answers into replies; what the answers mean on the wire
(an error, a goodbye) is the table's business. Nothing here ever refuses a
message without the table saying so: a refused message is answered.
"""

from __future__ import annotations

import enum
import math
from collections import deque
from dataclasses import dataclass
from typing import Hashable

__all__ = [
    "CHAT_BURST",
    "CHAT_PER_SECOND",
    "FLOOD_BURST",
    "FLOOD_PER_SECOND",
    "FREE_MOVES_PER_TURN",
    "MESSAGES_PER_SECOND",
    "MESSAGE_BURST",
    "SLOW_FREE",
    "SLOW_MAX",
    "SLOW_STEP",
    "SLOW_WINDOW",
    "MessageLimits",
    "REPEAT_INTERVAL",
    "Rate",
    "Repeats",
    "SlowDown",
    "TokenBucket",
    "TurnBudget",
    "Verdict",
]

# A token bucket per connection for every message, and a smaller one per seat
# for chat. Generous enough for a bot answering every view at once in a fast
# game, tight for a flood (which sends thousands a second).
MESSAGE_BURST = 200
MESSAGES_PER_SECOND = 100.0
CHAT_BURST = 5
CHAT_PER_SECOND = 1.0
FLOOD_BURST = 200
FLOOD_PER_SECOND = MESSAGES_PER_SECOND
"""Refused messages a connection may send (a burst, then so many a second)
before it is closed as a flood: a client that resends each refused message
once, after the wait it was given, is never one."""

FREE_MOVES_PER_TURN = 10
"""Moves a seat may make per turn that the rules accept without listing them
in ``legal`` (``Rules.unlisted_moves``: Side Effects' trade offers). How many
may be open at once is the rules' own limit; the host checks no move itself."""

SLOW_FREE = 3
"""Wrong room codes (or seat tokens) an address may give in SLOW_WINDOW
before its next wrong ones are answered late: typos cost nothing."""
SLOW_STEP = 1.0
"""Seconds of delay added for each wrong try past SLOW_FREE."""
SLOW_MAX = 10.0
"""The longest a wrong try waits for its answer."""
SLOW_WINDOW = 60.0
SLOW_ADDRESSES = 1024
"""Addresses remembered; past this all but the latest are forgotten."""
REPEAT_INTERVAL = 60.0
"""Seconds between two log lines of one kind (see :class:`Repeats`)."""
REPEAT_KINDS = 256
"""Kinds of log lines remembered; past this the one logged longest ago is forgotten."""


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
        return self.take_up_to(1, now) == 1

    def take_up_to(self, count: int, now: float) -> int:
        """Take as many of ``count`` tokens as there are at ``now``; how many were taken."""
        elapsed = max(0.0, now - self.refilled)
        self.refilled = now
        self.tokens = min(self.burst, self.tokens + elapsed * self.per_second)
        taken = max(0, min(count, int(self.tokens)))
        self.tokens -= taken
        return taken

    def wait(self) -> float:
        """Seconds from the last :meth:`take` until a token is there again (0: now)."""
        return self.wait_for(1)

    def wait_for(self, count: int) -> float:
        """Seconds from the last take until ``count`` tokens (at most a burst) are there (0: now)."""
        return max(0.0, (min(count, self.burst) - self.tokens) / self.per_second)


class Rate(enum.Enum):
    """What to do with a message, as :meth:`MessageLimits.message` rules."""

    OK = "ok"
    """Handle it."""
    REFUSE = "refuse"
    """Refuse it with ``rate_limited`` and the wait before sending it again."""
    FLOOD = "flood"
    """Refuse it and close the connection: it kept sending after being refused."""


@dataclass(frozen=True, slots=True)
class Verdict:
    """A :class:`Rate` and, when refused, the seconds to wait before sending again."""

    rate: Rate
    retry_after: float = 0.0


_OK = Verdict(Rate.OK)


class MessageLimits:
    """The limits of one connection: every message, and refused messages (floods)."""

    def __init__(self, now: float) -> None:
        self.messages = TokenBucket(MESSAGE_BURST, MESSAGES_PER_SECOND, now)
        self.refusals = TokenBucket(FLOOD_BURST, FLOOD_PER_SECOND, now)

    def message(self, now: float) -> Verdict:
        """A message arrived at ``now``: handle it, or refuse it (and how)."""
        if self.messages.take(now):
            return _OK
        if not self.refusals.take(now):
            return Verdict(Rate.FLOOD)
        # Rounded up to the millisecond: a client that waits as told finds a token.
        return Verdict(Rate.REFUSE, math.ceil(self.messages.wait() * 1000 + 1e-6) / 1000)


class TurnBudget:
    """How many moves a seat made this turn that the rules do not list
    (:data:`FREE_MOVES_PER_TURN`); a new turn starts when the game waits
    for someone else."""

    def __init__(self) -> None:
        self._turn = 0
        self._used: dict[int, int] = {}

    def new_turn(self) -> None:
        self._turn += 1
        self._used.clear()

    def spent(self, seat: int) -> bool:
        """Whether ``seat`` has no such move left this turn."""
        return self._used.get(seat, 0) >= FREE_MOVES_PER_TURN

    def use(self, seat: int) -> None:
        self._used[seat] = self._used.get(seat, 0) + 1


class SlowDown:
    """Wrong tries per address (room codes, seat tokens): the first
    ``free`` in ``window`` seconds are answered at once, each one after that
    ``step`` seconds later than the last, up to ``most``. A right answer is
    never slowed: the delay only makes a guesser who waits for answers wait."""

    def __init__(
        self, free: int = SLOW_FREE, step: float = SLOW_STEP, most: float = SLOW_MAX, window: float = SLOW_WINDOW
    ) -> None:
        self.free = free
        self.step = step
        self.most = most
        self.window = window
        self._failures: dict[str, deque[float]] = {}

    @property
    def addresses(self) -> int:
        """How many addresses' wrong tries are remembered (at most :data:`SLOW_ADDRESSES`)."""
        return len(self._failures)

    def tries(self, address: str) -> int:
        """How many of ``address``'s wrong tries are remembered (they bound its next wait)."""
        return len(self._failures.get(address, ()))

    def failed(self, address: str, now: float) -> float:
        """``address`` gave a wrong try at ``now``: the seconds to wait before answering it."""
        failures = self._failures.get(address)
        if failures is None:
            if len(self._failures) >= SLOW_ADDRESSES:
                self._failures.clear()  # forget the others rather than grow without end
            failures = self._failures[address] = deque()
        while failures and failures[0] <= now - self.window:
            failures.popleft()
        failures.append(now)
        if len(failures) > self.free + self.most / self.step:
            failures.popleft()  # the delay is at its cap: older tries no longer matter
        return min(self.most, self.step * max(0, len(failures) - self.free))


@dataclass(slots=True)
class _Repeat:
    logged: float
    held: int = 0


class Repeats:
    """How often a kind of log line is written: its first time, then at most once each
    ``interval`` seconds, saying how many came meanwhile. A flood of one error (a process out of
    descriptors fails every accept, a crowd of connections is pushed out one by one) is then a
    line a minute, not a line or a traceback each time."""

    def __init__(self, interval: float = REPEAT_INTERVAL) -> None:
        self.interval = interval
        self._kinds: dict[Hashable, _Repeat] = {}

    def __len__(self) -> int:
        """How many kinds are remembered (at most :data:`REPEAT_KINDS`)."""
        return len(self._kinds)

    def seen(self, kind: Hashable, now: float) -> int | None:
        """One more line of ``kind`` at ``now``: how many to write of now (this one and those held
        back since the last), or None to hold it back."""
        repeat = self._kinds.get(kind)
        if repeat is not None and now < repeat.logged + self.interval:
            repeat.held += 1
            return None
        count = 1 + (repeat.held if repeat is not None else 0)
        self._kinds.pop(kind, None)
        while len(self._kinds) >= REPEAT_KINDS:
            del self._kinds[next(iter(self._kinds))]
        self._kinds[kind] = _Repeat(now)  # the most recently logged last
        return count

    def due(self, now: float) -> list[tuple[Hashable, int]]:
        """The kinds with lines held back whose interval is over at ``now``, and how many each:
        written now, they count as logged now."""
        found = [
            (kind, repeat.held)
            for kind, repeat in self._kinds.items()
            if repeat.held and now >= repeat.logged + self.interval
        ]
        for kind, _ in found:
            self._kinds.pop(kind)
            self._kinds[kind] = _Repeat(now)
        return found

    def next_due(self) -> float | None:
        """When the next held-back lines are due; None if none are held back."""
        held = [repeat.logged + self.interval for repeat in self._kinds.values() if repeat.held]
        return min(held, default=None)
