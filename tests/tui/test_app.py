"""The app around the tables: settings, the home screen, connection trouble, player text."""

from __future__ import annotations

import json

from quackbox.core.side_effects import RULES as SE
from quackbox.net.client import ConnectionLost, Disconnected, Reconnected
from quackbox.net.protocol import Bye, ChatLine, Error, Notice
from quackbox.net.tokens import TokenStore
from quackbox.tui.app import make_app
from quackbox.tui.config import ENV_DIR, Settings, SettingsStore, config_dir
from quackbox.tui.home import HomeScreen
from quackbox.tui.how_to_play import HowToPlayScreen
from quackbox.tui.modals import ConfirmScreen
from tests.core.se_helpers import table
from tests.tui.conftest import SIZE
from tests.tui.fakes import FakeSession, RulesTable, at_table, flat, lobby_of, notices, opened, screen_text, wait_for

# --- settings ------------------------------------------------------------------------------


def test_settings_round_trip_and_env_dir(tmp_path, monkeypatch):
    """Settings live in $QUACKBOX_CONFIG_DIR when set; what is saved is what is loaded."""
    monkeypatch.setenv(ENV_DIR, str(tmp_path / "elsewhere"))
    assert config_dir() == tmp_path / "elsewhere"
    store = SettingsStore()
    settings = Settings(name="Ann", game="quack", players=5, bot_delay=0.3, options={"quack": {"deathmatch": True}})
    assert store.save(settings)
    assert store.load() == settings


def test_bad_settings_files_give_defaults(tmp_path):
    """A garbled or ill-typed file never stops the app: bad fields fall back to defaults."""
    store = SettingsStore(tmp_path)
    (tmp_path / "settings.json").write_text("{not json")
    assert store.load() == Settings(name=store.load().name)
    (tmp_path / "settings.json").write_text(json.dumps({"name": 7, "players": 99, "game": "quack", "options": []}))
    loaded = store.load()
    assert loaded.game == "quack" and loaded.players == 4 and loaded.options == {}


def test_the_default_name_is_the_login_name_as_written(monkeypatch):
    """Names are never re-cased: a login name "root" is "root" at the table, not "Root"."""
    from quackbox.tui import config

    monkeypatch.setattr(config.getpass, "getuser", lambda: "root")
    assert config.default_name() == "root"
    assert Settings().name == "root"


def test_unwritable_settings_are_skipped(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert SettingsStore(blocker / "sub").save(Settings()) is False


def test_seat_tokens_are_kept_per_address_and_name(tmp_path):
    """Two people sharing one login (an SSH box) each get their own seat back."""
    store = TokenStore(tmp_path / "tokens.json")
    store.remember("ws://10.0.0.5:7117", "ann-token", name="Ann")
    store.remember("ws://10.0.0.5:7117", "ben-token", name="Ben")
    assert store.recall("ws://10.0.0.5:7117", " ann ") == "ann-token"
    assert store.recall("ws://10.0.0.5:7117", "Ben") == "ben-token"
    assert store.recall("ws://10.0.0.6:7117", "Ann") is None


# --- the home screen -------------------------------------------------------------------------


async def test_home_remembers_choices_and_plays(tmp_path, monkeypatch):
    """The name and game typed on the home screen are saved, and Play opens a game against bots."""
    app = make_app(config_dir=tmp_path / "config", home=True, cursor_blink=False)
    opened = []

    async def fake_local(game, **kwargs):
        opened.append((game, kwargs))
        session = FakeSession(game)
        return session

    monkeypatch.setattr("quackbox.tui.app.open_local", fake_local)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)
        name = app.screen.query_one("#name")
        name.value = "Zed"
        app.screen.query_one("#game").value = "quack"
        await pilot.pause()
        app.screen.query_one("#play").focus()
        await pilot.press("enter")
        # A first game of Quack: the card that says how to play it, then the game.
        await wait_for(pilot, lambda: isinstance(app.screen, HowToPlayScreen), what="the how-to-play card")
        assert opened == []
        await pilot.press("enter")
        await wait_for(pilot, lambda: opened, what="the game to open")
    assert opened[0][0] == "quack" and opened[0][1]["name"] == "Zed"
    assert opened[0][1]["options"] == {"first_seat": 0}  # a first game: the person sits first
    saved = SettingsStore(tmp_path / "config").load()
    assert saved.name == "Zed" and saved.game == "quack"


async def test_a_table_that_cannot_open_says_why(tmp_path):
    """Opening failures are a notification on the home screen, never a traceback."""

    async def opener():
        raise ConnectionLost("No quackbox host answered at ws://10.9.9.9:7117 (timed out).")

    app = make_app(config_dir=tmp_path / "config", home=True, opener=opener, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen), what="back home")
        await wait_for(
            pilot,
            lambda: any("No quackbox host answered" in words for _title, words in app.toasts),
            what="the notification",
        )


# --- connection trouble and host messages ---------------------------------------------------------


def se_session(**kwargs) -> RulesTable:
    return RulesTable(SE, table(3, current=1), **kwargs)


async def test_lost_connection_is_shown_and_recovered(app_for):
    """Disconnected -> 'reconnecting' in the status line; Reconnected -> online again; no traceback."""
    session = se_session()
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, _board):
        session.push(Disconnected("The connection to the host was lost."))
        await wait_for(pilot, lambda: "reconnecting" in screen_text(app).split("\n")[0], what="reconnecting")
        session.push(Reconnected())
        session.resend()
        await wait_for(pilot, lambda: "● online" in screen_text(app).split("\n")[0], what="online again")
        session.push(ConnectionLost("Lost the host and could not reconnect."))
        await wait_for(pilot, lambda: "table closed" in screen_text(app).split("\n")[0], what="closed")
        assert any(
            "could not reconnect" in line
            for line in app.table_screen.log_lines
            + notices(app)
            + [e.plain for e in app.table_screen.log_widget.entries]
        )
        assert app.table_screen is not None  # the last table stays on screen to look at


async def test_host_goodbye_and_errors_are_sentences(app_for):
    session = se_session()
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, _board):
        session.push(Error(code="rate_limited", message="You are chatting too fast.", refused="chat"))
        session.push(Bye(reason="shutdown", message="The host closed the table."))
        await wait_for(pilot, lambda: "table closed" in screen_text(app).split("\n")[0], what="closed")
        said = [e.plain for e in app.table_screen.log_widget.entries]
        assert "The host refused: You are chatting too fast." in said and "The host closed the table." in said
        assert not app.toasts  # at the table, nothing is a toast over the log


async def test_player_text_is_never_markup(app_for):
    """Names and chat from other people are shown exactly as typed ([red] stays literal)."""
    state = table(3, current=1)
    session = RulesTable(SE, state, names=("Ann", "[bold red]Mallory[/]", "Bob"))
    app = app_for(session)
    async with app.run_test(size=SIZE) as pilot:
        session.begin(lobby=lobby_of(session.names))
        await opened(pilot)
        session.push(ChatLine(seat=1, name="[bold red]Mallory[/]", text="[link=http://x]click[/] me"))
        await wait_for(pilot, lambda: "click[/] me" in screen_text(app), what="the chat line")
        text = screen_text(app)
        assert "[bold red]Mallory[/]: [link=http://x]click[/] me" in flat(text)
        assert "[bold red]Mallory" in text  # the rival's panel title, literally


async def test_chat_is_sent_from_the_table(app_for):
    session = se_session()
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, _board):
        await pilot.press("c")
        await pilot.pause()
        await pilot.press(*"hi all", "enter")
        await wait_for(pilot, lambda: ("chat", ("hi all",)) in session.sent, what="the chat")
        assert app.table_screen.board.has_focus


async def test_leaving_a_running_game_asks_first(app_for):
    session = se_session()
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, _board):
        await pilot.press("q")
        await wait_for(pilot, lambda: "Leave" in screen_text(app), what="the question")
        # The safe button has the focus: Enter pressed by habit keeps the game.
        assert app.screen.focused is not None and app.screen.focused.id == "no"
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is app.table_screen, what="the table again")
        assert not session.closed
        await pilot.press("q")
        await wait_for(pilot, lambda: "Leave" in screen_text(app), what="the question")
        await pilot.press("y")
        await wait_for(pilot, lambda: session.closed, what="the session to close")


async def test_spectators_see_every_psyche_and_no_hand(app_for):
    state = table(3, current=1)
    session = RulesTable(SE, state, seat=None, names=("Ann", "Ben", "Cy"))
    session.seat = None
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, _board):
        text = screen_text(app)
        assert "Ann" in text and "Ben" in text and "Cy" in text and "Watching" in text
        await pilot.press("1", "enter", "e")  # nothing to do, nothing breaks
        # Had the keys made a send, its worker would have run (it is waited for here).
        sends = [w for w in app.workers if w.group == "send"]
        if sends:
            await app.workers.wait_for_complete(sends)
        assert session.moves == [] and app.table_screen.view is not None


async def test_help_and_rules_are_one_key_away(app_for):
    session = se_session()
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, _board):
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: "Keys" in screen_text(app) and "pick the card" in screen_text(app))
        for _ in range(10):
            if "end your turn" in screen_text(app):
                break
            await pilot.press("pagedown")
        assert "end your turn" in screen_text(app)
        await pilot.press("escape", "r")
        await wait_for(
            pilot, lambda: "Side Effects" in screen_text(app) and "Psyche" in screen_text(app), what="the rules"
        )
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is app.table_screen)


async def test_lobby_typing_is_chat_and_the_keys_are_not_letters(app_for):
    """Issue 25, item 3: what is typed in the lobby is chat, whatever its letters ("ready,
    so start?" holds r, s and q): it is sent on Enter and does nothing else. Ctrl+R marks us
    ready; Ctrl+S starts only for the starter; Esc asks before leaving."""
    session = FakeSession("quack", mode="join", seat=1, address="10.0.0.5")
    app = app_for(session)
    async with app.run_test(size=SIZE) as pilot:
        session.push(lobby_of(["Hana", "Ann", ""], started=False, kinds=["human", "human", "open"]))
        await wait_for(pilot, lambda app=app: app.lobby_screen is not None, what="the lobby")
        await pilot.pause()
        assert "Waiting for the host" in screen_text(app)
        await pilot.press(*"hi from ben, ready so start? q", "enter")
        await wait_for(pilot, lambda: session.sent, what="the chat")
        assert session.sent == [("chat", ("hi from ben, ready so start? q",))]
        assert app.screen is app.lobby_screen
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: ("ready", (True,)) in session.sent, what="ready")
        await pilot.press("ctrl+s")  # not the starter: nothing is sent
        await pilot.pause()
        assert ("start", ()) not in session.sent
        session.push(ChatLine(seat=0, name="Hana", text="welcome"))
        await wait_for(pilot, lambda: "Hana: welcome" in screen_text(app), what="chat shown")
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the question")
        await pilot.press("n")
        await wait_for(pilot, lambda: app.screen is app.lobby_screen, what="back in the lobby")
        assert not session.closed


async def test_the_room_code_is_shown_to_a_seat_never_to_someone_watching(app_for):
    """Issue 40, item 8: a door's child knows the room code (it joined with it); its lobby shows it
    to a player who holds a seat, never to a spectator."""
    for seat, shown in ((1, True), (None, False)):
        session = FakeSession("quack", mode="join", seat=seat, room_code="KQXZ", address="ssh -p 2222 10.0.0.5")
        app = app_for(session)
        async with app.run_test(size=SIZE) as pilot:
            session.push(lobby_of(["Hana", "Ann", ""], started=False, kinds=["human", "human", "open"]))
            await wait_for(pilot, lambda app=app: app.lobby_screen is not None, what="the lobby")
            await pilot.pause()
            assert ("room code" in screen_text(app)) is shown, screen_text(app)
            assert bool(app.lobby_screen.query("#code")) is shown


async def test_play_again_after_a_local_game(app_for):
    """The summary of a game against bots offers another; choosing it asks the host to deal."""
    from quackbox.core.quack import RULES as QUACK
    from tests.tui.fakes import advance

    state = QUACK.new_game(seats=3, seed=5, options={"window_seconds": 0})
    advance(QUACK, state, until=lambda s: False, seed=5)
    session = RulesTable(QUACK, state)
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, _board):
        await wait_for(
            pilot, lambda: type(app.screen).__name__ == "SummaryScreen", timeout=5, what="the summary to open by itself"
        )
        await pilot.pause()
        assert "Play again" in screen_text(app)
        await pilot.press("a")
        await wait_for(pilot, lambda: ("start", ()) in session.sent, what="a new deal")


async def test_a_closed_table_says_so_and_what_to_do(app_for):
    """Issue 25, item 6: after the host closes the table, the prompt no longer says it is your
    turn; it says the table has closed and what to do; no key plays a card, and q leaves at once."""
    state = table(2, psyches={0: ["Anxiety"], 1: ["Madness"]}, hands={0: ["Lithium", "Episode"]}, current=0)
    session = RulesTable(SE, state, mode="join")
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, board):
        assert "Your turn" in flat(screen_text(app))
        session.push(Bye(reason="shutdown", message="The host closed the table."))
        session.end()
        await wait_for(pilot, lambda: board.closed, what="the table to close")
        await pilot.pause()
        text = flat(screen_text(app))
        assert "Your turn" not in text and "table closed" in text
        assert (
            "The table has closed. The host closed the table. Press q to leave; if the host opens the table "
            "again, join it as before to take your seat back."
        ) in text
        await pilot.press("1", "enter", "e")
        await pilot.pause()
        assert session.moves == [] and board.selected is None
        await pilot.press("q")
        await wait_for(pilot, lambda: app.session is None, what="the table to be left")


async def test_a_seat_taken_over_by_a_newer_window_says_so_not_that_the_table_closed(app_for):
    """The same player opening the table again (another SSH window, another browser tab) moves
    the seat there; the old window says where the game went, not that the table has closed."""
    state = table(2, psyches={0: ["Anxiety"], 1: ["Madness"]}, hands={0: ["Lithium", "Episode"]}, current=0)
    session = RulesTable(SE, state, mode="join")
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, board):
        session.push(Bye(reason="replaced", message="This seat was taken over by a newer connection."))
        session.end()
        await wait_for(pilot, lambda: board.closed, what="the seat to move")
        await pilot.pause()
        text = flat(screen_text(app))
        assert (
            "This seat was taken over by a newer connection. The game goes on in the newer window; "
            "press q to leave this one."
        ) in text
        assert "The table has closed" not in text and "opens the table again" not in text
        await pilot.press("1", "enter")
        await pilot.pause()
        assert session.moves == []


async def test_a_dialog_keeps_the_table_in_view_behind_it(app_for):
    """Issue 25, item 8: the leave question (like every dialog) is drawn over the table,
    which stays readable around it, dimmed."""
    state = table(2, psyches={0: ["Anxiety"], 1: ["Madness"]}, hands={0: ["Lithium", "Episode"]}, current=0)
    session = RulesTable(SE, state)
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, _board):
        await pilot.press("q")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the question")
        await pilot.pause()
        text = screen_text(app)
        assert "Leave the game against the bots?" in flat(text)
        assert "Side Effects" in text.splitlines()[0] or "Turn" in text.splitlines()[0], text  # the status line
        assert "Bot 2 · " in text and "✗ Madness" in text and "Your Psyche" in text, text


async def test_a_session_opened_before_the_app_shows_its_lobby_first_and_keys_are_drawn_only_as_they_change(
    tmp_path, monkeypatch
):
    """``quackbox join`` (a door's child too) opens its session before the app takes the screen:
    no screen saying it is joining comes first. The lobby's keys are one line of text, drawn
    again only when they change: Textual's footer is a widget per key, each mounted, styled
    and drawn, a quarter of the CPU the app spent reaching its lobby (measured headless)."""
    from textual.widgets._footer import FooterKey

    from quackbox.tui import app as app_module
    from quackbox.tui.widgets import KeyBar

    drawn: list[tuple[str, ...]] = []
    real_draw = KeyBar.draw

    def counted(self):
        text = real_draw(self)
        drawn.append(tuple(key for key, *_ in self.keys))
        return text

    monkeypatch.setattr(KeyBar, "draw", counted)
    connecting: list[str] = []
    monkeypatch.setattr(
        app_module.ConnectingScreen, "on_mount", lambda self: connecting.append(self.what), raising=False
    )
    session = FakeSession("quack", mode="join", seat=1, address="10.0.0.5")
    app = app_module.QuackboxApp(
        store=SettingsStore(tmp_path / "config"), session=session, home=False, cursor_blink=False
    )

    def keys() -> set[str]:
        return {what for _key, _shown, what, _enabled in app.screen.query_one(KeyBar).keys}

    async with app.run_test(size=SIZE) as pilot:
        session.push(lobby_of(["Hana", "Ann", ""], started=False, kinds=["human", "human", "open"]))
        await wait_for(pilot, lambda: app.lobby_screen is not None, what="the lobby")
        await wait_for(pilot, lambda: "ready" in keys(), what="the lobby's keys")
        await wait_for(pilot, lambda: "^r ready" in screen_text(app), what="the ready key shown")
        assert connecting == []
        assert "start" not in keys()  # Hana starts this table, not us
        assert not app.screen.query(FooterKey)  # one line, not a widget per key
        made = len(drawn)
        for ready in (True, False, True):
            session.push(
                lobby_of(["Hana", "Ann", "Zed"], started=False, ready=[False, ready, False], kinds=["human"] * 3)
            )
            await pilot.pause()
        await wait_for(pilot, lambda: "Zed" in screen_text(app), what="the newcomer")
        await pilot.pause()
        assert len(drawn) == made, drawn  # the same keys: not drawn again
        session.push(lobby_of(["Hana", "Ann", "Zed"], started=False, starter=1, kinds=["human"] * 3))
        await wait_for(pilot, lambda: "start" in keys(), what="the start key")
        assert "ready" not in keys() and len(drawn) > made
        await wait_for(pilot, lambda: "^s start" in screen_text(app), what="the start key shown")


async def test_the_connecting_screen_says_how_to_give_up_and_escape_does(tmp_path):
    """While a table is being reached, its key line shows Esc to give up (and the palette's key),
    and Esc gives up."""
    from quackbox.tui import app as app_module

    app = app_module.QuackboxApp(store=SettingsStore(tmp_path / "config"), home=False, cursor_blink=False)
    gave_up: list[bool] = []
    app.give_up_connecting = lambda: gave_up.append(True)
    async with app.run_test(size=SIZE) as pilot:
        app.push_screen(app_module.ConnectingScreen("Joining 10.0.0.5…"))
        await wait_for(pilot, lambda: "esc give up" in screen_text(app), what="the keys")
        last = screen_text(app).splitlines()[-1]
        assert last.startswith(" esc give up") and last.rstrip().endswith("▏^p palette"), last
        await pilot.press("escape")
        await pilot.pause()
        assert gave_up == [True]


# --- quitting ------------------------------------------------------------------------------


async def test_ctrl_c_asks_as_the_table_s_own_leave_key_does_never_textual_s_quit_hint(app_for):
    """Ctrl+C at a running game asks the leave question (no "press ctrl+q" toast); Ctrl+C in
    the question answers it as Esc does (stay); Esc at the board asks too."""
    session = se_session()
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, _board):
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: "Leave the game against the bots?" in flat(screen_text(app)), what="the question")
        assert not app.toasts
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: app.screen is app.table_screen, what="the table again")
        assert not session.closed
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the question, from Esc")
        await pilot.press("y")
        await wait_for(pilot, lambda: session.closed, what="the session to close")


async def test_a_host_s_q_and_ctrl_q_ask_whether_to_close_the_table_for_everyone(app_for):
    """A host's question says what happens to everyone, and that the game is kept; Ctrl+Q asks
    the same, then quits once the table is closed."""
    session = se_session(mode="host")
    app = app_for(session, home=True)
    async with app.run_test(size=SIZE) as pilot:
        app.open_session(lambda: _begun(session), "Opening")
        await opened(pilot)
        await pilot.press("q")
        question = "Close the table for everyone? The game is saved; you can"
        await wait_for(pilot, lambda: question in flat(screen_text(app)), what="the question")
        await pilot.press("n")
        await wait_for(pilot, lambda: app.screen is app.table_screen, what="the table again")
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: question in flat(screen_text(app)), what="the question, from Ctrl+Q")
        await pilot.press("y")
        await wait_for(pilot, lambda: app.return_code is not None, what="the app to quit")
    assert session.closed and app.return_code == 0


async def test_a_guest_is_asked_the_guest_s_question(app_for):
    session = se_session(mode="join")
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, _board):
        await pilot.press("ctrl+q")
        await wait_for(
            pilot, lambda: "Leave the table? Your seat is kept" in flat(screen_text(app)), what="the question"
        )


async def test_ctrl_c_on_the_home_screen_quits(tmp_path):
    app = make_app(config_dir=tmp_path / "config", cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen), what="home")
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: app.return_code is not None, what="the app to quit")
    assert app.return_code == 0


async def _begun(session):
    session.begin()
    return session


async def test_a_resumed_hosted_table_says_how_friends_come_back(app_for):
    """A hosted game that opens straight into play (resumed) had no lobby: a page says the
    address, the same room code and every door, and one key closes it."""
    session = se_session(
        mode="host",
        room_code="KQXZ-BDFG-HJKL",
        address="10.0.0.5",
        ssh_door="ssh -p 2222 10.0.0.5",
        web_link="http://10.0.0.5:7118/#KQXZ-BDFG-HJKL",
    )
    app = app_for(session)
    async with app.run_test(size=SIZE) as pilot:
        session.push(lobby_of(session.names))
        session.push(session.view_message())
        await wait_for(pilot, lambda: "How friends join" in screen_text(app), what="the page")
        text = flat(screen_text(app))
        for words in (
            "quackbox join 10.0.0.5 --code KQXZ-BDFG-HJKL",
            "ssh -p 2222 10.0.0.5",
            "http://10.0.0.5:7118/#KQXZ-BDFG-HJKL",
            "resumed",
        ):
            assert words in text
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is app.table_screen, what="the table")


# --- keeping order -------------------------------------------------------------------------


async def test_the_host_removes_a_person_from_the_people_list_after_a_question(app_for):
    """p at a hosted table lists the people; picking one and "Remove" asks first, then sends."""
    session = se_session(mode="host")
    app = app_for(session)
    async with app.run_test(size=SIZE) as pilot:
        session.begin(lobby=lobby_of(session.names, kinds=["human", "human", "bot"]))
        await opened(pilot)
        await pilot.press("p")
        await wait_for(pilot, lambda: "Keep order: who?" in screen_text(app), what="the people")
        assert "Bot 2" in screen_text(app)  # a person at seat 2, named so by the fake lobby
        await pilot.press("enter")
        await wait_for(pilot, lambda: "what should happen?" in screen_text(app), what="the choices")
        await pilot.press("enter")  # the first: remove
        await wait_for(pilot, lambda: "cannot sit here again" in flat(screen_text(app)), what="the question")
        assert ("remove", ("Bot 2",)) not in session.sent
        await pilot.press("y")
        await wait_for(pilot, lambda: ("remove", ("Bot 2",)) in session.sent, what="the removal sent")


async def test_the_palette_offers_to_mute_and_a_notice_is_logged(app_for):
    session = se_session(mode="host")
    app = app_for(session)
    async with app.run_test(size=SIZE) as pilot:
        session.begin(lobby=lobby_of(session.names, kinds=["human", "human", "bot"]))
        await opened(pilot)
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "Remove Bot 2" in titles and "Mute Bot 2" in titles and "Remove Bot 3" not in titles
        app.mute_person("Bot 2")
        await wait_for(pilot, lambda: ("mute", ("Bot 2", True)) in session.sent, what="the mute sent")
        session.push(Notice(text="Bot 2's chat is muted: nobody sees it."))
        await wait_for(pilot, lambda: "nobody sees it" in screen_text(app), what="the notice in the log")


async def test_a_guest_has_no_people_key_and_no_order_commands(app_for):
    session = se_session(mode="join")
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, _board):
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert not [t for t in titles if t.startswith(("Remove ", "Mute "))]
        await pilot.press("p")
        await pilot.pause()
        assert app.screen is app.table_screen
