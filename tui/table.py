"""The table screen, the same for both games: status line, the game's board, log, chat, footer.

The app hands the screen what the host says (views, lobby, chat, errors) by
setting attributes and calling :meth:`TableScreen.receive_view`; the board
posts :class:`~quackbox.tui.widgets.MovePicked` and the screen asks the app to send
it (network IO happens in the app's workers, never here).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.reactive import var
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input

from quackbox.core.rules import GameView, Move
from quackbox.net.protocol import ChatLine, Error, ErrorCode, Lobby, View
from quackbox.tui import rules_text
from quackbox.tui.board import Board
from quackbox.tui.clock import WALL, Clock
from quackbox.tui.config import Settings
from quackbox.tui.games import Record, action_bindings, rules_screen, ui_for
from quackbox.tui.modals import ConfirmScreen, ReadingScreen
from quackbox.tui.screens_app import ScreensApp, screens_app
from quackbox.tui.summary import SummaryScreen
from quackbox.tui.widgets import GameLog, KeyBar, MovePicked, StatusBar

ONLINE = "online"
CONNECTING = "connecting"
RECONNECTING = "reconnecting"
CLOSED = "closed"

WIDE = 150
"""From this many columns the log and chat move to a column of their own beside the table
(below that the table takes the whole width and the log the whole width below it)."""

SUMMARY_DELAY = 1.5
"""Seconds the final table stays in view before the summary opens."""


class AtTable:
    """The table as a game's actions see it (:class:`quackbox.tui.games.Table`):
    what the screen shows, and the few things they may do there. A move goes
    the way a move picked on the board goes, through the screen's checks."""

    def __init__(self, screen: TableScreen) -> None:
        self._screen = screen

    @property
    def view(self) -> GameView | None:
        return self._screen.view

    @property
    def names(self) -> tuple[str, ...]:
        return self._screen.names

    @property
    def board(self) -> Board[Any]:
        return self._screen.board

    @property
    def record(self) -> Record:
        return self._screen.record

    @property
    def announced(self) -> set[int]:
        return self._screen.announced

    def send(self, move: Move) -> None:
        self._screen.post_message(MovePicked(move))

    def show(self, screen: Screen[Any], then: Callable[[Any], None] | None = None) -> None:
        self._screen.app.push_screen(screen, then)

    def tell(self, text: str, *, title: str = "", severity: str = "information", until: str = "") -> None:
        self._screen.tell(text, title=title, severity=severity, until=until)

    def untell(self, until: str) -> None:
        self._screen.untell(until)


@dataclass
class TableInfo:
    """What the screen needs to know about the table it shows."""

    game: str
    seat: int | None
    names: tuple[str, ...]
    mode: str = "local"
    starter: bool = False


class TableScreen(Screen[None]):
    """One game in progress (or just finished), for one seat."""

    @property
    def quackbox(self) -> ScreensApp:
        """The app this screen runs in, as the screens see it (:mod:`quackbox.tui.screens_app`)."""
        return screens_app(self)

    DEFAULT_CSS = """
    TableScreen { layout: vertical; }
    TableScreen #body { height: 1fr; layout: vertical; }
    TableScreen #side { height: 1fr; min-height: 4; }
    TableScreen.-wide #body { layout: horizontal; }
    TableScreen.-wide #board { width: 1fr; height: 1fr; }
    TableScreen.-wide #side { width: 56; height: 1fr; border-left: vkey $panel-lighten-2; }
    TableScreen #chat-input { display: none; height: 1; border: none; padding: 0 1; }
    TableScreen #chat-input.-open { display: block; }
    """

    AUTO_FOCUS = "#board"
    _ready = False
    ALLOW_IN_MAXIMIZED_VIEW = "KeyBar"
    """The keys stay in view under the log read over the whole screen (as Textual's footer would)."""

    BINDINGS = [
        Binding("c", "chat", "chat"),
        *action_bindings(),
        Binding("question_mark", "help", "help", key_display="?"),
        Binding("r", "rules", "rules", show=False),
        Binding("l", "read_log", "log", show=False),
        Binding("g", "summary", "summary"),
        Binding("p", "people", "people"),
        Binding("q", "leave", "leave"),
        Binding("escape", "back_to_table", show=False),
    ]

    connection: var[str] = var(ONLINE)
    """The link to the host: online, reconnecting or closed."""
    names: var[tuple[str, ...]] = var(())
    """Every seat's name, as the host says."""
    away: var[frozenset[int]] = var(frozenset())
    """Seats whose person is disconnected or idle."""
    paused: var[str] = var("")
    """Why the host has paused play ("" while it goes on)."""

    def __init__(self, info: TableInfo, *, clock: Clock = WALL, settings: Settings | None = None) -> None:
        super().__init__()
        self.info = info
        self.settings = settings if settings is not None else Settings()
        """The person's settings the board follows (auto-pass, the bell)."""
        self.ui = ui_for(info.game)
        """What this game brings to the table: its board, its actions, its summary."""
        self.at_table = AtTable(self)
        """The table as the game's actions see it."""
        self.clock = clock
        self.seq = 0
        self.view: GameView | None = None
        self.record: Record = self.ui.record()
        """What the summary tells of this game, kept from every view."""
        self.announced: set[int] = set()
        """Things the game's announcements have told already (trade offers, by id)."""
        self.notices: list[tuple[str, str, str]] = []
        """Every notice told at this table: (title, text, severity)."""
        self.KEY_ACTIONS = (("summary", ()), *(("game", (a.name,)) for a in self.ui.actions if a.key))
        """Actions (and their parameters) whose keys come and go with the view (see tui.widgets.refresh_keys)."""
        self._summary_shown = False
        self.log_lines: list[str] = []
        """Every sentence of the game log so far (the log widget keeps a scrolling window of them)."""
        self.set_reactive(TableScreen.names, info.names)

    # --- layout --------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        # Decided before the log is laid out: it wraps lines at the width it has when they arrive.
        self.set_class(self.app.size.width >= WIDE, "-wide")
        yield StatusBar(id="status")
        with Vertical(id="body"):
            yield self.ui.board(clock=self.clock, id="board")
            with Vertical(id="side"):
                yield GameLog(id="log")
                yield Input(
                    placeholder="Say something to the table (Enter sends, Esc closes)", id="chat-input", max_length=300
                )
        yield KeyBar(id="keys")

    @property
    def ready(self) -> bool:
        """Mounted: its widgets can be reached (before, a view waits for it)."""
        return self._ready

    @property
    def board(self) -> Board[Any]:
        """The game's board (of whichever game: its views are the game's own)."""
        return self.query_one("#board", Board)

    @property
    def log_widget(self) -> GameLog:
        return self.query_one("#log", GameLog)

    def on_mount(self) -> None:
        self._ready = True
        self.board.names = self.names
        self.board.auto_pass = bool(self.settings.auto_pass)
        self.board.bell = bool(self.settings.bell)
        title = self.ui.title
        players = ", ".join(self.names) if self.names else ""
        self.log_widget.notice(
            f"A game of {title}"
            + (f": {players}." if players else ".")
            + " Press ? for the keys, r for the rules, c to chat.",
            style="italic dim",
        )
        self.board.focus()
        self._update_status()
        self.query_one("#chat-input", Input).cursor_blink = self.quackbox.cursor_blink_enabled

    def on_resize(self) -> None:
        self.set_class(self.size.width >= WIDE, "-wide")
        self.log_widget.action_read_from(-1)
        if self._ready:
            self._update_status()  # said as fully as the new width allows

    # --- what the host says -------------------------------------------------------------

    def receive_view(self, message: View) -> None:
        view = message.view
        self.seq = message.seq
        self.view = view
        # After a reconnection the connection passes on only the lines of the
        # recent log this seat has not had (quackbox.net.client).
        log = self.log_widget
        for line in message.log:
            self.log_lines.append(line.text)
            log.event(line.text, line.kind)
        self.record.see(message)
        board = self.board
        deadline = message.deadline
        board.deadline_at = self.clock() + deadline.seconds if deadline is not None else None
        board.receive_events(message.events, message.log)
        board.view = view
        self.ui.announce(self.at_table, message)
        self._update_status()
        if view.outcome is not None and not self._summary_shown:
            self._summary_shown = True
            self.clock.after(self, SUMMARY_DELAY, self.action_summary)

    def receive_lobby(self, lobby: Lobby) -> None:
        self.names = tuple(s.name for s in lobby.seats)
        self.away = frozenset(s.seat for s in lobby.seats if s.away)

    def receive_chat(self, line: ChatLine) -> None:
        name = line.name if line.seat is None else (self.names[line.seat] if line.seat < len(self.names) else line.name)
        self.log_widget.chat(name or "Someone", line.text, me=line.seat is not None and line.seat == self.info.seat)

    def receive_error(self, error: Error) -> None:
        if error.code != ErrorCode.PAUSED:  # the pause said so already, once
            self.tell(error.message, title="The host refused", severity="error")
        self.board.pending = frozenset()

    def receive_paused(self, reason: str) -> None:
        """Play is paused (``reason``: why, a sentence), or goes on again (empty): said in the
        log, and in the status line for as long as it lasts."""
        if reason == self.paused:
            return
        self.paused = reason
        if reason:
            self.log_widget.notice(reason, style="bold yellow")
        else:
            self.log_widget.notice("The host can save the game again: play goes on.", style="italic")

    def notice(self, text: str) -> None:
        self.log_widget.notice(text)

    # --- notices for the person ----------------------------------------------------------

    NOTICE_STYLES = {"information": "italic", "warning": "bold yellow", "error": "bold red"}
    """How a notice looks, by its severity."""

    def tell(self, text: str, *, title: str = "", severity: str = "information", until: str = "") -> None:
        """A notice for the person at this table: a line of the log, held below its newest
        lines until it is read, that is until the next key pressed here, or, named ``until``,
        until :meth:`untell` with that name (a trade offer, until it is answered). A toast
        would sit on the log and cut its lines (at 80x24 it covers half of them)."""
        self.notices.append((title, text, severity))
        line = Text(f"{title}: " if title else "", style="bold")
        line.append(text)
        line.stylize(self.NOTICE_STYLES.get(severity, ""))
        self.log_widget.hold(line, until)

    def untell(self, until: str) -> None:
        """The notice held under ``until`` has been read (or is no longer true): it takes its
        place among the other lines."""
        self.log_widget.release(until)

    def on_key(self) -> None:
        # A key pressed here means the person is looking: the notices told until then are read.
        self.log_widget.release()

    def table_closed(self, why: str, moved: bool = False, removed: bool = False) -> None:
        """The table has closed (``why``, a sentence), or, ``moved``, this seat is played
        from a newer connection, or, ``removed``, the host removed this person: say so
        where the prompt was, and what now."""
        self.connection = CLOSED
        self.log_widget.notice(why, style="italic red")
        if moved:
            self.board.closed = f"{why} The game goes on in the newer window; press q to leave this one."
            return
        if removed:
            self.board.closed = f"{why} You cannot take a seat at this table again. Press q to leave."
            return
        if self.info.mode == "join":
            then = "Press q to leave; if the host opens the table again, join it as before to take your seat back."
        else:
            then = "Press q to leave."
        self.board.closed = " ".join(part for part in ("The table has closed.", why, then) if part)

    def reconnected(self) -> None:
        """The link to the host is back (its next view brings what was missed)."""
        self.notice("Reconnected.")

    def watch_names(self, names: tuple[str, ...]) -> None:
        if self._ready:
            self.board.names = names
            self._update_status()

    def watch_away(self, away: frozenset[int]) -> None:
        if self._ready:
            self.board.away = away

    def watch_connection(self) -> None:
        if self._ready:
            self._update_status()

    def watch_paused(self) -> None:
        if self._ready:
            self._update_status()

    def _update_status(self) -> None:
        status = self.query_one("#status", StatusBar)
        state = {
            ONLINE: ("● online", "green"),
            RECONNECTING: ("◌ reconnecting…", "bold yellow"),
            CLOSED: ("✗ table closed", "bold red"),
            CONNECTING: ("◌ connecting…", "yellow"),
        }
        label, style = state.get(self.connection, (self.connection, ""))
        if self.paused and self.connection == ONLINE:
            label, style = "⏸ paused: cannot save", "bold yellow"
        # The line's width less its padding, the connection and a space: what the game may say.
        room = self.size.width - 2 - len(label) - 1
        text = self.board.status_text(room) if self.view is not None else Text(self.ui.title)
        status.update(text, Text(label, style=style))

    # --- moves ---------------------------------------------------------------------------

    @on(MovePicked)
    def send_move(self, message: MovePicked) -> None:
        message.stop()
        if self.connection == CLOSED:
            self.tell("The table has closed: press q to leave.", severity="warning")
            self.board.pending = frozenset()
            return
        if self.connection != ONLINE:
            self.tell("Not connected to the host right now; try again in a moment.", severity="warning")
            self.board.pending = frozenset()
            return
        if self.paused:
            self.log_widget.notice(
                "Play is paused: your move was not sent. Make it again once play goes on.", style="italic yellow"
            )
            self.board.pending = frozenset()
            return
        self.quackbox.send_move(message.move, self.seq)

    # --- chat ------------------------------------------------------------------------------

    def action_chat(self) -> None:
        box = self.query_one("#chat-input", Input)
        box.add_class("-open")
        # At once (not after the next refresh), so letters typed right after c land in the box.
        self.set_focus(box)

    @on(Input.Submitted, "#chat-input")
    def chat_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        event.input.value = ""
        if text:
            self.quackbox.send_chat(text)
        self._close_chat()

    def _close_chat(self) -> None:
        box = self.query_one("#chat-input", Input)
        box.remove_class("-open")
        self.board.focus()

    def action_back_to_table(self) -> None:
        """Esc: close the chat box, or come back to the board; at the board, leave (which asks)."""
        if self.query_one("#chat-input", Input).has_class("-open"):
            self._close_chat()
        elif self.focused is not self.board:
            self.board.focus()
        else:
            self.action_leave()

    def action_people(self) -> None:
        """p (the host): the people at the table, to remove one or mute their chat."""
        self.quackbox.keep_order()

    def action_read_log(self) -> None:
        """The log over the whole screen, to read back through (Esc returns)."""
        log = self.log_widget
        self.maximize(log, container=False)
        log.action_read_from(-1)
        log.focus()

    def watch_maximized(self, maximized: Widget | None) -> None:
        if maximized is None and self._ready:
            # Back at the table: the newest lines in view, and the keys on the board.
            self.board.focus()
            self.log_widget.action_read_from(-1)

    # --- reading -----------------------------------------------------------------------

    def action_help(self) -> None:
        self.app.push_screen(ReadingScreen("Keys", rules_text.TABLE_KEYS))

    def action_rules(self) -> None:
        self.app.push_screen(rules_screen(self.info.game))

    # --- what the game adds -----------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "game":
            name = parameters[0] if parameters else ""
            return any(a.name == name for a in self.ui.actions) and self.ui.can(str(name), self.at_table)
        if action == "summary":
            view = self.view
            return view is not None and view.outcome is not None
        if action == "people":
            return self.info.mode == "host"
        return True

    def action_game(self, name: str) -> None:
        """One of the game's own actions (trading, the money chart...)."""
        if any(a.name == name for a in self.ui.actions):
            self.ui.run(name, self.at_table)

    # --- the end ---------------------------------------------------------------------------

    def action_summary(self) -> None:
        view = self.view
        if view is None or view.outcome is None or not self.is_current:
            return

        def chosen(what: str | None) -> None:
            if what == "again":
                self.quackbox.play_again()
            elif what == "lobby":
                self.quackbox.back_to_lobby()
            elif what == "leave":
                self.quackbox.leave_table()

        self.app.push_screen(
            SummaryScreen(
                self.ui,
                view,
                self.names,
                self.record,
                can_again=self.quackbox.can_play_again(),
                can_lobby=self.quackbox.can_return_to_lobby(),
            ),
            chosen,
        )

    def action_leave(self, then_quit: bool = False) -> None:
        """q: leave the table, asking first where someone loses something by it; a host's
        question says that everyone goes home, and that the game is saved (``then_quit``:
        the app quits once the table is left)."""
        view = self.view
        over = view is not None and view.outcome is not None
        hosting = self.info.mode == "host"
        if self.connection == CLOSED or (self.info.seat is None and not hosting) or (over and not hosting):
            self.quackbox.leave_table(then_quit)  # nothing to lose: a spectator, or a game over or gone
            return

        def confirmed(yes: bool | None) -> None:
            if yes:
                self.quackbox.leave_table(then_quit)

        if hosting and not over:
            question, yes = "Close the table for everyone? The game is saved; you can resume it.", "Close"
        elif hosting:
            question, yes = "Close the table? Everyone at it goes home.", "Close"
        elif self.info.mode == "local":
            question, yes = "Leave the game against the bots? The game is not over yet.", "Leave"
        else:
            question, yes = "Leave the table? Your seat is kept: join again to take it back.", "Leave"
        self.app.push_screen(ConfirmScreen(question, yes=yes, no="Stay"), confirmed)
