"""What the two game boards share: the view they are given, picking a card
and aiming it, and sending the move.

A board renders the seat's view and offers only what ``view.legal`` lists;
each game says which legal moves belong to a card (:meth:`Board.moves_for`)
and draws its own table (:meth:`Board.refresh_table`).
"""

from __future__ import annotations

from typing import Generic, Protocol, Sequence, TypeVar

from rich.text import Text
from textual.containers import Vertical
from textual.reactive import var

from quackbox.core.rules import Event, GameView, Move
from quackbox.net.protocol import LogLine
from quackbox.tui.clock import WALL, Clock
from quackbox.tui.names import seat_name
from quackbox.tui.widgets import MovePicked, PromptBar


class HeldCard(Protocol):
    """A card in a hand, as a board picks it: by its id."""

    @property
    def id(self) -> int: ...


class BoardView(GameView, Protocol):
    """What a board reads of every game's view; the rest is its game's own."""

    @property
    def hand(self) -> Sequence[HeldCard]:
        """The seat's hand (empty for a spectator)."""


ViewT = TypeVar("ViewT", bound=BoardView)


class Board(Vertical, Generic[ViewT], can_focus=True):
    """The table of one game for one seat, showing that game's views (``ViewT``).

    The board draws nothing itself: its attributes are ``var`` (no repaint of
    their own), and the parts they are handed down to repaint what changed.
    """

    view: var[ViewT | None] = var(None, always_update=True)
    """The seat's current view from the host."""
    names: var[tuple[str, ...]] = var(())
    """Every seat's name (plain text, from the host)."""
    away: var[frozenset[int]] = var(frozenset())
    """Seats whose person is away."""
    selected: var[int | None] = var(None)
    """The id of the picked card in hand, if any."""
    target: var[int] = var(0)
    """Which of the picked card's moves is aimed at."""
    pending: var[frozenset[int]] = var(frozenset())
    """Cards sent as discards that the host has not confirmed yet."""
    deadline_at: var[float | None] = var(None)
    """When the running countdown ends (the host enforces it; this only shows it)."""
    closed: var[str] = var("")
    """Why the table has closed and what to do now, once it has (the prompt says it, and no
    key plays a card any more); empty while it is open."""

    _ready = False
    """Mounted: the parts to refresh exist."""
    watch_only = False
    """Shown to someone who only watches (a replay): the prompt names the seat, not keys to press."""
    auto_pass = True
    """The person's setting: a response window waiting on them passes by itself (a board that has them)."""
    bell = True
    """The person's setting: ring the bell when a short countdown opens for them."""

    def __init__(self, *, clock: Clock = WALL, id: str | None = None) -> None:
        super().__init__(id=id)
        self.clock = clock

    def on_mount(self) -> None:
        self._ready = True
        if self.view is not None:
            self._before_first_refresh()
            self.query_one("#prompt", PromptBar).deadline_at = self.deadline_at
            self.refresh_table()

    def _before_first_refresh(self) -> None:
        """Lay out what depends on the first view (the opponents' panels, say)."""

    def refresh_table(self) -> None:
        raise NotImplementedError

    def status_text(self, room: int | None = None) -> Text:
        """The game's part of the status line, said as fully as ``room`` cells allow."""
        raise NotImplementedError

    def receive_events(self, events: tuple[Event, ...], log: tuple[LogLine, ...]) -> None:
        """The events (redacted for this seat) that came with the next view, and
        the host's lines for them, for a board that tells the person about some
        of them (a notice)."""

    # --- derived facts ---------------------------------------------------------------

    @property
    def me(self) -> int | None:
        return self.view.seat if self.view is not None else None

    def hand(self) -> Sequence[HeldCard]:
        return self.view.hand if self.view is not None else ()

    def moves_for(self, card: int | None) -> list[Move]:
        """The legal moves that play ``card``, in the order the host gave them."""
        raise NotImplementedError

    def options(self) -> list[Move]:
        return self.moves_for(self.selected)

    def aimed(self) -> Move | None:
        options = self.options()
        return options[self.target % len(options)] if options else None

    def legal_has(self, move: Move) -> bool:
        return self.view is not None and move in self.view.legal

    def seat_name(self, seat: int) -> str:
        return seat_name(self.names, seat)

    # --- watchers ----------------------------------------------------------------------

    def watch_names(self) -> None:
        self.refresh_table()

    def watch_away(self) -> None:
        self.refresh_table()

    def watch_target(self) -> None:
        self.refresh_table()

    def watch_closed(self) -> None:
        self.selected = None
        self.deadline_at = None
        self.refresh_table()
        self.screen.refresh_bindings()

    def prompt(self) -> Text:
        """What the prompt bar says: the game's prompt, or that the table has closed."""
        if self.closed and (self.view is None or self.view.outcome is None):
            return Text(self.closed, style="bold")
        return self.prompt_text()

    def prompt_text(self) -> Text:
        """The game's own prompt for the view."""
        raise NotImplementedError

    def can_act(self) -> bool:
        """Whether this seat may pick and play cards at all (a seat, at a table still open)."""
        return self.view is not None and self.view.seat is not None and not self.closed

    # --- the keys ----------------------------------------------------------------------

    def action_pick(self, number: int) -> None:
        if 1 <= number <= len(self.hand()):
            self.pick_index(number - 1)

    def pick_index(self, index: int) -> None:
        card = self.hand()[index]
        self.selected = None if self.selected == card.id else card.id

    def action_step_card(self, step: int) -> None:
        ids = [c.id for c in self.hand() if c.id not in self.pending]
        if not ids:
            return
        if self.selected not in ids:
            self.selected = ids[0] if step > 0 else ids[-1]
        else:
            self.selected = ids[(ids.index(self.selected) + step) % len(ids)]

    def action_step_target(self, step: int) -> None:
        options = self.options()
        if options:
            self.target = (self.target + step) % len(options)

    def action_cancel(self) -> None:
        self.selected = None

    def card_clicked(self, index: int) -> None:
        """A card of the hand was clicked: pick it as its number key would."""
        self.focus()
        if 0 <= index < len(self.hand()):
            self.pick_index(index)

    def _send(self, move: Move) -> None:
        self.selected = None
        self.post_message(MovePicked(move))
