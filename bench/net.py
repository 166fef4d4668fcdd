"""Network speed: host round trips beside a bare WebSocket echo.

    python -m bench.net [--game side-effects] [--samples 600] [--quick] [--no-journal]

Prints one JSON object (progress goes to stderr):

``latency``: on a 4-seat table where every seat is a bot client, the time from
a move being sent to every seat holding (having received and decoded) the new
view, p50 and p99, beside the round trip of a bare ``websockets`` echo of a
move-sized frame measured in the same run, and their ratio. Measured two ways:

- ``one_process``: host, the four clients and the echo share one event loop.
  The worst case: the four seats decode their views one after the other.
- ``own_processes``: the host runs here and each seat is its own process, as
  in real play (and the echo client too). Each seat waits ``GAP`` before
  moving so that samples do not overlap.

The two are measured in alternating rounds, so that other work on the machine
weighs on the echo and the table alike. The table journals every move into a
temporary folder, as a real host does: the move is on disk (fdatasync)
before any seat hears of it (``--no-journal`` turns that off here too).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import platform
import resource
import sys
import tempfile
import time
from typing import Any

from websockets.asyncio.client import connect
from websockets.asyncio.server import serve

from quackbox.core import bots as core_bots
from quackbox.core import games
from quackbox.core.bots import decide
from quackbox.net.client import Client
from quackbox.net.host import Host, HostConfig
from quackbox.net.protocol import Lobby, MoveMessage, Started, View, Wire

SEATS = 4
GAP = 0.010
"""Seconds a seat process waits before moving, so one sample ends before the next."""
ECHO_BYTES = 48


def clock() -> float:
    """A clock every process on this machine shares (perf_counter is not promised to)."""
    return time.clock_gettime(time.CLOCK_MONOTONIC)


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def summary(samples: list[float]) -> dict[str, float]:
    return {
        "p50_ms": round(percentile(samples, 0.50) * 1000, 3),
        "p99_ms": round(percentile(samples, 0.99) * 1000, 3),
        "samples": len(samples),
    }


def raise_file_limit() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


# --- latency: one table, moves one at a time ------------------------------------------------


async def echo_round_trips(size: int, count: int) -> list[float]:
    """Round trips of a bare websockets echo, server and client in this loop."""

    async def echo(ws: Any) -> None:
        async for message in ws:
            await ws.send(message)

    payload = os.urandom(size)
    samples = []
    async with serve(echo, "127.0.0.1", 0, compression=None) as server:
        port = server.sockets[0].getsockname()[1]
        async with connect(f"ws://127.0.0.1:{port}", compression=None) as ws:
            for _ in range(count // 10):  # warm up
                await ws.send(payload)
                await ws.recv()
            for _ in range(count):
                start = time.perf_counter()
                await ws.send(payload)
                await ws.recv()
                samples.append(time.perf_counter() - start)
    return samples


class Seat:
    """One bot client whose views are timestamped as they are taken from the client."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.seq = -1
        self.view: Any = None
        self.at = 0.0
        self.changed = asyncio.Event()
        self.task = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for message in self.client:
            if isinstance(message, View):
                self.seq, self.view, self.at = message.seq, message.view, time.perf_counter()
                self.changed.set()


async def all_hold(seats: list[Seat], seq: int) -> float:
    """Wait until every seat holds view ``seq``; when the last one got it."""
    for seat in seats:
        while seat.seq < seq:
            seat.changed.clear()
            await seat.changed.wait()
    return max(seat.at for seat in seats)


async def table_round_trips(game: str, count: int, journal_dir: str | None) -> tuple[list[float], int]:
    """Move-to-every-view times on 4-seat tables of bot clients; and the view size."""
    samples: list[float] = []
    frame_size = 0
    seed = 0
    while len(samples) < count:
        seed += 1
        config = HostConfig(
            game=game,
            seats=SEATS,
            headless=True,
            autostart=True,
            bot_delay=0,
            seed=seed,
            bind="127.0.0.1",
            port=0,
            journal_dir=journal_dir,
        )
        async with Host(config) as host:
            clients = [await Client.connect(host.url, name=f"B{i}") for i in range(SEATS)]
            seats = [Seat(c) for c in clients]
            brains = [core_bots.make(game, "heuristic", seed * 10 + i) for i in range(SEATS)]
            seq = 0
            await all_hold(seats, 0)
            wire = Wire(host.table.rules)
            while seats[0].view.outcome is None and len(samples) < count:
                mover = next(s for s in range(SEATS) if s in seats[s].view.waiting_for)
                move = decide(brains[mover], seats[mover].view)
                frame_size = max(frame_size, len(wire.encode(MoveMessage(seq=seq, move=move))))
                start = time.perf_counter()
                await clients[mover].move(move, seq)
                seq += 1
                samples.append(await all_hold(seats, seq) - start)
            for client in clients:
                await client.close()
            for seat in seats:
                seat.task.cancel()
    return samples, frame_size


# --- latency: each seat its own process -------------------------------------------------------


async def rematch(lobby: Lobby, seat: int | None, ready: Any, start: Any) -> None:
    """After a game: get ready again; the starter deals once everyone is."""
    mine = lobby.seats[seat]
    if not mine.ready:
        await ready()
    elif lobby.starter == seat and all(s.ready for s in lobby.seats):
        await start()


def seat_process(url: str, index: int, game: str, duration: float, conn: Any) -> None:
    """One seat in its own process: play for ``duration``, report when views came and moves went."""

    async def main() -> tuple[dict, dict]:
        received: dict[tuple[int, int], float] = {}
        sent: dict[tuple[int, int], float] = {}
        client = await Client.connect(url, name=f"B{index}")
        brain = core_bots.make(game, "heuristic", index)
        game_no = 0
        loop = asyncio.get_running_loop()
        try:
            # Time runs from the first deal, not from this process's start
            # (the four seats start at different speeds on a busy machine).
            async with asyncio.timeout(duration + 60) as limit:
                async for message in client:
                    if isinstance(message, Started):
                        if game_no == 0:
                            limit.reschedule(loop.time() + duration)
                        game_no += 1
                    elif isinstance(message, Lobby) and message.over:
                        await rematch(message, client.seat, client.ready, client.start)
                    elif isinstance(message, View):
                        received[(game_no, message.seq)] = clock()
                        view = message.view
                        if view.outcome is None and client.seat in view.waiting_for:
                            await asyncio.sleep(GAP)
                            if client.view is not None and client.view.seq == message.seq:
                                sent[(game_no, message.seq + 1)] = clock()
                                await client.move(decide(brain, view), message.seq)
        except TimeoutError:
            pass
        finally:
            await client.close()
        return received, sent

    conn.send(asyncio.run(main()))


def echo_process(url: str, count: int, conn: Any) -> None:
    """Round trips of a bare echo, from a process of its own."""

    async def main() -> list[float]:
        payload = os.urandom(ECHO_BYTES)
        samples = []
        async with connect(url, compression=None) as ws:
            for i in range(count + count // 10):
                start = clock()
                await ws.send(payload)
                await ws.recv()
                if i >= count // 10:  # the first tenth warms up
                    samples.append(clock() - start)
                await asyncio.sleep(GAP)  # like the seats: a process that waits, then acts
        return samples

    conn.send(asyncio.run(main()))


async def spawn(target: Any, *args: Any) -> Any:
    """Run ``target(*args, conn)`` in a fresh process; what it sends back."""
    ctx = multiprocessing.get_context("spawn")
    here, there = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=target, args=(*args, there), daemon=True)
    proc.start()
    loop = asyncio.get_running_loop()
    try:
        return await loop.run_in_executor(None, here.recv)
    finally:
        await loop.run_in_executor(None, proc.join, 10)


async def own_process_round_trips(game: str, duration: float, journal_dir: str | None) -> list[float]:
    """Move-to-every-view times with the host here and each seat in its own process."""
    config = HostConfig(
        game=game,
        seats=SEATS,
        headless=True,
        autostart=True,
        once=False,
        bot_delay=0,
        seed=1,
        bind="127.0.0.1",
        port=0,
        journal_dir=journal_dir,
    )
    async with Host(config) as host:
        reports = await asyncio.gather(*(spawn(seat_process, host.url, i, game, duration) for i in range(SEATS)))
    samples = []
    for key, start in reports[0][1].items() | {k: v for r in reports[1:] for k, v in r[1].items()}.items():
        times = [r[0].get(key) for r in reports]
        if all(t is not None for t in times):
            samples.append(max(times) - start)
    return samples


async def own_process_echo(count: int) -> list[float]:
    async def echo(ws: Any) -> None:
        async for message in ws:
            await ws.send(message)

    async with serve(echo, "127.0.0.1", 0, compression=None) as server:
        port = server.sockets[0].getsockname()[1]
        return await spawn(echo_process, f"ws://127.0.0.1:{port}", count)


# --- capacity: many tables, one host process ------------------------------------------------------


# --- main ---------------------------------------------------------------------------------


def compare(table: list[float], echo: list[float]) -> dict[str, Any]:
    return {
        "table_4_seats": summary(table),
        "bare_echo": summary(echo),
        "ratio_p50": round(percentile(table, 0.5) / percentile(echo, 0.5), 2),
        "ratio_p99": round(percentile(table, 0.99) / percentile(echo, 0.99), 2),
    }


async def main(args: argparse.Namespace) -> dict[str, Any]:
    rounds = 3
    same_table: list[float] = []
    same_echo: list[float] = []
    own_table: list[float] = []
    own_echo: list[float] = []
    frame = 0
    folder = tempfile.TemporaryDirectory(prefix="quackbox-bench-")
    journal_dir = None if args.no_journal else folder.name
    for n in range(rounds):
        print(f"latency round {n + 1} of {rounds}", file=sys.stderr)
        same_echo += await echo_round_trips(ECHO_BYTES, args.samples // rounds * 2)
        samples, frame = await table_round_trips(args.game, args.samples // rounds, journal_dir)
        same_table += samples
        own_echo += await own_process_echo(args.samples // rounds)
        own_table += await own_process_round_trips(args.game, max(4.0, args.samples / rounds * 0.02), journal_dir)
    folder.cleanup()
    report: dict[str, Any] = {"game": args.game}
    report["latency"] = {
        "one_process": compare(same_table, same_echo),
        "own_processes": compare(own_table, own_echo),
        "echo_frame_bytes": ECHO_BYTES,
        "move_frame_bytes": frame,
        "journal": "off" if args.no_journal else "on disk before relaying, as a real host",
    }
    report["machine"] = {
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
    }
    return report


def run() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="side-effects", choices=sorted(games.GAMES))
    parser.add_argument("--samples", type=int, default=600, help="moves timed on the single table")
    parser.add_argument("--quick", action="store_true", help="a short run: fewer samples")
    parser.add_argument("--no-journal", action="store_true", help="the host keeps no journal (a real host does)")
    args = parser.parse_args()
    if args.quick:
        args.samples = 200
    raise_file_limit()
    print(json.dumps(asyncio.run(main(args)), indent=2))


if __name__ == "__main__":
    run()
