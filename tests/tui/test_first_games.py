"""Issue 41, item 3: a first game the newcomer plays.

The newcomer's first game ended after one turn of theirs: the first seat is
drawn at random and a median game is about six turns each. In a person's
first three games of each game against bots they sit first (unless they
chose the seat); the first time, a card says how to play, and the game is
dealt only once it is read, so no bot moves while it is open.

These play real games on a real local host (bot_delay 0), seeded so that the
rules' own draw would not give the person the first turn.
"""

from __future__ import annotations

from typing import Any

import pytest

from quackbox.core import games
from quackbox.net import places
from quackbox.tui.app import QuackboxApp
from quackbox.tui.config import SettingsStore
from quackbox.tui.first_games import FIRST_GAMES, BotGame
from quackbox.tui.how_to_play import HowToPlayScreen
from tests.tui.conftest import SIZE
from tests.tui.fakes import clipped_widgets, flat, screen_text, wait_for

SEED = 0
"""Side Effects at 4 seats draws seat 4 (index 3) first with seeds 0 and 1: never the person."""


def first_drawn(game: str, seed: int) -> int:
    """The seat the rules themselves draw first for ``seed`` at 4 seats."""
    state = games.get(game).new_game(seats=4, seed=seed)
    return state.current if game == "side-effects" else state.first


def app_with(
    tmp_path, game: str = "side-effects", options: dict[str, Any] | None = None, **settings: Any
) -> QuackboxApp:
    store = SettingsStore(tmp_path / "config")
    saved = store.load()
    for key, value in settings.items():
        setattr(saved, key, value)
    store.save(saved)
    app = QuackboxApp(store=store, home=False, cursor_blink=False)
    app.bot_game = BotGame(game, 4, dict(options or {}), "ann", seed=SEED, bot_delay=0, level="normal")
    return app


async def at_the_table(pilot, app: QuackboxApp) -> Any:
    await wait_for(pilot, lambda: app.table_screen is not None and app.table_screen.view is not None, what="the table")
    await pilot.pause()
    return app.table_screen.view


def test_the_seed_would_not_seat_the_person_first():
    assert first_drawn("side-effects", SEED) != 0 and first_drawn("side-effects", SEED + 1) != 0
    assert first_drawn("quack", SEED) != 0


@pytest.mark.parametrize("game", ["side-effects", "quack"])
async def test_the_first_game_opens_with_how_to_play_and_the_person_sits_first(tmp_path, game):
    app = app_with(tmp_path, game)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, HowToPlayScreen), what="the card")
        await pilot.pause()
        text = flat(screen_text(app))
        assert f"How to play {games.title(game)}" in text and "To win" in text and "Your turn" in text
        keys = {
            "side-effects": ("1-9 pick a card", "Enter play it", "e end your turn"),
            "quack": ("s stay and practise", "1-9 Enter pick a card", "space let a chance"),
        }[game]
        for key in keys:
            assert key in text, text
        # While it is open nothing is dealt: no table, no host, no bots, no saved game.
        assert app.session is None and app.table_screen is None
        saved_games = places.games_dir()
        assert not saved_games.exists() or not any(saved_games.iterdir())
        assert clipped_widgets(app) == []  # the card fits 80x24
        await pilot.press("space")  # one key closes it
        view = await at_the_table(pilot, app)
        assert view.current == 0
        assert not isinstance(app.screen, HowToPlayScreen)
    saved = SettingsStore(tmp_path / "config").load()
    assert saved.introduced == {game: 1} and saved.played == {game: 1}


async def test_the_card_does_not_come_back(tmp_path):
    app = app_with(tmp_path, introduced={"side-effects": 1}, played={"side-effects": 1})
    async with app.run_test(size=SIZE) as pilot:
        view = await at_the_table(pilot, app)
        assert view.current == 0  # the second game: still first
        assert not [s for s in app.screen_stack if isinstance(s, HowToPlayScreen)]


async def test_after_three_games_the_seats_fall_as_the_rules_deal_them(tmp_path):
    app = app_with(tmp_path, introduced={"side-effects": 1}, played={"side-effects": FIRST_GAMES})
    async with app.run_test(size=SIZE) as pilot:
        view = await at_the_table(pilot, app)
        assert view.current == first_drawn("side-effects", SEED) != 0


async def test_a_first_seat_the_person_chose_is_kept(tmp_path):
    """-o first-seat=2 (as the command line spells it) is the person's choice, first game or not."""
    app = app_with(tmp_path, options={"first-seat": 2}, introduced={"side-effects": 1})
    async with app.run_test(size=SIZE) as pilot:
        view = await at_the_table(pilot, app)
        assert view.current == 2


async def test_play_again_after_the_third_game_deals_as_the_rules_do(tmp_path):
    """The third game is dealt with the person first; Play again after it deals a new table
    whose first seat is the rules' own draw (the open table's options could not change)."""
    app = app_with(tmp_path, introduced={"side-effects": 1}, played={"side-effects": FIRST_GAMES - 1})
    async with app.run_test(size=SIZE) as pilot:
        view = await at_the_table(pilot, app)
        assert view.current == 0
        assert app.settings.played["side-effects"] == FIRST_GAMES
        first = app.session
        app.play_again()
        await wait_for(
            pilot,
            lambda: (
                app.session is not None
                and app.session is not first
                and app.table_screen is not None
                and app.table_screen.view is not None
            ),
            what="the next table",
        )
        # The next deal of a seeded table: the seed moved on by the one game dealt before.
        assert app.table_screen.view.current == first_drawn("side-effects", SEED + 1) != 0
        assert app.settings.played["side-effects"] == FIRST_GAMES + 1


def test_who_sits_first_is_decided_from_the_settings():
    from quackbox.tui.config import Settings

    game = BotGame("quack", 4, {"deathmatch": True})
    assert game.options_now(Settings()) == {"deathmatch": True, "first_seat": 0}
    assert game.options_now(Settings(played={"quack": 2})) == {"deathmatch": True, "first_seat": 0}
    assert game.options_now(Settings(played={"quack": 3})) == {"deathmatch": True}
    assert game.options_now(Settings(played={"side-effects": 9})) == {"deathmatch": True, "first_seat": 0}
    chosen = BotGame("quack", 4, {"first_seat": -1})
    assert chosen.options_now(Settings()) == {"first_seat": -1}
