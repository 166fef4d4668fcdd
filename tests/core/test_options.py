"""quackbox.core.options: one parser reads both games' options from values or text."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from quackbox.core import options
from quackbox.core.rules import BadOptions


@dataclass(frozen=True, slots=True)
class Opts:
    speed: float = options.option(3.0, low=0.0, high=60.0)
    seat: int = options.option(-1, low=-1, high=7)
    fast: bool = False
    mode: str = options.option("one_left", choices=("one_left", "play_on"))


def parse(values):
    return options.parse(Opts, values, title="Test Game")


def test_defaults_and_identity() -> None:
    assert parse(None) == Opts()
    same = Opts(speed=1.0)
    assert parse(same) is same


def test_text_and_typed_values_give_the_same_options() -> None:
    typed = parse({"speed": 1.5, "seat": 2, "fast": True, "mode": "play_on"})
    text = parse({"speed": "1.5", "seat": "2", "fast": "yes", "mode": "play-on"})
    assert typed == text == Opts(1.5, 2, True, "play_on")
    assert type(text.seat) is int and type(text.speed) is float


def test_kebab_and_snake_names_both_work() -> None:
    @dataclass(frozen=True)
    class Two:
        round_limit: int = options.option(30, low=1, high=500)

    assert options.parse(Two, {"round-limit": "4"}, title="T") == options.parse(Two, {"round_limit": 4}, title="T")


@pytest.mark.parametrize(
    ("values", "words"),
    [
        ({"sped": 1}, "Test Game has no option 'sped'; options are speed, seat, fast, mode."),
        ({"speed": 99}, "Option speed must be from 0 to 60, not 99."),
        ({"seat": 1.5}, "Option seat must be a whole number"),
        ({"seat": "two"}, "Option seat must be a whole number, not 'two'."),
        ({"fast": "maybe"}, "Option fast must be true or false"),
        ({"fast": 1}, "Option fast must be true or false"),
        ({"seat": True}, "Option seat must be a number"),
        ({"speed": float("nan")}, "Option speed must be a number"),
        ({"speed": float("inf")}, "Option speed must be from 0 to 60"),
        ({"mode": "sometimes"}, "Option mode must be one of one-left, play-on"),
    ],
)
def test_bad_values_are_refused_with_a_sentence(values, words) -> None:
    with pytest.raises(BadOptions) as info:
        parse(values)
    assert words in str(info.value)


def test_values_round_trip_and_describe() -> None:
    opts = Opts(2.0, 3, True, "play_on")
    assert parse(options.as_values(opts)) == opts
    assert options.describe(opts) == "speed=2, seat=3, fast=true, mode=play-on"
    assert options.read_text("fast = yes") == ("fast", "yes")
    with pytest.raises(ValueError):
        options.read_text("fast")
