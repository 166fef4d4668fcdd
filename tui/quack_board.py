"""The Quack in the Box table: one row per doctor, your hand as numbered cards, the prompt.

:class:`QuackBoard` renders the seat's :class:`~quackbox.core.quack.QuackView` and
posts :class:`~quackbox.tui.widgets.MovePicked` when the person plays. Anytime cards
are in ``view.legal`` at every moment for every doctor still in the game, so
the same keys play one on your turn or anyone else's.
"""

from __future__ import annotations

import textwrap
from functools import partial
from typing import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.reactive import var

from quackbox.cards.quack import Anytime, Treatment
from quackbox.core import quack as q
from quackbox.core.rules import Event, Move
from quackbox.net.protocol import LogLine
from quackbox.tui import quack_text as qt
from quackbox.tui.board import Board
from quackbox.tui.clock import WALL, Clock, Stoppable
from quackbox.tui.modals import ConfirmScreen
from quackbox.tui.names import seat_name
from quackbox.tui.widgets import AutoPassToggled, ClickableText, PaintChanges, PromptBar, click, fitted, refresh_keys

BAR_CELLS = 8
AUTO_PASS_SECONDS = 3.0
"""With auto-pass on, a response window passes by itself after this long unless a card is picked."""
ROOMY_LINES = 3
"""On a tall screen a card in hand takes up to this many lines, for its whole text."""
ROOMY_INDENT = 4
ROOMY_HEIGHT = 32
"""From this many rows the hand may show each card's whole text..."""
LOG_ROWS = 8
"""...if the log keeps this many rows."""
CONSEQUENCES = (q.MoneyLost, q.InfamyChanged, q.PatientDied, q.PatientCured, q.TreatmentsOwedChanged, q.DoctorMobbed)
"""Events that may follow an Anytime card as its result: its notice tells those about you too."""


def bar(points: int, total: int, cells: int, fill_style: str) -> Text:
    """``███░░░░░`` for ``points`` of ``total``, never full before the total is reached."""
    total = max(1, total)
    filled = min(cells, (points * cells) // total if points < total else cells)
    if points and not filled:
        filled = 1
    out = Text()
    out.append("█" * filled, style=fill_style)
    out.append("░" * (cells - filled), style="dim")
    return out


def pips(infamy: int, threshold: int) -> Text:
    """Infamy as ``●●○○○○`` against the threshold (a number past a dozen)."""
    out = Text()
    if threshold > 12:
        style = "bold red" if infamy >= threshold - 1 else ""
        out.append(f"{infamy}/{threshold}", style=style)
        return out
    danger = "bold red" if infamy >= threshold - 1 else "yellow"
    out.append("●" * min(infamy, threshold), style=danger if infamy else "")
    out.append("○" * max(0, threshold - infamy), style="dim")
    return out


def target_seats(move: Move, me: int | None) -> set[int]:
    if isinstance(move, q.PlayTreatment):
        seat = me if move.target == q.NONE else move.target
        return {seat} if seat is not None else set()
    if isinstance(move, q.PlayAnytime):
        seats = {move.target}
        if move.other != q.NONE:
            seats.add(move.other)
        return seats
    return set()


class DoctorTable(PaintChanges, ClickableText):
    """Every doctor: money, Infamy pips, the Patient with Cure and Harm bars, reminders."""

    DEFAULT_CSS = """
    DoctorTable { height: auto; padding: 0 1; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    class SeatClicked(Message):
        def __init__(self, seat: int) -> None:
            super().__init__()
            self.seat = seat

    REPAINT_ON = ("view", "names", "away", "lit", "cursor", "compact")
    view: var[q.QuackView | None] = var(None)
    """The seat's view."""
    names: var[tuple[str, ...]] = var(())
    """Every seat's name (plain text, from the host)."""
    away: var[frozenset[int]] = var(frozenset())
    """Seats whose person is away."""
    lit: var[frozenset[int]] = var(frozenset())
    """Seats the picked card can aim at."""
    cursor: var[frozenset[int]] = var(frozenset())
    """Seats the aimed move touches."""
    compact: var[bool] = var(False)
    """One line per doctor (many doctors on a small screen)."""

    def draw(self) -> Text:
        view = self.view
        if view is None:
            return Text("")
        width = max(40, self.size.width)
        out = Text(no_wrap=True, overflow="ellipsis")
        waiting = set(view.waiting_for)
        for i, doctor in enumerate(view.players):
            if i:
                out.append("\n")
            out.append_text(self._row(view, doctor, width, doctor.seat in waiting))
        return out

    def _row(self, view: q.QuackView, doctor: q.DoctorView, width: int, waiting: bool) -> Text:
        seat = doctor.seat
        me = view.seat
        action = f"seat({seat})"
        lit = seat in self.lit
        cursor = seat in self.cursor
        name = seat_name(self.names, seat)
        if seat == me:
            name += " (you)"
        line = Text(no_wrap=True, overflow="ellipsis")
        marker = "▶" if cursor else "›" if lit else "●" if seat == view.current and not view.outcome else " "
        marker_style = "bold reverse" if cursor else "bold yellow" if lit else "bold green"
        line.append(f"{marker} ", style=click(action, marker_style))
        name_style = "bold reverse" if cursor else "bold yellow underline" if lit else "bold"
        if doctor.status == q.MOBBED:
            name_style += " strike"
        name_w = 16 if width >= 70 else 12
        shown = name if len(name) <= name_w else name[: name_w - 1] + "…"
        line.append(shown.ljust(name_w), style=click(action, name_style))
        line.append(f"{qt.money(doctor.money):>8} ", style=click(action, "bold green" if doctor.money else ""))
        line.append_text(pips(doctor.infamy, view.threshold))
        line.append(" ")
        tags = []
        if seat in self.away:
            tags.append(("away", "italic red"))
        if waiting and view.phase == q.WINDOW:
            tags.append(("deciding", "italic yellow"))
        if doctor.final_turn:
            tags.append(("last turn", "bold magenta"))
        status_words = {q.SWITZERLAND: ("in Switzerland", "bold cyan"), q.MOBBED: ("MOBBED", "bold red")}
        if doctor.status in status_words:
            tags.insert(0, status_words[doctor.status])
        case = doctor.case
        bars = self._short_bars(case) if self.compact and case is not None else Text()
        if case is None:
            if doctor.status == q.PRACTISING:
                line.append("no Patient", style="dim")
        elif case.patient is None:
            line.append("face-down Patient", style="italic")
        else:
            room = width - line.cell_len - sum(len(t) + 1 for t, _ in tags) - bars.cell_len - 2
            name = case.patient.name
            if self.compact and len(name) > room:
                name = name[: max(4, room - 1)] + "…"
            line.append(name, style="bold cyan")
            room -= len(name)
            kinds = qt.illnesses(case.patient)
            if len(kinds) + 3 > room:
                kinds = qt.illnesses(case.patient, short=True)
            if len(kinds) + 3 <= room:
                line.append(f" ({kinds})", style="cyan")
        for word, style in tags:
            if not line.plain.endswith(" "):
                line.append(" ")
            line.append(word, style=style)
        if self.compact:
            if bars.cell_len:
                pad = width - line.cell_len - bars.cell_len
                line.append(" " * max(1, pad))
                line.append_text(bars)
            return line
        second = Text("    ", no_wrap=True, overflow="ellipsis")
        if case is not None:
            second.append_text(self._bars(case, short=width < 70))
        reminders = [r.name for r in doctor.reminders]
        if case is not None:
            reminders += [r.name for r in case.reminders]
        if reminders:
            second.append("  ⚑ ", style="magenta")
            second.append(", ".join(reminders), style="magenta")
        # Every doctor keeps the line of the bars, blank without a Patient: a Patient
        # admitted or gone then repaints that line, not the table and all under it.
        line.append("\n")
        line.append_text(second if second.plain.strip() else Text())
        return line

    def _short_bars(self, case: q.CaseView) -> Text:
        """``C 2/5 H 3/6 M 1/5`` for one-line rows."""
        out = Text()
        known = qt.face_up(case)
        if known is None:
            out.append(f"? treated {case.received}x", style="italic")
            return out
        patient, cure, harm, _ = known
        out.append(f"C {cure}/{patient.cure}", style="green")
        out.append(" ")
        danger = harm >= patient.kill - 2
        out.append(f"H {harm}/{patient.kill}", style="bold red" if danger else "red")
        if patient.mortal:
            out.append(
                f" M {case.received}/{patient.mortal}", style="bold red" if case.received >= patient.mortal - 1 else ""
            )
        return out

    def _bars(self, case: q.CaseView, *, short: bool) -> Text:
        out = Text()
        cells = 5 if short else BAR_CELLS
        known = qt.face_up(case)
        if known is None:
            out.append(f"cure ?  harm ?  treated {case.received}x", style="italic")
            return out
        patient, cure, harm, _ = known
        out.append("cure ", style="green")
        out.append_text(bar(cure, patient.cure, cells, "green"))
        out.append(f" {cure}/{patient.cure}  ")
        out.append("harm ", style="red")
        out.append_text(bar(harm, patient.kill, cells, "red"))
        out.append(f" {harm}/{patient.kill}")
        if patient.mortal:
            near = case.received >= patient.mortal - 1
            out.append(f"  mortal {case.received}/{patient.mortal}", style="bold red" if near else "")
        return out

    def action_seat(self, seat: int) -> None:
        self.post_message(self.SeatClicked(seat))


class QuackHand(PaintChanges, ClickableText):
    """Your hand, one numbered card per line, with what each Treatment would do to your Patient."""

    DEFAULT_CSS = """
    QuackHand { height: auto; padding: 0 1; border-top: solid $panel-lighten-2; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    class CardClicked(Message):
        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    REPAINT_ON = ("view", "selected", "playable", "roomy")
    view: var[q.QuackView | None] = var(None)
    """The seat's view (the hand and whose Patient it treats)."""
    selected: var[int | None] = var(None)
    """The picked card, drawn reversed."""
    playable: var[frozenset[int]] = var(frozenset())
    """Card ids with a legal move now."""
    roomy: var[bool] = var(False)
    """Rows to spare (a tall terminal): each card's whole text, wrapped onto up to ROOMY_LINES lines."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._kept: tuple[tuple[int, bool], int] = ((0, False), q.HAND_SIZE)
        """((width, roomy), lines): the most lines the hand has needed at this width and
        layout, at least one per card of a full hand. It keeps them, so a card played
        or drawn repaints its own lines, not the prompt and the log under the hand."""

    def draw(self) -> Text:
        view = self.view
        out = Text(no_wrap=True, overflow="ellipsis")
        if view is None or view.seat is None:
            return out
        width = max(40, self.size.width)
        if not view.hand:
            out.append("(no cards in hand)", style="dim")
        for i, card in enumerate(view.hand):
            if i:
                out.append("\n")
            out.append_text(self._line(view, i, card, width))
        return self._steady(out, (width, self.roomy))

    def _steady(self, out: Text, layout: tuple[int, bool]) -> Text:
        """``out`` with blank lines under it, up to the most lines the hand has needed."""
        lines = out.plain.count("\n") + 1
        kept, most = self._kept
        self._kept = layout, max(lines, most if kept == layout else q.HAND_SIZE)
        out.append("\n" * (self._kept[1] - lines))
        return out

    def _line(self, view: q.QuackView, index: int, card: Treatment | Anytime, width: int) -> Text:
        selected = card.id == self.selected
        playable = card.id in self.playable
        action = f"card({index})"
        base = "reverse bold" if selected else "" if playable else "dim"
        line = Text(no_wrap=True, overflow="ellipsis")
        line.append(f"{index + 1} ", style=click(action, "bold " + base if not selected else base))
        name_w = 24 if width >= 76 else 18
        name = card.name if len(card.name) <= name_w else card.name[: name_w - 1] + "…"
        line.append(name.ljust(name_w), style=click(action, base or ("bold" if playable else "")))
        if isinstance(card, Treatment):
            line.append(
                f" {qt.TYPE_SHORT.get(card.treatment_type, card.treatment_type):<9}",
                style=click(action, base or "cyan"),
            )
            line.append(f"{qt.money(card.price):>7} ", style=click(action, base or "green"))
            me = view.seat
            if me is not None and view.players[me].case is not None:  # (a hand is a seat's)
                effect, style = qt.treatment_effect(view, card, me)
                line.append("→ ", style="dim")
                line.append(effect, style=style if not selected else "reverse " + style)
                line.append("  ")
            tail, tail_style = qt.points_text(card, short=not self.roomy), "dim"
        else:
            line.append(" Anytime          ", style=click(action, base or "magenta"))
            tail, tail_style = card.description, "dim" if not selected else ""
        if not self.roomy:
            line.append(tail, style=tail_style)
            return line
        # With rows to spare the card's whole text shows, on lines of its own under its name.
        chunks = textwrap.wrap(tail, max(20, width - ROOMY_INDENT), max_lines=ROOMY_LINES - 1, placeholder=" …")
        for chunk in chunks:
            line.append("\n" + " " * ROOMY_INDENT)
            line.append(chunk, style=tail_style)
        return line

    def action_card(self, index: int) -> None:
        self.post_message(self.CardClicked(index))


class QuackBoard(Board[q.QuackView]):
    """The whole Quack in the Box table for one seat."""

    DEFAULT_CSS = """
    QuackBoard { height: auto; }
    """

    BINDINGS = [
        Binding("1", "pick(1)", "card", key_display="1-9", show=False),
        *[Binding(str(n), f"pick({n})", show=False) for n in range(2, 10)],
        Binding("left", "step_card(-1)", "card", key_display="←→"),
        Binding("right", "step_card(1)", show=False),
        Binding("up", "step_target(-1)", "target", key_display="↑↓", show=False),
        Binding("down", "step_target(1)", show=False),
        Binding("enter", "play", "play"),
        Binding("space", "pass_window", "pass"),
        Binding("s", "stay", "stay"),
        Binding("f", "flee", "flee"),
        Binding("d", "discard", "discard"),
        Binding("a", "toggle_auto_pass", "auto-pass", show=False),
        Binding("escape", "cancel", "cancel", show=False),
    ]

    auto_pass: var[bool] = var(True)
    """Pass response windows by themselves after AUTO_PASS_SECONDS unless a card is picked."""
    auto_pass_at: var[float | None] = var(None)
    """When the pending auto-pass fires, on the board's clock."""

    def __init__(self, *, clock: Clock = WALL, id: str | None = None) -> None:
        super().__init__(clock=clock, id=id)
        self._auto_timer: Stoppable | None = None
        self._aimed: Move | None = None
        """The play the last refresh showed as aimed: a new view keeps it (see _keep_aim)."""

    def compose(self) -> ComposeResult:
        yield DoctorTable(id="doctors")
        hand = QuackHand(id="hand")
        hand.border_title = "Your hand"
        yield hand
        yield PromptBar(clock=self.clock, id="prompt")

    # --- derived facts ---------------------------------------------------------------

    def moves_for(self, card: int | None) -> list[Move]:
        if card is None or self.view is None:
            return []
        return [m for m in self.view.legal if isinstance(m, (q.PlayTreatment, q.PlayAnytime)) and m.card == card]

    STATUS_DETAILS = 6
    """How many ways the status line can be said, from the fullest: without the deck, without
    the Mob's threshold (the pips show it), the window's doctors counted, the die left out
    (the owed Treatments stay), names cut."""

    def status_text(self, room: int | None = None) -> Text:
        """The round, whose turn, an open window, the die, the Mob's threshold and the deck,
        said as fully as ``room`` cells allow (the header fits 80 columns whatever the names)."""
        return fitted([self._status(detail) for detail in range(self.STATUS_DETAILS)], room)

    def _status(self, detail: int) -> Text:
        view = self.view
        text = Text(no_wrap=True, overflow="ellipsis")
        # On a narrow screen the table itself says which game it is.
        if self.app.size.width >= 100 or view is None:
            text.append("Quack in the Box · ", style="bold")
        if view is None:
            return text

        def name(seat: int) -> str:
            whole = self.seat_name(seat)
            return whole if detail < 5 or len(whole) <= 10 else whole[:9] + "…"

        limit = view.options.round_limit
        if view.outcome is not None:
            text.append(f"Game over after round {view.round}", style="bold")
        elif view.round > limit:
            # QR22: after the round limit every doctor has one last turn, in one more round.
            text.append(f"Round {view.round}, the last", style="bold")
        else:
            text.append(f"Round {view.round}/{limit}", style="bold")
        if view.outcome is None:
            whose = "your" if view.current == view.seat else f"{name(view.current)}'s"
            text.append(f" · {whose} turn")
            if view.phase == q.WINDOW and view.window_seats:
                # An open response window is told here while it lasts, not in the log.
                style = "bold yellow" if view.seat in view.window_seats else "yellow"
                mine = view.seat in view.window_seats
                others = len(view.window_seats) - mine
                if detail < 3:
                    who = ", ".join("you" if s == view.seat else name(s) for s in view.window_seats)
                elif mine:
                    who = "you" + (f" +{others}" if others else "")
                else:
                    who = f"{others} doctor{'s' if others != 1 else ''}"
                text.append(f" · Anytime: {who}", style=style)
            if view.die:
                text.append(f" · die {view.die}, {view.owed} owed" if detail < 4 else f" · {view.owed} owed")
            if view.endgame:
                text.append(" · endgame", style="bold magenta")
        if detail < 2:
            text.append(f" · mob at {view.threshold}")
        if detail < 1:
            text.append(f" · deck {view.doc_deck_count}", style="dim")
        return text

    # --- reacting ------------------------------------------------------------------------

    def watch_view(self, view: q.QuackView | None) -> None:
        if view is None:
            return
        if self.selected is not None and self.selected not in {c.id for c in view.hand}:
            self.selected = None
        elif self.selected is not None:
            self._keep_aim()
        self._arm_auto_pass()
        self.refresh_table()

    def _keep_aim(self) -> None:
        """A new view may list the picked card's plays differently (a Patient
        left, a window closed): stay on the play aimed at, so Enter never
        plays on someone the person did not choose; if it is gone, aim afresh."""
        options = self.options()
        if self._aimed in options:
            index = options.index(self._aimed)
        else:
            index = qt.first_aim(options, self._picked_card(), self.me)
        self.set_reactive(QuackBoard.target, index)

    def hand(self) -> Sequence[Treatment | Anytime]:
        return self.view.hand if self.view is not None else ()

    def _picked_card(self) -> Treatment | Anytime | None:
        return next((c for c in self.hand() if c.id == self.selected), None)

    # --- Anytime cards played on you ----------------------------------------------------

    def receive_events(self, events: tuple[Event, ...], log: tuple[LogLine, ...]) -> None:
        """An Anytime card someone else aimed at you (or your Patient) is a notice: the
        log's own lines for it, and for what it did to you."""
        me = self.me
        if me is None:
            return
        told = {line.event: line.text for line in log if line.event >= 0}
        for i, event in enumerate(events):
            if type(event) is not q.AnytimePlayed or event.seat == me or me not in (event.target, event.other):
                continue
            lines = [told[i]] if i in told else []
            for j, after in enumerate(events[i + 1 :], i + 1):
                if not isinstance(after, CONSEQUENCES):
                    break
                if after.seat == me and j in told:
                    lines.append(told[j])
            card = q.RULES.cards[event.card] if 0 <= event.card < len(q.RULES.cards) else None
            harmful = isinstance(card, Anytime) and card.effect in q.HARMFUL
            # At the table a notice is held below the log until the person's next key.
            self.app.notify(
                " ".join(lines),
                title=card.name if card is not None else "Anytime card",
                severity="warning" if harmful else "information",
                markup=False,
            )

    # --- passing response windows by themselves ----------------------------------------

    def _arm_auto_pass(self) -> None:
        """A window waiting on us passes by itself after a few seconds, unless a card is picked.

        The host would wait its full window (and a bot turn has several); a person who
        wants to act picks a card, which stops the clock. ``a`` turns this off.
        """
        self._disarm_auto_pass()
        view = self.view
        if (
            not self.auto_pass
            or self.closed
            or view is None
            or view.phase != q.WINDOW
            or view.seat not in view.window_seats
            or self.selected is not None
            or not self.legal_has(q.Pass())
        ):
            return
        self.auto_pass_at = self.clock() + AUTO_PASS_SECONDS
        self._auto_timer = self.clock.after(self, AUTO_PASS_SECONDS, partial(self._auto_pass_fire, view))

    def watch_closed(self) -> None:
        self._disarm_auto_pass()
        super().watch_closed()

    def _disarm_auto_pass(self) -> None:
        if self._auto_timer is not None:
            self._auto_timer.stop()
            self._auto_timer = None
        self.auto_pass_at = None

    def _auto_pass_fire(self, view: q.QuackView) -> None:
        self._auto_timer = None
        self.auto_pass_at = None
        if self.view is view and self.selected is None and self.auto_pass and self.legal_has(q.Pass()):
            self._send(q.Pass())

    def watch_auto_pass_at(self) -> None:
        self._show_deadline()

    def _show_deadline(self) -> None:
        if not self._ready:
            return
        bar = self.query_one("#prompt", PromptBar)
        if self.auto_pass_at is not None:
            bar.deadline_at = self.auto_pass_at
            bar.deadline_label = "passing in"
        else:
            bar.deadline_at = self.deadline_at
            bar.deadline_label = "window" if self.view is not None and self.view.phase == q.WINDOW else ""

    def action_toggle_auto_pass(self) -> None:
        self.auto_pass = not self.auto_pass
        self.post_message(AutoPassToggled(self.auto_pass))
        if self.auto_pass:
            self.app.notify("Response windows pass by themselves after a few seconds (a to wait instead).")
            self._arm_auto_pass()
        else:
            self._disarm_auto_pass()
            self.app.notify("Response windows wait for you to press space (a to pass them by themselves).")
        self.refresh_table()

    def watch_selected(self, selected: int | None) -> None:
        self.target = qt.first_aim(self.moves_for(selected), self._picked_card(), self.me)
        if selected is not None:
            self._disarm_auto_pass()
        self.refresh_table()

    def watch_deadline_at(self, at: float | None) -> None:
        self._show_deadline()

    def on_resize(self) -> None:
        self.refresh_table()

    def refresh_table(self) -> None:
        view = self.view
        if view is None or not self._ready:
            return
        options = self.options()
        aimed = self._aimed = self.aimed()
        lit = frozenset(s for m in options for s in target_seats(m, view.seat))
        cursor = frozenset(target_seats(aimed, view.seat)) if aimed is not None and len(options) > 1 else frozenset()
        doctors = self.query_one("#doctors", DoctorTable)
        doctors.names = self.names
        doctors.away = self.away
        doctors.lit = lit
        doctors.cursor = cursor
        height = self.app.size.height if self.is_attached else 24
        doctors.compact = len(view.players) > 5 and height < 40
        doctors.view = view
        hand = self.query_one("#hand", QuackHand)
        hand.display = view.seat is not None
        hand.roomy = self._roomy(view, height, doctors.compact)
        hand.playable = frozenset(
            m.card for m in view.legal if isinstance(m, (q.PlayTreatment, q.PlayAnytime, q.Discard))
        )
        hand.selected = self.selected
        hand.view = view
        bar = self.query_one("#prompt", PromptBar)
        bar.message = self.prompt()
        self._show_deadline()
        refresh_keys(self, ("pick", "step_card", "step_target", "play", "pass_window", "stay", "flee", "discard"))

    def _roomy(self, view: q.QuackView, height: int, compact: bool) -> bool:
        """Whether the hand may take ROOMY_LINES per card: the rows are there, and
        the log (below the table unless the screen is wide) keeps LOG_ROWS of them."""
        from quackbox.tui.table import WIDE

        # A full hand, not the cards held now: the hand keeps its layout as cards come and go.
        rows = 6 + (1 if compact else 2) * len(view.players) + ROOMY_LINES * max(q.HAND_SIZE, len(view.hand))
        beside = self.app.size.width >= WIDE
        return height >= max(ROOMY_HEIGHT, rows + (0 if beside else LOG_ROWS))

    # --- the prompt ------------------------------------------------------------------------

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
        if self.watch_only:
            return self._watched(view, text)
        me = view.seat
        if self.selected is not None:
            return self._with_selection(view, text)
        if me is None:
            text.append(f"Watching: {self.seat_name(view.current)}'s turn.")
            return text
        doctor = view.players[me]
        if doctor.status == q.MOBBED:
            text.append("The Angry Mob ran you out of town. You are watching the rest.", style="italic")
            return text
        if view.phase == q.WINDOW:
            if me in view.window_seats:
                text.append("Your chance: ", style="bold yellow")
                text.append(f"an Anytime card ({self._keys(q.PlayAnytime)}, aim, Enter), or ")
                text.append("space to pass", style=click("pass_window", "bold underline"))
                text.append(".")
                if self.auto_pass:
                    text.append(" a: wait for me", style=click("toggle_auto_pass", "dim underline"))
            else:
                others = ", ".join(self.seat_name(s) for s in view.window_seats)
                text.append(f"Waiting for {others} to play an Anytime card or pass.")
            return text
        if view.current == me:
            if view.phase == q.FLEE:
                text.append("Your turn: ", style="bold green")
                text.append("s stay", style=click("stay", "bold underline"))
                text.append(" and practise, or ")
                text.append("f flee", style=click("flee", "bold underline"))
                text.append(" to Switzerland for good.")
                return text
            if view.phase == q.TREAT:
                text.append("Your turn: ", style="bold green")
                n = view.owed
                text.append(
                    f"play {n} more Treatment{'s' if n != 1 else ''} on your Patient "
                    f"({self._keys(q.PlayTreatment)}, then Enter)."
                )
                return text
            if view.phase == q.SHORT_HAND:
                text.append("Out of Treatments: ", style="bold yellow")
                text.append(f"{self._keys(q.Discard)}, then Enter to play that Anytime card or d to throw it away.")
                return text
        if doctor.status == q.SWITZERLAND:
            text.append("You are in Switzerland: money and Infamy are frozen; Anytime cards still work.")
            return text
        text.append(f"{self.seat_name(view.current)}'s turn.")
        if any(isinstance(m, q.PlayAnytime) for m in view.legal):
            text.append(f" Your Anytime cards work now too ({self._keys(q.PlayAnytime)}).", style="dim")
        return text

    def _watched(self, view: q.QuackView, text: Text) -> Text:
        """What the table waits for, told to someone who only watches (a replay): seats by
        name, no keys to press."""
        who = self.seat_name(view.current)
        if view.phase == q.WINDOW and view.window_seats:
            seats = ", ".join(self.seat_name(s) for s in view.window_seats)
            text.append(f"{who}'s turn: {seats} may play an Anytime card now.")
        elif view.phase == q.FLEE:
            text.append(f"{who}'s turn: stay and practise, or flee to Switzerland.")
        elif view.phase == q.TREAT:
            n = view.owed
            text.append(f"{who}'s turn: {n} more Treatment{'s' if n != 1 else ''} owed.")
        elif view.phase == q.SHORT_HAND:
            text.append(f"{who}'s turn: out of Treatments, an Anytime card to play or throw away.")
        else:
            text.append(f"{who}'s turn.")
        return text

    def _keys(self, kind: type[q.PlayTreatment | q.PlayAnytime | q.Discard]) -> str:
        """The number keys of the cards in hand with a legal ``kind`` move now: ``press 3 or 5``."""
        legal = self.view.legal if self.view is not None else ()
        playable = {m.card for m in legal if isinstance(m, kind)}
        return qt.press([i + 1 for i, c in enumerate(self.hand()) if c.id in playable])

    def _with_selection(self, view: q.QuackView, text: Text) -> Text:
        card = self._picked_card()
        if card is None:
            return text
        options = self.options()
        aimed = self.aimed()
        if aimed is not None:
            text.append(qt.describe_move(view, aimed, self.names), style="bold")
            # (an Anytime card's every move is a PlayAnytime)
            if (
                isinstance(card, Anytime)
                and isinstance(aimed, q.PlayAnytime)
                and card.effect in q.HARMFUL
                and aimed.target == view.seat
            ):
                text.append(" That hurts you!", style="bold red")
            text.append("  ")
            text.append("⏎ play", style=click("play", "underline"))
            if len(options) > 1:
                shred = isinstance(aimed, q.PlayAnytime) and aimed.discard != q.NONE
                what = "card to throw away" if shred else "target"
                text.append(f" · ↑↓ {what} {self.target % len(options) + 1} of {len(options)}")
        else:
            text.append(f"{card.name}: ", style="bold")
            if isinstance(card, Treatment):
                text.append("not now: Treatments go on your Patient on your own turn.")
            else:
                text.append(card.description + " No target for it now.")
        if self.legal_has(q.Discard(card.id)):
            text.append(" · ")
            text.append("d throw away", style=click("discard", "underline"))
        text.append(" · esc")
        return text

    # --- actions -----------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel":  # with nothing picked, Esc is the table's (leaving)
            return self.selected is not None
        view = self.view
        if view is None or not self.can_act():  # (no view: nothing to act on)
            return False
        # False hides a key from the footer when it cannot do anything now.
        if action == "stay":
            return self.legal_has(q.StayHome())
        if action == "flee":
            return self.legal_has(q.FleeToSwitzerland())
        if action == "pass_window":
            return self.legal_has(q.Pass())
        # While a card is picked its keys stay shown (moving between cards does not
        # rebuild the footer); the prompt says when a key cannot act.
        if action == "discard":
            return self.selected is not None and any(isinstance(m, q.Discard) for m in view.legal)
        if action == "play":
            return self.selected is not None
        if action == "step_target":
            return self.selected is not None
        if action in ("pick", "step_card"):
            return bool(view.hand)
        return True

    def action_play(self) -> None:
        """Enter plays the picked card on the aimed target at once: the aim
        (lit on the table, ↑↓ to move it) was the choice."""
        aimed = self.aimed()
        if aimed is not None:
            self._send(aimed)

    def action_pass_window(self) -> None:
        if self.legal_has(q.Pass()):
            self._send(q.Pass())

    def action_stay(self) -> None:
        if self.legal_has(q.StayHome()):
            self._send(q.StayHome())

    def action_flee(self) -> None:
        if not self.legal_has(q.FleeToSwitzerland()):
            return
        view = self.view
        if view is None or view.seat is None:  # (a legal move is a seat's, in a view)
            return
        me = view.players[view.seat]
        question = Text()
        question.append("Flee to Switzerland?\n\n", style="bold")
        question.append(f"Your {qt.money(me.money)} and {me.infamy} Infamy freeze for good. ")
        if me.case is not None:
            question.append("Your Patient leaves unpaid. ")
        question.append("You play no more Treatments, only Anytime cards. This cannot be undone.")

        def confirmed(yes: bool | None) -> None:
            if yes and self.legal_has(q.FleeToSwitzerland()):
                self._send(q.FleeToSwitzerland())

        self.app.push_screen(ConfirmScreen(question, yes="Flee", no="Stay"), confirmed)

    def action_discard(self) -> None:
        if self.selected is not None and self.legal_has(q.Discard(self.selected)):
            self._send(q.Discard(self.selected))

    # --- the mouse ---------------------------------------------------------------------------

    def on_quack_hand_card_clicked(self, message: QuackHand.CardClicked) -> None:
        message.stop()
        self.card_clicked(message.index)

    def on_doctor_table_seat_clicked(self, message: DoctorTable.SeatClicked) -> None:
        message.stop()
        self.focus()
        options = self.options()
        for i, move in enumerate(options):
            if message.seat in target_seats(move, self.me):
                if self.target % len(options) == i:
                    self.action_play()
                else:
                    self.target = i
                return
