"""Stand-ins for a table, so TUI tests can feed the app exactly the views they want.

:class:`FakeSession` has the members the app uses of :class:`quackbox.tui.session.Session`;
the test pushes host messages into it and reads back what the app sent.
:class:`RulesTable` is a FakeSession with the real rules behind it: moves are
applied to a real State (stacked by the test), refused moves come back as the
host's ``error`` message with the rules' sentence, and every change sends a
fresh view, exactly as the host would. Other seats act through
:meth:`RulesTable.act`. No sockets, no bots, no clock unless asked.
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, Awaitable, Callable, Sequence

from rich.console import Console

from quackbox.core.rules import Move, RulesError
from quackbox.net.protocol import (
    ChatLine,
    DeadlineInfo,
    Error,
    ErrorCode,
    Lobby,
    LogLine,
    ProtocolError,
    SeatInfo,
    Started,
    View,
)
from quackbox.tui.clock import Clock
from quackbox.tui.terminal import full_update, placements, repaint_pending

_END = object()


class FakeSession:
    """What the app needs of a Session, fed by the test."""

    def __init__(
        self,
        game: str,
        *,
        seat: int | None = 0,
        mode: str = "local",
        title: str = "",
        starter: bool = True,
        room_code: str | None = None,
        address: str = "this machine",
        ssh_door: str | None = None,
        web_link: str | None = None,
    ) -> None:
        self.game = game
        self.seat = seat
        self.mode = mode
        self.title = title or {"side-effects": "Side Effects", "quack": "Quack in the Box"}.get(game, game)
        self.starter = starter
        self.room_code = room_code
        self.address = address
        self.ssh_door = ssh_door
        self.web_link = web_link
        self.token = "token"
        self.host: Any = None
        """The host in this process (none: the test is the host)."""
        self.queue: asyncio.Queue[Any] = asyncio.Queue()
        self.sent: list[tuple[str, Any]] = []
        self.closed = False

    @property
    def moves(self) -> list[Move]:
        return [args[0] for kind, args in self.sent if kind == "move"]

    def push(self, message: Any) -> None:
        self.queue.put_nowait(message)

    def end(self) -> None:
        self.queue.put_nowait(_END)

    async def messages(self):
        while True:
            item = await self.queue.get()
            if item is _END:
                return
            if isinstance(item, BaseException):
                raise item
            yield item

    async def move(self, move: Move, seq: int | None = None) -> None:
        self.sent.append(("move", (move, seq)))

    async def chat(self, text: str) -> None:
        self.sent.append(("chat", (text,)))

    async def ready(self, ready: bool = True) -> None:
        self.sent.append(("ready", (ready,)))

    async def start(self) -> None:
        self.sent.append(("start", ()))

    async def remove(self, name: str) -> None:
        self.sent.append(("remove", (name,)))

    async def mute(self, name: str, muted: bool = True) -> None:
        self.sent.append(("mute", (name, muted)))

    async def close(self) -> None:
        self.closed = True
        self.end()


def lobby_of(
    names: Sequence[str],
    *,
    started: bool = True,
    over: bool = False,
    starter: int = 0,
    kinds: Sequence[str] | None = None,
    ready: Sequence[bool] | None = None,
    away: Sequence[int] = (),
) -> Lobby:
    kinds = list(kinds or ["human"] + ["bot"] * (len(names) - 1))
    ready = list(ready or [k == "bot" for k in kinds])
    return Lobby(
        started=started,
        over=over,
        starter=starter,
        seats=tuple(
            SeatInfo(seat=i, name=n, kind=kinds[i], connected=kinds[i] != "open", ready=ready[i], away=i in away)
            for i, n in enumerate(names)
        ),
        spectators=0,
    )


class RulesTable(FakeSession):
    """A FakeSession backed by the real rules and a State the test stacked."""

    def __init__(
        self,
        rules: Any,
        state: Any,
        *,
        seat: int = 0,
        names: Sequence[str] | None = None,
        deadlines: bool = False,
        grace: float = 0.0,
        **kwargs: Any,
    ) -> None:
        super().__init__(rules.name, seat=seat, **kwargs)
        self.rules = rules
        self.state = state
        self.names = tuple(names or [f"Bot {i + 1}" if i != seat else "Ann" for i in range(state.seats)])
        self.seq = 0
        self.deadlines = deadlines
        self.grace = grace
        self._timer: asyncio.TimerHandle | None = None
        self.applied: list[tuple[int, Move]] = []

    def begin(self, *, lobby: Lobby | None = None, events: Sequence[Any] = ()) -> None:
        """Send what the host sends when a game starts: lobby, started, the first view."""
        self.push(lobby or lobby_of(self.names))
        self.push(Started(names=self.names))
        self.push(self.view_message(events))
        self._arm()

    def view_message(self, events: Sequence[Any] = ()) -> View:
        rules, seat = self.rules, self.seat
        seen = [e for e in (rules.redact(ev, seat) for ev in events) if e is not None]
        log = tuple(
            LogLine(text=text, kind=rules.line_kind(e, seat), event=i)
            for i, e in enumerate(seen)
            if (text := rules.describe(e, self.names, seat))
        )
        deadline = rules.deadline(self.state)
        info = (
            DeadlineInfo(seat=deadline.seat, kind=deadline.kind, seconds=deadline.seconds)
            if deadline is not None
            else None
        )
        return View(seq=self.seq, view=rules.view(self.state, seat), events=tuple(seen), log=log, deadline=info)

    def resend(self) -> None:
        """A fresh view of the state as it is now (after the test changed it by hand)."""
        self.seq += 1
        self.push(self.view_message())

    async def move(self, move: Move, seq: int | None = None) -> None:
        await super().move(move, seq)
        self.apply(self.seat, move)

    def act(self, seat: int, move: Move) -> list[Any]:
        """Another seat makes ``move`` (the test plays the other side of the table)."""
        return self.apply(seat, move)

    def apply(self, seat: int, move: Move) -> list[Any]:
        try:
            events = self.rules.apply(self.state, seat, move)
        except RulesError as exc:
            if seat == self.seat:
                error = ProtocolError.from_rules(exc)
                self.push(Error(code=error.code.value, message=error.message, refused="move"))
                return []
            raise
        self.applied.append((seat, move))
        self.seq += 1
        self.push(self.view_message(events))
        self._arm()
        return events

    def say(self, seat: int, text: str) -> None:
        self.push(ChatLine(seat=seat, name=self.names[seat], text=text))

    def _arm(self) -> None:
        """Run the rules' deadline like the host: its timeout move when the time is up."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        deadline = self.rules.deadline(self.state)
        if not self.deadlines or deadline is None:
            return
        loop = asyncio.get_running_loop()
        seq = self.seq
        self._timer = loop.call_later(deadline.seconds + self.grace, self._expire, seq, deadline)

    def _expire(self, seq: int, deadline: Any) -> None:
        self._timer = None
        if self.seq == seq:
            self.apply(deadline.seat, deadline.timeout)

    async def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        await super().close()


def opener_for(session: FakeSession) -> Callable[[], Awaitable[FakeSession]]:
    async def opener() -> FakeSession:
        return session

    return opener


def screen_text(app: Any) -> str:
    """The screen as plain text, one line per row (what a person would read)."""
    width, height = app.size
    console = Console(
        width=width,
        height=height,
        file=io.StringIO(),
        force_terminal=True,
        color_system=None,
        record=True,
        legacy_windows=False,
        safe_box=False,
    )
    console.print(full_update(app))
    lines = console.export_text().split("\n")[:height]
    return "\n".join(line.rstrip() for line in lines)


def notices(app: Any) -> list[str]:
    """The notices told at the table so far, as "title: text" (a line of its log, held until read)."""
    screen = app.table_screen
    return [f"{title}: {text}" if title else text for title, text, _severity in (screen.notices if screen else [])]


def flat(text: str) -> str:
    """``text`` with its line breaks and runs of spaces made single spaces (for wrapped sentences)."""
    return " ".join(text.split())


class ManualClock(Clock):
    """A clock the test moves (``make_app(clock=...)``): countdowns, the response window
    that passes by itself and the pause before the summary keep its time, and their
    timers fire only when :meth:`advance` passes them, so a test sees in no time what
    a minute brings, or that a few seconds brought nothing."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now
        self._timers: list[_Timer] = []

    def __call__(self) -> float:
        return self.now

    def start(self, owner: Any, seconds: float, callback: Callable[[], None], *, repeat: bool) -> _Timer:
        return self._add(_Timer(owner, self.now + seconds, seconds if repeat else None, callback))

    def _add(self, timer: _Timer) -> _Timer:
        self._timers.append(timer)
        return timer

    def advance(self, seconds: float) -> None:
        """Move the time on by ``seconds``, firing each timer due on the way, in order
        (an interval once per period), as its widget's timer would."""
        end = self.now + seconds
        while True:
            due = [t for t in self._timers if not t.stopped and t.owner.is_running and t.at <= end]
            if not due:
                break
            timer = min(due, key=lambda t: t.at)
            self.now = max(self.now, timer.at)
            if timer.period is None:
                timer.stopped = True
            else:
                timer.at += timer.period
            timer.callback()
        self.now = end
        self._timers = [t for t in self._timers if not t.stopped]


class _Timer:
    def __init__(self, owner: Any, at: float, period: float | None, callback: Callable[[], object]) -> None:
        self.owner, self.at, self.period, self.callback = owner, at, period, callback
        self.stopped = False

    def stop(self) -> None:
        self.stopped = True


async def wait_for(pilot: Any, predicate: Callable[[], Any], *, timeout: float = 30.0, what: str = "") -> Any:
    """Let the app run until ``predicate()`` is true; fail with ``what`` after ``timeout`` seconds."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if loop.time() > end:
            raise AssertionError(f"timed out waiting for {what or predicate}\n{screen_text(pilot.app)}")
        # ``predicate`` is any condition of the app, which tells nobody when it changes: it is
        # asked again a fiftieth of a second on (a pause with no delay returns at once when
        # the app is idle, so polling with it would spin).
        await pilot.pause(0.02)


async def settled(pilot: Any, app: Any) -> None:
    """Let a resize under way settle and its one frame be painted."""
    await wait_for(pilot, lambda: not app.resizing, what="the resize to settle")
    await pilot.pause()


async def drawn(pilot: Any) -> None:
    """Let all that is under way reach the screen: the messages sent so far handled, a
    resize settled, and every repaint asked for painted (so the frames written from
    here on are those of what the test does next)."""
    app = pilot.app
    await pilot.pause()
    await wait_for(pilot, lambda: not app.resizing and not repaint_pending(app), what="the screen to be painted")


def error_code(name: str) -> str:
    return ErrorCode(name).value


def quack_table(
    seats: int = 3,
    *,
    hands: dict[int, Sequence[str]] | None = None,
    patients: dict[int, str] | None = None,
    first: int = 0,
    window_seconds: float = 0.0,
    seed: int = 0,
    **options: Any,
) -> Any:
    """A dealt Quack game, ``first`` to decide whether to flee, with hands and Patients rearranged
    by card name (the cards are taken from the decks, so every card stays in one place)."""
    from quackbox.core import quack as q
    from quackbox.core.quack import RULES

    options = {"first_seat": first, "window_seconds": window_seconds, **options}
    state = RULES.new_game(seats=seats, options=options, seed=seed)
    cards = RULES.cards

    def take(name: str, piles: Sequence[list[int]]) -> int:
        for pile in piles:
            for c in pile:
                if cards[c].name == name:
                    pile.remove(c)
                    return c
        raise ValueError(f"no free {name!r}")

    for seat, names in (hands or {}).items():
        old = state.hands[seat]
        state.hands[seat] = []
        state.doc_deck[0:0] = old
        state.hands[seat] = [take(n, (state.doc_deck, state.doc_discard, *state.hands)) for n in names]
    for seat, name in (patients or {}).items():
        state.doctors[seat].case = q.Case(take(name, (state.patient_deck, state.patient_discard)))
    return state


def advance(rules: Any, state: Any, *, until: Callable[[Any], bool], seed: int = 1, limit: int = 5000) -> Any:
    """Play heuristic bots at every seat until ``until(state)`` holds (or the game ends)."""
    from quackbox.core import bots as core_bots
    from quackbox.core.play import next_move

    players = [core_bots.make(rules.name, "heuristic", seed + s) for s in range(state.seats)]
    for _ in range(limit):
        if until(state) or rules.outcome(state) is not None:
            return state
        seat, move = next_move(rules, state, players)
        rules.apply(state, seat, move)
    raise AssertionError("the game never reached the wanted state")


def clipped_widgets(app: Any) -> list[str]:
    """Widgets on screen that do not fit: outside the screen, or cut off by their container.

    Scrolling containers (the log, option lists, the rules page) may hold more than
    they show: that is what they are for, so their insides are not counted.
    """
    from textual.containers import ScrollableContainer
    from textual.widgets import OptionList, RichLog, SelectionList

    screen = app.screen
    area = screen.region
    scrollers = (RichLog, OptionList, SelectionList, ScrollableContainer)
    problems = []
    for widget, (region, clip) in placements(screen).items():
        if widget is screen or not widget.display:
            continue
        if region.width == 0 or region.height == 0:
            continue
        if any(isinstance(a, scrollers) for a in widget.ancestors if a is not screen):
            continue
        name = f"{type(widget).__name__}#{widget.id}" if widget.id else type(widget).__name__
        if not area.contains_region(region):
            problems.append(f"{name} at {region} is outside the screen {area}")
        elif not clip.contains_region(region):
            problems.append(f"{name} at {region} is cut off by its container ({clip})")
    return problems


async def opened(pilot: Any) -> Any:
    """Wait until the table screen holds its first view; the game's board."""
    app = pilot.app
    await wait_for(
        pilot, lambda: app.table_screen is not None and app.table_screen.view is not None, what="the table to open"
    )
    await pilot.pause()
    return app.table_screen.board


@asynccontextmanager
async def at_table(app: Any, session: Any, size: tuple[int, int]) -> AsyncIterator[tuple[Any, Any]]:
    """``app`` run headless at ``size`` with ``session`` begun, from the moment
    its table holds the first view: (pilot, the game's board)."""
    async with app.run_test(size=size) as pilot:
        session.begin()
        yield pilot, await opened(pilot)


async def press_card(pilot: Any, board: Any, name: str) -> None:
    """Press the number key of the card called ``name`` in the board's hand."""
    names = [c.name for c in board.view.hand]
    await pilot.press(str(names.index(name) + 1))
