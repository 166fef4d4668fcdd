"""Terminal traffic: the bytes the real app writes to its terminal, and what for.

    python -m bench.terminal [--game G] [--size 80x24] [--moves 24] [--delay 1.0] [--seed 5]
    python -m bench.terminal --verify [--game G] [--seeds 1,2] [--frames N]

Over SSH every byte the app writes crosses the network. This bench runs the
real program (``quackbox join``) in a pseudo-terminal of the given size with
TERM=xterm-256color, reads every byte it writes, and attributes each one.
The table is a host in this process on 127.0.0.1 (bots paced ``--delay``
seconds apart), and a spectator client of its own tells the bench when each
move happened. Three runs per game:

- ``spectator``: the app watches a 4-bot game. Each view starts a burst of
  output (until the terminal is quiet for ``GAP``): ``spectator_move``.
- ``seated``: the app holds a seat at a table of 3 bots; a turn timer lets a
  stand-in bot play for it, so the seat sees its own hand change too:
  ``seated_move``.
- ``keys``: the app holds a seat and nobody plays for it. On its turn, with
  the table quiet: ``idle_second`` (bytes in each quiet second),
  ``highlight_key`` (a right arrow: the highlight moves to the next card),
  ``full_repaint`` (``q`` from the keys screen back to the table, which
  redraws all of it) and ``resize`` (two columns wider, then back). Each is
  the output until the terminal has been quiet for ``QUIET``; ``frames``
  counts the repaints (synchronized updates) each took.

In the spectator and seated runs, output after a move's burst while the host
runs a countdown (a Quack response window, Tremors) is ``countdown`` and is
also given per second of countdown (``countdown_second``, from countdowns
of at least half a second after the burst). For Quack a fourth run watches
until ``COUNTDOWNS`` response windows have waited for a slow person (a client
of the bench's own that answers ``COUNTDOWN_DELAY`` seconds after it is
asked: bots answer a window at once), so each counts down that long; after a burst
with no countdown it is ``between_moves`` (nothing should be there, but a
paint slowed past ``GAP`` by a busy machine lands there too).
``*_move_interval`` is everything from one view to the next (the burst, the
countdown and the rest), the move's cost at its most generous. Lobby
messages (a seat going idle) start a burst counted as ``presence``. The rest
(start-up, the first view, dismissing things) is ``other``; ``totals``
adds every category up to every byte read.

``--verify`` runs the screen check (``tests/tui/screen_check.py``) over whole
seeded games instead: both games, seated and watching, at 80x24, 100x30 and
120x40, every frame the app writes fed to a terminal emulator and compared
cell by cell with a full repaint. It prints the frames and cells compared
and the cells that differed (the target is none), and exits 1 if any did.

The bench answers the terminal's synchronized-output query as most modern
terminals do, so each frame Textual writes is bracketed and can be counted.
Figures are bytes: median, p90, max and the number of samples, with the
share of bytes that are escape sequences, and the issue's targets at 80x24.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import fcntl
import json
import os
import platform
import pty
import re
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
GAMES = ("side-effects", "quack")
GAP = 0.07
"""Seconds of quiet that end a burst of output (Textual paints a frame well within it)."""
COUNTDOWNS = 4
"""Response windows watched in the countdown run."""
COUNTDOWN_DELAY = 3.0
"""Seconds the slow person of the countdown run takes to answer, so that each response
window waiting for it counts down that long."""
QUIET = 0.4
"""Seconds without output after which a key press or a resize counts as fully drawn."""
LEAD = 0.02
"""Output this long before the bench's own client saw a view belongs to that view already."""
SYNC_QUERY = b"\x1b[?2026$p"
SYNC_REPLY = b"\x1b[?2026;2$y"
SYNC_END = b"\x1b[?2026l"
ESCAPES = re.compile(rb"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
RIGHT = b"\x1b[C"
"""The right arrow."""
TARGETS = {
    "spectator_move": {"median": 2048, "p90": 4096},
    "seated_move": {"median": 2048, "p90": 4096},
    "highlight_key": {"median": 1024},
    "countdown_second": {"max": 1024},
    "idle_second": {"max": 0},
}
"""The issue's targets at 80x24, in bytes."""


# --- the terminal -------------------------------------------------------------------------


class Terminal:
    """The app in a pseudo-terminal: every chunk it writes, with the time it was read."""

    def __init__(self, argv: list[str], cols: int, rows: int, env: dict[str, str], *, home: str | None = None) -> None:
        self.home = home
        """A throwaway folder the app keeps its files in, removed on close."""
        self.master, slave = pty.openpty()
        self._winsize(slave, cols, rows)
        # A session of its own without a controlling terminal: only the bench signals a resize.
        self.proc = subprocess.Popen(
            argv, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=ROOT, start_new_session=True, close_fds=True
        )
        os.close(slave)
        os.set_blocking(self.master, False)
        self.chunks: list[tuple[float, bytes]] = []
        self.ended = False
        asyncio.get_running_loop().add_reader(self.master, self._readable)

    @staticmethod
    def _winsize(fd: int, cols: int, rows: int) -> None:
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))

    def _readable(self) -> None:
        try:
            data = os.read(self.master, 1 << 16)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            self.ended = True
            asyncio.get_running_loop().remove_reader(self.master)
            return
        self.chunks.append((time.monotonic(), data))
        if SYNC_QUERY in data:
            os.write(self.master, SYNC_REPLY)

    def seen(self, since: int = 0) -> bytes:
        return b"".join(c for _, c in self.chunks[since:])

    async def wait_for(self, needle: bytes, timeout: float = 30.0, since: int = 0) -> None:
        until = time.monotonic() + timeout
        while needle not in self.seen(since):
            if self.ended or time.monotonic() > until:
                raise RuntimeError(f"the app never showed {needle!r}: {self.seen()[-600:]!r}")
            await asyncio.sleep(0.05)

    async def quiet(
        self, since: int, *, shows: bytes = b"", first: float = 10.0, settle: float = QUIET, limit: float = 15.0
    ) -> None:
        """Wait for output after chunk ``since`` that shows ``shows`` (up to ``first``
        seconds), then until none has come for ``settle`` seconds (``limit`` in all)."""
        start = time.monotonic()
        while (len(self.chunks) <= since or shows not in self.seen(since)) and not self.ended:
            if time.monotonic() - start > first:
                break
            await asyncio.sleep(0.02)
        while not self.ended and time.monotonic() - start < limit:
            if time.monotonic() - self.chunks[-1][0] >= settle:
                return
            await asyncio.sleep(0.02)

    def press(self, keys: bytes) -> None:
        os.write(self.master, keys)

    def resize(self, cols: int, rows: int) -> None:
        self._winsize(self.master, cols, rows)
        os.kill(self.proc.pid, signal.SIGWINCH)

    async def close(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGTERM)
        for _ in range(50):
            if self.proc.poll() is not None:
                break
            await asyncio.sleep(0.1)
        else:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        with contextlib.suppress(ValueError, OSError):
            asyncio.get_running_loop().remove_reader(self.master)
        os.close(self.master)
        if self.home is not None:
            shutil.rmtree(self.home, ignore_errors=True)


# --- what the table did, seen by a client of the bench's own ---------------------------------


@dataclass
class Moment:
    at: float
    kind: str
    """"view" or "presence" (a lobby message)."""
    countdown: bool = False
    """The host runs a countdown from this view on."""
    over: bool = False
    waiting_for: tuple[int, ...] = ()


@dataclass
class Watcher:
    """A spectator client that notes when each view and lobby message arrives."""

    client: Any
    moments: list[Moment] = field(default_factory=list)
    human: int | None = None
    """The seat of the app (the only person at the table), once the lobby says."""

    async def run(self) -> None:
        from quackbox.net.protocol import HUMAN, Lobby, View

        with contextlib.suppress(Exception):
            async for message in self.client.messages():
                now = time.monotonic()
                if isinstance(message, View):
                    view = message.view
                    self.moments.append(
                        Moment(
                            now, "view", message.deadline is not None, view.outcome is not None, tuple(view.waiting_for)
                        )
                    )
                elif isinstance(message, Lobby):
                    humans = [s.seat for s in message.seats if s.kind == HUMAN]
                    self.human = humans[0] if humans else None
                    self.moments.append(Moment(now, "presence"))

    def views_since(self, at: float) -> int:
        return sum(1 for m in self.moments if m.at >= at - LEAD)


# --- one run ---------------------------------------------------------------------------------


def app_env(home: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("COLUMNS", "LINES", "COLORTERM", "NO_COLOR") and not k.startswith("TEXTUAL")
    }
    Path(home, "settings.json").write_text(json.dumps({"name": "Bench"}))
    env.update(
        TERM="xterm-256color",
        QUACKBOX_CONFIG_DIR=home,
        QUACKBOX_DATA_DIR=home,
        QUACKBOX_STATE_DIR=home,
        PYTHONPATH=str(ROOT),
    )
    return env


async def slow_person(url: str, game: str, seed: int) -> None:
    """A seat played by a person who answers everything ``COUNTDOWN_DELAY`` seconds
    after being asked (a heuristic bot chooses), so its response windows count down."""
    from quackbox.core import bots as core_bots
    from quackbox.net.client import Client, NetError
    from quackbox.net.protocol import View

    client = await Client.connect(url, name="Slow", reconnect=False)
    bot = core_bots.make(game, "heuristic", seed)
    try:
        async for message in client.messages():
            if not isinstance(message, View) or client.seat not in message.view.waiting_for:
                continue
            await asyncio.sleep(COUNTDOWN_DELAY)
            latest = client.view
            if latest is None or latest.seq != message.seq:
                continue  # the table moved on meanwhile: answer the newer view when it asks
            move = core_bots.decide(bot, latest.view)
            if move is not None:
                with contextlib.suppress(NetError):
                    await client.move(move, latest.seq)
    finally:
        await client.close()


@contextlib.asynccontextmanager
async def table(game: str, *, bots: int, seed: int, delay: float, turn_timer: float | None):
    """A headless 4-seat host on 127.0.0.1 and the bench's watcher at it."""
    from quackbox.net.client import Client
    from quackbox.net.host import Host, HostConfig

    config = HostConfig(
        game=game,
        seats=4,
        bots=bots,
        headless=True,
        autostart=True,
        seed=seed,
        bot_delay=delay,
        away_grace=None,
        turn_timer=turn_timer,
        bind="127.0.0.1",
        port=0,
        journal_dir=None,
        once=True,
    )
    host = Host(config)
    await host.start()
    client = await Client.connect(host.url, name="Watcher", spectate=True, reconnect=False)
    watcher = Watcher(client)
    task = asyncio.create_task(watcher.run())
    try:
        yield host, watcher
    finally:
        with contextlib.suppress(Exception):
            await client.close()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task
        await host.stop()


async def open_app(host: Any, cols: int, rows: int, *, spectate: bool) -> Terminal:
    home = tempfile.mkdtemp(prefix="quackbox-bench-")
    argv = [sys.executable, "-m", "quackbox", "join", f"127.0.0.1:{host.port}", "--name", "Bench"]
    if spectate:
        argv.append("--spectate")
    term = Terminal(argv, cols, rows, app_env(home), home=home)
    await term.wait_for(b"help")  # the table's footer: the first full frame is up
    return term


def bursts(
    chunks: list[tuple[float, bytes]], start: float, end: float
) -> tuple[list[tuple[float, bytes]], list[tuple[float, bytes]]]:
    """The chunks in [start, end): the first burst (until GAP of quiet) and the rest."""
    inside = [(t, c) for t, c in chunks if start <= t < end]
    first = []
    last = start
    for t, c in inside:
        if first and t - last > GAP:
            break
        first.append((t, c))
        last = t
    return first, inside[len(first) :]


def size_of(chunks: list[tuple[float, bytes]]) -> int:
    return sum(len(c) for _, c in chunks)


@dataclass
class Tally:
    """Samples per category and the bytes of every category."""

    samples: dict[str, list[float]] = field(default_factory=dict)
    frames: dict[str, list[int]] = field(default_factory=dict)
    totals: dict[str, int] = field(default_factory=dict)
    escapes: dict[str, int] = field(default_factory=dict)

    def add(self, category: str, data: bytes, *, sample: float | None = None) -> None:
        self.totals[category] = self.totals.get(category, 0) + len(data)
        self.escapes[category] = self.escapes.get(category, 0) + sum(len(m) for m in ESCAPES.findall(data))
        if sample is not None:
            self.samples.setdefault(category, []).append(sample)
            self.frames.setdefault(category, []).append(data.count(SYNC_END))


async def moves_run(
    game: str, cols: int, rows: int, args: argparse.Namespace, tally: Tally, *, seated: bool, countdowns: int = 0
) -> None:
    """Watch ``args.moves`` views arrive and attribute the bytes around each.

    With ``countdowns``, watch (as a spectator, beside a slow person) until
    that many countdowns have waited for that person; the moves in between
    are ``other``.
    """
    category = "seated_move" if seated else "spectator_move" if not countdowns else "other"
    delay = args.delay
    async with table(
        game, bots=3 if seated or countdowns else 4, seed=args.seed, delay=delay, turn_timer=0.2 if seated else None
    ) as (host, watcher):
        person = asyncio.create_task(slow_person(host.url, game, args.seed)) if countdowns else None
        term = await open_app(host, cols, rows, spectate=not seated)
        try:
            begin = time.monotonic() + LEAD
            until = begin + 30 + (countdowns * 40 if countdowns else args.moves * (delay + 1.5))
            while time.monotonic() < until and not term.ended:
                views = [m for m in watcher.moments if m.at >= begin and m.kind == "view"]
                slow = sum(m.countdown and watcher.human in m.waiting_for for m in views)
                done = slow > countdowns if countdowns else len(views) > args.moves
                if done or any(m.over for m in views):
                    break
                await asyncio.sleep(0.1)
            await asyncio.sleep(COUNTDOWN_DELAY if countdowns else delay)  # the last move's burst and countdown
            stop = time.monotonic()
        finally:
            await term.close()
            if person is not None:
                person.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await person
    chunks = term.chunks
    moments = [m for m in watcher.moments if begin <= m.at < stop]
    counted = 0
    edges = [m.at - LEAD for m in moments] + [stop]
    for i, moment in enumerate(moments):
        first, rest = bursts(chunks, edges[i], edges[i + 1])
        name = category if moment.kind == "view" else "presence"
        if name == category and counted >= args.moves:
            name = "other"
        sample = name != "other"
        counted += name == category
        tally.add(name, b"".join(c for _, c in first), sample=size_of(first) if sample else None)
        after = b"".join(c for _, c in rest)
        if name == category and sample:
            tally.samples.setdefault(f"{category}_interval", []).append(size_of(first) + len(after))
        if moment.countdown and moment.kind == "view":
            span = edges[i + 1] - (first[-1][0] if first else edges[i])
            tally.add("countdown", after)
            if span >= 0.5:
                tally.samples.setdefault("countdown_second", []).append(len(after) / span)
        else:
            tally.add("between_moves", after)
    outside = [c for t, c in chunks if t < (edges[0] if moments else stop) or t >= stop]
    tally.add("other", b"".join(outside))


async def keys_run(game: str, cols: int, rows: int, args: argparse.Namespace, tally: Tally) -> None:
    """On the app's own turn, with the table quiet: idle, highlight, full repaint, resize."""
    async with table(game, bots=3, seed=args.seed, delay=args.delay, turn_timer=None) as (host, watcher):
        term = await open_app(host, cols, rows, spectate=False)
        marked = 0  # chunks before this index are attributed
        try:
            if not await our_quiet_turn(watcher, term):
                print(f"{game}: the app's turn never came; no key figures", file=sys.stderr)
                return

            async def measure(
                category: str, keys: bytes | None = None, *, size: tuple[int, int] | None = None, shows: bytes = b""
            ) -> bool:
                """The bytes after ``keys`` or a resize, until the terminal is quiet; not a
                sample if a view came in meanwhile or the screen never showed ``shows``."""
                nonlocal marked
                tally.add("other", term.seen(marked))
                marked = len(term.chunks)
                at = time.monotonic()
                if keys:
                    term.press(keys)
                if size:
                    term.resize(*size)
                await term.quiet(since=marked, shows=shows)
                data = term.seen(marked)
                marked = len(term.chunks)
                counted = bool(data) and watcher.views_since(at) == 0 and shows in data
                tally.add(category if counted else "other", data, sample=len(data) if counted else None)
                return counted

            for _ in range(3):
                tally.add("other", term.seen(marked))
                marked = len(term.chunks)
                at = time.monotonic()
                await asyncio.sleep(1.0)
                data = term.seen(marked)
                marked = len(term.chunks)
                if watcher.views_since(at) == 0:
                    tally.add("idle_second", data, sample=len(data) / (time.monotonic() - at))
            for _ in range(8):
                await measure("highlight_key", RIGHT)
            for _ in range(3):
                # The keys screen covers the table; q brings the table back, drawn afresh.
                if await measure("other", b"?", shows=b"Keys"):
                    await measure("full_repaint", b"q", shows=b"help")
            for _ in range(2):
                await measure("resize", size=(cols + 2, rows))
                await measure("resize", size=(cols, rows))
        finally:
            await term.close()
            tally.add("other", term.seen(marked))


async def our_quiet_turn(watcher: Watcher, term: Terminal, timeout: float = 90.0) -> bool:
    """Wait until the table waits only for the app's seat and nothing has happened for a second."""
    until = time.monotonic() + timeout
    while time.monotonic() < until and not term.ended:
        moments = [m for m in watcher.moments if m.kind == "view"]
        last = watcher.moments[-1] if watcher.moments else None
        if (
            moments
            and watcher.human is not None
            and moments[-1].waiting_for == (watcher.human,)
            and not moments[-1].countdown
            and not moments[-1].over
            and last is not None
            and time.monotonic() - last.at > 1.0
            and (not term.chunks or time.monotonic() - term.chunks[-1][0] > 0.5)
        ):
            return True
        await asyncio.sleep(0.1)
    return False


# --- figures ---------------------------------------------------------------------------------


def figures(values: list[float]) -> dict[str, Any]:
    if not values:
        return {"n": 0}
    ordered = sorted(values)
    p90 = ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]
    return {
        "median": round(statistics.median(ordered)),
        "p90": round(p90),
        "max": round(ordered[-1]),
        "n": len(ordered),
    }


def report(tally: Tally, size: tuple[int, int]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for category in (
        "spectator_move",
        "spectator_move_interval",
        "seated_move",
        "seated_move_interval",
        "highlight_key",
        "full_repaint",
        "countdown_second",
        "idle_second",
        "resize",
        "presence",
    ):
        out[category] = figures(tally.samples.get(category, []))
        if category in tally.frames and category != "countdown_second":
            out[category]["frames"] = round(statistics.median(tally.frames[category]), 1)
    out["totals"] = dict(sorted(tally.totals.items()))
    out["escape_share"] = {k: round(tally.escapes[k] / v, 2) for k, v in sorted(tally.totals.items()) if v}
    if size == (80, 24):
        met = {}
        for category, limits in TARGETS.items():
            got = out[category]
            if got.get("n"):
                met[category] = all(got[k] <= v for k, v in limits.items())
        out["targets_met"] = met
    return out


async def bench_game(game: str, size: tuple[int, int], args: argparse.Namespace) -> dict[str, Any]:
    tally = Tally()
    cols, rows = size
    print(f"{game} {cols}x{rows}: spectator", file=sys.stderr)
    await moves_run(game, cols, rows, args, tally, seated=False)
    print(f"{game} {cols}x{rows}: seated", file=sys.stderr)
    await moves_run(game, cols, rows, args, tally, seated=True)
    print(f"{game} {cols}x{rows}: keys", file=sys.stderr)
    await keys_run(game, cols, rows, args, tally)
    if game == "quack":  # Side Effects counts down only for Tremors, which bots cannot be made to play
        print(f"{game} {cols}x{rows}: countdowns", file=sys.stderr)
        await moves_run(game, cols, rows, args, tally, seated=False, countdowns=COUNTDOWNS)
    return report(tally, size)


def parse_size(text: str) -> tuple[int, int]:
    cols, sep, rows = text.lower().partition("x")
    if not sep or not cols.isdigit() or not rows.isdigit():
        raise argparse.ArgumentTypeError(f"a size is COLUMNSxROWS, like 80x24, not {text!r}")
    return int(cols), int(rows)


VERIFY_SEEDS = (1, 2)
"""Seeds of the games the screen check plays by default (each game, seated and watching, every size)."""


def verify(args: argparse.Namespace) -> dict[str, Any]:
    """The screen check over whole games: what was compared, and what differed."""
    from tests.tui.screen_check import SIZES, Game, Tally, check_game

    result: dict[str, Any] = {"bench": "terminal --verify", "python": platform.python_version(), "runs": []}
    total = Tally()
    for game in args.game or GAMES:
        for seated in (True, False):
            for size in SIZES:
                for seed in args.seeds:
                    spec = Game(game, seed, size, seated, frames=args.frames)
                    started = time.monotonic()
                    tally = asyncio.run(check_game(spec))
                    total.add(tally)
                    run = {
                        "game": game,
                        "seed": seed,
                        "size": f"{size[0]}x{size[1]}",
                        "seat": "seated" if seated else "watching",
                        **tally.figures(),
                        "seconds": round(time.monotonic() - started, 1),
                    }
                    print(json.dumps(run), file=sys.stderr)
                    for difference in tally.differences[:3]:
                        print(difference, file=sys.stderr)
                    result["runs"].append(run)
    result["total"] = total.figures()
    return result


def parse_seeds(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(s) for s in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"seeds are whole numbers separated by commas, like 1,2; not {text!r}"
        ) from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.terminal", description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=GAMES, action="append", help="a game (default both; repeat for more)")
    parser.add_argument("--size", type=parse_size, default=(80, 24), help="the terminal, COLSxROWS (default 80x24)")
    parser.add_argument("--moves", type=int, default=24, help="moves measured per run (default 24)")
    parser.add_argument("--delay", type=float, default=1.0, help="seconds between bot moves (default 1.0)")
    parser.add_argument("--seed", type=int, default=5, help="the tables' seed (default 5)")
    parser.add_argument(
        "--verify",
        action="store_true",
        help="run the screen check over whole games instead (a terminal emulator against full repaints)",
    )
    parser.add_argument(
        "--seeds", type=parse_seeds, default=VERIFY_SEEDS, help="with --verify: the games' seeds (default 1,2)"
    )
    parser.add_argument(
        "--frames",
        type=int,
        default=100_000,
        help="with --verify: stop a game after this many frames (default: play it to the end)",
    )
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    if args.verify:
        checked = verify(args)
        print(json.dumps(checked, indent=2))
        return 1 if checked["total"]["differing_cells"] else 0
    result: dict[str, Any] = {
        "bench": "terminal",
        "python": platform.python_version(),
        "size": f"{args.size[0]}x{args.size[1]}",
        "term": "xterm-256color",
        "moves": args.moves,
        "bot_delay": args.delay,
        "seed": args.seed,
        "games": {},
    }
    for game in args.game or GAMES:
        result["games"][game] = asyncio.run(bench_game(game, args.size, args))
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
