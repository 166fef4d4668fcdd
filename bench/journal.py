"""What the journal costs per move: time to put a record on disk, and bytes.

    python -m bench.journal [--game side-effects] [--games 20] [--hang 5]

Plays seeded heuristic-bot games and journals every move into a temporary
directory, timing each append with fsync (what the host does: the move is on
disk before anyone hears of it) and without (the cost of encoding and writing
alone), with the bytes handed to the system per move. ``sqlite_wal_full``
keeps the same moves as the standard library's sqlite3 would (a file per
game, WAL, synchronous=FULL, a transaction per move), for comparison.
``disk_hangs``: the host's event loop's longest stall while the journal's
disk does not answer for ``--hang`` seconds (the saver's thread waits; the
loop must not), and what the table was told. Prints JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

from quackbox.core import bots, games
from quackbox.core.play import next_move
from quackbox.net import journal as jn
from quackbox.net.journal_writer import Disk, JournalWriter
from quackbox.net.protocol import Wire
from quackbox.net.saver import Saver, Start


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def measure(game: str, count: int, sync: bool, folder: Path) -> dict:
    rules = games.get(game)
    times: list[float] = []
    sizes: list[int] = []
    io = io_counters()
    for seed in range(count):
        seats = 4
        state = rules.new_game(seats=seats, seed=seed)
        header = jn.Header(game=game, seed=seed, seats=seats, names=tuple(f"P{i}" for i in range(seats)))
        writer = JournalWriter.create(folder / f"{game}-{seed}-{sync}.qbj", header, sync=sync)
        table = [bots.make(game, "heuristic", seed * 8 + i) for i in range(seats)]
        while rules.outcome(state) is None:
            seat, move = next_move(rules, state, table)
            rules.apply(state, seat, move)
            before = writer.durable
            start = time.perf_counter()
            writer.append(seat, move)
            times.append(time.perf_counter() - start)
            sizes.append(writer.durable - before)
        writer.finish(rules.outcome(state))
        writer.close()
    after = io_counters()
    result = {
        "moves": len(times),
        "append_ms_median": round(statistics.median(times) * 1000, 4),
        "append_ms_p99": round(_percentile(times, 0.99) * 1000, 4),
        "bytes_per_move_mean": round(statistics.mean(sizes), 1),
        "bytes_per_move_max": max(sizes),
    }
    if io and after:
        result["bytes_written_per_move"] = round((after["wchar"] - io["wchar"]) / len(times))
    return result


def io_counters() -> dict[str, int]:
    """This process's IO so far (Linux): bytes handed to write calls, and bytes sent to storage."""
    try:
        lines = Path("/proc/self/io").read_text().splitlines()
    except OSError:
        return {}
    return {key: int(value) for key, value in (line.split(": ") for line in lines)}


def measure_sqlite(game: str, count: int, folder: Path) -> dict:
    """The same moves kept the way a database would keep them: a SQLite file per game
    (the standard library's sqlite3), WAL, synchronous=FULL, a transaction per move."""
    rules = games.get(game)
    times: list[float] = []
    before = io_counters()
    for seed in range(count):
        seats = 4
        state = rules.new_game(seats=seats, seed=seed)
        codec = Wire(rules).values
        db = sqlite3.connect(folder / f"{game}-{seed}.sqlite", isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
        db.execute("CREATE TABLE moves (n INTEGER PRIMARY KEY, seat INTEGER, move BLOB, at REAL)")
        table = [bots.make(game, "heuristic", seed * 8 + i) for i in range(seats)]
        while rules.outcome(state) is None:
            seat, move = next_move(rules, state, table)
            rules.apply(state, seat, move)
            data = codec.pack(move)
            start = time.perf_counter()
            db.execute("BEGIN")
            db.execute("INSERT INTO moves (seat, move, at) VALUES (?, ?, ?)", (seat, data, time.time()))
            db.execute("COMMIT")
            times.append(time.perf_counter() - start)
        db.close()
    after = io_counters()
    result = {
        "moves": len(times),
        "commit_ms_median": round(statistics.median(times) * 1000, 4),
        "commit_ms_p99": round(_percentile(times, 0.99) * 1000, 4),
    }
    if before and after:
        result["bytes_written_per_move"] = round((after["wchar"] - before["wchar"]) / len(times))
    return result


async def loop_while_the_disk_hangs(seconds: float, folder: Path) -> dict:
    """The event loop's longest stall while the journal's disk does not answer for
    ``seconds`` (the saver's thread waits on it; the loop must not)."""
    release = threading.Event()

    class Hanging(Disk):
        def sync(self, fd: int) -> None:
            release.wait(seconds)
            super().sync(fd)

    told: list[str | None] = []
    saver = Saver(folder, on_trouble=told.append, disk=Hanging())
    saver.start()
    header = jn.Header(game="side-effects", seed=1, seats=2, names=("A", "B"))
    saving = saver.save(Start(header, time.time()))
    longest = 0.0
    last = time.perf_counter()
    end = last + seconds + 0.5
    while time.perf_counter() < end:
        await asyncio.sleep(0.001)
        now = time.perf_counter()
        longest = max(longest, now - last)
        last = now
    release.set()
    await saving
    await saver.close(5)
    return {"hang_s": seconds, "loop_longest_stall_ms": round(longest * 1000, 2), "table_told": told}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.journal", description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="side-effects", choices=sorted(games.GAMES))
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--hang", type=float, default=5.0, help="seconds the disk hangs in the last measure")
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
        result["sqlite_wal_full"] = measure_sqlite(args.game, args.games, folder)
        result["disk_hangs"] = asyncio.run(loop_while_the_disk_hangs(args.hang, folder))
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
