"""What search costs: clone beside copy.deepcopy, sample, and seconds per decision by level.

    python -m bench.bots [--game G] [--decisions 20] [--budget N]

- ``clone_us`` / ``deepcopy_us``: microseconds to copy a State of a game in
  progress with the rules' ``clone`` and with ``copy.deepcopy``.
- ``sample_us``: microseconds to build a State from one seat's view.
- ``seconds_per_decision``: for each level, the mean and longest CPU time of a
  ``choose`` at a 4-seat table of that level against three normal bots, over
  the first ``--decisions`` decisions (the hard bot's budget is what
  calibrates it to about a second here; ``--budget`` tries another).
"""

from __future__ import annotations

import argparse
import copy
import json
import platform
import random
import statistics
import sys
import time

from quackbox.core import bots, games
from quackbox.core.bots import next_move, observe


def midgame(rules, seed: int, moves: int = 60):
    """A 4-seat game of normal bots, ``moves`` moves in."""
    table = [bots.make(rules.name, bots.NORMAL, seed + s) for s in range(4)]
    state = rules.new_game(seats=4, seed=seed)
    for _ in range(moves):
        if rules.outcome(state) is not None:
            break
        rules.apply(state, *next_move(rules, state, table))
    return state


def per_call_us(fn, repeat: int) -> float:
    start = time.process_time()
    for _ in range(repeat):
        fn()
    return round((time.process_time() - start) / repeat * 1e6, 1)


def decision_times(rules, level: str, decisions: int, budget: int | None) -> dict[str, float]:
    times: list[float] = []
    seed = 0
    while len(times) < decisions and seed < 50:
        table = [bots.make(rules.name, level, seed, budget=budget)]
        table += [bots.make(rules.name, bots.NORMAL, seed + s) for s in range(1, 4)]
        players = [_Clock(table[0], times), *table[1:]]
        state = rules.new_game(seats=4, seed=seed)
        for seat, bot in enumerate(table):
            observe(bot, rules, seat, state.start_events)
        while rules.outcome(state) is None and len(times) < decisions:
            seat, move = next_move(rules, state, players)
            events = rules.apply(state, seat, move)
            for who, bot in enumerate(table):
                observe(bot, rules, who, events)
        seed += 1
    return {"mean": round(statistics.mean(times), 4), "max": round(max(times), 4), "decisions": len(times)}


class _Clock:
    """Times the ``choose`` calls of the bot it wraps."""

    def __init__(self, bot, times: list[float]) -> None:
        self.bot, self.times = bot, times
        self.name, self.reacts = bot.name, bot.reacts

    def choose(self, view):
        start = time.process_time()
        move = self.bot.choose(view)
        self.times.append(time.process_time() - start)
        return move

    def react(self, view):
        return self.bot.react(view)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.bots", description=__doc__.splitlines()[0])
    parser.add_argument("--game", action="append", choices=sorted(games.GAMES))
    parser.add_argument("--decisions", type=int, default=20)
    parser.add_argument("--budget", type=int, default=None)
    args = parser.parse_args(argv)
    out: dict = {"python": platform.python_version(), "machine": platform.machine()}
    for name in args.game or sorted(games.GAMES):
        rules = games.get(name)
        state = midgame(rules, 1)
        view = rules.view(state, 0)
        rng = random.Random(0)
        out[name] = {
            "clone_us": per_call_us(lambda: rules.clone(state), 2000),
            "deepcopy_us": per_call_us(lambda: copy.deepcopy(state), 200),
            "sample_us": per_call_us(lambda: rules.sample(view, rng), 1000),
            "seconds_per_decision": {
                level: decision_times(rules, level, args.decisions, args.budget) for level in bots.LEVELS
            },
        }
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
