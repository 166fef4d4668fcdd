"""Game values to and from msgpack: a plain encoding and one strict validator.

Moves, events and views of every game are frozen dataclasses whose fields are
ints, strs, bools, floats, None, enums, tuples of these, or other such
dataclasses (see :mod:`quackbox.core.rules`). So one codec, built from the classes a
game can put on the wire (``rules.wire_types()``), encodes any of them, and
decodes untrusted input back into them while checking every field against
its class's annotations.

Encoding: a dataclass becomes a map ``{"@": ClassName, field: value, ...}``
(fields in their declared order); a tuple becomes an array; an enum becomes
its value; ints, floats, strs, bools and None are themselves. msgpack's C
packer does the walking: it calls back into the codec (its ``default`` hook)
only for the dataclasses and enums it meets.

By reference: a game may name classes whose values are facts of the game,
the same at both ends of the wire (its cards, loaded from ``cards/`` by host
and client alike; the protocol refuses a client of another version), with a
table of every such value (``rules.wire_refs()``). Such a value travels as
its ``id`` alone, and only if the table's value of that id is equal to it, so
a made-up card can never pass for a real one.

Decoding takes what msgpack unpacked (maps as dicts, arrays as tuples,
scalars) and walks it against the annotations, from the top down, building
each dataclass once its fields are checked; what each annotation asks of a
value is worked out once, into a reader (:meth:`Codec.reader`). It is strict,
because it is the host's trust boundary:

- a map is a dataclass, and its ``"@"`` tag must name a registered class that
  may stand where the map is (a subclass of the field's annotation);
- every field without a default must be present, and no other key;
- ``int`` never accepts a bool (``True`` is an ``int`` in Python, not on this
  wire) nor a float; ``bool`` accepts only true and false; ``float`` accepts
  an int, but not NaN or an infinity;
- an enum field accepts only one of its members' values, of the same type;
- a field of a class sent by reference accepts only a whole number (not a
  bool) that is the id of a value in its table, and yields that value;
- strings, arrays and maps have length limits, and values a depth limit.

Anything else raises :class:`DecodeError`, and nothing but
:class:`DecodeError`: that is the codec's fuzz contract, checked by
``tests/net/test_protocol.py``.

The annotations a codec reads are checked when it is made, so a game whose
values the wire cannot carry fails at start-up, not in the middle of a game.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import json
import math
import reprlib
import types
import typing
from typing import Any, Callable, Iterable, Mapping, Sequence

import msgpack

from quackbox.net.errors import NetError

__all__ = ["Codec", "DecodeError", "MAX_DEPTH", "MAX_ITEMS", "MAX_STR", "TAG"]

TAG = "@"
"""The key that names the class of an encoded dataclass."""

MAX_STR = 1000
"""Longest string accepted inside a value (card texts are far shorter)."""
MAX_ITEMS = 4096
"""Longest array or map accepted inside a value."""
MAX_DEPTH = 16
"""Deepest nesting of maps and arrays accepted inside a message (the message's
own map not counted); the deepest real view frame nests 8 deep."""

_NONE = type(None)

Reader = Callable[[Any, str, int], Any]
"""Reads one unpacked value of one annotation, ``read(obj, where, depth)``: the
value, or DecodeError naming ``where``; ``depth`` is how deep ``obj`` lies."""


class DecodeError(NetError, ValueError):
    """A value does not match the type it must have.

    ``where`` names the class and field (``Treat.drug``); ``cls`` is the
    innermost class whose field was wrong, if known (so the protocol can tell
    a bad move from a bad message).
    """

    def __init__(self, where: str, problem: str, cls: type | None = None) -> None:
        self.where = where
        self.problem = problem
        self.cls = cls
        super().__init__(f"{where}: {problem}" if where else problem)


@dataclasses.dataclass(frozen=True, slots=True)
class _Field:
    """One field of a wire class, as the codec reads it."""

    name: str
    annotation: Any
    required: bool
    """No default: a map without this key is refused."""
    where: str
    """``Class.field``, for error sentences."""
    shown: Any
    """The annotation as written, ``Annotated`` kinds kept (a seat, a card
    id...): what docs/PROTOCOL.md says of the field (:mod:`quackbox.net.wire_fields`)."""
    read: Reader
    """Reads this field's values: ``Codec.reader(annotation)``."""


class Codec:
    """Encodes and strictly decodes the dataclasses of one registry.

    Args:
        classes: every dataclass that may appear inside a value, tagged by
            its class name; names must be unique, since the name is the tag.
        refs: classes sent by reference, each with every one of its values
            (each with a unique int ``id``); they travel as their ids, never
            as tagged maps, even if also listed in ``classes``. A value by
            reference must stand where its class is declared: in a field
            annotated ``Any`` it would come back as its bare id.
        messages: dataclasses whose fields the codec also reads and writes,
            but which are never tagged values (the protocol's messages, which
            carry their own ``"type"`` key).
        max_str: longest string accepted when decoding.

    Raises:
        TypeError: a class is not a dataclass, two share a name, a table of
            values by reference is not one (a stranger in it, ids not unique
            ints), or a field's annotation is one the wire cannot carry.
    """

    def __init__(
        self,
        classes: Iterable[type],
        *,
        refs: Mapping[type, Iterable[Any]] | None = None,
        messages: Iterable[type] = (),
        max_str: int = MAX_STR,
    ) -> None:
        self.max_str = max_str
        self.refs: Mapping[type, Mapping[int, Any]] = {cls: _by_id(cls, vals) for cls, vals in (refs or {}).items()}
        """The classes sent by reference: every value of each, by id."""
        self.classes: Mapping[str, type] = _by_name(cls for cls in classes if cls not in self.refs)
        """The tagged classes by wire name."""
        self._readers: dict[Any, Reader] = {}
        """Every annotation's reader, made once (:meth:`reader`), by its :func:`_spelling`."""
        self._read_game_value = self._tagged_reader((object,), wanted="a game value")
        """Reads a tagged map of any registered class (where ``Any`` stands)."""
        self._fields: dict[type, tuple[_Field, ...]] = {}
        """The fields of every class and message, read once here; never written after."""
        for cls in (*self.classes.values(), *messages):
            self._fields[cls] = self._read_fields(cls)
        self._field_names: dict[type, tuple[str, ...]] = {
            cls: tuple(field.name for field in self._fields[cls]) for cls in self.classes.values()
        }
        """The names of the fields of each tagged class, in order, by the class
        itself: what :meth:`_tagged_map` puts in its map, found with one look-up."""

    # --- encoding -------------------------------------------------------------

    def pack(self, value: Any) -> bytes:
        """``value`` as msgpack bytes: registered dataclasses as tagged maps,
        values by reference as their ids, tuples as arrays, enums as their
        values, and the rest as msgpack packs it.

        Raises:
            TypeError: ``value`` holds something the wire does not carry (a
                dataclass that is not registered, a set, a card that is not
                the one its table holds under its id...).
        """
        packed: bytes = msgpack.packb(value, default=self._tagged_map, use_bin_type=True)
        return packed

    def pack_alike(self, values: Sequence[Any], depth: int = 2) -> list[bytes]:
        """:meth:`pack` of each of ``values``, for values much alike: the
        frames of one change of a table, one for each seat.

        Where the values are maps with the same keys, or dataclasses of one
        registered class, the fields equal in all of them are packed once,
        and each value's map holds its own fields, then those. A field whose
        values differ but are all of one registered class (each seat's view)
        is looked into the same way, down to ``depth`` levels of maps. Each
        value reads back as from :meth:`pack`; only the order of keys differs.

        After every move a host packs a view for each seat, and the views
        share the public part of the table (every player's Psyche, or every
        doctor): two thirds of the work of packing a Side Effects view.

        Equal means ``==``, as Python compares: a field that is ``(1,)`` in
        one value and ``(True,)`` or ``(1.0,)`` in another is packed as the
        first has it, in all; :meth:`pack` packs each as it is (the wire
        tells ints, bools and floats apart). Views have no such fields.

        Raises:
            TypeError: as :meth:`pack`.
        """
        maps = self._alike_maps(values) if len(values) > 1 else None
        if maps is None:
            return [self.pack(value) for value in values]
        # One packer for the several packs below (msgpack.packb makes one for each).
        packer = msgpack.Packer(default=self._tagged_map, use_bin_type=True)
        return self._pack_maps(maps, depth, packer)

    def _pack_maps(self, maps: list[dict[str, Any]], depth: int, packer: msgpack.Packer) -> list[bytes]:
        """Each of ``maps`` (all of the same keys) packed: its own fields, the
        fields looked into, then the fields equal in all, packed once."""
        first = maps[0]
        shared: list[Any] = []
        own: list[str] = []
        looked_into: list[tuple[bytes, list[bytes]]] = []
        for key, value in first.items():
            if all(fields[key] == value for fields in maps):
                shared += (key, value)
                continue
            inner = self._alike_maps([fields[key] for fields in maps]) if depth > 1 else None
            if inner is None:
                own.append(key)
            else:
                looked_into.append((_pack_items(packer, [key]), self._pack_maps(inner, depth - 1, packer)))
        head = packer.pack_map_header(len(first))
        tail = _pack_items(packer, shared)
        return [
            b"".join(
                [
                    head,
                    _pack_items(packer, [item for key in own for item in (key, fields[key])]),
                    *(key + packed[i] for key, packed in looked_into),
                    tail,
                ]
            )
            for i, fields in enumerate(maps)
        ]

    def _alike_maps(self, values: Sequence[Any]) -> list[dict[str, Any]] | None:
        """``values`` as the maps :meth:`pack` writes, if all are maps of the
        same keys in the same order or all of one tagged class; else None."""
        first = values[0]
        if type(first) is dict:
            keys = list(first)
            if all(type(value) is dict and list(value) == keys for value in values):
                return list(values)
            return None
        kind = type(first)
        if kind not in self._field_names or any(type(value) is not kind for value in values):
            return None
        return [self._tagged_map(value) for value in values]

    def dumps_json(self, value: Any) -> str:
        """``value`` as one line of JSON, written as :meth:`pack` writes it to msgpack
        (a tagged map per dataclass, a card as its id, a tuple as an array): what a
        program playing a seat reads (:mod:`quackbox.net.program_lines`). ASCII only,
        so the line holds no line break of any kind but its end.

        Raises:
            TypeError: as :meth:`pack`.
        """
        return json.dumps(value, default=self._tagged_map, ensure_ascii=True, allow_nan=False, separators=(",", ":"))

    def wire_fields(self, cls: type) -> tuple[_Field, ...]:
        """The fields of the registered class or message ``cls`` as the codec reads them."""
        return self._fields[cls]

    def fields_of(self, value: Any) -> dict[str, Any]:
        """The fields of ``value`` (of a registered class or message) by name,
        in order, as they are: not encoded, for :meth:`pack`."""
        return {field.name: getattr(value, field.name) for field in self._fields[type(value)]}

    def _tagged_map(self, value: Any) -> Any:
        """msgpack's ``default`` hook, called for what it cannot pack itself: a
        value by reference becomes its id, a registered dataclass its tagged
        map (msgpack then packs the fields, calling this again for those that
        need it), an enum its value."""
        kind = type(value)
        table = self.refs.get(kind)
        if table is not None:
            if type(value.id) is not int or table.get(value.id) != value:  # True == 1, but not on the wire
                raise TypeError(f"cannot send {_short(value)} by its id: it is not the game's {kind.__name__}")
            return value.id
        names = self._field_names.get(kind)
        if names is not None:
            encoded = {TAG: kind.__name__}
            for name in names:
                encoded[name] = getattr(value, name)
            return encoded
        if isinstance(value, enum.Enum):
            return value.value
        raise TypeError(f"cannot put {kind.__name__} on the wire: {_short(value)}")

    # --- decoding -------------------------------------------------------------

    def decode(self, obj: Any, annotation: Any = Any, where: str = "value") -> Any:
        """The value of type ``annotation`` that the unpacked ``obj`` stands for.

        ``obj`` is what ``msgpack.unpackb(..., use_list=False)`` returned:
        arrays must be tuples. ``where`` names the place in error sentences.

        Raises:
            DecodeError: ``obj`` is not a well-formed ``annotation``.
        """
        self._check_annotation(annotation, where)
        return self.reader(annotation)(obj, where, 0)

    def decode_fields(self, cls: type, obj: dict[Any, Any], skip: str, depth: int = 0) -> Any:
        """A ``cls`` built from the map ``obj``, every field checked; ``skip``
        is the key that named the class (``"@"``, or a message's ``"type"``)."""
        if depth > MAX_DEPTH:
            raise DecodeError(cls.__name__, f"values nested deeper than {MAX_DEPTH}", cls)
        fields = self._fields[cls]
        values: dict[str, Any] = {}
        try:
            for field in fields:
                if field.name in obj:
                    values[field.name] = field.read(obj[field.name], field.where, depth + 1)
                elif field.required:
                    raise DecodeError(cls.__name__, f"missing field {field.name!r}")
        except DecodeError as exc:
            if exc.cls is None:
                exc.cls = cls
            raise
        if len(values) + (skip in obj) != len(obj):  # keys that are not fields
            for key in obj:
                if type(key) is not str:
                    raise DecodeError(cls.__name__, f"a map key must be text, not {_short(key)}", cls)
            known = {field.name for field in fields} | {skip}
            unknown = ", ".join(sorted(_short(key) for key in obj if key not in known))
            raise DecodeError(cls.__name__, f"no field(s) {unknown}", cls)
        try:
            return cls(**values)
        except Exception as exc:  # a __post_init__ may refuse the values; never let it escape
            raise DecodeError(cls.__name__, f"refused these values ({exc})", cls) from None

    # --- the readers: each annotation's checks, worked out once ------------------------

    def reader(self, ann: Any) -> Reader:
        """The reader of values of ``ann`` (an annotation :meth:`_check_annotation`
        accepted), made on first use and kept for the codec's life.

        Reading an annotation (``typing.get_origin`` and ``get_args``, which
        arms of a union, which classes a tag may name) is the same work for
        every value of it. A reader holds what it needs (the readers of its
        items or arms, the classes its tag may name, its table of ids) and
        only checks the value. Every field gets its reader when the codec is
        made, so decoding a frame reads no annotation (``bench.codec`` times
        it); the refusals are the same, word for word.
        """
        key = _spelling(ann)
        read = self._readers.get(key)
        if read is None:
            read = self._readers[key] = self._make_reader(ann)
        return read

    def _make_reader(self, ann: Any) -> Reader:
        """A new reader of ``ann``; see :meth:`reader`."""
        if ann is int:
            return _read_int
        if ann is str:
            return self._read_str
        if ann is bool:
            return _read_bool
        if ann is float:
            return _read_float
        if ann is _NONE:
            return _read_none
        if ann is Any:
            return self._read_any
        if isinstance(ann, type) and issubclass(ann, enum.Enum):
            return _member_reader(ann)
        if isinstance(ann, type):  # a dataclass: _check_annotation let no other class through
            if ann in self.refs:
                return self._referenced_reader((ann,))
            return self._tagged_reader((ann,))
        args = typing.get_args(ann)
        if typing.get_origin(ann) is tuple:
            return self._tuple_reader(args)
        # A union: X | None, or of dataclasses (and maybe None).
        arms = tuple(arm for arm in args if arm is not _NONE)
        if len(arms) == 1:
            read = self.reader(arms[0])
        elif arms[0] in self.refs:  # then all are, their ids apart (_check_annotation)
            read = self._referenced_reader(arms)
        else:
            read = self._tagged_reader(arms)
        if _NONE not in args:
            return read

        def read_or_none(obj: Any, where: str, depth: int) -> Any:
            if obj is None:
                return None
            return read(obj, where, depth)

        return read_or_none

    def _referenced_reader(self, classes: tuple[type, ...]) -> Reader:
        """Reads the value of one of ``classes`` (sent by reference) whose id is
        ``obj``; their tables are one, since no two of them share an id."""
        table: dict[int, Any] = {}
        for cls in classes:
            table.update(self.refs[cls])
        wanted = " or ".join(cls.__name__ for cls in classes)

        def read_id(obj: Any, where: str, depth: int) -> Any:
            if type(obj) is int:  # not a bool
                value = table.get(obj)
                if value is not None:
                    return value
            got = _short(obj) if type(obj) is int else _kind(obj)
            raise DecodeError(where, f"expected the id of a {wanted}, got {got}")

        return read_id

    def _tagged_reader(self, bases: tuple[type, ...], wanted: str = "") -> Reader:
        """Reads the registered dataclass that a tagged map names, if it is a
        subclass of one of ``bases``; ``wanted`` says what may stand there."""
        may_stand = {name: cls for name, cls in self.classes.items() if issubclass(cls, bases)}
        wanted = wanted or " or ".join(f"a {base.__name__}" for base in bases)
        decode_fields = self.decode_fields

        def read_tagged(obj: Any, where: str, depth: int) -> Any:
            tag = obj.get(TAG) if type(obj) is dict else None
            cls = may_stand.get(tag) if type(tag) is str else None
            if cls is None:
                raise DecodeError(where, f"expected {wanted}, got {_kind(obj)}")
            return decode_fields(cls, obj, TAG, depth)

        return read_tagged

    def _tuple_reader(self, args: tuple[Any, ...]) -> Reader:
        """Reads ``tuple[X, ...]`` (``args`` is ``(X, ...)``) or a fixed ``tuple[X, Y]``."""
        if len(args) == 2 and args[1] is Ellipsis:
            read_item = self.reader(args[0])

            def read_array(obj: Any, where: str, depth: int) -> tuple[Any, ...]:
                _check_array(obj, where, depth)
                return tuple([read_item(item, where, depth + 1) for item in obj])

            return read_array
        readers = tuple(self.reader(arg) for arg in args)

        def read_fixed(obj: Any, where: str, depth: int) -> tuple[Any, ...]:
            _check_array(obj, where, depth)
            if len(obj) != len(readers):
                raise DecodeError(where, f"expected an array of {len(readers)}, got {_kind(obj)}")
            return tuple([read(item, where, depth + 1) for read, item in zip(readers, obj)])

        return read_fixed

    def _read_str(self, obj: Any, where: str, depth: int) -> str:
        if type(obj) is not str:
            raise DecodeError(where, f"expected text, got {_kind(obj)}")
        if len(obj) > self.max_str:
            raise DecodeError(where, f"text longer than {self.max_str} characters")
        return obj

    def _read_any(self, obj: Any, where: str, depth: int) -> Any:
        """Any registered dataclass, scalar, or array of them (never an untagged map)."""
        if obj is None or type(obj) is bool or type(obj) is int:
            return obj
        if type(obj) is str:
            return self._read_str(obj, where, depth)
        if type(obj) is float:
            return _read_float(obj, where, depth)
        if type(obj) is tuple:
            _check_array(obj, where, depth)
            return tuple([self._read_any(item, where, depth + 1) for item in obj])
        return self._read_game_value(obj, where, depth)

    # --- reading the annotations, once ------------------------------------------

    def _read_fields(self, cls: type) -> tuple[_Field, ...]:
        """The fields of ``cls`` the wire carries (those ``__init__`` takes), their
        annotations checked; TypeError for one the codec cannot read."""
        try:
            hints = type_hints(cls)
            shown = type_hints(cls, extras=True)
        except Exception as exc:
            raise TypeError(f"cannot read the annotations of {cls.__name__}: {exc}") from None
        fields = []
        for f in dataclasses.fields(cls):
            if not f.init:
                continue
            where = f"{cls.__name__}.{f.name}"
            self._check_annotation(hints[f.name], where)
            required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
            read = self.reader(hints[f.name])
            fields.append(_Field(f.name, hints[f.name], required, where, shown[f.name], read))
        return tuple(fields)

    def _check_annotation(self, ann: Any, where: str) -> None:
        """Raise TypeError unless :meth:`reader` can read values of ``ann``."""
        if ann in (int, str, bool, float, _NONE, Any):
            return
        if isinstance(ann, type) and issubclass(ann, enum.Enum):
            return
        if isinstance(ann, type) and ann in self.refs:
            return
        if isinstance(ann, type) and dataclasses.is_dataclass(ann):
            if not any(issubclass(cls, ann) for cls in self.classes.values()):
                raise TypeError(f"{where}: no registered wire class is a {ann.__name__}")
            return
        origin, args = typing.get_origin(ann), typing.get_args(ann)
        if origin is tuple and args:
            for arg in args[:1] if args[-1] is Ellipsis else args:
                self._check_annotation(arg, where)
            return
        if origin is typing.Union or origin is types.UnionType:
            arms = [arm for arm in args if arm is not _NONE]
            if len(arms) > 1 and not all(isinstance(arm, type) and dataclasses.is_dataclass(arm) for arm in arms):
                raise TypeError(f"{where}: the wire reads X | None and unions of dataclasses, not {_type_name(ann)}")
            if len(arms) > 1:
                self._check_referenced_union(arms, where)
            for arm in arms:
                self._check_annotation(arm, where)
            return
        raise TypeError(f"{where}: the wire codec cannot carry {_type_name(ann)}")

    def _check_referenced_union(self, arms: list[Any], where: str) -> None:
        """Raise TypeError unless the union of ``arms`` is of tagged classes
        only, or of classes by reference whose ids an id tells apart."""
        referenced = [arm for arm in arms if arm in self.refs]
        if referenced and len(referenced) != len(arms):
            raise TypeError(f"{where}: a union of classes sent by reference and tagged classes cannot be read")
        seen: set[int] = set()
        for arm in referenced:
            if not seen.isdisjoint(self.refs[arm]):
                raise TypeError(f"{where}: {arm.__name__} shares ids with another class of the union")
            seen.update(self.refs[arm])


@functools.cache
def type_hints(cls: type, *, extras: bool = False) -> Mapping[str, Any]:
    """``typing.get_type_hints(cls, include_extras=extras)``, read once per class (``extras``:
    ``Annotated`` kept, as written; without, as values are checked). Every codec reads the same classes
    (a host's, and each client's twice: the handshake's and the game's), and reading them is
    most of the work of making one. A door's zygote reads them before it forks, so no
    session's child does."""
    return types.MappingProxyType(typing.get_type_hints(cls, include_extras=extras))


def _by_id(cls: type[Any], values: Iterable[Any]) -> dict[int, Any]:
    """The table of ``cls`` sent by reference: ``values`` by id, refusing a
    value of another class and ids that are not ints or are used twice."""
    if "id" not in _field_names(cls):
        raise TypeError(f"{cls.__name__} has no id to be sent by")
    table: dict[int, Any] = {}
    for value in values:
        if type(value) is not cls:
            raise TypeError(f"the table of {cls.__name__} holds {_short(value)}")
        if type(value.id) is not int or value.id in table:
            raise TypeError(f"the table of {cls.__name__} needs unique whole-number ids, not {_short(value.id)}")
        table[value.id] = value
    return table


def _field_names(cls: type) -> set[str]:
    """The names of the fields of the dataclass ``cls``; TypeError if it is none."""
    if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
        raise TypeError(f"{cls!r} is not a dataclass type")
    return {field.name for field in dataclasses.fields(cls)}


def _by_name(classes: Iterable[type]) -> dict[str, type]:
    """``classes`` by name, refusing what is not a dataclass and names used twice."""
    by_name: dict[str, type] = {}
    for cls in classes:
        if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
            raise TypeError(f"{cls!r} is not a dataclass type")
        other = by_name.setdefault(cls.__name__, cls)
        if other is not cls:
            raise TypeError(f"two wire classes are called {cls.__name__}: {other!r} and {cls!r}")
    return by_name


def _spelling(ann: Any) -> Any:
    """``ann`` as a key that keeps the order of its arguments: ``A | B`` equals
    ``B | A`` (and ``tuple[A | B, ...]`` equals ``tuple[B | A, ...]``), but their
    refusals name the arms in the order written, so they get readers of their own."""
    args = typing.get_args(ann)
    return (ann, tuple(_spelling(arg) for arg in args)) if args else ann


def _read_int(obj: Any, where: str, depth: int) -> int:
    if type(obj) is not int:  # bool is an int in Python; on the wire they differ
        raise DecodeError(where, f"expected a whole number, got {_kind(obj)}")
    return obj


def _read_bool(obj: Any, where: str, depth: int) -> bool:
    if type(obj) is not bool:
        raise DecodeError(where, f"expected true or false, got {_kind(obj)}")
    return obj


def _read_float(obj: Any, where: str, depth: int) -> float:
    if type(obj) is int:  # a float with no fraction may arrive packed as an int
        return float(obj)
    if type(obj) is not float:
        raise DecodeError(where, f"expected a number, got {_kind(obj)}")
    if not math.isfinite(obj):
        raise DecodeError(where, f"expected a finite number, got {obj}")
    return obj


def _read_none(obj: Any, where: str, depth: int) -> None:
    if obj is not None:
        raise DecodeError(where, f"expected nil, got {_kind(obj)}")


def _member_reader(cls: type[enum.Enum]) -> Reader:
    """Reads the member of enum ``cls`` whose value is ``obj``, of the same type (1 is not true)."""
    members = tuple((type(member.value), member.value, member) for member in cls)

    def read_member(obj: Any, where: str, depth: int) -> enum.Enum:
        for kind, value, member in members:
            if kind is type(obj) and value == obj:
                return member
        raise DecodeError(where, f"expected a {cls.__name__}, got {_short(obj)}")

    return read_member


def _check_array(obj: Any, where: str, depth: int) -> None:
    if type(obj) is not tuple:
        raise DecodeError(where, f"expected an array, got {_kind(obj)}")
    if len(obj) > MAX_ITEMS:
        raise DecodeError(where, f"array longer than {MAX_ITEMS}")
    if depth > MAX_DEPTH:
        raise DecodeError(where, f"values nested deeper than {MAX_DEPTH}")


# --- wording ------------------------------------------------------------------


def _kind(obj: Any) -> str:
    """A short name for the type of an unpacked value, for error sentences."""
    if obj is None:
        return "nil"
    if isinstance(obj, bool):
        return "a boolean"
    if isinstance(obj, int):
        return "a whole number"
    if isinstance(obj, float):
        return "a number"
    if isinstance(obj, str):
        return "text"
    if isinstance(obj, tuple):
        return f"an array of {len(obj)}"
    if isinstance(obj, dict):
        tag = obj.get(TAG)
        return f"a map tagged {_short(tag)}" if tag is not None else "an untagged map"
    if isinstance(obj, bytes):
        return "binary data"
    return type(obj).__name__


_REPR = reprlib.Repr()
_REPR.maxlevel = 2
_REPR.maxstring = _REPR.maxother = 40


def _pack_items(packer: msgpack.Packer, items: list[Any]) -> bytes:
    """``items`` packed one after another: their array's bytes after its header."""
    header: bytes = packer.pack_array_header(len(items))
    packed: bytes = packer.pack(items)
    return packed[len(header) :]


def _short(obj: Any) -> str:
    """``repr(obj)`` cut short and shallow, so an error never echoes (or
    recurses through) a whole hostile frame."""
    return _REPR.repr(obj)


def _type_name(ann: Any) -> str:
    return getattr(ann, "__name__", None) or str(ann).replace("typing.", "")
