"""How strong each bot level is, and what its decisions cost.

    python -m bench.bots [--game G] [--games 100] [--seeds 1[,2...]] [--jobs 2]
                         [--matchup hard:normal ...] [--budget N] [--per-game]

For each game and matchup ``A:B`` (one A against three B, the lineup turned
one seat further each game, so A plays every seat as often), the figures:

- ``win_pct`` and ``interval_95``: A's share of the games won (a shared win
  counts its share), with its 95% Wilson interval; ``fair_pct`` is 25.
- ``seconds_per_decision``: CPU seconds of A's ``choose`` calls (mean, p95,
  max; the decisions a table waits for, not the reactions).
- ``errors`` and ``stalled``: games that raised, or did not end.

The default matchups are the three that say whether the levels are worth
their names: hard against normal, normal against easy, and (Side Effects)
the trader against normal: the normal bot with trade offers of its own must
not talk the normal bots out of the game.

Every game's seed is drawn from a ``--seeds`` value as ``quackbox sim
--seed`` draws them, ``--games`` from each, so the same arguments play the
same games and give the same figures but the seconds (``--jobs`` processes
play them side by side; how many does not change a figure). Two runs of
different code on the same seeds are paired: ``--per-game`` adds each
game's seed and A's share of its win, for comparing them game by game.

``costs`` gives microseconds to copy a State of a game in progress with the
rules' ``clone`` and with ``copy.deepcopy``, and to ``sample`` one from a
seat's view.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import json
import math
import os
import platform
import random
import statistics
import sys
import time
from typing import Any, Iterator

from quackbox.core import bots, games, sim
from quackbox.core.bots import next_move

MATCHUPS = ("hard:normal", "normal:easy", "trader:normal")
PLAYERS = 4
Z95 = 1.959964
"""The normal quantile of a two-sided 95% interval."""


def wilson(wins: float, games: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a share of ``wins`` in ``games`` (0 to 1 each end)."""
    if games <= 0:
        return 0.0, 1.0
    p = wins / games
    centre = p + z * z / (2 * games)
    spread = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games))
    scale = 1 + z * z / games
    return max(0.0, (centre - spread) / scale), min(1.0, (centre + spread) / scale)


def midgame(rules: Any, seed: int, moves: int = 60) -> Any:
    """A 4-seat game of normal bots, ``moves`` moves in."""
    table = [bots.make(rules.name, bots.NORMAL, seed + s) for s in range(4)]
    state = rules.new_game(seats=4, seed=seed)
    for _ in range(moves):
        if rules.outcome(state) is not None:
            break
        rules.apply(state, *next_move(rules, state, table))
    return state


def per_call_us(fn: Any, repeat: int) -> float:
    start = time.process_time()
    for _ in range(repeat):
        fn()
    return round((time.process_time() - start) / repeat * 1e6, 1)


def costs(rules: Any) -> dict[str, float]:
    state = midgame(rules, 1)
    view = rules.view(state, 0)
    rng = random.Random(0)
    return {
        "clone_us": per_call_us(lambda: rules.clone(state), 2000),
        "deepcopy_us": per_call_us(lambda: copy.deepcopy(state), 200),
        "sample_us": per_call_us(lambda: rules.sample(view, rng), 1000),
    }


def matchup(
    game: str,
    bot: str,
    against: str,
    *,
    games_count: int,
    seeds: list[int],
    budget: int | None,
    mapper: Any,
    per_game: bool,
) -> dict[str, Any]:
    """One ``bot`` against three ``against``, ``games_count`` games from each seed."""
    lineup = (bot, *(against,) * (PLAYERS - 1))
    rules = games.get(game)
    options = rules.parse_options({})
    tasks = [
        task
        for seed in seeds
        for task in sim.tasks(
            game,
            lineup,
            games_count,
            seed,
            rotate=True,
            options=options,
            max_moves=sim.MAX_MOVES,
            budget=budget,
            think_clock=time.process_time,
            keep_events=False,
        )
    ]
    wins, finished, errors, stalled = 0.0, 0, 0, 0
    times: list[float] = []
    games_out: list[list[float]] = []
    for played in (mapper or map)(sim.play_one, tasks):
        times += played.thinking.get(bot, [])
        task = played.task
        if played.stalled:
            stalled += 1
            continue
        if played.error is not None or played.record is None:
            errors += 1
            continue
        finished += 1
        seat = task.seated.index(bot)
        winners = played.record.outcome.winners if played.record.outcome else ()
        share = 1.0 / len(winners) if seat in winners else 0.0
        wins += share
        games_out.append([task.seed, seat, share])
    low, high = wilson(wins, finished)
    out: dict[str, Any] = {
        "games": finished,
        "wins": round(wins, 2),
        "win_pct": round(100 * wins / finished, 1) if finished else None,
        "interval_95": [round(100 * low, 1), round(100 * high, 1)],
        "fair_pct": round(100 / PLAYERS, 1),
        "seconds_per_decision": {
            "mean": sim.significant(statistics.mean(times)) if times else None,
            "p95": sim.significant(sim.percentile(times, 95)) if times else None,
            "max": sim.significant(max(times)) if times else None,
            "decisions": len(times),
        },
        "errors": errors,
        "stalled": stalled,
    }
    if per_game:
        out["per_game"] = games_out
    return out


@contextlib.contextmanager
def pool(jobs: int) -> Iterator[Any]:
    if jobs <= 1:
        yield None
        return
    import multiprocessing

    with multiprocessing.Pool(jobs) as workers:
        yield lambda play, tasks: workers.imap(play, tasks)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.bots", description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--game", action="append", choices=sorted(games.GAMES))
    parser.add_argument("--games", type=int, default=100, help="games per matchup and seed (default 100)")
    parser.add_argument("--seeds", default="1", help="seeds the games' seeds are drawn from, e.g. 1 or 1,2")
    parser.add_argument(
        "--matchup", action="append", metavar="A:B", help=f"one A against three B (default: {', '.join(MATCHUPS)})"
    )
    parser.add_argument("--budget", type=int, default=None, help="the hard bot's budget (default: its own)")
    parser.add_argument("--jobs", type=int, default=1, help="games played side by side (default 1)")
    parser.add_argument("--per-game", action="store_true", help="each game's seed, A's seat and A's share of it")
    parser.add_argument("--no-costs", action="store_true", help="leave out the clone and sample figures")
    args = parser.parse_args(argv)
    seeds = [int(s) for s in args.seeds.split(",") if s.strip()]
    out: dict[str, Any] = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "games_per_seed": args.games,
        "seeds": seeds,
        "budget": args.budget,
    }
    with pool(max(1, min(args.jobs, os.cpu_count() or 1))) as mapper:
        for name in args.game or sorted(games.GAMES):
            rules = games.get(name)
            figures: dict[str, Any] = {} if args.no_costs else {"costs": costs(rules)}
            for pair in args.matchup or MATCHUPS:
                bot, _, against = pair.partition(":")
                kinds = bots.kinds(name)
                if bot not in kinds or against not in kinds:
                    continue  # the trader plays Side Effects only
                figures[pair] = matchup(
                    name,
                    bot,
                    against,
                    games_count=args.games,
                    seeds=seeds,
                    budget=args.budget,
                    mapper=mapper,
                    per_game=args.per_game,
                )
            out[name] = figures
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
