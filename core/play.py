"""Running a whole game with bots in one process: the heart of ``quackbox sim``.

:func:`play_game` is the reference loop every runner follows (the host does
the same with sockets in between): ask the bots for the next move
(:func:`quackbox.core.bots.next_move`: a reaction first, else a seat the game waits
for), apply it, repeat. Deadlines are not timed here; bots answer at once, so
a timeout never fires.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from quackbox.core.bots import Bot, GameStalled, next_move, observe
from quackbox.core.rules import AnyRules, Event, Move, Outcome

__all__ = ["GameRecord", "GameStalled", "next_move", "play_game"]


@dataclass
class GameRecord:
    """What happened in one game: the moves in order, and how it ended."""

    seed: int
    moves: list[tuple[int, Move]] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    outcome: Outcome | None = None
    state: Any = None


def play_game(
    rules: AnyRules,
    bots: Sequence[Bot[Any]],
    *,
    seed: int,
    options: Any = None,
    max_moves: int = 200_000,
    keep_events: bool = False,
) -> GameRecord:
    """Play one game to its end with one bot per seat.

    Raises GameStalled if the rules stop waiting for anyone before the game
    ends, or if it runs past ``max_moves`` (every game must end).
    """
    state = rules.new_game(seats=len(bots), options=options, seed=seed)
    record = GameRecord(seed=seed, state=state)
    watchers = [(seat, bot) for seat, bot in enumerate(bots) if bot.remembers]
    for seat, bot in watchers:
        observe(bot, rules, seat, state.start_events)
    while rules.outcome(state) is None:
        if len(record.moves) >= max_moves:
            raise GameStalled(f"game with seed {seed} did not end within {max_moves} moves")
        seat, move = next_move(rules, state, bots)
        events = rules.apply(state, seat, move)
        for who, bot in watchers:
            observe(bot, rules, who, events)
        record.moves.append((seat, move))
        if keep_events:
            record.events.extend(events)
    record.outcome = rules.outcome(state)
    return record
