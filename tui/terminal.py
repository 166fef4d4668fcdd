"""The terminal writer: what the app sends to its terminal, and what the terminal then shows.

Over SSH every byte the app writes crosses the network. Textual hands each
screen update to the app as the cells of the regions some widget marked
dirty, and writes them whole, each line from the widget's left edge and
every segment with all its colour codes and a reset. The writer here keeps
what the terminal shows, cell by cell (:class:`Shown`), compares each update
with it and writes only the cells that differ, each run from its first
changed cell, with only the colour codes that change on the way.

So the terminal is always what the writer last wrote, and a widget never
has to guess what is on screen: it marks itself dirty when its drawing
changes and the writer finds the cells. What is not known (at the start,
after a resize or a suspend) is written whole.

This is the only module of quackbox that uses Textual's private API: the
compositor's updates (``textual._compositor``), ``App._display``, the
batch that holds painting during a resize, and the caches a fresh render
goes around (:func:`fresh_frame`); and, for the tests, the screen as
a full repaint draws it (:func:`full_update`) and where each widget was
laid out (:func:`placements`). :func:`private_api_problems` lists what
a Textual upgrade broke; a test fails on it with that list.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any, Callable, Generic, Iterable, Iterator, Sequence, TypeVar

from rich.cells import cell_len
from rich.color import ColorSystem
from rich.console import Console
from rich.control import Control
from rich.style import Style
from textual import events
from textual._compositor import ChopsUpdate, CompositorUpdate, LayoutUpdate
from textual._styles_cache import StylesCache
from textual.app import App
from textual.binding import Binding
from textual.geometry import Region
from textual.screen import Screen
from textual.strip import Strip
from textual.timer import Timer
from textual.widget import Widget

ReturnType = TypeVar("ReturnType")

JOIN = 4
"""Unchanged cells between two changed runs of a row that are written anyway (moving
the cursor past them costs about as much as writing them)."""

RESIZE_SETTLE = 0.1
"""Seconds a resize is given to settle before the screen is painted, once."""

_ATTRIBUTES = (
    ("bold", "1"),
    ("dim", "2"),
    ("italic", "3"),
    ("underline", "4"),
    ("blink", "5"),
    ("blink2", "6"),
    ("reverse", "7"),
    ("conceal", "8"),
    ("strike", "9"),
    ("underline2", "21"),
    ("frame", "51"),
    ("encircle", "52"),
    ("overline", "53"),
)
"""Each text attribute and its SGR code, as Rich writes them."""

Pen = tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], str]
"""What a cell is drawn with: its attributes' codes, its foreground's, its background's, and its link."""

Cell = tuple[str, Pen]
"""A character and its pen; the right half of a wide character is an empty string."""

BLANK: Cell = (" ", ((), (), (), ""))


def _pen(style: Style | None, system: ColorSystem) -> Pen:
    if style is None:
        return (), (), (), ""
    attrs = tuple(code for name, code in _ATTRIBUTES if getattr(style, name))
    fg = tuple(style.color.downgrade(system).get_ansi_codes()) if style.color else ()
    bg = tuple(style.bgcolor.downgrade(system).get_ansi_codes(foreground=False)) if style.bgcolor else ()
    return attrs, fg, bg, style.link or ""


class Pens:
    """Each style's pen for one colour system, worked out once (a screen has few styles)."""

    def __init__(self, system: ColorSystem) -> None:
        self.system = system
        self._pens: dict[Style | None, Pen] = {}

    def __call__(self, style: Style | None) -> Pen:
        pen = self._pens.get(style)
        if pen is None:
            pen = self._pens[style] = _pen(style, self.system)
        return pen


def cells_of(strips: Iterable[Strip], pens: Pens) -> list[Cell]:
    """The cells of ``strips`` side by side (control segments take none)."""
    out: list[Cell] = []
    for strip in strips:
        for text, style, control in strip:
            if control:
                continue
            pen = pens(style)
            if text.isascii():
                out.extend((ch, pen) for ch in text)
                continue
            for ch in text:
                width = cell_len(ch)
                if width == 0 and out:  # a combining mark rides on the cell before it
                    out[-1] = (out[-1][0] + ch, out[-1][1])
                    continue
                out.append((ch, pen))
                if width == 2:
                    out.append(("", pen))
    return out


def sgr(before: Pen | None, after: Pen) -> str:
    """The codes that turn pen ``before`` (None: not known) into ``after``: only what
    changed, and a reset only where an attribute goes off."""
    if before == after:
        return ""
    attrs, fg, bg, link = after
    out = []
    if before is not None and before[3] != link and before[3]:
        out.append("\x1b]8;;\x1b\\")
    if before is None or not set(before[0]) <= set(attrs):
        codes = ["0", *attrs, *fg, *bg]
    else:
        codes = [a for a in attrs if a not in before[0]]
        codes += (fg or ("39",)) if fg != before[1] else ()
        codes += (bg or ("49",)) if bg != before[2] else ()
    if codes:
        out.append(f"\x1b[{';'.join(codes)}m")
    if link and (before is None or before[3] != link):
        out.append(f"\x1b]8;;{link}\x1b\\")
    return "".join(out)


def written(cells: Sequence[Cell], pen: Pen | None = None) -> tuple[str, Pen | None]:
    """What the terminal is sent for ``cells``, starting with the terminal's pen at ``pen``;
    and the pen it is left with."""
    out = []
    for ch, after in cells:
        if after != pen:
            out.append(sgr(pen, after))
            pen = after
        out.append(ch)
    return "".join(out), pen


@dataclass
class Run:
    """Cells written in one go: row ``y`` from column ``x``."""

    y: int
    x: int
    cells: list[Cell]

    @property
    def end(self) -> int:
        return self.x + len(self.cells)


@dataclass
class Frame:
    """One update as written: its runs and the text sent for them."""

    runs: list[Run] = field(default_factory=list)
    text: str = ""
    whole: bool = False
    """Everything was written (the terminal's content was not known)."""


def changed_runs(y: int, old: Sequence[Cell | None], new: Sequence[Cell], x0: int = 0) -> list[Run]:
    """Where ``new`` differs from ``old`` (a row of the terminal, None where unknown),
    comparing from column ``x0``: runs of changed cells, those at most :data:`JOIN`
    apart joined, each widened to whole characters."""
    runs: list[Run] = []
    start = last = -1
    for i, cell in enumerate(new):
        x = x0 + i
        if old[x] == cell:
            continue
        if start >= 0 and x - last > JOIN + 1:
            runs.append(_run(y, start, last + 1, new, x0))
            start = x
        elif start < 0:
            start = x
        last = x
    if start >= 0:
        runs.append(_run(y, start, last + 1, new, x0))
    return runs


def _run(y: int, start: int, end: int, new: Sequence[Cell], x0: int) -> Run:
    while start > x0 and new[start - x0][0] == "":  # the right half of a wide character
        start -= 1
    while end - x0 < len(new) and new[end - x0][0] == "":
        end += 1
    return Run(y, start, list(new[start - x0 : end - x0]))


class Shown:
    """What the terminal shows: every cell as last written (None where not known)."""

    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.height = height
        self.rows: list[list[Cell | None]] = [[None] * width for _ in range(height)]

    def apply(self, run: Run) -> None:
        self.rows[run.y][run.x : run.end] = run.cells


class Writer:
    """Turns the compositor's updates into what the terminal must be sent."""

    def __init__(self) -> None:
        self.shown: Shown | None = None
        self._pens: dict[ColorSystem, Pens] = {}
        self.listeners: list[Callable[[Frame], None]] = []
        """Called with each frame once it is written (how tests see what was sent)."""

    def forget(self) -> None:
        """The terminal's content is no longer known: the next update is written whole."""
        self.shown = None

    def frame(self, update: CompositorUpdate, width: int, height: int, system: ColorSystem) -> Frame:
        """What to send for ``update`` of a screen ``width`` by ``height``."""
        pens = self._pens.get(system) or self._pens.setdefault(system, Pens(system))
        shown = self.shown
        whole = shown is None or (shown.width, shown.height) != (width, height)
        if whole or shown is None:  # (whole whenever nothing is shown)
            shown = self.shown = Shown(width, height)
        frame = Frame(whole=whole)
        for y, x, cells in self._rows(update, pens, width, height):
            frame.runs += changed_runs(y, shown.rows[y], cells, x)
        out: list[str] = []
        pen: Pen | None = None
        for run in frame.runs:
            out.append(Control.move_to(run.x, run.y).segment.text)
            text, pen = written(run.cells, pen)
            out.append(text)
            shown.apply(run)
        if pen is not None and pen != BLANK[1]:
            out.append("\x1b[0m")
            if pen[3]:
                out.append("\x1b]8;;\x1b\\")
        frame.text = "".join(out)
        return frame

    def sent(self, frame: Frame) -> None:
        """``frame`` has been written to the terminal."""
        for listener in self.listeners:
            listener(frame)

    @staticmethod
    def _rows(update: CompositorUpdate, pens: Pens, width: int, height: int) -> Iterator[tuple[int, int, list[Cell]]]:
        """Each row part of the update: (row, first column, its cells)."""
        if isinstance(update, LayoutUpdate):
            region = update.region
            for y, line in enumerate(update.strips, region.y):
                if 0 <= y < height:
                    yield y, region.x, cells_of(line, pens)[: width - region.x]
        elif isinstance(update, ChopsUpdate):
            for y, x1, x2 in update.spans:
                if not 0 <= y < height:
                    continue
                pieces = []
                first = None
                for end, (x, strip) in zip(update.chop_ends[y], update.chops[y].items()):
                    if strip is None or x >= x2 or end <= x1:
                        continue
                    first = x if first is None else first
                    pieces.append(strip)
                if first is None:
                    continue
                cells = cells_of(pieces, pens)
                # The chops cover whole widgets; the span is the part that changed.
                lo, hi = max(x1, first), min(x2, first + len(cells), width)
                while lo > first and cells[lo - first][0] == "":
                    lo -= 1
                yield y, lo, cells[lo - first : hi - first]


class Written(CompositorUpdate):
    """An update as the writer wrote it (what ``App._display`` sends)."""

    def __init__(self, frame: Frame) -> None:
        self.frame = frame

    def render_segments(self, console: Console) -> str:
        return self.frame.text


class TerminalApp(App[ReturnType], Generic[ReturnType]):
    """An app whose screen updates go through a :class:`Writer`, and whose resizes
    are painted once."""

    BINDINGS = [Binding("ctrl+l", "redraw", "redraw the screen", show=False)]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.writer = Writer()
        self._settling: Timer | None = None
        """The timer that ends the resize under way (None: no resize is settling)."""

    resize_settle = RESIZE_SETTLE
    """Seconds a resize is given to settle (a test may hold one open as long as it likes)."""

    @property
    def resizing(self) -> bool:
        """Whether a resize is settling: painting is held until it ends, in one frame."""
        return self._settling is not None

    def on_mount(self) -> None:
        # Whatever ran in the terminal while the app was suspended left its own cells.
        self.app_resume_signal.subscribe(self, lambda _app: self.action_redraw())

    def _display(self, screen: Screen[Any], renderable: Any) -> None:
        if isinstance(renderable, CompositorUpdate) and not self._batch_count:
            width, height = self.size
            system = self.console._color_system or ColorSystem.TRUECOLOR  # as Strip.render
            if self.writer.shown is None and not isinstance(renderable, LayoutUpdate):
                # What the terminal shows is not known, and this is only part of the
                # screen: the next frame paints it all.
                self.repaint_whole()
                return
            frame = self.writer.frame(renderable, width, height, system)
            if frame.text:
                # A CompositorUpdate, which App._display writes as it is (it checks for one
                # first), though its annotation names only Rich renderables.
                super()._display(screen, Written(frame))  # type: ignore[arg-type]
                self.writer.sent(frame)
            return
        super()._display(screen, renderable)

    def repaint_whole(self) -> None:
        """Paint the whole screen in the next frame."""
        screen = self.screen
        screen._dirty_widgets.add(screen)
        screen.refresh()

    def on_resize(self, event: events.Resize) -> None:
        # What a terminal keeps of its cells when resized is its own affair: the
        # next frame is written whole. Textual lays out and paints a resized screen
        # several times over (and the screen under it too); painting is held until
        # the resize has settled, then done once.
        if self.screen_stack and self.screen.size and event.size != self.screen.size:
            self.writer.forget()
            if self._settling is None:
                self._begin_batch()
            else:  # a resize during a resize: the settling starts again
                self._settling.stop()
            self._settling = self.set_timer(self.resize_settle, self.settle_resize)

    def settle_resize(self) -> None:
        """The end of a resize: the screen is painted whole, in one frame.

        Textual would paint its pending layout and then repaint the screen, two
        frames; with the screen already among its dirty widgets when the batch
        ends, the layout pass paints it all and the repaint finds nothing left.
        An app closing meanwhile has no screen left to paint: the timer can fire
        while Textual takes the screens down, before it stops the app's timers.
        """
        if self._settling is None:
            return
        self._settling = None
        if self.is_running and self.screen_stack:
            self.repaint_whole()
        self._end_batch()

    def action_redraw(self) -> None:
        """Write the whole screen again (for a terminal something else wrote on)."""
        self.writer.forget()
        self.repaint_whole()


# --- a fresh render, for the screen check ----------------------------------------------------


def fresh_frame(app: App[Any]) -> LayoutUpdate:
    """The whole screen as a full repaint would draw it now: every visible widget
    rendered afresh, past Textual's caches of rendered lines (which a resize
    would clear), then the caches put back as they were, so the app goes on
    exactly as if this had not been asked."""
    screens = [*app._background_screens, app.screen]
    saved = []
    for screen in screens:
        for widget in screen._compositor.visible_widgets:
            saved.append((widget, widget._styles_cache, widget._render_cache, set(widget._dirty_regions)))
            widget._styles_cache = StylesCache()
            widget._dirty_regions.add(widget.size.region)
    try:
        compositor = app.screen._compositor
        dirty = set(compositor._dirty_regions)
        update = compositor.render_update(full=True, screen_stack=app._background_screens)
        compositor._dirty_regions.update(dirty)
    finally:
        for widget, styles, render, regions in saved:
            widget._styles_cache = styles
            widget._render_cache = render
            widget._dirty_regions.clear()
            widget._dirty_regions.update(regions)
    assert isinstance(update, LayoutUpdate)
    return update


def full_update(app: App[Any]) -> LayoutUpdate:
    """The whole screen as a full repaint would draw it now from what Textual holds
    rendered (its caches as they are, unlike :func:`fresh_frame`), the screens under
    a dialog included: what a person reads, for tests that read the screen."""
    update = app.screen._compositor.render_update(full=True, screen_stack=app._background_screens, simplify=True)
    assert isinstance(update, LayoutUpdate)
    return update


def placements(screen: Screen[Any]) -> dict[Widget, tuple[Region, Region]]:
    """Where each widget of ``screen`` was last laid out, in screen coordinates: its
    region and the clip its containers give it (a widget cut off by its container
    has a region its clip does not contain)."""
    return {widget: (geometry.region, geometry.clip) for widget, geometry in screen._compositor.full_map.items()}


def repaint_pending(app: App[Any]) -> bool:
    """Whether a repaint has been asked for and not yet painted (a widget's refresh on
    its way to the screen, a layout to do): the frame last written is not the whole
    of the app's state yet, and the next one follows."""
    # The screens under this one show only through a translucent one (a dialog).
    under = app._background_screens if app.screen.styles.background.a < 1 else []
    for screen in [*under, app.screen]:
        # (The screen's _dirty_widgets still names the widgets of the frame being written.)
        if screen._compositor._dirty_regions:
            return True
        for widget in screen._compositor.visible_widgets:  # a hidden widget's repaint shows nothing
            if (
                widget._repaint_required
                or widget._layout_required
                or widget._refresh_styles_required
                or widget._repaint_regions
            ):
                return True
    return False


# --- what Textual must still offer -----------------------------------------------------------


def private_api_problems(app: App[Any]) -> list[str]:
    """What this module uses of Textual's private API and a running ``app`` no longer
    offers (empty when all is there): a Textual upgrade that breaks the writer shows here."""
    problems = []

    def need(ok: Any, what: str) -> None:
        if not ok:
            problems.append(what)

    for cls, names in ((ChopsUpdate, ("chops", "spans", "chop_ends")), (LayoutUpdate, ("strips", "region"))):
        params = inspect.signature(cls.__init__).parameters
        need(all(n in params for n in names), f"{cls.__name__}({', '.join(names)})")
    display = getattr(App, "_display", None)
    need(
        callable(display) and list(inspect.signature(display).parameters)[1:] == ["screen", "renderable"],
        "App._display(screen, renderable)",
    )
    need(
        callable(getattr(app, "_begin_batch", None)) and callable(getattr(app, "_end_batch", None)),
        "App._begin_batch and App._end_batch",
    )
    need(isinstance(getattr(app, "_batch_count", None), int), "App._batch_count")
    need(isinstance(getattr(app, "_background_screens", None), list), "App._background_screens")
    screen = app.screen
    need(isinstance(getattr(screen, "_dirty_widgets", None), set), "Screen._dirty_widgets")
    compositor = getattr(screen, "_compositor", None)
    need(
        compositor is not None
        and isinstance(getattr(compositor, "_dirty_regions", None), set)
        and callable(getattr(compositor, "render_update", None))
        and hasattr(compositor, "visible_widgets")
        and isinstance(getattr(compositor, "full_map", None), dict),
        "Screen._compositor (render_update, visible_widgets, full_map, _dirty_regions)",
    )
    need(isinstance(getattr(screen, "_styles_cache", None), StylesCache), "Widget._styles_cache")
    need(
        hasattr(screen, "_render_cache") and isinstance(getattr(screen, "_dirty_regions", None), set),
        "Widget._render_cache and Widget._dirty_regions",
    )
    need(
        all(
            isinstance(getattr(screen, name, None), bool)
            for name in ("_repaint_required", "_layout_required", "_refresh_styles_required")
        )
        and isinstance(getattr(screen, "_repaint_regions", None), set),
        "Widget._repaint_required, _layout_required, _refresh_styles_required, _repaint_regions",
    )
    need(isinstance(getattr(app.console, "_color_system", None), (ColorSystem, type(None))), "Console._color_system")
    return problems


__all__ = [
    "BLANK",
    "JOIN",
    "RESIZE_SETTLE",
    "Cell",
    "Frame",
    "Run",
    "Shown",
    "TerminalApp",
    "Writer",
    "cells_of",
    "changed_runs",
    "fresh_frame",
    "full_update",
    "placements",
    "private_api_problems",
    "repaint_pending",
    "sgr",
    "written",
]
