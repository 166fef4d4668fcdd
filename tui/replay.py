"""``quackbox replay FILE``: a saved game, one move at a time, every hand visible.

The journal is played once through the rules to find each move's events and
where each turn begins; moving to any point replays the journal from the
start (a few milliseconds even for long games), so there is no second copy
of the rules' state to keep in step. The board is the game's own table widget,
seen from one seat at a time (``v`` switches); a panel beside it shows every
hand, and the log shows what happened up to this point.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Protocol, Sequence

from rich.text import Text
from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Input, Static

from quackbox.core import games
from quackbox.core.rules import AnyRules, Event
from quackbox.net import journal as jn
from quackbox.tui.board import Board
from quackbox.tui.clock import WALL, while_alive
from quackbox.tui.games import ui_for
from quackbox.tui.modals import ReadingScreen
from quackbox.tui.widgets import GameLog, MovePicked, StatusBar

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel


@dataclass(frozen=True)
class Step:
    """One journalled move: who made it, and the sentences it produced."""

    seat: int
    lines: tuple[str, ...]
    turn: int
    """The turn number in force after this move (TurnStarted events counted)."""


class Replay:
    """A journal, made navigable: the State after any number of moves."""

    def __init__(self, record: jn.Journal) -> None:
        self.record = record
        header = record.header
        self.rules = games.get(header.game)
        self.names = header.names
        steps = jn.replay(record)
        _state, start_events = next(steps)
        self.opening = self._lines(start_events)
        self.steps: list[Step] = []
        turn = self.first_turn = max(1, sum(1 for e in start_events if type(e).__name__ == "TurnStarted"))
        for (seat, _move), (_state, events) in zip(record.moves, steps):
            turn += sum(1 for e in events if type(e).__name__ == "TurnStarted")
            self.steps.append(Step(seat, self._lines(events), turn))

    def _lines(self, events: Iterable[Event]) -> tuple[str, ...]:
        """The log lines of ``events`` as a spectator read them (an event with no sentence makes none)."""
        return tuple(line for e in events if (line := self.rules.describe(e, self.names, None)))

    def state_at(self, index: int) -> Any:
        """The State after the first ``index`` moves (of whichever game, as :data:`AnyRules` takes it)."""
        return jn.rebuild(self.record, index)

    @property
    def turns(self) -> int:
        return self.steps[-1].turn if self.steps else 1

    def start_of(self, turn: int) -> int:
        """The position at which ``turn`` has just begun (0 for the first turn)."""
        if turn <= self.turn_at(0):
            return 0
        for index, step in enumerate(self.steps):
            if step.turn >= turn:
                return index + 1
        return len(self.steps)

    def turn_at(self, index: int) -> int:
        """The turn in force after ``index`` moves."""
        return self.steps[index - 1].turn if index > 0 else self.first_turn


class Named(Protocol):
    @property
    def name(self) -> str: ...


class Dealt(Protocol):
    """What a replay reads of either game's State to show every hand."""

    @property
    def hands(self) -> Sequence[Sequence[int]]:
        """Each seat's hand, as card ids."""

    @property
    def cards(self) -> Sequence[Named]:
        """Every card of the game, by id."""


def hands_text(rules: AnyRules, state: Dealt, names: tuple[str, ...]) -> Text:
    """Every hand, which only a replay may show."""
    text = Text()
    for seat, hand in enumerate(state.hands):
        text.append(f"{names[seat]}", style="bold")
        text.append(f" ({len(hand)})\n")
        cards = ", ".join(state.cards[c].name for c in hand) or "no cards"
        text.append(f"  {cards}\n", style="dim" if not hand else "")
    return text


class ReplayScreen(Screen[None]):
    """The board, every hand, and the log, at one point of the game."""

    DEFAULT_CSS = """
    ReplayScreen { layout: vertical; }
    ReplayScreen #main { height: 1fr; }
    ReplayScreen #board { width: 1fr; }
    ReplayScreen #side { width: 32; border-left: vkey $panel-lighten-2; }
    ReplayScreen #hands { height: auto; padding: 0 1; }
    ReplayScreen #log { border-top: hkey $panel-lighten-2; }
    ReplayScreen #jump { display: none; height: 1; border: none; padding: 0 1; }
    ReplayScreen #jump.-open { display: block; }
    ReplayScreen #keys { height: 1; background: $panel; }
    """

    AUTO_FOCUS = None

    BINDINGS = [
        Binding("right,l", "step(1)", "next move"),
        Binding("left,h", "step(-1)", "back"),
        Binding("down,n", "turn(1)", "next turn"),
        Binding("up,p", "turn(-1)", "turn back"),
        Binding("home", "go(0)", "start", show=False),
        Binding("end", "go_end", "end", show=False),
        Binding("g", "jump", "go to turn"),
        Binding("v", "viewpoint", "seat"),
        Binding("question_mark", "help", "keys", key_display="?"),
        Binding("q", "quit_replay", "quit"),
    ]

    KEYS_LINE = " ← → move · ↑ ↓ turn · g go to turn · v seat · ? keys · q quit"

    position: reactive[int] = reactive(0)
    """How many moves of the journal have been played."""
    viewpoint: reactive[int] = reactive(0)
    """The seat whose view the board shows."""

    def __init__(self, replay: Replay) -> None:
        super().__init__()
        self.replay = replay

    def compose(self) -> ComposeResult:
        yield StatusBar(id="status")
        with Horizontal(id="main"):
            yield ui_for(self.replay.rules.name).board(clock=WALL, id="board")
            with Vertical(id="side"):
                yield Static(id="hands")
                yield GameLog(id="log")
        # Disabled while hidden, so it never holds the focus the arrows need.
        yield Input(placeholder="Go to turn (Enter goes, Esc cancels)", id="jump", type="integer", disabled=True)
        yield Static(self.KEYS_LINE, id="keys")

    @property
    def board(self) -> Board[Any]:
        """The game's own board (of whichever game the journal holds)."""
        return self.query_one("#board", Board)

    def on_mount(self) -> None:
        board = self.board
        # The arrows step through the game; the board only shows it.
        board.can_focus = False
        board.watch_only = True
        # Nothing here plays: no window passes by itself, no bell rings for a Tremors replayed.
        board.auto_pass = False
        board.bell = False
        self.query_one("#log", GameLog).can_focus = False
        board.names = self.replay.names
        self.set_focus(None)
        # After the first layout, so the log wraps at its real width.
        self.call_after_refresh(while_alive(self, self._show))

    def watch_position(self) -> None:
        if self.is_mounted:
            self._show()

    def watch_viewpoint(self) -> None:
        if self.is_mounted:
            self._show()

    def _show(self) -> None:
        replay = self.replay
        rules = replay.rules
        state = replay.state_at(self.position)
        board = self.board
        board.view = rules.view(state, self.viewpoint)
        hands = self.query_one("#hands", Static)
        text = hands_text(rules, state, replay.names)
        hands.update(text)
        # Sized by hand: an auto height was not recomputed here when the text grew.
        width = max(1, hands.content_size.width or 28)
        lines = len(text.wrap(self.app.console, width)) + 1
        # Every hand whole when it can be; the log below keeps a few lines.
        hands.styles.height = min(lines, max(3, self.size.height - 8))
        log = self.query_one("#log", GameLog)
        log.clear()
        for line in replay.opening:
            log.write(Text(line, style="dim"))
        for index, step in enumerate(replay.steps[: self.position]):
            # The last move's lines stand out: that is the move just stepped over.
            for line in step.lines:
                log.write(Text(line, style="bold" if index == self.position - 1 else ""))
        total = len(replay.steps)
        outcome = rules.outcome(state)
        status = Text()
        status.append(f" Replay of {rules.title}", style="bold")
        status.append(f" · move {self.position}/{total} · turn {replay.turn_at(self.position)}/{replay.turns}")
        status.append(f" · as {replay.names[self.viewpoint]}")
        if outcome is not None:
            status.append(" · game over", style="bold")
        self.query_one("#status", StatusBar).update(status)

    # --- navigation ------------------------------------------------------------------

    def action_step(self, delta: int) -> None:
        self.position = max(0, min(len(self.replay.steps), self.position + delta))

    def action_go(self, index: int) -> None:
        self.position = max(0, min(len(self.replay.steps), index))

    def action_go_end(self) -> None:
        self.position = len(self.replay.steps)

    def action_turn(self, delta: int) -> None:
        """To the start of the next turn; back to the start of this one, or the one before."""
        replay = self.replay
        turn = replay.turn_at(self.position)
        if delta > 0:
            target = replay.start_of(turn + 1)
        elif self.position > replay.start_of(turn):
            target = replay.start_of(turn)
        else:
            target = replay.start_of(turn - 1)
        self.position = max(0, min(len(replay.steps), target))

    def action_viewpoint(self) -> None:
        self.viewpoint = (self.viewpoint + 1) % len(self.replay.names)

    def action_jump(self) -> None:
        box = self.query_one("#jump", Input)
        box.disabled = False
        box.add_class("-open")
        box.value = ""
        box.focus()

    @on(Input.Submitted, "#jump")
    def _jump_to(self, event: Input.Submitted) -> None:
        box = event.input
        self._close_jump(box)
        try:
            turn = int(event.value)
        except ValueError:
            self.tell("Type a turn number.")
            return
        if not 1 <= turn <= self.replay.turns:
            self.tell(f"This game has turns 1 to {self.replay.turns}.")
            return
        self.position = self.replay.start_of(turn)

    def key_escape(self) -> None:
        box = self.query_one("#jump", Input)
        if box.has_class("-open"):
            self._close_jump(box)

    def _close_jump(self, box: Input) -> None:
        box.remove_class("-open")
        box.disabled = True
        self.set_focus(None)

    @on(MovePicked)
    def _no_moves(self, event: MovePicked) -> None:
        # The board offers the viewpoint seat's moves; a replay makes none.
        event.stop()
        self.tell("This is a replay: ← → step through it, g goes to a turn.")

    def tell(self, text: str) -> None:
        """A notice, in the keys line until the next key (a toast would sit on the log)."""
        self.query_one("#keys", Static).update(Text(f" {text}", style="bold"))

    def on_key(self) -> None:
        self.query_one("#keys", Static).update(self.KEYS_LINE)

    def action_help(self) -> None:
        self.app.push_screen(ReadingScreen("Replay keys", REPLAY_KEYS))

    def action_quit_replay(self) -> None:
        self.app.exit(0)


REPLAY_KEYS = """\
A saved game, one move at a time, with every hand shown. Nothing here plays a card.

- **→** or **l** the next move · **←** or **h** the move before
- **↓** or **n** the next turn · **↑** or **p** back to the start of this turn, or the one before
- **Home** the deal · **End** the last move
- **g** go to a turn (type its number, Enter goes, Esc cancels)
- **v** see the table from the next seat
- **?** these keys · **q** quit
"""


class ReplayApp(App[int]):
    """The replay viewer on its own."""

    TITLE = "quackbox replay"

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Said in the replay's keys line, not as a toast over its log."""
        screen = self.screen
        if isinstance(screen, ReplayScreen):
            screen.tell(f"{title}: {message}" if title else str(message))
        else:
            super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    def __init__(self, record: jn.Journal) -> None:
        super().__init__()
        self.replay = Replay(record)

    def on_mount(self) -> None:
        self.push_screen(ReplayScreen(self.replay))


def run_replay(record: jn.Journal) -> int:
    """``quackbox replay FILE``."""
    result = ReplayApp(record).run()
    return result if isinstance(result, int) else 0


__all__ = ["Replay", "ReplayApp", "ReplayScreen", "run_replay"]
