"""Rules speed: decisions per second, measured the way real runners play.

    python -m bench.rules [--game G] [--seats 4] [--seconds 5] [--rlcard]

One decision is what a table does for each move: ask ``legal_moves`` for the
seat the game waits on, pick one at random, ``apply`` it (which checks it
first), then make the views of every seat and the spectator (``views``, as
the host does before it tells anyone). The JSON gives that figure
(``decisions_per_second``) and, from the same games, the rules alone
(``rules_only_per_second``: legal moves, the pick and apply, which is what a
bot-only simulation costs).

Games start from seeds 0, 1, 2, ... and each trial's picks come from a
generator seeded 0, so every run plays the same games; the run is split into trials of
about half a second, and the JSON gives the median and the best trial.

``--rlcard`` measures RLCard's UNO side by side in the same run, if the
``rlcard`` package is installed (it is not a dependency of quackbox): its
game loop (legal actions and step, the counterpart of the rules-only
figure), its environment loop (step plus the acting player's state), and
that loop with every player's state after each step (the counterpart of the
decisions figure, which makes every seat's view).
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import time
from typing import Callable

from quackbox.core import games

TRIAL_SECONDS = 0.5


def play_trial(
    rules, seats: int, seconds: float, first_seed: int, pick: Callable[[], float], views: bool
) -> tuple[int, int, float]:
    """Play whole games for about ``seconds``; (decisions, games, elapsed)."""
    decisions = played = 0
    seed = first_seed
    start = time.perf_counter()
    everyone = [*range(seats), None]
    while True:
        state = rules.new_game(seats=seats, seed=seed)
        seed += 1
        while rules.outcome(state) is None:
            seat = rules.waiting_for(state)[0]
            legal = rules.legal_moves(state, seat)
            rules.apply(state, seat, legal[int(pick() * len(legal))])
            if views:
                rules.views(state, everyone)
            decisions += 1
        played += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return decisions, played, elapsed


def measure(trial: Callable[[float, int], tuple[int, int, float]], seconds: float) -> dict[str, float]:
    """Median and best of trials of ``trial(seconds, first_seed)`` over about ``seconds``."""
    trial(0.2, 10_000)  # warm up
    rates, decisions, played, seed = [], 0, 0, 0
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        d, g, elapsed = trial(TRIAL_SECONDS, seed)
        seed += g
        rates.append(d / elapsed)
        decisions += d
        played += g
    return {
        "median": round(statistics.median(rates)),
        "best": round(max(rates)),
        "decisions": decisions,
        "games": played,
    }


def rlcard_figures(seats: int, seconds: float) -> dict[str, object]:
    """RLCard's UNO, measured the same way, or why it could not be."""
    try:
        import numpy as np
        import rlcard
        from rlcard.games.uno.game import UnoGame
    except ImportError:
        return {"skipped": "rlcard is not installed (pip install rlcard)"}
    pick = random.Random(0).random

    def game_trial(length: float, first_seed: int) -> tuple[int, int, float]:
        game = UnoGame(num_players=seats)
        game.np_random = np.random.RandomState(first_seed)
        decisions = played = 0
        start = time.perf_counter()
        while True:
            game.init_game()
            while not game.is_over():
                legal = game.get_legal_actions()
                game.step(legal[int(pick() * len(legal))])
                decisions += 1
            played += 1
            elapsed = time.perf_counter() - start
            if elapsed >= length:
                return decisions, played, elapsed

    def env_trial(length: float, first_seed: int, every_state: bool = False) -> tuple[int, int, float]:
        env = rlcard.make("uno", config={"seed": first_seed, "game_num_players": seats})
        decisions = played = 0
        start = time.perf_counter()
        while True:
            state, _ = env.reset()
            while not env.is_over():
                legal = list(state["legal_actions"])
                state, _ = env.step(legal[int(pick() * len(legal))])
                if every_state:
                    for player in range(env.num_players):
                        env.get_state(player)
                decisions += 1
            played += 1
            elapsed = time.perf_counter() - start
            if elapsed >= length:
                return decisions, played, elapsed

    return {
        "game": "uno",
        "version": getattr(rlcard, "__version__", "?"),
        "game_loop_per_second": measure(game_trial, seconds)["median"],
        "env_loop_per_second": measure(env_trial, seconds)["median"],
        "env_loop_every_state_per_second": measure(lambda s, seed: env_trial(s, seed, True), seconds)["median"],
        "players": rlcard.make("uno").num_players,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.rules", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--game", choices=sorted(games.GAMES), action="append", help="the game (may repeat; default both)"
    )
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=5.0, help="measuring time per figure (default 5)")
    parser.add_argument("--rlcard", action="store_true", help="also measure RLCard's UNO in the same run")
    args = parser.parse_args(argv)
    out: dict[str, object] = {
        "seats": args.seats,
        "bot": "random",
        "python": platform.python_version(),
        "implementation": sys.implementation.name,
    }
    for name in args.game or sorted(games.GAMES):
        rules = games.get(name)
        full = measure(
            lambda s, seed, rules=rules: play_trial(rules, args.seats, s, seed, random.Random(0).random, True),
            args.seconds,
        )
        bare = measure(
            lambda s, seed, rules=rules: play_trial(rules, args.seats, s, seed, random.Random(0).random, False),
            args.seconds,
        )
        out[name] = {
            "decisions_per_second": full["median"],
            "decisions_per_second_best": full["best"],
            "rules_only_per_second": bare["median"],
            "rules_only_per_second_best": bare["best"],
            "decisions_per_game": round(bare["decisions"] / max(bare["games"], 1), 1),
        }
    if args.rlcard:
        out["rlcard"] = rlcard_figures(args.seats, args.seconds)
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
