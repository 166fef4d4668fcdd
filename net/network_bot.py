"""A seat played by one of our bots over the network: ``quackbox join ADDR --bot``.

The bot is run as the host's bot driver runs its own (:func:`quackbox.net.bot_driver.seated`):
a failure is logged, not raised, and a slow bot thinks in a worker process
(:class:`quackbox.net.thinker.Thinkers`), never beside this loop, which keeps the
connection alive meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from typing import Any

from quackbox.core import bots as core_bots
from quackbox.core.rules import GameView, Outcome
from quackbox.net.bot_driver import seated
from quackbox.net.client import Client, NotConnected, Reconnected
from quackbox.net.loops import call_soon_from_thread
from quackbox.net.protocol import HUMAN, OPEN, Error, Lobby, Paused, View
from quackbox.net.thinker import Thinkers
from quackbox.net.tokens import TokenStore

__all__ = ["run_network_bot", "should_start"]

log = logging.getLogger("quackbox.net")


async def run_network_bot(
    url: str,
    name: str = "Bot",
    code: str | None = None,
    kind: str = "heuristic",
    *,
    seed: int | None = None,
    think: float = 0.0,
    token: str | None = None,
    tokens: TokenStore | None = None,
    names: list[str] | None = None,
) -> Outcome | None:
    """Play one seat with a bot over the network until the game ends.

    Marks itself ready; if it holds the starter seat, it starts the game once
    every seat is taken and every connected person is ready.

    Args:
        kind: the bot kind (``quackbox.core.bots.kinds(game)``).
        think: seconds to wait before each move (pacing for people watching).
        names: if given, filled with the seats' names as the game ends, so
            the result can name the winners.

    Returns:
        The outcome, or None if the host closed the table before the end.

    Raises:
        NetError: could not join, or lost the host for good.
    """
    client = await Client.connect(url, name=name, code=code, token=token, tokens=tokens)
    loop = asyncio.get_running_loop()
    thought = asyncio.Event()
    """Set (from the pool's thread) when a slow bot's thought is done."""
    pool = Thinkers((client.game,))

    def done() -> None:
        call_soon_from_thread(loop, thought.set)  # the thought may end after this game's loop

    try:
        # As the host runs its bots (net.bot_driver): a failure is logged, and a slow bot
        # thinks in a worker process, never beside this loop.
        seed = seed if seed is not None else secrets.randbits(32)
        bot = seated(
            core_bots.make(client.game, kind, seed),
            client.seat if client.seat is not None else -1,
            lambda: pool,
            done,
            fallback=lambda: core_bots.make(client.game, core_bots.NORMAL, seed),
        )
        if bot.thinking is not None:
            pool.start()  # warm before the first decision
        await client.ready()
        asked_to_start: Lobby | None = None
        acted_on: int | None = None
        """The seq of the view last answered: a view sent again with the same
        seq (a line for the log, a reconnection) asks for nothing new."""
        async for message in client:
            kind_of = type(message)
            if kind_of is Paused and not message.reason and client.view is not None:
                # Play goes on after a pause: a move refused meanwhile is asked for again.
                message, kind_of, acted_on = client.view, View, None
            if kind_of is Lobby:
                if should_start(message, client.seat) and message != asked_to_start:
                    asked_to_start = message
                    await _quietly(client.start())
            elif kind_of is View:
                view: GameView = message.view
                if bot.remembers and client.seat is not None:
                    bot.observe(list(message.events), client.seat)  # already redacted for this seat
                if view.outcome is not None:
                    if names is not None and client.lobby is not None:
                        names[:] = [s.name for s in client.lobby.seats]
                    return view.outcome
                if client.view is not None and client.view.seq > message.seq:
                    continue  # a newer view is already queued: act on that one
                if message.seq == acted_on:
                    continue
                # A slow bot's thought about a view it must answer starts now, while the
                # pace runs, as the host's bots' do.
                thinking = bot.thinking if view.legal and view.seat in view.waiting_for else None
                if think > 0:
                    if thinking is not None:
                        thinking.think(view, loop.time())
                    await asyncio.sleep(think)
                    if client.view is not None and client.view.seq != message.seq:
                        continue
                thought.clear()
                if thinking is not None:
                    thinking.now = loop.time()
                move = core_bots.decide(bot, view)
                while move is None and thinking is not None:
                    # A slow bot thinks in a worker, off the loop (which keeps the connection
                    # alive): its move once this view's thought is done, or the normal bot's
                    # once the thought is past its deadline.
                    due = thinking.deadline()
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(thought.wait(), None if due is None else max(0.0, due - loop.time()))
                    thought.clear()
                    thinking.now = loop.time()
                    move = core_bots.decide(bot, view)
                if move is not None:
                    acted_on = message.seq
                    await _quietly(client.move(move, message.seq))
            elif kind_of is Reconnected:
                acted_on = None  # the move may have been lost with the connection
            elif kind_of is Error:
                log.info("bot %s: the host refused: %s (%s)", name, message.message, message.code)
        return None
    finally:
        await client.close()
        pool.close()


def should_start(lobby: Lobby, seat: int | None) -> bool:
    """Whether a bot seat holding the starter seat ``seat`` should start the game now: every
    seat is taken, and every person connected is ready."""
    if lobby.started or lobby.over or seat is None or lobby.starter != seat:
        return False
    if any(s.kind == OPEN for s in lobby.seats):
        return False
    return all(s.ready or not s.connected for s in lobby.seats if s.kind == HUMAN and s.seat != seat)


async def _quietly(send: Any) -> None:
    """Send, ignoring a dropped connection (the client reconnects; a fresh view follows)."""
    try:
        await send
    except NotConnected:
        pass
