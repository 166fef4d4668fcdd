"""Rules speed: decisions per second for random-bot games.

    python -m bench.rules --game side-effects [--seats 4] [--seconds 5]

One decision is what a bot does each step: ask ``legal_moves`` for the seat
the game waits on, pick one at random, ``apply`` it (which checks it first).
Games start from seeds 0, 1, 2, ... and the picks come from one generator
for the whole run (seeded 0), so runs are comparable and every run plays the
same games: trials end between games, never inside one. The run is split
into trials of about half a second; the JSON gives the median and the best
trial, since other work on the machine only ever slows a trial down.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import time
from math import floor

from core import games


def trial(rules, seats: int, seconds: float, first_seed: int, pick) -> tuple[int, int, float]:
    """Play whole games for about ``seconds``, picking moves with ``pick()``
    (a ``random.Random.random``); return (decisions, games, elapsed)."""
    decisions = played = 0
    seed = first_seed
    start = time.perf_counter()
    while True:
        state = rules.new_game(seats=seats, seed=seed)
        seed += 1
        waiting_for, legal_moves, apply, outcome = rules.waiting_for, rules.legal_moves, rules.apply, rules.outcome
        while outcome(state) is None:
            seat = waiting_for(state)[0]
            legal = legal_moves(state, seat)
            # A uniform pick; random.choice does the same with more calls, and
            # floor() gives int()'s value here for a third of int()'s cost.
            apply(state, seat, legal[floor(pick() * len(legal))])
            decisions += 1
        played += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return decisions, played, elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.rules", description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="side-effects", choices=sorted(games.GAMES))
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=5.0, help="total measuring time (default 5)")
    args = parser.parse_args(argv)
    rules = games.get(args.game)
    trial(rules, args.seats, 0.2, 10_000, random.Random(10_000).random)  # warm up caches and the allocator
    # Seeding a generator per game would cost a few per cent of a short game's
    # time, and that is the benchmark's work, not the rules'.
    pick = random.Random(0).random
    rates, total_decisions, total_games = [], 0, 0
    per_trial = 0.5
    seed = 0
    deadline = time.perf_counter() + args.seconds
    while time.perf_counter() < deadline:
        decisions, played, elapsed = trial(rules, args.seats, per_trial, seed, pick)
        seed += played
        rates.append(decisions / elapsed)
        total_decisions += decisions
        total_games += played
    print(
        json.dumps(
            {
                "game": args.game,
                "seats": args.seats,
                "bot": "random",
                "games": total_games,
                "decisions": total_decisions,
                "trials": len(rates),
                "decisions_per_second": round(statistics.median(rates)),
                "decisions_per_second_best": round(max(rates)),
                "decisions_per_game": round(total_decisions / max(total_games, 1), 1),
                "python": platform.python_version(),
                "implementation": sys.implementation.name,
            },
            indent=2,
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
