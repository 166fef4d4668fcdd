"""Widgets both tables share: the status line, the prompt bar, the log, a row of cards.

Attributes down, messages up: each widget renders what its reactive
attributes say and posts a message when a person picks something. Player
text (names, chat) is only ever put into a ``rich.text.Text`` as plain
characters, never parsed as markup.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Sequence
from weakref import WeakKeyDictionary

from rich.console import Console
from rich.containers import Lines
from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.reactive import var
from textual.screen import Screen
from textual.widget import Widget

from quackbox.core.rules import LineKind, Move
from quackbox.tui.clock import WALL, Clock, Stoppable


class AutoPassToggled(Message):
    """The person turned passing response windows by themselves ``on`` or off (to remember)."""

    def __init__(self, on: bool) -> None:
        super().__init__()
        self.on = on


class MovePicked(Message):
    """A person chose ``move`` on the table; the screen sends it to the host."""

    def __init__(self, move: Move) -> None:
        super().__init__()
        self.move = move


KeysSignature = tuple[tuple[bool | None, ...], tuple[bool | None, ...]]
"""Whether each of a widget's actions, and each of its screen's ``KEY_ACTIONS``, applies."""

_keys_shown: WeakKeyDictionary[Widget, KeysSignature] = WeakKeyDictionary()
"""What :func:`refresh_keys` last found for each widget (gone with the widget)."""


def refresh_keys(widget: Widget, actions: tuple[str, ...]) -> None:
    """Refresh the footer only when the keys it should show have changed.

    Recomputing the footer is the most expensive part of a key press, and
    most presses (moving the aim) do not change which keys apply.
    """
    screen = widget.screen
    mine = tuple(widget.check_action(a, ()) for a in actions)
    theirs = tuple(screen.check_action(a, p) for a, p in getattr(screen, "KEY_ACTIONS", ()))
    signature = (mine, theirs)
    if _keys_shown.get(widget) != signature:
        _keys_shown[widget] = signature
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


# --- repainting what changed ----------------------------------------------------------------------


# To the type checker the mixin is a Widget, whose methods it calls; at run time it adds
# no base class (each widget it is mixed into is one already).
if TYPE_CHECKING:
    _WidgetMixin = Widget
else:
    _WidgetMixin = object


class PaintChanges(_WidgetMixin):
    """For a widget drawn as lines of text: its data are ``var``s that repaint it when they change.

    Textual repaints a widget, and every widget inside it, when one of its
    reactive attributes changes. A widget with this mixin draws in
    :meth:`draw` (not ``render``); the attributes named in ``REPAINT_ON`` are
    declared with ``var`` (no repaint of their own), and a change repaints
    this widget alone, or lays it out again when its drawing has a different
    number of lines. What reaches the terminal is only the cells that differ
    from what it shows (:mod:`quackbox.tui.terminal`).
    """

    REPAINT_ON: ClassVar[tuple[str, ...]] = ()
    """The attributes whose changes repaint the widget."""
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
        """Repaint the widget; lay it out again when the number of its lines changed."""
        if self._drawn is None or not self.is_mounted:
            self.refresh(layout=True)
            return
        lines = tuple(self.draw().split("\n", allow_blank=True))
        self.refresh(layout=len(lines) != len(self._drawn))


def fitted(versions: Sequence[Text], room: int | None) -> Text:
    """The first of ``versions`` (the fullest first) that fits ``room`` cells; else the last
    (None: the first)."""
    if room is None or not versions:
        return versions[0] if versions else Text()
    return next((v for v in versions if v.cell_len <= room), versions[-1])


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


class KeyBar(PaintChanges, ClickableText):
    """The keys that apply now, drawn as Textual's footer draws them, as one line of text.

    Textual's footer is a widget per key, made again whole whenever the keys
    change, each styled on its own, a large share of what an app spends
    reaching its lobby (``bench.tui``). This line
    compares its drawing and repaints the keys that changed. A click on a key
    presses it. With ``palette``, the command palette's key stands at the
    right edge, as in Textual's footer.
    """

    DEFAULT_CSS = """
    KeyBar { dock: bottom; height: 1; background: $footer-background; text-wrap: nowrap; }
    KeyBar > .key-bar--key { color: $footer-key-foreground; background: $footer-key-background; text-style: bold; }
    KeyBar > .key-bar--description { color: $footer-description-foreground; background: $footer-description-background; }
    KeyBar > .key-bar--edge { color: $foreground 20%; }
    """
    COMPONENT_CLASSES = {"key-bar--key", "key-bar--description", "key-bar--edge"}

    REPAINT_ON = ("keys", "palette_key")
    keys: var[tuple[tuple[str, str, str, bool], ...]] = var(())
    """Each key shown: (key, how it is shown, what it does, whether it can act now)."""
    palette_key: var[tuple[str, str, str, bool] | None] = var(None)
    """The command palette's key, as :attr:`keys` (None: not shown)."""

    def __init__(self, *, palette: bool = False, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.palette = palette

    def on_mount(self) -> None:
        super().on_mount()
        self.screen.bindings_updated_signal.subscribe(self, self.bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def bindings_changed(self, screen: Screen[Any]) -> None:
        if screen is not self.screen:
            return
        shown: dict[str, tuple[str, str, str, bool]] = {}
        for _node, binding, enabled, _tooltip in screen.active_bindings.values():
            if binding.show and binding.action not in shown:  # one key per action, as the footer
                shown[binding.action] = self._shown(binding, enabled)
        self.keys = tuple(shown.values())
        palette_binding = screen.active_bindings.get(self.app.COMMAND_PALETTE_BINDING)
        if self.palette and self.app.ENABLE_COMMAND_PALETTE and palette_binding is not None:
            _node, binding, enabled, _tooltip = palette_binding
            self.palette_key = self._shown(binding, enabled)
        else:
            self.palette_key = None

    def _shown(self, binding: Binding, enabled: bool) -> tuple[str, str, str, bool]:
        """A key as :attr:`keys` holds it."""
        return binding.key, self.app.get_key_display(binding), binding.description, enabled

    def draw(self) -> Text:
        key_style = self.get_component_rich_style("key-bar--key", partial=True)
        what_style = self.get_component_rich_style("key-bar--description", partial=True)
        out = Text(no_wrap=True)
        for key in self.keys:
            out.append_text(self._key(key, key_style, what_style, padded=True))
        if self.palette_key is not None:
            edge = Text("▏", self.get_component_rich_style("key-bar--edge", partial=True))
            edge.append_text(self._key(self.palette_key, key_style, what_style, padded=False))
            out.append(" " * max(1, self.size.width - out.cell_len - edge.cell_len))
            out.append_text(edge)
        return out

    @staticmethod
    def _key(shown: tuple[str, str, str, bool], key_style: Style, what_style: Style, *, padded: bool) -> Text:
        """One key and what it does, a click on either pressing it (a key that cannot act now is dim and rings)."""
        key, display, description, enabled = shown
        dim = Style() if enabled else Style(dim=True)
        action = f"app.simulate_key({key!r})" if enabled else "app.bell"
        text = Text(f" {display} " if padded else display, click(action, key_style + dim))
        if description:
            text.append(f"{description} " if padded else f" {description} ", click(action, what_style + dim))
        return text


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

    def __init__(self, *, clock: Clock = WALL, id: str | None = None) -> None:
        super().__init__(id=id)
        self.clock = clock
        self._ticker: Stoppable | None = None
        self._digits = 1
        """Digits the seconds are padded to, so the countdown keeps its width."""

    def watch_deadline_at(self, at: float | None) -> None:
        if at is not None:
            self._digits = len(str(math.ceil(max(0.0, at - self.clock()))))
        if at is not None and self._ticker is None:
            self._ticker = self.clock.every(self, 1 / TICKS_PER_SECOND, self._tick)
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

    The newest lines are at the bottom, as in a terminal: once the log holds
    more lines than it has rows, every row shows one and older lines are
    hidden above. Focused (``l`` at the table), the arrows, Page Up/Down,
    Home and End read back through the last :attr:`MAX_LINES` entries; a
    page read back stays put while new lines arrive, End follows them again.

    A notice for the person (:meth:`hold`) is an entry of the log like any
    other, held below the newest lines, in reverse, until it is read
    (:meth:`release`); then it takes its place among the rest. So a notice
    hides no line and cuts none: it takes rows of the log's own, as a
    terminal's message line does.

    What it shows is worked out from its entries, its size and the line read
    from, every time it is drawn; the terminal writer sends only the cells
    that changed (:mod:`quackbox.tui.terminal`).
    """

    DEFAULT_CSS = """
    GameLog { height: 1fr; min-height: 2; background: $surface; border: none; padding: 0 1; overflow: hidden;
              text-wrap: nowrap; }
    GameLog:focus { background: $surface-lighten-1; }
    """

    BINDINGS = [
        Binding("escape", "done_reading", "back to the table"),
        Binding("up", "read(-1)", "read back", key_display="↑↓"),
        Binding("down", "read(1)", show=False),
        Binding("pageup", "read(-0.5)", show=False),
        Binding("pagedown", "read(0.5)", show=False),
        Binding("home", "read_from(0)", show=False),
        Binding("end", "read_from(-1)", show=False),
    ]

    MAX_LINES = 1000
    """Entries kept for reading back."""
    MAX_HELD = 2
    """Notices held below the newest lines at once (a newer one lets the oldest go)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._entries: list[Text] = []
        self._lines: list[Text] = []
        """The entries not held, wrapped to :attr:`_width`."""
        self._width = -1
        self._top: int | None = None
        """The first of :attr:`_lines` shown while reading back; None: the newest are shown."""
        self._held: list[tuple[str, Text]] = []
        """Notices held below the newest lines, oldest first, each with the name it is
        released by ("" for one read at the person's next key)."""

    def write(self, text: Text) -> None:
        """Add ``text`` to the log."""
        self._entries.append(text)
        if len(self._entries) > self.MAX_LINES:
            gone = self._entries[: len(self._entries) - self.MAX_LINES]
            del self._entries[: len(gone)]
            if self._top is not None and self._width > 0:
                self._top = max(0, self._top - sum(len(e.wrap(self.app.console, self._width)) for e in gone))
            self._held = [(name, entry) for name, entry in self._held if any(entry is e for e in self._entries)]
            self._width = -1  # wrapped afresh when next drawn
        elif self._width > 0 and not self._is_held(text):
            self._lines.extend(text.wrap(self.app.console, self._width))
        if self._top is None or self._held:
            self.refresh()

    def clear(self) -> None:
        self._entries.clear()
        self._lines.clear()
        self._held.clear()
        self._top = None
        self.refresh()

    # --- notices held until read ---------------------------------------------------------

    def hold(self, text: Text, name: str = "") -> None:
        """Add ``text`` to the log, held below the newest lines until :meth:`release` with
        ``name`` lets it go (a notice held under the same name goes first)."""
        if name:
            self.release(name)
        self._held.append((name, text))
        if len(self._held) > self.MAX_HELD:
            self._let_go(self._held[: len(self._held) - self.MAX_HELD])
        self.write(text)

    def release(self, name: str = "") -> None:
        """Let the notices held under ``name`` go to their places among the other lines."""
        self._let_go([held for held in self._held if held[0] == name])

    @property
    def entries(self) -> tuple[Text, ...]:
        """Every entry kept, oldest first (the last :attr:`MAX_LINES`, the held notices
        among them), as written: read-only, what the log has been told."""
        return tuple(self._entries)

    @property
    def held(self) -> tuple[str, ...]:
        """The notices held now, oldest first, as plain text."""
        return tuple(entry.plain for _name, entry in self._held)

    def _let_go(self, going: list[tuple[str, Text]]) -> None:
        if not going:
            return
        self._held = [held for held in self._held if not any(held is g for g in going)]
        self._width = -1  # the lines are wrapped afresh, the released ones in their places
        self.refresh()

    def _is_held(self, entry: Text) -> bool:
        return any(entry is held for _name, held in self._held)

    def _held_lines(self, width: int, rows: int) -> list[Text]:
        """The held notices as the bottom rows: reversed across the whole width, as many as
        leave at least one row for the other lines."""
        lines: list[Text] = []
        for _name, entry in self._held:
            for line in entry.wrap(self.app.console, width):
                line.stylize("reverse")
                line.append(" " * max(0, width - line.cell_len), style="reverse")
                lines.append(line)
        return lines[-(rows - 1) :] if rows > 1 else []

    # --- what is shown ---------------------------------------------------------------------

    def _wrapped(self) -> list[Text]:
        """Every entry not held, wrapped to the width there is."""
        width = self.content_size.width
        if width != self._width and width > 0:
            self._width = width
            console = self.app.console
            self._lines = [
                line for entry in self._entries if not self._is_held(entry) for line in entry.wrap(console, width)
            ]
        return self._lines

    def _rows(self) -> int:
        """The rows for the lines not held."""
        height = self.content_size.height
        return height - len(self._held_lines(max(1, self.content_size.width), height)) if self._held else height

    def first_shown(self) -> int:
        """The first line on the page: the newest page's, or the one read back to."""
        lines, height = self._wrapped(), self._rows()
        last = max(0, len(lines) - height)
        return last if self._top is None else min(self._top, last)

    def page(self) -> list[Text]:
        """The lines shown, top to bottom (the held notices last)."""
        top, rows = self.first_shown(), self._rows()
        shown = self._wrapped()[top : top + rows]
        if self._held:
            shown += self._held_lines(max(1, self.content_size.width), self.content_size.height)
        return shown

    def on_resize(self) -> None:
        self.refresh()

    def render(self) -> Text:
        out = Text("\n").join(self.page())
        out.no_wrap = True
        return out

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Read over the whole screen, Esc returns (and the keys say so); otherwise Esc is the
        # screen's, as if the log had no key of its own.
        if action == "done_reading":
            return self.is_attached and self.screen.maximized is self
        return True

    def action_done_reading(self) -> None:
        self.screen.minimize()

    def action_read(self, pages: float) -> None:
        height = max(1, self._rows())
        step = int(pages) if abs(pages) >= 1 else round(pages * height)
        self.action_read_from(self.first_shown() + step)

    def action_read_from(self, top: int) -> None:
        """Show the log from line ``top`` (-1: the newest lines, followed as they come)."""
        last = max(0, len(self._wrapped()) - self._rows())
        self._top = None if top < 0 or top >= last else max(0, top)
        self.refresh()

    def on_mouse_scroll_up(self) -> None:
        self.action_read(-3)

    def on_mouse_scroll_down(self) -> None:
        self.action_read(3)

    KIND_STYLES = {LineKind.MINE: "bold", LineKind.TURN: "dim"}
    """How a line from the host looks, by what it tells (others are plain)."""

    def event(self, line: str, kind: LineKind = LineKind.EVENT) -> None:
        """A line from the host's log."""
        self.write(Text(line, style=self.KIND_STYLES.get(kind, "")))

    def chat(self, name: str, text: str, *, me: bool = False) -> None:
        line = Text()
        line.append(name, style="bold green" if me else "bold cyan")
        line.append(": ")
        line.append(text)
        self.write(line)

    def notice(self, text: str, *, style: str = "italic yellow") -> None:
        self.write(Text(text, style=style))


# --- boxes drawn as text ------------------------------------------------------------------------

EDGES = {"round": tuple("╭╮╰╯─│"), "double": tuple("╔╗╚╝═║")}
"""A box's corners (top left, top right, bottom left, bottom right), its top and its side."""


def top_rule(title: Text | None, width: int, style: Style, *, edge: str = "round", corners: bool = True) -> Text:
    """A box's top edge with its title, as Textual draws a border title; without
    ``corners``, the top rule of a part with no sides (a line across the table).

    Drawn as text, a change of title or colour repaints the cells it changes,
    where a Textual border repaints the whole part.
    """
    tl, tr, _, _, hz, _ = EDGES[edge]
    line = Text(no_wrap=True)
    label = title.copy() if title is not None else Text()
    label.stylize_before(style)
    room = width - 6 if corners else width - 2
    if label.cell_len > room:
        label.truncate(max(0, room), overflow="ellipsis")
    if corners:
        line.append(tl + hz + (" " if label else hz), style)
        line.append_text(label)
        line.append((" " if label else hz) + hz * (width - 5 - label.cell_len) + tr, style)
    else:
        line.append(hz, style)
        line.append_text(label)
        line.append(hz * (width - 1 - label.cell_len), style)
    return line


def framed(
    body: Sequence[Text] | Lines, width: int, height: int, *, title: Text | None, style: Style, edge: str = "round"
) -> Text:
    """``body`` in a box ``width`` by ``height`` (at least as high as the body needs),
    one space of padding on the left, its title in the top edge."""
    _, _, bl, br, hz, side = EDGES[edge]
    inner = width - 3
    lines = [top_rule(title, width, style, edge=edge)]
    for row in list(body) + [Text()] * max(0, height - 2 - len(body)):
        line = Text(no_wrap=True)
        line.append(side, style)
        line.append(" ")
        shown = row.copy()
        if shown.cell_len > inner:
            shown.truncate(inner, overflow="ellipsis")
        line.append_text(shown)
        line.append(" " * (inner - shown.cell_len))
        line.append(side, style)
        lines.append(line)
    lines.append(Text(bl + hz * (width - 2) + br, style=style))
    out = Text("\n").join(lines)
    out.no_wrap = True
    return out


# --- a row of cards drawn as boxes ---------------------------------------------------------------


@dataclass(frozen=True)
class CardFace:
    """One card as the hand row draws it."""

    number: int
    name: tuple[str, ...]
    """The card's name, whole, then shorter versions (see :func:`fit_name`)."""
    lines: tuple[str | tuple[str, ...], ...]
    """The lines under the name, each a line or a tuple of versions, longest first: the
    first that fits is drawn. The first gives way to a name that takes two lines."""
    text: str = ""
    """Everything under the name in full words (lines apart by newlines): a card tall
    enough for all of them, wrapped, shows them instead of ``lines``."""
    narrow: tuple[str, ...] = ()
    """Lines to show instead of ``lines`` on a card too narrow for the first version of
    its last line (a Disorder's "Episode:" above its punishment, where "Ep: lose hand"
    does not fit)."""
    selected: bool = False
    playable: bool = True
    pending: bool = False
    """Sent to the host and not yet confirmed (e.g. a Tremors discard)."""
    accent: str = ""
    action: str = ""
    """Widget action run when the card is clicked."""


def fit_name(versions: Sequence[str], width: int, *, two_lines: bool) -> list[str]:
    """A name in ``width`` columns: the first of its ``versions`` (whole first, then
    shorter) that fits on one line, or else (with ``two_lines``) split between words over
    two; only when none does, the shortest cut with an ellipsis."""
    for version in versions:
        if len(version) <= width:
            return [version]
        if two_lines:
            words = version.split()
            for k in range(len(words) - 1, 0, -1):  # as much as fits on the first line
                first, second = " ".join(words[:k]), " ".join(words[k:])
                if len(first) <= width and len(second) <= width:
                    return [first, second]
    last = versions[-1] if versions else ""
    return [last[: max(0, width - 1)] + "…"]


def card_row(
    faces: Sequence[CardFace], width: int, *, lines: int = 2, min_width: int = 8, max_width: int = 18, slots: int = 1
) -> Text:
    """The cards side by side as boxes, ``lines`` text lines each, fitted to ``width``.

    Cards are as wide as ``slots`` cards would be (or as many as there are, if
    more), so that a card more or less leaves the others where they are. When
    they do not fit at ``min_width``, the row wraps onto a second row.
    """
    if not faces:
        return Text("(no cards)", style="dim")
    per_row = max(1, min(len(faces), width // min_width))
    rows = [faces[i : i + per_row] for i in range(0, len(faces), per_row)]
    out = Text()
    for r, row in enumerate(rows):
        w = max(min_width, min(max_width, width // max(per_row, slots)))
        if r:
            out.append("\n")
        out.append_text(_boxes(row, w, lines))
    return out


_MEASURE = Console(width=200, file=io.StringIO(), legacy_windows=False)
"""A console for wrapping text to a width, off screen."""


def _face_lines(face: CardFace, inner: int, lines: int) -> tuple[list[str], int]:
    """The text lines of ``face`` at ``inner`` columns, and how many of them are its name."""
    name = fit_name(face.name, inner, two_lines=lines >= 3 and bool(face.lines))
    below: list[str | tuple[str, ...]] = list(face.lines[len(name) - 1 :])
    words = [line.plain for line in Text(face.text).wrap(_MEASURE, inner)] if face.text else []
    if words and len(name) + len(words) <= lines:
        below = list(words)  # a card tall enough for its words in full
    elif len(name) == 1 and face.narrow and face.lines and all(len(line) <= inner for line in face.narrow):
        last = face.lines[-1]
        if len(last if isinstance(last, str) else last[0]) > inner:
            below = list(face.narrow)
    out = list(name)
    for text in below:
        if isinstance(text, tuple):
            text = next((t for t in text if len(t) <= inner), text[-1] if text else "")
        if len(text) > inner:
            text = text[: inner - 1] + "…"
        out.append(text)
    if len(out) > lines:  # more words than the card holds: say so
        out = out[:lines]
        out[-1] = out[-1][: max(0, inner - 1)].rstrip() + "…"
    return out, len(name)


def _boxes(row: Sequence[CardFace], w: int, lines: int) -> Text:
    inner = w - 2
    texts = [_face_lines(face, inner, lines) for face in row]
    out = Text()
    for line_no in range(lines + 2):
        if line_no:
            out.append("\n")
        for face, (text_lines, name_lines) in zip(row, texts):
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
                text = text_lines[line_no - 1] if line_no - 1 < len(text_lines) else ""
                body_style = style
                if line_no <= name_lines and face.selected:
                    body_style = style + Style(reverse=True)
                out.append(vt, style)
                out.append(text.ljust(inner), body_style)
                out.append(vt, style)
    return out
