"""The how-to-play card a person's very first game of each game opens with (tui.first_games says when)."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from quackbox.core import games
from quackbox.tui import rules_text


class HowToPlayScreen(ModalScreen[None]):
    """What a turn is, how to win and the keys a first game needs, before it is dealt.
    Any key closes it (the game is dealt then, so no bot moves while it is open)."""

    DEFAULT_CSS = """
    HowToPlayScreen { align: center middle; }
    HowToPlayScreen > Vertical { width: 76; max-width: 100%; height: auto; max-height: 100%;
                                 border: thick $accent; background: $panel; padding: 0 1; }
    HowToPlayScreen #how { width: 1fr; }
    HowToPlayScreen #go { width: 1fr; color: $text-muted; margin-top: 1; }
    """

    def __init__(self, game: str) -> None:
        super().__init__()
        self.game = game

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = Text(f"How to play {games.title(self.game)}")
            yield Static(Text.from_markup(rules_text.HOW_TO_PLAY[self.game]), id="how")
            yield Static(Text("Press any key to deal your first game."), id="go")

    def on_key(self, event: events.Key) -> None:
        event.stop()
        event.prevent_default()
        self.dismiss(None)

    def on_click(self) -> None:
        self.dismiss(None)


__all__ = ["HowToPlayScreen"]
