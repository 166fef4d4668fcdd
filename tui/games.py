"""What each game brings to the generic screens, behind one interface.

The table screen, the summary and the replay viewer are written once; each
game supplies a :class:`GameUI`: its board, the extra actions its table
offers (Side Effects' trades, Quack in the Box's money chart), what to keep
from each view for the end of the game, the summary's figures and the
rules text. They are registered here by game name and loaded on first use,
like the rules in :mod:`quackbox.core.games`.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from typing import TYPE_CHECKING, Any, Callable, Protocol, Sequence, TypeVar

from rich.console import RenderableType
from textual.binding import Binding

from quackbox.core import games

if TYPE_CHECKING:
    from textual.screen import Screen

    from quackbox.core.rules import Move
    from quackbox.net.protocol import View
    from quackbox.tui.board import Board, BoardView
    from quackbox.tui.clock import Clock
    from quackbox.tui.modals import ReadingScreen


@dataclass(frozen=True)
class GameAction:
    """One thing a game's table offers besides playing cards.

    It runs as the table screen's ``game('<name>')`` action, so it appears
    in the footer (with ``key``) and the command palette only while
    :meth:`GameUI.can` says it applies.
    """

    name: str
    """The action's name, passed to :meth:`GameUI.can` and :meth:`GameUI.run`."""
    title: str
    """Its name in the command palette."""
    help: str
    """Its line in the command palette."""
    key: str = ""
    """The key on the table screen; empty: palette only."""
    label: str = ""
    """Its word in the footer."""
    show: bool = True
    """Shown in the footer (when it applies)."""


class Record(Protocol):
    """What a table keeps from the views of one game, for the summary."""

    def see(self, message: View) -> None:
        """One view from the host, with the events and log lines that came with it."""


ViewT_contra = TypeVar("ViewT_contra", bound="BoardView", contravariant=True)
BoardT = TypeVar("BoardT", bound="Board[Any]")
RecordT = TypeVar("RecordT", bound=Record)
ViewT_co = TypeVar("ViewT_co", bound="BoardView", covariant=True)
BoardT_co = TypeVar("BoardT_co", bound="Board[Any]", covariant=True)
RecordT_co = TypeVar("RecordT_co", bound=Record, covariant=True)


class Table(Protocol[ViewT_co, BoardT_co, RecordT_co]):
    """The table as a game's actions see it: what it shows, and the few things
    they may do there (the table screen gives each game no more than this).
    Generic over the game's View, board and :class:`Record`."""

    @property
    def view(self) -> ViewT_co | None:
        """The latest view (None before the first)."""

    @property
    def names(self) -> tuple[str, ...]:
        """Every seat's name."""

    @property
    def board(self) -> BoardT_co:
        """The game's board widget."""

    @property
    def record(self) -> RecordT_co:
        """What the table keeps of this game (the game's own :class:`Record`)."""

    @property
    def announced(self) -> set[int]:
        """Things a game's announcements have told already (trade offers, by id)."""

    def send(self, move: Move) -> None:
        """Play ``move``, as if picked on the board (the table checks the connection first)."""

    def show(self, screen: Screen[Any], then: Callable[[Any], None] | None = None) -> None:
        """Open ``screen`` over the table; ``then`` gets what it closes with."""

    def tell(self, text: str, *, title: str = "", severity: str = "information", until: str = "") -> None:
        """A notice (plain text), held below the log's newest lines until the person's next
        key, or, named ``until``, until :meth:`untell` with that name."""

    def untell(self, until: str) -> None:
        """The notice named ``until`` is read, or no longer true: it joins the other lines."""


class GameUI(Protocol[ViewT_contra, BoardT, RecordT]):
    """One game as the generic screens need it, generic over the game's View, board
    and :class:`Record`: each game's module checks its ``UI`` against it with its own
    (``UI: GameUI[SEView, SEBoard, SERecord]``)."""

    @property
    def game(self) -> str:
        """The game's command-line name (``core.games``)."""

    @property
    def title(self) -> str: ...

    @property
    def actions(self) -> tuple[GameAction, ...]: ...

    def board(self, *, clock: Clock, id: str) -> BoardT:
        """A new board widget for this game."""

    def record(self) -> RecordT:
        """A new, empty record of one game."""

    def can(self, action: str, table: Table[ViewT_contra, BoardT, RecordT]) -> bool:
        """Whether ``action`` applies now at ``table``."""

    def run(self, action: str, table: Table[ViewT_contra, BoardT, RecordT]) -> None:
        """Do ``action`` at ``table``."""

    def announce(self, table: Table[ViewT_contra, BoardT, RecordT], message: View) -> None:
        """Tell the person what a new view brings that the board does not show (offers to answer)."""

    def summary(self, view: ViewT_contra, names: Sequence[str], record: RecordT) -> list[tuple[str, RenderableType]]:
        """The summary's parts after the headline, each with its widget id (``view``: the game is over)."""

    def rules(self) -> str:
        """The rules page, in Markdown."""


_MODULES: dict[str, str] = {
    games.SIDE_EFFECTS: "quackbox.tui.se_game",
    games.QUACK: "quackbox.tui.quack_game",
}
"""Each game's module; it holds ``UI``, its GameUI."""

AnyGameUI = GameUI[Any, Any, Any]
"""The GameUI of whichever game: what the generic screens hold (each game's own types
are checked where its ``UI`` is made)."""

_loaded: dict[str, AnyGameUI] = {}


def ui_modules() -> tuple[str, ...]:
    """Every game's table module, for whoever imports them ahead (a door's warm start)."""
    return tuple(_MODULES.values())


def ui_for(game: str) -> AnyGameUI:
    """The GameUI of ``game``; ValueError if no such game."""
    ui = _loaded.get(game)
    if ui is None:
        if game not in _MODULES:
            raise ValueError(f"unknown game {game!r}; choose from {', '.join(sorted(_MODULES))}")
        ui = _loaded[game] = import_module(_MODULES[game]).UI
    return ui


def every_ui() -> list[AnyGameUI]:
    return [ui_for(game) for game in _MODULES]


def action_bindings() -> list[Binding]:
    """The table screen's bindings for every game's keyed actions (each shown only
    at its own game's table, see ``TableScreen.check_action``)."""
    out = []
    seen: dict[str, str] = {}
    for ui in every_ui():
        for action in ui.actions:
            if not action.key:
                continue
            if action.key in seen:
                if seen[action.key] != action.name:
                    raise ValueError(f"key {action.key!r} is bound to both {seen[action.key]!r} and {action.name!r}")
                continue
            seen[action.key] = action.name
            out.append(Binding(action.key, f"game('{action.name}')", action.label or action.name, show=action.show))
    return out


def rules_screen(game: str) -> ReadingScreen:
    """The rules of ``game`` as a reading screen."""
    from quackbox.tui.modals import ReadingScreen

    ui = ui_for(game)
    return ReadingScreen(f"Rules: {ui.title}", ui.rules())
