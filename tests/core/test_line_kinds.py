"""What each log line tells (core.rules.LineKind), so clients never read a line's words to style it."""

from __future__ import annotations

import pytest

from quackbox.core import bots, games
from quackbox.core.play import play_game
from quackbox.core.rules import LineKind


@pytest.mark.parametrize("game", sorted(games.GAMES))
def test_turns_are_turn_lines_and_a_seats_own_events_are_its_own(game: str) -> None:
    """A turn beginning is a turn line for every reader (the reader's own turn too); an event
    of the reader's own seat is the reader's own, anyone else's (or any, for a spectator)
    is an event; the turn's sentence is the one that says so."""
    rules = games.get(game)
    record = play_game(rules, [bots.make(game, "heuristic", seed) for seed in range(3)], seed=4, keep_events=True)
    turns = [e for e in record.events if type(e).__name__ == "TurnStarted"]
    assert len(turns) > 3
    for event in turns:
        for reader in (None, 0, 1, 2):
            assert rules.line_kind(event, reader) is LineKind.TURN
    names = ("Ann", "Ben", "Cy")
    assert rules.describe(turns[0], names, 0).startswith(("Turn ", "Round "))
    seated = [e for e in record.events if type(e).__name__ != "TurnStarted" and hasattr(e, "seat")]
    assert len({type(e) for e in seated}) > 3
    for event in seated:
        own = event.seat
        assert rules.line_kind(event, own) is LineKind.MINE, event
        assert rules.line_kind(event, (own + 1) % 3) is LineKind.EVENT, event
        assert rules.line_kind(event, None) is LineKind.EVENT, event
