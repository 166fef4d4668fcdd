"""Widgets both tables share: the status line, the prompt bar, the log, a row of cards.

Attributes down, messages up: each widget renders what its reactive
attributes say and posts a message when a person picks something. Player
text (names, chat) is only ever put into a ``rich.text.Text`` as plain
characters, never parsed as markup.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Sequence

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.geometry import Region
from textual.message import Message
from textual.reactive import reactive, var
from textual.timer import Timer
from textual.widget import Widget

from core.rules import Move


class MovePicked(Message):
    """A person chose ``move`` on the table; the screen sends it to the host."""

    def __init__(self, move: Move) -> None:
        super().__init__()
        self.move = move


def refresh_keys(widget: Widget, actions: tuple[str, ...]) -> None:
    """Refresh the footer only when the keys it should show have changed.

    Recomputing the footer is the most expensive part of a key press, and
    most presses (moving the aim) do not change which keys apply.
    """
    screen = widget.screen
    mine = tuple(widget.check_action(a, ()) for a in actions)
    theirs = tuple(screen.check_action(a, p) for a, p in getattr(screen, "KEY_ACTIONS", ()))
    signature = (mine, theirs)
    if getattr(widget, "_keys_signature", None) != signature:
        widget._keys_signature = signature
        screen.refresh_bindings()


def click(action: str, style: str | Style = "") -> Style:
    """A style that runs ``action`` on the widget when clicked (mouse support in text)."""
    base = Style.parse(style) if isinstance(style, str) else style
    return base + Style(meta={"@click": action})


class ClickableText(Widget):
    """A widget whose text carries click actions but keeps its own colours.

    Textual draws text with ``@click`` actions in its link colours; the
    tables colour their text themselves (lit targets, treated Disorders...),
    so the link styling is turned off. Clicks still work.
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.auto_links = False


# --- repainting only what changed ------------------------------------------------------------------


def _cells(line: Text) -> list[tuple[str, tuple[Any, ...]]]:
    """Each cell of ``line``: its character (empty for the right half of a wide
    one) and the styles of the spans over it."""
    styles: list[list[Any]] = [[] for _ in line.plain]
    for span in line.spans:
        for i in range(span.start, min(span.end, len(styles))):
            styles[i].append(span.style)
    cells = []
    for ch, st in zip(line.plain, styles):
        cells.append((ch, tuple(st)))
        cells.extend(("", tuple(st)) for _ in range(cell_len(ch) - 1))
    return cells


def changed_cells(old: Sequence[Text], new: Sequence[Text]) -> list[Region] | None:
    """Where ``new`` lines differ from ``old``, cell by cell: one region per changed
    line, from its first changed cell to its last. None when the number of lines
    differs (a new height)."""
    if len(old) != len(new):
        return None
    regions = []
    for y, (before, after) in enumerate(zip(old, new)):
        if before.style != after.style:
            return None
        a, b = _cells(before), _cells(after)
        if a == b:
            continue
        blank = ("", ())
        width = max(len(a), len(b))
        a += [blank] * (width - len(a))
        b += [blank] * (width - len(b))
        changed = [x for x in range(width) if a[x] != b[x]]
        regions.append(Region(changed[0], y, changed[-1] + 1 - changed[0], 1))
    return regions


class PaintChanges:
    """For a widget drawn as lines of text: a change repaints only the cells that differ.

    Over SSH every byte counts, and Textual repaints the whole widget when a
    reactive attribute changes. A widget with this mixin draws in
    :meth:`draw` (not ``render``); the attributes named in ``REPAINT_ON``
    are declared with ``var`` (no repaint of their own), and when one
    changes the new drawing is compared with the one on screen and only the
    changed cells are refreshed. A different number of lines (a new height)
    refreshes the whole widget and its layout. Styles that come from CSS
    classes are not text: changing a class still repaints the widget.
    """

    REPAINT_ON: ClassVar[tuple[str, ...]] = ()
    """The attributes whose changes are drawn by comparison."""
    _drawn: tuple[Text, ...] | None = None
    """The lines of the last drawing handed to Textual."""

    def draw(self) -> Text:
        raise NotImplementedError

    def render(self) -> Text:
        text = self.draw()
        self._drawn = tuple(text.split("\n", allow_blank=True))
        return text

    def on_mount(self) -> None:
        for name in self.REPAINT_ON:
            self.watch(self, name, self.repaint_changes, init=False)

    def repaint_changes(self) -> None:
        """Refresh the cells whose drawing changed (all of it when the height changed)."""
        widget: Any = self
        if self._drawn is None or not widget.is_mounted:
            widget.refresh(layout=True)
            return
        lines = tuple(self.draw().split("\n", allow_blank=True))
        regions = changed_cells(self._drawn, lines)
        if regions is None:
            widget.refresh(layout=True)
        elif regions:
            widget.refresh(*regions)


class StatusBar(PaintChanges, Widget):
    """The top line: the game, the turn, the piles on the left; the connection on the right."""

    DEFAULT_CSS = """
    StatusBar { height: 1; width: 1fr; background: $panel; color: $text; padding: 0 1; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    REPAINT_ON = ("left", "right")
    left: var[Text] = var(Text(""))
    """The game's part of the line."""
    right: var[Text] = var(Text(""))
    """The connection state, kept at the right edge."""

    def update(self, left: Text, right: Text | None = None) -> None:
        self.left = left
        if right is not None:
            self.right = right

    def draw(self) -> Text:
        width = self.size.width
        right = self.right
        left = self.left.copy()
        room = width - right.cell_len - 1
        if left.cell_len > room:
            left.truncate(max(0, room), overflow="ellipsis")
        left.append(" " * max(1, width - left.cell_len - right.cell_len))
        left.append_text(right)
        left.no_wrap = True
        return left


TICKS_PER_SECOND = 4
"""How often a countdown looks at the clock; it repaints only when the seconds shown change."""


class PromptBar(PaintChanges, ClickableText):
    """What the table wants from you now, with a live countdown when there is a deadline.

    The countdown only shows the host's deadline (the host enforces it);
    when it reaches zero here the bar says so and waits for the host's word.
    It stands at the start of the bar in whole seconds, so a tick repaints
    those few cells and nothing else; a new sentence repaints the cells it
    changes.
    """

    DEFAULT_CSS = """
    PromptBar { height: 2; width: 1fr; padding: 0 1; background: $boost; text-wrap: nowrap; }
    PromptBar.-urgent { background: $error 30%; }
    """

    REPAINT_ON = ("message", "deadline_label")
    message: var[Text] = var(Text(""))
    """The sentence to show (plain Text, possibly with click actions)."""
    deadline_at: var[float | None] = var(None)
    """When the deadline runs out, on :attr:`clock`; None when there is none."""
    deadline_label: var[str] = var("")
    """What the countdown counts down to, e.g. ``Tremors``."""

    def __init__(self, *, clock: Callable[[], float] = time.monotonic, id: str | None = None) -> None:
        super().__init__(id=id)
        self.clock = clock
        self._ticker: Timer | None = None
        self._digits = 1
        """Digits the seconds are padded to, so the countdown keeps its width."""

    def watch_deadline_at(self, at: float | None) -> None:
        if at is not None:
            self._digits = len(str(math.ceil(max(0.0, at - self.clock()))))
        if at is not None and self._ticker is None:
            self._ticker = self.set_interval(1 / TICKS_PER_SECOND, self._tick)
        elif at is None and self._ticker is not None:
            self._ticker.stop()
            self._ticker = None
        self.set_class(at is not None, "-urgent")
        self.repaint_changes()

    def _tick(self) -> None:
        """Repaint the countdown's own cells when the seconds shown change."""
        if self._drawn is None or not self._drawn[0].plain.startswith(self.countdown()):
            self.repaint_changes()

    def seconds_left(self) -> float | None:
        if self.deadline_at is None:
            return None
        return max(0.0, self.deadline_at - self.clock())

    def countdown(self) -> str:
        """``◷ Tremors 3s``, or that the time is up; empty without a deadline."""
        left = self.seconds_left()
        if left is None:
            return ""
        label = f" {self.deadline_label}" if self.deadline_label else ""
        if left > 0:
            return f"◷{label} {math.ceil(left):>{self._digits}}s"
        return f"◷{label} time is up: waiting for the host"

    def draw(self) -> Text:
        shown = self.countdown()
        text = Text(shown, style="bold") if shown else Text()
        if shown:
            text.append("  ")
        text.append_text(self.message)
        # Wrapped here, and as many lines as the bar is high, so that changes
        # are compared line by line as they are shown.
        width, height = self.content_size
        if width <= 0:
            return text
        lines = list(text.wrap(self.app.console, width))[:height]
        lines += [Text() for _ in range(height - len(lines))]
        out = Text("\n").join(lines)
        out.no_wrap = True
        return out


class GameLog(Widget, can_focus=True):
    """What happened, in plain words, with the table chat in between.

    The log fills downwards like a page; when a new line would run off the
    bottom, the page turns: the last few lines move to the top and the rest
    is cleared. So a new line repaints its own rows, and only a page turn
    repaints the whole log (a scrolling log repaints every row for every
    line, the biggest part of a move's bytes). Focused (``l`` at the table),
    the arrows, Page Up/Down, Home and End read back through the last
    :attr:`MAX_LINES` entries.
    """

    DEFAULT_CSS = """
    GameLog { height: 1fr; min-height: 2; background: $surface; border: none; padding: 0 1; overflow: hidden;
              text-wrap: nowrap; }
    GameLog:focus { background: $surface-lighten-1; }
    """

    BINDINGS = [
        Binding("up", "read(-1)", "back", key_display="↑↓", show=False),
        Binding("down", "read(1)", show=False),
        Binding("pageup", "read(-0.5)", show=False),
        Binding("pagedown", "read(0.5)", show=False),
        Binding("home", "read_from(0)", show=False),
        Binding("end", "read_from(-1)", show=False),
    ]

    MAX_LINES = 1000
    """Entries kept for reading back."""
    KEEP = 1 / 3
    """The share of the page kept at the top when the page turns."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._entries: list[Text] = []
        self._lines: list[Text] = []
        """The entries wrapped to :attr:`_width`."""
        self._width = -1
        self._top = 0
        """The first of :attr:`_lines` on the page."""
        self._following = True
        """The page shows the newest lines (not read back)."""

    def write(self, text: Text) -> None:
        """Add ``text`` to the log: its rows are repainted, or the page turns."""
        self._entries.append(text)
        if len(self._entries) > self.MAX_LINES:
            del self._entries[: len(self._entries) - self.MAX_LINES]
            self._width = -1  # wrapped afresh on the next paint
        width, height = self.content_size
        if self._width != width or not height:
            self.refresh()
            return
        before = len(self._lines)
        self._lines.extend(text.wrap(self.app.console, width))
        if not self._following:
            return
        if len(self._lines) - self._top <= height:
            self.refresh(Region(0, before - self._top, width, len(self._lines) - before))
        else:
            keep = int(height * self.KEEP)
            self._top = max(before - keep, len(self._lines) - height)
            self.refresh()

    def clear(self) -> None:
        self._entries.clear()
        self._lines.clear()
        self._top = 0
        self._following = True
        self.refresh()

    def _wrap(self) -> None:
        """Wrap every entry to the width there is, keeping the newest lines in view."""
        width, height = self.content_size
        if width == self._width or width <= 0:
            return
        self._width = width
        console = self.app.console
        self._lines = [line for entry in self._entries for line in entry.wrap(console, width)]
        self._top = max(0, len(self._lines) - height) if self._following else min(self._top, len(self._lines))

    def on_resize(self) -> None:
        self._width = -1
        self._wrap()

    def render(self) -> Text:
        self._wrap()
        height = self.content_size.height
        if self._following and len(self._lines) - self._top > height:
            self._top = max(0, len(self._lines) - height)
        out = Text("\n").join(self._lines[self._top:self._top + height])
        out.no_wrap = True
        return out

    def action_read(self, pages: float) -> None:
        height = max(1, self.content_size.height)
        step = int(pages) if abs(pages) >= 1 else round(pages * height)
        self.action_read_from(self._top + step)

    def action_read_from(self, top: int) -> None:
        """Show the log from line ``top`` (-1: the newest page)."""
        height = max(1, self.content_size.height)
        last = max(0, len(self._lines) - height)
        self._top = last if top < 0 else max(0, min(top, last))
        self._following = self._top == last
        self.refresh()

    def on_mouse_scroll_up(self) -> None:
        self.action_read(-3)

    def on_mouse_scroll_down(self) -> None:
        self.action_read(3)

    def event(self, line: str, *, mine: bool = False, quiet: bool = False) -> None:
        style = "bold" if mine else "dim" if quiet else ""
        self.write(Text(line, style=style))

    def chat(self, name: str, text: str, *, me: bool = False) -> None:
        line = Text()
        line.append(name, style="bold green" if me else "bold cyan")
        line.append(": ")
        line.append(text)
        self.write(line)

    def notice(self, text: str, *, style: str = "italic yellow") -> None:
        self.write(Text(text, style=style))


# --- a row of cards drawn as boxes ---------------------------------------------------------------


@dataclass(frozen=True)
class CardFace:
    """One card as the hand row draws it."""

    number: int
    lines: tuple[str | tuple[str, ...], ...]
    """Each line, or a tuple of versions, longest first: the first that fits is drawn."""
    selected: bool = False
    playable: bool = True
    pending: bool = False
    """Sent to the host and not yet confirmed (e.g. a Tremors discard)."""
    accent: str = ""
    action: str = ""
    """Widget action run when the card is clicked."""


def card_row(faces: Sequence[CardFace], width: int, *, lines: int = 2, min_width: int = 8,
             max_width: int = 18) -> Text:
    """The cards side by side as boxes, ``lines`` text lines each, fitted to ``width``.

    When they do not fit at ``min_width``, the row wraps onto a second row.
    """
    if not faces:
        return Text("(no cards)", style="dim")
    per_row = max(1, min(len(faces), width // min_width))
    rows = [faces[i:i + per_row] for i in range(0, len(faces), per_row)]
    out = Text()
    for r, row in enumerate(rows):
        w = max(min_width, min(max_width, width // per_row))
        if r:
            out.append("\n")
        out.append_text(_boxes(row, w, lines))
    return out


def _boxes(row: Sequence[CardFace], w: int, lines: int) -> Text:
    inner = w - 2
    out = Text()
    for line_no in range(lines + 2):
        if line_no:
            out.append("\n")
        for face in row:
            if face.pending:
                frame = "dim strike"
            elif face.selected:
                frame = "bold yellow"
            elif face.playable:
                frame = face.accent or ""
            else:
                frame = "dim"
            style = click(face.action, frame) if face.action else Style.parse(frame) if frame else Style()
            heavy = face.selected
            tl, tr, bl, br, hz, vt = ("┏", "┓", "┗", "┛", "━", "┃") if heavy else ("╭", "╮", "╰", "╯", "─", "│")
            if line_no == 0:
                label = f"{face.number}"
                top = tl + label + hz * (inner - len(label)) + tr
                out.append(top[:w], style)
            elif line_no == lines + 1:
                out.append((bl + hz * inner + br)[:w], style)
            else:
                text = face.lines[line_no - 1] if line_no - 1 < len(face.lines) else ""
                if isinstance(text, tuple):
                    text = next((t for t in text if len(t) <= inner), text[-1] if text else "")
                if len(text) > inner:
                    text = text[: inner - 1] + "…"
                body_style = style
                if line_no == 1 and face.selected:
                    body_style = style + Style(reverse=True)
                out.append(vt, style)
                out.append(text.ljust(inner), body_style)
                out.append(vt, style)
    return out
