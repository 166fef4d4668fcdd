"""What the screens ask of the app they run in, as one typed seam.

The table, the lobby and the home screen call a few methods of the quackbox
app (send a move, leave the table, save the settings). They cannot import
:class:`quackbox.tui.app.QuackboxApp` to name its type: the app imports them,
and imports in tui/ run one way, types included. So they name
:class:`ScreensApp`, which ``tui/app.py`` checks QuackboxApp against.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, cast

if TYPE_CHECKING:
    from textual.message_pump import MessagePump

    from quackbox.core.rules import Move
    from quackbox.tui.config import Settings
    from quackbox.tui.session import Session


class ScreensApp(Protocol):
    """The app as its screens see it: the person's settings, the table it is at, and
    what the screens may ask of it there."""

    @property
    def settings(self) -> Settings:
        """The person's settings (a screen may change them, then :meth:`save_settings`)."""

    @property
    def session(self) -> Session | None:
        """The table the app is at, if any."""

    @property
    def cursor_blink_enabled(self) -> bool:
        """Whether text boxes blink their cursor (tests turn it off)."""

    @property
    def lan_address(self) -> str | None:
        """This machine's address on the local network, if the app was given one."""

    def save_settings(self) -> None: ...

    def set_ascii(self, on: bool) -> None:
        """Draw with ASCII only, or not (and remember it)."""

    def give_up_connecting(self) -> None: ...

    def send_move(self, move: Move, seq: int) -> None:
        """Send ``move``, made from the view numbered ``seq``."""

    def send_chat(self, text: str) -> None: ...

    def send_ready(self, ready: bool) -> None: ...

    def send_start(self) -> None: ...

    def keep_order(self) -> None:
        """The host's list of people, to remove one or mute their chat."""

    def can_play_again(self) -> bool: ...

    def can_return_to_lobby(self) -> bool: ...

    def play_again(self) -> None: ...

    def back_to_lobby(self) -> None: ...

    def leave_table(self, then_quit: bool = False) -> None:
        """Close the session and go back home (``then_quit``, or with no home: quit)."""


def screens_app(node: MessagePump) -> ScreensApp:
    """The app ``node`` runs in, as its screens see it.

    Every screen of quackbox runs in the quackbox app, which ``tui/app.py``
    checks is a :class:`ScreensApp`; Textual types ``node.app`` as any App,
    so this is the one place that says which.
    """
    return cast("ScreensApp", node.app)
