"""How long a person waits for their turn at a table of three bots.

    python -m bench.turns [--game side-effects] [--levels hard normal] [--turns 8]
                          [--bot-delay 0.8] [--seed 1]

For each level, a host in this process (as ``quackbox play`` runs one) with
three bot seats of that level at their usual pace (``--bot-delay``, the
default of ``quackbox host``), and one person: a client that answers each
view at once with the heuristic bot. Times, from the moment the person sends
the move that ends their turn (after it, the game no longer waits for them)
to the view that waits for them again, over ``--turns`` turns (further games,
same seeds, as needed). Prints JSON: per level the mean, median and longest
wait in seconds, and the bot moves made in a wait on average; with the load
average before and after, since the search bots' threads share the machine.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import sys
import time
from typing import Any

from quackbox.core import bots as core_bots
from quackbox.core import games
from quackbox.core.bots import decide
from quackbox.net.client import Client
from quackbox.net.host import Host, HostConfig
from quackbox.net.protocol import View


async def waits_in_one_game(
    game: str, level: str, seed: int, bot_delay: float, turns: int
) -> tuple[list[float], list[int]]:
    """Play one game as the person; each wait from the end of a turn to the next, and the moves made in it."""
    config = HostConfig(
        game=game,
        seats=4,
        bots=3,
        headless=True,
        autostart=True,
        bot_kind=level,
        bot_delay=bot_delay,
        seed=seed,
        bind="127.0.0.1",
        port=0,
    )
    waits: list[float] = []
    moves_in_wait: list[int] = []
    async with Host(config) as host:
        client = await Client.connect(host.url, name="Person")
        brain = core_bots.make(game, core_bots.NORMAL, seed)
        sent_at: dict[int, float] = {}
        """When the move answering view ``seq`` went: its end-of-turn moment, if it ends a turn."""
        waiting_since: tuple[float, int] | None = None
        try:
            async for message in client:
                if not isinstance(message, View):
                    continue
                now = time.perf_counter()
                view = message.view
                mine = client.seat in view.waiting_for
                if waiting_since is None and not mine and message.seq - 1 in sent_at:
                    waiting_since = (sent_at[message.seq - 1], message.seq)
                if view.outcome is not None or len(waits) >= turns:
                    break
                if not mine or (client.view is not None and client.view.seq > message.seq):
                    continue
                if waiting_since is not None:
                    began, seq = waiting_since
                    waits.append(now - began)
                    moves_in_wait.append(message.seq - seq)
                    waiting_since = None
                move = decide(brain, view)
                if move is not None:
                    sent_at[message.seq] = time.perf_counter()
                    await client.move(move, message.seq)
        finally:
            await client.close()
    return waits, moves_in_wait


async def measure(game: str, level: str, turns: int, bot_delay: float, seed: int) -> dict[str, Any]:
    waits: list[float] = []
    moves: list[int] = []
    started = time.perf_counter()
    while len(waits) < turns:
        got, made = await waits_in_one_game(game, level, seed, bot_delay, turns - len(waits))
        waits += got
        moves += made
        seed += 1
        print(f"{level}: {len(waits)} of {turns} waits", file=sys.stderr)
    return {
        "turns": len(waits),
        "mean_s": round(statistics.mean(waits), 2),
        "p50_s": round(statistics.median(waits), 2),
        "max_s": round(max(waits), 2),
        "bot_moves_per_wait": round(statistics.mean(moves), 1),
        "seconds_per_bot_move": round(sum(waits) / max(1, sum(moves)), 2),
        "elapsed_s": round(time.perf_counter() - started, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.turns", description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="side-effects", choices=sorted(games.GAMES))
    parser.add_argument("--levels", nargs="+", default=[core_bots.HARD, core_bots.NORMAL], choices=core_bots.LEVELS)
    parser.add_argument("--turns", type=int, default=8, help="waits timed per level")
    parser.add_argument("--bot-delay", type=float, default=HostConfig.bot_delay, help="the bots' pace (seconds)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    out: dict[str, Any] = {
        "game": args.game,
        "bot_delay_s": args.bot_delay,
        "load_average_before": [round(x, 2) for x in os.getloadavg()],
    }
    for level in args.levels:
        out[level] = asyncio.run(measure(args.game, level, args.turns, args.bot_delay, args.seed))
    out["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    out["python"] = platform.python_version()
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
