"""The home screen: play against bots, host a table, join one, read the rules, quit.

It edits the remembered :class:`~quackbox.tui.config.Settings` and posts what the
person chose (:class:`HomeScreen.PlayChosen` and friends) up to the app,
which opens the table.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Center, Grid, Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Footer, Input, Label, Select, Static, Switch

from quackbox.core import games
from quackbox.core.bots import LEVELS, NORMAL
from quackbox.core.options import as_values
from quackbox.core.rules import BadOptions
from quackbox.net.host import lan_address
from quackbox.tui.config import BOT_SPEEDS, MAX_NAME, Settings
from quackbox.tui.games import rules_screen
from quackbox.tui.screens_app import ScreensApp, screens_app

TITLE_ART = """\
 ▄▀▀▄ █  █ ▄▀▀▄ ▄▀▀▀ █ ▄▀ █▀▀▄ ▄▀▀▄ ▀▄ ▄▀
 █  █ █  █ █▄▄█ █    █▀▄  █▀▀▄ █  █   █
  ▀▀▄  ▀▀  ▀  ▀  ▀▀▀ ▀  ▀ ▀▀▀   ▀▀  ▀▀ ▀▀"""

OPTION_LABELS = {
    "tremors_seconds": "Tremors countdown (seconds, 0 = none)",
    "until_one_loser": "Play on until one loser is left",
    "duplicate_disorders": "House rule: duplicate Disorders",
    "treat_others": "House rule: treat others' Disorders",
    "bonus_cards": "Bonus cards (Misdiagnosis, High Tolerance)",
    "infamy_threshold": "Angry Mob at this much Infamy",
    "two_player_endgame": "Two-player endgame (one_left, immediate, play_on)",
    "turbo_infamy": "Variant: Turbo-Infamy",
    "group_practice": "Variant: Group Practice",
    "deathmatch": "Variant: Deathmatch (nobody flees)",
    "round_limit": "Round limit",
    "window_seconds": "Anytime window after each Treatment (s)",
    "first_seat": "First player seat (-1 = random)",
}


TERMINAL_SETTINGS = (
    ("bell", "This terminal: ring the bell when Tremors strikes you"),
    ("ascii", "This terminal: plain ASCII (no box drawing or marks)"),
)
"""Settings of this terminal, kept with the game's options on the options screen."""


def option_summary(game: str, values: dict[str, Any]) -> str:
    """The options that differ from the defaults, in a few words."""
    rules = games.get(game)
    defaults = rules.default_options()
    changed = []
    for f in fields(defaults):
        if f.name in values and values[f.name] != getattr(defaults, f.name):
            label = OPTION_LABELS.get(f.name, f.name.replace("_", " "))
            value = values[f.name]
            changed.append(label if value is True else f"{label}: {value}")
    return "; ".join(changed) if changed else "the rulebook game (no options changed)"


class OptionsScreen(ModalScreen[dict[str, Any] | None]):
    """Every option of one game, checked by the rules before it is kept."""

    @property
    def quackbox(self) -> ScreensApp:
        """The app this screen runs in, as the screens see it (:mod:`quackbox.tui.screens_app`)."""
        return screens_app(self)

    DEFAULT_CSS = """
    OptionsScreen { align: center middle; }
    OptionsScreen > Vertical { width: 76; max-width: 100%; height: auto; max-height: 100%;
                               border: thick $accent; background: $panel; padding: 0 1; }
    OptionsScreen VerticalScroll { height: auto; max-height: 17; }
    OptionsScreen .row { height: 3; }
    OptionsScreen .row Label { width: 1fr; padding: 1 1 0 0; }
    OptionsScreen .row Input { width: 14; }
    OptionsScreen .row Switch { width: 10; }
    OptionsScreen #error { color: $error; height: auto; }
    OptionsScreen #buttons { height: 3; align-horizontal: right; }
    OptionsScreen Button { margin-left: 2; }
    """

    BINDINGS = [Binding("escape", "cancel", "cancel"), Binding("ctrl+s", "save", "keep")]

    def __init__(self, game: str, values: dict[str, Any]) -> None:
        super().__init__()
        self.game = game
        self.values = dict(values)
        self.rules = games.get(game)

    def compose(self) -> ComposeResult:
        defaults = self.rules.default_options()
        with Vertical() as box:
            box.border_title = Text(f"{self.rules.title}: options")
            with VerticalScroll():
                for f in fields(defaults):
                    value = self.values.get(f.name, getattr(defaults, f.name))
                    with Horizontal(classes="row"):
                        yield Label(OPTION_LABELS.get(f.name, f.name.replace("_", " ")))
                        if isinstance(getattr(defaults, f.name), bool):
                            yield Switch(value=bool(value), id=f"opt-{f.name}")
                        else:
                            yield Input(str(value), id=f"opt-{f.name}")
                # Not the game's options: how this terminal shows any table.
                settings = self.quackbox.settings
                for key, label in TERMINAL_SETTINGS:
                    with Horizontal(classes="row"):
                        yield Label(label)
                        yield Switch(value=bool(getattr(settings, key, 0)), id=f"set-{key}")
            yield Static("", id="error")
            with Horizontal(id="buttons"):
                yield Button("Defaults", id="defaults")
                yield Button("Cancel", id="cancel")
                yield Button("Keep", id="keep", variant="primary")
        yield Footer()

    def _read(self) -> dict[str, Any]:
        """Each field as set: a switch's value, an input's text (the game's parser reads it)."""
        out: dict[str, Any] = {}
        for f in fields(self.rules.default_options()):
            widget = self.query_one(f"#opt-{f.name}")
            if isinstance(widget, Switch):
                out[f.name] = widget.value
            else:  # a text box: every other option (compose)
                out[f.name] = self.query_one(f"#opt-{f.name}", Input).value.strip()
        return out

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "keep":
            self.action_save()
        elif event.button.id == "defaults":
            self.dismiss({})
        else:
            self.dismiss(None)

    def action_save(self) -> None:
        try:
            chosen = as_values(self.rules.parse_options(self._read()))
        except (BadOptions, ValueError) as exc:
            self.query_one("#error", Static).update(Text(str(exc)))
            return
        defaults = as_values(self.rules.default_options())
        # Kept as the parser read them, and only where they differ from the game's own.
        values = {name: value for name, value in chosen.items() if value != defaults.get(name)}
        app = self.quackbox
        app.settings.bell = int(self.query_one("#set-bell", Switch).value)
        app.set_ascii(self.query_one("#set-ascii", Switch).value)
        self.dismiss(values)

    def action_cancel(self) -> None:
        self.dismiss(None)


class JoinScreen(ModalScreen[tuple[str, str, bool] | None]):
    """Where the table is and its room code. Dismisses with (address, code, spectate)."""

    DEFAULT_CSS = """
    JoinScreen { align: center middle; }
    JoinScreen > Vertical { width: 64; max-width: 100%; height: auto; border: thick $accent;
                            background: $panel; padding: 0 1; }
    JoinScreen .row { height: 3; }
    JoinScreen .row Label { width: 14; padding: 1 1 0 0; }
    JoinScreen .row Input { width: 1fr; }
    JoinScreen #why { height: auto; }
    JoinScreen #buttons { height: 3; align-horizontal: right; }
    JoinScreen Button { margin-left: 2; }
    """

    BINDINGS = [Binding("escape", "cancel", "cancel")]

    def __init__(self, address: str, code: str, *, spectate: bool = False, why: str = "") -> None:
        super().__init__()
        self.address = address
        self.code = code
        self.spectate = spectate
        self.why = why
        """Why the last try failed (the dialog opens again with what was typed)."""

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = Text("Join a table")
            yield Static(Text(self.why, style="bold red"), id="why")
            with Horizontal(classes="row"):
                yield Label("Host address")
                yield Input(self.address, placeholder="10.0.0.5 or 10.0.0.5:7117", id="address")
            with Horizontal(classes="row"):
                yield Label("Room code")
                yield Input(self.code, placeholder="the host shows it (e.g. KQXZ-BDFG-HJKL)", id="code", max_length=16)
            with Horizontal(classes="row"):
                yield Label("Just watch")
                yield Switch(self.spectate, id="spectate")
            with Horizontal(id="buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Join", id="join", variant="primary")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#address" if not self.address else "#code", Input).focus()

    @on(Input.Submitted)
    def _submitted(self) -> None:
        self._join()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "join":
            self._join()
        else:
            self.dismiss(None)

    def _join(self) -> None:
        address = self.query_one("#address", Input).value.strip()
        if not address:
            self.query_one("#why", Static).update(
                Text("Type the host's address (the host's screen shows it).", style="bold yellow")
            )
            self.query_one("#address", Input).focus()
            return
        code = self.query_one("#code", Input).value.strip().upper()
        self.dismiss((address, code, self.query_one("#spectate", Switch).value))

    def action_cancel(self) -> None:
        self.dismiss(None)


class OpenToNetworkScreen(ModalScreen[bool]):
    """Before a table opens to the network: who can join it, and how. Dismisses with True
    only for the explicit choice (its key, or a click): its button takes no focus, so no
    Tab, arrow or Enter meant for a field reaches it; Enter goes back."""

    DEFAULT_CSS = """
    OpenToNetworkScreen { align: center middle; }
    OpenToNetworkScreen > Vertical { width: 70; max-width: 100%; height: auto; max-height: 100%;
                                     border: thick $warning; background: $panel; padding: 0 1; }
    OpenToNetworkScreen #who { width: 1fr; margin: 1 0; }
    OpenToNetworkScreen #buttons { height: 3; align-horizontal: right; }
    OpenToNetworkScreen Button { margin-left: 2; }
    """

    BINDINGS = [
        Binding("escape", "answer(False)", "back"),
        Binding("o", "answer(True)", "open it to the network"),
    ]

    def __init__(self, what: str, address: str, port: int) -> None:
        super().__init__()
        self.what = what
        self.address = address
        self.port = port

    def compose(self) -> ComposeResult:
        where = f"{self.address}:{self.port}" if self.port else f"{self.address} (on a free port)"
        text = Text()
        text.append(f"{self.what} will be open to the network.\n\n", style="bold")
        text.append(
            f"Anyone who can reach this machine at {where} and is given the room code can join: "
            "the code is made when the table opens and shown in its lobby, and nobody gets in "
            "without it. Free seats go to whoever joins first; anyone with the code may watch.\n\n"
        )
        text.append(
            "Press o to open it to the network, or Esc to go back "
            '(turn off "Open to the network" to keep it to this machine).'
        )
        with Vertical() as box:
            box.border_title = Text("Open to the network?")
            yield Static(text, id="who")
            with Horizontal(id="buttons"):
                yield Button("Back", id="back")
                opening = Button("Open to the network (o)", id="open", variant="warning")
                opening.can_focus = False
                yield opening
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#back", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "open")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


class HostScreen(ModalScreen[tuple[int, bool] | None]):
    """Hosting: the port and whether the table is open to the network. Dismisses with (port, lan);
    a table open to the network only once :class:`OpenToNetworkScreen` has been answered yes."""

    DEFAULT_CSS = """
    HostScreen { align: center middle; }
    HostScreen > Vertical { width: 64; max-width: 100%; height: auto; border: thick $accent;
                            background: $panel; padding: 0 1; }
    HostScreen .row { height: 3; }
    HostScreen .row Label { width: 1fr; padding: 1 1 0 0; }
    HostScreen .row Input { width: 12; }
    HostScreen #note { color: $text-muted; height: auto; }
    HostScreen #buttons { height: 3; align-horizontal: right; }
    HostScreen Button { margin-left: 2; }
    """

    BINDINGS = [Binding("escape", "cancel", "cancel")]

    def __init__(self, port: int, lan: bool, summary: str, *, title: str = "The table", address: str = "") -> None:
        super().__init__()
        self.port = port
        self.lan = lan
        self.summary = summary
        self.what = title
        """The table, as the question before opening it to the network names it."""
        self.address = address or "this machine's address"
        """What friends would type to reach this machine."""

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = Text("Host a table")
            yield Static(Text(self.summary), id="note")
            with Horizontal(classes="row"):
                yield Label("Port")
                yield Input(str(self.port), id="port", type="integer", max_length=5)
            with Horizontal(classes="row"):
                yield Label("Open to the network (else this machine only)")
                yield Switch(self.lan, id="lan")
            with Horizontal(id="buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Open the table", id="host", variant="primary")
        yield Footer()

    def on_mount(self) -> None:
        # On Cancel: Enter, pressed by habit or to reach a field, opens nothing.
        self.query_one("#cancel", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id != "host":
            self.dismiss(None)
            return
        try:
            port = int(self.query_one("#port", Input).value or 0)
        except ValueError:
            port = -1
        if not 0 <= port <= 65535:
            self.query_one("#note", Static).update(
                Text("A port is a number from 1 to 65535 (0 picks a free one).", style="bold yellow")
            )
            return
        if not self.query_one("#lan", Switch).value:
            self.dismiss((port, False))
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.dismiss((port, True))

        self.app.push_screen(OpenToNetworkScreen(self.what, self.address, port), answered)

    def action_cancel(self) -> None:
        self.dismiss(None)


class HomeScreen(Screen[None]):
    """Where ``quackbox`` starts."""

    @property
    def quackbox(self) -> ScreensApp:
        """The app this screen runs in, as the screens see it (:mod:`quackbox.tui.screens_app`)."""
        return screens_app(self)

    DEFAULT_CSS = """
    HomeScreen { align: center middle; }
    HomeScreen #home { width: 78; max-width: 100%; height: auto; padding: 0 1; }
    HomeScreen #art { width: auto; color: $accent; height: 3; margin-bottom: 1; }
    HomeScreen #form { grid-size: 2; grid-columns: 12 1fr; grid-rows: 3; height: auto; grid-gutter: 0 1; }
    HomeScreen #form Label { padding: 1 0 0 0; }
    HomeScreen #game { width: 30; }
    HomeScreen #hint { color: $text-muted; margin-top: 1; }
    HomeScreen #counts { height: 3; }
    HomeScreen #players { width: 12; }
    HomeScreen #speed-label { padding: 1 0 0 0; margin: 0 1 0 3; width: auto; }
    HomeScreen #level { width: 19; }
    HomeScreen #speed { width: 21; }
    HomeScreen #options-row { height: 3; }
    HomeScreen #options-text { width: 1fr; padding: 1 1 0 0; color: $text-muted; }
    HomeScreen #options { min-width: 13; }
    HomeScreen #actions { height: auto; margin-top: 1; }
    HomeScreen #actions Button { margin-right: 1; min-width: 10; }
    """

    BINDINGS = [
        Binding("ctrl+enter,f5", "play", "play", show=False),
        Binding("f2", "host", "host", show=False),
        Binding("f3", "join", "join", show=False),
        Binding("f4", "options", "options", show=False),
        Binding("f1", "rules", "rules"),
        Binding("ctrl+q", "app.quit", "quit"),
    ]

    class PlayChosen(Message):
        """Play ``game`` against bots with these settings."""

    class HostChosen(Message):
        def __init__(self, port: int, lan: bool) -> None:
            super().__init__()
            self.port = port
            self.lan = lan

    class JoinChosen(Message):
        def __init__(self, address: str, code: str, spectate: bool) -> None:
            super().__init__()
            self.address = address
            self.code = code
            self.spectate = spectate

    def __init__(self, settings: Settings) -> None:
        super().__init__()
        self.settings = settings

    def compose(self) -> ComposeResult:
        s = self.settings
        game_names = sorted(games.GAMES)
        with Vertical(id="home"):
            with Center():
                yield Static(TITLE_ART, id="art")
            with Grid(id="form"):
                yield Label("Your name")
                yield Input(s.name, id="name", max_length=MAX_NAME, placeholder="what the table calls you")
                yield Label("Game")
                yield Select(
                    [(games.title(name), name) for name in game_names], value=s.game, allow_blank=False, id="game"
                )
                yield Label("Players")
                with Horizontal(id="counts"):
                    yield Select([(str(n), n) for n in range(2, 9)], value=s.players, allow_blank=False, id="players")
                    # How well the bots play, then how fast: "normal" in both said neither.
                    yield Label("Bots", id="speed-label")
                    yield Select(
                        [(f"{level.title()} bots", level) for level in LEVELS],
                        value=s.bot_level if s.bot_level in LEVELS else NORMAL,
                        allow_blank=False,
                        id="level",
                    )
                    yield Select(
                        [(f"{delay:g} s a move" if delay else "no wait", delay) for _label, delay in BOT_SPEEDS],
                        value=self._speed_value(),
                        allow_blank=False,
                        id="speed",
                    )
                yield Label("Options")
                with Horizontal(id="options-row"):
                    yield Static("", id="options-text")
                    yield Button("Options…", id="options")
            with Horizontal(id="actions"):
                yield Button("Play vs bots", id="play", variant="success")
                yield Button("Host", id="host", variant="primary")
                yield Button("Join", id="join", variant="primary")
                yield Button("Rules", id="rules")
                yield Button("Quit", id="quit", variant="error")
            yield Static("Tab moves between the fields, Enter chooses. Ctrl+P lists every action.", id="hint")
        yield Footer()

    def _speed_value(self) -> float:
        delays = [d for _l, d in BOT_SPEEDS]
        return min(delays, key=lambda d: abs(d - self.settings.bot_delay))

    def on_mount(self) -> None:
        self._show_options()
        self.query_one("#play", Button).focus()
        self.query_one("#name", Input).cursor_blink = self.quackbox.cursor_blink_enabled

    def _show_options(self) -> None:
        s = self.settings
        text = option_summary(s.game, s.options.get(s.game, {}))
        self.query_one("#options-text", Static).update(Text(text))

    # --- keeping the settings ------------------------------------------------------------

    def _save(self) -> None:
        self.quackbox.save_settings()

    @on(Input.Changed, "#name")
    def _name_changed(self, event: Input.Changed) -> None:
        self.settings.name = event.value.strip()[:MAX_NAME]

    @on(Input.Submitted, "#name")
    def _name_done(self) -> None:
        self.query_one("#play", Button).focus()

    @on(Select.Changed, "#game")
    def _game(self, event: Select.Changed) -> None:
        if isinstance(event.value, str) and event.value in games.GAMES:
            self.settings.game = event.value
            self._show_options()
            self._save()

    @on(Select.Changed, "#players")
    def _players(self, event: Select.Changed) -> None:
        if isinstance(event.value, int):
            self.settings.players = event.value
            self._save()

    @on(Select.Changed, "#level")
    def _level(self, event: Select.Changed) -> None:
        if event.value in LEVELS:
            self.settings.bot_level = str(event.value)
            self._save()

    @on(Select.Changed, "#speed")
    def _speed(self, event: Select.Changed) -> None:
        if isinstance(event.value, (int, float)):
            self.settings.bot_delay = float(event.value)
            self._save()

    # --- the choices -----------------------------------------------------------------------

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        action = {
            "play": self.action_play,
            "host": self.action_host,
            "join": self.action_join,
            "rules": self.action_rules,
            "options": self.action_options,
            "quit": self.app.exit,
        }
        handler = action.get(event.button.id or "")
        if handler is not None:
            handler()

    def _ready_name(self) -> bool:
        if not self.settings.name:
            self.app.notify("Type a name first: it is what the table calls you.", severity="warning")
            self.query_one("#name", Input).focus()
            return False
        self._save()
        return True

    def action_play(self) -> None:
        if self._ready_name():
            self.post_message(self.PlayChosen())

    def action_options(self) -> None:
        game = self.settings.game

        def kept(values: dict[str, Any] | None) -> None:
            if values is not None:
                self.settings.options[game] = values
                self._save()
                self._show_options()

        self.app.push_screen(OptionsScreen(game, self.settings.options.get(game, {})), kept)

    def action_host(self) -> None:
        if not self._ready_name():
            return
        s = self.settings
        summary = (
            f"{games.title(s.game)} for {s.players} players; seats nobody takes get bots at the start. "
            f"Options: {option_summary(s.game, s.options.get(s.game, {}))}."
        )

        def chosen(answer: tuple[int, bool] | None) -> None:
            if answer is not None:
                port, lan = answer
                s.host_port = port
                s.host_bind = "0.0.0.0" if lan else "127.0.0.1"
                self._save()
                self.post_message(self.HostChosen(port, lan))

        address = self.quackbox.lan_address or lan_address() or ""
        self.app.push_screen(
            HostScreen(
                s.host_port,
                s.host_bind != "127.0.0.1",
                summary,
                title=f"A table of {games.title(s.game)}",
                address=address,
            ),
            chosen,
        )

    def action_join(self, why: str = "", spectate: bool = False) -> None:
        """The Join dialog with the address and code last typed (``why``: a try that failed,
        said in the dialog, which opens again for it)."""
        if not self._ready_name():
            return
        s = self.settings

        def chosen(answer: tuple[str, str, bool] | None) -> None:
            if answer is not None:
                address, code, spectate = answer
                s.join_address, s.join_code = address, code
                self._save()
                self.post_message(self.JoinChosen(address, code, spectate))

        self.app.push_screen(JoinScreen(s.join_address, s.join_code, spectate=spectate, why=why), chosen)

    def action_rules(self) -> None:
        game = self.settings.game
        self.app.push_screen(rules_screen(game))
