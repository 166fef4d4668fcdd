"""A search bot for either game: determinized Monte Carlo from the seat's view.

For each decision the bot deals full States consistent with its view and its
memory (the rules' ``sample``, built from the View alone: it never peeks),
plays each candidate move on them, plays the game out with heuristic bots
(its own seat by its own heuristic, the others by the one it expects of them),
and keeps the heuristic's own choice unless another move clearly won more
often (:func:`clear_winner`). Every candidate is tried on the
same deals with the same luck (paired trials), so the comparison is fair
with few simulations. A game whose playouts
are long (Quack in the Box) may stop them at a horizon and judge the State
reached instead.

core/ reads no clock, so the budget is a number of simulated games per
decision, set by each game so that a decision takes at most about a second
on one core (``quackbox sim --budget`` and ``python -m bench.bots`` measure
it; Quack in the Box's is far smaller).
Early in a game playouts are long, so a game may also give the moves a
playout takes at most on the whole (``playout_moves``): a decision
stops its rounds once its playouts have made ``budget * playout_moves``
moves, which keeps its longest decisions near its usual ones. A decision
with one sensible move is made at once. The bot
holds its own seeded RNG (one per search, from its seed and the number of
searches before it, so the bot pickles small); the heuristic bots of its
playouts get their seeds from it, so a seeded game is reproducible.
"""

from __future__ import annotations

import math
import random
from typing import Any, Callable, Sequence

from quackbox.core.bots import Bot, next_move
from quackbox.core.rules import AnyRules, Event, GameView, Memory, Move

PLAYOUT_MOVES = 1_500
"""A playout still running after this many moves counts as a draw shared by the seats still in it."""
MIN_ROUNDS = 3
"""Deals every decision plays, whatever its playouts cost: fewer say too little."""
CONFIDENCE = 1.0
"""How many standard errors of the paired differences another move must win
by to be played instead of the heuristic's own choice (:func:`clear_winner`)."""

Candidates = Callable[[Any, Any, Any], Sequence[Move]]
"""The moves worth searching at a view, given the heuristic bot and the seat's memory (or None)."""
Horizon = Callable[[Any, Any], bool]
"""Whether a playout from ``view`` has reached ``state`` far enough to be judged without playing on."""
Judge = Callable[[Any, int], float]
"""A playout stopped at its horizon: how good ``state`` looks for ``seat``, 0 to 1."""


class SearchBot(Bot[GameView]):
    """Chooses by simulation; reacts (answers offers, unasked Anytime cards) as
    its heuristic bot does, which keeps the table's pace. It is slow (about a
    second a decision) and remembers what its seat is shown."""

    name = "search"
    reacts = True
    remembers = True
    slow = True

    def __init__(
        self,
        seed: int,
        *,
        rules: AnyRules,
        heuristic: Callable[[int], Bot[Any]],
        candidates: Candidates,
        budget: int,
        horizon: Horizon | None = None,
        judge: Judge | None = None,
        playout_moves: int | None = None,
        prune_after: int | None = None,
        keep: int = 2,
        rivals: Callable[[int], Bot[Any]] | None = None,
    ) -> None:
        self.seed = seed
        self.thoughts = 0
        """Searches made so far: each deals from an RNG of its own, seeded by the bot's seed and this count."""
        self.rng = random.Random(seed)
        self.rules = rules
        self.heuristic = heuristic
        self.base_seed = self.rng.randrange(2**32)
        self.base = heuristic(self.base_seed)
        self.candidates = candidates
        self.budget = max(1, budget)
        self.horizon = horizon
        self.judge = judge
        self.move_allowance = self.budget * playout_moves if playout_moves else None
        """The playout moves one decision may make in all (None: as many as its budget's games take)."""
        self.prune_after = prune_after
        """Deals after which only the heuristic's choice and the ``keep`` moves that
        did best so far are played on (None: every candidate to the end)."""
        self.keep = keep
        self.rivals = rivals or heuristic
        """Makes the bots the other seats are played by in playouts: how the search expects them to play."""
        self.memory: Memory | None = None

    def __getstate__(self) -> dict[str, Any]:
        """Pickled small (it is sent whole to a worker for every decision): without
        its RNG, remade for each search, and its heuristic bot, remade from its seed."""
        state = dict(self.__dict__)
        del state["rng"], state["base"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.rng = random.Random(self.seed)
        self.base = self.heuristic(self.base_seed)

    def observe(self, events: Sequence[Event], seat: int) -> None:
        """Remember what ``seat`` (this bot's) was shown: ``events`` redacted for it."""
        if self.memory is None or self.memory.seat != seat:
            self.memory = self.rules.memory(seat)
        self.memory.observe(events)

    def react(self, view: GameView) -> Move | None:
        return self.base.react(view)

    def choose(self, view: GameView) -> Move:
        memory = self._memory(_seat(view))
        if memory is not None:
            memory.see(view)
        moves = list(self.candidates(view, self.base, memory))
        if not moves:
            return self.base.choose(view)
        if len(moves) == 1:
            return moves[0]
        return self._search(view, moves)

    def _memory(self, seat: int) -> Memory | None:
        return self.memory if self.memory is not None and self.memory.seat == seat else None

    def _search(self, view: GameView, moves: list[Move]) -> Move:
        self.thoughts += 1
        self.rng = random.Random(f"{self.seed}/{self.thoughts}")
        playing, results = self.trials(view, moves)
        best = clear_winner([results[i] for i in playing])
        return moves[playing[best]]

    def trials(self, view: GameView, moves: list[Move]) -> tuple[list[int], list[list[float]]]:
        """Paired trials: each round deals one State and plays every candidate
        on a copy of it, with playout bots and dice seeded alike, so the moves
        are compared on the same luck (far less noise than a trial each).
        The candidates still played at the end (indices into ``moves``, the
        first being the heuristic's own choice), and every candidate's results
        (one value from 0 to 1 per deal it was played on): what :meth:`choose`
        picks from."""
        seat = _seat(view)
        memory = self._memory(seat)
        rules = self.rules
        seats = len(view.players)
        results: list[list[float]] = [[] for _ in moves]
        playing = list(range(len(moves)))
        spent = games = done = 0
        while games + len(playing) <= max(self.budget, len(playing)):
            dealt = rules.sample(view, self.rng, memory)
            luck = self.rng.randrange(2**32)
            for i in playing:
                state = rules.clone(dealt)
                rules.apply(state, seat, moves[i])
                players = [(self.heuristic if s == seat else self.rivals)(luck + s) for s in range(seats)]
                value, made = self._playout(view, state, players, seat)
                results[i].append(value)
                spent += made
            games += len(playing)
            done += 1
            if self.move_allowance is not None and spent >= self.move_allowance and done >= MIN_ROUNDS:
                break
            if done == self.prune_after and len(playing) > self.keep + 1:
                playing = [0, *leaders(results, self.keep)]
        return playing, results

    def _playout(self, view: GameView, state: Any, players: list[Bot[Any]], seat: int) -> tuple[float, int]:
        """How the playout from ``state`` ended for ``seat`` (0 to 1), and the moves it made."""
        rules = self.rules
        for made in range(PLAYOUT_MOVES):
            outcome = rules.outcome(state)
            if outcome is not None:
                return (1.0 / len(outcome.winners) if seat in outcome.winners else 0.0), made
            if self.horizon is not None and self.judge is not None and self.horizon(view, state):
                return self.judge(state, seat), made
            who, move = next_move(rules, state, players)
            rules.apply(state, who, move)
        return 1.0 / len(players), PLAYOUT_MOVES


def _seat(view: GameView) -> int:
    """The seat the bot plays: it is asked only at a seat, never as a spectator."""
    if view.seat is None:
        raise ValueError("a bot plays a seat, not a spectator's view")
    return view.seat


def leaders(results: Sequence[Sequence[float]], count: int) -> list[int]:
    """The ``count`` candidates but the heuristic's (0) that did best on the deals so far,
    best first (ties to the earlier)."""
    means = sorted(range(1, len(results)), key=lambda k: (-sum(results[k]) / max(1, len(results[k])), k))
    return sorted(means[:count])


def clear_winner(results: Sequence[Sequence[float]], confidence: float = CONFIDENCE) -> int:
    """Which candidate to play, given each one's results on the same deals
    (``results[k][i]``: candidate ``k`` on deal ``i``; candidate 0 is the
    heuristic's own choice).

    With a few dozen deals, the best-looking of several moves is often only
    the luckiest: so another move is played only when its lead over the
    heuristic's, deal by deal, stays positive ``confidence`` standard errors
    below its mean. Of those, the one with the largest such lower bound.
    """
    base = results[0]
    deals = len(base)
    best, best_low = 0, 0.0
    for k in range(1, len(results)):
        diffs = [mine - theirs for mine, theirs in zip(results[k], base)]
        mean = sum(diffs) / deals
        spread = sum((d - mean) ** 2 for d in diffs) / (deals - 1) if deals > 1 else 0.0
        low = mean - confidence * math.sqrt(spread / deals)
        if low > best_low:
            best, best_low = k, low
    return best
