"""The screen check: after every frame the app writes, the terminal shows what a full repaint would.

Every byte the app writes goes into a terminal emulator (pyte). After each
frame the emulated screen is compared cell by cell (the character, both
colours and every attribute) with a full repaint of the same moment (a frame
written while a widget's repaint is still on its way to the screen, which
Textual sends in the next frame, is compared at the next one; and the screen
once more when the game is over and the app idle): every
widget rendered afresh, past Textual's caches
(:func:`quackbox.tui.terminal.fresh_frame`), written by Textual's own
writer into a blank emulator. So a frame that leaves a cell behind, writes
a cell with the wrong colour or forgets to repaint a part shows up as a
differing cell, whichever widget or writer is to blame.

:func:`check_game` plays a whole seeded game at the table (the real rules
behind :class:`tests.tui.fakes.RulesTable`, bots choosing every move),
seated or watching, and does to the app what a person would meanwhile:
keys that pick and aim cards, resizes and back, the keys, rules and leave
dialogs opened and closed, the full log and back, chat, seats going away,
countdowns running on a clock the check moves, and trades. ``make test``
runs bounded games (tests/tui/test_screen_check.py); ``python -m
bench.terminal --verify`` runs long ones.
"""

from __future__ import annotations

import random
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, NamedTuple

import pyte
from textual.drivers.headless_driver import HeadlessDriver
from wcwidth import wcwidth

from quackbox.core import bots as core_bots
from quackbox.core import games
from quackbox.core.play import next_move
from quackbox.core.rules import RulesError
from quackbox.tui.app import QuackboxApp, make_app
from quackbox.tui.table import TableScreen
from quackbox.tui.terminal import fresh_frame, repaint_pending
from tests.tui.fakes import ManualClock, RulesTable, lobby_of, opener_for, settled, wait_for

# --- the emulator ----------------------------------------------------------------------------


class Cell(NamedTuple):
    """One cell of the emulated screen, with every attribute the app may write."""

    data: str = " "
    fg: str = "default"
    bg: str = "default"
    bold: bool = False
    dim: bool = False
    italics: bool = False
    underscore: bool = False
    blink: bool = False
    reverse: bool = False
    conceal: bool = False
    strikethrough: bool = False
    overline: bool = False


_ON = {
    1: "bold",
    2: "dim",
    3: "italics",
    4: "underscore",
    5: "blink",
    6: "blink",
    7: "reverse",
    8: "conceal",
    9: "strikethrough",
    21: "underscore",
    53: "overline",
}
_OFF = {
    22: ("bold", "dim"),
    23: ("italics",),
    24: ("underscore",),
    25: ("blink",),
    27: ("reverse",),
    28: ("conceal",),
    29: ("strikethrough",),
    55: ("overline",),
}


def with_sgr(pen: Cell, codes: list[int]) -> Cell:
    """``pen`` after the SGR codes ``codes`` (as xterm reads them)."""
    codes = codes or [0]
    while codes:
        code = codes.pop(0)
        if code == 0:
            pen = Cell()
        elif code in _ON:
            pen = pen._replace(**{_ON[code]: True})
        elif code in _OFF:
            pen = pen._replace(**dict.fromkeys(_OFF[code], False))
        elif code in (38, 48) and codes:
            key = "fg" if code == 38 else "bg"
            kind = codes.pop(0)
            if kind == 5 and codes:
                pen = pen._replace(**{key: pyte.graphics.FG_BG_256[codes.pop(0)]})
            elif kind == 2 and len(codes) >= 3:
                r, g, b = codes[:3]
                del codes[:3]
                pen = pen._replace(**{key: f"{r:02x}{g:02x}{b:02x}"})
        elif code == 39:
            pen = pen._replace(fg="default")
        elif code == 49:
            pen = pen._replace(bg="default")
        elif 30 <= code <= 37 or 90 <= code <= 97:
            pen = pen._replace(fg=pyte.graphics.FG_ANSI.get(code) or pyte.graphics.FG_AIXTERM[code])
        elif 40 <= code <= 47 or 100 <= code <= 107:
            pen = pen._replace(bg=pyte.graphics.BG_ANSI.get(code) or pyte.graphics.BG_AIXTERM[code])
    return pen


class Terminal(pyte.Screen):
    """A pyte screen that also keeps the attributes pyte drops (dim, conceal, overline)."""

    def __init__(self, columns: int, lines: int) -> None:
        super().__init__(columns, lines)
        self._stream = pyte.Stream(self)
        self.written = 0
        """Bytes fed so far."""

    @property
    def default_char(self) -> Cell:  # pyte's blank cell, with our fields
        return Cell()

    def reset(self) -> None:
        super().reset()
        self.cursor.attrs = Cell()

    def feed(self, data: str) -> None:
        self.written += len(data.encode())
        self._stream.feed(data)

    def select_graphic_rendition(self, *attrs: int, private: bool = False) -> None:
        self.cursor.attrs = with_sgr(self.cursor.attrs, list(attrs))

    def cells(self) -> list[list[Cell]]:
        return [[self.buffer[y][x] for x in range(self.columns)] for y in range(self.lines)]

    def rows(self) -> list[str]:
        return rows_of(self.cells())


def rows_of(cells: list[list[Cell]]) -> list[str]:
    return ["".join(cell.data for cell in row) for row in cells]


_SEQUENCE = re.compile(r"\x1b\[([0-9;]*)([A-Za-z])|\x1b\]8;[^\x1b]*\x1b\\|\n")


def painted(text: str, width: int, height: int) -> list[list[Cell]]:
    """The screen a blank terminal shows after ``text``, a full repaint as Textual writes
    one (cursor moves, colour codes, links and characters; nothing else occurs in it).
    Read here rather than by pyte because it is done for every frame, and pyte is slow."""
    screen = [[Cell() for _ in range(width)] for _ in range(height)]
    pen, x, y = Cell(), 0, 0
    at = 0
    for match in [*_SEQUENCE.finditer(text), None]:
        chunk = text[at : match.start() if match else len(text)]
        rest = tuple(pen)[1:]
        for ch in chunk:
            w = 1 if " " <= ch <= "~" else wcwidth(ch)
            if w <= 0:
                continue
            if 0 <= y < height and x + w <= width:
                screen[y][x] = Cell(ch, *rest)
                if w == 2:
                    screen[y][x + 1] = Cell("", *rest)
            x += w
        if match is None:
            break
        at = match.end()
        params, final = match.group(1), match.group(2)
        if final == "m":
            pen = with_sgr(pen, [int(p) if p else 0 for p in params.split(";")] if params else [0])
        elif final == "H":
            row, _, column = (params or "1;1").partition(";")
            y, x = int(row or 1) - 1, int(column or 1) - 1
        elif match.group(0) == "\n":
            y += 1
    return screen


def terminal_driver(terminal: Terminal) -> type[HeadlessDriver]:
    """A driver that writes what the app sends into ``terminal`` (and reads no keys:
    the check presses them through Textual's Pilot)."""

    class Driver(HeadlessDriver):
        @property
        def is_headless(self) -> bool:
            return False

        def write(self, data: str) -> None:
            terminal.feed(data)

    return Driver


# --- comparing ----------------------------------------------------------------------------------


@dataclass
class Difference:
    """One frame whose screen differed from the full repaint."""

    frame: int
    cells: int
    rows: list[tuple[int, str, str]]
    """Some differing rows: (row, what the terminal shows, what the repaint shows)."""

    def __str__(self) -> str:
        shown = "\n".join(f"  row {y:2}: terminal {got!r}\n          repaint  {want!r}" for y, got, want in self.rows)
        return f"frame {self.frame}: {self.cells} cells differ\n{shown}"


@dataclass
class Tally:
    """What a check compared."""

    frames: int = 0
    """Frames written and compared."""
    unsettled: int = 0
    """Frames written while a repaint was still on its way (compared with the next)."""
    cells: int = 0
    """Cells compared."""
    differing_cells: int = 0
    differences: list[Difference] = field(default_factory=list)
    bytes: int = 0

    def add(self, other: Tally) -> None:
        self.frames += other.frames
        self.unsettled += other.unsettled
        self.cells += other.cells
        self.differing_cells += other.differing_cells
        self.differences += other.differences
        self.bytes += other.bytes

    def figures(self) -> dict[str, int]:
        return {
            "frames": self.frames,
            "frames_unsettled": self.unsettled,
            "cells_compared": self.cells,
            "differing_cells": self.differing_cells,
            "differing_frames": len(self.differences),
            "bytes": self.bytes,
        }


KEPT = 5
"""Differences described in full (the rest are only counted)."""


class ScreenCheck:
    """Runs ``app`` in an emulated terminal and compares it after every frame."""

    def __init__(self, app: QuackboxApp, size: tuple[int, int]) -> None:
        self.app = app
        self.terminal = Terminal(*size)
        self.tally = Tally()
        app.driver_class = terminal_driver(self.terminal)
        app.writer.listeners.append(lambda _frame: self.compare())

    def resize(self, width: int, height: int) -> None:
        """The terminal is resized (as a terminal keeps its cells, pyte keeps them)."""
        self.terminal.resize(lines=height, columns=width)

    def compare(self, *, settled: bool = False) -> None:
        """Compare the terminal with a full repaint (``settled``: the app is idle, compare
        even if Textual still holds a repaint it will never send)."""
        app = self.app
        width, height = app.size
        if (self.terminal.columns, self.terminal.lines) != (width, height):
            return  # a resize whose terminal side has not happened yet
        if repaint_pending(app) and not settled:
            # A widget changed after this frame was made and its repaint is on its way:
            # the frame is not the app's whole state yet. The next frame is compared.
            self.tally.unsettled += 1
            return
        want = painted(fresh_frame(app).render_segments(app.console), width, height)
        got = self.terminal.cells()
        tally = self.tally
        tally.frames += 1
        tally.cells += width * height
        tally.bytes = self.terminal.written
        rows = [y for y in range(height) if got[y] != want[y]]
        if not rows:
            return
        cells = sum(a != b for y in rows for a, b in zip(got[y], want[y]))
        tally.differing_cells += cells
        if len(tally.differences) < KEPT:
            shown, wanted = rows_of(got), rows_of(want)
            tally.differences.append(Difference(tally.frames, cells, [(y, shown[y], wanted[y]) for y in rows[:4]]))
        else:
            tally.differences.append(Difference(tally.frames, cells, []))


# --- a game played with the check on ---------------------------------------------------------


SIZES = ((80, 24), (100, 30), (120, 40))

BOTS = {"side-effects": ("trader", "random", "heuristic", "random"), "quack": ("heuristic",) * 4}
"""Who chooses each seat's moves (the first seat's too when the check sits there): in
Side Effects a trader, for offers to answer, and random bots, whose games run long."""

CHAT = ("good luck!", "hm.", "that was mean", "who has the Lithium?", "ok, my turn next " * 4)

Action = Callable[[], Any]


@dataclass
class Game:
    """One game at the table with the check running."""

    game: str
    seed: int
    size: tuple[int, int]
    seated: bool
    frames: int
    """Stop after this many frames were compared (or when the game ends)."""


async def check_game(spec: Game) -> Tally:
    """Play ``spec``'s game to its end (or its frame budget) with the screen check on."""
    with tempfile.TemporaryDirectory(prefix="quackbox-check-") as config_dir:
        return await _check_game(spec, Path(config_dir))


async def _check_game(spec: Game, config_dir: Path) -> Tally:
    rng = random.Random(spec.seed)
    rules = games.get(spec.game)
    state = rules.new_game(seats=4, options=None, seed=spec.seed)
    seat = 0 if spec.seated else None
    table = RulesTable(
        rules, state, seat=seat, names=[("Ann" if spec.seated and s == 0 else f"Bot {s + 1}") for s in range(4)]
    )
    clock = ManualClock()  # the app's clock, moved by the check: countdowns tick when it says
    app = make_app(config_dir=config_dir, opener=opener_for(table), home=False, cursor_blink=False, clock=clock)
    check = ScreenCheck(app, spec.size)
    players = [core_bots.make(spec.game, kind, spec.seed + s) for s, kind in enumerate(BOTS[spec.game])]
    size = spec.size
    async with app.run_test(size=size, headless=False) as pilot:
        table.begin()
        await wait_for(
            pilot, lambda: app.table_screen is not None and app.table_screen.view is not None, what="the table"
        )
        screen: TableScreen = app.table_screen

        async def settle() -> None:
            await pilot.pause()

        async def move() -> None:
            if rules.outcome(state) is not None:
                return
            who, chosen = next_move(rules, state, players)
            try:
                table.act(who, chosen)
            except RulesError:
                return  # our own seat moved first (a key, an auto-pass): the next pick sees it

        async def keys() -> None:
            if not spec.seated or app.screen is not screen:
                return
            hand = len(getattr(screen.board.view, "hand", ()) or ())
            for _ in range(rng.randint(1, 4)):
                key = rng.choice(["left", "right", "up", "down", "escape", *(str(n) for n in range(1, hand + 1))])
                await pilot.press(key)

        async def resize() -> None:
            nonlocal size
            other = rng.choice([s for s in SIZES if s != size])
            for width, height in (other, spec.size):
                check.resize(width, height)
                await pilot.resize_terminal(width, height)
                await settled(pilot, app)
                size = (width, height)

        async def dialog() -> None:
            if app.screen is not screen:
                return
            # The keys and the rules are pages of Markdown, slow to open: now and then.
            choices = [
                ("l", "escape"),
                ("l", "escape"),
                *((("question_mark", "escape"), ("r", "q")) if rng.random() < 0.25 else ()),
            ]
            if spec.seated and screen.view.outcome is None:
                choices.append(("q", "n"))  # watching, or over, q leaves the table at once
            if spec.game == "side-effects" and spec.seated:
                choices.append(("t", "escape"))
            key, close = rng.choice(choices)
            await pilot.press(key)
            await settle()
            await pilot.press(close)

        async def chat() -> None:
            table.say(rng.randrange(4), rng.choice(CHAT))

        async def presence() -> None:
            away = [s for s in range(1, 4) if rng.random() < 0.3]
            table.push(lobby_of(table.names, away=away))

        async def tick() -> None:
            clock.advance(rng.choice([0.3, 1.0, 2.0]))

        actions: list[tuple[Action, int]] = [
            (move, 60),
            (keys, 10),
            (resize, 2),
            (dialog, 4),
            (chat, 4),
            (presence, 2),
            (tick, 8),
        ]
        while check.tally.frames < spec.frames and rules.outcome(state) is None:
            action = rng.choices([a for a, _ in actions], weights=[w for _, w in actions])[0]
            await action()
            await settle()
            for _ in range(3):
                if app.screen is screen:
                    break
                await pilot.press("escape")  # a dialog the game opened (an Anxiety choice, a trade offer)
                await settle()
        # At the end, idle (no resize settling, every message handled and the screen's pending
        # update painted): what the terminal shows must be the whole state.
        await settled(pilot, app)
        check.compare(settled=True)
    return check.tally
