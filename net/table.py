"""The table: lobby, seats and the running game, as a state machine with no IO.

:class:`Table` is the whole host minus the sockets and the clock: frames go in
(:meth:`Table.receive`) with the time they arrived, and what to send comes out
as a list of :class:`Send` and :class:`Close` actions. The asyncio shell in
:mod:`net.host` only moves bytes and calls :meth:`Table.tick` when
:meth:`Table.next_wakeup` says so. So every rule of the table (who may join,
who may start, stale moves, deadlines, bots standing in for away seats, rate
limits, what each seat may see) is tested without a network, and the leak
test can check every frame the host would send.

The game loop follows :func:`core.play.next_move`: the seats in
``waiting_for`` must move; other seats with legal moves may move at any time;
bot seats are offered ``react`` before the waited-for bots ``choose``. Bots
are paced by ``bot_delay`` after every change, which gives people a window to
play an Anytime card or answer a trade before a bot does.

Hidden information leaves only through :meth:`Rules.view` for the receiving
seat and events passed through :meth:`Rules.redact` for that seat.
"""

from __future__ import annotations

import dataclasses
import hmac
import logging
import random
import secrets
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Mapping

from core import bots as core_bots
from core import games
from core.bots import Bot
from core.rules import Deadline, Event, Move, Outcome, RulesError
from net.journal import Header, Journal, rebuild, token_hash
from net.protocol import (
    BOT,
    HUMAN,
    OPEN,
    MAX_CHAT,
    MAX_NAME,
    Bye,
    ChatLine,
    DeadlineInfo,
    Error,
    ErrorCode,
    Hello,
    Lobby,
    MoveMessage,
    ProtocolError,
    Ready,
    Say,
    SeatInfo,
    Start,
    Started,
    View,
    Welcome,
    Wire,
    clean_text,
    PROTOCOL_VERSION,
)

__all__ = ["Close", "JournalEnd", "JournalMove", "JournalStart", "Send", "Table", "TableConfig", "new_room_code"]

log = logging.getLogger("quackbox.net")


# Phases of the table.
LOBBY = "lobby"
PLAYING = "playing"
OVER = "over"

# WebSocket close codes (RFC 6455).
CLOSE_NORMAL = 1000
CLOSE_GOING_AWAY = 1001
CLOSE_POLICY = 1008
CLOSE_TOO_BIG = 1009

HELLO_TIMEOUT = 10.0
"""Seconds a new connection has to say hello."""
MAX_PENDING_PEERS = 16
"""Connections that have not said hello yet; more are turned away."""
CHAT_BACKLOG = 50
"""Chat lines a newcomer receives."""
# Rate limits: a token bucket per connection for every message, and a smaller
# one for chat. Generous enough for a bot answering every view at once in a
# fast game, tight for a flood (which sends thousands a second).
MESSAGE_BURST = 200
MESSAGES_PER_SECOND = 100.0
CHAT_BURST = 5
CHAT_PER_SECOND = 1.0
FLOOD_LIMIT = 200
"""Messages dropped for rate before the connection is closed as a flood."""
CODE_TRIES = 5
CODE_WINDOW = 60.0
"""At most CODE_TRIES wrong room codes per address per CODE_WINDOW seconds."""

ROOM_CODE_LETTERS = "BCDFGHJKLMNPQRSTVWXZ"  # no vowels: no words, no 0/O or 1/I mix-ups
ROOM_CODE_LENGTH = 4


def new_room_code() -> str:
    """A fresh room code such as ``KQXZ`` (from :mod:`secrets`)."""
    return "".join(secrets.choice(ROOM_CODE_LETTERS) for _ in range(ROOM_CODE_LENGTH))


@dataclass
class TableConfig:
    """How a table is run. Every field has a default; see ``quackbox host --help``."""

    game: str = "side-effects"
    seats: int = 4
    bots: int = 0
    """Seats given to bots from the start (the last ones). Open seats also
    get a bot when the game starts."""
    headless: bool = False
    """No seat for the host's person; the first person to join may start."""
    host_name: str = "Host"
    code: str | None = None
    """The room code players must give; None: no code needed."""
    options: Mapping[str, Any] = field(default_factory=dict)
    seed: int | None = None
    """The game's seed (never sent to anyone); None: a random one."""
    bot_kind: str = "heuristic"
    bot_delay: float = 0.8
    """Seconds between a change and a bot's move, so people can follow (0: at once)."""
    away_grace: float | None = 15.0
    """Seconds an away seat's turn waits before a bot plays for it; None: wait for ever."""
    turn_timer: float | None = None
    """Seconds a person may take for each move before a bot plays for them; None: no limit."""
    deadline_grace: float = 0.5
    """Seconds added to every rules deadline for network latency."""
    autostart: bool = False
    """Start as soon as every seat is taken (by a person who is connected, or a bot)."""
    max_spectators: int = 16


@dataclass(frozen=True, slots=True)
class Send:
    """Send ``data`` (one binary frame) on connection ``conn``."""

    conn: int
    data: bytes


@dataclass(frozen=True, slots=True)
class Close:
    """Close connection ``conn`` after the frames queued before this."""

    conn: int
    code: int
    reason: str


@dataclass(frozen=True, slots=True)
class JournalStart:
    """Begin a journal for the game just dealt (before its first view goes out)."""

    header: Header


@dataclass(frozen=True, slots=True)
class JournalMove:
    """Put this accepted move on disk; the sends after it must wait for that."""

    seat: int
    move: Move


@dataclass(frozen=True, slots=True)
class JournalEnd:
    """The game is over: record how it ended."""

    outcome: Outcome


Action = Send | Close | JournalStart | JournalMove | JournalEnd
"""What the table asks its shell to do, in order. Journal actions come
before the sends that depend on them, so a move is on disk before anyone is
told of it."""


@dataclass
class _Seat:
    index: int
    kind: str = OPEN
    name: str = ""
    token: str | None = None
    token_hash: str = ""
    """SHA-256 of the token: all a resumed table knows of a seat's token."""
    conn: int | None = None
    ready: bool = False
    away_since: float | None = None
    idle: bool = False
    """The turn timer ran out: a bot plays for the seat until its person acts."""
    waiting_since: float | None = None
    """When the game last started waiting for this seat (or it last moved)."""
    bot: Bot | None = None
    """The seat's bot, or the stand-in for a person who is away."""


@dataclass
class _Peer:
    conn: int
    remote: str
    opened: float
    seat: int | None = None
    spectator: bool = False
    welcomed: bool = False
    closing: bool = False
    name: str = ""
    tokens: float = MESSAGE_BURST
    chat_tokens: float = CHAT_BURST
    refilled: float = 0.0
    dropped: int = 0
    warned: float = -1e9


class Table:
    """One table of one game, its lobby and its connections. No IO, no clock.

    Args:
        config: how to run it (a :class:`TableConfig`, or :class:`net.host.HostConfig`).
        rules: the game's rules; default ``core.games.get(config.game)``.
        host_token: the token of the host's own seat (seat 0) when not
            headless; default a fresh secret.
    """

    def __init__(self, config: TableConfig, *, rules: Any = None, host_token: str | None = None) -> None:
        self.config = config
        self.rules = rules if rules is not None else games.get(config.game)
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
        self.code = config.code.strip().upper() if config.code else None
        self.phase = LOBBY
        self.state: Any = None
        self.seq = 0
        self.games_played = 0
        self.outcome: Outcome | None = None
        self.outcome_names: tuple[str, ...] = ()
        """The seats' names when the game ended: people may leave right after
        (and an open seat loses its name), but the result names them as they were."""
        self.journal: list[tuple[int, Move]] = []
        """Every accepted move of the current game, timeouts included, in order."""
        self.seats = [_Seat(i) for i in range(config.seats)]
        self.host_token = None
        if not config.headless:
            self.host_token = host_token or secrets.token_urlsafe(16)
            host = self.seats[0]
            host.kind, host.name = HUMAN, clean_text(config.host_name)[:MAX_NAME] or "Host"
            self._give_token(host, self.host_token)
        for seat in self.seats[config.seats - config.bots :]:
            self._make_bot_seat(seat)
        self._peers: dict[int, _Peer] = {}
        self._chat: deque[bytes] = deque(maxlen=CHAT_BACKLOG)
        self._code_failures: dict[str, deque[float]] = {}
        self._deadline: Deadline | None = None
        self._deadline_started = 0.0
        self._timeout_types: set[type] = set()
        self._last_change = 0.0
        self._bots_pending = False
        self._quiet_until = 0.0

    # --- queries -----------------------------------------------------------------

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.seats)

    @property
    def starter(self) -> int | None:
        """The seat that may start the game: the host's, else the first person's."""
        if not self.config.headless:
            return 0
        for seat in self.seats:
            if seat.kind == HUMAN and seat.conn is not None:
                return seat.index
        return None

    def lobby(self) -> Lobby:
        """The lobby message as it stands."""
        playing = self.phase != LOBBY
        return Lobby(
            started=self.phase == PLAYING,
            over=self.phase == OVER,
            starter=self.starter,
            seats=tuple(
                SeatInfo(
                    seat=s.index,
                    name=s.name,
                    kind=s.kind,
                    connected=s.kind == BOT or s.conn is not None,
                    ready=s.kind == BOT or s.ready,
                    away=playing and s.kind == HUMAN and (s.conn is None or s.idle),
                )
                for s in self.seats
            ),
            spectators=sum(1 for p in self._peers.values() if p.spectator),
        )

    def deadline_at(self) -> float | None:
        """When the host applies the current deadline's timeout, grace included."""
        if self._deadline is None:
            return None
        return self._deadline_started + self._deadline.seconds + self.config.deadline_grace

    def next_wakeup(self) -> float | None:
        """The earliest time :meth:`tick` has something to do, or None."""
        times = [p.opened + HELLO_TIMEOUT for p in self._peers.values() if not p.welcomed and not p.closing]
        if self.phase == LOBBY and self._can_autostart():
            times.append(0.0)
        if self.phase == PLAYING:
            at = self.deadline_at()
            if at is not None:
                times.append(at)
            paced = self._last_change + self.config.bot_delay
            if self._bots_pending:
                times.append(paced)
            for s in self.rules.waiting_for(self.state):
                seat = self.seats[s]
                if seat.kind != HUMAN:
                    continue
                due = self._stand_in_due(seat)
                if due is not None:
                    times.append(max(due, paced, self._quiet_until))
                if self.config.turn_timer is not None and not seat.idle and seat.waiting_since is not None:
                    times.append(seat.waiting_since + self.config.turn_timer)
        return min(times) if times else None

    # --- inputs ------------------------------------------------------------------

    def connect(self, conn: int, remote: str, now: float) -> list[Action]:
        """A new connection ``conn`` from address ``remote`` opened."""
        peer = _Peer(conn, remote, now, refilled=now)
        self._peers[conn] = peer
        pending = sum(1 for p in self._peers.values() if not p.welcomed)
        if pending > MAX_PENDING_PEERS:
            return self._refuse(peer, ErrorCode.TABLE_FULL, "Too many connections are waiting to join; try again.")
        return []

    def receive(self, conn: int, data: bytes | str, now: float) -> list[Action]:
        """Connection ``conn`` sent the frame ``data``."""
        peer = self._peers.get(conn)
        if peer is None or peer.closing:
            return []
        if not self._take(peer, now):
            return self._rate_limited(peer, now)
        try:
            message = self.wire.decode_from_client(data)
        except ProtocolError as exc:
            return self._refuse(peer, exc.code, exc.message)
        kind = type(message)
        if not peer.welcomed:
            if kind is Hello:
                return self._hello(peer, message, now)
            if kind is Bye:
                return [Close(conn, CLOSE_NORMAL, "bye")]
            return self._refuse(peer, ErrorCode.HELLO_FIRST, "Say hello first.", message.TYPE)
        if peer.seat is not None:
            seat = self.seats[peer.seat]
            if seat.idle:  # the person is back at the keyboard: take the seat back from the bot
                seat.idle = False
                out = self._broadcast(self.lobby())
            else:
                out = []
        else:
            out = []
        if kind is MoveMessage:
            return out + self._move(peer, message, now)
        if kind is Say:
            return out + self._say(peer, message, now)
        if kind is Ready:
            return out + self._ready(peer, message, now)
        if kind is Start:
            return out + self._start(peer, now)
        if kind is Bye:
            return out + self._leave(peer, now)
        return out + self._refuse(peer, ErrorCode.BAD_MESSAGE, "You have already said hello.", message.TYPE)

    def disconnect(self, conn: int, now: float) -> list[Action]:
        """Connection ``conn`` closed (either side)."""
        peer = self._peers.pop(conn, None)
        if peer is None or not peer.welcomed:
            return []
        if peer.seat is not None:
            seat = self.seats[peer.seat]
            if seat.conn == conn:
                seat.conn = None
                seat.away_since = now
        return self._broadcast(self.lobby())

    def tick(self, now: float) -> list[Action]:
        """Let time pass: hello timeouts, deadlines, turn timers and bot moves."""
        out: list[Action] = []
        for peer in list(self._peers.values()):
            if not peer.welcomed and not peer.closing and now >= peer.opened + HELLO_TIMEOUT:
                peer.closing = True
                out += self._send(peer, Bye("hello_timeout", "No hello within the time allowed."))
                out.append(Close(peer.conn, CLOSE_POLICY, "hello timeout"))
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
        if self.config.turn_timer is not None:
            for s in self.rules.waiting_for(self.state):
                seat = self.seats[s]
                if (
                    seat.kind == HUMAN
                    and not seat.idle
                    and seat.waiting_since is not None
                    and now >= seat.waiting_since + self.config.turn_timer
                ):
                    seat.idle = True
                    out += self._broadcast(self.lobby())
        if now >= self._last_change + self.config.bot_delay:
            out += self._bot_step(now)
        return out

    def shutdown(self, reason: str, message: str) -> list[Action]:
        """Say ``bye`` to everyone and close every connection."""
        out: list[Action] = []
        for peer in self._peers.values():
            if not peer.closing:
                peer.closing = True
                out += self._send(peer, Bye(reason, message))
                out.append(Close(peer.conn, CLOSE_GOING_AWAY, reason))
        return out

    # --- joining -------------------------------------------------------------------

    def _hello(self, peer: _Peer, hello: Hello, now: float) -> list[Action]:
        if self.code is not None:
            failures = self._code_failures.setdefault(peer.remote, deque())
            while failures and failures[0] < now - CODE_WINDOW:
                failures.popleft()
            if len(failures) >= CODE_TRIES:
                peer.closing = True
                return self._send_error(peer, ErrorCode.RATE_LIMITED, "Too many wrong room codes; wait a minute.") + [
                    Close(peer.conn, CLOSE_POLICY, "rate limited")
                ]
            given = (hello.code or "").strip().upper().encode()
            if not hmac.compare_digest(given, self.code.encode()):
                failures.append(now)
                if len(self._code_failures) > 1024:  # forget old addresses rather than grow without end
                    self._code_failures = {peer.remote: failures}
                what = "needs a room code" if not hello.code else "has a different room code"
                return self._refuse(peer, ErrorCode.WRONG_CODE, f"This table {what}; ask the host for it.", "hello")
        name = clean_text(hello.name)
        if len(name) > MAX_NAME:
            return self._refuse(peer, ErrorCode.TOO_LONG, f"Names are at most {MAX_NAME} characters.", "hello")
        out: list[Action] = []
        if hello.token is not None:
            seat = self._seat_for_token(hello.token)
            if seat is None:
                return self._refuse(peer, ErrorCode.BAD_TOKEN, "That seat token is not valid at this table.", "hello")
            old = self._peers.get(seat.conn) if seat.conn is not None else None
            if old is not None and old is not peer:
                # A reconnect often beats the old socket's timeout: the newest wins.
                old.closing = True
                old.seat = None
                out += self._send(old, Bye("replaced", "This seat was taken over by a newer connection."))
                out.append(Close(old.conn, CLOSE_NORMAL, "replaced"))
            if self.phase == LOBBY and name:
                seat.name = self._unique_name(name, seat.index)
            seat.token = hello.token  # a resumed table knew only its hash
            seat.conn, seat.away_since = peer.conn, None
            peer.seat = seat.index
        elif hello.spectate:
            watching = sum(1 for p in self._peers.values() if p.spectator)
            if watching >= self.config.max_spectators:
                return self._refuse(peer, ErrorCode.TABLE_FULL, "This table has all the spectators it can take.", "hello")
            peer.spectator = True
        elif self.phase == PLAYING:
            return self._refuse(
                peer, ErrorCode.GAME_STARTED, "The game has already started; you can join as a spectator.", "hello"
            )
        else:
            seat = next((s for s in self.seats if s.kind == OPEN), None)
            if seat is None:
                return self._refuse(peer, ErrorCode.TABLE_FULL, "Every seat at this table is taken.", "hello")
            seat.kind, seat.ready = HUMAN, False
            self._give_token(seat, secrets.token_urlsafe(16))
            seat.name = self._unique_name(name or f"Player {seat.index + 1}", seat.index)
            seat.conn, seat.away_since = peer.conn, None
            peer.seat = seat.index
        peer.welcomed = True
        peer.name = self.seats[peer.seat].name if peer.seat is not None else (name or "Spectator")
        token = self.seats[peer.seat].token if peer.seat is not None else None
        welcome = Welcome(
            version=PROTOCOL_VERSION,
            game=self.rules.name,
            title=self.rules.title,
            seats=len(self.seats),
            seat=peer.seat,
            token=token,
            starter=peer.seat is not None and peer.seat == self.starter,
        )
        out += self._send(peer, welcome)
        out += self._broadcast(self.lobby())
        out += [Send(peer.conn, line) for line in self._chat]
        if self.phase != LOBBY and self.state is not None:
            out.append(Send(peer.conn, self._current_view(peer.seat, now)))
        return out

    def _seat_for_token(self, token: str) -> _Seat | None:
        given = token_hash(token).encode()
        found = None
        for seat in self.seats:  # compare every seat, in constant time each
            if seat.token_hash and hmac.compare_digest(given, seat.token_hash.encode()):
                found = seat
        return found

    def _give_token(self, seat: _Seat, token: str | None) -> None:
        seat.token = token
        seat.token_hash = token_hash(token) if token else ""

    def _unique_name(self, name: str, index: int) -> str:
        taken = {s.name.casefold() for s in self.seats if s.index != index and s.kind != OPEN}
        if name.casefold() not in taken:
            return name
        for n in range(2, len(self.seats) + 2):
            candidate = f"{name[: MAX_NAME - 2]} {n}"
            if candidate.casefold() not in taken:
                return candidate
        return name

    def _leave(self, peer: _Peer, now: float) -> list[Action]:
        """The person said bye: in the lobby the seat opens; in a game it is away."""
        peer.closing = True
        out: list[Action] = [Close(peer.conn, CLOSE_NORMAL, "bye")]
        if peer.seat is not None:
            seat = self.seats[peer.seat]
            if seat.conn == peer.conn:
                seat.conn, seat.away_since = None, now
                if self.phase != PLAYING and not (seat.index == 0 and not self.config.headless):
                    seat.kind, seat.name, seat.ready = OPEN, "", False
                    self._give_token(seat, None)
            peer.seat = None
        peer.spectator = False
        return out + self._broadcast(self.lobby(), skip=peer.conn)

    # --- the lobby -----------------------------------------------------------------

    def _ready(self, peer: _Peer, ready: Ready, now: float) -> list[Action]:
        if peer.seat is None:
            return self._send_error(peer, ErrorCode.NOT_SEATED, "Spectators have no seat to get ready.", "ready")
        if self.phase == PLAYING:
            return self._send_error(peer, ErrorCode.BAD_MESSAGE, "The game has already started.", "ready")
        self.seats[peer.seat].ready = ready.ready
        return self._broadcast(self.lobby())

    def _start(self, peer: _Peer, now: float) -> list[Action]:
        if self.phase == PLAYING:
            return self._send_error(peer, ErrorCode.BAD_MESSAGE, "The game has already started.", "start")
        if peer.seat is None or peer.seat != self.starter:
            who = self.seats[self.starter].name if self.starter is not None else "the host"
            return self._send_error(peer, ErrorCode.NOT_STARTER, f"Only {who} may start the game.", "start")
        waiting = [
            s.name
            for s in self.seats
            if s.kind == HUMAN and s.conn is not None and not s.ready and s.index != peer.seat
        ]
        if waiting:
            return self._send_error(
                peer, ErrorCode.NOT_READY, f"Waiting for {', '.join(waiting)} to be ready.", "start"
            )
        return self._begin(now)

    def _can_autostart(self) -> bool:
        return self.config.autostart and all(
            s.kind == BOT or (s.kind == HUMAN and s.conn is not None) for s in self.seats
        )

    def _begin(self, now: float) -> list[Action]:
        """Deal a new game: open seats get bots, every seat gets its first view."""
        for seat in self.seats:
            if seat.kind == OPEN:
                self._make_bot_seat(seat)
        seed = self.config.seed if self.config.seed is not None else secrets.randbits(63)
        seed += self.games_played
        # Bots get seeds derived from the game's, so a seeded table replays exactly.
        bot_seeds = random.Random(seed)
        for seat in self.seats:
            seat.bot = None
            seat.idle = False
            if seat.kind == BOT:
                seat.bot = core_bots.make(self.rules.name, self.config.bot_kind, bot_seeds.getrandbits(32))
        self.state = self.rules.new_game(seats=len(self.seats), options=self.options, seed=seed)
        self.games_played += 1
        self.phase = PLAYING
        self.outcome = None
        self.seq = 0
        self.journal = []
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
            room=self.code or "",
        )
        out: list[Action] = [JournalStart(header)]
        out += self._broadcast(self.lobby())
        out += self._broadcast(Started(names=self.names))
        return out + self._send_views(getattr(self.state, "start_events", ()), now)

    @classmethod
    def resume(cls, config: TableConfig, journal: Journal, now: float, *, rules: Any = None) -> Table:
        """The table of a journalled game, rebuilt to its last recorded move.

        Seats come back as the header says: bots play again at once, people
        are away until they reconnect with their seat tokens (checked against
        the hashes in the header). The host's own seat, when not headless,
        gets a fresh token: whoever holds the journal file owns that seat.
        """
        header = journal.header
        config = dataclasses.replace(
            config, game=header.game, seats=header.seats, options=dict(header.options), seed=header.seed,
            bots=0, code=header.room or config.code,
        )
        table = cls(config, rules=rules)
        table.state = rebuild(journal)
        table.journal = list(journal.moves)
        table.seq = len(journal.moves)
        table.games_played = 1
        table.phase = PLAYING
        bot_seeds = random.Random(header.seed)
        for seat, name in zip(table.seats, header.names):
            seat.name = name
            is_bot = seat.index < len(header.bots) and header.bots[seat.index]
            if is_bot:
                table._make_bot_seat(seat)
                seat.name = name
                seat.bot = core_bots.make(table.rules.name, config.bot_kind, bot_seeds.getrandbits(32))
            elif seat.index == 0 and not config.headless:
                seat.kind = HUMAN
            else:
                seat.kind = HUMAN
                seat.token, seat.conn, seat.away_since = None, None, now
                seat.token_hash = header.token_hashes[seat.index] if seat.index < len(header.token_hashes) else ""
        table._track(now, moved=None, before=())
        return table

    def restart_clock(self, now: float) -> None:
        """Start every running wait afresh at ``now`` (after a resume: the
        time the host was down counts against nobody)."""
        self._deadline = None
        self._track(now, moved=None, before=())
        for seat in self.seats:
            if seat.kind == HUMAN and seat.conn is None:
                seat.away_since = now

    def _make_bot_seat(self, seat: _Seat) -> None:
        seat.kind, seat.conn, seat.ready = BOT, None, True
        self._give_token(seat, None)
        seat.name = self._unique_name(f"Bot {seat.index + 1}", seat.index)

    # --- chat ------------------------------------------------------------------------

    def _say(self, peer: _Peer, say: Say, now: float) -> list[Action]:
        if peer.chat_tokens < 1:
            return self._send_error(peer, ErrorCode.RATE_LIMITED, "You are chatting too fast.", "chat")
        peer.chat_tokens -= 1
        text = clean_text(say.text)
        if len(text) > MAX_CHAT:
            return self._send_error(peer, ErrorCode.TOO_LONG, f"Chat lines are at most {MAX_CHAT} characters.", "chat")
        if not text:
            return self._send_error(peer, ErrorCode.BAD_MESSAGE, "That chat line is empty.", "chat")
        frame = self.wire.encode(ChatLine(seat=peer.seat, name=peer.name, text=text))
        self._chat.append(frame)
        return [Send(p.conn, frame) for p in self._peers.values() if p.welcomed and not p.closing]

    # --- moves -----------------------------------------------------------------------

    def _move(self, peer: _Peer, message: MoveMessage, now: float) -> list[Action]:
        if self.phase == LOBBY:
            return self._send_error(peer, ErrorCode.NOT_STARTED, "The game has not started yet.", "move")
        if peer.seat is None:
            return self._send_error(peer, ErrorCode.NOT_SEATED, "Spectators cannot make moves.", "move")
        if self.phase == OVER:
            return self._send_error(peer, ErrorCode.GAME_OVER, "The game is over.", "move")
        if not 0 <= message.seq <= self.seq:
            return self._send_error(
                peer, ErrorCode.BAD_MESSAGE, f"No view numbered {message.seq} was sent; the latest is {self.seq}.", "move"
            ) + [Send(peer.conn, self._current_view(peer.seat, now))]
        move = message.move
        if type(move) in self._timeout_types or (self._deadline is not None and type(move) is type(self._deadline.timeout)):
            return self._send_error(peer, ErrorCode.HOST_ONLY, "Only the host runs out a countdown.", "move")
        try:
            return self._apply(peer.seat, move, now)
        except RulesError as exc:
            if message.seq < self.seq:
                # The move was made from an older view and is no longer legal:
                # say why, and send the view it should have been made from.
                return self._send_error(
                    peer, ErrorCode.STALE_VIEW, f"{exc} (Your view was out of date; here is the current one.)", "move"
                ) + [Send(peer.conn, self._current_view(peer.seat, now))]
            error = ProtocolError.from_rules(exc)
            return self._send_error(peer, error.code, error.message, "move")

    def _apply(self, seat: int, move: Move, now: float) -> list[Action]:
        """Apply ``move`` for ``seat`` (RulesError if refused) and tell everyone."""
        before = self.rules.waiting_for(self.state)
        try:
            events = self.rules.apply(self.state, seat, move)
        except RulesError:
            raise
        except Exception:
            # A bug in the rules must not take the table down with it.
            log.exception("the rules failed on %r by seat %d", move, seat)
            raise _RulesFault("The host could not apply that move (a bug in its rules).") from None
        self.journal.append((seat, move))
        self.seq += 1
        self._track(now, moved=seat, before=before)
        out: list[Action] = [JournalMove(seat, move)]
        outcome = self.rules.outcome(self.state)
        if outcome is not None:
            # The end goes on disk before anyone hears of it, like every move:
            # a host killed just after could otherwise leave a won game
            # looking unfinished.
            out.append(JournalEnd(outcome))
        out += self._send_views(events, now)
        if outcome is not None:
            self.outcome = outcome
            self.outcome_names = self.names
            self.phase = OVER
            for s in self.seats:
                s.ready = s.kind == BOT
            out += self._broadcast(self.lobby())
        return out

    def _track(self, now: float, moved: int | None, before: tuple[int, ...]) -> None:
        """Note the time of a change: for pacing, deadlines, and turn timers."""
        self._last_change = now
        # Only a bot seat reacts or moves on its own after a change; stand-ins
        # for people have their own due times (next_wakeup). A table of people
        # alone would otherwise take a timer and a tick after every move.
        self._bots_pending = any(seat.kind == BOT for seat in self.seats)
        self._quiet_until = now
        waiting = self.rules.waiting_for(self.state)
        for seat in self.seats:
            if seat.index not in waiting:
                seat.waiting_since = None
            elif seat.index not in before or seat.index == moved or seat.waiting_since is None:
                seat.waiting_since = now
        deadline = self.rules.deadline(self.state)
        if deadline != self._deadline:
            # A deadline equal to the one already running continues; any other starts now.
            self._deadline = deadline
            self._deadline_started = now
            if deadline is not None:
                self._timeout_types.add(type(deadline.timeout))

    # --- bots ------------------------------------------------------------------------

    def _stand_in_due(self, seat: _Seat) -> float | None:
        """When a bot may play for this person's seat, if it is their move."""
        if seat.idle:
            return self._last_change
        if seat.conn is None and self.config.away_grace is not None and seat.waiting_since is not None:
            return max(seat.away_since or 0.0, seat.waiting_since) + self.config.away_grace
        return None

    def _bot_step(self, now: float) -> list[Action]:
        """One paced step of the bots, the way core.play.next_move picks moves.

        A reaction (from a bot the game is not waiting for) goes alone, as in
        next_move. Otherwise every bot the game waits for answers in this
        step: several seats waited for at once are answering one prompt (a
        response window), and pacing them one by one would only make people
        wait longer.
        """
        waiting = self.rules.waiting_for(self.state)
        if self._bots_pending:
            for seat in self.seats:
                bot = seat.bot
                if seat.kind != BOT or seat.index in waiting or bot is None or not bot.reacts:
                    continue
                if not self.rules.legal_moves(self.state, seat.index):
                    continue
                move = self._ask(seat, bot, react=True)
                if move is not None:
                    return self._bot_apply(seat, move, now)
        out: list[Action] = []
        for s in waiting:
            if self.phase != PLAYING or s not in self.rules.waiting_for(self.state):
                continue  # an earlier answer in this step settled it
            seat = self.seats[s]
            if seat.kind == BOT:
                bot = seat.bot
            elif seat.kind == HUMAN and (due := self._stand_in_due(seat)) is not None and now >= due:
                if seat.bot is None:
                    seat.bot = core_bots.make(self.rules.name, self.config.bot_kind, secrets.randbits(32))
                bot = seat.bot
            else:
                continue
            if bot is not None:
                move = self._ask(seat, bot, react=False)
                if move is not None:
                    out += self._bot_apply(seat, move, now)
        if not out:
            self._bots_pending = False
            # Nobody could move. If a stand-in was due, its seat had no legal
            # move (a bug in the rules): wait for a change, or a second,
            # rather than ask again in a tight loop.
            self._quiet_until = now + 1.0
        return out

    def _ask(self, seat: _Seat, bot: Bot, *, react: bool) -> Move | None:
        view = self.rules.view(self.state, seat.index)
        try:
            return bot.react(view) if react else bot.choose(view)
        except Exception:
            log.exception("bot %s at seat %d failed", bot.name, seat.index)
            return None if react else _first(view.legal)

    def _bot_apply(self, seat: _Seat, move: Move, now: float) -> list[Action]:
        try:
            return self._apply(seat.index, move, now)
        except RulesError as exc:
            # A bot offering an illegal move is a bug in the bot; play on with
            # the first legal move rather than stall the table.
            log.error("bot at seat %d chose an illegal move %r: %s", seat.index, move, exc)
            fallback = _first(self.rules.legal_moves(self.state, seat.index))
            if fallback is None or fallback == move:
                self._bots_pending = False
                return []
            return self._apply(seat.index, fallback, now)

    # --- sending ---------------------------------------------------------------------

    def _send_views(self, events: list[Event] | tuple[Event, ...], now: float) -> list[Action]:
        """Each connection's own view, and the events redacted for its seat.

        One frame per seat (a seat's connections, or the spectators, share
        it), made and packed once per change.
        """
        frames: dict[int | None, bytes] = {}
        out: list[Action] = []
        names = self.names
        deadline = self._deadline_info(now)
        for peer in self._peers.values():
            if not peer.welcomed or peer.closing:
                continue
            frame = frames.get(peer.seat)
            if frame is None:
                frame = frames[peer.seat] = self._view_frame(peer.seat, events, names, deadline)
            out.append(Send(peer.conn, frame))
        return out

    def _current_view(self, seat: int | None, now: float) -> bytes:
        """The view frame of ``seat`` as things stand, with no events (a newcomer, a stale move)."""
        return self._view_frame(seat, (), self.names, self._deadline_info(now))

    def _deadline_info(self, now: float) -> DeadlineInfo | None:
        """The running countdown as views show it, or None."""
        if self._deadline is None:
            return None
        left = self._deadline_started + self._deadline.seconds - now
        return DeadlineInfo(self._deadline.seat, self._deadline.kind, max(0.0, round(left, 3)))

    def _view_frame(
        self, seat: int | None, events: Any, names: tuple[str, ...], deadline: DeadlineInfo | None
    ) -> bytes:
        """The view frame of ``seat`` (None: a spectator) after ``events``;
        ``names`` and ``deadline`` are the same for every seat, worked out once."""
        rules = self.rules
        seen = []
        for event in events:
            redacted = rules.redact(event, seat)
            if redacted is not None:
                seen.append(redacted)
        log_lines = tuple([rules.describe(e, names, seat) for e in seen])
        view = rules.view(self.state, seat)
        return self.wire.encode(View(self.seq, view, tuple(seen), log_lines, deadline))

    def _send(self, peer: _Peer, message: Any) -> list[Action]:
        return [Send(peer.conn, self.wire.encode(message))]

    def _broadcast(self, message: Any, skip: int | None = None) -> list[Action]:
        frame = self.wire.encode(message)
        return [
            Send(p.conn, frame) for p in self._peers.values() if p.welcomed and not p.closing and p.conn != skip
        ]

    def _send_error(self, peer: _Peer, code: ErrorCode, message: str, refused: str = "") -> list[Action]:
        return self._send(peer, Error(code=code.value, message=message, refused=refused))

    def _refuse(self, peer: _Peer, code: ErrorCode, message: str, refused: str = "") -> list[Action]:
        """Reply with an error; close too if it is a protocol violation or a refused join."""
        out = self._send_error(peer, code, message, refused)
        if ProtocolError(code, message).fatal:
            peer.closing = True
            close = CLOSE_TOO_BIG if code == ErrorCode.FRAME_TOO_LARGE else CLOSE_POLICY
            if code in (ErrorCode.TABLE_FULL, ErrorCode.GAME_STARTED):
                close = CLOSE_NORMAL
            out.append(Close(peer.conn, close, code.value))
        return out

    # --- rate limits -----------------------------------------------------------------

    def _take(self, peer: _Peer, now: float) -> bool:
        elapsed = max(0.0, now - peer.refilled)
        peer.refilled = now
        peer.tokens = min(MESSAGE_BURST, peer.tokens + elapsed * MESSAGES_PER_SECOND)
        peer.chat_tokens = min(CHAT_BURST, peer.chat_tokens + elapsed * CHAT_PER_SECOND)
        if peer.tokens < 1:
            return False
        peer.tokens -= 1
        return True

    def _rate_limited(self, peer: _Peer, now: float) -> list[Action]:
        peer.dropped += 1
        if peer.dropped >= FLOOD_LIMIT:
            peer.closing = True
            return self._send(peer, Bye("flood", "Too many messages; the connection was closed.")) + [
                Close(peer.conn, CLOSE_POLICY, "flood")
            ]
        if now - peer.warned >= 1.0:  # one warning a second is enough for a flooder
            peer.warned = now
            return self._send_error(peer, ErrorCode.RATE_LIMITED, "Too many messages; slow down.")
        return []


class _RulesFault(RulesError):
    """The rules raised something other than a RulesError: reported as host_error."""

    code = ErrorCode.HOST_ERROR.value


def _plain_options(options: Any) -> dict[str, Any]:
    """A game's parsed options as plain values, which parse_options takes back."""
    if dataclasses.is_dataclass(options):
        return {f.name: getattr(options, f.name) for f in dataclasses.fields(options)}
    return dict(options or {})


def _first(moves: Any) -> Move | None:
    return moves[0] if moves else None
