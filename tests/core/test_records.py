"""core.rules.record: moves and events behave as frozen dataclasses do."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from core.rules import Event, Move, record


@record
class Shouted(Event):
    seat: int
    words: tuple[str, ...] = ()


@record
class Whispered(Event):
    seat: int
    words: tuple[str, ...] = ()


@record
class Wait(Move):
    pass


def test_values_compare_by_class_and_fields() -> None:
    a = Shouted(1, ("hi",))
    assert a == Shouted(1, ("hi",)) and hash(a) == hash(Shouted(1, ("hi",)))
    assert a != Shouted(2, ("hi",)) and a != Shouted(1)
    # Same fields, another class: not equal, as with dataclasses.
    assert a != Whispered(1, ("hi",))
    assert Wait() == Wait() and Wait() != Shouted(0)
    assert len({Shouted(1), Shouted(1), Shouted(2)}) == 2


def test_repr_defaults_and_dataclass_tools() -> None:
    assert repr(Shouted(3)) == "Shouted(seat=3, words=())"
    assert repr(Wait()) == "Wait()"
    assert [f.name for f in dataclasses.fields(Shouted)] == ["seat", "words"]
    assert dataclasses.replace(Shouted(3), words=("x",)) == Shouted(3, ("x",))
    assert Shouted.__match_args__ == ("seat", "words")


def test_frozen_and_copyable() -> None:
    a = Shouted(1, ("hi",))
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.seat = 2  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(a)) == a
    assert copy.deepcopy(a) == a


@record
class Treated(Event):
    """Wide enough (four fields or more) to be built through the twin class."""

    seat: int
    card: int
    cure: int
    harm: int
    note: str = ""


@record
class TreatedTwice(Treated):
    again: bool = True


class Annotated(Treated):
    """A plain subclass (it has a __dict__): built through the descriptors."""


def test_wide_records_are_the_same_frozen_values() -> None:
    a = Treated(1, 2, cure=3, harm=4)
    assert type(a) is Treated and type(a).__name__ == "Treated"
    assert (a.seat, a.card, a.cure, a.harm, a.note) == (1, 2, 3, 4, "")
    assert a == Treated(1, 2, 3, 4, "") and hash(a) == hash(Treated(1, 2, 3, 4))
    assert a != Treated(1, 2, 3, 5)
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.cure = 9  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        del a.cure  # type: ignore[misc]
    assert a.cure == 3
    with pytest.raises(TypeError):
        Treated(1, 2, 3)  # type: ignore[call-arg]
    assert dataclasses.replace(a, note="x") == Treated(1, 2, 3, 4, "x")
    assert pickle.loads(pickle.dumps(a)) == a and copy.deepcopy(a) == a
    assert repr(a) == "Treated(seat=1, card=2, cure=3, harm=4, note='')"


def test_subclasses_of_wide_records_keep_their_class_and_fields() -> None:
    b = TreatedTwice(1, 2, 3, 4)
    assert type(b) is TreatedTwice and b.again is True and b != Treated(1, 2, 3, 4)
    with pytest.raises(dataclasses.FrozenInstanceError):
        b.again = False  # type: ignore[misc]
    c = Annotated(1, 2, 3, 4, "n")
    assert type(c) is Annotated and (c.seat, c.note) == (1, "n")


def test_make_builds_the_same_value_as_the_class() -> None:
    """``make`` is the hot paths' constructor: equal, same class, frozen, same defaults."""
    for built, called in (
        (Treated.make(1, 2, 3, 4), Treated(1, 2, 3, 4)),
        (Treated.make(1, 2, cure=3, harm=4, note="n"), Treated(1, 2, 3, 4, "n")),
        (Shouted.make(1), Shouted(1)),
        (Wait.make(), Wait()),
        (TreatedTwice.make(1, 2, 3, 4, again=False), TreatedTwice(1, 2, 3, 4, "", False)),
    ):
        assert type(built) is type(called) and built == called and hash(built) == hash(called)
        assert repr(built) == repr(called)
    with pytest.raises(dataclasses.FrozenInstanceError):
        Treated.make(1, 2, 3, 4).cure = 9  # type: ignore[misc]
    with pytest.raises(TypeError):
        Treated.make(1, 2, 3)  # type: ignore[call-arg]
    # A record subclass has its own make; a plain subclass inherits its base's.
    assert type(TreatedTwice.make(1, 2, 3, 4)) is TreatedTwice
    assert type(Annotated.make(1, 2, 3, 4)) is Treated


@record
class Waved(Event):
    seat: int


def test_shared_events_are_one_object_per_value_up_to_a_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    from core import rules

    cache = rules.Shared(Shouted)
    first = cache[1, ("hi",)]
    assert first == Shouted(1, ("hi",)) and cache[1, ("hi",)] is first
    assert cache[2, ("hi",)] is not first and cache[2, ("hi",)] == Shouted(2, ("hi",))
    monkeypatch.setattr(rules, "SHARED_LIMIT", len(cache))
    late = cache[3, ()]
    assert late == Shouted(3) and len(cache) == 2 and cache[3, ()] is not late
    # A one-field event is keyed by the field itself.
    waves = rules.Shared(Waved)
    monkeypatch.setattr(rules, "SHARED_LIMIT", 10)
    assert waves[4] == Waved(4) and waves[4] is waves[4] and list(waves) == [4]
