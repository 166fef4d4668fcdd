"""The table: one game session with its lobby and its bots, as a state machine with no IO.

:class:`Table` is the whole host minus the sockets and the clock: frames go in
(:meth:`Table.receive`) with the time they arrived, and what to send comes out
as a list of actions (:class:`Send`, :class:`Close`, and the journal records
that must be on disk before what follows them is sent). The asyncio shell in
:mod:`quackbox.net.host` only moves bytes and calls :meth:`Table.tick` when
:meth:`Table.next_wakeup` says so. So every rule of the table (who may join,
who may start, stale moves, deadlines, bots standing in for away seats, rate
limits, what each seat may see) is tested without a network, and the leak
test can check every frame the host would send.

The table holds the game session itself (dealing, the State, applying
moves, the rules' deadlines, and each seat's view after every change) and
hands the rest to its parts: :class:`quackbox.net.lobby.Lobby` (the connections,
joining, leaving, getting ready, chat) with :class:`quackbox.net.seats.Seats` (who
holds each seat, tokens, names, presence), :mod:`quackbox.net.limits` (how fast a
connection may talk) and :class:`quackbox.net.bot_driver.BotDriver` (bots, their
pacing, and stand-ins for people who are away).

Hidden information leaves only through :meth:`Rules.view` for the receiving
seat and events passed through :meth:`Rules.redact` for that seat.
"""

from __future__ import annotations

import dataclasses
import logging
import secrets
from collections import deque
from dataclasses import dataclass
from typing import Any

from quackbox.core import games
from quackbox.core import options as core_options
from quackbox.core.rules import AnyRules, Deadline, Event, LineKind, Move, Outcome, RulesError
from quackbox.net.actions import Action, Close, JournalEnd, JournalMove, JournalNote, JournalStart, Send
from quackbox.net.bot_driver import BotDriver
from quackbox.net.config import TableConfig
from quackbox.net.journal import Header, Journal, rebuild
from quackbox.net.limits import Rate, TokenBucket, TurnBudget
from quackbox.net.lobby import CLOSE_NORMAL, LOBBY, OVER, PLAYING, Lobby, Peer
from quackbox.net.order import Order
from quackbox.net.protocol import (
    BOT,
    HUMAN,
    Bye,
    ClientMessage,
    DeadlineInfo,
    ErrorCode,
    Hello,
    LogLine,
    MoveMessage,
    Mute,
    Paused,
    ProtocolError,
    Ready,
    Remove,
    Say,
    Start,
    Started,
    View,
    Wire,
)
from quackbox.net.seats import Seat, Seats

__all__ = [
    "LOBBY",
    "OVER",
    "PLAYING",
    "Action",
    "Close",
    "JournalEnd",
    "JournalMove",
    "JournalStart",
    "Send",
    "Table",
    "seen_by",
]

log = logging.getLogger("quackbox.net")


RECENT_LOG = 50
"""Log lines kept per seat (and for spectators), for whoever (re)joins mid-game."""
RECENT_MOVES = 64
"""Accepted moves kept in memory (every move is in the journal on disk)."""
PRESENCE_LINES = 6
PRESENCE_PER_SECOND = 0.1
"""Lines saying that a seat's person left or came back: a few at once, then
one per ten seconds, so a connection that flaps fills no logs (the lobby
message still says who is here)."""


def seen_by(
    rules: AnyRules, seat: int | None, events: Any, names: tuple[str, ...]
) -> tuple[tuple[Event, ...], tuple[LogLine, ...]]:
    """``events`` as ``seat`` (None: a spectator) may see them, and its log lines for
    them: what a view frame carries besides the view."""
    seen = []
    for event in events:
        redacted = rules.redact(event, seat)
        if redacted is not None:
            seen.append(redacted)
    # An event the rules have no sentence for (an empty one) makes no line.
    told = tuple(
        LogLine(text=text, kind=rules.line_kind(e, seat), event=i)
        for i, e in enumerate(seen)
        if (text := rules.describe(e, names, seat))
    )
    return tuple(seen), told


class Table:
    """One table: its game session, its lobby and its bots. No IO, no clock.

    Args:
        config: how to run it (a :class:`TableConfig`, or :class:`quackbox.net.host.HostConfig`).
        rules: the game's rules; default ``quackbox.core.games.get(config.game)``.
        host_token: the token of the host's own seat (seat 0) when not
            headless; default a fresh secret.
    """

    def __init__(self, config: TableConfig, *, rules: AnyRules | None = None, host_token: str | None = None) -> None:
        self.config = config
        self.rules: AnyRules = rules if rules is not None else games.get(config.game)
        if not self.rules.min_seats <= config.seats <= self.rules.max_seats:
            raise ValueError(
                f"{self.rules.title} is for {self.rules.min_seats} to {self.rules.max_seats} players, "
                f"not {config.seats}"
            )
        humans = config.seats - config.bots - (0 if config.headless else 1)
        if config.bots < 0 or humans < 0:
            raise ValueError(f"{config.bots} bots do not fit at a table of {config.seats} with its host")
        self.options = self.rules.parse_options(dict(config.options))  # BadOptions names the problem
        self.wire = Wire(self.rules)
        self.phase = LOBBY
        self.state: Any = None
        self.seq = 0
        self.games_played = 0
        self.outcome: Outcome | None = None
        self.outcome_names: tuple[str, ...] = ()
        """The seats' names when the game ended: people may leave right after
        (and an open seat loses its name), but the result names them as they were."""
        self.recent_moves: deque[tuple[int, Move]] = deque(maxlen=RECENT_MOVES)
        """The latest accepted moves of the current game, timeouts included, in
        order (``seq`` counts them all; the journal on disk holds them all)."""
        self.recent_log: dict[int | None, deque[tuple[int, str, str]]] = {}
        """Each seat's latest log lines, as that seat read them (None: a spectator's),
        each with its number, text and kind's value: plain values in a tuple, which
        the garbage collector stops tracking."""
        self.log_numbers: dict[int | None, int] = {}
        """How many log lines each seat (None: the spectators) has been given at this table:
        a line's number, for a client to say what it has (never reset, game after game)."""
        self.turns = TurnBudget()
        self._noted: dict[int, TokenBucket] = {}
        """How many more lines may say that a seat's person left or came back."""
        self.host_token = None if config.headless else host_token or secrets.token_urlsafe(16)
        self.seats = Seats(
            config.seats,
            host_name=None if config.headless else config.host_name,
            host_token=self.host_token,
            bots=config.bots,
        )
        self.lobby = Lobby(config, self.rules, self.wire, self.seats)
        self.bots = BotDriver(config, self.rules)
        self.order = Order(self)
        """The host's seat keeping order: removing people, muting their chat."""
        self._deadline: Deadline | None = None
        self._deadline_started = 0.0
        self._unlisted = frozenset(self.rules.unlisted_moves())
        """Move types a seat may send that ``legal`` never lists: budgeted per turn."""
        self._host_only = frozenset(self.rules.timeout_moves())
        """Move types only the host makes, when a countdown runs out."""
        self.paused: str | None = None
        """Why play is paused (the host cannot save the game), or None: no move,
        start, timeout or bot move is made meanwhile; chat and the lobby go on."""
        self.holding = False
        """Whether records are on their way to the disk: the game does not move on
        by itself (deadlines, bots) until they are there, as nobody has seen them yet."""

    # --- queries -----------------------------------------------------------------

    @property
    def code(self) -> str | None:
        """The room code players must give, or None."""
        return self.lobby.code

    @property
    def names(self) -> tuple[str, ...]:
        return self.seats.names

    def deadline_at(self) -> float | None:
        """When the host applies the current deadline's timeout, grace included."""
        if self._deadline is None:
            return None
        return self._deadline_started + self._deadline.seconds + self.config.deadline_grace

    def next_wakeup(self) -> float | None:
        """The earliest time :meth:`tick` has something to do, or None."""
        times = self.lobby.wakeups()
        if self.paused is not None or self.holding:
            return min(times) if times else None
        if self.phase != PLAYING:
            times += [since + self.config.lobby_grace for since in self.seats.waiting_since()]
        if self.phase == LOBBY and self._can_autostart():
            times.append(0.0)
        if self.phase == PLAYING:
            at = self.deadline_at()
            if at is not None:
                times.append(at)
            times += self.bots.wakeups(self.state, self.seats)
        return min(times) if times else None

    # --- inputs ------------------------------------------------------------------

    def connect(self, conn: int, remote: str, now: float) -> list[Action]:
        """A new connection ``conn`` from address ``remote`` opened."""
        return self.lobby.connect(conn, remote, now)

    def receive(self, conn: int, data: bytes | str, now: float) -> list[Action]:
        """Connection ``conn`` sent the frame ``data``."""
        lobby = self.lobby
        peer = lobby.peers.get(conn)
        if peer is None or peer.closing:
            return []
        verdict = peer.limits.message(now)
        if verdict.rate is not Rate.OK:
            return lobby.rate_limited(peer, verdict, self._kind_of(data))
        try:
            message = self.wire.decode_from_client(data)
        except ProtocolError as exc:
            return lobby.refuse(peer, exc.code, exc.message, exc.refused)
        kind = type(message)
        if not peer.welcomed:
            if kind is Hello:
                return self._hello(peer, message, now)
            if kind is Bye:
                return [Close(conn, CLOSE_NORMAL, "bye")]
            return lobby.refuse(peer, ErrorCode.HELLO_FIRST, "Say hello first.", message.TYPE)
        out = lobby.back(peer, phase=self.phase)
        if kind is MoveMessage:
            return out + self._move(peer, message, now)
        if kind is Say:
            return out + lobby.say(peer, message, now)
        if kind is Ready:
            return out + lobby.ready(peer, message, phase=self.phase)
        if kind is Remove:
            return out + self.order.remove(peer, message.name)
        if kind is Mute:
            return out + self.order.mute(peer, message.name, message.muted)
        if kind is Start:
            return out + self._start(peer, now)
        if kind is Bye:
            seat = peer.seat
            out += lobby.leave(peer, now, phase=self.phase)
            return out + (
                self._presence(self.seats[seat], "left the table.", "You left the table.", now)
                if seat is not None
                else []
            )
        return out + lobby.refuse(peer, ErrorCode.BAD_MESSAGE, "You have already said hello.", message.TYPE)

    def disconnect(self, conn: int, now: float) -> list[Action]:
        """Connection ``conn`` closed (either side)."""
        peer = self.lobby.peers.get(conn)
        seat = peer.seat if peer is not None and peer.welcomed and not peer.closing else None
        out = self.lobby.disconnect(conn, now, phase=self.phase)
        if seat is not None and self.seats[seat].conn is None:
            out += self._presence(
                self.seats[seat], "is away: the connection was lost.", "You were away: the connection was lost.", now
            )
        return out

    def _kind_of(self, data: bytes | str) -> str:
        """The type of the message in ``data``, or "" if it is not one."""
        try:
            message: ClientMessage = self.wire.decode_from_client(data)
        except ProtocolError:
            return ""
        return message.TYPE

    def tick(self, now: float) -> list[Action]:
        """Let time pass: hello timeouts, deadlines, turn timers and bot moves."""
        out = self.lobby.hello_timeouts(now)
        if self.paused is not None or self.holding:
            return out
        if self.phase != PLAYING:
            out += self._free_abandoned(now)
        if self.phase == LOBBY and self._can_autostart():
            return out + self._begin(now)
        if self.phase != PLAYING:
            return out
        at = self.deadline_at()
        if at is not None and now >= at and self._deadline is not None:
            deadline = self._deadline
            try:
                return out + self._apply(deadline.seat, deadline.timeout, now)
            except RulesError as exc:
                # The rules refused their own timeout: a bug. Drop the
                # deadline rather than retry it for ever.
                log.error("the rules refused the timeout %r: %s", deadline.timeout, exc)
                self._deadline = None
                return out
        for seat in self.bots.timed_out(now, self.state, self.seats):
            seat.idle = True  # a bot plays for the seat until its person acts
            out += self.lobby.announce(self.phase)
        return out + self.bots.step(now, self.state, self.seats, lambda seat, move: self._bot_move(seat, move, now))

    def _free_abandoned(self, now: float) -> list[Action]:
        """Before a game, seats whose people have been gone a while open
        again, so people who came and went cannot keep a table full (their
        tokens no longer hold them; they may take any open seat)."""
        abandoned = self.seats.abandoned(now, self.config.lobby_grace)
        for seat in abandoned:
            log.info("seat %d (%s) was left in the lobby: open again", seat.index + 1, seat.name)
            self.seats.free(seat)
        return self.lobby.announce(self.phase) if abandoned else []

    def _bot_move(self, seat: int, move: Move, now: float) -> list[Action]:
        """A bot's move: a bot seat's, or a stand-in's for a person, which the log tells."""
        held = self.seats[seat]
        if held.kind != BOT:
            return self._apply(
                seat,
                move,
                now,
                note=Note(
                    seat, f"A bot played for {held.name}, who is away.", "A bot played for you while you were away."
                ),
            )
        return self._apply(seat, move, now)

    def shutdown(self, reason: str, message: str) -> list[Action]:
        """Say ``bye`` to everyone and close every connection."""
        return self.lobby.shutdown(reason, message)

    # --- pausing -----------------------------------------------------------------------

    def pause(self, reason: str) -> list[Action]:
        """Play stops, because of ``reason`` (a sentence): everyone is told, now."""
        self.paused = reason
        return [Send(peer.conn, self.wire.encode(Paused(reason=reason)), free=True) for peer in self.lobby.audience()]

    def unpause(self, now: float) -> list[Action]:
        """Play goes on; every running wait starts afresh (the pause counts against nobody)."""
        if self.paused is None:
            return []
        self.paused = None
        if self.phase == PLAYING:
            self.restart_clock(now)
        return [Send(peer.conn, self.wire.encode(Paused(reason="")), free=True) for peer in self.lobby.audience()]

    def _refuse_paused(self, peer: Peer, what: str) -> list[Action]:
        return self.lobby.error(peer, ErrorCode.PAUSED, self.paused or "", what, free=True)

    # --- joining and starting --------------------------------------------------------

    def _hello(self, peer: Peer, hello: Hello, now: float) -> list[Action]:
        out = self.lobby.hello(peer, hello, now, phase=self.phase)
        if peer.welcomed and self.paused is not None:
            out.append(Send(peer.conn, self.wire.encode(Paused(reason=self.paused)), free=True))
        if peer.welcomed and self.phase != LOBBY and self.state is not None:
            # The game as it stands, and the log as this seat last read it.
            # Only what it has not had: a reconnecting client says the number of its last line.
            kept = [line for line in self.recent_log.get(peer.seat, ()) if line[0] > hello.log_seen]
            recent = tuple(LogLine(text=text, kind=LineKind(kind)) for _number, text, kind in kept)
            first = kept[0][0] if kept else 0
            out.append(Send(peer.conn, self._frame(peer.seat, (), recent, self._deadline_info(now), log_from=first)))
            if peer.seat is not None and self.phase == PLAYING:
                out += self._presence(self.seats[peer.seat], "is back.", "You are back.", now, skip=peer.conn)
        return out

    def _presence(self, seat: Seat, what: str, own: str, now: float, *, skip: int | None = None) -> list[Action]:
        """Tell every seat's log (during a game) that ``seat``'s person ``what``
        (``own``: the line as that seat reads it, when it comes back): a view
        with that line and no events, to everyone but ``skip``."""
        if self.phase != PLAYING or seat.kind != HUMAN:
            return []
        bucket = self._noted.get(seat.index)
        if bucket is None:
            bucket = self._noted[seat.index] = TokenBucket(PRESENCE_LINES, PRESENCE_PER_SECOND, now)
        if not bucket.take(now):
            return []
        return self._send_views((), now, note=Note(seat.index, f"{seat.name} {what}", own), skip=skip)

    def _start(self, peer: Peer, now: float) -> list[Action]:
        if self.paused is not None:
            return self._refuse_paused(peer, "start")
        refused = self.lobby.refuse_start(peer, phase=self.phase)
        return refused if refused is not None else self._begin(now)

    def _can_autostart(self) -> bool:
        return self.config.autostart and self.seats.all_taken()

    def _begin(self, now: float) -> list[Action]:
        """Deal a new game: open seats get bots, every seat gets its first view."""
        self.seats.deal()
        seed = self.config.seed if self.config.seed is not None else secrets.randbits(63)
        seed += self.games_played
        # Bots get seeds derived from the game's, so a seeded table replays exactly.
        self.bots.deal(self.seats, seed, now=now)
        self.state = self.rules.new_game(seats=len(self.seats), options=self.options, seed=seed)
        self.bots.saw(list(self.state.start_events))
        self.games_played += 1
        self.phase = PLAYING
        self.outcome = None
        self.seq = 0
        self.recent_moves.clear()
        self.recent_log = {}
        self._noted = {}
        self._deadline = None
        self._track(now, moved=None, before=())
        header = Header(
            game=self.rules.name,
            seed=seed,
            seats=len(self.seats),
            names=self.names,
            options=_plain_options(self.options),
            bots=tuple(s.kind == BOT for s in self.seats),
            token_hashes=tuple(s.token_hash for s in self.seats),
            room=self.lobby.code or "",
        )
        out: list[Action] = [JournalStart(header)]
        # Bans and mutes from the lobby hold in the game, and in a resumed one.
        out += [JournalNote("removed", None, removed) for removed in sorted(self.lobby.removed)]
        out += [JournalNote("muted", seat, muted=True) for seat in sorted(self.lobby.muted)]
        out += self.lobby.announce(self.phase)
        out += self.lobby.broadcast(Started(names=self.names))
        return out + self._send_views(self.state.start_events, now)

    @classmethod
    def resume(cls, config: TableConfig, journal: Journal, now: float, *, rules: AnyRules | None = None) -> Table:
        """The table of a journalled game, rebuilt to its last recorded move.

        Seats come back as the header says: bots play again at once, people
        are away until they reconnect with their seat tokens (checked against
        the hashes in the header). The host's own seat, when not headless,
        gets a fresh token: whoever holds the journal file owns that seat.
        """
        header = journal.header
        config = dataclasses.replace(
            config,
            game=header.game,
            seats=header.seats,
            options=dict(header.options),
            seed=header.seed,
            bots=0,
            code=header.room or config.code,
        )
        table = cls(config, rules=rules)
        table.state = rebuild(journal)
        table.recent_moves.extend(journal.moves)
        table.seq = len(journal.moves)
        table.games_played = 1
        table.phase = PLAYING
        table.seats.restore(header, now)
        for seat, removed in journal.removed:
            table.lobby.removed.add(removed)
            if seat is not None:
                table.seats.revoke(table.seats[seat])
        table.lobby.muted = {seat for seat, muted in journal.muted.items() if muted}
        table.bots.deal(table.seats, header.seed)
        table._track(now, moved=None, before=())
        return table

    def restart_clock(self, now: float) -> None:
        """Start every running wait afresh at ``now`` (after a resume: the
        time the host was down counts against nobody)."""
        self._deadline = None
        self._track(now, moved=None, before=())
        self.seats.away_from(now)

    # --- moves -----------------------------------------------------------------------

    def _move(self, peer: Peer, message: MoveMessage, now: float) -> list[Action]:
        if self.phase == LOBBY:
            return self.lobby.error(peer, ErrorCode.NOT_STARTED, "The game has not started yet.", "move")
        if peer.seat is None:
            return self.lobby.error(peer, ErrorCode.NOT_SEATED, "Spectators cannot make moves.", "move")
        if self.phase == OVER:
            return self.lobby.error(peer, ErrorCode.GAME_OVER, "The game is over.", "move")
        if self.paused is not None:
            return self._refuse_paused(peer, "move")
        if not 0 <= message.seq <= self.seq:
            return self.lobby.error(
                peer,
                ErrorCode.BAD_MESSAGE,
                f"No view numbered {message.seq} was sent; the latest is {self.seq}.",
                "move",
            ) + [Send(peer.conn, self._current_view(peer.seat, now))]
        move = message.move
        if type(move) in self._host_only:
            return self.lobby.error(peer, ErrorCode.HOST_ONLY, "Only the host runs out a countdown.", "move")
        unlisted = type(move) in self._unlisted
        if unlisted and self.turns.spent(peer.seat):
            return self.lobby.error(
                peer,
                ErrorCode.RATE_LIMITED,
                "That is as many offers as a player may make in one turn; wait for the next turn.",
                "move",
            )
        try:
            out = self._apply(peer.seat, move, now, unlisted=unlisted)
        except RulesError as exc:
            if message.seq < self.seq:
                # The move was made from an older view and is no longer legal:
                # say why, and send the view it should have been made from.
                return self.lobby.error(
                    peer, ErrorCode.STALE_VIEW, f"{exc} (Your view was out of date; here is the current one.)", "move"
                ) + [Send(peer.conn, self._current_view(peer.seat, now))]
            error = ProtocolError.from_rules(exc)
            return self.lobby.error(peer, error.code, error.message, "move")
        return out

    def _apply(
        self, seat: int, move: Move, now: float, *, note: Note | None = None, unlisted: bool = False
    ) -> list[Action]:
        """Apply ``move`` for ``seat`` (RulesError if refused) and tell everyone
        (``note``: a line for every log before the move's own).

        ``unlisted``: a move the rules accept without listing it in ``legal``
        (a trade offer: its space is every subset of a hand). It is free to
        make but not free to journal, so once accepted it counts against the
        seat's :data:`quackbox.net.limits.FREE_MOVES_PER_TURN`; how many may be
        open at once is the rules' to say. Listed moves are bounded by the game itself.
        """
        before = self.rules.waiting_for(self.state)
        try:
            events = self.rules.apply(self.state, seat, move)
        except RulesError:
            raise
        except Exception:
            # A bug in the rules must not take the table down with it.
            log.exception("the rules failed on %r by seat %d", move, seat)
            raise _RulesFault("The host could not apply that move (a bug in its rules).") from None
        if unlisted:
            self.turns.use(seat)  # before a new turn (if this move began one) clears the count
        self.recent_moves.append((seat, move))
        self.seq += 1
        self.bots.saw(events)
        self._track(now, moved=seat, before=before)
        out: list[Action] = [JournalMove(seat, move)]
        outcome = self.rules.outcome(self.state)
        if outcome is not None:
            # The end goes on disk before anyone hears of it, like every move:
            # a host killed just after could otherwise leave a won game
            # looking unfinished.
            out.append(JournalEnd(outcome))
        out += self._send_views(events, now, note=note)
        if outcome is not None:
            self.outcome = outcome
            self.outcome_names = self.names
            self.phase = OVER
            self.seats.game_over()
            out += self.lobby.announce(self.phase)
        return out

    def _track(self, now: float, moved: int | None, before: tuple[int, ...]) -> None:
        """Note the time of a change: for the bots' pacing, turn timers, and deadlines."""
        self.bots.changed(now, self.state, self.seats, moved=moved, before=before)
        if self.rules.waiting_for(self.state) != before:
            self.turns.new_turn()
        deadline = self.rules.deadline(self.state)
        if deadline != self._deadline:
            # A deadline equal to the one already running continues; any other starts now.
            self._deadline = deadline
            self._deadline_started = now

    # --- sending ---------------------------------------------------------------------

    def _send_views(
        self,
        events: list[Event] | tuple[Event, ...],
        now: float,
        *,
        note: Note | None = None,
        skip: int | None = None,
    ) -> list[Action]:
        """Each connection's own view, and the events redacted for its seat
        (``note``: a line for every log before the events' own; ``skip``: a
        connection not to send to).

        One frame per seat (a seat's connections, or the spectators, share
        it), made once per change; what the seats' views share is packed
        once for all (:meth:`Wire.encode_alike`). Every person's seat keeps
        its log lines, here or not, for when its person comes back.
        """
        audience = [peer for peer in self.lobby.audience() if peer.conn != skip]
        # A seat told nothing here because its connection is skipped (it is told otherwise)
        # keeps nothing of these lines either: what it is given and its numbers agree.
        skipped = self.lobby.peers[skip].seat if skip is not None and skip in self.lobby.peers else None
        seats = list(dict.fromkeys(peer.seat for peer in audience))
        views = dict(zip(seats, self.rules.views(self.state, seats)))
        names = self.names
        deadline = self._deadline_info(now)
        messages = []
        for seat in seats:
            seen, lines = self._seen(seat, events, names, note.lines(seat) if note else ())
            first = self._keep(seat, lines)
            messages.append(
                View(seq=self.seq, view=views[seat], events=seen, log=lines, deadline=deadline, log_from=first)
            )
        frames = dict(zip(seats, self.wire.encode_alike(messages)))
        for seat in [None, *(s.index for s in self.seats if s.kind == HUMAN)]:
            if seat not in frames and (seat != skipped or seat is None):
                self._keep(seat, self._seen(seat, events, names, note.lines(seat) if note else ())[1])
        return [Send(peer.conn, frames[peer.seat]) for peer in audience]

    def _keep(self, seat: int | None, lines: tuple[LogLine, ...]) -> int:
        """Number ``lines`` of ``seat``'s log (None: the spectators') and keep them for whoever
        comes back; the number of the first (0: no lines)."""
        if not lines:
            return 0
        kept = self.recent_log.get(seat)
        if kept is None:
            kept = self.recent_log[seat] = deque(maxlen=RECENT_LOG)
        first = self.log_numbers.get(seat, 0) + 1
        self.log_numbers[seat] = first + len(lines) - 1
        # Sent again, a line tells no event: its place in these events is not kept.
        kept.extend((first + i, line.text, line.kind.value) for i, line in enumerate(lines))
        return first

    def _current_view(self, seat: int | None, now: float) -> bytes:
        """The view frame of ``seat`` as things stand, with no events (a stale move)."""
        return self._frame(seat, (), (), self._deadline_info(now))

    def _deadline_info(self, now: float) -> DeadlineInfo | None:
        """The running countdown as views show it, or None: the seconds left of the
        rules' time (a Tremors' "3 seconds" is shown as 3); the host waits its
        latency grace on top before it applies the timeout."""
        if self._deadline is None:
            return None
        ends = self._deadline_started + self._deadline.seconds
        return DeadlineInfo(seat=self._deadline.seat, kind=self._deadline.kind, seconds=max(0.0, round(ends - now, 3)))

    def _seen(
        self, seat: int | None, events: Any, names: tuple[str, ...], first: tuple[LogLine, ...] = ()
    ) -> tuple[tuple[Event, ...], tuple[LogLine, ...]]:
        """What :func:`seen_by` gives ``seat``, its log lines after the lines ``first``."""
        seen, told = seen_by(self.rules, seat, events, names)
        return seen, first + told

    def _frame(
        self,
        seat: int | None,
        seen: tuple[Event, ...],
        lines: tuple[LogLine, ...],
        deadline: DeadlineInfo | None,
        *,
        log_from: int = 0,
    ) -> bytes:
        """The view frame of ``seat`` alone, with the events it has ``seen`` and log ``lines``
        (the first numbered ``log_from``)."""
        return self.wire.encode(
            View(
                seq=self.seq,
                view=self.rules.view(self.state, seat),
                events=seen,
                log=lines,
                deadline=deadline,
                log_from=log_from,
            )
        )


@dataclass(frozen=True)
class Note:
    """A line every log gets about one seat's person (left, back, a bot played for
    them): ``others`` as everyone reads it, ``own`` as that seat does (a recap
    after a reconnection says "You were away", never their own name)."""

    seat: int
    others: str
    own: str

    def lines(self, reader: int | None) -> tuple[LogLine]:
        return (LogLine(text=self.own if reader == self.seat else self.others, kind=LineKind.NOTICE),)


class _RulesFault(RulesError):
    """The rules raised something other than a RulesError: reported as host_error."""

    code = ErrorCode.HOST_ERROR.value


def _plain_options(options: Any) -> dict[str, Any]:
    """A game's parsed options as plain values, which parse_options takes back."""
    if dataclasses.is_dataclass(options) and not isinstance(options, type):
        return core_options.as_values(options)
    return dict(options or {})
