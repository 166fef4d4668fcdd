"""Golden games: seeded games still do exactly what they did when recorded.

``tests/core/golden.py`` hashes every move, event, view, redacted event and
outcome of 1,008 seeded games per game; this test replays a sample of them
on every run (``python -m tests.core.golden`` replays them all). A change
that is meant to change what games do re-records them with ``--write`` and
says why in its commit.
"""

from __future__ import annotations

import json

import pytest

from tests.core import golden

RECORDED = json.loads(golden.RECORD.read_text())
PER_CONFIG = 2
"""Games sampled from each seat count, option set and bot kind."""


def _sample() -> list[tuple[str, str]]:
    out = []
    for game in ("side-effects", "quack"):
        keys = golden.game_keys(game)
        for start in range(0, len(keys), golden.GAMES_PER_CONFIG):
            block = start // golden.GAMES_PER_CONFIG
            for i in range(PER_CONFIG):  # a different game of each block, for variety
                out.append((game, keys[start + (block * 7 + i * 41) % golden.GAMES_PER_CONFIG]))
    return out


@pytest.mark.parametrize(("game", "key"), _sample())
def test_recorded_game_plays_the_same(game: str, key: str) -> None:
    assert golden.play(game, key) == RECORDED[game][key]


def test_the_sample_covers_every_configuration() -> None:
    configs = {(game, key.rsplit("/", 1)[0]) for game, key in _sample()}
    assert len(configs) == 2 * len(golden.SEATS) * 2 * len(golden.BOTS)


def test_the_hash_sees_a_changed_field() -> None:
    """The canonical form keeps every field value, so the hash would notice any change."""
    from quackbox.core.rules import Outcome

    assert golden.canon(Outcome((0,), (1, 2), "x")) != golden.canon(Outcome((0,), (1, 1), "x"))
