"""Many bot games in a row, and the figures they add up to (``quackbox sim``).

Pure: no printing, no clock and no processes of its own. The caller passes a
``clock`` function for the decisions-per-second figure, so the same seed gives
the same figures apart from the timing; and it may pass a ``mapper`` (a
process pool's ``imap``) to play games side by side: each game is a function
of its own seed and seats alone (:func:`play_one`), and the figures are added
up in the games' order, so they do not depend on how many processes played.
Bots the registry does not know (a program playing a seat: ``outside``) are
made by the caller and play in its process.
"""

from __future__ import annotations

import functools
import math
import random
import statistics
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable, Collection, Iterable, Iterator, Mapping, Sequence

from quackbox.core import bots as bot_registry
from quackbox.core import games
from quackbox.core.bots import Bot, GameStalled
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
    """Per bot kind: the seconds of each decision timed, in the games' order (with a think_clock only)."""
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
            "seconds_per_decision_by_bot": {k: significant(sum(t) / len(t)) for k, t in self.thinking.items() if t},
            "p95_seconds_per_decision_by_bot": {
                k: significant(percentile(t, 95)) for k, t in self.thinking.items() if t
            },
            "max_seconds_per_decision_by_bot": {k: significant(max(t)) for k, t in self.thinking.items() if t},
        }


def significant(value: float, figures: int = 3) -> float:
    """``value`` to ``figures`` significant figures (0.0000412, not 0.0)."""
    return float(f"{value:.{figures}g}")


def percentile(values: Sequence[float], pct: float) -> float:
    """The ``pct`` percentile of ``values`` (nearest rank: a value that occurred)."""
    ordered = sorted(values)
    rank = max(1, math.ceil(pct / 100 * len(ordered)))
    return ordered[rank - 1]


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


def seat_places(players: int, game: int, rotate: bool) -> tuple[int, ...]:
    """Which entry of the lineup sits at each seat in game number ``game`` (from 0): the
    lineup as given, or with ``rotate`` turned one seat further each game."""
    shift = game % players if rotate else 0
    return tuple((seat - shift) % players for seat in range(players))


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


@dataclass(frozen=True)
class GameTask:
    """One game of a run: everything :func:`play_one` needs, and nothing that
    depends on the games before it (so any process may play it)."""

    game: str
    index: int
    seed: int
    seated: tuple[str, ...]
    """The bot kind at each seat, for this game."""
    places: tuple[int, ...]
    """The entry of the lineup at each seat, for this game."""
    options: Any
    max_moves: int
    budget: int | None
    think_clock: Callable[[], float] | None
    keep_events: bool


@dataclass
class GamePlayed:
    """What :func:`play_one` answers: the record, or why there is none, and the seconds of each timed decision."""

    task: GameTask
    record: GameRecord | None = None
    stalled: bool = False
    error: str | None = None
    thinking: dict[str, list[float]] = field(default_factory=dict)


def play_one(
    task: GameTask, outside: Mapping[str, OutsideBot] | None = None, wait_clock: Callable[[], float] | None = None
) -> GamePlayed:
    """Play one game of a run with fresh bots seeded from the game's seed: a
    game that raises is an error, one that runs past its move limit a stall.
    ``outside`` makes the kinds it names; they decide in another process, so
    ``wait_clock`` (the time waited) times them, not the task's think clock."""
    rules = games.get(task.game)
    played = GamePlayed(task)
    outside = outside or {}
    table = [
        _make_bot(task.game, kind, place, task.seed * 16 + s, task.budget, outside)
        for s, (kind, place) in enumerate(zip(task.seated, task.places))
    ]
    if task.think_clock is not None:
        table = [
            _Timed(
                bot,
                played.thinking.setdefault(kind, []),
                wait_clock if kind in outside and wait_clock is not None else task.think_clock,
            )
            for bot, kind in zip(table, task.seated)
        ]
    try:
        played.record = play_game(
            rules, table, seed=task.seed, options=task.options, keep_events=task.keep_events, max_moves=task.max_moves
        )
    except GameStalled:
        played.stalled = True
    except Exception as exc:  # one broken game must not hide the figures of the rest
        frame = traceback.extract_tb(exc.__traceback__)[-1]
        where = f"{frame.filename.rsplit('/', 1)[-1]}:{frame.lineno}"
        played.error = f"seed {task.seed}: {type(exc).__name__}: {exc} ({where})"
    return played


Mapper = Callable[[Callable[[GameTask], GamePlayed], Iterable[GameTask]], Iterator[GamePlayed]]
"""Plays the tasks and answers their games in the tasks' order: ``map``, or a process pool's ``imap``."""


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
    mapper: Mapper | None = None,
    outside: Mapping[str, OutsideBot] | None = None,
) -> SimResult:
    """Play ``games_count`` games; a game that raises is counted as an error,
    one that runs past ``max_moves`` as a stall (its seed is reported).
    ``rotate`` turns the lineup one seat further each game, so every kind
    plays from every seat; ``budget`` is the search bot's (core.search).
    ``think_clock`` times each bot's decisions (the CLI passes the process's
    CPU time: a decision's cost on one core, whatever else the machine runs).
    ``mapper`` plays the games (``map`` by default; a process pool's ``imap``
    plays them side by side, with the same figures). ``outside`` makes the bots
    of the kinds it names (see :data:`OutsideBot`) in this process, so a run
    with any plays its games here, one after another."""
    rules = games.get(game)
    opts = rules.parse_options(options or {})
    lineup = lineup_for(game, players, bots, also=(outside or {}).keys())
    if outside and mapper is not None:
        raise ValueError("a run with programs in its lineup plays its games in this process, one at a time")
    play: Callable[[GameTask], GamePlayed] = (
        functools.partial(play_one, outside=outside, wait_clock=clock) if outside else play_one
    )
    if not rules.min_seats <= players <= rules.max_seats:
        raise ValueError(f"{rules.title} is for {rules.min_seats} to {rules.max_seats} players, not {players}")
    result = SimResult(game, players, games_count, seed, lineup)
    result.wins_by_seat = [0.0] * players
    result.wins_by_bot = {k: 0.0 for k in lineup}
    result.seats_by_bot = {k: lineup.count(k) for k in lineup}
    records: list[GameRecord] = []
    start = clock() if clock else 0.0
    done = 0
    for played in (mapper or map)(
        play,
        tasks(
            game,
            lineup,
            games_count,
            seed,
            rotate=rotate,
            options=opts,
            max_moves=max_moves,
            budget=budget,
            think_clock=think_clock,
            keep_events=rules.sim_needs_events,
        ),
    ):
        done += 1
        for kind, times in played.thinking.items():
            result.thinking.setdefault(kind, []).extend(times)
        record = played.record
        if played.stalled:
            result.stalls.append(played.task.seed)
        elif played.error is not None:
            result.errors.append(played.error)
        elif record is not None:
            result.decisions += len(record.moves)
            winners = record.outcome.winners if record.outcome else ()
            for w in winners:
                share = 1.0 / len(winners)
                result.wins_by_seat[w] += share
                result.wins_by_bot[played.task.seated[w]] += share
            records.append(record)
        if progress:
            progress(done)
    result.seconds = (clock() - start) if clock else 0.0
    if records:
        result.figures = rules.sim_summary(records)
    return result


def tasks(
    game: str,
    lineup: Sequence[str],
    games_count: int,
    seed: int,
    *,
    rotate: bool,
    options: Any,
    max_moves: int,
    budget: int | None,
    think_clock: Callable[[], float] | None,
    keep_events: bool,
) -> Iterator[GameTask]:
    """The games of a run, in order: each one's seed drawn from ``seed``, its
    lineup turned one seat further each game if ``rotate``."""
    seeds = random.Random(seed)
    players = len(lineup)
    for i in range(games_count):
        game_seed = seeds.randrange(2**32)
        places = seat_places(players, i, rotate)
        yield GameTask(
            game,
            i,
            game_seed,
            tuple(lineup[p] for p in places),
            places,
            options,
            max_moves,
            budget,
            think_clock,
            keep_events,
        )


def _make_bot(
    game: str, kind: str, place: int, seed: int, budget: int | None, outside: Mapping[str, OutsideBot]
) -> Bot[Any]:
    """The bot of lineup entry ``place`` (of ``kind``) for one game."""
    if kind in outside:
        return outside[kind](place, seed)
    return bot_registry.make(game, kind, seed, budget=budget)


class _Timed(Bot[Any]):
    """A bot whose every ``choose`` is timed: its seconds are added to ``times``."""

    def __init__(self, bot: Bot[Any], times: list[float], clock: Callable[[], float]) -> None:
        self.bot, self.times, self.clock = bot, times, clock
        self.name, self.reacts, self.remembers, self.slow = bot.name, bot.reacts, bot.remembers, bot.slow

    def observe(self, events: Sequence[Event], seat: int) -> None:
        self.bot.observe(events, seat)

    def _timed(self, call: Callable[[Any], Move], view: Any) -> Move:
        start = self.clock()
        move = call(view)
        self.times.append(self.clock() - start)
        return move

    def choose(self, view: Any) -> Move:
        return self._timed(self.bot.choose, view)

    def react(self, view: Any) -> Move | None:
        # Not timed: asked at every move of others, a reaction is no decision
        # the table waits for (and every bot reacts by heuristic).
        return self.bot.react(view)


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else 0.0
