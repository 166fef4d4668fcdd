"""Issue 14, items 8 and 10: Anytime cards at the Quack table, at 80x24.

Played on you, a card is explained (a notice held below the log, and log lines with the
numbers); played by you, it is pick, aim, Enter, a harmful card aimed at a
rival first, with prompts that name the real keys and a countdown that
redraws at most four times a second.
"""

from __future__ import annotations

import re

from quackbox.cards.quack import Treatment
from quackbox.core import quack as q
from quackbox.core.quack import RULES
from quackbox.tui import quack_text as qt
from quackbox.tui.widgets import TICKS_PER_SECOND, PromptBar
from tests.tui.conftest import SIZE
from tests.tui.fakes import (
    ManualClock,
    RulesTable,
    at_table,
    flat,
    notices,
    press_card,
    quack_table,
    screen_text,
    wait_for,
)
from tests.tui.test_quack_table import hand_id

TREATMENTS = ["Walk It Off", "Yoga", "Drink More Water", "Get Some Rest", "Aspirin", "Stitches"]


async def test_claim_denied_on_you_is_notified_and_payday_gives_both_figures(app_for):
    """Item 8: "Bot 2 played Claim Denied on you" comes as a notification saying what it does,
    and the payday line says "$0 instead of ..." where the pay used to vanish silently."""
    state = quack_table(hands={0: TREATMENTS, 1: ["Claim Denied"]}, patients={0: "Retired Hypochondriac"})
    session = RulesTable(RULES, state)
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, board):
        session.act(1, q.PlayAnytime(hand_id(state, 1, "Claim Denied"), 0))
        wanted = "Claim Denied: Bot 2 played Claim Denied on you: your next pay for Treatments is cancelled."
        await wait_for(pilot, lambda: wanted in notices(app), what="the notification")
        assert [n[2] for n in app.table_screen.notices] == ["warning"]  # it hurts: core says so
        assert "⚑ Claim Denied" in screen_text(app)  # the reminder waits beside us
        await pilot.press("s")
        await wait_for(pilot, lambda: board.view.phase == q.TREAT, what="the treatment phase")
        while board.view.current == 0 and board.view.phase == q.TREAT:
            card = next(c for c in board.view.hand if isinstance(c, Treatment))
            seq = app.table_screen.seq
            await press_card(pilot, board, card.name)
            await pilot.press("enter")
            await wait_for(pilot, lambda seq=seq: app.table_screen.seq > seq, what=f"{card.name} played")
        log = flat(" ".join(app.table_screen.log_lines))
        found = re.search(r"Claim Denied: your pay this round is cancelled: \$0 instead of \$([\d,]+)\.", log)
        assert found and int(found.group(1).replace(",", "")) > 0, log
        assert state.doctors[0].money == 0 and not state.doctors[0].reminders


async def test_nurse_night_off_on_your_patient_tells_the_harm_and_the_death(app_for):
    """Item 8: an Anytime card that kills your Patient says the Harm, the Kill and your Infamy."""
    state = quack_table(hands={0: TREATMENTS, 1: ["Nurse Has the Night Off"]}, patients={0: "Weekend Warrior"})
    state.doctors[0].case.harm = 4
    session = RulesTable(RULES, state)
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, _board):
        session.act(1, q.PlayAnytime(hand_id(state, 1, "Nurse Has the Night Off"), 0))
        await wait_for(pilot, lambda: notices(app), what="the notification")
        (notice,) = notices(app)
        assert notice == (
            "Nurse Has the Night Off: Bot 2 played Nurse Has the Night Off on your Patient: "
            "+2 Harm (now 0 Cure, 6 Harm). Weekend Warrior died in your office of the Harm (Kill 6). "
            "You gained 1 Infamy (now 1)."
        )


async def test_your_own_anytime_cards_and_cards_on_others_are_not_notified(app_for):
    """Only cards someone else aims at you make a notification."""
    state = quack_table(
        hands={0: ["Placebo", *TREATMENTS[:5]], 1: ["Tax Audit"]}, patients={0: "Weekend Warrior", 2: "The Paper Cut"}
    )
    state.doctors[2].money = 500
    session = RulesTable(RULES, state)
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, board):
        session.act(1, q.PlayAnytime(hand_id(state, 1, "Tax Audit"), 2))
        await press_card(pilot, board, "Placebo")
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(session.applied) == 2, what="our Placebo")
        await pilot.pause()
        assert notices(app) == []
        assert "Bot 3 paid a $300 fine, leaving $200." in flat(screen_text(app))


async def test_a_harmful_card_is_aimed_at_a_rival_first_and_enter_plays_it(app_for):
    """Item 10: Nurse Has the Night Off lists our own Patient first, yet the aim starts on a rival;
    Enter plays at once, and the prompt names the real keys."""
    state = quack_table(
        hands={0: ["Yoga", "Aspirin", "Nurse Has the Night Off"]},
        patients={0: "Weekend Warrior", 1: "Mystery Rash", 2: "The Paper Cut"},
        first=1,
    )
    session = RulesTable(RULES, state)
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, board):
        nurse = hand_id(state, 0, "Nurse Has the Night Off")
        assert board.moves_for(nurse)[0].target == 0  # the rules list us first...
        assert "(press 3)" in flat(screen_text(app))
        await pilot.press("3")
        assert board.aimed() == q.PlayAnytime(nurse, 1)  # ...the aim does not
        assert "Bot 2's Mystery Rash gains 2 Harm" in flat(screen_text(app))
        await pilot.press("enter")
        await wait_for(pilot, lambda: session.moves, what="the card")
        assert session.moves == [q.PlayAnytime(nurse, 1)]


async def test_a_helpful_card_is_aimed_at_yourself_first(app_for):
    """Placebo from seat 2: the rules list Bot 1's Patient first, the aim starts on ours."""
    state = quack_table(hands={1: ["Placebo", "Yoga"]}, patients={0: "Weekend Warrior", 1: "Mystery Rash"})
    session = RulesTable(RULES, state, seat=1)
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, board):
        placebo = hand_id(state, 1, "Placebo")
        assert board.moves_for(placebo)[0].target == 0
        await press_card(pilot, board, "Placebo")
        assert board.aimed() == q.PlayAnytime(placebo, 1)


async def test_a_new_view_keeps_the_aim(app_for):
    """While aiming, a view that lists the plays differently does not move the aim to someone else."""
    state = quack_table(
        4,
        hands={0: ["Nurse Has the Night Off", "Yoga"], 1: ["Placebo"]},
        patients={1: "The Paper Cut", 2: "Mystery Rash", 3: "Weekend Warrior"},
        first=3,
    )
    session = RulesTable(RULES, state)
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, board):
        nurse = hand_id(state, 0, "Nurse Has the Night Off")
        await press_card(pilot, board, "Nurse Has the Night Off")
        await pilot.press("down", "down")
        assert board.aimed() == q.PlayAnytime(nurse, 3)  # the third of three: Bot 4
        # Bot 2's Paper Cut goes home cured (Placebo: +2 of 2): two plays are left, Bot 4's the second.
        session.act(1, q.PlayAnytime(hand_id(state, 1, "Placebo"), 1))
        await wait_for(pilot, lambda: len(board.moves_for(nurse)) == 2, what="the new view")
        assert board.aimed() == q.PlayAnytime(nurse, 3)
        await pilot.press("enter")
        await wait_for(pilot, lambda: session.moves, what="the card")
        assert session.moves == [q.PlayAnytime(nurse, 3)]


async def test_prompts_name_the_real_keys(app_for):
    """Item 10: "press 5 or 6", never "(pick 1-6)" when only two cards can be played."""
    state = quack_table(hands={0: ["Placebo", "Tax Audit", "Walk It Off", "Yoga"]}, patients={0: "Weekend Warrior"})
    session = RulesTable(RULES, state)
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, board):
        await pilot.press("s")
        await wait_for(pilot, lambda: board.view.phase == q.TREAT, what="the treatment phase")
        text = flat(screen_text(app))
        numbers = [i + 1 for i, c in enumerate(board.view.hand) if isinstance(c, Treatment)]
        assert numbers and numbers != list(range(1, len(board.view.hand) + 1))
        assert f"({qt.press(numbers)}, then Enter)" in text, text
        assert f"1-{len(board.view.hand)}" not in text


def test_press_says_the_keys_as_a_person_would():
    assert qt.press([3]) == "press 3"
    assert qt.press([5, 3]) == "press 3 or 5"
    assert qt.press([1, 2, 4]) == "press 1, 2 or 4"
    assert qt.press([4, 2, 3, 1]) == "press 1-4"
    assert qt.press([]) == ""


def test_every_anytime_effect_has_a_preview_of_its_own():
    """The previews are a registry by effect: an effect added to the cards without
    words of its own would fall back to the card's description, so none may."""
    from quackbox.cards import quack as qc

    assert qt.previewed_effects() == frozenset(qc.EFFECTS)


def test_first_aim_follows_what_core_says_a_card_does():
    """Harmful: the first play not touching you (Wrong Chart: neither seat); helpful: the first on you."""
    card = {c.name: c for c in RULES.cards}
    plays = [q.PlayAnytime(0, 0), q.PlayAnytime(0, 1), q.PlayAnytime(0, 2)]
    assert qt.first_aim(plays, card["Tax Audit"], 0) == 1
    assert qt.first_aim(plays, card["Glowing Online Review"], 2) == 2
    assert qt.first_aim(plays, card["Patient Transfer"], 2) == 0  # neither: the rules' order
    chart = [q.PlayAnytime(0, 1, 0), q.PlayAnytime(0, 1, 2), q.PlayAnytime(0, 2, 1)]
    assert qt.first_aim(chart, card["Wrong Chart"], 0) == 1


async def bot2_treats(session, pilot, board) -> None:
    """Bot 2 (seat 1) stays and plays a Treatment, which opens a response window; no auto-pass."""
    state = session.state
    board.auto_pass = False
    session.act(1, q.StayHome())
    treatment = next(c for c in state.hands[1] if isinstance(RULES.cards[c], Treatment))
    session.act(1, q.PlayTreatment(treatment))
    await wait_for(pilot, lambda: board.view.phase == q.WINDOW and 0 in board.view.window_seats, what="the window")


async def test_window_prompt_and_countdown_redraw_at_most_four_times_a_second(app_for):
    """Item 10: the window says which key plays our one Anytime card; its countdown redraws <= 4 times a second."""
    state = quack_table(
        hands={0: ["Yoga", "Aspirin", "Placebo"]}, patients={1: "Mystery Rash"}, first=1, window_seconds=20
    )
    session = RulesTable(RULES, state)
    clock = ManualClock()
    app = app_for(session, clock=clock)
    async with at_table(app, session, SIZE) as (pilot, board):
        await bot2_treats(session, pilot, board)
        text = await wait_for(
            pilot, lambda: "◷ window" in screen_text(app) and flat(screen_text(app)), what="the countdown"
        )
        assert "Your chance: an Anytime card (press 3, aim, Enter)" in text
        bar = app.table_screen.query_one("#prompt", PromptBar)
        renders = 0
        original = bar.render

        def counting():
            nonlocal renders
            renders += 1
            return original()

        bar.render = counting
        shown = [bar.countdown()]
        for _ in range(2 * TICKS_PER_SECOND):  # two seconds, tick by tick
            clock.advance(1 / TICKS_PER_SECOND)
            await pilot.pause()
            shown.append(bar.countdown())
        # Its seconds changed twice in eight ticks, and it redrew only then.
        assert shown[0] == "◷ window 20s" and len(set(shown)) == 3 and renders == 2, (shown, renders)


async def test_an_open_window_is_on_the_status_line_and_one_key_passes_it(app_for):
    """Issue 25, item 7: a response window is shown on the status line while it is open,
    never as a line of the log; space passes it, and it closes once everyone in it answered."""
    state = quack_table(
        hands={0: ["Yoga", "Aspirin", "Placebo"], 2: ["Nurse Has the Night Off"]},
        patients={1: "Mystery Rash"},
        first=1,
        window_seconds=20,
    )
    session = RulesTable(RULES, state)
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, board):
        await bot2_treats(session, pilot, board)
        assert set(board.view.window_seats) == {0, 2}
        status = await wait_for(
            pilot,
            lambda: "Anytime:" in screen_text(app).splitlines()[0] and screen_text(app).splitlines()[0],
            what="the status line",
        )
        assert "Anytime: Bot 3, you" in status, status  # in turn order, from the next seat
        assert not [line for line in app.table_screen.log_lines if "Anytime card now" in line]
        session.act(2, q.Pass())  # the bot answered (at once, at a real table)
        await wait_for(pilot, lambda: board.view.window_seats == (0,), what="the bot's pass")
        seq = session.seq
        await pilot.press("space")
        await wait_for(pilot, lambda: session.seq > seq, what="our pass")
        assert session.moves[-1] == q.Pass() and board.view.phase != q.WINDOW
        await wait_for(pilot, lambda: "Anytime:" not in screen_text(app).splitlines()[0], what="the window to close")
