"""The table screen, the same for both games: status line, the game's board, log, chat, footer.

The app hands the screen what the host says (views, lobby, chat, errors) by
setting attributes and calling :meth:`TableScreen.receive_view`; the board
posts :class:`~tui.widgets.MovePicked` and the screen asks the app to send
it (network IO happens in the app's workers, never here).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Footer, Input

from core import games
from core import side_effects as se
from net.protocol import ChatLine, Error, Lobby, View
from tui import rules_text
from tui.board import Board
from tui.modals import ChoiceScreen, ConfirmScreen, ReadingScreen
from tui.se_board import SEBoard
from tui.se_text import describe_move, offer_text
from tui.widgets import GameLog, MovePicked, StatusBar

if TYPE_CHECKING:
    from core import quack as q

ONLINE = "online"
CONNECTING = "connecting"
RECONNECTING = "reconnecting"
CLOSED = "closed"

WIDE = 120
"""From this many columns the log and chat move to a column of their own beside the table."""

SUMMARY_DELAY = 1.5
"""Seconds the final table stays in view before the summary opens."""


@dataclass
class TableInfo:
    """What the screen needs to know about the table it shows."""

    game: str
    seat: int | None
    names: tuple[str, ...]
    mode: str = "local"
    starter: bool = False


class TableScreen(Screen):
    """One game in progress (or just finished), for one seat."""

    DEFAULT_CSS = """
    TableScreen { layout: vertical; }
    TableScreen #body { height: 1fr; layout: vertical; }
    TableScreen #side { height: 1fr; min-height: 3; }
    TableScreen.-wide #body { layout: horizontal; }
    TableScreen.-wide #board { width: 1fr; height: 1fr; }
    TableScreen.-wide #side { width: 40; height: 1fr; border-left: vkey $panel-lighten-2; }
    TableScreen #chat-input { display: none; height: 1; border: none; padding: 0 1; }
    TableScreen #chat-input.-open { display: block; }
    """

    AUTO_FOCUS = "#board"

    BINDINGS = [
        Binding("c", "chat", "chat"),
        Binding("t", "trade", "trade"),
        Binding("o", "offers", "offers", show=False),
        Binding("question_mark", "help", "help", key_display="?"),
        Binding("r", "rules", "rules", show=False),
        Binding("l", "read_log", "log", show=False),
        Binding("g", "summary", "summary"),
        Binding("m", "money", "money", show=False),
        Binding("q", "leave", "leave"),
        Binding("escape", "back_to_table", show=False),
    ]

    KEY_ACTIONS = ("trade", "offers", "summary", "money")
    """Actions whose keys come and go with the view (see tui.widgets.refresh_keys)."""

    connection: reactive[str] = reactive(ONLINE)
    """The link to the host: online, reconnecting or closed."""
    names: reactive[tuple[str, ...]] = reactive(())
    """Every seat's name, as the host says."""
    away: reactive[frozenset[int]] = reactive(frozenset())
    """Seats whose person is disconnected or idle."""

    def __init__(self, info: TableInfo, *, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.info = info
        self.clock = clock
        self.seq = 0
        self.view: Any = None
        self.money_history: list[tuple[int, tuple[int, ...]]] = []
        """Quack: (round, every doctor's money) at the start of each round and at the end."""
        self._summary_shown = False
        self._offers_seen: set[int] = set()
        self.log_lines: list[str] = []
        """Every sentence of the game log so far (the log widget keeps a scrolling window of them)."""
        self.set_reactive(TableScreen.names, info.names)

    # --- layout --------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        # Decided before the log is laid out: it wraps lines at the width it has when they arrive.
        self.set_class(self.app.size.width >= WIDE, "-wide")
        yield StatusBar(id="status")
        with Vertical(id="body"):
            if self.info.game == se.GAME:
                yield SEBoard(clock=self.clock, id="board")
            else:
                # Imported here: a Side Effects table never loads Quack in the Box.
                from tui.quack_board import QuackBoard

                yield QuackBoard(clock=self.clock, id="board")
            with Vertical(id="side"):
                yield GameLog(id="log")
                yield Input(placeholder="Say something to the table (Enter sends, Esc closes)", id="chat-input",
                            max_length=300)
        yield Footer(show_command_palette=False)

    @property
    def board(self) -> Board:
        return self.query_one("#board", Board)

    @property
    def log_widget(self) -> GameLog:
        return self.query_one("#log", GameLog)

    def on_mount(self) -> None:
        self._ready = True
        self.board.names = self.names
        settings = getattr(self.app, "settings", None)
        if settings is not None and hasattr(self.board, "auto_pass"):
            self.board.auto_pass = bool(settings.auto_pass)
        title = rules_text.TITLES.get(self.info.game, self.info.game)
        players = ", ".join(self.names) if self.names else ""
        self.log_widget.notice(f"A game of {title}" + (f": {players}." if players else ".")
                               + " Press ? for the keys, r for the rules, c to chat.", style="italic dim")
        self.board.focus()
        self._update_status()
        self.query_one("#chat-input", Input).cursor_blink = self.app.cursor_blink_enabled

    def on_resize(self) -> None:
        self.set_class(self.size.width >= WIDE, "-wide")

    # --- what the host says -------------------------------------------------------------

    def receive_view(self, message: View) -> None:
        view = message.view
        self.seq = message.seq
        self.view = view
        log = self.log_widget
        self.log_lines.extend(message.log)
        for line in message.log:
            log.event(line, mine=line.startswith("You "), quiet=line.startswith(("Turn ", "Round ")))
        if self.info.game == games.QUACK:
            self._track_money(view)
        board = self.board
        deadline = message.deadline
        board.deadline_at = self.clock() + deadline.seconds if deadline is not None else None
        board.receive_events(message.events)
        board.view = view
        self._announce_offers(view)
        self._update_status()
        if view.outcome is not None and not self._summary_shown:
            self._summary_shown = True
            self.set_timer(SUMMARY_DELAY, self.action_summary)

    def receive_lobby(self, lobby: Lobby) -> None:
        self.names = tuple(s.name for s in lobby.seats)
        self.away = frozenset(s.seat for s in lobby.seats if s.away)

    def receive_chat(self, line: ChatLine) -> None:
        name = line.name if line.seat is None else (self.names[line.seat] if line.seat < len(self.names) else line.name)
        self.log_widget.chat(name or "Someone", line.text, me=line.seat is not None and line.seat == self.info.seat)

    def receive_error(self, error: Error) -> None:
        self.log_widget.notice(f"The host refused: {error.message}", style="italic red")
        self.board.pending = frozenset()

    def notice(self, text: str) -> None:
        self.log_widget.notice(text)

    def watch_names(self, names: tuple[str, ...]) -> None:
        if getattr(self, "_ready", False):
            self.board.names = names
            self._update_status()

    def watch_away(self, away: frozenset[int]) -> None:
        if getattr(self, "_ready", False):
            self.board.away = away

    def watch_connection(self) -> None:
        if getattr(self, "_ready", False):
            self._update_status()

    def _track_money(self, view: q.QuackView) -> None:
        money = tuple(d.money for d in view.doctors)
        if not self.money_history or self.money_history[-1][0] != view.round:
            self.money_history.append((view.round, money))
        elif view.outcome is not None or self.money_history[-1][1] != money:
            # Keep the latest figure of the round, so the chart ends where the game did.
            self.money_history[-1] = (view.round, money)

    def _announce_offers(self, view: Any) -> None:
        if self.info.game != se.GAME or view.seat is None:
            return
        for offer in view.offers:
            if offer.id not in self._offers_seen and offer.to == view.seat:
                self.app.notify(offer_text(view, offer, self.names).capitalize() + ". Press o to answer.",
                                title="Trade offer", markup=False, timeout=8)
            self._offers_seen.add(offer.id)

    def _update_status(self) -> None:
        status = self.query_one("#status", StatusBar)
        text = self.board.status_text() if self.view is not None else Text(rules_text.TITLES.get(self.info.game, ""))
        state = {ONLINE: ("● online", "green"), RECONNECTING: ("◌ reconnecting…", "bold yellow"),
                 CLOSED: ("○ table closed", "bold red"), CONNECTING: ("◌ connecting…", "yellow")}
        label, style = state.get(self.connection, (self.connection, ""))
        status.update(text, Text(label, style=style))

    # --- moves ---------------------------------------------------------------------------

    @on(MovePicked)
    def send_move(self, message: MovePicked) -> None:
        message.stop()
        if self.connection != ONLINE:
            self.app.notify("Not connected to the host right now; try again in a moment.",
                            severity="warning", markup=False)
            self.board.pending = frozenset()
            return
        self.app.send_move(message.move, self.seq)

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
            self.app.send_chat(text)
        self._close_chat()

    def _close_chat(self) -> None:
        box = self.query_one("#chat-input", Input)
        box.remove_class("-open")
        self.board.focus()

    def action_back_to_table(self) -> None:
        if self.query_one("#chat-input", Input).has_class("-open"):
            self._close_chat()
        else:
            self.board.focus()

    def action_board_end_turn(self) -> None:
        if hasattr(self.board, "action_end_turn"):
            self.board.action_end_turn()

    def action_board_pass(self) -> None:
        if hasattr(self.board, "action_pass_window"):
            self.board.action_pass_window()

    def action_read_log(self) -> None:
        self.log_widget.focus()

    # --- reading -----------------------------------------------------------------------

    def action_help(self) -> None:
        self.app.push_screen(ReadingScreen("Keys", rules_text.TABLE_KEYS))

    def action_rules(self) -> None:
        self.app.push_screen(ReadingScreen(f"Rules: {rules_text.TITLES[self.info.game]}",
                                           rules_text.rules_markdown(self.info.game)))

    # --- trading (Side Effects) ------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        view = self.view
        if action in ("trade", "offers"):
            if self.info.game != se.GAME:
                return False
            if action == "offers":
                return view is not None and bool(view.offers)
            return self._can_trade()
        if action == "summary":
            return True if view is not None and view.outcome is not None else False
        if action == "money":
            return self.info.game == games.QUACK
        return True

    def _can_trade(self) -> bool:
        view = self.view
        return view is not None and bool(view.trade_partners)

    def action_trade(self) -> None:
        if not self._can_trade():
            self.app.notify("Trading waits until the game is back to ordinary play.", severity="warning")
            return
        view = self.view
        from tui.trade import TradeScreen

        def made(move: se.OfferTrade | None) -> None:
            if move is not None:
                self.app.send_move(move, self.seq)

        self.app.push_screen(TradeScreen(view, self.names), made)

    def action_offers(self) -> None:
        view = self.view
        if view is None or self.info.game != se.GAME:
            return
        answers = [m for m in view.legal if isinstance(m, se.TRADE_ANSWERS)]
        if not answers:
            if view.offers:
                lines = "; ".join(offer_text(view, o, self.names) for o in view.offers)
                self.app.notify(f"Open offers: {lines}. They can be answered during ordinary play.",
                                markup=False)
            else:
                self.app.notify("No open trade offers.")
            return
        labels = [Text(describe_move(view, m, self.names)) for m in answers]

        def chosen(index: int | None) -> None:
            if index is not None:
                self.app.send_move(answers[index], self.seq)

        self.app.push_screen(ChoiceScreen(Text("Trade offers"), labels), chosen)

    # --- the end ---------------------------------------------------------------------------

    def action_summary(self) -> None:
        view = self.view
        if view is None or view.outcome is None or not self.is_current:
            return

        from tui.summary import SummaryScreen

        def chosen(what: str | None) -> None:
            if what == "again":
                self.app.play_again()
            elif what == "lobby":
                self.app.back_to_lobby()
            elif what == "leave":
                self.app.leave_table()

        self.app.push_screen(SummaryScreen(self.info, view, self.names, self.money_history,
                                           can_again=self.app.can_play_again(),
                                           can_lobby=self.app.can_return_to_lobby()), chosen)

    def action_money(self) -> None:
        if self.info.game != games.QUACK or self.view is None:
            return
        from tui.summary import MoneyScreen

        self.app.push_screen(MoneyScreen(self.view, self.names, self.money_history))

    def action_leave(self) -> None:
        view = self.view
        if view is None or view.outcome is not None or self.connection == CLOSED:
            self.app.leave_table()
            return

        def confirmed(yes: bool | None) -> None:
            if yes:
                self.app.leave_table()

        where = "the game against the bots" if self.info.mode == "local" else "the table"
        self.app.push_screen(ConfirmScreen(f"Leave {where}? The game is not over yet.", yes="Leave", no="Stay"),
                             confirmed)
