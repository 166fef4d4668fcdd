"""Where slow bots think: worker processes of their own, never the event loop's.

A search bot spends about a second of CPU on a decision. In a thread beside
the event loop it would share one interpreter lock with the loop (the
host's, or a person's own table), so every keystroke and frame would wait
for it. :class:`Thinkers` is a pool of worker processes, one per core,
started warm (the games imported) when a table with slow bots is dealt and
ended with it.

A decision is sent whole: the bot (its seeded RNG and memory included,
a few kilobytes; its game's rules travel by name) and the view. The worker
answers the move and the bot as the decision left it; the caller keeps
that bot as the bot from then on, so a bot's state only ever changes in
the order its decisions are taken, and a seeded table replays exactly.
A thought that is no longer wanted (the view changed) is simply not taken:
the bot it would have left behind never existed.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from quackbox.core.bots import Bot
from quackbox.core.rules import GameView, Move

__all__ = ["BrokenProcessPool", "Thinkers", "choose_in_worker"]

log = logging.getLogger("quackbox.net")


def choose_in_worker(bot: Bot[Any], view: GameView) -> tuple[Move, Bot[Any]]:
    """In a worker: ``bot``'s choice at ``view``, and the bot as choosing left it."""
    return bot.choose(view), bot


def _warm(games: tuple[str, ...]) -> int:
    """In a worker: import each game (rules, cards, bots) before the first decision needs it."""
    from quackbox.core import games as known

    for game in games:
        known.get(game)
    return os.getpid()


class Thinkers:
    """A pool of worker processes for slow bots' decisions.

    Args:
        games: the games whose bots will think here (imported in each worker at start).
        workers: how many processes; default one per core.
    """

    def __init__(self, games: tuple[str, ...], workers: int | None = None) -> None:
        self.games = games
        self.workers = workers or os.cpu_count() or 1
        self._pool: ProcessPoolExecutor | None = None
        self.restarts = 0
        """How many times a broken pool (a worker that died) was started again."""

    def start(self) -> None:
        """Start the workers and warm them (the games imported), without waiting for them."""
        if self._pool is not None:
            return
        # Not forked from this process: it holds an event loop, threads and sockets.
        method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
        context = multiprocessing.get_context(method)
        self._pool = ProcessPoolExecutor(self.workers, mp_context=context)
        for _ in range(self.workers):
            self._pool.submit(_warm, self.games)

    def think(self, bot: Bot[Any], view: GameView) -> Future[tuple[Move, Bot[Any]]]:
        """Send ``bot`` to choose at ``view`` in a worker: a future of (its move, the bot after)."""
        pool = self._pool
        if pool is None:
            self.start()
            pool = self._pool
        assert pool is not None
        try:
            return pool.submit(choose_in_worker, bot, view)
        except BrokenProcessPool:
            # A worker died under an earlier decision: the pool is gone with it.
            self.broken()
            self.start()
            assert self._pool is not None
            return self._pool.submit(choose_in_worker, bot, view)

    def broken(self) -> None:
        """A worker died (a decision came back broken): the next decision starts a new pool."""
        if self._pool is not None:
            self.restarts += 1
            log.warning("a bot's worker process died; the bots' workers start again")
        self._stop(wait=False)

    def close(self) -> None:
        """End the workers (a decision still running is dropped)."""
        self._stop(wait=False)

    def _stop(self, *, wait: bool) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=wait, cancel_futures=True)
