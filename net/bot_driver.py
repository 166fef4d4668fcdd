"""Who plays for the bots at a table, and when: pacing and stand-ins.

Bot seats get their bots when a game is dealt, seeded from the game's seed so
a seeded table replays exactly. A person's seat gets a stand-in bot when the
person has been away for ``away_grace`` on their turn, or went idle (the turn
timer ran out), until they act again. Every bot move is paced: it comes
``bot_delay`` after the last change, which gives people a window to play an
Anytime card or answer a trade before a bot does. A countdown (a response
window, Tremors) is different: it is there for people's reaction time, so
bots answer it at once, and a window closes as soon as the people in it
have answered.

What a bot does is asked the way every runner asks it, with
:func:`quackbox.core.bots.first_reaction` and :func:`quackbox.core.bots.decide`; the table
applies the moves. No clock: every call takes the time. A slow bot (the
search bot thinks for about a second) chooses in a worker process
(:class:`quackbox.net.thinker.Thinkers`, which the host hands in), never
beside the event loop, and starts as soon as the game waits for it, while
the pace runs: it moves at whichever comes later, the pace or its answer.
Until its answer is ready it makes no move, and when it is ready the driver
calls :attr:`BotDriver.on_thought` (from the pool's thread) so the host can
step again. A bot answers one question at a time: what it is shown, or
asked to react to, drops a thought under way, and the bot a thought leaves
behind is taken only with its move; so a seeded table replays exactly. A
worker that dies, or a thought past :data:`THINK_DEADLINE`, is replaced by
the normal bot for that decision, with a line in the log.
"""

from __future__ import annotations

import logging
import random
import secrets
from concurrent.futures import Future
from typing import Any, Callable, Sequence

from quackbox.core import bots as core_bots
from quackbox.core.bots import Bot
from quackbox.core.rules import AnyRules, Event, GameView, Move, RulesError
from quackbox.net.actions import Action
from quackbox.net.config import TableConfig
from quackbox.net.protocol import BOT, HUMAN
from quackbox.net.seats import Seat, Seats
from quackbox.net.thinker import Thinkers

__all__ = ["BotDriver", "seated"]

log = logging.getLogger("quackbox.net")

QUIET_AFTER_NOTHING = 1.0
"""Seconds to wait after a step in which no bot could move, before asking again."""
THINK_DEADLINE = 10.0
"""Seconds a slow bot's thought may take before the normal bot decides in its place."""


class BotDriver:
    """The bots of one table and their pacing.

    Args:
        config: the table's ``bot_kind``, ``bot_delay``, ``away_grace`` and ``turn_timer``.
        rules: the game's rules.
    """

    def __init__(self, config: TableConfig, rules: AnyRules) -> None:
        self.rules = rules
        self.kind = config.bot_kind
        self.delay = config.bot_delay
        self.first_delay = config.first_move_delay
        self.away_grace = config.away_grace
        self.turn_timer = config.turn_timer
        self.bots: dict[int, _Careful] = {}
        """The bot of each bot seat, in seat order."""
        self.stand_ins: dict[int, _Careful] = {}
        """The bots made so far to play for people, by seat."""
        self.standing_in: dict[int, float | None] = {}
        """Seats whose person is away and a stand-in has already played for
        in this absence (by when it began): it goes on at the bots' pace, not
        after another grace per move."""
        self.waiting_since: dict[int, float] = {}
        """When the game last started waiting for each seat it waits for (or the seat last moved)."""
        self.last_change = 0.0
        self.pending = False
        """Whether a bot seat may have something to do since the last change."""
        self.quiet_until = 0.0
        """No stand-in is asked before this (after a step in which nobody could move)."""
        self.held_until = 0.0
        """No bot moves before this (the first moments of a new game)."""
        self.on_thought: Callable[[], object] = lambda: None
        """Called from the pool's thread when a slow bot's choice is ready (the host steps again)."""
        self.thinkers: dict[int, _Thinking] = {}
        """The bot seats whose bots are slow: they start thinking as soon as the game waits for them."""
        self.pool: Thinkers | None = None
        """Where slow bots think (the host hands it in, and ends it); None: a slow bot
        makes one the first time it thinks."""

    def _make(self, seed: int, seat: int) -> _Careful:
        return seated(
            core_bots.make(self.rules.name, self.kind, seed),
            seat,
            self._pool,
            self._thought,
            fallback=lambda: core_bots.make(self.rules.name, core_bots.NORMAL, seed),
        )

    def _pool(self) -> Thinkers:
        if self.pool is None:
            self.pool = Thinkers((self.rules.name,))
        return self.pool

    def close(self) -> None:
        """End the workers slow bots think in (the table has closed)."""
        if self.pool is not None:
            self.pool.close()

    def _thought(self) -> None:
        self.pending = True
        self.on_thought()

    def deal(self, seats: Seats, seed: int, *, now: float | None = None) -> None:
        """Bots for a new (or resumed) game whose seed is ``seed``; a game dealt
        at ``now`` holds them for the table's ``first_move_delay``."""
        if now is not None:
            self.held_until = now + self.first_delay
        seeds = random.Random(seed)
        self.bots = {seat.index: self._make(seeds.getrandbits(32), seat.index) for seat in seats if seat.kind == BOT}
        self.thinkers = {s: thinking for s, bot in self.bots.items() if (thinking := bot.thinking) is not None}
        if self.thinkers:
            self._pool().start()  # warm before the first decision needs a worker
        self.stand_ins = {}
        self.standing_in = {}

    def saw(self, events: list[Event]) -> None:
        """Show each bot seat's bot the ``events`` of a move, redacted for its
        seat, if it keeps a memory (:func:`quackbox.core.bots.observe`)."""
        for seat, bot in self.bots.items():
            core_bots.observe(bot, self.rules, seat, events)

    def changed(self, now: float, state: Any, seats: Seats, *, moved: int | None, before: tuple[int, ...]) -> None:
        """Something changed at ``now`` (``moved``: the seat that moved; ``before``:
        the seats waited for until then): pacing starts again, and so does the
        wait of every seat the game waits for anew."""
        self.last_change = now
        # Only a bot seat reacts or moves on its own after a change; stand-ins
        # for people have their own due times (wakeups). A table of people
        # alone would otherwise take a timer and a tick after every move.
        self.pending = bool(self.bots)
        self.quiet_until = now
        waiting = self.rules.waiting_for(state)
        for seat in seats:
            i = seat.index
            if i not in waiting:
                self.waiting_since.pop(i, None)
            elif i not in before or i == moved or i not in self.waiting_since:
                self.waiting_since[i] = now
        self._think_ahead(state, waiting, now)

    def _think_ahead(self, state: Any, waiting: tuple[int, ...], now: float) -> None:
        """Start every slow bot the game now waits for thinking about its view,
        so that its thought runs while the pace does, not after it. (A bot
        seat's own bot only: a stand-in for a person thinks once it is due.)"""
        seats = [s for s in waiting if s in self.thinkers]
        if not seats or self.rules.outcome(state) is not None:
            return
        for seat, view in zip(seats, self.rules.views(state, seats)):
            if view.legal:
                self.thinkers[seat].think(view, now)

    def stand_in_due(self, seat: Seat) -> float | None:
        """When a bot may play for this person's seat, if it is their move."""
        if seat.idle:
            return self.last_change
        if seat.conn is None and seat.index in self.standing_in and self.standing_in[seat.index] == seat.away_since:
            return self.last_change
        since = self.waiting_since.get(seat.index)
        if seat.conn is None and self.away_grace is not None and since is not None:
            return max(seat.away_since or 0.0, since) + self.away_grace
        return None

    def wakeups(self, state: Any, seats: Seats) -> list[float]:
        """The times at which :meth:`step` or :meth:`timed_out` may have something to do."""
        paced = self._paced(state)
        times = [paced] if self.pending else []
        # A thought past its deadline is given up at once (the normal bot decides instead).
        times += [due for thinking in self._thinking() if (due := thinking.deadline()) is not None]
        for s in self.rules.waiting_for(state):
            seat = seats[s]
            if seat.kind != HUMAN:
                continue
            due = self.stand_in_due(seat)
            if due is not None:
                times.append(max(due, paced, self.quiet_until))
            since = self.waiting_since.get(s)
            if self.turn_timer is not None and not seat.idle and since is not None:
                times.append(since + self.turn_timer)
        return times

    def timed_out(self, now: float, state: Any, seats: Seats) -> list[Seat]:
        """The people, not idle yet, whose turn timer has run out by ``now``."""
        if self.turn_timer is None:
            return []
        out = []
        for s in self.rules.waiting_for(state):
            seat = seats[s]
            since = self.waiting_since.get(s)
            if seat.kind == HUMAN and not seat.idle and since is not None and now >= since + self.turn_timer:
                out.append(seat)
        return out

    def step(self, now: float, state: Any, seats: Seats, play: Callable[[int, Move], list[Action]]) -> list[Action]:
        """One paced step of the bots, if one is due at ``now``; ``play(seat, move)``
        applies a move (RulesError if refused) and says what to send.

        A reaction (from a bot the game is not waiting for) goes alone, as in
        :func:`quackbox.core.bots.next_move`. Otherwise every bot the game waits for
        answers in this step: several seats waited for at once are answering
        one prompt (a response window), and pacing them one by one would only
        make people wait longer.
        """
        for thinking in self._thinking():
            thinking.now = now
        if now < self._paced(state):
            return []
        rules = self.rules
        if self.pending:
            reaction = core_bots.first_reaction(rules, state, self.bots)
            if reaction is not None:
                return self._play(state, *reaction, play)
        out: list[Action] = []
        for s in rules.waiting_for(state):
            if rules.outcome(state) is not None or s not in rules.waiting_for(state):
                continue  # an earlier answer in this step settled it
            bot = self._player(seats[s], now)
            if bot is None:
                continue
            move = core_bots.decide(bot, rules.view(state, s))
            if move is not None:
                out += self._play(state, s, move, play)
            elif s in self.thinkers or (s in self.stand_ins and self.stand_ins[s].thinking is not None):
                # Still thinking: the seats after it wait their turn, so bots answer in seat
                # order whichever thought ends first (a seeded table replays exactly).
                break
        if not out:
            self.pending = False
            # Nobody could move. If a stand-in was due, its seat had no legal
            # move (a bug in the rules): wait for a change, or a second,
            # rather than ask again in a tight loop.
            self.quiet_until = now + QUIET_AFTER_NOTHING
        return out

    def _thinking(self) -> list[_Thinking]:
        """Every slow bot of the table: the bot seats' and the stand-ins'."""
        return [*self.thinkers.values(), *(t for bot in self.stand_ins.values() if (t := bot.thinking) is not None)]

    def _paced(self, state: Any) -> float:
        """The earliest time a bot may move: a pace after the last change (at once
        while a countdown runs: bots need no time to react), and not while held."""
        delay = 0.0 if self.rules.deadline(state) is not None else self.delay
        return max(self.last_change + delay, self.held_until)

    def _player(self, seat: Seat, now: float) -> _Careful | None:
        """The bot that plays seat ``seat`` now, if any: its own, or a due stand-in."""
        if seat.kind == BOT:
            return self.bots.get(seat.index)
        if seat.kind == HUMAN and (due := self.stand_in_due(seat)) is not None and now >= due:
            if seat.index not in self.stand_ins:
                self.stand_ins[seat.index] = self._make(secrets.randbits(32), seat.index)
            if seat.conn is None:
                self.standing_in[seat.index] = seat.away_since
            return self.stand_ins[seat.index]
        return None

    def _play(self, state: Any, seat: int, move: Move, play: Callable[[int, Move], list[Action]]) -> list[Action]:
        try:
            return play(seat, move)
        except RulesError as exc:
            # A bot offering an illegal move is a bug in the bot; play on with
            # the first legal move rather than stall the table.
            log.error("bot at seat %d chose an illegal move %r: %s", seat, move, exc)
            legal = self.rules.legal_moves(state, seat)
            if not legal or legal[0] == move:
                self.pending = False
                return []
            return play(seat, legal[0])


def seated(
    bot: Bot[Any],
    seat: int,
    pool: Callable[[], Thinkers],
    thought: Callable[[], None],
    *,
    fallback: Callable[[], Bot[Any]],
) -> _Careful:
    """``bot`` playing ``seat`` beside an event loop, as the host's table and a
    bot over the network both run it: a failure is logged, not raised, and a
    slow bot thinks in ``pool()``'s workers (its ``choose`` gives None until
    the thought is done, then the move; ``thought()`` is called from the pool's
    thread when it is; ``fallback()`` makes the bot that decides when a worker
    cannot)."""
    if not bot.slow:
        return _Careful(bot, seat)
    return _Careful(_Thinking(bot, pool, thought, fallback, seat), seat)


class _Thinking:
    """A slow bot whose choices are made in a worker process.

    ``think(view, now)`` starts thinking about ``view`` (unless it already is);
    ``choose(view)`` does too, and returns None until the thought is done,
    then the move, and takes the bot the thought left behind. Anything else
    asked of the bot (to react, to see events) drops a thought under way
    first: a bot answers one question at a time, in the order asked.
    """

    def __init__(
        self,
        bot: Bot[Any],
        pool: Callable[[], Thinkers],
        done: Callable[[], None],
        fallback: Callable[[], Bot[Any]],
        seat: int,
    ) -> None:
        self.bot = bot
        self.pool = pool
        self.done = done
        self.fallback = fallback
        self.seat = seat
        self.name = bot.name
        self.reacts = bot.reacts
        self.remembers = bot.remembers
        self.now = 0.0
        """The table's time, as last told (a thought's deadline counts from it)."""
        self._view: GameView | None = None
        self._future: Future[tuple[Move, Bot[Any]]] | None = None
        self._since = 0.0

    def think(self, view: GameView, now: float | None = None) -> None:
        if now is not None:
            self.now = now
        if self._future is not None:
            if self._view == view:
                return
            self._drop()
        self._view = view
        self._since = self.now
        self._future = self.pool().think(self.bot, view)
        self._future.add_done_callback(self._done)

    def _done(self, future: Future[tuple[Move, Bot[Any]]]) -> None:
        if not future.cancelled():
            self.done()

    def deadline(self) -> float | None:
        """When the thought under way is given up, if one is."""
        return self._since + THINK_DEADLINE if self._future is not None else None

    def choose(self, view: GameView) -> Move | None:
        self.think(view)
        future = self._future
        if future is None:
            return None
        if not future.done():
            if self.now >= self._since + THINK_DEADLINE:
                self._drop()
                log.error(
                    "bot %s at seat %d thought for over %g s: the normal bot decided instead",
                    self.name,
                    self.seat,
                    THINK_DEADLINE,
                )
                return self.fallback().choose(view)
            return None
        self._future = self._view = None
        try:
            move, self.bot = future.result()
        except Exception as exc:
            self.pool().broken()
            log.error(
                "bot %s at seat %d could not think (%s): the normal bot decided instead",
                self.name,
                self.seat,
                type(exc).__name__,
            )
            return self.fallback().choose(view)
        return move

    def react(self, view: GameView) -> Move | None:
        self._drop()
        return self.bot.react(view)

    def observe(self, events: Sequence[Event], seat: int) -> None:
        self._drop()
        self.bot.observe(events, seat)

    def _drop(self) -> None:
        """Let go of the thought under way: its answer, and the bot it leaves, are never taken."""
        if self._future is not None:
            self._future.cancel()  # stops only a thought that has not begun
        self._future = self._view = None


class _Careful:
    """A bot whose failures are logged, not raised: a bug in a bot must not stop the table.

    A choice that fails falls back to the first legal move; a reaction that
    fails lets the moment pass.
    """

    def __init__(self, bot: Bot[Any] | _Thinking, seat: int) -> None:
        self.bot = bot
        self.seat = seat

    @property
    def name(self) -> str:
        return self.bot.name

    @property
    def reacts(self) -> bool:
        return self.bot.reacts

    @property
    def remembers(self) -> bool:
        return self.bot.remembers

    @property
    def thinking(self) -> _Thinking | None:
        """The slow bot's thinking, if it is one (``think(view)`` starts a thought ahead)."""
        return self.bot if isinstance(self.bot, _Thinking) else None

    def choose(self, view: GameView) -> Move | None:
        try:
            return self.bot.choose(view)
        except Exception:
            log.exception("bot %s at seat %d failed", self.name, self.seat)
            return view.legal[0]

    def react(self, view: GameView) -> Move | None:
        try:
            return self.bot.react(view)
        except Exception:
            log.exception("bot %s at seat %d failed", self.name, self.seat)
            return None

    def observe(self, events: Sequence[Event], seat: int) -> None:
        self.bot.observe(events, seat)
