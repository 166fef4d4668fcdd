"""The shared invariant harness, run over many seeded games of every game.

See tests/core/invariants.py for what is checked at every step.
"""

from __future__ import annotations

import random
from typing import Any, Callable

import pytest

from quackbox.cards.side_effects import SECard
from quackbox.core import bots as bot_registry
from quackbox.core import side_effects as se
from quackbox.core.bots import Bot, RandomBot
from quackbox.core.play import play_game
from quackbox.core.rules import NONE
from quackbox.core.side_effects.bot import SideEffectsBot
from tests.core import invariants
from tests.core.invariants import Adapter, disturb_global_random, play_checked, replay


class SideEffectsAdapter(Adapter):
    rules = se.RULES
    card_types = (SECard,)
    event_card_fields = frozenset({"card", "cards", "drug", "disorder", "mine", "theirs", "give", "gave", "got"})

    def all_cards(self, state: se.SEState) -> list[int]:
        return sorted(c.id for c in state.cards)

    def locations(self, state: se.SEState) -> list[int]:
        where = state.draw + state.discard
        for hand in state.hands:
            where += hand
        for psyche in state.psyche:
            for slot in psyche:
                where.append(slot.disorder)
                if slot.drug != NONE:
                    where.append(slot.drug)
        where.sort()
        return where

    def hidden_from(self, state: se.SEState, seat: int | None) -> set[int]:
        hidden = set(state.draw)
        for other, hand in enumerate(state.hands):
            if other != seat:
                hidden.update(hand)
        if seat is not None:
            if state.phase == se.ANXIETY and seat == state.current:
                hidden.difference_update(state.hands[state.prompt_seat])
            for offer in state.offers.values():
                if offer.to == seat:
                    hidden.difference_update(offer.give)
        return hidden

    def before_step(self, state: se.SEState) -> Any:
        return set(state.draw)

    def shown_during(self, note: Any, state: se.SEState, events: Any) -> set[int]:
        # Discards are face up: a card discarded and then reshuffled into the
        # draw pile, or drawn again, within one move was public in between.
        shown = set(state.draw) - note
        for event in events:
            if isinstance(
                event,
                (se.CardDiscarded, se.EpisodePlayed, se.TherapyUsed, se.MisdiagnosisPlayed, se.HighTolerancePlayed),
            ):
                shown.add(event.card)
            elif isinstance(event, (se.HandDiscarded, se.DrugsDiscarded)):
                shown.update(event.cards)
            if isinstance(event, (se.TherapyUsed,)):
                shown.add(event.disorder)
            elif isinstance(event, se.HighTolerancePlayed):
                shown.add(event.drug)
        return shown

    def check_step(self, state: se.SEState, events: Any) -> None:
        for i, event in enumerate(events):
            if isinstance(event, se.TurnEnded):
                # The same seat may start again at once (the others all skip):
                # count the hand as it was when the turn ended.
                drawn_since = sum(e.count for e in events[i:] if isinstance(e, se.CardsDrawn) and e.seat == event.seat)
                held = len(state.hands[event.seat]) - drawn_since
                assert held <= se.HAND_LIMIT, f"seat {event.seat} ended a turn holding {held} cards"
        if not state.options.duplicate_disorders:
            for seat, psyche in enumerate(state.psyche):
                names = [state.cards[slot.disorder].name for slot in psyche]
                assert len(names) == len(set(names)), f"seat {seat} holds a Disorder twice: {names}"

    def fingerprint(self, state: se.SEState) -> Any:
        return (
            tuple(state.draw),
            tuple(state.discard),
            tuple(map(tuple, state.hands)),
            tuple(tuple((slot.disorder, slot.drug) for slot in p) for p in state.psyche),
            state.current,
            state.turn,
            state.phase,
            tuple(state.places),
            state.rng.getstate(),
        )


class TradingBot(Bot):
    """A random player that also makes and answers trade offers, for the harness."""

    name = "trading"
    reacts = True

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: se.SEView) -> Any:
        if view.phase == se.PLAY and view.hand and self.rng.random() < 0.08:
            offer = self._offer(view)
            if offer is not None:
                return offer
        return self.rng.choice(view.legal)

    def react(self, view: se.SEView) -> Any:
        answers = [m for m in view.legal if isinstance(m, se.TRADE_ANSWERS)]
        if answers and self.rng.random() < 0.5:
            return self.rng.choice(answers)
        return None

    def _offer(self, view: se.SEView) -> Any:
        mine = sum(1 for o in view.offers if o.seat == view.seat)
        others = [p.seat for p in view.players if p.seat != view.seat and p.place == 0]
        if mine >= se.MAX_OPEN_OFFERS or not others:
            return None
        give = tuple(c.id for c in view.hand if self.rng.random() < 0.3)
        want = tuple(
            self.rng.choice(["Lithium", "Therapy", "Episode", "Anxiety"]) for _ in range(self.rng.randrange(2))
        )
        if not give and not want:
            return None
        return se.OfferTrade(self.rng.choice(others), give, want)


SE_OPTION_CHOICES = {
    "until_one_loser": (False, True),
    "duplicate_disorders": (False, False, True),
    "treat_others": (False, False, True),
    "bonus_cards": (False, True),
}


def _se_table(seed: int, seats: int) -> list[Any]:
    kinds = (RandomBot, SideEffectsBot, TradingBot)
    rng = random.Random(seed)
    return [rng.choice(kinds)(seed * 10 + s) for s in range(seats)]


SE_GAMES = 500


@pytest.mark.parametrize("chunk", range(5))
def test_side_effects_invariants(chunk: int) -> None:
    """Invariants over 500 seeded games at 2-8 seats with options on and off."""
    adapter = SideEffectsAdapter()
    for seed in range(chunk * SE_GAMES // 5, (chunk + 1) * SE_GAMES // 5):
        rng = random.Random(seed)
        seats = 2 + seed % 7
        options = invariants.random_options(se.RULES, rng, SE_OPTION_CHOICES)
        # Check every view at every step in some games, and a sample in the rest.
        every = 1 if seed % 10 == 0 else 10
        play_checked(adapter, _se_table(seed, seats), seed=seed, options=options, check_views_every=every)


def _games() -> list[tuple[Adapter, Callable[[int, int], list[Any]], Any]]:
    """Each game's adapter, table of bots and options for the determinism test."""
    from tests.core.test_quack_rules import QuackAdapter, _quack_table

    return [
        (SideEffectsAdapter(), _se_table, se.SEOptions(bonus_cards=True, until_one_loser=True)),
        (QuackAdapter(), _quack_table, {"window_seconds": 5, "turbo_infamy": True}),
    ]


@pytest.mark.parametrize("game", [0, 1], ids=["side-effects", "quack"])
@pytest.mark.parametrize("seed", [4, 23])
def test_determinism(game: int, seed: int) -> None:
    """Same seed and moves, same game, whatever the global random module does;
    a replay of the moves rebuilds it; another seed deals another game."""
    adapter, bots_for, options = _games()[game]
    first_moves, first = play_checked(adapter, bots_for(seed, 5), seed=seed, options=options, check_views_every=50)
    disturb_global_random()
    second_moves, second = play_checked(adapter, bots_for(seed, 5), seed=seed, options=options, check_views_every=50)
    assert first_moves == second_moves
    assert adapter.fingerprint(first) == adapter.fingerprint(second)
    disturb_global_random()
    again = replay(adapter, 5, seed, options, first_moves)
    assert adapter.fingerprint(again) == adapter.fingerprint(first)
    rules = adapter.rules
    assert adapter.fingerprint(rules.new_game(seats=4, seed=seed)) != adapter.fingerprint(
        rules.new_game(seats=4, seed=seed + 1)
    )


def test_heuristic_bot_beats_random_bots() -> None:
    """The heuristic bot wins far more than its fair share against three random bots."""
    wins = 0
    games = 120
    for seed in range(games):
        table = [bot_registry.make("side-effects", "heuristic", seed)] + [RandomBot(seed * 7 + i) for i in range(3)]
        record = play_game(se.RULES, table, seed=seed)
        wins += 0 in record.outcome.winners
    assert wins / games > 0.6, f"heuristic won {wins} of {games}"
