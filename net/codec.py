"""A generic codec between frozen dataclasses and msgpack, strict when decoding.

Moves, events and views of every game are frozen dataclasses whose fields are
ints, strs, bools, floats, None, tuples of these, enums, or other such
dataclasses (see :mod:`core.rules`). So one codec, built from the list of
classes a game can put on the wire (``rules.wire_types()``), can encode any of
them and, more importantly, decode untrusted input back into them while
checking every field against the class's type annotations.

Encoding: a dataclass becomes a map ``{"@": ClassName, field: value, ...}``;
a tuple becomes an array; an enum becomes its value; the rest is as is.

Decoding is strict, because it is the trust boundary of the host: the tag must
name a registered class allowed where it appears, every field without a
default must be present, no unknown field is accepted, ``int`` never accepts a
bool (``True`` is an ``int`` in Python, not on this wire), strings and arrays
have length limits. Anything else raises :class:`DecodeError`, and nothing
but :class:`DecodeError`: that is the codec's fuzz contract, checked by
``tests/net/test_protocol.py``.

Encoding to bytes (:meth:`Codec.pack`, what the host sends) skips the maps:
each class has a packer compiled from its annotations that writes its msgpack
bytes directly, its plain fields packed in one call to msgpack's C packer
and its nested values spliced in as bytes. The bytes of long-lived values
(cards, a player's public board, options) are kept per object, so a view
whose public part did not change since the last move costs little more than
joining bytes. The result is the same bytes as packing :meth:`Codec.encode`.

Why bottom-up: msgpack's C unpacker walks the frame and calls
:meth:`Codec.object_hook` for each map, innermost first, so a dataclass is
built once its fields are already typed values and each field check is a
shallow ``type(...)`` test. Walking the plain values again in Python was
several times slower, and the host decodes on every move.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import reprlib
import types
import typing
from typing import Any, Callable, Iterable, Mapping

import msgpack

from core.rules import Event, Move

__all__ = ["Codec", "DecodeError", "TAG"]

TAG = "@"
"""The key that names the class of an encoded dataclass."""

MAX_STR = 1000
"""Longest string accepted inside a value (card texts are far shorter)."""
MAX_ITEMS = 4096
"""Longest array or map accepted inside a value."""
CACHE_SIZE = 8192
"""Entries kept by each encoding or interning cache before it starts afresh."""
PACK_CACHE_SIZE = 512
"""Objects whose packed bytes are kept in the newer generation before it is
retired (see :class:`_Generations`). Small on purpose: the big win is the
other seats of the same move; a larger cache also keeps replaced boards
alive long enough to reach the collector's oldest generation, and in the
capacity bench (100 tables) 2048 brought full collections of 50 ms and
more that 512 did not."""
KEEP_TRIAL = 1000
"""Objects of a kept class packed before judging whether keeping them pays."""
RECENT_SIZE = 64
"""Events whose packed bytes are kept for the other seats of the same move
(until :meth:`Codec.drop_recent`, or this many)."""
MAX_DEPTH = 16
"""Deepest nesting of bare arrays accepted where any value may appear."""


class DecodeError(ValueError):
    """A value does not match the type it must have.

    ``where`` names the class and field (``Treat.drug``); ``cls`` is the
    class whose field was wrong, if known.
    """

    def __init__(self, where: str, problem: str, cls: type | None = None) -> None:
        self.where = where
        self.problem = problem
        self.cls = cls
        super().__init__(f"{where}: {problem}" if where else problem)


# A checker takes a value already decoded by msgpack (and by object_hook for
# nested dataclasses) and returns it typed, or raises DecodeError.
Checker = Callable[[Any, str], Any]
_Spec = tuple[tuple[str, Checker, bool, str], ...]
"""Per field: its name, its checker, whether it is required, and ``Class.field`` for errors."""


class Codec:
    """Encodes and strictly decodes the dataclasses of one registry.

    Args:
        classes: every dataclass that may appear inside a value; class names
            must be unique, since the name is the tag on the wire.
        max_str: longest string accepted when decoding.
        intern: reuse one decoded object for equal values of the simplest
            classes (cards, moves). Worth it where the same cards arrive in
            every frame (a client); pointless for a host reading moves.
    """

    def __init__(self, classes: Iterable[type], *, max_str: int = MAX_STR, intern: bool = False) -> None:
        self.max_str = max_str
        self.intern = intern
        self._classes: dict[str, type] = {}
        for cls in classes:
            if not dataclasses.is_dataclass(cls) or not isinstance(cls, type):
                raise TypeError(f"{cls!r} is not a dataclass type")
            other = self._classes.get(cls.__name__)
            if other is not None and other is not cls:
                raise TypeError(f"two wire classes are called {cls.__name__}: {other!r} and {cls!r}")
            self._classes[cls.__name__] = cls
        self._registered = frozenset(self._classes.values())
        self._specs: dict[type, _Spec] = {}
        self._fast: dict[type, Callable[[Mapping[str, Any]], Any]] = {}
        self._encoders: dict[type, Callable[[Any], dict[str, Any]]] = {}
        self._field_encoders: dict[type, Callable[[Any], dict[str, Any]]] = {}
        self._leaves: set[type] = set()
        self._encoded: dict[int, tuple[Any, dict[str, Any]]] = {}
        self._names: dict[type, tuple[str, ...]] = {}
        self._allowed: dict[type, frozenset[type]] = {}
        self._checkers: dict[Any, Checker] = {}
        self._packers: dict[type, Callable[[Any], bytes]] = {}
        self._message_packers: dict[tuple[type, str, str], Callable[[Any], bytes]] = {}
        # One C packer for every plain part: msgpack.packb makes a new one per
        # call, which costs more than packing a few scalars. It never calls
        # back into Python (no ``default``), so it cannot be re-entered.
        self._pk = msgpack.Packer(use_bin_type=True, autoreset=True).pack
        self._kept = _Generations(PACK_CACHE_SIZE)
        self._recent: dict[int, tuple[Any, bytes]] = {}
        self._keep_tallies: dict[type, list[Any]] = {}
        """Per kept class: [hits, misses, given up] (see _compile_packer)."""
        self._nested = _nested_classes(self._classes.values())
        # Compile every class now so a bad annotation fails at start-up, not
        # in the middle of a game.
        self._builders: dict[str, Callable[[Mapping[str, Any]], Any]] = {}
        for name, cls in self._classes.items():
            self.spec(cls)
            self._builders[name] = self._fast.get(cls) or functools.partial(self.build, cls, skip=TAG)

    @property
    def classes(self) -> Mapping[str, type]:
        """The registered classes by wire name."""
        return self._classes

    # --- encoding -------------------------------------------------------------

    def encode(self, value: Any) -> Any:
        """``value`` as plain maps, arrays and scalars, which msgpack packs in C.

        Each class has an encoder compiled from its annotations, so a whole
        view is converted in a few Python calls per object; the maps of
        card-like objects (all fields plain) are kept and reused, since the
        same card objects appear in every view.
        """
        encoder = self._encoders.get(type(value))
        if encoder is not None:
            return encoder(value)
        kind = type(value)
        if kind is tuple or kind is list:
            return [self.encode(v) for v in value]
        if isinstance(value, enum.Enum):
            return value.value
        if value is None or kind is bool or kind is int or kind is float or kind is str:
            return value
        if isinstance(value, dict):
            return {k: self.encode(v) for k, v in value.items()}
        raise TypeError(f"cannot put {type(value).__name__} on the wire: {value!r}")

    def pack(self, value: Any) -> bytes:
        """``value`` as msgpack bytes: ``msgpack.packb(self.encode(value))``, faster.

        Raises TypeError for a value the wire cannot carry (as packing the
        encoded value would), and possibly for some it can (a value of an
        unexpected type in a field): :meth:`pack_message` then falls back to
        :meth:`encode`.
        """
        packer = self._packers.get(type(value))
        if packer is not None:
            return packer(value)
        kind = type(value)
        if kind is tuple or kind is list:
            return _array_header(len(value)) + b"".join([self.pack(v) for v in value])
        if kind is str or kind is int or kind is bool or kind is float or value is None:
            return self._pk(value)
        if isinstance(value, enum.Enum):
            return self.pack(value.value)
        return self._pk(self.encode(value))  # a map, or TypeError for what the wire cannot carry

    def drop_recent(self) -> None:
        """Forget the events kept while packing the frames of one change.

        Call once those frames are made: the events can then die young,
        rather than live on into the cyclic collector's oldest generation.
        """
        self._recent.clear()

    def message_packer(self, cls: type, key: str, name: str) -> Callable[[Any], bytes]:
        """A function packing a ``cls`` as a map whose first entry is ``key: name``
        (a protocol message's ``type``), then its fields."""
        packer = self._message_packers.get((cls, key, name))
        if packer is None:
            self.spec(cls)
            compiled = self._compile_packer(cls, _hints(cls), (key, name), remember=None)
            fallback = self.fields_of

            def pack_message(message: Any) -> bytes:
                try:
                    return compiled(message)
                except TypeError:
                    # Something the compiled packer did not expect (a list
                    # where a tuple was declared, say): the general way, which
                    # packs it or raises TypeError itself.
                    body = {key: name}
                    body.update(fallback(message))
                    return msgpack.packb(body, default=self.default, use_bin_type=True)

            packer = self._message_packers[(cls, key, name)] = pack_message
        return packer

    def default(self, value: Any) -> Any:
        """msgpack's ``default`` hook, for anything left unconverted."""
        return self.encode(value)

    def fields_of(self, value: Any) -> dict[str, Any]:
        """The fields of dataclass ``value``, encoded, without its tag (a message's top level)."""
        fields = self._field_encoders.get(type(value))
        if fields is None:
            self.spec(type(value))
            fields = self._field_encoders[type(value)]
        return fields(value)

    # --- decoding -------------------------------------------------------------

    def object_hook(self, obj: dict[str, Any]) -> Any:
        """msgpack's ``object_hook``: a tagged map becomes its dataclass.

        A map whose tag is missing or unknown is returned as it is; the field
        that holds it then refuses it, naming the place (which makes a clearer
        error than refusing it here, out of context).
        """
        name = obj.get(TAG)
        if type(name) is str:
            build = self._builders.get(name)
            if build is not None:
                return build(obj)
        return obj

    def build(self, cls: type, obj: Mapping[str, Any], skip: str) -> Any:
        """An instance of ``cls`` from the map ``obj`` (whose key ``skip`` is its tag).

        The general way: every case handled, every error precise. The
        compiled builders behind :meth:`object_hook` take the common case
        faster and fall back to this for the rest.
        """
        spec = self.spec(cls)
        values: dict[str, Any] = {}
        try:
            for name, check, required, where in spec:
                if name in obj:
                    values[name] = check(obj[name], where)
                elif required:
                    raise DecodeError(cls.__name__, f"missing field {name!r}", cls)
        except DecodeError as exc:
            if exc.cls is None:
                exc.cls = cls  # so the caller can tell a bad move from a bad message
            raise
        if len(obj) - (skip in obj) != len(values):
            known = {field[0] for field in spec} | {skip}
            unknown = sorted(_short(k) for k in obj if k not in known)
            raise DecodeError(cls.__name__, f"no field(s) {', '.join(unknown)}", cls)
        try:
            return cls(**values)
        except Exception as exc:  # a __post_init__ may refuse the values; never let it escape
            raise DecodeError(cls.__name__, f"refused these values ({exc})", cls) from None

    # --- compiling annotations into checkers --------------------------------------

    def spec(self, cls: type) -> _Spec:
        """The (field, checker, required, where) of each field of ``cls``, compiled once."""
        known = self._specs.get(cls)
        if known is not None:
            return known
        try:
            hints = _hints(cls)
        except Exception as exc:
            raise TypeError(f"cannot read the annotations of {cls.__name__}: {exc}") from None
        specs = []
        for f in dataclasses.fields(cls):
            if not f.init:
                continue
            required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
            specs.append((f.name, self._checker(hints[f.name]), required, f"{cls.__name__}.{f.name}"))
        self._specs[cls] = tuple(specs)
        self._names[cls] = tuple(f.name for f in dataclasses.fields(cls))
        if all(_is_plain(hints[f.name]) for f in dataclasses.fields(cls)):
            self._leaves.add(cls)
        # Keep the encoded maps of long-lived objects (cards, options): the
        # rules hand out the same instances view after view. Moves and events
        # are made afresh each time; keeping theirs would only fill the cache
        # with the dead and give the cyclic collector more to walk.
        remember = cls in self._leaves and not issubclass(cls, (Move, Event))
        self._encoders[cls], self._field_encoders[cls] = self._compile_encoders(cls, hints, remember)
        # Keep the packed bytes of immutable values that other values hold
        # (cards, a player's board, options): the rules hand out the same
        # instances again while they stay true. Top-level views and moves
        # and events are new every time.
        keep: str | None = None
        if _immutable_class(cls, hints, tuple(self._classes.values())):
            if issubclass(cls, Event):
                # The same event goes to every seat that may see it whole.
                keep = "recent"
            elif cls in self._nested and not issubclass(cls, Move):
                keep = "long"
        self._packers[cls] = self._compile_packer(cls, hints, (TAG, cls.__name__), remember=keep)
        if len(specs) == len(dataclasses.fields(cls)):
            self._fast[cls] = self._compile_fast(cls, hints)
        return self._specs[cls]

    def _compile_encoders(
        self, cls: type, hints: dict[str, Any], remember: bool
    ) -> tuple[Callable[[Any], Any], Callable[[Any], Any]]:
        """Two functions for ``cls``: the tagged map of a value (kept per object
        if ``remember``), and its bare fields."""
        env: dict[str, Any] = {"_enc": self.encode, "_cache": self._encoded, "_SIZE": CACHE_SIZE}
        items = [f"{f.name!r}: {_field_expr(hints[f.name], 'v.' + f.name, 1)}" for f in dataclasses.fields(cls)]
        body = ", ".join(items)
        tagged = ", ".join([f"{TAG!r}: {cls.__name__!r}"] + items)
        lines = ["def fields(v):", f"    return {{{body}}}", "def encode(v):"]
        if remember:
            # The cache holds the object itself, so its id cannot be reused
            # while the entry lives.
            lines += [
                "    hit = _cache.get(id(v))",
                "    if hit is not None and hit[0] is v:",
                "        return hit[1]",
                "    if len(_cache) >= _SIZE:",
                "        _cache.clear()",
                f"    out = {{{tagged}}}",
                "    _cache[id(v)] = (v, out)",
                "    return out",
            ]
        else:
            lines += [f"    return {{{tagged}}}"]
        exec("\n".join(lines), env)  # noqa: S102 - expressions built from the class's own annotations
        return env["encode"], env["fields"]

    def _compile_packer(
        self, cls: type, hints: dict[str, Any], head: tuple[str, str], remember: str | None
    ) -> Callable[[Any], bytes]:
        """A function writing the msgpack bytes of a ``cls``: a map of ``head``
        and then every field.

        Runs of fields whose values msgpack packs as they are (scalars, tuples
        of scalars, enums by value) go to the C packer in one call, as a flat
        array of keys and values whose header is cut off; the rest are packed
        on their own and joined. With ``remember="long"`` the bytes are kept
        per object (see :class:`_Generations`); with ``"recent"``, only for
        the last few objects packed (the events of one move, packed for every
        seat).
        """
        fields = dataclasses.fields(cls)
        env: dict[str, Any] = {
            "_pk": self._pk,
            "_pack": self.pack,
            "_join": b"".join,
            "_ahdr": _array_header,
            "_NIL": msgpack.packb(None),
            "_HEAD": _map_header(len(fields) + 1) + msgpack.packb(head[0]) + msgpack.packb(head[1]),
        }
        parts = ["_HEAD"]
        run: list[str] = []

        def flush() -> None:
            if run:
                cut = len(_array_header(len(run)))
                parts.append(f"_pk(({', '.join(run)},))[{cut}:]")
                run.clear()

        for i, f in enumerate(fields):
            var = f"v.{f.name}"
            plain = _plain_expr(hints[f.name], var)
            if plain is not None:
                run += [repr(f.name), plain]
                continue
            flush()
            env[f"_K{i}"] = msgpack.packb(f.name)
            parts += [f"_K{i}", self._bytes_expr(hints[f.name], var, env)]
        flush()
        expr = f"_join(({', '.join(parts)},))"
        if remember == "recent":
            env.update(_recent=self._recent, _RECENT=RECENT_SIZE)
            lines = [
                "def pack(v):",
                "    key = id(v)",
                "    hit = _recent.get(key)",
                "    if hit is not None and hit[0] is v:",
                "        return hit[1]",
                f"    out = {expr}",
                "    if len(_recent) >= _RECENT:",
                "        _recent.clear()",
                "    _recent[key] = (v, out)",
                "    return out",
            ]
        elif remember == "long":
            kept = self._kept
            # [hits, misses, off]: a class whose objects are seldom packed
            # twice (made afresh for every view) stops being kept after a
            # trial, rather than fill the cache and keep the dead alive for
            # the cyclic collector to walk.
            tally = [0, 0, False]
            env.update(_new=kept.new, _old=kept.old, _retire=kept.retire, _SIZE=kept.size)
            env.update(_tally=tally, _TRIAL=KEEP_TRIAL)
            lines = [
                "def pack(v):",
                "    if _tally[2]:",
                f"        return {expr}",
                "    key = id(v)",
                "    hit = _new.get(key)",
                "    if hit is not None and hit[0] is v:",
                "        _tally[0] += 1",
                "        return hit[1]",
                "    hit = _old.get(key)",
                "    if hit is not None and hit[0] is v:",
                "        _tally[0] += 1",
                "        out = hit[1]",
                "    else:",
                "        _tally[1] += 1",
                "        if _tally[1] >= _TRIAL and _tally[0] < _tally[1]:",
                "            _tally[2] = True",
                f"        out = {expr}",
                "    if len(_new) >= _SIZE:",
                "        _retire()",
                "    _new[key] = (v, out)",
                "    return out",
            ]
            self._keep_tallies[cls] = tally
        else:
            lines = ["def pack(v):", f"    return {expr}"]
        exec("\n".join(lines), env)  # noqa: S102 - expressions built from the class's own annotations
        return env["pack"]

    def _bytes_expr(self, ann: Any, var: str, env: dict[str, Any]) -> str:
        """An expression giving the msgpack bytes of ``var`` (of type ``ann``).

        A value of a class with no registered subclass calls that class's
        packer directly (one Python call per card rather than two); anything
        else, or a value of another type after all, goes through :meth:`pack`.
        """
        origin, args = typing.get_origin(ann), typing.get_args(ann)
        if origin in (typing.Union, types.UnionType) and len(args) == 2 and type(None) in args:
            other = args[0] if args[1] is type(None) else args[1]
            inner = _plain_expr(other, var)
            inner = f"_pk({inner})" if inner is not None else self._bytes_expr(other, var, env)
            return f"(_NIL if {var} is None else {inner})"
        if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
            item = self._bytes_expr(args[0], "x", env)
            return f"(_ahdr(len({var})) + _join([{item} for x in {var}]))"
        direct = self._direct_packer(ann)
        if direct is not None:
            n = len(env)
            env[f"_C{n}"], env[f"_P{n}"] = ann, direct
            return f"(_P{n}({var}) if type({var}) is _C{n} else _pack({var}))"
        return f"_pack({var})"  # a dataclass (any registered subclass), or anything else

    def _direct_packer(self, ann: Any) -> Callable[[Any], bytes] | None:
        """The packer of class ``ann`` if it is registered and has no registered
        subclass, compiling it first; None otherwise (or while it is being compiled)."""
        if not (isinstance(ann, type) and dataclasses.is_dataclass(ann)) or ann not in self._registered:
            return None
        if any(c is not ann and issubclass(c, ann) for c in self._registered):
            return None
        if ann not in self._packers and ann not in self._specs:
            self.spec(ann)  # a class that holds itself finds no packer yet, and takes the general way
        return self._packers.get(ann)

    def _compile_fast(self, cls: type, hints: dict[str, Any]) -> Callable[[Mapping[str, Any]], Any]:
        """A builder for ``cls`` specialised to its fields, as dataclasses makes ``__init__``.

        It handles the common case only (every field present, nothing else,
        the usual types) with inline type tests; anything else goes to
        :meth:`build`, which accepts what it should and words the
        error. So the fast path changes speed, never what is accepted.
        """
        env: dict[str, Any] = {
            "_cls": cls,
            "_slow": self.build,
            "_TAG": TAG,
            "_MAX": self.max_str,
            "_DecodeError": DecodeError,
            "_new": object.__new__,
        }
        names = [f.name for f in dataclasses.fields(cls)]
        interned = self.intern and cls in self._leaves and bool(names)
        lines = ["def fast(obj):"]
        if interned:
            # A frame equal to one already decoded gives the same object,
            # without the checks: a hit can only be a value that passed them
            # once. (Equal is not identical: 1 == True, so an int field sent
            # as true is read as 1 after a hit, where it would be refused
            # before one. The object handed on is always well typed.)
            env["_cache"] = {}
            env["_SIZE"] = CACHE_SIZE
            lines += [
                "    try:",
                "        key = tuple(obj.items())",
                "        hit = _cache.get(key)",
                "    except TypeError:  # an unhashable value: not one we ever built",
                "        key = hit = None",
                "    if hit is not None:",
                "        return hit",
            ]
        lines += [
            f"    if len(obj) != {len(names) + 1}:",
            "        return _slow(_cls, obj, _TAG)",
        ]
        if names:
            lines += ["    try:"]
            lines += [f"        v{i} = obj[{name!r}]" for i, name in enumerate(names)]
            lines += ["    except KeyError:", "        return _slow(_cls, obj, _TAG)"]
        checked = []
        for i, name in enumerate(names):
            test = _inline_test(hints[name], f"v{i}")
            if test is not None:
                lines += [f"    if not ({test}):", "        return _slow(_cls, obj, _TAG)"]
            else:
                env[f"_c{i}"] = self._checker(hints[name])
                checked.append(f"        v{i} = _c{i}(v{i}, {cls.__name__ + '.' + name!r})")
        if checked:
            lines += ["    try:", *checked]
            lines += [
                "    except _DecodeError as exc:",
                "        if exc.cls is None:",
                "            exc.cls = _cls  # so the caller can tell a bad move from a bad message",
                "        raise",
            ]
        args = ", ".join(f"v{i}" for i in range(len(names)))
        if _plain_slots(cls):
            # Set the slots directly, as core.rules.record does: the same
            # frozen value as calling the class, at half the cost. Only for
            # classes whose construction runs no code of their own.
            for i, name in enumerate(names):
                env[f"_s{i}"] = getattr(cls, name).__set__
            lines += ["    made = _new(_cls)"] + [f"    _s{i}(made, v{i})" for i in range(len(names))]
        else:
            lines += ["    try:", f"        made = _cls({args})", "    except Exception:", "        return _slow(_cls, obj, _TAG)"]
        if interned:
            lines += [
                "    if key is not None:",
                "        if len(_cache) >= _SIZE:",
                "            _cache.clear()",
                "        _cache[key] = made",
            ]
        lines.append("    return made")
        exec("\n".join(lines), env)  # noqa: S102 - compiles field tests, as dataclasses compiles __init__
        return env["fast"]

    def _checker(self, annotation: Any) -> Checker:
        try:
            return self._checkers[annotation]
        except (KeyError, TypeError):
            pass
        check = self._make_checker(annotation)
        try:
            self._checkers[annotation] = check
        except TypeError:  # an unhashable annotation; just do not cache it
            pass
        return check

    def _make_checker(self, ann: Any) -> Checker:
        if ann is Any or ann is object:
            return self._check_any
        if ann is None or ann is type(None):
            return _check_none
        if ann is bool:
            return _check_bool
        if ann is int:
            return _check_int
        if ann is float:
            return _check_float
        if ann is str:
            return self._check_str
        origin = typing.get_origin(ann)
        args = typing.get_args(ann)
        if origin is typing.Union or origin is types.UnionType:
            return _union(tuple(self._checker(a) for a in args), ann)
        if origin is typing.Literal:
            return _literal(args)
        if origin is tuple:
            if len(args) == 2 and args[1] is Ellipsis:
                return self._tuple_of(args[0])
            return _tuple_fixed(tuple(self._checker(a) for a in args))
        if ann is tuple:
            return self._tuple_of(Any)
        if origin is dict or getattr(origin, "__name__", "") == "Mapping":
            key, value = args if args else (str, Any)
            if key is not str:
                raise TypeError(f"wire maps must have str keys, not {key!r}")
            return self._map_of(self._checker(value))
        if isinstance(ann, type) and issubclass(ann, enum.Enum):
            return _enum(ann)
        if isinstance(ann, type) and dataclasses.is_dataclass(ann):
            return self._dataclass(ann)
        raise TypeError(f"the wire codec cannot handle the annotation {ann!r}")

    def _allowed_for(self, base: type) -> frozenset[type]:
        allowed = self._allowed.get(base)
        if allowed is None:
            allowed = frozenset(c for c in self._classes.values() if issubclass(c, base))
            if not allowed:
                raise TypeError(f"no registered wire class is a {base.__name__}")
            self._allowed[base] = allowed
        return allowed

    def _dataclass(self, base: type) -> Checker:
        allowed = self._allowed_for(base)

        def check(obj: Any, where: str) -> Any:
            if type(obj) not in allowed:
                raise DecodeError(where, f"expected a {base.__name__}, got {_kind(obj)}")
            return obj

        return check

    def _check_any(self, obj: Any, where: str, depth: int = 0) -> Any:
        """Any registered dataclass, scalar, or array of them (never a bare map)."""
        kind = type(obj)
        if kind in self._registered or obj is None or kind is bool or kind is int or kind is float:
            return obj
        if kind is str:
            return self._check_str(obj, where)
        if kind is tuple:
            if len(obj) > MAX_ITEMS:
                raise DecodeError(where, f"array longer than {MAX_ITEMS}")
            if depth >= MAX_DEPTH:
                raise DecodeError(where, f"arrays nested deeper than {MAX_DEPTH}")
            for item in obj:
                self._check_any(item, where, depth + 1)
            return obj
        raise DecodeError(where, f"unexpected {_kind(obj)}")

    def _check_str(self, obj: Any, where: str) -> str:
        if type(obj) is not str:
            raise DecodeError(where, f"expected text, got {_kind(obj)}")
        if len(obj) > self.max_str:
            raise DecodeError(where, f"text longer than {self.max_str} characters")
        return obj

    def _tuple_of(self, item_ann: Any) -> Checker:
        item = self._checker(item_ann)
        # The common cases pass the decoded tuple through untouched: its items
        # need only a type test, no conversion.
        if item is _check_int:
            exact: frozenset[type] | None = frozenset({int})
        elif item is _check_bool:
            exact = frozenset({bool})
        elif isinstance(item_ann, type) and dataclasses.is_dataclass(item_ann):
            exact = self._allowed_for(item_ann)
        else:
            exact = None

        def check(obj: Any, where: str) -> tuple:
            if type(obj) is not tuple:
                raise DecodeError(where, f"expected an array, got {_kind(obj)}")
            if len(obj) > MAX_ITEMS:
                raise DecodeError(where, f"array longer than {MAX_ITEMS}")
            if exact is not None:
                for v in obj:
                    if type(v) not in exact:
                        item(v, where)  # raises with the right sentence
                return obj
            return tuple([item(v, where) for v in obj])

        return check

    def _map_of(self, value: Checker) -> Checker:
        def check(obj: Any, where: str) -> dict:
            if type(obj) is not dict:
                raise DecodeError(where, f"expected a map, got {_kind(obj)}")
            if len(obj) > MAX_ITEMS:
                raise DecodeError(where, f"map larger than {MAX_ITEMS}")
            out = {}
            for k, v in obj.items():
                if type(k) is not str or len(k) > self.max_str:
                    raise DecodeError(where, f"map key {_short(k)} is not short text")
                out[k] = value(v, f"{where}.{k}")
            return out

        return check


@functools.lru_cache(maxsize=None)
def _hints(cls: type) -> dict[str, Any]:
    """``typing.get_type_hints(cls)``, worked out once per class: with string
    annotations each one is an ``eval``, and every codec (the host's, each
    client's, the journal's) asks for the same classes. Callers only read it."""
    return typing.get_type_hints(cls)


class _Generations:
    """Packed bytes kept per object, in two generations, as a cheap LRU.

    Keyed by ``id``; each entry holds its object, so the id cannot be reused
    while the entry lives (and a hit checks the object anyway). When the newer
    generation is full it becomes the older and a fresh one starts; a hit in
    the older generation moves the entry back to the newer. So values still
    in use (a player's board, the cards) survive, while values no longer
    handed out (a board since replaced) are dropped after two generations,
    with no moment at which every table must pack everything afresh.
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self.new: dict[int, tuple[Any, bytes]] = {}
        self.old: dict[int, tuple[Any, bytes]] = {}

    def retire(self) -> None:
        # The compiled packers hold these two dicts: change them in place.
        self.old.clear()
        self.old.update(self.new)
        self.new.clear()


def _array_header(n: int) -> bytes:
    """The msgpack header of an array of ``n`` items."""
    if n < 16:
        return _SMALL_ARRAYS[n]
    if n < 0x10000:
        return b"\xdc" + n.to_bytes(2, "big")
    return b"\xdd" + n.to_bytes(4, "big")


_SMALL_ARRAYS = [bytes([0x90 | n]) for n in range(16)]


def _map_header(n: int) -> bytes:
    """The msgpack header of a map of ``n`` entries."""
    if n < 16:
        return bytes([0x80 | n])
    if n < 0x10000:
        return b"\xde" + n.to_bytes(2, "big")
    return b"\xdf" + n.to_bytes(4, "big")


def _plain_expr(ann: Any, var: str) -> str | None:
    """An expression giving ``var`` (of type ``ann``) as values msgpack packs
    as they are, or None if it needs packing of its own."""
    if _is_plain(ann):
        return var
    if isinstance(ann, type) and issubclass(ann, enum.Enum):
        return f"{var}.value"
    return None


def _nested_classes(classes: Iterable[type]) -> frozenset[type]:
    """The classes among ``classes`` that the fields of others name (not as Any)."""
    named: set[type] = set()

    def walk(ann: Any) -> None:
        if isinstance(ann, type) and dataclasses.is_dataclass(ann):
            named.update(c for c in classes if issubclass(c, ann))
        for arg in typing.get_args(ann):
            walk(arg)

    classes = tuple(classes)
    for cls in classes:
        try:
            hints = _hints(cls)
        except Exception:  # reported by spec(), with a better sentence
            continue
        for f in dataclasses.fields(cls):
            walk(hints.get(f.name))
    return frozenset(named)


def _immutable_class(
    cls: type, hints: dict[str, Any], classes: tuple[type, ...], seen: frozenset[type] = frozenset()
) -> bool:
    """Whether every ``cls`` is frozen all the way down (through any of
    ``classes`` its fields may hold), so that bytes packed from one stay true
    for as long as the object lives."""
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen:
        return False
    seen = seen | {cls}
    return all(_immutable_ann(hints[f.name], classes, seen) for f in dataclasses.fields(cls))


def _immutable_ann(ann: Any, classes: tuple[type, ...], seen: frozenset[type]) -> bool:
    if _is_plain(ann) or ann is type(None):
        return True
    if isinstance(ann, type) and issubclass(ann, enum.Enum):
        return True
    if isinstance(ann, type) and dataclasses.is_dataclass(ann):
        for cls in {ann, *(c for c in classes if issubclass(c, ann))}:
            if cls in seen:
                continue
            try:
                hints = _hints(cls)
            except Exception:
                return False
            if not _immutable_class(cls, hints, classes, seen):
                return False
        return True
    origin, args = typing.get_origin(ann), typing.get_args(ann)
    if origin is tuple or origin in (typing.Union, types.UnionType):
        return all(a is Ellipsis or _immutable_ann(a, classes, seen) for a in args)
    return False


def _plain_slots(cls: type) -> bool:
    """Whether ``cls`` can be filled slot by slot: every field a slot, and no
    ``__post_init__`` or ``__new__`` of its own that construction would run."""
    if any("__post_init__" in vars(k) for k in cls.__mro__) or cls.__new__ is not object.__new__:
        return False
    return all(isinstance(vars(cls).get(f.name), types.MemberDescriptorType) for f in dataclasses.fields(cls))


def _is_plain(ann: Any) -> bool:
    """Whether values of ``ann`` are built of scalars and tuples only (hashable, no objects)."""
    if ann in (int, bool, str, float, type(None), None):
        return True
    origin, args = typing.get_origin(ann), typing.get_args(ann)
    if origin is tuple:
        return all(a is Ellipsis or _is_plain(a) for a in args)
    if origin in (typing.Union, types.UnionType):
        # Only X | None: with int | bool, equal keys could differ in type.
        return len(args) == 2 and type(None) in args and all(_is_plain(a) for a in args)
    return False


def _field_expr(ann: Any, var: str, depth: int) -> str:
    """A Python expression converting ``var`` (of type ``ann``) to plain values."""
    if _is_plain(ann):
        return var  # scalars, and tuples of them, msgpack packs as they are
    origin, args = typing.get_origin(ann), typing.get_args(ann)
    if origin in (typing.Union, types.UnionType) and len(args) == 2 and type(None) in args:
        other = args[0] if args[1] is type(None) else args[1]
        return f"(None if {var} is None else {_field_expr(other, var, depth)})"
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        item = f"x{depth}"
        return f"[{_field_expr(args[0], item, depth + 1)} for {item} in {var}]"
    if isinstance(ann, type) and issubclass(ann, enum.Enum):
        return f"{var}.value"
    return f"_enc({var})"  # a dataclass (any registered subclass), or anything else


def _inline_test(ann: Any, var: str) -> str | None:
    """A Python expression testing ``var`` against a simple annotation, or None."""
    simple = {int: "int", bool: "bool", str: "str"}
    if ann in simple:
        test = f"type({var}) is {simple[ann]}"
        return f"{test} and len({var}) <= _MAX" if ann is str else test
    if typing.get_origin(ann) in (typing.Union, types.UnionType):
        args = typing.get_args(ann)
        if len(args) == 2 and type(None) in args:
            other = args[0] if args[1] is type(None) else args[1]
            inner = _inline_test(other, var)
            return f"{var} is None or ({inner})" if inner is not None else None
    return None


# --- scalar checkers ----------------------------------------------------------


def _check_none(obj: Any, where: str) -> None:
    if obj is not None:
        raise DecodeError(where, f"expected nil, got {_kind(obj)}")
    return None


def _check_bool(obj: Any, where: str) -> bool:
    if type(obj) is not bool:
        raise DecodeError(where, f"expected true or false, got {_kind(obj)}")
    return obj


def _check_int(obj: Any, where: str) -> int:
    # bool is a subclass of int in Python; on the wire they are different types.
    if type(obj) is not int:
        raise DecodeError(where, f"expected a whole number, got {_kind(obj)}")
    return obj


def _check_float(obj: Any, where: str) -> float:
    kind = type(obj)
    if kind is float:
        return obj
    if kind is int:  # a float with no fraction may arrive packed as an int
        return float(obj)
    raise DecodeError(where, f"expected a number, got {_kind(obj)}")


def _union(checks: tuple[Checker, ...], ann: Any) -> Checker:
    # ``X | None`` is by far the most common union: test None first, cheaply.
    if len(checks) == 2 and _check_none in checks:
        other = checks[0] if checks[1] is _check_none else checks[1]

        def optional(obj: Any, where: str) -> Any:
            return None if obj is None else other(obj, where)

        return optional

    def check(obj: Any, where: str) -> Any:
        for one in checks:
            try:
                return one(obj, where)
            except DecodeError:
                continue
        raise DecodeError(where, f"expected {_type_name(ann)}, got {_kind(obj)}")

    return check


def _tuple_fixed(items: tuple[Checker, ...]) -> Checker:
    def check(obj: Any, where: str) -> tuple:
        if type(obj) is not tuple or len(obj) != len(items):
            raise DecodeError(where, f"expected an array of {len(items)}, got {_kind(obj)}")
        return tuple([c(v, where) for c, v in zip(items, obj)])

    return check


def _literal(values: tuple[Any, ...]) -> Checker:
    def check(obj: Any, where: str) -> Any:
        for v in values:
            if type(obj) is type(v) and obj == v:
                return v
        raise DecodeError(where, f"expected one of {', '.join(map(repr, values))}, got {_short(obj)}")

    return check


def _enum(cls: type[enum.Enum]) -> Checker:
    by_value = {(type(m.value), m.value): m for m in cls}

    def check(obj: Any, where: str) -> Any:
        try:
            member = by_value.get((type(obj), obj))
        except TypeError:  # an unhashable value cannot be a member
            member = None
        if member is None:
            raise DecodeError(where, f"expected a {cls.__name__}, got {_short(obj)}")
        return member

    return check


# --- wording ------------------------------------------------------------------


def _kind(obj: Any) -> str:
    """A short name for the type of a decoded value, for error sentences."""
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
    if isinstance(obj, (list, tuple)):
        return f"an array of {len(obj)}"
    if isinstance(obj, dict):
        tag = obj.get(TAG)
        return f"an unknown kind of map ({TAG}={_short(tag)})" if tag is not None else "an untagged map"
    if isinstance(obj, bytes):
        return "binary data"
    if dataclasses.is_dataclass(obj):
        return f"a {type(obj).__name__}"
    return type(obj).__name__


_REPR = reprlib.Repr()
_REPR.maxlevel = 2
_REPR.maxstring = _REPR.maxother = 40


def _short(obj: Any) -> str:
    """``repr(obj)`` cut short and shallow, so an error never echoes (or
    recurses through) a whole hostile frame."""
    return _REPR.repr(obj)


def _type_name(ann: Any) -> str:
    return getattr(ann, "__name__", None) or str(ann).replace("typing.", "")
