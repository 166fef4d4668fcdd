"""What the journal costs per move: time to put a record on disk, and bytes.

    python -m bench.journal [--game side-effects] [--games 20]

Plays seeded heuristic-bot games and journals every move into a temporary
directory, timing each append with fsync (what the host does: the move is on
disk before anyone hears of it) and without (the cost of encoding and writing
alone). Prints JSON.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from quackbox.core import bots, games
from quackbox.core.play import next_move
from quackbox.net import journal as jn


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def measure(game: str, count: int, sync: bool, folder: Path) -> dict:
    rules = games.get(game)
    times: list[float] = []
    sizes: list[int] = []
    for seed in range(count):
        seats = 4
        state = rules.new_game(seats=seats, seed=seed)
        header = jn.Header(game=game, seed=seed, seats=seats, names=tuple(f"P{i}" for i in range(seats)))
        writer = jn.JournalWriter.create(folder / f"{game}-{seed}-{sync}.qbj", header, sync=sync)
        table = [bots.make(game, "heuristic", seed * 8 + i) for i in range(seats)]
        while rules.outcome(state) is None:
            seat, move = next_move(rules, state, table)
            rules.apply(state, seat, move)
            before = writer.bytes
            start = time.perf_counter()
            writer.append(seat, move)
            times.append(time.perf_counter() - start)
            sizes.append(writer.bytes - before)
        writer.finish(rules.outcome(state))
        writer.close()
    return {
        "moves": len(times),
        "append_ms_median": round(statistics.median(times) * 1000, 4),
        "append_ms_p99": round(_percentile(times, 0.99) * 1000, 4),
        "bytes_per_move_mean": round(statistics.mean(sizes), 1),
        "bytes_per_move_max": max(sizes),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.journal", description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="side-effects", choices=sorted(games.GAMES))
    parser.add_argument("--games", type=int, default=20)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        result = {
            "game": args.game,
            "games": args.games,
            "with_fsync": measure(args.game, args.games, True, folder),
            "without_fsync": measure(args.game, args.games, False, folder),
        }
        files = sorted(folder.glob("*-True.qbj"))
        result["file_bytes_mean"] = round(statistics.mean(p.stat().st_size for p in files))
        start = time.perf_counter()
        for path in files:
            jn.rebuild(jn.read(path))
        result["read_and_replay_ms_per_game"] = round((time.perf_counter() - start) * 1000 / len(files), 2)
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
