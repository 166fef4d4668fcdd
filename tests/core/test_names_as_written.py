"""Names are shown as their owners wrote them: a log line never re-cases a name, even
when the line opens with it ("bob's hand: ...", never "Bob's hand: ...")."""

from __future__ import annotations

import re

import pytest

from quackbox.core import bots, games
from quackbox.core.play import play_game
from quackbox.core.quack import PatientRevealed
from quackbox.core.side_effects import EpisodePlayed, HandShown

NAMES = ("zed", "quinn", "vik")


@pytest.mark.parametrize("game", sorted(games.GAMES))
def test_no_log_line_recases_a_name(game: str) -> None:
    """Every line of whole games, told to every reader: the lower-case names stay lower
    case (the lines that open with a seat's possessive among them), the reader's own
    opening word is still "You"/"Your"."""
    rules = games.get(game)
    opening_kinds = {HandShown, EpisodePlayed, PatientRevealed}
    seen_opening = set()
    for seed in range(6):
        record = play_game(
            rules, [bots.make(game, "heuristic", seed + s) for s in range(3)], seed=seed, keep_events=True
        )
        for event in record.events:
            for reader in (None, 0, 1, 2):
                shown = rules.redact(event, reader)
                if shown is None:
                    continue
                line = rules.describe(shown, NAMES, reader)
                for name in NAMES:
                    assert not re.search(rf"\b{name.capitalize()}\b", line), line
                if type(event) in opening_kinds and line.split()[0].lower().rstrip("'s") in NAMES:
                    seen_opening.add(type(event))
                    assert line[0].islower(), line
    # The lines that open with a name were met (else this test proves nothing of them).
    assert seen_opening & opening_kinds


def test_the_readers_own_possessive_still_opens_with_a_capital() -> None:
    from quackbox.core.side_effects import RULES

    shown = HandShown(seat=1, target=0, cards=(), count=0)
    assert RULES.describe(HandShown(seat=1, target=0, cards=(3,), count=1), NAMES, 1).startswith("zed's hand: ")
    assert RULES.describe(HandShown(seat=0, target=1, cards=(3,), count=1), NAMES, 1).startswith("Your hand: ")
    assert RULES.describe(shown, NAMES, 1) == "zed had no cards to show."
