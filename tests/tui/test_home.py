"""Issue 41, item 5: the home screen cannot surprise.

The newcomer pressed Tab, Enter, Down, Enter to change the Game field and a
table opened on the network. No keys meant for the fields (Tab, the arrows,
Enter on a select to open it and Enter to choose) open a table to the
network now; hosting says first who can join, and only an explicit choice
opens it.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from quackbox.tui import app as app_module
from quackbox.tui.app import QuackboxApp
from quackbox.tui.config import SettingsStore
from quackbox.tui.home import HomeScreen, HostScreen, OpenToNetworkScreen
from tests.tui.conftest import SIZE
from tests.tui.fakes import flat, screen_text, wait_for


class Recording(QuackboxApp):
    """The app, with what the home screen chooses written down instead of done."""

    CSS_PATH = str(Path(app_module.__file__).with_name("quackbox.tcss"))

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.chosen: list[tuple[Any, ...]] = []

    # prevent_default: the app's own handlers (which would open the table) are not run.
    def on_home_screen_host_chosen(self, message: HomeScreen.HostChosen) -> None:
        message.prevent_default()
        self.chosen.append(("host", message.port, message.lan))

    def on_home_screen_play_chosen(self, message: HomeScreen.PlayChosen) -> None:
        message.prevent_default()
        self.chosen.append(("play",))

    def on_home_screen_join_chosen(self, message: HomeScreen.JoinChosen) -> None:
        message.prevent_default()
        self.chosen.append(("join", message.address))


def home_app(tmp_path, **settings: Any) -> Recording:
    store = SettingsStore(tmp_path / "config")
    saved = store.load()
    for key, value in settings.items():
        setattr(saved, key, value)
    store.save(saved)
    return Recording(store=store, home=True, cursor_blink=False, lan_address="10.0.0.5")


async def back_home(pilot, app: Recording) -> None:
    for _ in range(4):
        if isinstance(app.screen, HomeScreen):
            break
        await pilot.press("escape")
        await pilot.pause()
    assert isinstance(app.screen, HomeScreen), screen_text(app)
    app.screen.query_one("#play").focus()
    await pilot.pause()


async def test_the_newcomers_keys_open_no_table(tmp_path):
    """Tab, Enter, Down, Enter from the home screen as it starts: the Host dialog opens on
    Cancel, so nothing is opened, least of all a table on the network."""
    app = home_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("tab", "enter", "down", "enter")
        await pilot.pause()
        assert not [c for c in app.chosen if c[0] == "host"]
        assert isinstance(app.screen, HomeScreen)


async def test_keys_meant_for_the_fields_never_open_a_table_to_the_network(tmp_path):
    """Seeded runs of the keys a person changes fields with, from where the home screen
    starts: none opens a table to the network (the question before it is the only way,
    and its yes takes no focus)."""
    rng = random.Random(41)
    keys = ["tab", "shift+tab", "up", "down", "left", "right", "enter"]
    app = home_app(tmp_path, host_bind="0.0.0.0")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        asked = 0
        for run in range(16):
            # Every other run first walks to the question (Host, then "Open the table"), and
            # then goes on at random there: Tab and Enter must not reach its yes.
            walk = ["tab", "enter", "tab", "enter"] if run % 2 else []
            for key in walk + [rng.choice(keys) for _ in range(6)]:
                await pilot.press(key)
                asked += isinstance(app.screen, OpenToNetworkScreen)
            await pilot.pause()
            assert not [c for c in app.chosen if c[0] == "host" and c[2]], app.chosen
            app.chosen.clear()
            await back_home(pilot, app)
        assert asked  # the question was met (else this proves nothing of it)


async def test_hosting_to_the_network_asks_first_and_names_who_can_join(tmp_path):
    app = home_app(tmp_path, host_bind="0.0.0.0", host_port=7117)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("f2")
        await wait_for(pilot, lambda: isinstance(app.screen, HostScreen), what="the host dialog")
        await pilot.press("tab", "enter")  # from Cancel to "Open the table"
        await wait_for(pilot, lambda: isinstance(app.screen, OpenToNetworkScreen), what="the question")
        said = flat(str(app.screen.query_one("#who").render()))
        assert "A table of Side Effects will be open to the network." in said
        assert "Anyone who can reach this machine at 10.0.0.5:7117 and is given the room code can join" in said
        assert "nobody gets in without it" in said
        await pilot.press("tab", "enter")  # Tab cannot reach the yes: Enter goes back
        await wait_for(pilot, lambda: isinstance(app.screen, HostScreen), what="back to the dialog")
        assert app.chosen == []
        await pilot.press("enter")  # the dialog's focus is where it was: "Open the table"
        await wait_for(pilot, lambda: isinstance(app.screen, OpenToNetworkScreen), what="the question again")
        await pilot.press("o")
        await wait_for(pilot, lambda: app.chosen, what="the choice")
        assert app.chosen == [("host", 7117, True)]


async def test_a_table_for_this_machine_only_opens_without_the_question(tmp_path):
    app = home_app(tmp_path, host_bind="127.0.0.1", host_port=7117)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("f2")
        await wait_for(pilot, lambda: isinstance(app.screen, HostScreen), what="the host dialog")
        await pilot.press("tab", "enter")
        await wait_for(pilot, lambda: app.chosen, what="the choice")
        assert app.chosen == [("host", 7117, False)]


async def test_a_failed_join_opens_its_dialog_again_with_what_was_typed(tmp_path):
    """Issue 41, item 8: the address and code typed stay, in the dialog opened again, with
    why the join failed said there (not as a toast the dialog would hide)."""
    from quackbox.tui.app import make_app
    from quackbox.tui.home import JoinScreen

    app = make_app(config_dir=tmp_path / "config", home=True, cursor_blink=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("f3")
        await wait_for(pilot, lambda: isinstance(app.screen, JoinScreen), what="the join dialog")
        await pilot.press(*"127.0.0.1:1", "tab", *"kqxz-bdfg-hjkl", "tab", "space")  # and "just watch"
        await pilot.press("shift+tab", "enter")  # Enter in the code's field joins
        await wait_for(pilot, lambda: isinstance(app.screen, JoinScreen) and app.screen.why, what="the dialog again")
        await pilot.pause()
        dialog = app.screen
        assert dialog.query_one("#address").value == "127.0.0.1:1"
        assert dialog.query_one("#code").value == "KQXZ-BDFG-HJKL"
        assert dialog.query_one("#spectate").value is True
        assert "No quackbox host answered at ws://127.0.0.1:1" in str(dialog.query_one("#why").render())
        assert not app.toasts
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)
