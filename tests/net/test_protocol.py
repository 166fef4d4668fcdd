"""The wire: round trips of every message and game value, strict decoding, and
the fuzz contract (any input is a message or a ProtocolError, nothing else)."""

from __future__ import annotations

import dataclasses
import enum
import functools
import hashlib
import re
import types
import typing
from pathlib import Path
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quackbox.cards.quack import Anytime, Patient, Treatment
from quackbox.cards.side_effects import SECard
from quackbox.core import games
from quackbox.core.bots import make as make_bot
from quackbox.core.play import next_move
from quackbox.core.rules import Move, Outcome
from quackbox.core.side_effects.view import Prompt
from quackbox.net.codec import MAX_DEPTH, Codec, DecodeError
from quackbox.net.protocol import (
    CLIENT_MESSAGES,
    HOST_MESSAGES,
    MAX_FRAME,
    PROTOCOL_VERSION,
    Bye,
    ChatLine,
    DeadlineInfo,
    Error,
    ErrorCode,
    Hello,
    LineKind,
    Lobby,
    LogLine,
    MoveMessage,
    Mute,
    Notice,
    Paused,
    ProtocolError,
    Ready,
    Remove,
    Say,
    SeatInfo,
    Start,
    Started,
    View,
    Welcome,
    Wire,
    message_types,
)
from tests.net import fakegame

GAME_NAMES = sorted(games.GAMES)
DOCS = Path(__file__).resolve().parents[2] / "docs" / "PROTOCOL.md"
REFS: dict[type, Any] = {cls: table for name in GAME_NAMES for cls, table in games.get(name).wire_refs().items()}
"""Every game's classes sent by reference (its cards), with their tables; no
two games share a card class, so one map serves every test."""


# --- values from annotations ------------------------------------------------------------
#
# A strategy for any value of an annotation, written independently of the
# codec, so round trips check the codec against the annotations themselves.

TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=30)
INT = st.integers(-(2**63), 2**63 - 1)
FLOAT = st.floats(allow_nan=False, allow_infinity=False)


def strategy_for(ann: Any, classes: dict[str, type], depth: int = 0) -> st.SearchStrategy:
    if ann in REFS:  # a card can only be one of the game's cards
        return st.sampled_from(REFS[ann])
    if ann is int:
        return INT
    if ann is bool:
        return st.booleans()
    if ann is float:
        return FLOAT
    if ann is str:
        return TEXT
    if ann is None or ann is type(None):
        return st.none()
    if isinstance(ann, type) and issubclass(ann, enum.Enum):
        return st.sampled_from(list(ann))
    if ann is Any or ann is object:
        dataclass_types = [c for c in classes.values()]
        return st.one_of(INT, TEXT, st.none(), *(instances(c, classes, depth + 1) for c in dataclass_types[:3]))
    origin, args = typing.get_origin(ann), typing.get_args(ann)
    if origin is typing.Union or origin is types.UnionType:
        return st.one_of(*(strategy_for(a, classes, depth) for a in args))
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return st.lists(strategy_for(args[0], classes, depth + 1), max_size=3 if depth < 3 else 0).map(tuple)
        return st.tuples(*(strategy_for(a, classes, depth + 1) for a in args))
    if isinstance(ann, type) and issubclass(ann, enum.Enum):
        return st.sampled_from(list(ann))
    if isinstance(ann, type) and dataclasses.is_dataclass(ann):
        subclasses = [c for c in classes.values() if issubclass(c, ann)]
        return st.one_of(*(instances(c, classes, depth + 1) for c in subclasses))
    raise AssertionError(f"no strategy for {ann!r}")


def instances(cls: type, classes: dict[str, type], depth: int = 0) -> st.SearchStrategy:
    hints = typing.get_type_hints(cls)
    fields = {f.name: strategy_for(hints[f.name], classes, depth) for f in dataclasses.fields(cls)}
    return st.fixed_dictionaries(fields).map(lambda kw: cls(**kw))


def classes_of(rules) -> dict[str, type]:
    """The classes of ``rules`` the wire tags (its cards travel by id)."""
    return {c.__name__: c for c in (*rules.wire_types(), Outcome) if c not in REFS}


# --- round trips ---------------------------------------------------------------------------


def drawn_messages(data, classes):
    """A View carrying a drawn value of each class, and a MoveMessage for each move."""
    for cls in classes.values():
        value = data.draw(instances(cls, classes), label=cls.__name__)
        yield View(seq=3, view=value, events=(), log=(), deadline=None)
        if issubclass(cls, Move):
            yield MoveMessage(seq=1, move=value)


@pytest.mark.parametrize("game", GAME_NAMES)
def test_every_game_value_round_trips(game):
    """Every move, event and view class of every game survives encode -> decode."""
    rules = games.get(game)
    wire = Wire(rules)
    classes = classes_of(rules)

    @settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.data())
    def check(data):
        for message in drawn_messages(data, classes):
            decode = wire.decode_from_client if isinstance(message, MoveMessage) else wire.decode_from_host
            assert decode(wire.encode(message)) == message

    check()


@pytest.mark.parametrize(
    ("game", "options"), [(name, {}) for name in GAME_NAMES] + [("side-effects", {"bonus_cards": True})]
)
def test_real_views_and_events_round_trip(game, options):
    """The views and events of a real game played by bots, for every seat and a
    spectator (and Side Effects with its bonus cards, whose ids follow the base deck's)."""
    rules = games.get(game)
    wire = Wire(rules)
    seats = 4
    bots = [make_bot(game, "heuristic", s) for s in range(seats)]
    state = rules.new_game(seats=seats, seed=5, options=options)
    for _ in range(80):
        if rules.outcome(state) is not None:
            break
        seat, move = next_move(rules, state, bots)
        events = rules.apply(state, seat, move)
        for watcher in (*range(seats), None):
            seen = tuple(e for e in (rules.redact(e, watcher) for e in events) if e is not None)
            message = View(
                seq=7,
                view=rules.view(state, watcher),
                events=seen,
                log=(LogLine(text="a line", kind=LineKind.MINE, event=0),),
                deadline=DeadlineInfo(seat=0, kind="x", seconds=1.5),
            )
            frame = wire.encode(message)
            assert len(frame) < MAX_FRAME
            assert wire.decode_from_host(frame) == message


def documented(value: Any, by_reference: bool = True) -> Any:
    """``value`` as docs/PROTOCOL.md describes it, written apart from the codec:
    a message is a map of its type then its fields, a card its id, another
    game value a map of "@" then its fields, a tuple an array, an enum its
    value. With ``by_reference`` false, cards too are tagged maps (as they
    travelled before they went by id)."""
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, tuple):
        return [documented(v, by_reference) for v in value]
    if by_reference and type(value) in REFS:
        return value.id
    if dataclasses.is_dataclass(value):
        head = {"type": value.TYPE} if hasattr(value, "TYPE") else {"@": type(value).__name__}
        return head | {f.name: documented(getattr(value, f.name), by_reference) for f in dataclasses.fields(value)}
    return value


def nesting(obj: Any) -> int:
    """How deep the maps and arrays of an unpacked value go (a scalar is 0)."""
    if isinstance(obj, dict):
        return 1 + max((nesting(v) for v in obj.values()), default=0)
    if isinstance(obj, (list, tuple)):
        return 1 + max((nesting(v) for v in obj), default=0)
    return 0


def test_a_frame_is_the_documented_map_byte_for_byte():
    """The example of docs/PROTOCOL.md, as bytes."""
    from quackbox.core.side_effects import Treat

    frame = Wire(games.get("side-effects")).encode(MoveMessage(seq=0, move=Treat(drug=58, disorder=20)))
    assert frame == msgpack.packb({"type": "move", "seq": 0, "move": {"@": "Treat", "drug": 58, "disorder": 20}})


@pytest.mark.parametrize("game", GAME_NAMES)
def test_frames_are_the_documented_encoding_byte_for_byte(game):
    """Every frame is msgpack of the documented maps, keys in field order: for
    made-up values of every class, and for the views of a real game. The
    deepest real view stays well inside the depth limit."""
    rules = games.get(game)
    wire = Wire(rules)
    classes = classes_of(rules)

    @settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.data())
    def check(data):
        for message in drawn_messages(data, classes):
            assert wire.encode(message) == msgpack.packb(documented(message))

    check()
    bots = [make_bot(game, "heuristic", s) for s in range(4)]
    state = rules.new_game(seats=4, seed=11)
    deepest = 0
    for _ in range(150):
        if rules.outcome(state) is not None:
            break
        seat, move = next_move(rules, state, bots)
        events = rules.apply(state, seat, move)
        for watcher in (*range(4), None):
            seen = tuple(e for e in (rules.redact(e, watcher) for e in events) if e is not None)
            message = View(
                seq=9,
                view=rules.view(state, watcher),
                events=seen,
                log=(LogLine(text="a line", kind=LineKind.TURN),),
                deadline=DeadlineInfo(seat=1, kind="x", seconds=0.5),
            )
            assert wire.encode(message) == msgpack.packb(documented(message))
            deepest = max(deepest, nesting(documented(message)))
    assert deepest <= MAX_DEPTH - 4


@pytest.mark.parametrize("game", GAME_NAMES)
def test_the_frames_of_a_change_packed_alike_read_back_as_packed_one_by_one(game):
    """A host packs the view frames of one change together (``encode_alike``):
    each reads back, as plain maps and as messages, as ``encode`` makes it,
    for every seat and a spectator after every move of a real game, with no
    byte more or less (only the order of keys may differ)."""
    rules = games.get(game)
    wire = Wire(rules)
    bots = [make_bot(game, "heuristic", s) for s in range(4)]
    state = rules.new_game(seats=4, seed=3)
    watchers = (*range(4), None)
    for _ in range(150):
        if rules.outcome(state) is not None:
            break
        seat, move = next_move(rules, state, bots)
        events = rules.apply(state, seat, move)
        messages = [
            View(
                seq=9,
                view=view,
                events=tuple(e for e in (rules.redact(e, watcher) for e in events) if e is not None),
                log=(LogLine(text=f"a line for {watcher}", kind=LineKind.TURN),),
                deadline=DeadlineInfo(seat=1, kind="x", seconds=0.5),
            )
            for watcher, view in zip(watchers, rules.views(state, watchers))
        ]
        for message, frame in zip(messages, wire.encode_alike(messages), strict=True):
            alone = wire.encode(message)
            assert msgpack.unpackb(frame) == msgpack.unpackb(alone)
            assert len(frame) == len(alone)
            assert wire.decode_from_host(frame) == message


def test_what_the_views_of_a_change_share_is_packed_once(monkeypatch):
    """The players every view shows are packed once for all five frames, not
    once in each; each seat's own view is packed for it alone."""
    rules = games.get("side-effects")
    wire = Wire(rules)
    state = rules.new_game(seats=4, seed=1)
    messages = [
        View(seq=1, view=view, events=(), log=(), deadline=None) for view in rules.views(state, (*range(4), None))
    ]
    packed: list[str] = []
    tagged_map = wire.values._tagged_map

    def spy(value: Any) -> Any:
        packed.append(type(value).__name__)
        return tagged_map(value)

    monkeypatch.setattr(wire.values, "_tagged_map", spy)
    wire.encode_alike(messages)
    assert packed.count("PlayerView") == 4
    assert packed.count("SEView") == 5
    packed.clear()
    for message in messages:
        wire.encode(message)
    assert packed.count("PlayerView") == 20


def test_values_that_are_not_alike_are_packed_each_as_it_is():
    """Values of different kinds, or one value alone, are packed as ``pack``
    packs them; what the wire cannot carry is refused as by ``pack``."""
    codec = Codec([Paint])
    odd = [Paint(Colour.RED, Size.SMALL), {"a": 1}, 3, (Colour.BLUE,)]
    assert codec.pack_alike(odd) == [codec.pack(value) for value in odd]
    assert codec.pack_alike(odd[:1]) == [codec.pack(odd[0])]
    assert codec.pack_alike([]) == []
    with pytest.raises(TypeError):
        codec.pack_alike([{"a": Paint(Colour.RED, Size.SMALL)}, {"a": Say(text="unregistered here")}])


def test_every_message_round_trips():
    wire = Wire(fakegame.RULES)
    seat = SeatInfo(seat=0, name="Ana", kind="human", connected=True, ready=False, away=False)
    client = [
        Hello(version=PROTOCOL_VERSION, name="Ana", token="t", code="KQXZ", spectate=False),
        Ready(ready=False),
        Start(),
        MoveMessage(seq=4, move=fakegame.Play(3)),
        Say(text="hello"),
        Bye(reason="left", message=""),
        Remove(name="Bob"),
        Mute(name="Bob"),
        Mute(name="Bob", muted=False),
    ]
    host = [
        Welcome(version=PROTOCOL_VERSION, game="shed", title="Shed", seats=2, seat=0, token="token", starter=True),
        Welcome(version=PROTOCOL_VERSION, game="shed", title="Shed", seats=2, seat=None, token=None, starter=False),
        Lobby(started=False, over=False, starter=None, seats=(seat,), spectators=2),
        Started(names=("Ana", "Bot 2")),
        ChatLine(seat=None, name="Watcher", text="hi"),
        Error(code="illegal_move", message="No.", refused="move"),
        Bye(reason="shutdown", message="Closed."),
        Paused(reason="The host cannot save the game: its disk is full. Play waits until it can; nothing is lost."),
        Paused(reason=""),
        Notice(text="The host removed Bob from the table; a bot plays their seat."),
    ]
    assert {type(m) for m in client} == set(CLIENT_MESSAGES)
    assert {type(m) for m in host} >= set(HOST_MESSAGES) - {View}
    for message in client:
        assert wire.decode_from_client(wire.encode(message)) == message
    for message in host:
        assert wire.decode_from_host(wire.encode(message)) == message


def test_fields_with_defaults_may_be_left_out():
    wire = Wire(fakegame.RULES)
    frame = msgpack.packb({"type": "hello", "version": PROTOCOL_VERSION, "name": "Ana"})
    assert wire.decode_from_client(frame) == Hello(
        version=PROTOCOL_VERSION, name="Ana", token=None, code=None, spectate=False
    )


def test_a_client_before_its_welcome_decodes_only_the_handshake():
    wire = Wire(fakegame.RULES)
    early = Wire(None)
    assert early.decode_from_host(wire.encode(Error(code="wrong_code", message="No."))) == Error(
        code="wrong_code", message="No."
    )
    with pytest.raises(ProtocolError) as refused:
        early.decode_from_host(wire.encode(Started(names=("a",))))
    assert refused.value.code == "bad_message"


# --- strictness ------------------------------------------------------------------------------


def refuse(frame: dict, code: str = "bad_message", *, from_host: bool = False) -> ProtocolError:
    wire = Wire(fakegame.RULES)
    data = msgpack.packb(frame)
    with pytest.raises(ProtocolError) as refused:
        (wire.decode_from_host if from_host else wire.decode_from_client)(data)
    assert refused.value.code == code, refused.value
    return refused.value


def test_bool_is_not_an_int():
    refuse({"type": "move", "seq": True, "move": {"@": "Draw"}})
    error = refuse({"type": "move", "seq": 1, "move": {"@": "Play", "card": True}}, "malformed_move")
    assert "Play.card" in str(error)


def sample(ann: Any, classes: dict[str, type]) -> Any:
    """A small plain value of ``ann``, as unpacked from a frame (arrays as tuples)."""
    if ann in REFS:
        return REFS[ann][0].id
    if ann in (int, float):
        return 0
    if ann is bool:
        return False
    if ann is str:
        return ""
    if ann is None or ann is type(None) or ann is Any:
        return None
    if isinstance(ann, type) and issubclass(ann, enum.Enum):
        return next(iter(ann)).value
    if isinstance(ann, type) and dataclasses.is_dataclass(ann):
        return sample_map(next(c for c in classes.values() if issubclass(c, ann)), classes)
    args = typing.get_args(ann)
    if typing.get_origin(ann) is tuple:
        return () if args[-1] is Ellipsis else tuple(sample(a, classes) for a in args)
    return sample(args[0], classes)  # a union: its first arm


def sample_map(cls: type, classes: dict[str, type]) -> dict[str, Any]:
    hints = typing.get_type_hints(cls)
    return {"@": cls.__name__} | {f.name: sample(hints[f.name], classes) for f in dataclasses.fields(cls)}


def int_places(classes: dict[str, type]):
    """(class, field, good value, bad value) for every field of every class
    annotated ``int``, ``int | None`` or ``tuple[int, ...]``: the bad value
    has ``true`` where the good one has a 1, so the two are equal in Python."""
    for cls in classes.values():
        hints = typing.get_type_hints(cls)
        for f in dataclasses.fields(cls):
            ann = hints[f.name]
            if ann is int or ann == int | None:
                yield cls, f.name, 1, True
            elif ann == tuple[int, ...]:
                yield cls, f.name, (0, 1), (0, True)


@pytest.mark.parametrize("game", [*GAME_NAMES, "shed"])
def test_true_is_refused_for_every_int_field(game):
    """``true`` where any int is declared is refused: in every field of every
    class, sent from either side, and right after the frame with a 1 in that
    place (equal in Python: 1 == True) was accepted, so no earlier decoding
    may vouch for a later frame."""
    rules = fakegame.RULES if game == "shed" else games.get(game)
    wire = Wire(rules)
    classes = classes_of(rules)
    places = list(int_places(classes))
    assert len(places) > 10
    for cls, name, one, bad in places:
        good = sample_map(cls, classes) | {name: one}
        frames = []
        for value in (good, good | {name: bad}):
            if issubclass(cls, Move):
                frames.append((wire.decode_from_client, {"type": "move", "seq": 1, "move": value}))
            else:
                view = {"type": "view", "seq": 1, "view": value, "events": [], "log": [], "deadline": None}
                frames.append((wire.decode_from_host, view))
        (decode, accepted), (decode, refused) = frames
        assert accepted == refused
        decode(msgpack.packb(accepted))
        with pytest.raises(ProtocolError) as error:
            decode(msgpack.packb(refused))
        assert error.value.code == ("malformed_move" if issubclass(cls, Move) else "bad_message")
        assert f"{cls.__name__}.{name}" in str(error.value)


def test_true_is_refused_for_every_int_field_of_every_message():
    wire = Wire(fakegame.RULES)
    classes = dict(wire.values.classes)
    messages = {cls: wire.decode_from_client for cls in CLIENT_MESSAGES} | {
        cls: wire.decode_from_host for cls in HOST_MESSAGES
    }
    places = list(int_places({c.__name__: c for c in messages}))
    assert {f"{cls.__name__}.{name}" for cls, name, _, _ in places} >= {
        "Hello.version",
        "MoveMessage.seq",
        "View.seq",
        "Welcome.seat",
    }
    for cls, name, _, bad in places:
        good = {"type": cls.TYPE} | {k: v for k, v in sample_map(cls, classes).items() if k != "@"}
        good |= {"version": PROTOCOL_VERSION} if "version" in good else {}
        decode = messages[cls]
        assert decode(msgpack.packb(good)) is not None
        with pytest.raises(ProtocolError) as error:
            decode(msgpack.packb(good | {name: bad}))
        assert error.value.code == "bad_message" and f"{cls.__name__}.{name}" in str(error.value)


def test_maps_with_keys_other_than_text_are_bad_messages_not_bad_frames():
    """As docs/PROTOCOL.md says: a map key must be text; the frame is well
    formed, so the error is about the message and the connection stays open."""
    for key in (1, -7, True, None, 1.5, b"type"):
        error = refuse({"type": "chat", "text": "hi", key: "x"})
        assert not error.fatal
        error = refuse({"type": "move", "seq": 1, "move": {"@": "Play", "card": 1, key: 2}}, "malformed_move")
        assert "Play" in str(error)
        base = {"type": "view", "seq": 1, "events": [], "log": [], "deadline": None}
        refuse({**base, "view": {"@": "Card", "id": 1, "name": "x", key: 0}}, from_host=True)
    refuse({1: "chat"})
    text = DOCS.read_text(encoding="utf-8")
    assert "key that is not text" in text


def test_floats_must_be_finite():
    base = {"type": "view", "seq": 1, "events": [], "log": [], "view": None}
    wire = Wire(fakegame.RULES)
    assert (
        wire.decode_from_host(
            msgpack.packb({**base, "deadline": {"@": "DeadlineInfo", "seat": 0, "kind": "x", "seconds": 2}})
        ).deadline.seconds
        == 2.0
    )
    for seconds in (float("nan"), float("inf"), float("-inf")):
        deadline = {"@": "DeadlineInfo", "seat": 0, "kind": "x", "seconds": seconds}
        refuse({**base, "deadline": deadline}, from_host=True)


def test_nesting_deeper_than_the_limit_is_refused():
    base = {"type": "view", "seq": 1, "events": [], "log": [], "deadline": None}
    wire = Wire(fakegame.RULES)

    def nested(depth: int) -> Any:
        value: Any = 0
        for _ in range(depth):
            value = (value,)
        return value

    assert wire.decode_from_host(msgpack.packb({**base, "view": nested(MAX_DEPTH)})).view == nested(MAX_DEPTH)
    error = refuse({**base, "view": nested(MAX_DEPTH + 1)}, from_host=True)
    assert "deeper" in str(error)


class Colour(enum.StrEnum):
    RED = "red"
    BLUE = "blue"


class Size(enum.IntEnum):
    SMALL = 1
    LARGE = 2


@dataclasses.dataclass(frozen=True, slots=True)
class Paint:
    colour: Colour
    size: Size
    spare: Colour | None = None


def test_enums_travel_by_value_and_only_their_values_are_accepted():
    codec = Codec([Paint])
    assert codec.decode({"@": "Paint", "colour": "blue", "size": 2}) == Paint(Colour.BLUE, Size.LARGE)
    assert type(codec.decode({"@": "Paint", "colour": "red", "size": 1}).colour) is Colour
    assert msgpack.unpackb(codec.pack(Paint(Colour.RED, Size.SMALL, Colour.BLUE))) == {
        "@": "Paint",
        "colour": "red",
        "size": 1,
        "spare": "blue",
    }
    for colour, size in (("green", 1), ("red", 3), ("red", True), ("red", "1"), (0, 1), ("RED", 1)):
        with pytest.raises(DecodeError):
            codec.decode({"@": "Paint", "colour": colour, "size": size})


def test_unions_of_dataclasses_take_only_their_classes():
    """A Quack hand holds Treatments and Anytimes (``tuple[Treatment | Anytime, ...]``), nothing else:
    by id, the ids of the two kinds being apart, so an id says which card it is."""
    rules = games.get("quack")
    codec = Wire(rules).values
    classes = classes_of(rules)
    view = sample_map(classes["QuackView"], classes)
    treatment, anytime = rules.wire_refs()[Treatment][3], rules.wire_refs()[Anytime][2]
    decoded = codec.decode(view | {"hand": (treatment.id, anytime.id, treatment.id)})
    assert decoded.hand == (treatment, anytime, treatment)
    patient = rules.wire_refs()[Patient][0]
    for stranger in (patient.id, None, len(rules.cards), True, documented(treatment, by_reference=False), {"id": 1}):
        with pytest.raises(DecodeError, match="QuackView.hand: expected the id of a Treatment or Anytime"):
            codec.decode(view | {"hand": (stranger,)})


def test_int_is_not_a_bool_and_float_is_not_an_int():
    refuse({"type": "ready", "ready": 1})
    refuse({"type": "move", "seq": 1.0, "move": {"@": "Draw"}})


def test_missing_and_unknown_fields_are_refused():
    refuse({"type": "move", "move": {"@": "Draw"}})
    refuse({"type": "move", "seq": 1, "move": {"@": "Draw"}, "seat": 1})
    refuse({"type": "move", "seq": 1, "move": {"@": "Play"}}, "malformed_move")
    refuse({"type": "move", "seq": 1, "move": {"@": "Play", "card": 1, "as_seat": 0}}, "malformed_move")


def test_unknown_and_misplaced_tags_are_refused():
    refuse({"type": "launch"})
    refuse({"kind": "hello"})
    refuse({"type": "move", "seq": 1, "move": {"@": "Nuke"}}, "malformed_move")
    refuse({"type": "move", "seq": 1, "move": {"@": "Card", "id": 1, "name": "x"}}, "malformed_move")  # not a Move
    refuse({"type": "move", "seq": 1, "move": {"card": 1}}, "malformed_move")
    refuse({"type": "welcome"})  # a host message, sent by a client


def test_game_values_are_checked_deep_inside_host_frames():
    base = {"type": "view", "seq": 1, "events": [], "log": [], "deadline": None}
    view = {"@": "ShedView", "seat": 0, "hand": [{"@": "Card", "id": "1", "name": "x"}]}
    refuse({**base, "view": view}, from_host=True)
    refuse({**base, "view": {"rogue": True}}, from_host=True)
    refuse({**base, "events": [{"@": "Play", "card": 1}], "view": None}, from_host=True)  # a move is not an event


def test_text_and_arrays_have_limits():
    refuse({"type": "chat", "text": "x" * 5000})
    refuse({"type": "move", "seq": 1, "move": {"@": "Play", "card": 1}, "x": [0] * 10})


def test_text_frames_and_oversized_frames_are_refused():
    wire = Wire(fakegame.RULES)
    with pytest.raises(ProtocolError) as text:
        wire.decode_from_client('{"type": "hello"}')
    assert text.value.code == "bad_frame" and text.value.fatal
    with pytest.raises(ProtocolError) as big:
        wire.decode_from_client(msgpack.packb({"type": "chat", "text": "x" * MAX_FRAME}))
    assert big.value.code == "frame_too_large" and big.value.fatal


def test_version_mismatch_is_seen_even_in_a_hello_from_the_future():
    future = PROTOCOL_VERSION + 1
    error = refuse({"type": "hello", "version": future, "name": "x", "avatar": "duck"}, "version_mismatch")
    assert error.fatal and f"version {PROTOCOL_VERSION}" in str(error)


def test_a_client_of_protocol_version_1_is_refused():
    """Version 1 sent cards as maps: such a client would misread every view, so it is told at hello."""
    error = refuse({"type": "hello", "version": 1, "name": "x"}, "version_mismatch")
    assert error.fatal and f"version {PROTOCOL_VERSION}" in str(error) and "your client speaks 1" in str(error)


@pytest.mark.parametrize(
    "annotation", [bytes, list, dict[str, int], set[int], int | str, typing.Literal["a"], fakegame.ShedState]
)
def test_codec_refuses_types_it_cannot_carry(annotation):
    """A class whose field the wire cannot carry fails when the codec is made, not mid-game."""
    Bad = dataclasses.make_dataclass("Bad", [("field", annotation)], frozen=True)

    with pytest.raises(TypeError, match="Bad.field"):
        Codec([Bad, fakegame.Card])


def test_a_class_annotations_are_read_once_however_many_codecs_read_it(monkeypatch):
    """Each client makes two Wires of the same classes: the second reads no annotation again
    (each class once as values are checked, once as written, for the field kinds)."""
    read: list[tuple[str, bool]] = []
    real = typing.get_type_hints

    def counted(cls, *args, **kwargs):
        read.append((cls.__name__, kwargs.get("include_extras", False)))
        return real(cls, *args, **kwargs)

    monkeypatch.setattr(typing, "get_type_hints", counted)
    Card = dataclasses.make_dataclass("Card", [("id", int), ("name", str)], frozen=True)
    Hand = dataclasses.make_dataclass("Hand", [("cards", tuple[Card, ...])], frozen=True)
    for _ in range(3):
        codec = Codec([Hand, Card])
        packed = msgpack.unpackb(codec.pack(Hand((Card(1, "a"),))), use_list=False)
        assert codec.decode(packed, Hand) == Hand((Card(1, "a"),))
    assert sorted(read) == [("Card", False), ("Card", True), ("Hand", False), ("Hand", True)]


# --- cards by reference ---------------------------------------------------------------------


def card_arms(ann: Any) -> tuple[type, ...]:
    """The card classes ``ann`` (a card, ``X | None``, ``X | Y``) may hold."""
    arms = typing.get_args(ann) if typing.get_origin(ann) in (typing.Union, types.UnionType) else (ann,)
    return tuple(arm for arm in arms if arm in REFS)


def card_places(classes: dict[str, type]):
    """(class, field, card classes, put) for every field of every class that
    holds cards, alone or in an array: ``put(x)`` is the field's unpacked
    value with ``x`` where a card's id goes."""
    for cls in classes.values():
        hints = typing.get_type_hints(cls)
        for f in dataclasses.fields(cls):
            ann = hints[f.name]
            if typing.get_origin(ann) is tuple and card_arms(typing.get_args(ann)[0]):
                yield cls, f.name, card_arms(typing.get_args(ann)[0]), lambda x: (x,)
            elif card_arms(ann):
                yield cls, f.name, card_arms(ann), lambda x: x


def view_frame(value: Any) -> bytes:
    return msgpack.packb({"type": "view", "seq": 1, "view": value, "events": [], "log": [], "deadline": None})


@pytest.mark.parametrize("game", GAME_NAMES)
def test_card_fields_take_only_the_id_of_one_of_the_games_cards(game):
    """In every field that holds cards, of every class: a card's id is that
    card; a bool, a float, a negative or unknown id, text, the card as a
    tagged map, or the id of a card of another kind is refused, naming the field."""
    rules = games.get(game)
    wire = Wire(rules)
    classes = classes_of(rules)
    places = list(card_places(classes))
    assert len(places) >= 6
    tables = rules.wire_refs()
    unknown = 1 + max(card.id for table in tables.values() for card in table)
    for cls, name, arms, put in places:
        card = tables[arms[-1]][-1]
        value = sample_map(cls, classes)
        decoded = wire.decode_from_host(view_frame(value | {name: put(card.id)})).view
        assert getattr(decoded, name) == put(card)
        strangers = [table[0].id for kind, table in tables.items() if kind not in arms]
        for bad in (True, False, float(card.id), -1, unknown, str(card.id), documented(card, False), *strangers):
            with pytest.raises(ProtocolError) as error:
                wire.decode_from_host(view_frame(value | {name: put(bad)}))
            assert error.value.code == "bad_message"
            assert f"{cls.__name__}.{name}: expected the id of a" in str(error.value)


@pytest.mark.parametrize("game", GAME_NAMES)
def test_a_card_that_is_not_the_games_refuses_to_encode(game):
    """A made-up card never travels as a real one's id: not one with another
    name, nor one whose id is no card's, nor one copying another card's id."""
    rules = games.get(game)
    wire = Wire(rules)
    view = rules.view(rules.new_game(seats=4, seed=2), 0)
    card = view.hand[0]
    other = next(c for c in REFS[type(card)] if c.name != card.name)
    unknown = 1 + max(c.id for table in rules.wire_refs().values() for c in table)
    assert wire.decode_from_host(wire.encode(View(seq=1, view=view, events=(), log=(), deadline=None))).view == view
    for fake in (
        dataclasses.replace(card, name="Placebo"),
        dataclasses.replace(card, id=unknown),
        dataclasses.replace(card, id=other.id),
        dataclasses.replace(card, id=True) if card.id == 1 else dataclasses.replace(card, id=float(card.id)),
    ):
        with pytest.raises(TypeError, match="by its id"):
            wire.encode(
                View(
                    seq=1, view=dataclasses.replace(view, hand=(fake, *view.hand[1:])), events=(), log=(), deadline=None
                )
            )


@pytest.mark.parametrize("game", GAME_NAMES)
def test_cards_by_id_make_a_view_frame_under_half_its_size_as_tagged_maps(game):
    """Why cards travel by id: a seeded 4-seat view frame, beside the same
    frame with every card a tagged map of its fields."""
    rules = games.get(game)
    wire = Wire(rules)
    state = rules.new_game(seats=4, seed=3)
    bots = [make_bot(game, "heuristic", s) for s in range(4)]
    for _ in range(30):
        seat, move = next_move(rules, state, bots)
        rules.apply(state, seat, move)
    message = View(
        seq=30, view=rules.view(state, 0), events=(), log=(), deadline=DeadlineInfo(seat=0, kind="turn", seconds=12.5)
    )
    frame = wire.encode(message)
    assert frame == msgpack.packb(documented(message))
    assert 2 * len(frame) < len(msgpack.packb(documented(message, by_reference=False)))


def test_side_effects_cards_by_id_are_the_bonus_deck_which_begins_with_the_base_deck():
    """So a client reads a game's cards by id whether or not the host plays with the bonus cards."""
    rules = games.get("side-effects")
    table = rules.wire_refs()[SECard]
    base = rules.deck_cards(rules.parse_options({}))
    assert table == rules.deck_cards(rules.parse_options({"bonus_cards": True}))
    assert len(table) > len(base) and table[: len(base)] == base
    assert [card.id for card in table] == list(range(len(table)))


def test_quack_cards_by_id_are_every_card_of_the_deck_once():
    rules = games.get("quack")
    tables = rules.wire_refs()
    assert set(tables) == {Patient, Treatment, Anytime}
    assert sorted((card for table in tables.values() for card in table), key=lambda c: c.id) == list(rules.cards)


CARD_TABLES = {2: "4ebc57e47b6fbe10", 3: "4ebc57e47b6fbe10", 4: "4ebc57e47b6fbe10"}
"""A digest of every game's cards by id, for each protocol version that sends cards by id."""


def card_tables_digest() -> str:
    """Every card of every game, each field of each, in id order."""
    lines = []
    for name in sorted(games.TITLES):
        for cls, table in sorted(games.get(name).wire_refs().items(), key=lambda item: item[0].__name__):
            for card in table:
                lines.append(repr((name, cls.__name__, dataclasses.astuple(card))))
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]


def test_the_card_tables_are_part_of_the_protocol_version():
    """Cards travel by id, so both ends must hold the same cards: a change to
    the card data must come with a new PROTOCOL_VERSION (and its digest here),
    so that a client with other cards is refused at hello, not misread."""
    assert card_tables_digest() == CARD_TABLES.get(PROTOCOL_VERSION), (
        "the cards changed: raise PROTOCOL_VERSION and record the new digest in CARD_TABLES"
    )


@dataclasses.dataclass(frozen=True, slots=True)
class Rune:
    id: int
    name: str


@dataclasses.dataclass(frozen=True, slots=True)
class Sigil:
    id: int


@dataclasses.dataclass(frozen=True, slots=True)
class Glyph:
    mark: int


@dataclasses.dataclass(frozen=True, slots=True)
class Spell:
    rune: Rune
    spare: Rune | None = None
    runes: tuple[Rune, ...] = ()
    mark: Rune | Sigil | None = None


RUNES = (Rune(0, "fehu"), Rune(1, "uruz"), Rune(2, "thurisaz"))
SIGILS = (Sigil(5), Sigil(6))


def test_values_by_reference_travel_as_their_ids_and_come_back_as_the_tables_values():
    codec = Codec([Spell, Rune], refs={Rune: RUNES, Sigil: SIGILS})
    assert set(codec.classes) == {"Spell"}
    spell = Spell(RUNES[1], None, (RUNES[2], RUNES[0]), SIGILS[1])
    packed = codec.pack(spell)
    assert msgpack.unpackb(packed) == {"@": "Spell", "rune": 1, "spare": None, "runes": [2, 0], "mark": 6}
    assert codec.decode(msgpack.unpackb(packed, use_list=False)) == spell
    assert codec.decode({"@": "Spell", "rune": 0, "mark": 2}) == Spell(RUNES[0], mark=RUNES[2])
    for bad in (True, 1.0, -1, 3, 5, "1", None, {"@": "Rune", "id": 1, "name": "uruz"}, (1,)):
        with pytest.raises(DecodeError, match="Spell.rune: expected the id of a Rune"):
            codec.decode({"@": "Spell", "rune": bad})
    for fake in (Rune(1, "ansuz"), Rune(7, "fehu"), Rune(True, "uruz"), Rune(1.0, "uruz")):
        with pytest.raises(TypeError, match="by its id"):
            codec.pack(Spell(fake))


def test_a_table_by_reference_must_be_one_and_a_union_must_tell_its_arms_apart():
    for table in ((*RUNES, Rune(0, "again")), (RUNES[0], Sigil(1)), (Rune("0", "fehu"),), (Rune(None, "x"),)):
        with pytest.raises(TypeError, match="table of Rune"):
            Codec([Spell], refs={Rune: table})
    with pytest.raises(TypeError, match="Spell.mark: Sigil shares ids"):
        Codec([Spell], refs={Rune: RUNES, Sigil: (Sigil(2),)})
    with pytest.raises(TypeError, match="Glyph has no id"):
        Codec([Spell], refs={Rune: RUNES, Sigil: SIGILS, Glyph: ()})
    Mixed = dataclasses.make_dataclass("Mixed", [("field", Rune | Spell)], frozen=True)
    with pytest.raises(TypeError, match="Mixed.field: a union of classes sent by reference and tagged"):
        Codec([Mixed, Spell], refs={Rune: RUNES, Sigil: SIGILS})


@dataclasses.dataclass(frozen=True, slots=True)
class Even:
    number: int

    def __post_init__(self) -> None:
        if self.number % 2:
            raise ValueError("odd")


@dataclasses.dataclass(frozen=True, slots=True)
class Crate:
    """A field of every kind the codec reads, for the sentences of its refusals."""

    count: int
    label: str
    shut: bool
    weight: float
    void: None
    colour: Colour
    size: Size | None
    pair: tuple[int, str]
    runes: tuple[Rune, ...]
    mark: Rune | Sigil
    inside: Paint | Even | None
    anything: Any
    one_way: tuple[Paint | Even, ...] = ()
    other_way: tuple[Even | Paint, ...] = ()
    """Equal annotations (a union is a set of arms), whose refusals name the arms as written."""


CRATE = {
    "@": "Crate",
    "count": 1,
    "label": "a",
    "shut": True,
    "weight": 1.5,
    "void": None,
    "colour": "red",
    "size": 1,
    "pair": (1, "a"),
    "runes": (0, 2),
    "mark": 5,
    "inside": {"@": "Even", "number": 2},
    "anything": (3, "x", None),
}

REFUSALS = [
    ({"count": True}, "Crate", "Crate.count: expected a whole number, got a boolean"),
    ({"count": 1.0}, "Crate", "Crate.count: expected a whole number, got a number"),
    ({"label": 5}, "Crate", "Crate.label: expected text, got a whole number"),
    ({"label": "x" * 1001}, "Crate", "Crate.label: text longer than 1000 characters"),
    ({"shut": 1}, "Crate", "Crate.shut: expected true or false, got a whole number"),
    ({"weight": "1"}, "Crate", "Crate.weight: expected a number, got text"),
    ({"weight": float("nan")}, "Crate", "Crate.weight: expected a finite number, got nan"),
    ({"void": 0}, "Crate", "Crate.void: expected nil, got a whole number"),
    ({"colour": "green"}, "Crate", "Crate.colour: expected a Colour, got 'green'"),
    ({"size": True}, "Crate", "Crate.size: expected a Size, got True"),
    ({"pair": {}}, "Crate", "Crate.pair: expected an array, got an untagged map"),
    ({"pair": (1,)}, "Crate", "Crate.pair: expected an array of 2, got an array of 1"),
    ({"pair": (1, 2)}, "Crate", "Crate.pair: expected text, got a whole number"),
    ({"runes": (0,) * 4097}, "Crate", "Crate.runes: array longer than 4096"),
    ({"runes": (0, 7)}, "Crate", "Crate.runes: expected the id of a Rune, got 7"),
    ({"mark": "5"}, "Crate", "Crate.mark: expected the id of a Rune or Sigil, got text"),
    ({"mark": None}, "Crate", "Crate.mark: expected the id of a Rune or Sigil, got nil"),
    ({"inside": {"@": "Crate"}}, "Crate", "Crate.inside: expected a Paint or a Even, got a map tagged 'Crate'"),
    ({"inside": 2}, "Crate", "Crate.inside: expected a Paint or a Even, got a whole number"),
    ({"one_way": (2,)}, "Crate", "Crate.one_way: expected a Paint or a Even, got a whole number"),
    ({"other_way": (2,)}, "Crate", "Crate.other_way: expected a Even or a Paint, got a whole number"),
    ({"inside": {"@": "Paint", "colour": "red"}}, "Paint", "Paint: missing field 'size'"),
    ({"inside": {"@": "Paint", "colour": "red", "size": 1, "hue": 2}}, "Paint", "Paint: no field(s) 'hue'"),
    ({"inside": {"@": "Paint", "colour": "red", "size": 1, 3: 2}}, "Paint", "Paint: a map key must be text, not 3"),
    ({"inside": {"@": "Even", "number": 3}}, "Even", "Even: refused these values (odd)"),
    ({"anything": {"colour": "red"}}, "Crate", "Crate.anything: expected a game value, got an untagged map"),
    ({"anything": (1, "x" * 1001)}, "Crate", "Crate.anything: text longer than 1000 characters"),
    ({"anything": float("inf")}, "Crate", "Crate.anything: expected a finite number, got inf"),
    ({"anything": b"x"}, "Crate", "Crate.anything: expected a game value, got binary data"),
    (
        {"anything": functools.reduce(lambda inner, _: (inner,), range(MAX_DEPTH + 1), 0)},
        "Crate",
        "Crate.anything: values nested deeper than 16",
    ),
]


@pytest.mark.parametrize(("change", "cls", "sentence"), REFUSALS)
def test_each_refusal_names_its_place_and_says_what_was_wrong(change, cls, sentence):
    """The sentence and class of every kind of refusal, word for word: clients and
    logs show them, and the readers made once per annotation must keep them."""
    codec = Codec([Crate, Paint, Even], refs={Rune: RUNES, Sigil: SIGILS})
    assert codec.decode(CRATE) == Crate(
        1,
        "a",
        True,
        1.5,
        None,
        Colour.RED,
        Size.SMALL,
        (1, "a"),
        (RUNES[0], RUNES[2]),
        SIGILS[0],
        Even(2),
        (3, "x", None),
    )
    with pytest.raises(DecodeError) as refused:
        codec.decode(CRATE | change)
    assert str(refused.value) == sentence
    assert refused.value.cls.__name__ == cls


def test_a_codec_works_out_each_annotation_once_not_per_value(monkeypatch):
    """Decoding asks ``typing`` nothing (Codec.reader keeps each annotation's reader), and
    fields of one annotation share one reader: a Side Effects hand and the cards a prompt reveals."""
    rules = games.get("side-effects")
    wire = Wire(rules)
    state = rules.new_game(seats=4, seed=3)
    bots = [make_bot("side-effects", "heuristic", s) for s in range(4)]
    frames = []
    for _ in range(30):
        seat, move = next_move(rules, state, bots)
        rules.apply(state, seat, move)
        frames += [
            wire.encode(View(seq=1, view=rules.view(state, watcher), events=(), log=(), deadline=None))
            for watcher in (0, 1, None)
        ]
    hand = next(f for f in wire.values.wire_fields(type(rules.view(state, 0))) if f.name == "hand")
    revealed = next(f for f in wire.values.wire_fields(Prompt) if f.name == "revealed")
    assert hand.read is revealed.read is wire.values.reader(tuple[SECard, ...])

    def asked(*args: Any) -> Any:
        raise AssertionError("an annotation was read while decoding")

    monkeypatch.setattr(typing, "get_args", asked)
    monkeypatch.setattr(typing, "get_origin", asked)
    for frame in frames:
        assert wire.decode_from_host(frame).view.game == "side-effects"
    frame = msgpack.unpackb(frames[0], use_list=False)
    with pytest.raises(ProtocolError, match=r"SEView\.hand: expected the id of a SECard, got -1\.$"):
        wire.decode_from_host(msgpack.packb(frame | {"view": frame["view"] | {"hand": (-1,)}}))


# --- the fuzz contract ----------------------------------------------------------------------

SHED = Wire(fakegame.RULES)
SE = Wire(games.get("side-effects"))
QUACK = Wire(games.get("quack"))
NAMES = sorted({*SHED.values.classes, *SE.values.classes, *QUACK.values.classes, *(c.__name__ for c in REFS)})
FIELD_NAMES = sorted(
    {f.name for w in (SHED, SE, QUACK) for c in (*w.values.classes.values(), *REFS) for f in dataclasses.fields(c)}
    | {f.name for c in CLIENT_MESSAGES + HOST_MESSAGES for f in dataclasses.fields(c)}
)

scalars = st.one_of(
    st.none(), st.booleans(), INT, st.floats(), TEXT, st.binary(max_size=20), st.sampled_from(NAMES + FIELD_NAMES)
)
keys = st.one_of(st.sampled_from(["type", "@", *FIELD_NAMES]), TEXT, INT, st.none(), st.booleans(), st.floats())
plain = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5),
        st.dictionaries(keys, inner, max_size=6),
        st.builds(
            lambda t, d: {"@": t, **d},
            st.sampled_from(NAMES),
            st.dictionaries(st.sampled_from(FIELD_NAMES), inner, max_size=5),
        ),
    ),
    max_leaves=15,
)
messages = st.builds(
    lambda t, d: {"type": t, **d},
    st.sampled_from(message_types() + ["nonsense"]),
    st.dictionaries(st.sampled_from(FIELD_NAMES), plain, max_size=6),
)


def decodes_or_refuses(wire: Wire, data: bytes) -> None:
    """The contract: a well-typed message that re-encodes, or a ProtocolError."""
    for decode in (wire.decode_from_client, wire.decode_from_host):
        try:
            message = decode(data)
        except ProtocolError as exc:
            assert exc.code in set(ErrorCode)
            assert str(exc)
            continue
        assert decode(wire.encode(message)) == message


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=300))
def test_fuzz_random_bytes(data):
    decodes_or_refuses(SHED, data)
    decodes_or_refuses(SE, data)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(messages)
def test_fuzz_message_shaped_garbage(frame):
    data = msgpack.packb(frame, use_bin_type=True)
    decodes_or_refuses(SHED, data)
    decodes_or_refuses(SE, data)


VALID_FRAMES = [
    SHED.encode(MoveMessage(seq=3, move=fakegame.Play(7))),
    SHED.encode(Hello(version=PROTOCOL_VERSION, name="Ana", token="tok", code="KQXZ")),
    SE.encode(
        View(
            seq=2,
            view=games.get("side-effects").view(games.get("side-effects").new_game(seats=3, seed=1), 0),
            events=(),
            log=(),
            deadline=None,
        )
    ),
    QUACK.encode(
        View(
            seq=2,
            view=games.get("quack").view(games.get("quack").new_game(seats=3, seed=1), 0),
            events=(),
            log=(),
            deadline=None,
        )
    ),
]


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(VALID_FRAMES), st.data())
def test_fuzz_damaged_frames(frame, data):
    damaged = bytearray(frame)
    for _ in range(data.draw(st.integers(1, 4))):
        op = data.draw(st.sampled_from(["flip", "cut", "insert"]))
        at = data.draw(st.integers(0, max(0, len(damaged) - 1)))
        if op == "flip" and damaged:
            damaged[at] ^= data.draw(st.integers(1, 255))
        elif op == "cut":
            del damaged[at:]
        else:
            damaged[at:at] = data.draw(st.binary(min_size=1, max_size=4))
    for wire in (SHED, SE, QUACK):
        decodes_or_refuses(wire, bytes(damaged))


def places_in(obj: Any, path: tuple = ()):
    """The path of every value inside an unpacked frame (its keys and indexes)."""
    yield path
    if isinstance(obj, dict):
        for key, value in obj.items():
            yield from places_in(value, (*path, key))
    elif isinstance(obj, list):
        for index, value in enumerate(obj):
            yield from places_in(value, (*path, index))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(VALID_FRAMES), st.data())
def test_fuzz_one_value_replaced_inside_a_valid_frame(frame, data):
    """Garbage where a well-formed value was: deep inside a view, a move, a card."""
    tree = msgpack.unpackb(frame)
    paths = list(places_in(tree))[1:]
    path = paths[data.draw(st.integers(0, len(paths) - 1))]
    parent = tree
    for step in path[:-1]:
        parent = parent[step]
    parent[path[-1]] = data.draw(plain)
    damaged = msgpack.packb(tree, use_bin_type=True)
    for wire in (SHED, SE, QUACK):
        decodes_or_refuses(wire, damaged)


def test_deep_nesting_is_refused_not_crashing():
    for depth in (100, 900, 5000):
        decodes_or_refuses(SE, b"\x91" * depth + b"\x01")
        nested = b"\x83\xa4type\xa4view\xa3seq\x01\xa4view" + b"\x91" * depth + b"\xc0"
        decodes_or_refuses(SE, nested)


def test_decode_error_names_the_place():
    codec = Codec([fakegame.Card])
    with pytest.raises(DecodeError) as bad:
        codec.decode({"@": "Card", "id": 1, "name": 5})
    assert bad.value.where == "Card.name" and bad.value.cls is fakegame.Card


# --- the reference document --------------------------------------------------------------------


def test_protocol_document_names_every_message_field_and_error_code():
    text = DOCS.read_text(encoding="utf-8")
    for kind in message_types():
        assert f"`{kind}`" in text, f"docs/PROTOCOL.md does not describe the {kind} message"
    for cls in CLIENT_MESSAGES + HOST_MESSAGES + (SeatInfo, DeadlineInfo):
        for f in dataclasses.fields(cls):
            assert f"`{f.name}`" in text, f"docs/PROTOCOL.md does not describe {cls.__name__}.{f.name}"
    for code in ErrorCode:
        assert f"`{code.value}`" in text, f"docs/PROTOCOL.md does not list the error code {code.value}"
    assert f"version {PROTOCOL_VERSION}" in text.lower() or f"version`: {PROTOCOL_VERSION}" in text


def test_the_version_protocol_md_describes_is_the_hosts():
    """Every place docs/PROTOCOL.md states the version (its opening, the hello table, the
    worked exchange) states the one the host speaks."""
    text = DOCS.read_text(encoding="utf-8")
    stated = re.findall(r"describes protocol \*\*version (\d+)\*\*", text)
    stated += re.findall(r"\| `version` +\| int +\| the protocol version, `(\d+)` \|", text)
    stated += re.findall(r'"type": "(?:hello|welcome)", "version": (\d+)', text)
    assert len(stated) == 4 and set(stated) == {str(PROTOCOL_VERSION)}, stated
