"""The quackbox wire protocol: the closed set of messages, their codec and limits.

Every message is one msgpack map in one WebSocket *binary* frame, tagged by
its ``"type"`` key. Game values inside a message (a move, a view, events) are
maps tagged by ``"@"`` with their class name, but for cards, which travel as
their ids; see :mod:`quackbox.net.codec`. The
reference a third party can write a client from is ``docs/PROTOCOL.md``; this
module is the executable version of it, and a test checks that the two agree
on every message type and error code.

Direction matters: a client may send only :data:`CLIENT_MESSAGES`, a host
only :data:`HOST_MESSAGES`. Decoding checks every field (see
:class:`Wire`), and raises nothing but :class:`ProtocolError`, whose ``code``
is one of :class:`ErrorCode` and is what the host replies with.

Text a player supplies (names, chat) passes through
:func:`quackbox.net.text.clean_text` on the host, which strips control
characters, terminal escape sequences and what draws as nothing. It may
still *look* like Rich markup (``[bold]hi[/]``): clients must display it as
plain text, never interpret it as markup (the TUI renders it as a Rich
``Text``, never through ``Text.from_markup`` or a markup-enabled widget).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, ClassVar, Iterable, Sequence

import msgpack

from quackbox.core.rules import Event, LineKind, Move, Outcome, RulesError
from quackbox.net.codec import Codec, DecodeError, _short
from quackbox.net.errors import NetError

__all__ = [
    "Bye",
    "ChatLine",
    "CLIENT_MESSAGES",
    "ClientMessage",
    "DeadlineInfo",
    "DEFAULT_PORT",
    "DEFAULT_SSH_PORT",
    "DEFAULT_WEB_PORT",
    "Error",
    "ErrorCode",
    "FATAL_CODES",
    "HOST_MESSAGES",
    "HostMessage",
    "Hello",
    "LineKind",
    "Lobby",
    "LogLine",
    "MAX_CHAT",
    "MAX_FRAME",
    "MAX_HOST_FRAME",
    "MAX_NAME",
    "MoveMessage",
    "Mute",
    "Notice",
    "PROTOCOL_VERSION",
    "Paused",
    "Remove",
    "ProtocolError",
    "Ready",
    "Say",
    "SeatInfo",
    "Start",
    "Started",
    "View",
    "Welcome",
    "Wire",
]

PROTOCOL_VERSION = 4
"""Sent in ``hello`` and ``welcome``; a host refuses any other version.
Version 2: cards travel by id, so the games' card tables are part of the
version (a test pins their digest to it). Version 3: the two games name their
shared ideas alike (a Quack view's ``current``, ``players``, ``window_seats``,
``*_count`` and a doctor's ``case``; docs/PROTOCOL.md lists every field), and
a view's log lines are ``LogLine`` records that say their kind. Version 4: the
host says when play is paused and why (``paused``; the error ``paused``), and the
host's seat keeps order (``remove``, ``mute``, ``notice``)."""

DEFAULT_PORT = 7117
DEFAULT_SSH_PORT = 2222
"""Where ``quackbox host --ssh`` lets players in with plain ssh (net.ssh)."""
DEFAULT_WEB_PORT = 7118
"""Where ``quackbox host --web`` serves the table's page to browsers (net.web)."""

MAX_FRAME = 64 * 1024
"""Largest frame a host accepts from a client, in bytes."""
MAX_HOST_FRAME = 1024 * 1024
"""Largest frame a client accepts from a host (an 8-seat view is ~10 KiB)."""
MAX_NAME = 24
"""Longest player name, in characters, after cleaning."""
MAX_CHAT = 300
"""Longest chat line, in characters, after cleaning."""
MAX_TOKEN = 64
MAX_CODE = 16
MAX_RAW_TEXT = 2000
"""Longest text field accepted before cleaning; longer frames are refused outright."""

TYPE = "type"
"""The key naming a message's type."""


class ErrorCode(enum.StrEnum):
    """Every error a host may reply with. Stable: clients may switch on them."""

    # The frame itself: these close the connection.
    BAD_FRAME = "bad_frame"
    FRAME_TOO_LARGE = "frame_too_large"
    # The message.
    BAD_MESSAGE = "bad_message"
    # Joining: these close the connection.
    VERSION_MISMATCH = "version_mismatch"
    WRONG_CODE = "wrong_code"
    TABLE_FULL = "table_full"
    GAME_STARTED = "game_started"
    BAD_TOKEN = "bad_token"
    HELLO_FIRST = "hello_first"
    # The lobby.
    NOT_SEATED = "not_seated"
    NOT_STARTER = "not_starter"
    NOT_READY = "not_ready"
    NOT_STARTED = "not_started"
    TOO_LONG = "too_long"
    RATE_LIMITED = "rate_limited"
    # Moves: the first four are core.rules.RulesError codes.
    MALFORMED_MOVE = "malformed_move"
    NOT_YOUR_TURN = "not_your_turn"
    ILLEGAL_MOVE = "illegal_move"
    GAME_OVER = "game_over"
    STALE_VIEW = "stale_view"
    HOST_ONLY = "host_only"
    HOST_ERROR = "host_error"
    # The table.
    PAUSED = "paused"
    # Keeping order.
    NOT_HOST = "not_host"
    MUTED = "muted"
    REMOVED = "removed"


FATAL_CODES = frozenset(
    {
        ErrorCode.BAD_FRAME,
        ErrorCode.FRAME_TOO_LARGE,
        ErrorCode.VERSION_MISMATCH,
        ErrorCode.WRONG_CODE,
        ErrorCode.TABLE_FULL,
        ErrorCode.GAME_STARTED,
        ErrorCode.BAD_TOKEN,
        ErrorCode.HELLO_FIRST,
        ErrorCode.REMOVED,
    }
)
"""Errors after which the host closes the connection (a protocol violation or a refused join)."""

# A rules error's code becomes the wire code; a new RulesError subclass with a
# code the wire does not know is reported as illegal_move rather than leaking
# an undocumented code.
_RULES_CODES = {c.value for c in ErrorCode}


class ProtocolError(NetError):
    """A frame or message that cannot be accepted; ``code`` is an :class:`ErrorCode`.

    ``str()`` is a plain sentence suitable for showing to the person whose
    client sent it. ``refused`` is the type of the message refused, when the
    frame said a type this end knows (the ``error`` message's ``refused``).
    """

    code: ErrorCode

    def __init__(self, code: ErrorCode, message: str, *, refused: str = "") -> None:
        self.code = ErrorCode(code)
        self.message = message
        self.refused = refused
        super().__init__(message)

    @property
    def fatal(self) -> bool:
        """Whether the host closes the connection after replying."""
        return self.code in FATAL_CODES

    @classmethod
    def from_rules(cls, exc: RulesError) -> ProtocolError:
        code = exc.code if exc.code in _RULES_CODES else ErrorCode.ILLEGAL_MOVE
        return cls(ErrorCode(code), str(exc))


# --- messages -------------------------------------------------------------------
#
# Each message is a frozen dataclass; TYPE names it on the wire. Fields with a
# default may be left out of a frame; any other missing or unknown field is
# refused.


@dataclass(frozen=True, slots=True, kw_only=True)
class Hello:
    """Client, first message: who is joining, and how."""

    TYPE: ClassVar[str] = "hello"
    version: int
    name: str
    token: str | None = None
    """A seat token from an earlier ``welcome``: reclaim that seat."""
    code: str | None = None
    """The room code, required by a host listening beyond loopback."""
    spectate: bool = False
    """Watch without a seat (public view only)."""
    log_seen: int = -1
    """The number of the last log line this client has (a reconnection): the host sends only
    the lines after it. -1: none yet (send the recent log)."""
    chat_seen: int = -1
    """The number of the last chat line this client has: the host sends only those after it.
    -1: none yet (send the chat backlog)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Ready:
    """Client, lobby: this seat is (or is no longer) ready to start."""

    TYPE: ClassVar[str] = "ready"
    ready: bool = True


@dataclass(frozen=True, slots=True, kw_only=True)
class Start:
    """Client, lobby: start the game (only the starter seat may)."""

    TYPE: ClassVar[str] = "start"


@dataclass(frozen=True, slots=True, kw_only=True)
class MoveMessage:
    """Client: make ``move``, chosen from the view numbered ``seq``."""

    TYPE: ClassVar[str] = "move"
    seq: int
    move: Move


@dataclass(frozen=True, slots=True, kw_only=True)
class Say:
    """Client: a line of table chat."""

    TYPE: ClassVar[str] = "chat"
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Remove:
    """Client, the host's seat only: remove the person called ``name`` (a seat's person or a
    spectator) from the table. A seat's person is replaced by a bot, and their seat token
    can never take a seat at this table again."""

    TYPE: ClassVar[str] = "remove"
    name: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Mute:
    """Client, the host's seat only: stop relaying the chat of the person called ``name``
    (``muted`` false: relay it again)."""

    TYPE: ClassVar[str] = "mute"
    name: str
    muted: bool = True


@dataclass(frozen=True, slots=True, kw_only=True)
class Bye:
    """Either side: the connection is ending on purpose, and why.

    ``reason`` is a stable word (``left``, ``shutdown``, ``game_over``,
    ``replaced``, ``protocol_error``, ``slow_reader``, ``flood``,
    ``hello_timeout``, ``removed``); ``message`` is a sentence for people.
    """

    TYPE: ClassVar[str] = "bye"
    reason: str = "left"
    message: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class Welcome:
    """Host, the answer to ``hello``: the table, and the seat you hold."""

    TYPE: ClassVar[str] = "welcome"
    version: int
    game: str
    """The game's id (``side-effects``, ``quack``): which rules decode views."""
    title: str
    seats: int
    seat: int | None
    """Your seat, or nil for a spectator."""
    token: str | None
    """Keep it: ``hello`` with it reclaims this seat after a disconnect."""
    starter: bool
    """Whether this seat may start the game."""


OPEN = "open"
HUMAN = "human"
BOT = "bot"
"""The seat kinds (``SeatInfo.kind``): nobody yet, a person, a bot."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatInfo:
    """One seat as the lobby shows it."""

    seat: int
    name: str
    kind: str
    """OPEN (nobody yet), HUMAN or BOT."""
    connected: bool
    ready: bool
    away: bool
    """A human seat whose person is disconnected or idle; a bot may stand in."""
    muted: bool = False
    """The host muted this seat's chat."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Lobby:
    """Host: every seat and its presence; sent whenever any of it changes."""

    TYPE: ClassVar[str] = "lobby"
    started: bool
    over: bool
    starter: int | None
    """The seat that may start the game (nil: none yet)."""
    seats: tuple[SeatInfo, ...]
    spectators: int
    watchers: tuple[str, ...] = ()
    """The spectators' names (each unique at the table, seats included)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Started:
    """Host: the game began; a ``view`` follows."""

    TYPE: ClassVar[str] = "started"
    names: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class DeadlineInfo:
    """A countdown the host is running: ``seat`` must answer within ``seconds``."""

    seat: int
    kind: str
    seconds: float
    """Seconds the host will still wait from when the frame was sent: the
    rules' time left plus the host's latency grace (network latency not
    deducted), so a countdown shown from it ends when the host acts."""


@dataclass(frozen=True, slots=True, kw_only=True)
class LogLine:
    """One line of a seat's log: its ``text``, told from that seat's side, and its
    ``kind``, so a client can set lines apart without reading their words."""

    text: str
    kind: LineKind
    event: int = -1
    """The event it tells, by its place in the view's ``events``; -1: none
    (a line from the host, or a line of the recent log sent again)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class View:
    """Host: what your seat may now see, after the events that led to it.

    ``seq`` numbers the game's states; send it back with a move made from
    this view. ``events`` are the events since your previous view, redacted
    for your seat, and ``log`` the same events as lines for people.
    """

    TYPE: ClassVar[str] = "view"
    seq: int
    view: Any
    events: tuple[Event, ...]
    log: tuple[LogLine, ...]
    deadline: DeadlineInfo | None
    log_from: int = 0
    """The number of the first line of ``log``: each seat's (and the spectators') log lines
    are numbered from 1, the same line the same number every time it is sent."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ChatLine:
    """Host: a line of chat from ``seat`` (nil: a spectator), already cleaned."""

    TYPE: ClassVar[str] = "chat"
    seat: int | None
    name: str
    text: str
    number: int = 0
    """The table's chat lines are numbered from 1: a line sent again keeps its number."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Error:
    """Host: a request was refused. ``code`` is an :class:`ErrorCode`."""

    TYPE: ClassVar[str] = "error"
    code: str
    message: str
    refused: str = ""
    """The type of the message that was refused, if known."""
    retry_after: float = 0.0
    """Seconds after which sending the refused message again may succeed
    (``rate_limited``); 0 when sending it again would not help."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Paused:
    """Host: play is paused (``reason``, a sentence for people), or goes on again
    (``reason`` empty). While paused, moves and starts are refused with ``paused``;
    chat goes on. Sent to everyone when it changes, and after ``welcome`` to whoever
    joins meanwhile."""

    TYPE: ClassVar[str] = "paused"
    reason: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class Notice:
    """Host: a sentence about the table for people's logs (the host removed someone, muted
    someone's chat)."""

    TYPE: ClassVar[str] = "notice"
    text: str


ClientMessage = Hello | Ready | Start | MoveMessage | Say | Bye | Remove | Mute
HostMessage = Welcome | Lobby | Started | View | ChatLine | Error | Bye | Paused | Notice
CLIENT_MESSAGES: tuple[type[ClientMessage], ...] = (Hello, Ready, Start, MoveMessage, Say, Bye, Remove, Mute)
HOST_MESSAGES: tuple[type[HostMessage], ...] = (Welcome, Lobby, Started, View, ChatLine, Error, Bye, Paused, Notice)
_HANDSHAKE = (Welcome, Error, Bye)
"""What a client may receive before it knows which game the host plays."""
_VALUE_TYPES = (SeatInfo, DeadlineInfo, LogLine, Outcome)


# --- the codec -------------------------------------------------------------------


class Wire:
    """Encodes and decodes protocol frames for one game.

    Args:
        rules: the game's rules (its ``wire_types()`` are the game values a
            frame may carry, and its ``wire_refs()`` the cards that travel
            by id), or None for a client that has not yet been
            welcomed: it can only decode ``welcome``, ``error`` and ``bye``.
    """

    def __init__(self, rules: Any | None) -> None:
        game_types: tuple[type, ...] = tuple(rules.wire_types()) if rules is not None else ()
        refs = rules.wire_refs() if rules is not None else {}
        self.rules = rules
        if rules is not None:
            self._from_client = {cls.TYPE: cls for cls in CLIENT_MESSAGES}
            self._from_host = {cls.TYPE: cls for cls in HOST_MESSAGES}
        else:
            self._from_client = {Hello.TYPE: Hello, Bye.TYPE: Bye}
            self._from_host = {cls.TYPE: cls for cls in _HANDSHAKE}
        # Every annotation is read now, so rules whose types the wire cannot
        # carry fail when the host starts, not mid-game.
        messages = {*self._from_client.values(), *self._from_host.values()}
        self.values = Codec(game_types + _VALUE_TYPES, refs=refs, messages=messages, max_str=MAX_RAW_TEXT)

    # encoding ---------------------------------------------------------------

    def encode(self, message: Any) -> bytes:
        """One frame holding ``message``: a map of its ``type``, then its fields."""
        return self.values.pack({TYPE: message.TYPE, **self.values.fields_of(message)})

    def encode_alike(self, messages: Sequence[Any]) -> list[bytes]:
        """A frame for each of ``messages`` (the views of one change, one per
        seat), as :meth:`encode` makes it, but what all of them hold alike
        (the public part of the table) is packed once (:meth:`Codec.pack_alike`)."""
        return self.values.pack_alike([{TYPE: message.TYPE, **self.values.fields_of(message)} for message in messages])

    # decoding ---------------------------------------------------------------

    def decode_from_client(self, data: bytes | str) -> Any:
        """A message a client sent; ProtocolError if the frame or message is bad."""
        obj = self._unpack(data, MAX_FRAME)
        kind = obj.get(TYPE) if isinstance(obj, dict) else None
        if kind == Hello.TYPE:
            # Checked before the fields, so a future client whose hello has
            # other fields still learns that the versions differ.
            version = obj.get("version")
            if type(version) is int and version != PROTOCOL_VERSION:
                raise ProtocolError(
                    ErrorCode.VERSION_MISMATCH,
                    f"This host speaks protocol version {PROTOCOL_VERSION}, your client speaks {version}; "
                    "use the same quackbox version as the host.",
                    refused=Hello.TYPE,
                )
        return self._decode(obj, self._from_client)

    def decode_from_host(self, data: bytes | str) -> Any:
        """A message a host sent; ProtocolError if the frame or message is bad."""
        return self._decode(self._unpack(data, MAX_HOST_FRAME), self._from_host)

    def _decode(self, obj: Any, registry: dict[str, type]) -> Any:
        if not isinstance(obj, dict):
            raise ProtocolError(ErrorCode.BAD_MESSAGE, "A message must be a map with a 'type' key.")
        kind = obj.get(TYPE)
        cls = registry.get(kind) if type(kind) is str else None
        if cls is None:
            known = ", ".join(sorted(registry))
            raise ProtocolError(ErrorCode.BAD_MESSAGE, f"Unknown message type {_short(kind)}; expected one of {known}.")
        try:
            return self.values.decode_fields(cls, obj, TYPE)
        except DecodeError as exc:
            raise _refusal(exc, kind) from None

    def _unpack(self, data: Any, limit: int) -> Any:
        """The one msgpack value in ``data``, as plain values; ProtocolError otherwise.

        Map keys other than text are let through here (``strict_map_key``
        off), so that the codec refuses them as a bad message, naming the place.
        """
        if isinstance(data, str):
            raise ProtocolError(ErrorCode.BAD_FRAME, "Text frames are not part of the protocol; send binary frames.")
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise ProtocolError(ErrorCode.BAD_FRAME, "A frame must be bytes.")
        if len(data) > limit:
            raise ProtocolError(
                ErrorCode.FRAME_TOO_LARGE, f"A frame of {len(data)} bytes is over the limit of {limit} bytes."
            )
        try:
            return msgpack.unpackb(
                data,
                raw=False,
                strict_map_key=False,
                use_list=False,
                max_str_len=limit,
                max_bin_len=limit,
                max_array_len=limit,
                max_map_len=limit,
                max_ext_len=limit,
            )
        # msgpack raises a zoo of types for bad input (ExtraData, FormatError,
        # StackError, ValueError, UnicodeDecodeError, TypeError for a map
        # used as a key...); every one of them means the same thing here.
        except Exception:
            raise ProtocolError(ErrorCode.BAD_FRAME, "The frame is not one valid msgpack value.") from None


def _refusal(exc: DecodeError, kind: str | None) -> ProtocolError:
    """The ProtocolError for a field that did not decode."""
    bad_move = (exc.cls is not None and issubclass(exc.cls, Move)) or exc.where.startswith("MoveMessage.move")
    code = ErrorCode.MALFORMED_MOVE if bad_move else ErrorCode.BAD_MESSAGE
    what = f"Bad {kind} message" if kind else "Bad value in the message"
    return ProtocolError(code, f"{what}: {exc}.", refused=kind or "")


def message_types() -> Iterable[str]:
    """Every message type on the wire (both directions), for docs and tests."""
    return sorted({cls.TYPE for cls in CLIENT_MESSAGES + HOST_MESSAGES})
