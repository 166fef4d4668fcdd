"""TUI speed: start-up to the first full table, and key press to updated screen.

    python -m bench.tui [--runs 5] [--presses 40]

Start-up: ``quackbox play side-effects`` is started in a pseudo-terminal of
80x24 (TERM=xterm-256color, a throwaway config directory, bots at full speed)
and timed until its first full table is on the terminal: the status line's
"Turn 1" and the footer's "help". Beside it, in the same run and the same
way, a bare Textual app (one Static and a Footer) until its text shows; the
difference is what quackbox adds to Textual's own start (imports, the host
on 127.0.0.1, dealing, the first view over the socket).

Key presses, in process with Textual's Pilot at 80x24: a press of the right
arrow (pick the next card: lit targets, prompt, hand redrawn) until the app
is idle again, beside the same press in a bare app; and a whole move on a
real local table (Enter plays a card; timed until the host's new view is on
the board). Figures are medians (and the best run) in milliseconds, as JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import fcntl
import json
import os
import platform
import pty
import select
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BARE_APP = """
from textual.app import App
from textual.widgets import Footer, Static
class Bare(App):
    def compose(self):
        yield Static("bare textual ready")
        yield Footer()
Bare().run()
"""


def time_to_screen(argv: list[str], needles: tuple[str, ...], env: dict[str, str], timeout: float = 30.0) -> float:
    """Seconds from starting ``argv`` in an 80x24 pty until every needle has been written to it."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=ROOT, start_new_session=True, close_fds=True
    )
    os.close(slave)
    seen = b""
    wanted = [n.encode() for n in needles]
    try:
        while True:
            left = timeout - (time.perf_counter() - start)
            if left <= 0:
                raise TimeoutError(f"{argv} never showed {needles}")
            ready, _, _ = select.select([master], [], [], left)
            if not ready:
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:
                raise RuntimeError(f"{argv} ended before showing {needles}: {seen[-400:]!r}") from None
            seen += chunk
            if all(w in seen for w in wanted):
                return time.perf_counter() - start
    finally:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        # Drain so the child never blocks on a full pty while dying.
        try:
            while select.select([master], [], [], 0)[0] and os.read(master, 65536):
                pass
        except OSError:
            pass
        os.close(master)


def startup(runs: int, config: str) -> dict:
    # The how-to-play card of a first game read already: the start-up timed is the table's.
    Path(config, "settings.json").write_text(
        json.dumps({"name": "Bench", "bot_delay": 0, "introduced": {"side-effects": 1}})
    )
    # Its games are kept in the throwaway folder too, not among the person's own.
    env = dict(
        os.environ,
        TERM="xterm-256color",
        QUACKBOX_CONFIG_DIR=config,
        QUACKBOX_DATA_DIR=config,
        QUACKBOX_STATE_DIR=config,
        COLUMNS="80",
        LINES="24",
        PYTHONPATH=str(ROOT),
    )
    quackbox = [sys.executable, "-m", "quackbox", "play", "side-effects", "--seed", "3", "--name", "Bench"]
    bare = [sys.executable, "-c", BARE_APP]
    ours, theirs = [], []
    for _ in range(runs):  # interleaved, so a busy moment hurts both alike
        theirs.append(time_to_screen(bare, ("bare textual ready",), env))
        ours.append(time_to_screen(quackbox, ("Turn 1", "help"), env))
    return {
        "quackbox_play_first_table_ms": summary(ours),
        "bare_textual_first_screen_ms": summary(theirs),
        "quackbox_extra_ms": round(1000 * (statistics.median(ours) - statistics.median(theirs)), 1),
        "runs": runs,
    }


def summary(seconds: list[float]) -> dict:
    ms = [1000 * s for s in seconds]
    return {"median": round(statistics.median(ms), 1), "best": round(min(ms), 1)}


async def key_presses(presses: int, config: str) -> dict:
    from textual.app import App
    from textual.widgets import Footer, Static

    from quackbox.core import side_effects as se
    from quackbox.core.side_effects import RULES
    from quackbox.tui import se_text
    from quackbox.tui.app import make_app
    from quackbox.tui.session import open_local
    from tests.tui.fakes import RulesTable, opener_for, wait_for

    # 1. Moving between cards on a fixture table (no network in the way).
    session = RulesTable(RULES, RULES.new_game(seats=4, seed=3))
    app = make_app(config_dir=config, opener=opener_for(session), home=False, cursor_blink=False)
    table_ms = []
    async with app.run_test(size=(80, 24)) as pilot:
        session.begin()
        await wait_for(pilot, lambda: app.table_screen is not None and app.table_screen.view is not None)
        await pilot.press("1")
        for _ in range(presses):
            start = time.perf_counter()
            await pilot.press("right")
            table_ms.append(time.perf_counter() - start)

    # 2. The same press in a bare app that redraws one line per press.
    class Bare(App):
        BINDINGS = [("right", "next", "next")]

        def compose(self):
            yield Static("0", id="n")
            yield Footer()

        def action_next(self) -> None:
            widget = self.query_one("#n", Static)
            widget.update(str(int(str(widget.content)) + 1))

    bare_ms = []
    async with Bare().run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        for _ in range(presses):
            start = time.perf_counter()
            await pilot.press("right")
            bare_ms.append(time.perf_counter() - start)

    # 3. A whole move on a real local table: Enter plays, until the host's new view is shown.
    async def opener():
        return await open_local("side-effects", players=4, options={}, name="Bench", seed=3, bot_delay=0)

    app = make_app(config_dir=config, opener=opener, home=False, cursor_blink=False)
    move_ms = []
    async with app.run_test(size=(80, 24)) as pilot:
        give_up = time.perf_counter() + 60
        while len(move_ms) < min(presses, 10) and time.perf_counter() < give_up:
            await wait_for(pilot, lambda: _waiting_on_us(app), timeout=30, what="our turn")
            board = app.table_screen.board
            view = board.view
            if view.phase != se.PLAY:  # a discard-down or Tremors prompt: answer it, untimed
                await pilot.press("1", "d") if view.phase == se.DISCARD_DOWN else await pilot.press("1")
                await pilot.pause(0.05)
                continue
            index = next((i for i, c in enumerate(view.hand) if board.moves_for(c.id)), None)
            if index is None:
                await pilot.press("e")
                await pilot.pause(0.05)
                continue
            await pilot.press(str(index + 1))
            move = board.aimed()
            if move is None or se_text.episode_does_nothing(board.view, move, board.names):
                await pilot.press("escape", "e")  # a warning dialog would time the person, not the table
                await pilot.pause(0.05)
                continue
            seq = app.table_screen.seq
            start = time.perf_counter()
            await pilot.press("enter")
            until = start + 10
            while app.table_screen.seq == seq and time.perf_counter() < until:
                await asyncio.sleep(0.0005)
            await pilot.pause()
            if app.table_screen.seq != seq:
                move_ms.append(time.perf_counter() - start)
    return {
        "pick_next_card_ms": summary(table_ms),
        "bare_textual_keypress_ms": summary(bare_ms),
        "play_a_card_on_local_host_ms": summary(move_ms) if move_ms else None,
        "presses": presses,
        "moves": len(move_ms),
    }


def _waiting_on_us(app) -> bool:
    screen = app.table_screen
    view = screen.view if screen is not None else None
    return view is not None and view.outcome is None and view.seat in view.waiting_for


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.tui", description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="start-ups of each program (default 5)")
    parser.add_argument("--presses", type=int, default=40, help="key presses timed (default 40)")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    with tempfile.TemporaryDirectory(prefix="quackbox-bench-") as config:  # the apps' settings, thrown away
        # The local tables' saved games too: `quackbox games` lists the person's own games.
        os.environ["QUACKBOX_DATA_DIR"] = os.environ["QUACKBOX_STATE_DIR"] = config
        result = {
            "bench": "tui",
            "python": platform.python_version(),
            "machine": platform.machine(),
            "cpus": os.cpu_count(),
            "startup": startup(args.runs, config),
            "keys": asyncio.run(key_presses(args.presses, config)),
        }
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
