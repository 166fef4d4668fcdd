"""The quackbox Textual app and its entry points.

- :func:`run_home` - ``quackbox``: the home screen.
- :func:`run_local_game` - ``quackbox play GAME``: straight to a game against bots.
- :func:`run_join` - ``quackbox join HOST``: a seat at someone's table.
- :func:`run_hosted` - ``quackbox host``: open a table and sit at it.

:func:`make_app` builds the app (tests pass a settings directory, an opener
that returns a fake session, a clock). The app owns the :class:`Session`:
one worker reads the host's messages and posts them to the app, which hands
them to the screen showing the table (attributes down); screens post moves
up, and the app sends them from a worker. Nothing here raises to the
terminal: refusals, lost connections and host goodbyes become sentences on screen (at a table,
notices held in its log: :meth:`QuackboxApp.notify`).
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from functools import partial
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Iterable, Mapping, Sequence, TypeGuard

from rich.text import Text
from textual import getters, on, work
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Center, Vertical
from textual.message import Message
from textual.reactive import reactive
from textual.screen import ModalScreen, Screen
from textual.widgets import Input, LoadingIndicator, Static

from quackbox.core import games
from quackbox.core.rules import BadOptions, Move
from quackbox.net import places
from quackbox.net.client import Disconnected, NetError, NotConnected, Reconnected
from quackbox.net.host import HostConfig, HostError, farewell, is_loopback, lan_address
from quackbox.net.protocol import HUMAN, Bye, ChatLine, Error, ErrorCode, Lobby, Notice, Paused, Started, View, Welcome
from quackbox.net.resources import quiet_loop_errors
from quackbox.net.tokens import TokenStore
from quackbox.tui import rules_text
from quackbox.tui.clock import WALL, Clock, while_alive
from quackbox.tui.config import Settings, SettingsStore
from quackbox.tui.first_games import BotGame, dealt, introduce, needs_card
from quackbox.tui.games import rules_screen
from quackbox.tui.how_to_play import HowToPlayScreen
from quackbox.tui.looks import Ascii, NoDim, Plain, wants_ascii
from quackbox.tui.modals import ChoiceScreen, ConfirmScreen, ReadingScreen
from quackbox.tui.session import HOSTING, JOINED, LOCAL, Received, Session, open_hosted, open_joined, open_local
from quackbox.tui.table import CLOSED, ONLINE, RECONNECTING, TableInfo, TableScreen
from quackbox.tui.terminal import TerminalApp
from quackbox.tui.widgets import AutoPassToggled, KeyBar

if TYPE_CHECKING:
    from textual.filter import LineFilter
    from textual.notifications import SeverityLevel

    from quackbox.net.host import Host
    from quackbox.net.ssh import SshConfig, SshServer
    from quackbox.net.web import WebConfig, WebServer
    from quackbox.tui.home import HomeScreen
    from quackbox.tui.lobby import LobbyInfo, LobbyScreen
    from quackbox.tui.screens_app import ScreensApp

Opener = Callable[[], Awaitable[Session]]
"""Opens a session (connects, or starts a local host); raises NetError & co. with a sentence."""

KEPT_SEAT = "You left the table; your seat is kept for you: join again the way you came in to take it back."
"""What a guest's terminal says when they leave a game that goes on: the seat is not lost."""

OPEN_ERRORS = (NetError, HostError, BadOptions, ValueError, OSError)


class ConnectingScreen(Screen[None]):
    """Shown while a table opens; Escape gives up."""

    if TYPE_CHECKING:
        app = getters.app(QuackboxApp)  # noqa: F821 (defined below; read by the type checker alone)
        """The quackbox app this screen runs in, for the type checker (at run time, Textual's own ``app``)."""

    DEFAULT_CSS = """
    ConnectingScreen { align: center middle; }
    ConnectingScreen Vertical { width: 60; height: auto; }
    ConnectingScreen #what { width: 1fr; content-align: center middle; text-align: center; }
    ConnectingScreen LoadingIndicator { height: 3; }
    """

    BINDINGS = [Binding("escape", "give_up", "give up")]

    def __init__(self, what: str) -> None:
        super().__init__()
        self.what = what

    def compose(self) -> ComposeResult:
        with Center():
            with Vertical():
                yield Static(Text(self.what), id="what")
                yield LoadingIndicator()
        yield KeyBar(palette=True)

    def action_give_up(self) -> None:
        self.app.give_up_connecting()


class NetReceived(Message):
    """The listener worker got ``item`` from the host (or a local Disconnected/Reconnected notice)."""

    def __init__(self, item: Received) -> None:
        super().__init__()
        self.item = item


class NetEnded(Message):
    """The listener worker stopped; ``error`` is a sentence when it ended badly."""

    def __init__(self, error: str | None) -> None:
        super().__init__()
        self.error = error


class SessionOpened(Message):
    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session


class SessionFailed(Message):
    def __init__(self, error: str) -> None:
        super().__init__()
        self.error = error


CHAT_SHOWN = 50
"""Chat lines a lobby or table shows of what was said before it opened."""


class QuackboxApp(TerminalApp[int]):
    """A terminal tabletop for Side Effects and Quack in the Box."""

    CSS_PATH = "quackbox.tcss"
    _theme_ready = False
    """The remembered theme is applied: a change of theme from here on is the person's, to remember."""
    TITLE = "quackbox"

    BINDINGS = [
        Binding("ctrl+q", "quit", "quit", show=False, priority=True),
        # Before any widget or dialog: Ctrl+C means leave everywhere (but copying in a text box).
        Binding("ctrl+c", "interrupt", show=False, priority=True),
        Binding("f1", "show_help", "help", show=False),
    ]

    connection: reactive[str] = reactive("offline")
    """The link to the host: offline, connecting, online, reconnecting or closed."""

    def __init__(
        self,
        *,
        store: SettingsStore | None = None,
        opener: Opener | None = None,
        opening: str = "",
        home: bool = True,
        clock: Clock = WALL,
        cursor_blink: bool = True,
        lan_address: str | None = None,
        session: Session | None = None,
    ) -> None:
        super().__init__()
        self.store = store if store is not None else SettingsStore()
        self.settings: Settings = self.store.load()
        self.ascii = wants_ascii(bool(self.settings.ascii))
        """Draw with ASCII only (``--ascii``, the home screen's option, or a terminal known to need it)."""
        self._looks = (Plain(), NoDim(), Ascii())
        self.clock = clock
        self.cursor_blink_enabled = cursor_blink
        self.home = home
        self.lan_address = lan_address
        self._first_opener = opener
        self._first_opening = opening
        self._first_session = session
        self.session: Session | None = None
        self.lobby: Lobby | None = None
        self.names: tuple[str, ...] = ()
        self.table_screen: TableScreen | None = None
        self.lobby_screen: LobbyScreen | None = None
        self.chat_lines: list[ChatLine] = []
        self.exit_note: str | None = None
        self.toasts: list[tuple[str, str]] = []
        """Every notice shown as a toast (its title and words), as it was shown: what a test
        reads rather than Textual's private list."""
        self.exit_lines: list[str] = []
        """Lines to print once the app has gone: where a hosted game was saved, and how to resume it."""
        self.resume_flags: list[str] = []
        """What ``host --resume`` needs besides the file to reopen a table as this app hosted it."""
        self._farewelled: set[int] = set()
        self._muted_watchers: set[str] = set()
        """The spectators whose chat this host muted (a seat's mute is in the lobby message)."""
        """The sessions (by id) whose farewell is among :attr:`exit_lines` already."""
        self.join_name: str | None = None
        """The name given to ``quackbox join --name`` (tokens are remembered under it)."""
        self.ssh_host_key: str | None = None
        """The SSH host key's fingerprint, for the lobby of a player who came in over SSH."""
        self.bot_game: BotGame | None = None
        """The game against bots the person asked for (``quackbox play``, Play vs bots): dealt
        when the app starts, if set before, and dealt again by Play again."""
        self._bot_options: dict[str, Any] | None = None
        """The options the open game against bots deals with."""
        self._deals = 0
        """Games dealt at the open table."""
        self._join_again: HomeScreen.JoinChosen | None = None
        """The home screen's Join being tried: if it fails, its dialog opens again."""
        """A sentence to print after the app closes (why it could not open the table)."""

    # --- start ---------------------------------------------------------------------------

    def on_mount(self) -> None:
        self._apply_theme()
        if self.home:
            from quackbox.tui.home import HomeScreen

            self.push_screen(HomeScreen(self.settings))
        if self._first_session is not None:
            # Opened before the app took the screen (``quackbox join``): straight to its lobby,
            # no screen saying it is joining for the few milliseconds until the lobby comes.
            self.post_message(SessionOpened(self._first_session))
        elif self.bot_game is not None:
            self.play_bot_game(self.bot_game)
        elif self._first_opener is not None:
            self.open_session(self._first_opener, self._first_opening)

    def _apply_theme(self) -> None:
        """The remembered theme; else, on a 16-colour terminal, the one drawn in the
        terminal's own colours (mapping a true-colour theme to 16 colours muddles it)."""
        chosen = self.settings.theme
        if chosen and chosen in self.available_themes:
            self.theme = chosen
        elif not self.is_headless and self.console.color_system in ("standard", "windows"):
            self.theme = "ansi-dark"
        self._theme_ready = True

    def get_line_filters(self) -> list[LineFilter]:
        """Textual's filters, then ours: NO_COLOR and 16 colours draw nothing faint, ASCII no glyphs."""
        plain, no_dim, ascii_ = self._looks
        filters = list(super().get_line_filters())
        if self.no_color:
            filters.append(plain)
        elif self.console.color_system in ("standard", "windows"):
            filters.append(no_dim)
        if self.ascii:
            filters.append(ascii_)
        return filters

    def get_key_display(self, binding: Binding) -> str:
        shown = super().get_key_display(binding)
        return "enter" if self.ascii and shown == "⏎" else shown

    def set_ascii(self, on: bool) -> None:
        """Switch ASCII drawing on or off (and remember it)."""
        self.settings.ascii = int(on)
        self.save_settings()
        self.ascii = wants_ascii(on)
        self.screen.refresh(layout=True)

    def watch_theme(self, theme: str) -> None:
        if self._theme_ready and theme != self.settings.theme:
            self.settings.theme = theme
            self.save_settings()

    @property
    def base_depth(self) -> int:
        """Screens that stay when a table closes: the default screen, and home if there is one."""
        return 2 if self.home else 1

    def _show(self, screen: Screen[Any]) -> None:
        """Replace whatever is above home with ``screen``."""
        while len(self.screen_stack) > self.base_depth:
            self.pop_screen()
        self.push_screen(screen)

    def save_settings(self) -> None:
        self.store.save(self.settings)

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """At a table a notice is a line of its log, held below the newest lines until read
        (:meth:`TableScreen.tell`): a toast would sit on the log and cut its lines. Elsewhere
        (home, lobby) Textual's toast."""
        table = self.table_screen
        if table is None or table not in self.screen_stack or not table.ready:
            self.toasts.append((title, str(message)))
            super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)
            return
        text = str(message)
        if markup:
            try:
                text = Text.from_markup(text).plain
            except Exception:  # not markup after all: shown as it is
                pass
        table.tell(text, title=title, severity=str(severity))

    # --- the home screen's choices --------------------------------------------------------

    # The home screen's messages are handled by name, so that a game started from the
    # command line never imports the home screen.

    def on_home_screen_play_chosen(self) -> None:
        s = self.settings
        self.play_bot_game(
            BotGame(s.game, s.players, dict(s.options.get(s.game, {})), s.name, None, s.bot_delay, s.bot_level)
        )

    def play_bot_game(self, game: BotGame, *, seed: int | None = None) -> None:
        """Deal ``game`` against bots (``seed``: instead of the game's own): the first time
        the person plays it, its how-to-play card comes first, and the game is dealt only
        once it is read, so no bot moves while it is open (tui.first_games)."""
        self.bot_game = game
        if needs_card(self.settings, game.game):

            def read(_closed: None) -> None:
                introduce(self.settings, game.game)
                self.save_settings()
                self.play_bot_game(game, seed=seed)

            self.push_screen(HowToPlayScreen(game.game), read)
            return
        options = self._bot_options = game.options_now(self.settings)
        dealt_seed = game.seed if seed is None else seed

        async def opener() -> Session:
            return await open_local(
                game.game,
                players=game.players,
                options=options,
                name=game.name,
                seed=dealt_seed,
                bot_delay=game.bot_delay,
                bot_kind=game.level,
            )

        self.open_session(opener, f"Dealing {games.title(game.game)} for {game.players}…")

    def on_home_screen_host_chosen(self, message: HomeScreen.HostChosen) -> None:
        s = self.settings
        config = HostConfig(
            game=s.game,
            seats=s.players,
            host_name=s.name,
            options=dict(s.options.get(s.game, {})),
            bot_delay=s.bot_delay,
            bot_kind=s.bot_level,
            bind="0.0.0.0" if message.lan else "127.0.0.1",
            port=message.port,
            journal_dir=str(places.games_dir()),
        )
        lan = (lan_address() or "127.0.0.1") if message.lan else "127.0.0.1"

        async def opener() -> Session:
            return await open_hosted(config, name=s.name, lan_address=lan)

        self.open_session(opener, f"Opening a table of {games.title(s.game)}…")

    def on_home_screen_join_chosen(self, message: HomeScreen.JoinChosen) -> None:
        s = self.settings

        async def opener() -> Session:
            return await open_joined(
                message.address, code=message.code or None, name=s.name, spectate=message.spectate, tokens=TokenStore()
            )

        self.open_session(opener, f"Joining the table at {message.address}…")
        self._join_again = message

    # --- opening and closing a session ----------------------------------------------------

    def open_session(self, opener: Opener, label: str) -> None:
        self._join_again = None
        self.connection = "connecting"
        self._show(ConnectingScreen(label or "Connecting…"))
        self._open(opener)

    @work(exclusive=True, group="open", exit_on_error=False)
    async def _open(self, opener: Opener) -> None:
        try:
            session = await opener()
        except OPEN_ERRORS as exc:
            self.post_message(SessionFailed(str(exc) or type(exc).__name__))
            return
        except Exception as exc:  # never a traceback on the table: say what happened
            self.post_message(SessionFailed(f"Could not open the table: {exc}"))
            return
        self.post_message(SessionOpened(session))

    def give_up_connecting(self) -> None:
        self.workers.cancel_group(self, "open")
        self.connection = "offline"
        self._after_table()

    @on(AutoPassToggled)
    def _auto_pass_toggled(self, message: AutoPassToggled) -> None:
        self.settings.auto_pass = int(message.on)
        self.save_settings()

    @on(SessionFailed)
    def _failed(self, message: SessionFailed) -> None:
        self.connection = "offline"
        join, self._join_again = self._join_again, None
        home = self.screen_stack[self.base_depth - 1]
        if self.home and join is not None and isinstance(home, _home_type()):
            # The Join dialog opens again with what was typed, saying why it failed.
            self._after_table()
            home.action_join(message.error, join.spectate)
        elif self.home:
            self.notify(message.error, title="Could not open the table", severity="error", markup=False, timeout=10)
            self._after_table()
        else:
            self.exit_note = message.error
            self.exit(1)

    @on(SessionOpened)
    def _opened(self, message: SessionOpened) -> None:
        session = message.session
        self.session = session
        self._join_again = None
        self.lobby = None
        self.names = ()
        self.chat_lines = []
        self.table_screen = None
        self.lobby_screen = None
        self.connection = ONLINE
        self._deals = 0
        self._listen(session)

    @work(exclusive=True, group="listen", exit_on_error=False)
    async def _listen(self, session: Session) -> None:
        try:
            async for item in session.messages():
                self.post_message(NetReceived(item))
        except NetError as exc:
            self.post_message(NetEnded(str(exc)))
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self.post_message(NetEnded(f"The connection failed: {exc}"))
        else:
            self.post_message(NetEnded(None))

    def leave_table(self, then_quit: bool = False) -> None:
        """Close the session and go back home (``then_quit``, or with no home: quit)."""
        session = self.session
        if session is not None:
            self._note_kept_seat(session)
        self.session = None
        self.table_screen = None
        self.lobby_screen = None
        self.workers.cancel_group(self, "listen")
        if session is not None:
            self._close(session)
        self.connection = "offline"
        self._after_table(then_quit)

    @work(group="close", exit_on_error=False)
    async def _close(self, session: Session) -> None:
        try:
            await asyncio.wait_for(session.close(), timeout=5)
        except Exception:  # the table is gone either way
            pass
        self._note_saved(session)

    def _note_kept_seat(self, session: Session) -> None:
        """A guest leaves a game that goes on without them: the table keeps their seat, and
        the terminal says so once the app has gone (an SSH session's player sees it as
        the session ends)."""
        table = self.table_screen
        view = table.view if table is not None else None
        if (
            session.mode != JOINED
            or table is None
            or table.info.seat is None
            or self.connection == CLOSED
            or view is None
            or view.outcome is not None
        ):
            return
        self.exit_lines.append(KEPT_SEAT)

    def _note_saved(self, session: Session) -> None:
        """A hosted table has closed: where its game was saved, and how to resume it, for
        the terminal once the app has gone (:attr:`exit_lines`)."""
        host = session.host
        # quackbox host (no home screen) says it itself, once the table has closed whole.
        if not self.home or host is None or session.mode != HOSTING or id(session) in self._farewelled:
            return
        self._farewelled.add(id(session))
        self.exit_lines += farewell(host.saved_game, self.resume_flags)

    def _after_table(self, then_quit: bool = False) -> None:
        if self.home and not then_quit:
            while len(self.screen_stack) > self.base_depth:
                self.pop_screen()
        else:
            self.exit(0)

    async def action_quit(self) -> None:
        """Ctrl+Q: quit. At a table or lobby with other people (hosting or joined), the
        screen's own leave asks first, and the app quits once the table is left."""
        session = self.session
        screen = self.screen
        if (
            session is not None
            and session.mode != LOCAL
            and self.connection != CLOSED
            and isinstance(screen, (TableScreen, self._lobby_type()))
        ):
            screen.action_leave(then_quit=True)
            return
        self.session = None
        if session is not None:
            try:
                await asyncio.wait_for(session.close(), timeout=3)
            except Exception:
                pass
            self._note_saved(session)
        self.exit(0)

    def action_interrupt(self) -> None:
        """Ctrl+C: what the screen's own leave key does (Textual's would only say to press
        Ctrl+Q). A dialog is answered as Esc answers it; selected text in a text box is
        copied, as there."""
        focused = self.focused
        if isinstance(focused, Input) and focused.selected_text:
            focused.action_copy()
            return
        screen = self.screen
        if isinstance(screen, ModalScreen):
            screen.dismiss(None)
        elif hasattr(screen, "action_leave"):
            screen.action_leave()
        elif hasattr(screen, "action_give_up"):
            screen.action_give_up()
        else:
            self.run_worker(self.action_quit(), exclusive=False)

    @staticmethod
    def _lobby_type() -> type[LobbyScreen]:
        from quackbox.tui.lobby import LobbyScreen

        return LobbyScreen

    # --- what the host says ------------------------------------------------------------------

    @on(NetReceived)
    def _received(self, message: NetReceived) -> None:
        try:
            self._dispatch(message.item)
        except Exception as exc:  # a bug in showing a message must not take the table down
            self.log.error(f"could not show {type(message.item).__name__}: {exc!r}")
            self.notify(
                f"Could not show what the host sent ({type(exc).__name__}: {exc}).", severity="error", markup=False
            )

    def _dispatch(self, item: Received) -> None:
        if type(item) is View:
            self._view(item)
        elif type(item) is Lobby:
            self._lobby(item)
        elif type(item) is Started:
            self.names = tuple(item.names)
            self._new_table()
            self._deals += 1
            if self.bot_game is not None and self.session is not None and self.session.mode == LOCAL:
                dealt(self.settings, self.bot_game.game)
                self.save_settings()
        elif type(item) is ChatLine:
            self.chat_lines.append(item)
            if self.table_screen is not None:
                self.table_screen.receive_chat(item)
            if self.lobby_screen is not None:
                self.lobby_screen.receive_chat(item, self.names)
        elif type(item) is Error:
            if item.code == ErrorCode.MUTED:  # said in the log, where the chat would have gone
                for screen in (self.table_screen, self.lobby_screen):
                    if screen is not None:
                        screen.notice(item.message)
                return
            if self.table_screen is not None:
                self.table_screen.receive_error(item)  # which tells it, until read
            elif item.code != ErrorCode.PAUSED:  # the pause is on screen already
                self.notify(item.message, title="The host says no", severity="error", markup=False)
        elif type(item) is Paused:
            if self.table_screen is not None:
                self.table_screen.receive_paused(item.reason)
            if self.lobby_screen is not None:
                self.lobby_screen.receive_paused(item.reason)
        elif type(item) is Notice:
            if self.table_screen is not None:
                self.table_screen.notice(item.text)
            if self.lobby_screen is not None:
                self.lobby_screen.notice(item.text)
        elif type(item) is Bye:
            self._table_closed(
                item.message or f"The host closed the connection ({item.reason}).",
                moved=item.reason == "replaced",
                removed=item.reason == "removed",
            )
        elif type(item) is Disconnected:
            self._set_connection(RECONNECTING)
            self.notify("Lost the host; reconnecting…", severity="warning", markup=False)
        elif type(item) is Reconnected:
            self._set_connection(ONLINE)
            if self.table_screen is not None:
                self.table_screen.reconnected()
            else:
                self.notify("Back at the table.", markup=False)
        elif type(item) is Welcome:
            pass  # the client keeps it; the seat and game do not change on a reconnect

    @on(NetEnded)
    def _ended(self, message: NetEnded) -> None:
        if self.session is None:
            return
        if message.error:
            self._table_closed(message.error)
        self._set_connection(CLOSED)
        if self.table_screen is None and self.lobby_screen is None:
            # Nothing on screen to show the news on: go back.
            self.leave_table()

    def _table_closed(self, why: str, moved: bool = False, removed: bool = False) -> None:
        """The table is gone for this seat (the host said goodbye, or could not be reached
        again), or, ``moved``, the seat is played from a newer connection (the same player
        in another window): the table goes on there."""
        if self.connection == CLOSED:
            return
        self._set_connection(CLOSED)
        title = (
            "Your seat is played elsewhere now"
            if moved
            else "You were removed from the table"
            if removed
            else "The table has closed"
        )
        if self.table_screen is None:  # a table says it in its log and its prompt
            self.notify(why, title=title, severity="warning", markup=False, timeout=10)
        if self.table_screen is not None:
            self.table_screen.table_closed(why, moved=moved, removed=removed)
        if self.lobby_screen is not None:
            self.lobby_screen.table_closed(why)

    def _set_connection(self, state: str) -> None:
        self.connection = state
        for screen in (self.table_screen, self.lobby_screen):
            if screen is not None:
                screen.connection = state

    def _lobby(self, lobby: Lobby) -> None:
        self.lobby = lobby
        self.names = tuple(s.name for s in lobby.seats)
        if self.table_screen is not None:
            self.table_screen.receive_lobby(lobby)
        session = self.session
        if session is None:
            return
        if not lobby.started and self.table_screen is None and session.mode != LOCAL:
            self._show_lobby()
        if self.lobby_screen is not None:
            self.lobby_screen.lobby = lobby

    def _lobby_info(self, session: Session) -> LobbyInfo:
        from quackbox.tui.lobby import LobbyInfo

        # The room code is for those at the table to pass on: someone only watching (a
        # stranger who came in through a door to look, without being given it) is not shown it.
        room_code = session.room_code if session.seat is not None else None
        return LobbyInfo(
            title=session.title,
            mode=session.mode,
            address=session.address,
            room_code=room_code,
            seat=session.seat,
            starter=session.starter,
            host_key=self.ssh_host_key,
            ssh_door=session.ssh_door,
            web_link=session.web_link,
        )

    def show_how_to_join(self, *, resumed: bool = False) -> None:
        """The lobby's lines on how friends come in, as a page (a hosted table)."""
        from quackbox.tui.lobby import join_markdown

        session = self.session
        if session is not None and session.mode == HOSTING:
            self.push_screen(
                ReadingScreen("How friends join", join_markdown(self._lobby_info(session), resumed=resumed))
            )

    def _show_lobby(self) -> None:
        session = self.session
        if session is None:
            return
        if self.lobby_screen is None:
            from quackbox.tui.lobby import LobbyScreen

            self.lobby_screen = LobbyScreen(self._lobby_info(session))
            self.lobby_screen.lobby = self.lobby
            self.lobby_screen.connection = self.connection
            self._show(self.lobby_screen)
            for line in self.chat_lines[-CHAT_SHOWN:]:
                self.call_after_refresh(
                    while_alive(self.lobby_screen, self.lobby_screen.receive_chat), line, self.names
                )

    def _new_table(self) -> TableScreen | None:
        session = self.session
        if session is None:
            return None
        info = TableInfo(
            game=session.game, seat=session.seat, names=self.names, mode=session.mode, starter=session.starter
        )
        screen = TableScreen(info, clock=self.clock, settings=self.settings)
        screen.connection = self.connection
        self.table_screen = screen
        self.lobby_screen = None
        self._show(screen)
        if self.lobby is not None:
            screen.receive_lobby(self.lobby)
        return screen

    def _view(self, message: View) -> None:
        screen = self.table_screen
        if screen is None:
            # Joined in the middle of a game (or back to it): what was said comes
            # first, then the recent log the view brings.
            screen = self._new_table()
            if screen is None:
                return
            for line in self.chat_lines[-CHAT_SHOWN:]:
                self.call_after_refresh(while_alive(screen, screen.receive_chat), line)
            if self.session is not None and self.session.mode == HOSTING:
                # A hosted table that opens straight into its game was resumed: it had no
                # lobby to say how friends come back, so it says so here, once.
                self.call_after_refresh(while_alive(screen, lambda: self.show_how_to_join(resumed=True)))
        # A screen that is still mounting takes the view as soon as it can: its board
        # renders whatever view it holds when it mounts.
        if screen.ready:
            screen.receive_view(message)
        else:
            self.call_after_refresh(while_alive(screen, screen.receive_view), message)

    # --- sending -------------------------------------------------------------------------

    def send_move(self, move: Move, seq: int) -> None:
        self._send(lambda session: session.move(move, seq))

    def send_chat(self, text: str) -> None:
        self._send(lambda session: session.chat(text))

    def send_ready(self, ready: bool) -> None:
        self._send(lambda session: session.ready(ready))

    def send_start(self) -> None:
        self._send(lambda session: session.start())

    @work(group="send", exit_on_error=False)
    async def _send(self, call: Callable[[Session], Awaitable[None]]) -> None:
        """``call`` on the session, in a worker (network IO never runs on the screen's loop)."""
        session = self.session
        if session is None:
            self.notify("You are not at a table.", severity="warning")
            return
        try:
            await call(session)
        except NotConnected as exc:
            self.notify(str(exc), severity="warning", markup=False)
        except NetError as exc:
            self.notify(str(exc), severity="error", markup=False)

    # --- after a game --------------------------------------------------------------------------

    def can_play_again(self) -> bool:
        session = self.session
        return session is not None and session.mode == LOCAL and self.connection == ONLINE

    def can_return_to_lobby(self) -> bool:
        session = self.session
        return session is not None and session.mode != LOCAL and self.connection == ONLINE

    def play_again(self) -> None:
        game = self.bot_game
        session = self.session
        if (
            game is not None
            and session is not None
            and session.mode == LOCAL
            and game.options_now(self.settings) != self._bot_options
        ):
            # The person's first games are over: from now on the seats fall as the rules deal
            # them, which the open table cannot (its options are fixed), so a new one is dealt.
            self.session = self.table_screen = self.lobby_screen = None
            self.workers.cancel_group(self, "listen")
            self._close(session)
            self.play_bot_game(game, seed=None if game.seed is None else game.seed + self._deals)
            return
        self.send_start()

    def back_to_lobby(self) -> None:
        self.table_screen = None
        self._show_lobby()

    # --- keeping order (the host's) ---------------------------------------------------------------

    @property
    def hosting(self) -> bool:
        """Whether this app hosts the table it is at (its seat may remove and mute people)."""
        return self.session is not None and self.session.mode == HOSTING

    def people(self) -> list[tuple[str, str, bool]]:
        """The people at the table but this seat: (name, where they are, whether muted)."""
        lobby, session = self.lobby, self.session
        if lobby is None or session is None:
            return []
        out = [
            (s.name, f"seat {s.seat + 1}", s.muted) for s in lobby.seats if s.kind == HUMAN and s.seat != session.seat
        ]
        out += [(name, "watching", name in self._muted_watchers) for name in lobby.watchers]
        return out

    def keep_order(self) -> None:
        """The host's list of people: pick a person, then remove them or mute their chat."""
        if not self.hosting:
            return
        people = self.people()
        if not people:
            self.notify("Nobody else is at the table.", markup=False)
            return
        labels = [
            Text.assemble((name, "bold"), f"  {where}", ("  muted" if muted else "", "italic"))
            for name, where, muted in people
        ]

        def chosen(index: int | None) -> None:
            if index is None:
                return
            name, _where, muted = people[index]
            actions = [f"Remove {name} from the table", f"Let {name} chat again" if muted else f"Mute {name}'s chat"]

            def acted(what: int | None) -> None:
                if what == 0:
                    self.remove_person(name)
                elif what == 1:
                    self.mute_person(name, not muted)

            self.push_screen(ChoiceScreen(Text(f"{name}: what should happen?"), actions), acted)

        self.push_screen(ChoiceScreen(Text("Keep order: who?"), labels), chosen)

    def remove_person(self, name: str) -> None:
        """Ask, then remove ``name`` from the table (the host's seat only)."""

        def confirmed(yes: bool | None) -> None:
            if yes:
                self._send(lambda session: session.remove(name))

        question = f"Remove {name} from the table? A bot plays their seat, and they cannot sit here again."
        self.push_screen(ConfirmScreen(question, yes="Remove", no="Keep"), confirmed)

    def mute_person(self, name: str, muted: bool = True) -> None:
        """Mute (or let go) the chat of ``name`` (the host's seat only)."""
        if self.lobby is not None and name in self.lobby.watchers:
            (self._muted_watchers.add if muted else self._muted_watchers.discard)(name)
        self._send(lambda session: session.mute(name, muted))

    # --- help, rules and the command palette ----------------------------------------------------

    def action_show_help(self) -> None:
        self.push_screen(ReadingScreen("Keys", rules_text.TABLE_KEYS))

    def show_rules(self, game: str) -> None:
        self.push_screen(rules_screen(game))

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        # Textual's own "Keys" (its key panel) would stand beside ours under the same name.
        yield from (c for c in super().get_system_commands(screen) if c.title != "Keys")
        for game, title in games.TITLES.items():
            yield SystemCommand(
                f"Rules: {title}", f"How to play {title}, in short", lambda game=game: self.show_rules(game)
            )
        yield SystemCommand("Keys", "Every key of the table", self.action_show_help)
        if self.hosting and isinstance(screen, (TableScreen, self._lobby_type())):
            for name, where, muted in self.people():
                yield SystemCommand(
                    f"Remove {name}",
                    f"Show {name} ({where}) out; they cannot sit here again",
                    lambda name=name: self.remove_person(name),
                )
                if muted:
                    yield SystemCommand(
                        f"Unmute {name}", f"Let {name} chat again", lambda name=name: self.mute_person(name, False)
                    )
                else:
                    yield SystemCommand(
                        f"Mute {name}", f"Nobody sees {name}'s chat", lambda name=name: self.mute_person(name)
                    )
        if isinstance(screen, TableScreen):
            if self.hosting:
                yield SystemCommand(
                    "How friends join", "The address, the room code and the doors", self.show_how_to_join
                )
            table_commands = [
                ("Chat", "Say something to the table", "chat"),
                ("Read the log", "Scroll back through what happened", "read_log"),
                ("Leave the table", "Close this game", "leave"),
            ]
            table_commands += [(a.title, a.help, f"game('{a.name}')") for a in screen.ui.actions]
            if screen.view is not None and screen.view.outcome is not None:
                table_commands.append(("Game summary", "Who won, and how", "summary"))
            for name, help_text, action in table_commands:
                yield SystemCommand(name, help_text, lambda a=action, s=screen: s.run_action(a))
        if _is_home(screen):
            yield SystemCommand("Play against bots", "Start a game with the choices on screen", screen.action_play)
            yield SystemCommand("Host a table", "Open a table friends can join", screen.action_host)
            yield SystemCommand("Join a table", "Take a seat at a friend's table", screen.action_join)
            yield SystemCommand("Game options", "Variants and house rules", screen.action_options)


if TYPE_CHECKING:
    # The screens see the app as a ScreensApp (they cannot import this module): it is one.
    _screens_see: type[ScreensApp] = QuackboxApp


def _is_home(screen: Screen[Any]) -> TypeGuard[HomeScreen]:
    """Whether ``screen`` is the home screen, asked without importing it (a game started
    from the command line never does)."""
    return type(screen).__name__ == "HomeScreen"


def _home_type() -> type[HomeScreen]:
    from quackbox.tui.home import HomeScreen

    return HomeScreen


# --- factory and entry points -----------------------------------------------------------------


def make_app(
    *,
    config_dir: str | os.PathLike[str] | None = None,
    opener: Opener | None = None,
    opening: str = "",
    home: bool = True,
    clock: Clock = WALL,
    cursor_blink: bool = True,
) -> QuackboxApp:
    """The app, with its settings in ``config_dir`` (default: the user's config directory)."""
    return QuackboxApp(
        store=SettingsStore(config_dir),
        opener=opener,
        opening=opening,
        home=home,
        clock=clock,
        cursor_blink=cursor_blink,
    )


def _run(app: QuackboxApp, loop: asyncio.AbstractEventLoop | None = None) -> int:
    result = app.run(loop=loop)
    if app.exit_note:
        print(f"quackbox: {app.exit_note}", file=sys.stderr)
    for line in app.exit_lines:
        print(line)
    if app.return_code not in (None, 0):
        return app.return_code
    return result if isinstance(result, int) else 0


def run_home() -> int:
    """``quackbox``: the home screen."""
    return _run(make_app())


def run_local_game(
    game: str,
    *,
    players: int,
    options: Mapping[str, Any] | None,
    name: str | None,
    seed: int | None,
    bot_delay: float | None = None,
    level: str | None = None,
) -> int:
    """``quackbox play GAME``: a game against bots, straight away (the first time, after
    the card that says how to play it)."""
    store = SettingsStore()
    settings = store.load()
    who = (name or settings.name).strip() or "Player"
    delay = settings.bot_delay if bot_delay is None else bot_delay
    app = QuackboxApp(store=store, home=False)
    app.bot_game = BotGame(game, players, dict(options or {}), who, seed, delay, level or settings.bot_level)
    return _run(app)


def run_join(
    address: str,
    *,
    port: int | None = None,
    code: str | None,
    name: str | None,
    spectate: bool = False,
    shown_as: str | None = None,
    host_key: str | None = None,
) -> int:
    """``quackbox join HOST``: take a seat at someone's table.

    ``shown_as`` is what the screens call the table in place of ``address``
    (``ssh -p 2222 HOST`` for a player who came in over SSH), and
    ``host_key`` an SSH host key fingerprint the lobby shows.
    """
    store = SettingsStore()
    settings = store.load()
    who = (name or settings.name).strip() or "Player"

    loop = asyncio.new_event_loop()
    try:
        # Join before the app takes the screen: a wrong address, code or a
        # full table is a line on the terminal, not a flash of the table.
        try:
            session = loop.run_until_complete(
                open_joined(address, port=port, code=code, name=who, spectate=spectate, tokens=TokenStore())
            )
        except OPEN_ERRORS as exc:
            print(f"quackbox: {exc}", file=sys.stderr)
            return 1
        session.address = shown_as or session.address

        app = QuackboxApp(store=store, session=session, home=False)
        app.join_name = who
        app.ssh_host_key = host_key
        return _run(app, loop)
    finally:
        _close_loop(loop)


def _close_loop(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel what is left on ``loop`` (a client's reader after the app), then close it."""
    left = asyncio.all_tasks(loop)
    for task in left:
        task.cancel()
    if left:
        loop.run_until_complete(asyncio.gather(*left, return_exceptions=True))
    loop.run_until_complete(loop.shutdown_asyncgens())
    loop.close()


HOST_STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


def run_hosted(
    config: HostConfig,
    *,
    name: str | None = None,
    ssh: SshConfig | None = None,
    web: WebConfig | None = None,
    resume_flags: Sequence[str] = (),
    on_open: Callable[[Host, SshServer | None, WebServer | None], None] | None = None,
) -> int:
    """``quackbox host`` with a seat for the person at this terminal (and, with
    ``ssh``, a :class:`quackbox.net.ssh.SshConfig`, the table's SSH door beside it;
    with ``web``, a :class:`quackbox.net.web.WebConfig`, its browser door). Once the
    table has closed the terminal says where the game was saved, and the command
    (with ``resume_flags``) that resumes it; ``on_open(host, ssh, web)`` is told as
    the table opens, before the app takes the screen."""
    store = SettingsStore()
    settings = store.load()
    who = (name or settings.name).strip() or "Host"
    config.host_name = who
    lan = "127.0.0.1" if is_loopback(config.bind) else (lan_address() or "127.0.0.1")

    loop = asyncio.new_event_loop()
    quiet_loop_errors(loop)  # a flood's repeated errors: a line a minute, not a traceback each
    try:
        # Open before the app takes the screen: a port in use or an unusable
        # host key is a line on the terminal, not a flash of the table.
        try:
            session = loop.run_until_complete(open_hosted(config, name=who, lan_address=lan, ssh=ssh, web=web))
        except OPEN_ERRORS as exc:
            print(f"quackbox host: {exc}", file=sys.stderr)
            return 1

        async def opener() -> Session:
            return session

        if on_open is not None and session.local is not None:
            on_open(session.local.host, session.local.ssh, session.local.web)
        app = QuackboxApp(
            store=store, opener=opener, opening=f"Opening a table of {games.title(config.game)}…", home=False
        )
        app.resume_flags = list(resume_flags)
        app.ssh_host_key = session.host_key
        # A host told to stop (kill, or its own terminal hung up) closes the table as q does.
        for signum in HOST_STOP_SIGNALS:
            loop.add_signal_handler(signum, partial(app.exit, return_code=128 + signum))
        try:
            return _run(app, loop)
        finally:
            for signum in HOST_STOP_SIGNALS:
                loop.remove_signal_handler(signum)
            # The app may have stopped waiting for the table to close: finish
            # closing it, so every SSH session is told and its child reaped.
            loop.run_until_complete(session.close())
            if session.host is not None and config.journal_dir is not None:
                print("\n".join(farewell(session.host.saved_game, resume_flags)))
    finally:
        _close_loop(loop)
