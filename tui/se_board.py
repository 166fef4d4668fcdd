"""The Side Effects table: rivals' Psyches, your Psyche and hand, and what to do next.

:class:`SEBoard` is given the seat's :class:`~quackbox.core.side_effects.SEView` (and
the names and presence of the seats) as reactive attributes and renders
them. Picking a card lights its legal targets, taken only from
``view.legal``; the person moves between targets and plays, and the board
posts :class:`~quackbox.tui.widgets.MovePicked` up to the screen, which sends it to
the host. The board keeps only what the person is pointing at: the selected
card, the chosen target, and discards sent but not yet confirmed.
"""

from __future__ import annotations

from typing import Sequence

from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid
from textual.css.scalar import Scalar
from textual.geometry import Size
from textual.message import Message
from textual.reactive import var

from quackbox.cards import side_effects as se_cards
from quackbox.cards.side_effects import SECard
from quackbox.core import side_effects as se
from quackbox.core.rules import Move
from quackbox.tui import se_text
from quackbox.tui.board import Board
from quackbox.tui.clock import WALL, Clock, while_alive
from quackbox.tui.modals import ChoiceScreen, ConfirmScreen
from quackbox.tui.widgets import (
    CardFace,
    ClickableText,
    MovePicked,
    PaintChanges,
    PromptBar,
    card_row,
    click,
    fitted,
    framed,
    refresh_keys,
    top_rule,
)

NARROW_CARD = 18
WIDE_CARD = 26
"""The widest a card in hand is drawn, below and from WIDE_FROM columns."""
WIDE_FROM = 100
CARD_LINES = 3
"""Lines inside a card in hand at 80x24: its name, what it treats or is, its side effects or Episode."""
TALL_FROM = 36
"""From this many rows the cards in hand are tall enough to say what they do in full."""
MAX_CARD_LINES = 9


def card_lines_for(rows: int) -> int:
    """Lines inside a card in hand on a screen ``rows`` high: CARD_LINES, and on a tall
    screen 7 to MAX_CARD_LINES, so each card says what it does (not an empty lower half)."""
    return CARD_LINES if rows < TALL_FROM else min(MAX_CARD_LINES, 7 + (rows - TALL_FROM) // 6)


"""From this many columns the table spreads out: wider cards with their whole text."""
LOG_LINES = 4
"""Lines of log that must stay visible below the table on a narrow screen."""

Spot = tuple[str, int]
"""Where a move points on the table: ("slot", disorder id) or ("seat", seat)."""


def spot_of(view: se.SEView, move: Move) -> Spot | None:
    """The place on the table a play aims at, for lighting it."""
    if isinstance(move, se.Treat):
        return ("slot", move.disorder)
    if isinstance(move, se.GiveDisorder):
        return ("seat", move.target)
    if isinstance(move, (se.PlayTherapy, se.PlayEpisode)):
        return ("slot", move.disorder)
    if isinstance(move, se.PlayMisdiagnosis):
        return ("slot", move.theirs)
    if isinstance(move, se.PlayHighTolerance):
        found = se_text.slot_of_drug(view, move.drug)
        return ("slot", found[1].disorder.id) if found else None
    return None


def second_spot(move: Move) -> Spot | None:
    """The other end of a two-sided play (your own Disorder in a Misdiagnosis)."""
    if isinstance(move, se.PlayMisdiagnosis):
        return ("slot", move.mine)
    return None


def _slot_line(slot: se.Slot, width: int, *, lit: bool, cursor: bool, spot_action: str) -> Text:
    treated = slot.drug is not None
    mark = "▶" if cursor else "›" if lit else ("✓" if treated else "✗")
    line = Text(no_wrap=True, overflow="ellipsis")
    if cursor:
        style = mark_style = "bold reverse"
    elif lit:
        style = mark_style = "bold yellow underline"
    elif treated:
        style, mark_style = "green", "bold green"
    else:
        style, mark_style = "bold", "bold red"
    line.append(f"{mark} ", style=click(spot_action, mark_style))
    name, drug = _slot_names(slot, width - 2)
    line.append(name, style=click(spot_action, style))
    if drug:
        line.append(f" +{drug}", style=click(spot_action, "dim green" if not (lit or cursor) else style))
    return line


def _slot_names(slot: se.Slot, width: int) -> tuple[str, str]:
    """A Disorder and the Drug treating it (empty if none) in ``width`` columns: whole if
    they fit, else in their short forms, the Disorder last in three letters; the Drug is
    left out only where not even that leaves room for it."""
    disorder = slot.disorder.name
    if slot.drug is None:
        return disorder, ""
    names = [
        (d, drug)
        for d in (*se_text.name_versions(disorder), se_text.abbr(disorder))
        for drug in se_text.name_versions(slot.drug.name)
    ]
    return next(((d, drug) for d, drug in names if len(d) + 2 + len(drug) <= width), (disorder, ""))


CHIP_GAP = 3
"""Spaces between the parts of your Psyche's row."""


def _chip_rows(chips: list[Text], width: int) -> Text:
    """``chips`` side by side, CHIP_GAP apart, a new line where the next would not fit."""
    out = Text()
    line_len = 0
    for chip in chips:
        if line_len and line_len + CHIP_GAP + chip.cell_len > width:
            out.append("\n")
            line_len = 0
        elif line_len:
            out.append(" " * CHIP_GAP)
            line_len += CHIP_GAP
        out.append_text(chip)
        line_len += chip.cell_len
    return out


def _row_end(chips: list[Text], width: int) -> int:
    """Where the last line of :func:`_chip_rows` of ``chips`` ends."""
    return _chip_rows(chips, width).split("\n")[-1].cell_len if chips else -CHIP_GAP


class PsychePanel(PaintChanges, ClickableText):
    """One player's Psyche, hand size and marks, in a box. Clicking a Disorder aims at it."""

    # The box and its title are drawn as text (see draw), so that the turn or a lit
    # seat repaints the edges and not the whole box; the classes colour compact rows.
    DEFAULT_CSS = """
    PsychePanel { height: auto; text-wrap: nowrap; text-overflow: ellipsis; }
    PsychePanel.rival { height: 100%; }
    PsychePanel.-cursor { background: $warning 15%; }
    PsychePanel.-compact { padding: 0 1 0 0; }
    PsychePanel.-compact.-turn { background: $success 20%; }
    PsychePanel.-compact.-lit, PsychePanel.-compact.-cursor { background: $warning 20%; }
    PsychePanel > .psyche-panel--edge { color: $panel-lighten-2; }
    PsychePanel > .psyche-panel--turn { color: $success; }
    PsychePanel > .psyche-panel--lit { color: $warning; }
    """
    COMPONENT_CLASSES = {"psyche-panel--edge", "psyche-panel--turn", "psyche-panel--lit"}

    class SpotClicked(Message):
        """A place on this Psyche was clicked."""

        def __init__(self, spot: Spot) -> None:
            super().__init__()
            self.spot = spot

    REPAINT_ON = ("player", "player_name", "away", "turn", "lit", "cursor", "you", "over", "compact")
    player: var[se.PlayerView | None] = var(None)
    """The public view of the seat shown."""
    player_name: var[str] = var("")
    """The seat's name (plain text, from the host)."""
    away: var[bool] = var(False)
    """The person is disconnected or idle (a bot may stand in)."""
    turn: var[bool] = var(False)
    """The game is waiting on this seat."""
    lit: var[frozenset[Spot]] = var(frozenset())
    """Spots here the selected card may aim at."""
    cursor: var[Spot | None] = var(None)
    """The spot the selected card aims at now, if it is here."""
    you: var[bool] = var(False)
    """This is the seat at this terminal."""
    over: var[bool] = var(False)
    """The game has ended (places are then shown only for winners)."""
    compact: var[bool] = var(False)
    """No box, Disorders abbreviated side by side: many rivals on a small screen."""

    def __init__(self, *, row: bool = False, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.row = row
        """Lay the Disorders out side by side (your own Psyche, under the rivals)."""
        self.set_class(row, "-row")
        self._kept: tuple[int, int] = (0, 0)
        """Your own Psyche: (width, lines) - the most lines it has needed at this width.
        It keeps them, so the table under it moves once when it first grows (what it is
        open to, a second row of Disorders), not each time it grows and shrinks."""

    def watch_compact(self, compact: bool) -> None:
        self.set_class(compact, "-compact")
        self._style_hooks()

    def watch_turn(self) -> None:
        self._style_hooks()

    def watch_lit(self) -> None:
        self._style_hooks()

    def watch_cursor(self, cursor: Spot | None) -> None:
        seat = self.player.seat if self.player is not None else -1
        self.set_class(cursor == ("seat", seat), "-cursor")

    def _style_hooks(self) -> None:
        """The classes that colour a compact row (mirroring the attributes; the view stays
        the only source of truth). A box draws its own edges: a change of class would
        repaint all of it."""
        seat = self.player.seat if self.player is not None else -1
        self.set_class(self.compact and self.turn, "-turn")
        self.set_class(self.compact and ("seat", seat) in self.lit, "-lit")

    def _title(self, width: int) -> Text:
        player = self.player
        title = Text(no_wrap=True, overflow="ellipsis")
        if self.turn:
            title.append("▶ ", style="bold green")
        if self.you:
            # The rulebook's name for the zone, so a newcomer can match the screen to the rules.
            title.append("Your Psyche", style="bold")
            return title
        title.append(self.player_name, style="bold")
        if player is not None:
            n = player.hand_size
            title.append(f" · {n}" if width >= 22 else f" {n}", style="")
            title.append("c" if width < 22 else " card" if n == 1 else " cards", style="")
        if self.away:
            title.append(" away", style="italic red")
        return title

    def _edge(self) -> tuple[Style, str]:
        """The box's colour and line: a lit or aimed-at seat, the seat whose turn it is, or plain."""
        seat = ("seat", self.player.seat) if self.player is not None else None
        if not self.row and (seat in self.lit or self.cursor == seat):
            return self.get_component_rich_style("psyche-panel--lit", partial=True), "double"
        name = "psyche-panel--turn" if self.turn else "psyche-panel--edge"
        return self.get_component_rich_style(name, partial=True), "round"

    def draw(self) -> Text:
        player = self.player
        if player is None:
            return Text("")
        width = max(8, self.size.width)
        if self.compact and not self.row:
            rows = self._render_compact(player, width).split("\n")
            return Text("\n").join([*rows, *[Text()] * (self.size.height - len(rows))])
        style, edge = self._edge()
        if self.row:
            body = self._render_row(player, width - 2).split("\n")
            kept_width, kept = self._kept
            self._kept = (width, max(kept if kept_width == width else 0, len(body)))
            lines = [top_rule(self._title(width - 2), width, style, corners=False)]
            lines += [Text(" ") + line for line in body] + [Text()] * (self._kept[1] - len(body))
            return Text("\n").join(lines)
        return framed(
            self.body(player, width - 3).split("\n"),
            width,
            self.size.height,
            title=self._title(width - 3),
            style=style,
            edge=edge,
        )

    def body_lines(self, width: int) -> int:
        """Lines inside the box (with room for what the seat is open to), or of a compact
        row, at ``width`` columns (the box's own; see SEBoard._steady_rival_height)."""
        player = self.player
        if player is None:
            return 0
        body = self._render_compact(player, max(8, width - 1)) if self.compact else self.body(player, max(8, width) - 3)
        room = 0 if player.vulnerable_to or self.compact else 1
        return len(body.split("\n")) + room

    def body(self, player: se.PlayerView, width: int) -> Text:
        """Inside the box: the Disorders one a line, what the seat is open to, its marks."""
        wide = width >= 22
        out = Text(no_wrap=True, overflow="ellipsis")
        seat_lit = ("seat", player.seat) in self.lit
        for i, slot in enumerate(player.psyche):
            if i:
                out.append("\n")
            spot = ("slot", slot.disorder.id)
            out.append_text(
                _slot_line(
                    slot,
                    width,
                    lit=spot in self.lit,
                    cursor=self.cursor == spot,
                    spot_action=f"aim('slot', {slot.disorder.id})",
                )
            )
        if not player.psyche:
            out.append("(no Disorders)", style="dim")
        marks = se_text.status_marks(player, over=self.over)
        if player.vulnerable_to or seat_lit:
            out.append("\n")
            names = player.vulnerable_to
            shown = (
                " ".join(names)
                if wide and len(" ".join(names)) + 8 <= width
                else " ".join(se_text.abbr(n) for n in names)
            )
            style = "bold yellow" if seat_lit else "dim"
            action = f"aim('seat', {player.seat})"
            out.append("open to ", style=click(action, style))
            out.append(shown or "-", style=click(action, "yellow" if seat_lit else "magenta"))
        if marks:
            out.append("\n")
            out.append(" · ".join(marks), style="bold red" if not player.place else "bold green")
        return out

    def _render_compact(self, player: se.PlayerView, width: int) -> Text:
        """Title, then the Disorders as short chips wrapped to the width, then marks."""
        out = self._title(width)
        out.no_wrap = True
        line = Text()
        for slot in player.psyche:
            spot = ("slot", slot.disorder.id)
            lit, cursor = spot in self.lit, self.cursor == spot
            treated = slot.drug is not None
            mark = "▶" if cursor else "›" if lit else "✓" if treated else "✗"
            style = "bold reverse" if cursor else "bold yellow underline" if lit else "green" if treated else "bold"
            chip = f"{mark}{se_text.abbr(slot.disorder.name)}"
            if line.cell_len and line.cell_len + 1 + len(chip) > width:
                out.append("\n")
                out.append_text(line)
                line = Text()
            if line.cell_len:
                line.append(" ")
            line.append(chip, style=click(f"aim('slot', {slot.disorder.id})", style))
        out.append("\n")
        out.append_text(line)
        tail = Text()
        seat_lit = ("seat", player.seat) in self.lit
        if player.vulnerable_to or seat_lit:
            names = " ".join(se_text.abbr(n) for n in player.vulnerable_to) or "-"
            tail.append(
                "open " + names, style=click(f"aim('seat', {player.seat})", "bold yellow" if seat_lit else "magenta")
            )
        marks = se_text.status_marks(player, over=self.over)
        if marks:
            if tail.cell_len:
                tail.append(" · ")
            tail.append(" · ".join(marks), style="bold red" if not player.place else "bold green")
        if tail.cell_len:
            out.append("\n")
            out.append_text(tail)
        return out

    def _render_row(self, player: se.PlayerView, width: int) -> Text:
        """Your own Psyche: the Disorders side by side (wrapping between them, never inside
        one), then what you are open to and your marks."""
        chips: list[Text] = []
        for slot in player.psyche:
            spot = ("slot", slot.disorder.id)
            chips.append(
                _slot_line(
                    slot,
                    40,
                    lit=spot in self.lit,
                    cursor=self.cursor == spot,
                    spot_action=f"aim('slot', {slot.disorder.id})",
                )
            )
        if not player.psyche:
            chips.append(Text("(no Disorders)", style="dim"))
        if player.vulnerable_to:
            names = player.vulnerable_to
            whole = Text("open to " + ", ".join(names), style="magenta")
            short = Text("open to " + " ".join(se_text.abbr(n) for n in names), style="magenta")
            # Whole names where there is room for them: on the line so far, else on a line of
            # their own if the short ones would not fit on it either; else three letters each.
            room = width - _row_end(chips, width) - 3
            chips.append(
                whole if whole.cell_len <= room or (short.cell_len > room and whole.cell_len <= width) else short
            )
        marks = se_text.status_marks(player, over=self.over)
        if marks:
            chips.append(Text(" · ".join(marks), style="bold red"))
        return _chip_rows(chips, width)

    def action_aim(self, kind: str, ident: int) -> None:
        self.post_message(self.SpotClicked((kind, ident)))

    def on_click(self, event: events.Click) -> None:
        # A click anywhere on the box aims at the seat itself (to give a Disorder);
        # clicks on a Disorder line also aim at that Disorder through its own action.
        if self.player is not None:
            self.post_message(self.SpotClicked(("seat", self.player.seat)))


class HandRow(PaintChanges, ClickableText):
    """Your hand as numbered cards. Clicking a card picks it."""

    DEFAULT_CSS = """
    HandRow { height: auto; text-wrap: nowrap; text-overflow: ellipsis; }
    HandRow > .hand-row--edge { color: $panel-lighten-2; }
    """
    COMPONENT_CLASSES = {"hand-row--edge"}

    class CardClicked(Message):
        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    REPAINT_ON = ("faces", "lines", "wide", "title")
    faces: var[tuple[CardFace, ...]] = var(())
    """The cards to draw."""
    title: var[str] = var("Your hand")
    """The line above the cards (drawn as text: a new count repaints its own cells)."""
    lines: var[int] = var(3)
    """Text lines inside each card."""
    wide: var[bool] = var(False)
    """Room for wider cards, with their whole text."""

    def _rows(self, faces: tuple[CardFace, ...], width: int) -> int:
        return self._cards(faces, width).plain.count("\n") + 1

    def _cards(self, faces: tuple[CardFace, ...], width: int) -> Text:
        # As wide as a full hand's cards: one card more or less leaves the others in place.
        # The whole width is theirs: eight cards at 80 columns are eight wide inside.
        return card_row(
            faces, width, lines=self.lines, max_width=WIDE_CARD if self.wide else NARROW_CARD, slots=se.HAND_LIMIT
        )

    def draw(self) -> Text:
        width = max(10, self.size.width)
        rule = top_rule(
            Text(self.title), width, self.get_component_rich_style("hand-row--edge", partial=True), corners=False
        )
        return Text("\n").join([rule, *self._cards(self.faces, width).split("\n")])

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return 1 + self._rows(self.faces, max(10, width))

    def action_card(self, index: int) -> None:
        self.post_message(self.CardClicked(index))


class SEBoard(Board[se.SEView]):
    """The whole Side Effects table for one seat."""

    DEFAULT_CSS = """
    SEBoard { height: auto; }
    SEBoard #opponents { height: auto; grid-size: 3; grid-gutter: 0 1; grid-rows: auto; }
    SEBoard #mine { margin: 0 0 0 0; }
    SEBoard > PromptBar { margin: 0 0 0 0; height: auto; min-height: 2; }
    """

    BINDINGS = [
        Binding("1", "pick(1)", "card", key_display="1-9", show=False),
        *[Binding(str(n), f"pick({n})", show=False) for n in range(2, 10)],
        Binding("left", "step_card(-1)", "card", key_display="←→"),
        Binding("right", "step_card(1)", show=False),
        Binding("up", "step_target(-1)", "aim", key_display="↑↓"),
        Binding("down", "step_target(1)", show=False),
        Binding("enter", "play", "play"),
        Binding("d", "discard", "discard"),
        Binding("e", "end_turn", "end"),
        Binding("escape", "cancel", "cancel", show=False),
    ]

    def __init__(self, *, clock: Clock = WALL, id: str | None = None) -> None:
        super().__init__(clock=clock, id=id)
        self._anxiety_asked: tuple[int, int] | None = None
        self._tremors_hand: tuple[SECard, ...] | None = None
        """The hand as it was when a Tremors prompt for this seat opened (None: no such prompt)."""
        self._layout_for: tuple[int, int] | None = None
        """The screen size the rivals' layout was chosen for."""
        self._rival_lines: tuple[int, ...] = ()
        """Lines inside the tallest rival's box of each row at this width (see _steady_rival_height)."""
        self._rivals_for: tuple[int, bool] = (0, False)
        """The board's width and compactness the rivals' height was found for."""

    def compose(self) -> ComposeResult:
        yield Grid(id="opponents")
        yield PsychePanel(row=True, id="mine")
        yield HandRow(id="hand")
        yield PromptBar(clock=self.clock, id="prompt")

    def _before_first_refresh(self) -> None:
        self._ensure_panels()

    # --- derived facts ------------------------------------------------------------------

    def moves_for(self, card: int | None) -> list[Move]:
        if card is None or self.view is None:
            return []
        return [m for m in self.view.legal if isinstance(m, se.PLAY_TYPES) and se_text.card_of_move(m) == card]

    def hand(self) -> Sequence[SECard]:
        # While a Tremors prompt is open the hand keeps the places it had when it opened.
        if self._tremors_hand is not None:
            return self._tremors_hand
        return self.view.hand if self.view is not None else ()

    def gone(self) -> frozenset[int]:
        """Cards of the shown hand already discarded (or sent to be) in this Tremors."""
        if self._tremors_hand is None or self.view is None:
            return self.pending
        held = {c.id for c in self.view.hand}
        return self.pending | frozenset(c.id for c in self._tremors_hand if c.id not in held)

    def why_not(self, card: SECard) -> str:
        """Why the picked card has no play now (the rules decided; this only explains)."""
        view = self.view
        if view is None or view.seat is None:  # (no view: no card to ask about)
            return "You are watching."
        if view.outcome is not None:
            return "The game is over."
        if view.current != view.seat:
            return f"Cards are played on your own turn; now it is {self.seat_name(view.current)}'s."
        if view.phase != se.PLAY:
            return "Finish what the game is waiting for first."
        return se_text.why_not(card, view)

    def prompt_for_me(self) -> se.Prompt | None:
        view = self.view
        if view is None or view.prompt is None or view.prompt.seat != view.seat:
            return None
        return view.prompt

    def status_text(self, room: int | None = None) -> Text:
        """The turn, whose it is and the piles, said as fully as ``room`` cells allow."""
        return fitted([self._status(detail) for detail in range(3)], room)

    def _status(self, detail: int) -> Text:
        """The status line, fullest at ``detail`` 0; then without the piles, then names cut."""
        view = self.view
        text = Text(no_wrap=True, overflow="ellipsis")
        # On a narrow screen the table itself says which game it is.
        if self.app.size.width >= 100 or view is None:
            text.append("Side Effects · ", style="bold")
        if view is None:
            return text
        text.append(f"Turn {view.turn}", style="bold")
        if view.outcome is not None:
            text.append(" · game over", style="bold")
        else:
            mine = view.current == view.seat
            who = self.seat_name(view.current)
            who = who if detail < 2 or len(who) <= 10 else who[:9] + "…"
            text.append(" · your turn" if mine else f" · {who}'s turn", style="bold green" if mine else "")
            if view.phase == se.PLAY:
                text.append(f", {view.plays_left} play{'s' if view.plays_left != 1 else ''} left")
        if detail < 1:
            text.append(f" · deck {view.draw_count} · discards {view.discard_count}", style="dim")
        return text

    def watch_deadline_at(self, at: float | None) -> None:
        if self._ready:
            self.query_one("#prompt", PromptBar).deadline_at = at

    # --- reacting to new views -------------------------------------------------------

    def watch_view(self, view: se.SEView | None) -> None:
        if view is None:
            return
        hand_ids = {c.id for c in view.hand}
        if self.selected is not None and self.selected not in hand_ids:
            self.selected = None
        self._track_tremors(view)
        self.pending = frozenset(c for c in self.pending if c in hand_ids)
        self._ensure_panels()
        self.refresh_table()
        self._maybe_ask_anxiety()

    def _track_tremors(self, view: se.SEView) -> None:
        """Freeze the hand's places when a Tremors prompt for us opens (and ring), thaw them when it ends."""
        prompt = view.prompt
        mine = prompt is not None and prompt.kind == se.TREMORS and prompt.seat == view.seat
        if mine and self._tremors_hand is None:
            self._tremors_hand = view.hand
            if self.bell:
                self.app.bell()
        elif not mine:
            self._tremors_hand = None

    def watch_away(self) -> None:
        self.refresh_table()

    def watch_selected(self) -> None:
        # Aim first at a target where the card bites (an Episode on an empty hand is legal but idle).
        options = self.options()  # none without a view
        view = self.view
        self.target = next(
            (
                i
                for i, m in enumerate(options)
                if view is not None and not se_text.episode_does_nothing(view, m, self.names)
            ),
            0,
        )
        self.refresh_table()

    def watch_pending(self) -> None:
        self.refresh_table()

    def on_resize(self) -> None:
        self._layout_grid()
        self.refresh_table()

    def _seat_order(self) -> list[int]:
        view = self.view
        if view is None:
            return []
        n = len(view.players)
        if view.seat is None:
            return list(range(n))
        return [(view.seat + i) % n for i in range(1, n)]

    def _ensure_panels(self) -> None:
        grid = self.query_one("#opponents", Grid)
        order = self._seat_order()
        panels = list(grid.query(PsychePanel))
        if len(panels) != len(order):
            grid.remove_children()
            grid.mount_all([PsychePanel(classes="rival") for _ in order])
        self._layout_grid(len(order))
        self.query_one("#mine", PsychePanel).display = self.me is not None
        self.query_one("#hand", HandRow).display = self.me is not None

    def _layout_grid(self, count: int | None = None) -> None:
        grid = self.query_one("#opponents", Grid)
        order = self._seat_order()
        count = len(order) if count is None else count
        width = self.size.width or (self.app.size.width if self.is_attached else 80)
        screen = self.app.size if self.is_attached else None
        size = (screen.width, screen.height) if screen is not None else (80, 24)
        per_row = max(1, min(count or 1, width // 24 or 1, 4))
        panels = list(grid.query(PsychePanel))
        # One layout for the whole game, chosen for this screen size: boxes turn
        # compact mid-game only when a Psyche has grown past what the boxes allowed.
        was_compact = bool(panels) and panels[0].compact and self._layout_for == size
        compact = was_compact or self._needs_compact(order, per_row)
        self._layout_for = size
        if compact:
            per_row = max(1, min(count or 1, (width + 1) // 20 or 1, 4))
        grid.styles.grid_size_columns = per_row
        for panel in panels:
            panel.compact = compact
        hand = self.query_one("#hand", HandRow)
        hand.wide = size[0] >= WIDE_FROM
        # A taller screen has room for cards that say what they do in full.
        hand.lines = card_lines_for(size[1])

    def _steady_rival_height(self) -> None:
        """Each row of rivals as high as its tallest has needed at this width.

        A box that grows by a line (a Drug placed, a mark) would otherwise
        move everything under it, and all of it would be repainted. Boxes
        keep a line for what the seat is open to from the start; compact rows
        (many rivals on a small screen) grow when they must.
        """
        panels = list(self.query_one("#opponents").query(PsychePanel))
        if not panels or not self.size.width:
            return
        grid = self.query_one("#opponents", Grid)
        compact = panels[0].compact
        columns = grid.styles.grid_size_columns or 1
        width = (self.size.width - (columns - 1)) // columns  # the grid's cells, one column apart
        need = [max(p.body_lines(width) for p in panels[i : i + columns]) for i in range(0, len(panels), columns)]
        if (self.size.width, compact) != self._rivals_for or len(need) != len(self._rival_lines):
            self._rivals_for, self._rival_lines = (self.size.width, compact), (0,) * len(need)
        self._rival_lines = tuple(map(max, self._rival_lines, need))
        heights = [n + (0 if compact else 2) for n in self._rival_lines]
        if grid.styles.grid_rows != tuple(Scalar.parse(str(h)) for h in heights):
            grid.styles.grid_rows = " ".join(map(str, heights))
        if grid.styles.height != Scalar.parse(str(sum(heights))):
            grid.styles.height = sum(heights)

    def _needs_compact(self, order: list[int], per_row: int) -> bool:
        """Whether boxed Psyches for every rival would push the hand or the log off the screen."""
        view = self.view
        if view is None or not order:
            return False
        # Room for the largest Psyche dealt, an "open to" line and a line of marks,
        # so the boxes need not change as Drugs and punishments come and go.
        tallest = max(max(1, len(view.players[seat].psyche)) for seat in order)
        rows = -(-len(order) // per_row)
        need = rows * (2 + tallest + 2)
        screen = self.app.size.height if self.is_attached else 24
        beside = self.screen.has_class("-wide") if self.is_attached else False
        # status 1, your Psyche 2, the hand (its rule, cards, edges), prompt 2, footer 1,
        # and the log below a table without a side column
        fixed = 1 + 2 + (1 + card_lines_for(screen) + 2) + 2 + 1 + (0 if beside else LOG_LINES)
        return need + fixed > screen

    def refresh_table(self) -> None:
        """Push the view, the selection and the lit targets down to the children."""
        view = self.view
        if view is None or not self._ready:
            return
        options = self.options()
        aimed = self.aimed()
        lit = frozenset(s for m in options if (s := spot_of(view, m)) is not None)
        lit |= frozenset(s for m in options if (s := second_spot(m)) is not None and m == aimed)
        cursor = spot_of(view, aimed) if aimed is not None else None
        waiting = set(view.waiting_for)
        for seat, panel in zip(self._seat_order(), self.query_one("#opponents").query(PsychePanel)):
            panel.player = view.players[seat]
            panel.player_name = self.seat_name(seat)
            panel.away = seat in self.away
            panel.turn = seat in waiting and view.outcome is None
            panel.over = view.outcome is not None
            panel.lit = lit
            panel.cursor = cursor
        self._steady_rival_height()
        if self.me is not None:
            mine = self.query_one("#mine", PsychePanel)
            mine.player = view.players[self.me]
            mine.player_name = self.seat_name(self.me)
            mine.you = True
            mine.turn = self.me in waiting and view.outcome is None
            mine.over = view.outcome is not None
            mine.lit = lit
            mine.cursor = cursor
            self._update_hand(view)
        self._update_prompt()
        refresh_keys(self, ("pick", "step_card", "step_target", "play", "discard", "end_turn", "cancel"))

    def _update_hand(self, view: se.SEView) -> None:
        hand = self.query_one("#hand", HandRow)
        shown = self.hand()
        gone = self.gone()
        n = len(view.hand)
        hand.title = f"Your hand · {n} card{'s' if n != 1 else ''}"
        faces = []
        for i, card in enumerate(shown):
            playable = bool(self.moves_for(card.id))
            lines: list[str | tuple[str, ...]] = [se_text.card_lines(card)]
            narrow: tuple[str, ...] = ()
            if card.id in gone:
                lines = [("discarded", "gone"), ""]
            elif card.kind == se_cards.DRUG:
                codes = [se_text.abbr(n) for n in card.side_effects]
                lines.append(
                    ("⚠ " + ", ".join(card.side_effects), "⚠ " + " ".join(codes), "⚠" + "".join(codes))
                    if card.side_effects
                    else "no side effects"
                )
            elif card.kind == se_cards.DISORDER:
                punishment = se_text.SHORT_PUNISHMENTS.get(card.punishment, card.punishment)
                lines.append((f"Ep: {punishment}", punishment))
                narrow = ("Episode:", punishment)
            else:
                lines.append("")
            faces.append(
                CardFace(
                    number=i + 1,
                    name=se_text.name_versions(card.name),
                    lines=tuple(lines),
                    text="" if card.id in gone else se_text.card_words(card),
                    narrow=narrow,
                    selected=card.id == self.selected,
                    playable=playable or self.legal_has(se.Discard(card.id)),
                    pending=card.id in gone,
                    accent="cyan" if playable else "",
                    action=f"card({i})",
                )
            )
        hand.faces = tuple(faces)

    # --- the prompt ------------------------------------------------------------------

    def _update_prompt(self) -> None:
        bar = self.query_one("#prompt", PromptBar)
        bar.message = self.prompt()
        bar.deadline_label = "Tremors" if self.view is not None and self.view.phase == se.TREMORS else ""

    def prompt_text(self) -> Text:
        view = self.view
        text = Text()
        if view is None:
            return text
        if view.outcome is not None:
            text.append("Game over.", style="bold")
            if not self.watch_only:
                text.append(" Press g for the summary, q to leave.")
            return text
        me = view.seat
        prompt = view.prompt
        if prompt is not None and prompt.seat == me and not self.watch_only:
            if prompt.kind == se.TREMORS:
                held = {c.id for c in view.hand}
                left = max(0, prompt.count - len(self.pending & held))
                text.append("TREMORS! ", style="bold red")
                text.append(
                    f"Discard {left} more card{'s' if left != 1 else ''}: press {'its number' if left == 1 else 'their numbers'} now, or lose your whole hand."
                )
                return text
            if prompt.kind == se.DISCARD_DOWN:
                text.append("Too many cards: ", style="bold")
                text.append(f"discard {prompt.count} (pick a card, then d). ")
                return self._with_selection(view, text, discard_only=True)
            if prompt.kind == se.ANXIETY:
                text.append("Anxiety: ", style="bold")
                text.append(f"you may take a card from {self.seat_name(prompt.target)}'s hand. ")
                text.append("Enter to choose", style=click("play", "bold underline"))
                return text
        if prompt is not None:
            who = self.seat_name(prompt.seat)
            if prompt.kind == se.TREMORS:
                text.append(f"Tremors: waiting for {who} to discard {prompt.count}.")
            elif prompt.kind == se.ANXIETY:
                text.append(f"{who} is looking at {self.seat_name(prompt.target)}'s hand (Anxiety).")
            else:
                text.append(f"{who} is discarding down to six.")
            return self._offers_tail(view, text)
        if me is None or self.watch_only:
            plays = (
                "" if view.phase != se.PLAY else f", {view.plays_left} play{'s' if view.plays_left != 1 else ''} left"
            )
            text.append(("Watching: " if me is None else "") + f"{self.seat_name(view.current)}'s turn{plays}.")
            return text
        if view.current != me:
            text.append(f"{self.seat_name(view.current)} is playing.", style="")
            if self.selected is not None:
                text.append("  ")
                return self._with_selection(view, text)
            return self._offers_tail(view, text)
        if self.selected is None:
            plays = (
                "no plays left"
                if view.plays_left <= 0
                else ("1 play left" if view.plays_left == 1 else f"{view.plays_left} plays left")
            )
            text.append("Your turn", style="bold green")
            text.append(f", {plays}: pick a card (1-{max(1, len(view.hand))}), ")
            text.append("e end turn", style=click("end_turn", "underline"))
            text.append(".")
            return self._offers_tail(view, text)
        return self._with_selection(view, text)

    def _with_selection(self, view: se.SEView, text: Text, *, discard_only: bool = False) -> Text:
        card = next((c for c in view.hand if c.id == self.selected), None)
        if card is None:
            return text
        options = [] if discard_only else self.options()
        aimed = self.aimed() if not discard_only else None
        can_discard = self.legal_has(se.Discard(card.id))
        if aimed is not None:
            # The whole sentence, always: the prompt bar grows a line rather than cut it.
            text.append(se_text.describe_move(view, aimed, self.names), style="bold")
            if se_text.episode_does_nothing(view, aimed, self.names):
                text.append(" (does nothing!)", style="bold red")
            text.append("  ")
            text.append("⏎ play", style=click("play", "underline"))
            if len(options) > 1:
                text.append(f" · ↑↓ target {self.target % len(options) + 1}/{len(options)}")
        else:
            text.append(f"{card.name}: ", style="bold")
            text.append(se_text.card_sentence(card))
            if not discard_only and not options:
                text.append(" " + self.why_not(card), style="italic")
        if can_discard:
            text.append(" · ")
            text.append("d discard", style=click("discard", "underline"))
        text.append(" · esc")
        return text

    def _offers_tail(self, view: se.SEView, text: Text) -> Text:
        if self.watch_only:
            return text  # nobody watching answers offers
        to_me = [o for o in view.offers if o.to == view.seat]
        if to_me:
            text.append("  ")
            text.append(
                f"{len(to_me)} trade offer{'s' if len(to_me) > 1 else ''} for you: o to answer",
                style=click("screen.offers", "bold magenta"),
            )
        return text

    # --- anxiety ---------------------------------------------------------------------

    def _maybe_ask_anxiety(self) -> None:
        view = self.view
        prompt = self.prompt_for_me()
        if view is None or prompt is None or prompt.kind != se.ANXIETY:  # (a prompt comes with a view)
            return
        key = (view.turn, prompt.target)
        if self._anxiety_asked == key:
            return
        self._anxiety_asked = key
        self.call_after_refresh(while_alive(self, self.ask_anxiety))

    def ask_anxiety(self) -> None:
        view = self.view
        prompt = self.prompt_for_me()
        if view is None or prompt is None or prompt.kind != se.ANXIETY:
            return
        moves = [m for m in view.legal if isinstance(m, (se.TakeCard, se.TakeNothing))]
        cards = {c.id: c for c in prompt.revealed}
        labels = []
        for m in moves:
            if isinstance(m, se.TakeCard):
                c = cards.get(m.card)
                labels.append(Text(f"Take {c.name}  ({se_text.card_blurb(c)})" if c else f"Take card {m.card}"))
            else:
                labels.append(Text("Take nothing"))
        title = Text(f"Anxiety: {self.seat_name(prompt.target)}'s hand is shown to you. Take one card?")

        def chosen(index: int | None) -> None:
            if index is not None and 0 <= index < len(moves):
                self.post_message(MovePicked(moves[index]))

        self.app.push_screen(ChoiceScreen(title, labels), chosen)

    # --- actions ---------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel":  # with nothing picked, Esc is the table's (leaving)
            return self.selected is not None
        # False hides a key from the footer when it cannot do anything now.
        view = self.view
        if view is None or not self.can_act():  # (no view: nothing to act on)
            return action == "cancel"
        if action == "end_turn":
            return self.legal_has(se.EndTurn())
        # While a card is picked its keys stay shown (so moving between cards does not
        # rebuild the footer); a key that cannot act says why in the prompt.
        if action == "discard":
            return self.selected is not None and any(isinstance(m, se.Discard) for m in view.legal)
        if action == "play":
            return self.selected is not None or self.prompt_for_me() is not None
        if action == "step_target":
            return self.selected is not None and any(isinstance(m, se.PLAY_TYPES) for m in view.legal)
        if action in ("pick", "step_card"):
            return bool(view.hand)
        return True

    def pick_index(self, index: int) -> None:
        card = self.hand()[index]
        prompt = self.prompt_for_me()
        if prompt is not None and prompt.kind == se.TREMORS:
            # Three seconds leave no time to pick then confirm: the number discards at once.
            if card.id not in self.pending and self.legal_has(se.Discard(card.id)):
                self.pending = self.pending | {card.id}
                self.post_message(MovePicked(se.Discard(card.id)))
            return
        self.selected = None if self.selected == card.id else card.id

    def action_play(self) -> None:
        prompt = self.prompt_for_me()
        if prompt is not None and prompt.kind == se.ANXIETY:
            self.ask_anxiety()
            return
        if prompt is not None and prompt.kind == se.DISCARD_DOWN:
            self.action_discard()
            return
        move = self.aimed()
        view = self.view
        if move is None or view is None:  # (no view: nothing to aim at)
            card = next((c for c in self.hand() if c.id == self.selected), None)
            if card is not None:
                self.app.notify(f"{card.name}: {self.why_not(card)}", severity="warning", markup=False)
            return
        warning = se_text.episode_does_nothing(view, move, self.names)
        if warning:

            def confirmed(yes: bool | None) -> None:
                if yes:
                    self._send(move)

            self.app.push_screen(
                ConfirmScreen(Text(warning + " Play it anyway? The card is spent."), yes="Play it", no="Keep it"),
                confirmed,
            )
            return
        self._send(move)

    def action_discard(self) -> None:
        if self.selected is None:
            return
        move = se.Discard(self.selected)
        if self.legal_has(move):
            self.pending = self.pending | {self.selected}
            self._send(move)

    def action_end_turn(self) -> None:
        if self.legal_has(se.EndTurn()):
            self._send(se.EndTurn())

    # --- the mouse -------------------------------------------------------------------

    def on_hand_row_card_clicked(self, message: HandRow.CardClicked) -> None:
        message.stop()
        self.card_clicked(message.index)

    def on_psyche_panel_spot_clicked(self, message: PsychePanel.SpotClicked) -> None:
        message.stop()
        self.focus()
        options = self.options()
        view = self.view
        if view is None:  # nothing to aim at yet
            return
        for i, move in enumerate(options):
            if spot_of(view, move) == message.spot:
                if self.target % len(options) == i:
                    self.action_play()  # a second click on the aimed target plays it
                else:
                    self.target = i
                return
