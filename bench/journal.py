"""What the journal costs per move: time to put a record on disk, and bytes.

    python -m bench.journal [--game side-effects] [--games 20] [--trips 40]

Plays seeded heuristic-bot games and journals every move into a temporary
directory, timing each append with fsync (what the host does: the move is on
disk before anyone hears of it) and without (the cost of encoding and writing
alone). Then ``group_commit``: how long one trip of a
:class:`quackbox.net.journal.GroupCommit` takes when it carries one move for
each of 1, 10, 50 and 250 journals (as many tables' moves in one turn of a
busy host's loop), from handing the records over to every one told it is on
disk, and how many syncs the trip made. Prints JSON.
"""

from __future__ import annotations

import argparse
import asyncio
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


async def trip_times(game: str, journals: int, trips: int, folder: Path) -> dict:
    """Median and p90 of ``trips`` trips, each one move for every one of ``journals`` journals."""
    rules = games.get(game)
    state = rules.new_game(seats=4, seed=1)
    seat = rules.waiting_for(state)[0]
    move = rules.legal_moves(state, seat)[0]
    header = jn.Header(game=game, seed=1, seats=4, names=("P0", "P1", "P2", "P3"))
    commit = jn.GroupCommit()
    writers = [jn.JournalWriter.create(folder / f"trip-{journals}-{n}.qbj", header) for n in range(journals)]

    def append(writer: jn.JournalWriter):
        def job() -> jn.JournalWriter:
            writer.append_record(writer.move_record(seat, move), later=True)
            return writer
        return job

    await asyncio.gather(*(commit.write(append(w)) for w in writers))  # each new journal's own first sync
    syncs = commit.syncs
    times: list[float] = []
    for _ in range(trips):
        start = time.perf_counter()
        await asyncio.gather(*(commit.write(append(w)) for w in writers))
        times.append(time.perf_counter() - start)
    result = {
        "journals": journals,
        "trip_ms_median": round(statistics.median(times) * 1000, 3),
        "trip_ms_p90": round(_percentile(times, 0.9) * 1000, 3),
        "syncs_per_trip": round((commit.syncs - syncs) / trips, 2),
    }
    await commit.write(commit.close_logs)
    for writer in writers:
        writer.close()
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.journal", description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="side-effects", choices=sorted(games.GAMES))
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--trips", type=int, default=40, help="trips timed for each count of journals")
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
        result["group_commit"] = [asyncio.run(trip_times(args.game, n, args.trips, folder)) for n in (1, 10, 50, 250)]
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
