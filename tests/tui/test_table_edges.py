"""The rough edges a play-through found at the Side Effects table (issue 14), each at 80x24
as a player met it: the prompt's whole sentence, the log that must stay readable, bots that
wait for the player to look, presence in the log, and a summary that ranks everyone."""

from __future__ import annotations

import asyncio
import re

from quackbox.core import bots as core_bots
from quackbox.core import side_effects as se
from quackbox.core.play import next_move
from quackbox.core.side_effects import RULES
from quackbox.net.client import Disconnected, Reconnected
from quackbox.net.protocol import LineKind, LogLine, View
from quackbox.tui.app import make_app
from quackbox.tui.se_board import PsychePanel
from quackbox.tui.session import FIRST_MOVE_DELAY, open_local
from tests.core.se_helpers import table
from tests.tui.conftest import SIZE
from tests.tui.fakes import (
    RulesTable,
    at_table,
    flat,
    notices,
    opened,
    press_card,
    screen_text,
    settled,
    wait_for,
)


def tall_table(**kwargs):
    """Three rivals with four Disorders, a Drug each (so an "open to" line) and marks."""
    state = table(
        4,
        psyches={
            0: ["Madness", "Anxiety", "Anorexia"],
            1: ["Depression", ("Tremors", "Pramipexole"), "Impotence", "Anxiety"],
            2: [("Impotence", "Sildenafil"), "Suicidal Thoughts", "Madness", "Tremors"],
            3: [("Anxiety", "Lorazepam"), "Depression", "Gambling Addiction", "Anorexia"],
        },
        hands={0: ["Lithium", "Episode", "Gambling Addiction", "Chlorpromazine"]},
        current=0,
        **kwargs,
    )
    state.skips[1] = 1
    state.no_play[2] = True
    state.no_draw[3] = True
    return state


async def test_the_prompt_shows_its_whole_sentence_and_enter_says_why(app_for):
    """Item 2: a picked card's explanation is never cut, and Enter on a card with no play says why."""
    state = tall_table()
    session = RulesTable(RULES, state)
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, board):
        await press_card(pilot, board, "Lithium")
        await pilot.pause()
        text = flat(screen_text(app))
        sentence = "You have no untreated Gambling Addiction to treat."
        assert sentence in text
        assert board.query_one("#prompt").size.height >= 2
        await pilot.press("enter")
        await wait_for(pilot, lambda: any(sentence in n for n in notices(app)), what="the reason as a notice")
        assert session.moves == []


async def test_the_log_keeps_four_lines_and_the_newest(app_for):
    """Item 3: with tall rivals the log keeps four lines; the rivals' boxes stay boxes from turn
    to turn; after the full log (l) or a resize the newest line is in view."""
    state = tall_table()
    session = RulesTable(RULES, state)
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, board):
        screen = app.table_screen
        log = screen.log_widget
        assert log.size.height >= 4
        layout = [p.compact for p in board.query(PsychePanel)]
        # A turn goes by (the Drugs and marks change): the boxes keep their layout.
        session.act(0, se.EndTurn())
        await wait_for(pilot, lambda: screen.view.current != 0, what="the next turn")
        await pilot.pause()
        for n in range(40):
            screen.notice(f"line {n}")
        await pilot.pause()
        assert [p.compact for p in board.query(PsychePanel)] == layout
        assert log.size.height >= 4
        await pilot.press("l")
        await pilot.pause()
        assert screen.maximized is log
        assert log.size.height >= SIZE[1] - 2  # the whole screen but the footer
        await pilot.press("escape")
        await pilot.pause()
        await pilot.pause()
        assert screen.maximized is None
        assert log.scroll_y == log.max_scroll_y and "line 39" in screen_text(app)
        await pilot.resize_terminal(120, 40)
        await pilot.resize_terminal(*SIZE)
        await settled(pilot, app)
        assert log.scroll_y == log.max_scroll_y and "line 39" in screen_text(app)


async def test_bots_wait_for_the_player_to_look_at_a_new_table(tmp_path):
    """Item 6: in a game against bots whose first player is a bot, nothing moves for a while
    after the deal, even at the fastest pace: the host in this process has nothing to do
    for the minute asked (its own timing is tests/net/test_first_move_delay.py)."""

    async def opener():
        return await open_local(
            "side-effects", players=4, options={}, name="Ann", seed=5, bot_delay=0, first_move_delay=60
        )

    assert FIRST_MOVE_DELAY >= 2
    app = make_app(config_dir=tmp_path / "config", opener=opener, home=False, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        board = await opened(pilot)
        host = app.session.host
        wakeup = host.table.next_wakeup()
        assert wakeup is not None and wakeup - asyncio.get_running_loop().time() > 50  # the host's clock
        assert board.view.current != 0 and board.view.turn == 1  # seed 5: a bot goes first, and waits
        assert app.table_screen.seq == 0
        assert "Bot 3's turn" in screen_text(app)
        await app.action_quit()


def notice(text: str) -> LogLine:
    return LogLine(text=text, kind=LineKind.NOTICE)


async def test_presence_lines_and_the_recent_log_after_a_reconnection(app_for):
    """Item 12: what the host says of presence shows in the log; after a reconnection the
    table shows the lines the connection passes on (the client drops those already read:
    tests/net/test_hostile.py), once. Each line looks as its kind says, whatever its words."""
    state = table(3, current=1)
    session = RulesTable(RULES, state)
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, _board):
        screen = app.table_screen
        view = RULES.view(state, 0)
        session.push(
            View(
                seq=session.seq,
                view=view,
                events=(),
                log=(notice("Bob is away: the connection was lost."),),
                deadline=None,
            )
        )
        await wait_for(pilot, lambda: "Bob is away" in screen_text(app), what="the presence line")
        session.push(
            View(
                seq=session.seq,
                view=view,
                events=(),
                log=(notice("A bot played Therapy for Bob, who is away."),),
                deadline=None,
            )
        )
        await wait_for(pilot, lambda: "who is away" in screen_text(app), what="the stand-in line")
        before = list(screen.log_lines)
        session.push(Disconnected("The connection to the host was lost."))
        session.push(Reconnected())
        missed = (
            LogLine(text="You ended the turn.", kind=LineKind.EVENT),
            LogLine(text="Turn 9: Cy to play.", kind=LineKind.MINE),
            LogLine(text="Cy played.", kind=LineKind.TURN),
            notice("Bob is back."),
        )
        session.push(View(seq=session.seq, view=view, events=(), log=missed, deadline=None))
        await wait_for(pilot, lambda: "Bob is back." in screen.log_lines, what="the lines missed")
        assert screen.log_lines == [*before, "You ended the turn.", "Turn 9: Cy to play.", "Cy played.", "Bob is back."]
        styles = {entry.plain: entry.style for entry in screen.log_widget.entries}
        assert styles["You ended the turn."] == "" and styles["Turn 9: Cy to play."] == "bold"
        assert styles["Cy played."] == "dim" and styles["Bob is back."] == ""
        session.push(View(seq=session.seq, view=view, events=(), log=(notice("Bob is back."),), deadline=None))
        await wait_for(pilot, lambda: screen.log_lines.count("Bob is back.") == 2, what="a later line")


async def test_the_summary_ranks_every_player_with_the_games_figures(app_for):
    """Item 7: every player has their own place (those level on the rules' last place ranked by
    how close they came), and the game's turns, Disorders and Episodes are counted."""
    state = RULES.new_game(seats=4, seed=11)
    session = RulesTable(RULES, state)
    app = app_for(session)
    players = [core_bots.make(RULES.name, "heuristic", 11 + s) for s in range(4)]
    async with at_table(app, session, (100, 30)) as (pilot, _board):
        while RULES.outcome(state) is None:
            seat, move = next_move(RULES, state, players)
            session.act(seat, move)
        await wait_for(pilot, lambda: app.table_screen.view.outcome is not None, what="the end")
        await pilot.press("g")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "SummaryScreen", what="the summary")
        await pilot.pause()
        text = screen_text(app)
        places = [
            m.group(1)
            for line in text.split("\n")
            if ("Disorders treated" in line or "Psyche emptied" in line) and (m := re.search(r"(\d+)\. \S", line))
        ]
        assert places[0] == "1" and len(places) == 4
        assert len(set(places)) > 2  # not "1. 2. 2. 2."
        record = app.table_screen.record
        assert f"Over {record.turns} turns" in text and record.turns == state.turn
        # Every Drug still on a Psyche treated a Disorder there (others were discarded since).
        assert sum(record.treated.values()) >= sum(1 for p in state.psyche for slot in p if slot.drug != -1) > 0
        assert sum(record.played.values()) == sum(record.suffered.values())


def test_trade_offers_are_said_as_a_person_would():
    """Item 14: "Ann offers you Lorazepam as a gift", names as written, never "their X for your nothing"."""
    from quackbox.cards.side_effects import SECard
    from quackbox.tui.se_text import offer_text

    state = RULES.new_game(seats=3, seed=1)
    view = RULES.view(state, 0)
    lorazepam = next(c for c in state.cards if c.name == "Lorazepam")
    assert isinstance(lorazepam, SECard)
    names = ("Me", "Ann", "Cy")
    gift = se.Offer(id=1, seat=1, to=0, give=(lorazepam,), want=())
    assert offer_text(view, gift, names) == "Ann offers you Lorazepam as a gift"
    swap = se.Offer(id=2, seat=0, to=2, give=(lorazepam,), want=("Lithium", "Therapy"))
    assert offer_text(view, swap, names) == "you offer Cy Lorazepam for their Lithium and Therapy"
    ask = se.Offer(id=3, seat=2, to=0, give=(), want=("Lithium",))
    assert offer_text(view, ask, names) == "Cy asks you for Lithium as a gift"


def test_play_pace_takes_a_name_or_seconds():
    """Item 6: ``play --pace`` as on the home screen, or seconds; anything else is refused with a sentence."""
    from quackbox.__main__ import build_parser

    parser = build_parser()
    assert parser.parse_args(["play", "side-effects", "--pace", "fast"]).pace == 0.3
    assert parser.parse_args(["play", "side-effects", "--pace", "2.5"]).pace == 2.5
    assert parser.parse_args(["play", "side-effects"]).pace is None
    for bad in ("warp", "-1", "99"):
        try:
            parser.parse_args(["play", "side-effects", "--pace", bad])
        except SystemExit:
            continue
        raise AssertionError(f"--pace {bad} was taken")


async def test_the_log_shows_its_newest_lines_at_the_bottom_and_l_opens_there(app_for):
    """Issue 25, item 2: once the log holds more lines than it has rows, every row shows one
    (no blank rows while older lines are hidden), the newest at the bottom; l reads it over
    the whole screen from the newest lines, and Esc goes back to the table."""
    state = table(2, psyches={0: ["Anxiety"], 1: ["Madness"]}, hands={0: ["Lithium"]}, current=1)
    session = RulesTable(RULES, state)
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, _board):
        log = app.table_screen.log_widget
        for n in range(1, 41):
            session.say(1, f"line {n}")
        await wait_for(pilot, lambda: "line 40" in screen_text(app), what="the last line")
        rows = [line.plain for line in log.page()]
        assert len(rows) == log.content_size.height >= 4
        assert all(rows) and rows[-1] == "Bot 2: line 40"
        shown = screen_text(app).splitlines()[log.content_region.y : log.content_region.bottom]
        assert all(row.strip() for row in shown) and shown[-1].strip() == "Bot 2: line 40"
        await pilot.press("l")
        await wait_for(pilot, lambda: log.content_size.height > len(rows), what="the log over the screen")
        await pilot.pause()
        page = [line.plain for line in log.page()]
        assert page[-1] == "Bot 2: line 40" and all(page) and len(page) == log.content_size.height
        assert "Bot 2: line 40" in screen_text(app)
        await pilot.press("up")  # read back a line, then a new one comes: the page stays put
        session.say(1, "line 41")
        await wait_for(pilot, lambda: log.entries[-1].plain == "Bot 2: line 41", what="the new line")
        await pilot.pause()
        assert [line.plain for line in log.page()][-1] == "Bot 2: line 39"
        await pilot.press("end")
        assert [line.plain for line in log.page()][-1] == "Bot 2: line 41"
        await pilot.press("escape")
        await wait_for(pilot, lambda: log.content_size.height == len(rows), what="back at the table")


async def test_ascii_draws_every_screen_in_ascii_and_tells_the_marks_apart(app_for, monkeypatch):
    """Issue 25, item 9: with --ascii the rules and keys pages have no "•", and at the Quack
    table a filled Infamy pip, an empty one and the turn marker are not all "o"."""
    from quackbox.core.quack import RULES as QUACK
    from quackbox.tui.looks import ASCII_ENV
    from quackbox.tui.modals import ReadingScreen
    from tests.tui.fakes import quack_table

    monkeypatch.setenv(ASCII_ENV, "1")
    state = quack_table(3, first=0)
    state.doctors[1].infamy = 2
    session = RulesTable(QUACK, state)
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, _board):
        text = screen_text(app)
        assert text.isascii(), sorted({ch for ch in text if not ch.isascii()})
        rows = [row for row in text.splitlines() if "no Patient" in row]
        assert rows[0].startswith(" * Ann (you)") and "$0 ......" in rows[0]  # whose turn; no Infamy
        assert rows[1].startswith("   Bot 2") and "$0 **...." in rows[1]  # two pips of six, filled
        # Each page with words of its own: what was read is the page, not a blank one.
        for key, close, words in (("question_mark", "escape", "* 1-9 pick the card"), ("r", "escape", "Goal.")):
            await pilot.press(key)
            await wait_for(pilot, lambda: isinstance(app.screen, ReadingScreen), what="the page")
            await pilot.pause()  # its Markdown read and laid out (a widget's mount is a message it handles)
            page = screen_text(app)
            assert words in page, page
            assert page.isascii(), (key, sorted({ch for ch in page if not ch.isascii()}))  # bullets too
            await pilot.press(close)
            await pilot.pause()


async def test_a_player_back_in_a_new_terminal_reads_the_chat_and_the_recent_log(app_for):
    """Issue 25, item 9: a player who comes back to a game (a new quackbox join, a new SSH
    session) gets the chat backlog and the recent log; the table shows both, the chat first."""
    from quackbox.net.protocol import ChatLine
    from tests.tui.fakes import lobby_of

    state = table(3, current=1)
    session = RulesTable(RULES, state)
    app = app_for(session)
    async with app.run_test(size=SIZE) as pilot:
        session.push(lobby_of(session.names))  # started, no Started message: a game in progress
        session.push(ChatLine(seat=1, name="Bot 2", text="brb"))
        session.push(ChatLine(seat=2, name="Bot 3", text="take your time"))
        recap = (
            notice("You were away: the connection was lost."),
            LogLine(text="Bot 2 ended the turn.", kind=LineKind.EVENT),
            notice("You are back."),
        )
        session.push(View(seq=session.seq, view=RULES.view(state, 0), events=(), log=recap, deadline=None))
        await wait_for(pilot, lambda: app.table_screen is not None and app.table_screen.view is not None)
        await pilot.pause()
        text = screen_text(app)
        assert text.index("Bot 2: brb") < text.index("Bot 3: take your time") < text.index("You were away")
        assert "Bot 2 ended the turn." in text and "You are back." in text


async def test_a_spectator_leaves_with_q_at_once(app_for):
    """Issue 25, item 9: a spectator was asked to leave a game "not over yet"; watching, there
    is nothing to lose."""
    state = table(3, current=1)
    session = RulesTable(RULES, state, seat=None, names=["Ann", "Bob", "Cy"])
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, _board):
        await pilot.press("q")
        await wait_for(pilot, lambda: app.session is None, what="the table to be left")


async def test_the_trade_offer_notification_goes_once_the_offer_is_answered(app_for):
    """Issue 25, item 9: the notification of an offer to you stayed after it was answered.
    (It is held below the log now, until answered: issue 41, item 4.)"""
    state = table(
        3,
        psyches={0: ["Anxiety"], 1: ["Madness"], 2: ["Tremors"]},
        hands={0: ["Lithium", "Episode"], 2: ["Clozapine"]},
        current=0,
    )
    session = RulesTable(RULES, state)
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, board):
        from tests.core.se_helpers import card_id

        log = app.table_screen.log_widget
        session.act(2, se.OfferTrade(to=0, give=(card_id(state, 2, "Clozapine"),), want=("Lithium",)))
        await wait_for(pilot, lambda: [n for n in log.held if n.startswith("Trade offer")], what="the notice")
        offer = board.view.offers[0]
        session.act(0, se.DeclineTrade(offer.id))
        await wait_for(pilot, lambda: not board.view.offers, what="the offer answered")
        await pilot.pause()
        assert not [n for n in log.held if n.startswith("Trade offer")]


async def test_a_pause_is_said_in_the_log_and_the_status_line_and_a_move_waits_for_play_to_go_on(app_for):
    """The host cannot save the game: the table says why once (no toast over the log), the
    status line says paused for as long as it lasts, a move picked meanwhile is not sent,
    and when play goes on the table says so."""
    from quackbox.net.protocol import Paused

    state = tall_table()
    session = RulesTable(RULES, state)
    app = app_for(session)
    reason = "The host cannot save the game: its disk is full. Play waits until it can; nothing is lost."
    async with at_table(app, session, SIZE) as (pilot, board):
        session.push(Paused(reason=reason))
        await wait_for(pilot, lambda: "paused" in screen_text(app).splitlines()[0], what="the status line")
        assert "its disk is full" in flat(screen_text(app))
        assert not app.toasts  # said in the log, not over it
        await pilot.press("e")  # end the turn: refused here, not sent
        await pilot.pause()
        assert session.moves == []
        assert "your move was not sent" in flat(screen_text(app))
        session.push(Paused(reason=""))
        await wait_for(pilot, lambda: "save the game again" in flat(screen_text(app)), what="play going on")
        assert "paused" not in screen_text(app).splitlines()[0]
        await pilot.press("e")
        await wait_for(pilot, lambda: session.moves, what="the move sent")
        assert session.moves == [se.EndTurn()]


async def test_the_log_read_over_the_screen_shows_esc_in_its_keys(app_for):
    """Issue 41, item 8: reading the log (l), the keys at the bottom named no way back; they
    show Esc, which returns to the table (and does not ask to leave it)."""
    session = RulesTable(RULES, tall_table())
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, board):
        keys = screen_text(app).split("\n")[-1]
        assert "back to the table" not in keys
        await pilot.press("l")
        await wait_for(
            pilot, lambda: "esc back to the table" in screen_text(app).split("\n")[-1], what="Esc among the keys"
        )
        assert "↑↓ read back" in screen_text(app).split("\n")[-1]
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.table_screen.maximized is None, what="back at the table")
        await pilot.pause()
        assert app.screen is app.table_screen and board.has_focus  # no leave question
        assert "back to the table" not in screen_text(app).split("\n")[-1]
