"""The Quack in the Box table driven with the keyboard, against the real rules behind a fake host."""

from __future__ import annotations

from quackbox.cards.quack import Treatment
from quackbox.core import quack as q
from quackbox.core.quack import RULES
from quackbox.tui.modals import ChoiceScreen, ConfirmScreen
from tests.tui.conftest import SIZE
from tests.tui.fakes import ManualClock, RulesTable, at_table, flat, press_card, quack_table, screen_text, wait_for


def hand_id(state, seat: int, name: str) -> int:
    return next(c for c in state.hands[seat] if RULES.cards[c].name == name)


TREATMENTS = ["Walk It Off", "Yoga", "Drink More Water", "Get Some Rest", "Aspirin", "Placebo"]


async def test_fleeing_asks_first_and_staying_treats(app_for):
    """Phase 1: f asks before the one-way trip; s stays; then a picked Treatment goes on the Patient."""
    state = quack_table(hands={0: TREATMENTS}, patients={0: "The Paper Cut"})
    session = RulesTable(RULES, state)
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, board):
        assert "f flee" in flat(screen_text(app))
        await pilot.press("f")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the flee question")
        assert "cannot be undone" in flat(screen_text(app))
        assert app.focused.id == "no"  # the safe answer: Enter on a one-way trip stays home
        await pilot.press("enter")
        await wait_for(pilot, lambda: not isinstance(app.screen, ConfirmScreen))
        assert session.moves == []
        await pilot.press("s")
        await wait_for(pilot, lambda: board.view.phase == q.TREAT, what="the treatment phase")
        assert session.moves == [q.StayHome()]
        text = flat(screen_text(app))
        assert "The Paper Cut" in text and "cure" in text and "harm" in text
        walk = hand_id(state, 0, "Walk It Off")
        await press_card(pilot, board, "Walk It Off")
        assert "Walk It Off on your The Paper Cut" in flat(screen_text(app))
        seq = session.seq
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.table_screen.seq > seq, what="the treatment")
        assert session.moves[-1] == q.PlayTreatment(walk)
        assert "You played Walk It Off on your Patient" in flat(screen_text(app))


async def test_fleeing_when_confirmed(app_for):
    """Answering yes sends the flight; the doctor shows as in Switzerland."""
    state = quack_table(hands={0: TREATMENTS})
    session = RulesTable(RULES, state)
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, board):
        await pilot.press("f")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_for(pilot, lambda: board.view.players[0].status == q.SWITZERLAND, what="the flight")
        assert session.moves == [q.FleeToSwitzerland()]
        assert "in Switzerland" in screen_text(app)


async def test_anytime_card_on_another_doctors_turn(app_for):
    """QB8, issue 14 item 10: while Bot 2 treats, an Anytime card is pick, aim, Enter: no second dialog."""
    state = quack_table(
        hands={0: ["Placebo", "Yoga", "Aspirin"]}, patients={1: "Mystery Rash", 2: "The Paper Cut"}, first=1
    )
    session = RulesTable(RULES, state)
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, board):
        session.act(1, q.StayHome())
        await wait_for(pilot, lambda: board.view.phase == q.TREAT and board.view.current == 1, what="Bot 2 treating")
        assert "Your Anytime cards work now too (press 1)" in flat(screen_text(app))
        placebo = hand_id(state, 0, "Placebo")
        await press_card(pilot, board, "Placebo")
        assert "Bot 2's Mystery Rash gains 2 Cure" in flat(screen_text(app))
        assert "target 1 of 2" in flat(screen_text(app))
        await pilot.press("down")
        assert "Bot 3's The Paper Cut gains 2 Cure" in flat(screen_text(app))
        await pilot.press("enter")
        await wait_for(pilot, lambda: session.moves, what="the Anytime card")
        assert not isinstance(app.screen, ChoiceScreen)
        assert session.moves == [q.PlayAnytime(placebo, 2)]
        await wait_for(pilot, lambda: placebo not in [c.id for c in board.view.hand])
        assert "You played Placebo on Bot 3's Patient: +2 Cure" in flat(screen_text(app))
        assert board.view.current == 1  # still Bot 2's turn


async def test_response_window_shows_countdown_and_space_passes(app_for):
    """After each Treatment the table waits for us (with the host's countdown); space passes."""
    state = quack_table(hands={0: ["Placebo", "Yoga"]}, patients={1: "Mystery Rash"}, first=1, window_seconds=8)
    session = RulesTable(RULES, state)
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, board):
        session.act(1, q.StayHome())
        treatment = next(c for c in state.hands[1] if isinstance(RULES.cards[c], Treatment))
        session.act(1, q.PlayTreatment(treatment))
        await wait_for(pilot, lambda: board.view.phase == q.WINDOW and 0 in board.view.window_seats, what="the window")
        await pilot.pause()
        text = flat(screen_text(app))
        assert "Your chance" in text and "◷ passing in" in text
        await pilot.press("space")
        await wait_for(pilot, lambda: session.moves == [q.Pass()], what="the pass")


async def test_auto_pass_passes_by_itself_unless_a_card_is_picked(app_for):
    """A window waiting on us passes after a moment; picking a card stops that, and a turns it off."""
    from quackbox.tui.quack_board import AUTO_PASS_SECONDS

    state = quack_table(hands={0: ["Placebo", "Yoga"]}, patients={1: "Mystery Rash"}, first=1, window_seconds=30)
    session = RulesTable(RULES, state)
    clock = ManualClock()
    app = app_for(session, clock=clock)
    async with at_table(app, session, SIZE) as (pilot, board):
        session.act(1, q.StayHome())
        treatments = [c for c in state.hands[1] if isinstance(RULES.cards[c], Treatment)]
        session.act(1, q.PlayTreatment(treatments[0]))
        await wait_for(pilot, lambda: board.view.phase == q.WINDOW, what="the first window")
        clock.advance(AUTO_PASS_SECONDS - 0.1)
        await pilot.pause()
        assert session.moves == []  # not yet
        clock.advance(0.1)
        await wait_for(pilot, lambda: session.moves == [q.Pass()], what="the automatic pass")
        # Next Treatment: pick a card, and nothing is passed for us.
        session.act(1, q.PlayTreatment(treatments[1]))
        await wait_for(pilot, lambda: board.view.phase == q.WINDOW, what="the second window")
        await press_card(pilot, board, "Placebo")
        clock.advance(10 * AUTO_PASS_SECONDS)
        await pilot.pause()
        assert session.moves == [q.Pass()]
        await pilot.press("escape", "a")
        assert not board.auto_pass and app.settings.auto_pass == 0
        clock.advance(10 * AUTO_PASS_SECONDS)
        await pilot.pause()
        assert session.moves == [q.Pass()]
        await pilot.press("space")
        await wait_for(pilot, lambda: session.moves == [q.Pass(), q.Pass()], what="our own pass")


def test_rules_page_lists_every_anytime_card_from_the_deck():
    """Issue 14 item 9: each Anytime card of the deck, with its effect, on the rules page."""
    from quackbox.tui.rules_text import quack_rules

    page = quack_rules()
    assert "{" not in page  # every placeholder filled
    for card in RULES.deck.anytimes:
        assert f"**{card.name}**" in page and card.description in page, card.name


async def test_status_after_the_round_limit_never_reads_past_the_limit(app_for):
    """QR22: after the last round of the limit comes one more; the status says so, not "Round 3/2"."""
    from tests.tui.fakes import advance

    state = quack_table(round_limit=2, seed=3)  # a seed whose game lasts to the limit
    advance(RULES, state, until=lambda s: s.round > 2, seed=3)
    assert state.endgame and state.round == 3 and not state.over
    session = RulesTable(RULES, state)
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, board):
        status = screen_text(app).splitlines()[0]
        assert "Round 3, the last" in status and "3/2" not in status, status
        advance(RULES, state, until=lambda s: False)
        session.resend()
        await wait_for(pilot, lambda: board.view.outcome is not None, what="the end")
        assert board.status_text().plain.startswith(f"Game over after round {state.round} ·")
        assert "/2" not in board.status_text().plain


async def test_the_header_fits_80_columns_whatever_the_names(app_for):
    """Issue 41, item 8: with long names and a window open to several doctors the header ran
    past 80 columns and was cut ("die 3…"); it now says as much as fits, whole, and the
    connection keeps its place at the right edge."""
    from quackbox.core import bots as core_bots
    from quackbox.core.play import next_move

    state = RULES.new_game(seats=5, seed=3)
    session = RulesTable(RULES, state, names=["Ann", "Bartholomew-Smythe", "Cy", "Dee", "Evangelina Long"])
    app = app_for(session)
    players = [core_bots.make(RULES.name, "heuristic", 11 + s) for s in range(5)]
    headers = set()
    async with at_table(app, session, SIZE) as (pilot, _board):
        for _ in range(90):
            if RULES.outcome(state) is not None:
                break
            session.act(*next_move(RULES, state, players))
            await pilot.pause()
            header = screen_text(app).split("\n")[0]
            headers.add(header)
            assert "…" not in header.replace("Bartholom…", "").replace("Evangelin…", ""), header
            assert header.endswith("● online"), header
    assert any("Anytime:" in h for h in headers)  # windows were met (else this proves little)
