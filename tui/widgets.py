"""Widgets both tables share: the status line, the prompt bar, the log, a row of cards.

Attributes down, messages up: each widget renders what its reactive
attributes say and posts a message when a person picks something. Player
text (names, chat) is only ever put into a ``rich.text.Text`` as plain
characters, never parsed as markup.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, Sequence

from rich.style import Style
from rich.text import Text
from textual.message import Message
from textual.reactive import reactive
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import RichLog

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
    theirs = tuple(screen.check_action(a, ()) for a in getattr(screen, "KEY_ACTIONS", ()))
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


class StatusBar(Widget):
    """The top line: the game, the turn, the piles on the left; the connection on the right."""

    DEFAULT_CSS = """
    StatusBar { height: 1; width: 1fr; background: $panel; color: $text; padding: 0 1; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    left: reactive[Text] = reactive(Text(""))
    """The game's part of the line."""
    right: reactive[Text] = reactive(Text(""))
    """The connection state, kept at the right edge."""

    def update(self, left: Text, right: Text | None = None) -> None:
        self.left = left
        if right is not None:
            self.right = right

    def render(self) -> Text:
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


COUNTDOWN_TICK = 0.25
"""Seconds between redraws of a running countdown: at most four a second."""


class PromptBar(ClickableText):
    """What the table wants from you now, with a live countdown when there is a deadline.

    The countdown only shows the host's deadline (the host enforces it);
    when it reaches zero here the bar says so and waits for the host's word.
    """

    DEFAULT_CSS = """
    PromptBar { height: 2; width: 1fr; padding: 0 1; background: $boost; }
    PromptBar.-urgent { background: $error 30%; }
    """

    message: reactive[Text] = reactive(Text(""))
    """The sentence to show (plain Text, possibly with click actions)."""
    deadline_at: reactive[float | None] = reactive(None)
    """When the deadline runs out, on :attr:`clock`; None when there is none."""
    deadline_label: reactive[str] = reactive("")
    """What the countdown counts down to, e.g. ``Tremors``."""

    def __init__(self, *, clock: Callable[[], float] = time.monotonic, id: str | None = None) -> None:
        super().__init__(id=id)
        self.clock = clock
        self._ticker: Timer | None = None

    def watch_deadline_at(self, at: float | None) -> None:
        if at is not None and self._ticker is None:
            self._ticker = self.set_interval(COUNTDOWN_TICK, self.refresh)
        elif at is None and self._ticker is not None:
            self._ticker.stop()
            self._ticker = None
        self.set_class(at is not None, "-urgent")

    def seconds_left(self) -> float | None:
        if self.deadline_at is None:
            return None
        return max(0.0, self.deadline_at - self.clock())

    def render(self) -> Text:
        text = self.message.copy()
        left = self.seconds_left()
        if left is not None:
            label = f" {self.deadline_label}" if self.deadline_label else ""
            if left > 0:
                text.append(f"  ◷{label} {left:.1f}s", style="bold")
            else:
                text.append(f"  ◷{label} time is up: waiting for the host", style="bold")
        return text


class GameLog(RichLog):
    """What happened, in plain words, with the table chat in between."""

    DEFAULT_CSS = """
    GameLog { height: 1fr; min-height: 2; background: $surface; border: none; padding: 0 1; overflow-x: hidden;
              scrollbar-gutter: stable;
              scrollbar-size-vertical: 1; }
    GameLog:focus { background: $surface-lighten-1; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        # min_width: RichLog wraps at no less than this; its default (78) cuts lines on an 80-column screen.
        super().__init__(id=id, wrap=True, markup=False, highlight=False, max_lines=1000, auto_scroll=True,
                         min_width=20)

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
