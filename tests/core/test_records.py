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
