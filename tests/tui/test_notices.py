"""Issue 41, item 4: nothing covers the log.

At 80x24 a toast sat on the log and cut its lines ("You drew Full-Bod▌ Claim
Denied"). At a table every notice is a line of the log itself, held below
its newest lines until read, so the log's rows on screen are its own lines,
whole; a notice that matters (a trade offer, a refusal) stays until read.
"""

from __future__ import annotations

from quackbox.core import quack as q
from quackbox.core import side_effects as se
from quackbox.core.quack import RULES as QUACK
from quackbox.core.side_effects import RULES
from tests.core.se_helpers import card_id, table
from tests.tui.conftest import SIZE
from tests.tui.fakes import RulesTable, at_table, notices, press_card, quack_table, screen_text, wait_for
from tests.tui.test_quack_table import hand_id


def log_rows_are_the_logs_own(app) -> list[str]:
    """The rows of the screen where the log is, checked to be the log's own lines, whole;
    returned as shown."""
    log = app.table_screen.log_widget
    area = log.content_region
    rows = screen_text(app).split("\n")[area.y : area.y + area.height]
    shown = [row[area.x : area.x + area.width].rstrip() for row in rows]
    page = [line.plain.rstrip() for line in log.page()]
    assert shown == page + [""] * (len(shown) - len(page)), (shown, page)
    return shown


def busy_table() -> RulesTable:
    state = table(
        3,
        psyches={0: ["Anxiety", "Madness"], 1: ["Madness"], 2: ["Tremors"]},
        hands={0: ["Lithium", "Episode", "Therapy"], 1: ["Lorazepam"], 2: ["Clozapine"]},
        current=0,
    )
    return RulesTable(RULES, state, names=("ann", "bob", "cy"))


async def fill_the_log(pilot, session: RulesTable, lines: int = 8) -> None:
    for i in range(lines):
        session.say(1, f"line {i}")
    await wait_for(
        pilot,
        lambda: any(f"line {lines - 1}" in e.plain for e in pilot.app.table_screen.log_widget.entries),
        what="the chat",
    )
    await pilot.pause()


async def test_no_notice_sits_on_the_log_at_80x24(app_for):
    """A trade offer, a refusal from the host, a reason the table gives and a notice from
    anywhere else in the app: none is a toast, each is a line of the log, and every row
    where the log is shows one of its lines whole."""
    session = busy_table()
    state = session.state
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, board):
        await fill_the_log(pilot, session)
        session.act(2, se.OfferTrade(to=0, give=(card_id(state, 2, "Clozapine"),), want=("Lithium",)))
        await wait_for(pilot, lambda: board.view.offers, what="the offer")
        app.notify("Something the app says.")  # as Textual's own notices come
        await pilot.pause()
        shown = " ".join(log_rows_are_the_logs_own(app))
        assert "Trade offer: cy offers you Clozapine for your Lithium. Press o to answer." in shown
        assert "Something the app says." in shown
        assert not app.toasts  # nothing went to a toast
        assert not app.screen.query("Toast")

        await press_card(pilot, board, "Lithium")  # no play for it: Enter says why
        await pilot.press("enter")
        await wait_for(
            pilot, lambda: any("no untreated Gambling Addiction" in n for n in notices(app)), what="the reason"
        )
        await pilot.pause()
        shown = " ".join(log_rows_are_the_logs_own(app))
        assert "no untreated Gambling Addiction" in shown
        assert not app.toasts and not app.screen.query("Toast")


async def test_claim_denied_on_you_does_not_cut_the_log(app_for):
    """The newcomer's "You drew Full-Bod▌ Claim Denied": the notice of a card played on you
    is the log's bottom line, and the line above it is whole."""
    state = quack_table(hands={1: ["Claim Denied"]}, patients={0: "Retired Hypochondriac"})
    session = RulesTable(QUACK, state)
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, _board):
        for i in range(8):
            session.say(2, f"line {i}")
        session.act(1, q.PlayAnytime(hand_id(state, 1, "Claim Denied"), 0))
        await wait_for(pilot, lambda: notices(app), what="the notice")
        await pilot.pause()
        shown = log_rows_are_the_logs_own(app)
        (notice,) = app.table_screen.log_widget.held
        assert notice.startswith("Claim Denied: Bot 2 played Claim Denied on you")
        assert " ".join(shown).endswith(notice)  # the bottom rows, after every other line
        assert not app.toasts and not app.screen.query("Toast")


async def test_a_trade_offer_stays_until_answered(app_for):
    """It matters: new lines and keys do not take it away; answering does, and it then
    stands in the log where it was said."""
    session = busy_table()
    state = session.state
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, board):
        log = app.table_screen.log_widget
        session.act(2, se.OfferTrade(to=0, give=(card_id(state, 2, "Clozapine"),), want=("Lithium",)))
        await wait_for(pilot, lambda: log.held, what="the offer's notice")
        await fill_the_log(pilot, session, 12)
        await pilot.press("right", "left", "escape")  # picking cards is not answering
        await pilot.pause()
        assert " ".join(log_rows_are_the_logs_own(app)).endswith(log.held[0])
        assert log.held[0].startswith("Trade offer: cy offers you")
        session.act(0, se.DeclineTrade(board.view.offers[0].id))
        await wait_for(pilot, lambda: not log.held, what="the notice to go")
        await pilot.pause()
        assert not log_rows_are_the_logs_own(app)[-1].endswith("Press o to answer.")
        said = [e.plain for e in log.entries]
        assert said.index("Trade offer: cy offers you Clozapine for your Lithium. Press o to answer.") < said.index(
            "bob: line 11"
        )


async def test_a_refusal_stays_until_the_next_key(app_for):
    """The host's refusal is held below the newest lines however many come after it, until
    the person presses a key at the table (read), then it takes its place in the log."""
    session = busy_table()
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, _board):
        log = app.table_screen.log_widget
        session.push(se_error("It is not your turn."))  # as the host answers a stale move
        await wait_for(pilot, lambda: log.held, what="the refusal")
        await fill_the_log(pilot, session, 10)
        assert log_rows_are_the_logs_own(app)[-1] == "The host refused: It is not your turn."
        await pilot.press("right")
        await pilot.pause()
        assert not log.held
        assert "The host refused: It is not your turn." not in log_rows_are_the_logs_own(app)[-1:]


def se_error(message: str):
    from quackbox.net.protocol import Error

    return Error(code="illegal_move", message=message, refused="move")
