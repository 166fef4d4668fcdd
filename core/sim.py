"""Many bot games in a row, and the figures they add up to (``quackbox sim``).

Pure: no printing and no clock of its own. The caller passes a ``clock``
function for the decisions-per-second figure, so the same seed gives the same
figures apart from the timing.
"""

from __future__ import annotations

import math
import random
import statistics
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable, Collection, Mapping, Sequence

from quackbox.core import bots as bot_registry
from quackbox.core.bots import Bot, GameStalled
from quackbox.core import games
from quackbox.core.play import GameRecord, play_game
from quackbox.core.rules import Event, Move


OutsideBot = Callable[[int, int], Bot[Any]]
"""Makes the bot of a lineup entry the bot registry does not know (a program playing
a seat, which the command line runs) for one game: ``(place in the lineup, seed)``."""

MAX_MOVES = 20_000
"""A game still running after this many moves has stalled: bots that lock a
game (one seat hoarding what the rest need) must not hang the run. Real games
of both take a few hundred moves."""


@dataclass
class SimResult:
    game: str
    players: int
    games: int
    seed: int
    lineup: tuple[str, ...]
    errors: list[str] = field(default_factory=list)
    stalls: list[int] = field(default_factory=list)
    """Seeds of the games that did not end within the move limit (counted apart from errors)."""
    wins_by_seat: list[float] = field(default_factory=list)
    wins_by_bot: dict[str, float] = field(default_factory=dict)
    seats_by_bot: dict[str, int] = field(default_factory=dict)
    decisions: int = 0
    seconds: float = 0.0
    thinking: dict[str, list[float]] = field(default_factory=dict)
    """Per bot kind: [decisions timed, seconds, the longest] (with a think_clock only)."""
    figures: dict[str, Any] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        finished = self.games - len(self.errors) - len(self.stalls)
        fair = {k: round(100.0 * n / self.players, 1) for k, n in self.seats_by_bot.items()}
        return {
            "game": self.game,
            "players": self.players,
            "games": self.games,
            "seed": self.seed,
            "bots": list(self.lineup),
            "errors": len(self.errors),
            "error_messages": self.errors[:5],
            "stalled": len(self.stalls),
            "stalled_seeds": self.stalls[:5],
            **self.figures,
            "wins_by_seat": [round(w, 2) for w in self.wins_by_seat],
            "wins_by_bot": {k: round(v, 2) for k, v in self.wins_by_bot.items()},
            "win_pct_by_bot": {
                k: round(100.0 * v / max(finished, 1) / self.seats_by_bot[k], 1) for k, v in self.wins_by_bot.items()
            },
            "win_interval_pct_by_bot": {
                k: [round(100.0 * end, 1) for end in win_interval(v, finished * self.seats_by_bot[k])]
                for k, v in self.wins_by_bot.items()
            },
            "fair_share_pct_by_bot": fair,
            "decisions": self.decisions,
            "decisions_per_second": round(self.decisions / self.seconds) if self.seconds > 0 else None,
            # Three significant figures, not decimal places: a fast bot's tens of microseconds
            # rounded to four places were 0.
            "seconds_per_decision_by_bot": {k: significant(t[1] / t[0]) for k, t in self.thinking.items() if t[0]},
            "max_seconds_per_decision_by_bot": {k: significant(t[2]) for k, t in self.thinking.items() if t[0]},
        }


def significant(value: float, figures: int = 3) -> float:
    """``value`` to ``figures`` significant figures (0.0000412, not 0.0)."""
    return float(f"{value:.{figures}g}")


def win_interval(wins: float, trials: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% interval of a win rate of ``wins`` in ``trials`` seat-games, as fractions
    (Wilson's score interval: it stays within 0 to 1 and is fair for rates near either
    end and for few games). A shared win counts as its share."""
    if trials <= 0:
        return 0.0, 1.0
    rate = wins / trials
    spread = z * math.sqrt(rate * (1 - rate) / trials + z * z / (4 * trials * trials))
    middle = rate + z * z / (2 * trials)
    scale = 1 + z * z / trials
    return max(0.0, (middle - spread) / scale), min(1.0, (middle + spread) / scale)


def seat_places(players: int, game: int, rotate: bool) -> list[int]:
    """Which entry of the lineup sits at each seat in game number ``game`` (from 0): the
    lineup as given, or with ``rotate`` turned one seat further each game."""
    shift = game % players if rotate else 0
    return [(seat - shift) % players for seat in range(players)]


def lineup_for(game: str, players: int, bots: Sequence[str] | None, *, also: Collection[str] = ()) -> tuple[str, ...]:
    """Bot kinds per seat: the list given, repeated to fill the table (``also``: kinds the
    caller makes itself, besides the registry's)."""
    names = [b.strip() for b in (bots or ["heuristic"]) if b.strip()]
    if not names:
        raise ValueError("--bots needs at least one bot name")
    for name in names:
        if name not in bot_registry.kinds(game) and name not in also:
            raise ValueError(f"no bot called {name!r} for {game}; choose from {', '.join(bot_registry.kinds(game))}")
    return tuple(names[i % len(names)] for i in range(players))


def run(
    game: str,
    *,
    players: int,
    games_count: int,
    seed: int,
    bots: Sequence[str] | None = None,
    options: Any = None,
    clock: Callable[[], float] | None = None,
    progress: Callable[[int], None] | None = None,
    max_moves: int = MAX_MOVES,
    rotate: bool = False,
    budget: int | None = None,
    think_clock: Callable[[], float] | None = None,
    outside: Mapping[str, OutsideBot] | None = None,
) -> SimResult:
    """Play ``games_count`` games; a game that raises is counted as an error,
    one that runs past ``max_moves`` as a stall (its seed is reported).
    ``rotate`` turns the lineup one seat further each game, so every kind
    plays from every seat; ``budget`` is the search bot's (core.search).
    ``think_clock`` times each bot's decisions (the CLI passes the process's
    CPU time: a decision's cost on one core, whatever else the machine runs).
    ``outside`` makes the bots of the kinds it names (see :data:`OutsideBot`); they decide
    in another process, so their decisions are timed by ``clock`` (the time waited)."""
    rules = games.get(game)
    opts = rules.parse_options(options or {})
    outside = outside or {}
    lineup = lineup_for(game, players, bots, also=outside.keys())
    if not rules.min_seats <= players <= rules.max_seats:
        raise ValueError(f"{rules.title} is for {rules.min_seats} to {rules.max_seats} players, not {players}")
    result = SimResult(game, players, games_count, seed, lineup)
    result.wins_by_seat = [0.0] * players
    result.wins_by_bot = {k: 0.0 for k in lineup}
    result.seats_by_bot = {k: lineup.count(k) for k in lineup}
    seeds = random.Random(seed)
    records: list[GameRecord] = []
    needs_events = rules.sim_needs_events
    start = clock() if clock else 0.0
    for i in range(games_count):
        game_seed = seeds.randrange(2**32)
        places = seat_places(players, i, rotate)
        seated = tuple(lineup[p] for p in places)
        table = [_make_bot(game, lineup[p], p, game_seed * 16 + s, budget, outside) for s, p in enumerate(places)]
        if think_clock is not None:
            table = [_Timed(bot, result.thinking.setdefault(kind, [0, 0.0, 0.0]),
                            clock if kind in outside and clock is not None else think_clock)
                     for bot, kind in zip(table, seated)]
        try:
            record = play_game(rules, table, seed=game_seed, options=opts, keep_events=needs_events,
                               max_moves=max_moves)
        except GameStalled:
            result.stalls.append(game_seed)
            continue
        except Exception as exc:  # one broken game must not hide the figures of the rest
            frame = traceback.extract_tb(exc.__traceback__)[-1]
            where = f"{frame.filename.rsplit('/', 1)[-1]}:{frame.lineno}"
            result.errors.append(f"seed {game_seed}: {type(exc).__name__}: {exc} ({where})")
            continue
        result.decisions += len(record.moves)
        winners = record.outcome.winners if record.outcome else ()
        for w in winners:
            share = 1.0 / len(winners)
            result.wins_by_seat[w] += share
            result.wins_by_bot[seated[w]] += share
        records.append(record)
        if progress:
            progress(i + 1)
    result.seconds = (clock() - start) if clock else 0.0
    if records:
        result.figures = rules.sim_summary(records)
    return result


def _make_bot(game: str, kind: str, place: int, seed: int, budget: int | None,
              outside: Mapping[str, OutsideBot]) -> Bot[Any]:
    """The bot of lineup entry ``place`` (of ``kind``) for one game."""
    if kind in outside:
        return outside[kind](place, seed)
    return bot_registry.make(game, kind, seed, budget=budget)


class _Timed(Bot[Any]):
    """A bot whose every ``choose`` is timed into ``tally`` ([count, seconds, longest])."""

    def __init__(self, bot: Bot[Any], tally: list[float], clock: Callable[[], float]) -> None:
        self.bot, self.tally, self.clock = bot, tally, clock
        self.name, self.reacts, self.remembers, self.slow = bot.name, bot.reacts, bot.remembers, bot.slow

    def observe(self, events: Sequence[Event], seat: int) -> None:
        self.bot.observe(events, seat)

    def _timed(self, call: Callable[[Any], Move], view: Any) -> Move:
        start = self.clock()
        move = call(view)
        spent = self.clock() - start
        tally = self.tally
        tally[0] += 1
        tally[1] += spent
        tally[2] = max(tally[2], spent)
        return move

    def choose(self, view: Any) -> Move:
        return self._timed(self.bot.choose, view)

    def react(self, view: Any) -> Move | None:
        # Not timed: asked at every move of others, a reaction is no decision
        # the table waits for (and every bot reacts by heuristic).
        return self.bot.react(view)


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else 0.0
