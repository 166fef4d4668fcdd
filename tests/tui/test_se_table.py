"""The Side Effects table driven with the keyboard, against the real rules behind a fake host.

Each test stacks a table with ``tests.core.se_helpers.table`` and plays
through the app's keys; the rules (not the test) decide what happens.
"""

from __future__ import annotations

from quackbox.core import side_effects as se
from quackbox.core.side_effects import RULES
from quackbox.tui.modals import ChoiceScreen, ConfirmScreen
from quackbox.tui.se_board import SEBoard
from quackbox.tui.trade import TradeScreen
from tests.core.se_helpers import card_id, disorder_id, hand_names, options, table
from tests.tui.conftest import SIZE
from tests.tui.fakes import RulesTable, at_table, flat, notices, opened, press_card, screen_text, wait_for


def board_of(app) -> SEBoard:
    return app.table_screen.board


async def seq_after(pilot, session: RulesTable, seq: int) -> None:
    await wait_for(
        pilot,
        lambda: pilot.app.table_screen.seq > seq and pilot.app.table_screen.seq == session.seq,
        what=f"a view after {seq}",
    )
    await pilot.pause()


def stacked(**kwargs):
    state = table(
        3,
        psyches={
            0: ["Madness", "Anxiety", "Anorexia"],
            1: ["Depression", ("Tremors", "Pramipexole")],
            2: ["Impotence", "Suicidal Thoughts"],
        },
        hands={
            0: ["Chlorpromazine", "Episode", "Gambling Addiction", "Lithium"],
            1: ["Fluoxetine"],
            2: ["Sildenafil", "Clozapine"],
        },
        current=0,
        **kwargs,
    )
    return state


async def test_pick_a_card_light_its_targets_and_play(app_for):
    """1-9 picks a card, its legal targets light up, Enter plays the aimed one, e ends the turn."""
    state = stacked()
    session = RulesTable(RULES, state)
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, board):
        await press_card(pilot, board, "Chlorpromazine")
        madness = disorder_id(state, 0, "Madness")
        chlorpromazine = card_id(state, 0, "Chlorpromazine")
        assert board.selected == chlorpromazine
        mine = app.table_screen.query_one("#mine")
        assert ("slot", madness) in mine.lit
        assert "Treat your Madness with Chlorpromazine" in screen_text(app)
        seq = session.seq
        await pilot.press("enter")
        await seq_after(pilot, session, seq)
        assert session.moves[-1] == se.Treat(drug=chlorpromazine, disorder=madness)
        assert "✓ Madness" in screen_text(app)

        # The Episode lights every untreated Disorder of the rivals; the arrows move the aim.
        await press_card(pilot, board, "Episode")
        targets = {m.disorder for m in board.options()}
        assert targets == {
            disorder_id(state, 1, "Depression"),
            disorder_id(state, 2, "Impotence"),
            disorder_id(state, 2, "Suicidal Thoughts"),
        }
        first = board.aimed()
        await pilot.press("down")
        second = board.aimed()
        assert second != first and isinstance(second, se.PlayEpisode)
        seq = session.seq
        await pilot.press("enter")
        await seq_after(pilot, session, seq)
        assert session.moves[-1] == second
        # Two plays made: the rules ended the turn by themselves.
        assert board.view.current != 0


async def test_end_turn_and_discard_keys(app_for):
    """d discards the picked card (free on your turn) and e ends the turn."""
    state = stacked()
    session = RulesTable(RULES, state)
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, board):
        lithium = card_id(state, 0, "Lithium")
        await press_card(pilot, board, "Lithium")
        seq = session.seq
        await pilot.press("d")
        await seq_after(pilot, session, seq)
        assert session.moves[-1] == se.Discard(lithium)
        assert "Lithium" not in hand_names(state, 0)
        seq = session.seq
        await pilot.press("e")
        await seq_after(pilot, session, seq)
        assert session.moves[-1] == se.EndTurn()
        assert board.view.current == 1
        assert "Bot 2's turn" in screen_text(app)


async def test_an_episode_that_would_do_nothing_asks_first(app_for):
    """SE7: Madness on a Psyche with no Drugs strips nothing; the table says so before the card is spent."""
    state = table(2, psyches={0: ["Anxiety"], 1: ["Madness", "Depression"]}, hands={0: ["Episode"]}, current=0)
    session = RulesTable(RULES, state)
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, board):
        episode = card_id(state, 0, "Episode")
        await press_card(pilot, board, "Episode")
        for _ in board.options():
            if board.aimed().disorder == disorder_id(state, 1, "Madness"):
                break
            await pilot.press("down")
        assert board.aimed().disorder == disorder_id(state, 1, "Madness")
        assert "(does nothing!)" in flat(screen_text(app))
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the warning")
        assert "no Drugs" in flat(screen_text(app))
        await pilot.press("n")
        await wait_for(pilot, lambda: not isinstance(app.screen, ConfirmScreen))
        assert session.moves == []
        assert board.aimed().disorder == disorder_id(state, 1, "Madness")  # still aimed: nothing lost
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_for(pilot, lambda: session.moves, what="the Episode to be sent")
        assert session.moves == [se.PlayEpisode(card=episode, disorder=disorder_id(state, 1, "Madness"))]


async def test_a_refused_move_shows_the_hosts_reason(app_for):
    """When the host refuses a move, its plain sentence is shown (a line of the log, held until read)."""
    state = stacked()
    session = RulesTable(RULES, state)
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, board):
        await press_card(pilot, board, "Lithium")
        # Behind the screen's back the card leaves the hand (as if a steal raced the click).
        lithium = card_id(state, 0, "Lithium")
        state.hands[0].remove(lithium)
        state.discard.append(lithium)
        await pilot.press("d")
        await wait_for(pilot, lambda: any("not in your hand" in n for n in notices(app)), what="the refusal")
        await pilot.pause()
        assert "The host refused: Lithium" in screen_text(app)


def tremors_table(seconds: float):
    """Seat 1 to play an Episode on our Tremors, with a countdown of ``seconds``."""
    state = table(
        2,
        psyches={0: ["Tremors", "Anxiety"], 1: ["Depression"]},
        hands={0: ["Lithium", "Fluoxetine", "Episode", "Therapy", "Madness"], 1: ["Episode"]},
        current=1,
        options=options(tremors_seconds=seconds),
    )
    return state, RulesTable(RULES, state, deadlines=True)


async def test_tremors_answered_in_time(app_for):
    """A Tremors prompt shows the countdown; pressing three card numbers discards them at once."""
    state, session = tremors_table(3.0)
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, board):
        session.act(1, se.PlayEpisode(card=card_id(state, 1, "Episode"), disorder=disorder_id(state, 0, "Tremors")))
        await wait_for(pilot, lambda: board.view.phase == se.TREMORS, what="the Tremors prompt")
        await pilot.pause()
        text = screen_text(app)
        assert "TREMORS! Discard 3 more cards: press their numbers now" in flat(text)
        assert "◷ Tremors" in text  # the countdown
        await pilot.press("1", "2", "3")
        await wait_for(pilot, lambda: board.view.phase == se.PLAY, what="the prompt to close")
        assert [type(m) for m in session.moves] == [se.Discard] * 3
        assert len(state.hands[0]) == 2
        assert "(Tremors)" in screen_text(app)


async def test_the_bell_is_silent_when_the_settings_say_so(app_for):
    """The table hands the person's bell setting down to the board, which rings by it."""
    state, session = tremors_table(30.0)
    app = app_for(session)
    app.settings.bell = 0
    rung = []
    async with app.run_test(size=SIZE) as pilot:
        app.bell = lambda: rung.append(True)
        session.begin()
        board = await opened(pilot)
        assert board.bell is False
        session.act(1, se.PlayEpisode(card=card_id(state, 1, "Episode"), disorder=disorder_id(state, 0, "Tremors")))
        await wait_for(pilot, lambda: board.view.phase == se.TREMORS, what="the Tremors prompt")
        await pilot.pause()
        assert rung == []


async def test_tremors_keeps_the_numbers_read_when_it_opened(app_for):
    """Item 1 of issue 14: while the prompt is open the hand keeps its places, a discarded card
    stays in its slot marked as gone, so pressing 3, 4, 5 discards exactly the cards numbered
    3, 4 and 5 when the prompt opened; the prompt counts the cards still owed; the bell rings."""
    state, session = tremors_table(30.0)
    app = app_for(session)
    rung = []
    async with app.run_test(size=SIZE) as pilot:
        app.bell = lambda: rung.append(True)
        session.begin()
        board = await opened(pilot)
        session.act(1, se.PlayEpisode(card=card_id(state, 1, "Episode"), disorder=disorder_id(state, 0, "Tremors")))
        await wait_for(pilot, lambda: board.view.phase == se.TREMORS, what="the Tremors prompt")
        await pilot.pause()
        assert rung == [True]
        read = [c.name for c in board.view.hand]
        for key, owed in (("3", 2), ("4", 1)):
            seq = session.seq
            await pilot.press(key)
            await seq_after(pilot, session, seq)
            assert [c.name for c in board.hand()] == read  # same places
            text = flat(screen_text(app))
            assert f"Discard {owed} more card" in text
            assert "discarded" in text  # the gone card still shows in its slot
        await pilot.press("5")
        await wait_for(pilot, lambda: board.view.phase == se.PLAY, what="the prompt to close")
        assert sorted(state.cards[m.card].name for m in session.moves) == sorted(read[2:5])
        assert hand_names(state, 0) == sorted(read[:2])
        assert [c.name for c in board.hand()] == read[:2]  # the prompt ended: the hand closes up
        assert rung == [True]


async def test_tremors_answered_too_late(app_for):
    """When the countdown runs out the host takes the whole hand; the table shows what happened."""
    state, session = tremors_table(1.0)
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, board):
        session.act(1, se.PlayEpisode(card=card_id(state, 1, "Episode"), disorder=disorder_id(state, 0, "Tremors")))
        await wait_for(pilot, lambda: board.view.phase == se.TREMORS, what="the Tremors prompt")
        await pilot.press("1")  # one card in time is not enough
        await wait_for(pilot, lambda: board.view.phase == se.PLAY and not board.view.hand, what="the timeout")
        # The log keeps every sentence; the screen shows only its last few lines.
        await wait_for(
            pilot,
            lambda: any("discarded your whole hand (Tremors)" in line for line in app.screen.log_lines),
            what="the log line",
        )


async def test_anxiety_shows_the_hand_and_takes_a_card(app_for):
    """An Episode on Anxiety opens the shown hand as a choice; the card picked is taken."""
    state = table(
        2, psyches={0: ["Madness"], 1: ["Anxiety"]}, hands={0: ["Episode"], 1: ["Lithium", "Therapy"]}, current=0
    )
    session = RulesTable(RULES, state)
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, board):
        await press_card(pilot, board, "Episode")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen), what="the shown hand")
        text = screen_text(app)
        assert "Take Lithium" in text and "Take Therapy" in text and "Take nothing" in text
        therapy = card_id(state, 1, "Therapy")
        options = app.screen.query_one("OptionList")
        for _ in range(options.option_count):
            if "Therapy" in options.highlighted_option.prompt.plain:
                break
            await pilot.press("down")
        assert "Therapy" in options.highlighted_option.prompt.plain
        await pilot.press("enter")
        await wait_for(pilot, lambda: se.TakeCard(therapy) in session.moves, what="the take")
        await wait_for(pilot, lambda: "Therapy" in [c.name for c in board.view.hand])


async def test_discard_down_to_six(app_for):
    """Ending a turn with too many cards asks for discards: pick, then d."""
    state = table(
        2,
        psyches={0: ["Madness"], 1: ["Anxiety"]},
        hands={0: ["Lithium", "Lithium", "Fluoxetine", "Episode", "Episode", "Therapy", "Tremors", "Depression"]},
        current=0,
    )
    session = RulesTable(RULES, state)
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, board):
        await pilot.press("e")
        await wait_for(pilot, lambda: board.view.phase == se.DISCARD_DOWN, what="the discard prompt")
        assert "Too many cards" in screen_text(app)
        for _ in range(2):
            seq = session.seq
            await pilot.press("1", "d")
            await seq_after(pilot, session, seq)
        assert board.view.current == 1
        assert len(state.hands[0]) == 6


async def test_make_a_trade_offer_and_answer_one(app_for):
    """t opens the offer form; o answers an offer made to you."""
    state = stacked()
    session = RulesTable(RULES, state)
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, board):
        await pilot.press("t")
        await wait_for(pilot, lambda: isinstance(app.screen, TradeScreen), what="the trade form")
        await pilot.press("tab")  # from the player to the cards you give
        await pilot.press("space")  # tick the first card of the hand
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: any(isinstance(m, se.OfferTrade) for m in session.moves), what="the offer")
        offer = session.moves[-1]
        assert offer.to == 1 and len(offer.give) == 1 and offer.want == ()
        await wait_for(pilot, lambda: board.view.offers, what="the open offer")

        # Bot 3 offers us a card for our Lithium; we accept with o.
        session.act(2, se.OfferTrade(to=0, give=(card_id(state, 2, "Clozapine"),), want=("Lithium",)))
        await wait_for(pilot, lambda: any(o.seat == 2 for o in board.view.offers), what="the incoming offer")
        await pilot.press("o")
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen), what="the offers")
        while "Accept" not in app.screen.query_one("OptionList").highlighted_option.prompt.plain:
            await pilot.press("down")
        await pilot.press("enter")
        await wait_for(pilot, lambda: any(isinstance(m, se.AcceptTrade) for m in session.moves), what="accept")
        await wait_for(pilot, lambda: "Clozapine" in [c.name for c in board.view.hand])
        assert "Lithium" not in hand_names(state, 0)


async def test_the_trade_form_marks_ticked_cards_without_colour(app_for, monkeypatch):
    """Issue 25, item 5: with NO_COLOR a ticked card's box holds a mark and an unticked one is
    empty (the boxes differed only in colour)."""
    monkeypatch.setenv("NO_COLOR", "1")
    state = stacked()
    session = RulesTable(RULES, state)
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, _board):
        assert app.no_color
        await pilot.press("t")
        await wait_for(pilot, lambda: isinstance(app.screen, TradeScreen), what="the trade form")
        await pilot.press("tab", "space")  # tick the first card of the hand
        await pilot.pause()
        text = screen_text(app)
        assert "▐X▌ Chlorpromazine" in text and "▐ ▌ Episode" in text, text


async def test_the_mouse_picks_aims_and_plays(app_for):
    """Click a card; click a lit target to aim at it; click the aimed target to play."""
    state = stacked()
    session = RulesTable(RULES, state)
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, board):
        episode = card_id(state, 0, "Episode")
        index = [c.id for c in board.view.hand].index(episode)
        hand = app.table_screen.query_one("#hand")
        card_width = min(18, (hand.size.width - 1) // len(board.view.hand))
        await pilot.click("#hand", offset=(2 + index * card_width, 1))
        assert board.selected == episode
        first = board.aimed()
        # Aim at Bot 3's Impotence (not the first target) by clicking it, then click it again to play.
        impotence = disorder_id(state, 2, "Impotence")
        assert first.disorder != impotence
        lines = screen_text(app).split("\n")
        row = next(i for i, line in enumerate(lines) if "Impotence" in line)
        col = lines[row].index("Impotence")
        await pilot.click(offset=(col, row))
        assert board.aimed() == se.PlayEpisode(card=episode, disorder=impotence)
        assert session.moves == []
        seq = session.seq
        await pilot.click(offset=(col, row))
        await seq_after(pilot, session, seq)
        assert session.moves == [se.PlayEpisode(card=episode, disorder=impotence)]
