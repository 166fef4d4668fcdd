"""Real games against bots: a host on 127.0.0.1 in this process, driven with the keyboard.

Fixed seeds and no bot delay keep them short and repeatable; the rules and the
bots (not the test) decide what happens, so the test plays whatever it is dealt.
"""

from __future__ import annotations

from quackbox.core import quack as q
from quackbox.core import side_effects as se
from quackbox.tui.app import make_app
from quackbox.tui.session import open_local
from quackbox.tui.trade import TradeScreen
from tests.tui.conftest import SIZE
from tests.tui.fakes import wait_for


def local_app(tmp_path, game: str, seed: int, players: int = 3):
    async def opener():
        return await open_local(
            game, players=players, options={}, name="Ann", seed=seed, bot_delay=0, first_move_delay=0
        )

    return make_app(config_dir=tmp_path / "config", opener=opener, home=False, cursor_blink=False)


def my_turn_se(app) -> bool:
    screen = app.table_screen
    view = screen.view if screen is not None else None
    return view is not None and view.current == view.seat and view.phase == se.PLAY and view.outcome is None


async def test_side_effects_real_turns_and_a_trade(tmp_path):
    """Play a card on a lit target, trade with a bot, end the turn, and get the turn back after the bots."""
    app = local_app(tmp_path, "side-effects", seed=11)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: my_turn_se(app), what="our first turn")
        board = app.table_screen.board
        first_turn = board.view.turn
        playable = [i for i, c in enumerate(board.view.hand) if board.moves_for(c.id)]
        assert playable, "seed 11 deals us a playable card"
        card = board.view.hand[playable[0]]
        await pilot.press(str(playable[0] + 1))
        move = board.aimed()
        assert move is not None  # the picked card aims at one of its plays
        seq = app.table_screen.seq
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.table_screen.seq > seq, what="the play to land")
        assert card.id not in [c.id for c in board.view.hand]

        # A gift to a bot: the first card of our hand, for nothing.
        if my_turn_se(app) and board.view.hand:
            await pilot.press("t")
            await wait_for(pilot, lambda: isinstance(app.screen, TradeScreen), what="the trade form")
            await pilot.press("tab", "space", "ctrl+s")
            await wait_for(
                pilot,
                lambda: any(line.startswith("You offered") for line in app.table_screen.log_lines),
                what="the offer in the log",
            )

        if my_turn_se(app):
            await pilot.press("e")
        await wait_for(
            pilot,
            lambda: my_turn_se(app) and board.view.turn > first_turn,
            timeout=20,
            what="our next turn after the bots",
        )
        lines = app.table_screen.log_lines
        assert any(line.startswith("You offered") for line in lines)
        assert any("Bot 2" in line and ("accepted" in line or "declined" in line) for line in lines)


def quack_view(app):
    screen = app.table_screen
    return screen.view if screen is not None else None


async def test_quack_real_turn_against_bots(tmp_path):
    """Stay, play every owed Treatment with the keyboard, pass the windows, and see the turn move on."""
    app = local_app(tmp_path, "quack", seed=4)
    async with app.run_test(size=SIZE) as pilot:
        played = 0
        loop_guard = 0
        await wait_for(pilot, lambda: quack_view(app) is not None, what="the table")
        while loop_guard < 200:
            loop_guard += 1
            view = quack_view(app)
            seq = app.table_screen.seq
            if view.outcome is not None or (played and view.current != view.seat):
                break
            if view.phase == q.WINDOW and view.seat in view.window_seats:
                await pilot.press("space")
            elif view.current == view.seat and view.phase == q.FLEE:
                await pilot.press("s")
            elif view.current == view.seat and view.phase == q.TREAT:
                index = next(
                    i
                    for i, c in enumerate(view.hand)
                    if any(isinstance(m, q.PlayTreatment) and m.card == c.id for m in view.legal)
                )
                await pilot.press(str(index + 1), "enter")
                await wait_for(pilot, lambda seq=seq: app.table_screen.seq > seq, what="the treatment")
                played += 1
                continue
            elif view.current == view.seat and view.phase == q.SHORT_HAND:
                index = next(i for i, c in enumerate(view.hand) if q.Discard(c.id) in view.legal)
                await pilot.press(str(index + 1), "d")
            await wait_for(
                pilot,
                lambda seq=seq: app.table_screen.seq > seq or quack_view(app).outcome is not None,
                timeout=15,
                what="the game to move on",
            )
        assert played >= 1
        assert any(line.startswith("You played") for line in app.table_screen.log_lines)
