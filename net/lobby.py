"""The lobby: the people at a table, how they come and go, get ready and talk, and what they are told.

:class:`Lobby` holds the connections (each a :class:`Peer`) and the seats
(:class:`quackbox.net.seats.Seats`): a hello with the room code takes an open seat,
reclaims one with its token, or watches; a goodbye opens the seat in the
lobby and leaves it away in a game; the starter starts once everyone here is
ready. It also makes the frames every one of these answers needs. The game
itself (dealing, moves, views) is the table's; the lobby is told which phase
the table is in.

No IO and no clock: every call that notes a time takes it.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any, Iterator

from quackbox.core.rules import AnyRules
from quackbox.net import protocol
from quackbox.net.actions import Action, Close, Send
from quackbox.net.config import TableConfig
from quackbox.net.journal import token_hash
from quackbox.net.limits import CHAT_BURST, CHAT_PER_SECOND, MessageLimits, Rate, SlowDown, TokenBucket, Verdict
from quackbox.net.protocol import (
    MAX_CHAT,
    MAX_NAME,
    PROTOCOL_VERSION,
    Bye,
    ChatLine,
    Error,
    ErrorCode,
    Hello,
    ProtocolError,
    Ready,
    Say,
    Welcome,
    Wire,
)
from quackbox.net.room import same_code
from quackbox.net.seats import Seats
from quackbox.net.text import clean_name, clean_text, name_keys

__all__ = ["LOBBY", "OVER", "PLAYING", "Lobby", "Peer"]

# Phases of the table.
LOBBY = "lobby"
PLAYING = "playing"
OVER = "over"

# WebSocket close codes (RFC 6455).
CLOSE_NORMAL = 1000
CLOSE_GOING_AWAY = 1001
CLOSE_POLICY = 1008
CLOSE_TOO_BIG = 1009

HELLO_TIMEOUT = 5.0
"""Seconds a new connection has to say hello."""
MAX_PENDING_PEERS = 64
"""Connections that have not said hello yet (or wait for the answer to a
wrong one). Their own budget, apart from seats and spectators: when one more
opens, the oldest of them is closed, so a crowd of silent connections never
keeps out a person whose hello comes right after their connection opens."""
CHAT_BACKLOG = 50
"""Chat lines a newcomer receives."""


@dataclass
class Peer:
    """One connection to the table."""

    conn: int
    remote: str
    """The address it comes from."""
    opened: float
    seat: int | None = None
    spectator: bool = False
    welcomed: bool = False
    closing: bool = False
    name: str = ""
    muted: bool = False
    """A spectator whose chat the host muted (a seat's mute is the seat's: :attr:`Lobby.muted`)."""
    limits: MessageLimits = field(init=False)
    chat: TokenBucket = field(init=False)
    """A spectator's chat allowance (a seat's is the seat's, whichever connection holds it)."""

    def __post_init__(self) -> None:
        self.limits = MessageLimits(self.opened)
        self.chat = TokenBucket(CHAT_BURST, CHAT_PER_SECOND, self.opened)


class Lobby:
    """The people at one table and their seats.

    Args:
        config: the table's room ``code`` and ``max_spectators``.
        rules: the game's rules (its name and title, for the welcome).
        wire: the table's wire, which encodes every frame.
        seats: the table's seats.
    """

    def __init__(self, config: TableConfig, rules: AnyRules, wire: Wire, seats: Seats) -> None:
        self.rules = rules
        self.wire = wire
        self.seats = seats
        self.code = config.code.strip().upper() if config.code else None
        self.max_spectators = config.max_spectators
        self.peers: dict[int, Peer] = {}
        self._chat: deque[tuple[int, bytes]] = deque(maxlen=CHAT_BACKLOG)
        """The latest chat lines, each with its number."""
        self._chat_count = 0
        self._seat_chat = [TokenBucket(CHAT_BURST, CHAT_PER_SECOND, 0.0) for _ in seats]
        self.wrong_tries = SlowDown()
        """Wrong room codes and seat tokens, per address: how long an answer to one is held back."""
        self._deferred: dict[int, tuple[float, list[Action]]] = {}
        """Answers to wrong tries held back until their time, by connection."""
        self.muted: set[int] = set()
        """The seats whose chat the host muted."""
        self.removed: set[str] = set()
        """The hashes of the seat tokens of people the host removed: they never sit here again."""

    @property
    def held_back(self) -> int:
        """How many answers to wrong tries are held back, not yet due."""
        return len(self._deferred)

    # --- what the lobby shows --------------------------------------------------------

    def message(self, phase: str) -> protocol.Lobby:
        """The lobby message as it stands."""
        return protocol.Lobby(
            started=phase == PLAYING,
            over=phase == OVER,
            starter=self.seats.starter,
            seats=self.seats.info(playing=phase != LOBBY, muted=self.muted),
            spectators=sum(1 for p in self.peers.values() if p.spectator),
            watchers=tuple(p.name for p in self.peers.values() if p.spectator),
        )

    def announce(self, phase: str, *, skip: int | None = None) -> list[Action]:
        """The lobby message as it stands, to everyone (but connection ``skip``)."""
        return self.broadcast(self.message(phase), skip=skip)

    def audience(self) -> Iterator[Peer]:
        """The connections that said hello and are not closing: everyone told of everything."""
        return (p for p in self.peers.values() if p.welcomed and not p.closing)

    def wakeups(self) -> list[float]:
        """When each connection still to say hello runs out of time, and when
        each answer held back is due."""
        times = [p.opened + HELLO_TIMEOUT for p in self.peers.values() if not p.welcomed and not p.closing]
        return times + [due for due, _ in self._deferred.values()]

    # --- connections coming and going ------------------------------------------------

    def connect(self, conn: int, remote: str, now: float) -> list[Action]:
        """A new connection ``conn`` from address ``remote`` opened."""
        self.peers[conn] = Peer(conn, remote, now)
        # Waiting: no hello yet, or a wrong one whose answer is held back.
        pending = [p for p in self.peers.values() if not p.welcomed and (not p.closing or p.conn in self._deferred)]
        if len(pending) <= MAX_PENDING_PEERS:
            return []
        # Dicts keep their order: the first is the oldest.
        oldest = pending[0]
        self._deferred.pop(oldest.conn, None)
        oldest.closing = True
        return self.send(
            oldest, Bye(reason="hello_timeout", message="Too many connections are waiting to say hello."), free=True
        ) + [Close(oldest.conn, CLOSE_POLICY, "hello timeout", free=True)]

    def hello(self, peer: Peer, hello: Hello, now: float, *, phase: str) -> list[Action]:
        """``peer`` said hello: check its seat token or the room code, and the
        name, then seat it, or let it watch.

        A valid seat token needs no room code (it is the longer secret of the
        two). A wrong code or token closes the connection (one try per
        connection), and past a few tries from one address the answer is
        held back (:class:`quackbox.net.limits.SlowDown`); a right one is never slowed.
        """
        seat = None
        if hello.token is not None:
            if token_hash(hello.token) in self.removed:
                return self.refuse(peer, ErrorCode.REMOVED, "The host removed you from this table.", "hello")
            seat = self.seats.by_token(hello.token)
            if seat is None:
                return self.wrong(peer, now, ErrorCode.BAD_TOKEN, "That seat token is not valid at this table.")
        elif self.code is not None:
            if not same_code(hello.code or "", self.code):
                what = "needs a room code" if not hello.code else "has a different room code"
                return self.wrong(peer, now, ErrorCode.WRONG_CODE, f"This table {what}; ask the host for it.")
        name = clean_name(hello.name)
        if len(name) > MAX_NAME:
            return self.refuse(peer, ErrorCode.TOO_LONG, f"Names are at most {MAX_NAME} characters.", "hello")
        out: list[Action] = []
        if seat is not None and hello.token is not None:  # a seat is found only by its token
            old = self.peers.get(seat.conn) if seat.conn is not None else None
            if old is not None and old is not peer:
                # A reconnect often beats the old socket's timeout: the newest wins.
                old.closing = True
                old.seat = None
                out += self.send(old, Bye(reason="replaced", message="This seat was taken over by a newer connection."))
                out.append(Close(old.conn, CLOSE_NORMAL, "replaced"))
            self.seats.reclaim(
                seat, hello.token, peer.conn, name=name if phase == LOBBY else "", taken=self.watcher_keys()
            )
            peer.seat = seat.index
        elif hello.spectate:
            watching = sum(1 for p in self.peers.values() if p.spectator)
            if watching >= self.max_spectators:
                return self.refuse(
                    peer, ErrorCode.TABLE_FULL, "This table has all the spectators it can take.", "hello"
                )
            peer.spectator = True
            peer.name = self.seats.unique_name(name or "Spectator", None, taken=self.watcher_keys(besides=peer))
        elif phase == PLAYING:
            return self.refuse(
                peer, ErrorCode.GAME_STARTED, "The game has already started; you can join as a spectator.", "hello"
            )
        else:
            seat = self.seats.take_open(name, peer.conn, taken=self.watcher_keys())
            if seat is None:
                return self.refuse(peer, ErrorCode.TABLE_FULL, "Every seat at this table is taken.", "hello")
            peer.seat = seat.index
        peer.welcomed = True
        if peer.seat is not None:
            peer.name = self.seats[peer.seat].name
        welcome = Welcome(
            version=PROTOCOL_VERSION,
            game=self.rules.name,
            title=self.rules.title,
            seats=len(self.seats),
            seat=peer.seat,
            token=self.seats[peer.seat].token if peer.seat is not None else None,
            starter=peer.seat is not None and peer.seat == self.seats.starter,
        )
        out += self.send(peer, welcome, free=True)
        out += self.announce(phase)
        # Only what it has not had: a reconnecting client says the number of its last line.
        return out + [Send(peer.conn, line, free=True) for number, line in self._chat if number > hello.chat_seen]

    def watcher_keys(self, besides: Peer | None = None) -> set[str]:
        """The :func:`~quackbox.net.text.name_keys` of every spectator's name (but ``besides``)."""
        return set().union(*(name_keys(p.name) for p in self.peers.values() if p.spectator and p is not besides))

    def wrong(self, peer: Peer, now: float, code: ErrorCode, message: str) -> list[Action]:
        """A wrong room code or seat token: refused and closed, after the
        delay its address has earned."""
        answer = self.refuse(peer, code, message, "hello")
        delay = self.wrong_tries.failed(peer.remote, now)
        if delay <= 0:
            return answer
        self._deferred[peer.conn] = (now + delay, answer)
        return []

    def leave(self, peer: Peer, now: float, *, phase: str) -> list[Action]:
        """The person said bye: in the lobby the seat opens; in a game it is away."""
        peer.closing = True
        out: list[Action] = [Close(peer.conn, CLOSE_NORMAL, "bye")]
        if peer.seat is not None:
            self.seats.left(self.seats[peer.seat], peer.conn, now, in_game=phase == PLAYING)
            peer.seat = None
        peer.spectator = False
        return out + self.announce(phase, skip=peer.conn)

    def disconnect(self, conn: int, now: float, *, phase: str) -> list[Action]:
        """Connection ``conn`` closed (either side)."""
        peer = self.peers.pop(conn, None)
        self._deferred.pop(conn, None)
        if peer is None or not peer.welcomed:
            return []
        if peer.seat is not None:
            self.seats.gone(self.seats[peer.seat], conn, now)
        return self.announce(phase)

    def back(self, peer: Peer, *, phase: str) -> list[Action]:
        """``peer`` sent something: if a bot was playing for its idle person, the person takes the seat back."""
        if peer.seat is None or not self.seats[peer.seat].idle:
            return []
        self.seats[peer.seat].idle = False
        return self.announce(phase)

    def hello_timeouts(self, now: float) -> list[Action]:
        """Close the connections that did not say hello in time; give the
        answers held back whose time has come."""
        out: list[Action] = []
        for conn, (due, answer) in list(self._deferred.items()):
            if now >= due:
                del self._deferred[conn]
                out += answer
        for peer in list(self.peers.values()):
            if not peer.welcomed and not peer.closing and now >= peer.opened + HELLO_TIMEOUT:
                peer.closing = True
                out += self.send(
                    peer, Bye(reason="hello_timeout", message="No hello within the time allowed."), free=True
                )
                out.append(Close(peer.conn, CLOSE_POLICY, "hello timeout", free=True))
        return out

    def shutdown(self, reason: str, message: str) -> list[Action]:
        """Say ``bye`` to everyone and close every connection."""
        out: list[Action] = []
        for peer in self.peers.values():
            if not peer.closing:
                peer.closing = True
                out += self.send(peer, Bye(reason=reason, message=message))
                out.append(Close(peer.conn, CLOSE_GOING_AWAY, reason))
        return out

    # --- getting ready, starting, talking --------------------------------------------

    def ready(self, peer: Peer, ready: Ready, *, phase: str) -> list[Action]:
        if peer.seat is None:
            return self.error(peer, ErrorCode.NOT_SEATED, "Spectators have no seat to get ready.", "ready")
        if phase == PLAYING:
            return self.error(peer, ErrorCode.BAD_MESSAGE, "The game has already started.", "ready")
        self.seats[peer.seat].ready = ready.ready
        return self.announce(phase)

    def refuse_start(self, peer: Peer, *, phase: str) -> list[Action] | None:
        """Why ``peer`` may not start a game now (the replies), or None if it may."""
        if phase == PLAYING:
            return self.error(peer, ErrorCode.BAD_MESSAGE, "The game has already started.", "start")
        starter = self.seats.starter
        if peer.seat is None or peer.seat != starter:
            who = self.seats[starter].name if starter is not None else "the host"
            return self.error(peer, ErrorCode.NOT_STARTER, f"Only {who} may start the game.", "start")
        waiting = self.seats.not_ready(besides=peer.seat)
        if waiting:
            return self.error(peer, ErrorCode.NOT_READY, f"Waiting for {', '.join(waiting)} to be ready.", "start")
        return None

    def say(self, peer: Peer, say: Say, now: float) -> list[Action]:
        """A chat line from ``peer``, cleaned, to everyone (and kept for newcomers)."""
        if peer.muted or (peer.seat is not None and peer.seat in self.muted):
            return self.error(
                peer, ErrorCode.MUTED, "The host has muted your chat: the table does not see it.", "chat", free=True
            )
        bucket = self._seat_chat[peer.seat] if peer.seat is not None else peer.chat
        if not bucket.take(now):
            return self.error(peer, ErrorCode.RATE_LIMITED, "You are chatting too fast.", "chat")
        text = clean_text(say.text)
        if len(text) > MAX_CHAT:
            return self.error(peer, ErrorCode.TOO_LONG, f"Chat lines are at most {MAX_CHAT} characters.", "chat")
        if not text:
            return self.error(peer, ErrorCode.BAD_MESSAGE, "That chat line is empty.", "chat")
        self._chat_count += 1
        frame = self.wire.encode(ChatLine(seat=peer.seat, name=peer.name, text=text, number=self._chat_count))
        self._chat.append((self._chat_count, frame))
        return [Send(p.conn, frame, free=True) for p in self.audience()]

    # --- telling people --------------------------------------------------------------

    def send(self, peer: Peer, message: Any, *, free: bool = False) -> list[Action]:
        """``message`` to ``peer`` (``free``: it tells nothing of the game, see :class:`Send`)."""
        return [Send(peer.conn, self.wire.encode(message), free)]

    def broadcast(self, message: Any, skip: int | None = None) -> list[Action]:
        """``message`` to everyone (but connection ``skip``), encoded once."""
        frame = self.wire.encode(message)
        return [Send(p.conn, frame) for p in self.audience() if p.conn != skip]

    def error(
        self, peer: Peer, code: ErrorCode, message: str, refused: str = "", *, free: bool = False
    ) -> list[Action]:
        return self.send(peer, Error(code=code.value, message=message, refused=refused), free=free)

    def refuse(self, peer: Peer, code: ErrorCode, message: str, refused: str = "") -> list[Action]:
        """Reply with an error; close too if it is a protocol violation or a refused join.
        A connection that was never welcomed was told nothing of the game: its answer is free."""
        free = not peer.welcomed
        out = self.error(peer, code, message, refused, free=free)
        if ProtocolError(code, message).fatal:
            peer.closing = True
            close = CLOSE_TOO_BIG if code == ErrorCode.FRAME_TOO_LARGE else CLOSE_POLICY
            if code in (ErrorCode.TABLE_FULL, ErrorCode.GAME_STARTED):
                close = CLOSE_NORMAL
            out.append(Close(peer.conn, close, code.value, free))
        return out

    def rate_limited(self, peer: Peer, verdict: Verdict, refused: str) -> list[Action]:
        """A message refused for rate: the error and the wait, or (a flood) goodbye."""
        if verdict.rate is Rate.FLOOD:
            peer.closing = True
            return self.send(peer, Bye(reason="flood", message="Too many messages; the connection was closed.")) + [
                Close(peer.conn, CLOSE_POLICY, "flood")
            ]
        wait = verdict.retry_after
        message = f"Too many messages; that {refused or 'message'} was not handled. Send it again in {wait:.2f} s."
        return self.send(
            peer, Error(code=ErrorCode.RATE_LIMITED.value, message=message, refused=refused, retry_after=wait)
        )
