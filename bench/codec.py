"""Wire codec speed: 4-seat view frames encoded and decoded per second.

    python -m bench.codec [--game side-effects] [--seats 4] [--games 6] [--rounds 5]

Heuristic bots play ``--games`` seeded games; after every move the frame a
host sends each seat (and a spectator) is built as ``net.table`` builds it: a
``View`` of the seat's view, its redacted events and their log lines. Those
messages are made before the clock starts, afresh for each round (so nothing
is timed twice on the same objects), then timed in one pass, in game order,
as a host sends them: ``Wire.encode`` for each, then ``decode_from_host`` of
each frame, as the seat's client reads it. Times are this process's CPU
seconds, so that other work on the machine weighs less on the figure.

Prints one JSON object: views per second for encoding, decoding and both
(``round_trips_per_s``, the headline figure), best of ``--rounds``, and the
mean frame size. ``alike_encodes_per_s`` is the encoding figure when the
frames of each move are packed together, as a host packs them
(``Wire.encode_alike``: what the views share, once), timed in the same rounds.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from typing import Any

from quackbox.core import bots as core_bots
from quackbox.core import games
from quackbox.core.play import next_move
from quackbox.net.protocol import DeadlineInfo, View, Wire
from quackbox.net.table import seen_by


def frames_of_games(game: str, seats: int, count: int) -> list[Any]:
    """The View message of every seat and a spectator after every move of ``count`` games."""
    rules = games.get(game)
    messages: list[Any] = []
    names = tuple(f"P{seat + 1}" for seat in range(seats))
    deadline = DeadlineInfo(seat=0, kind="turn", seconds=12.5)
    for seed in range(count):
        state = rules.new_game(seats=seats, seed=seed)
        bots = [core_bots.make(game, "heuristic", seed * 10 + seat) for seat in range(seats)]
        seq = 0
        while rules.outcome(state) is None:
            seat, move = next_move(rules, state, bots)
            events = rules.apply(state, seat, move)
            seq += 1
            for watcher in (*range(seats), None):
                seen, log = seen_by(rules, watcher, events, names)
                messages.append(View(seq=seq, view=rules.view(state, watcher), events=seen, log=log, deadline=deadline))
    return messages


def one_round(wire: Wire, messages: list[Any], per_move: int) -> tuple[float, float, float, int]:
    """(seconds encoding one by one, seconds decoding, seconds encoding each
    move's ``per_move`` frames together, bytes) for one pass over ``messages``."""
    start = time.process_time()
    frames = [wire.encode(message) for message in messages]
    encoded = time.process_time()
    for frame in frames:
        wire.decode_from_host(frame)
    decoded = time.process_time()
    for first in range(0, len(messages), per_move):
        wire.encode_alike(messages[first : first + per_move])
    alike = time.process_time()
    return encoded - start, decoded - encoded, alike - decoded, sum(len(frame) for frame in frames)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="side-effects", choices=sorted(games.GAMES))
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--games", type=int, default=6, help="games whose views are timed in each round")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    wire = Wire(games.get(args.game))
    best_encode = best_decode = best_both = best_alike = float("inf")
    views = size = 0
    for number in range(args.rounds):
        messages = frames_of_games(args.game, args.seats, args.games)
        encode, decode, alike, size = one_round(wire, messages, args.seats + 1)
        views = len(messages)
        best_encode, best_decode, best_alike = (
            min(best_encode, encode),
            min(best_decode, decode),
            min(best_alike, alike),
        )
        best_both = min(best_both, encode + decode)
        print(f"round {number + 1}: {views / (encode + decode):,.0f} views/s", file=sys.stderr)
    report = {
        "game": args.game,
        "seats": args.seats,
        "views_per_round": views,
        "mean_frame_bytes": round(size / views),
        "encodes_per_s": round(views / best_encode),
        "decodes_per_s": round(views / best_decode),
        "round_trips_per_s": round(views / best_both),
        "alike_encodes_per_s": round(views / best_alike),
        "python": platform.python_version(),
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
