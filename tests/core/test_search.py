"""The search bot (core.search) and the three levels: legal moves only, games that end, a budget kept."""

from __future__ import annotations

import pytest

from quackbox.core import bots, games
from quackbox.core.bots import Bot
from quackbox.core.play import play_game


class Checking(Bot):
    """Wraps a bot: every move it makes must be one of the view's legal moves or,
    for a Side Effects trade offer, one the rules accept."""

    def __init__(self, bot, rules) -> None:
        self.bot, self.rules = bot, rules
        self.name, self.reacts, self.remembers = bot.name, bot.reacts, bot.remembers
        self.observe = bot.observe
        self.chosen = 0

    def choose(self, view):
        move = self.bot.choose(view)
        assert move in view.legal or type(move).__name__ == "OfferTrade", move
        self.chosen += 1
        return move

    def react(self, view):
        move = self.bot.react(view)
        assert move is None or move in view.legal
        return move


@pytest.mark.parametrize("game", ["side-effects", "quack"])
@pytest.mark.parametrize("seats", [2, 4, 8])
def test_the_search_bot_plays_legal_moves_and_finishes_games(game: str, seats: int) -> None:
    rules = games.get(game)
    hard = Checking(bots.make(game, bots.HARD, 7, budget=2), rules)
    table = [hard] + [bots.make(game, bots.NORMAL, 7 + s) for s in range(1, seats)]
    options = {"round-limit": 2} if game == "quack" else None
    record = play_game(rules, table, seed=seats, options=options, max_moves=5_000)
    assert record.outcome is not None and hard.chosen > 0


@pytest.mark.parametrize("game", ["side-effects", "quack"])
def test_the_search_bot_keeps_its_budget_and_never_sees_a_state(game: str, monkeypatch) -> None:
    """Each decision deals at most ``budget`` States, each from the seat's view
    (sample takes a View; the bot is never handed a State)."""
    rules = games.get(game)
    hard = bots.make(game, bots.HARD, 3, budget=5)
    dealt: list[int] = []
    real = type(rules).sample

    def counting(self, view, rng, memory=None):
        assert type(view).__name__.endswith("View")
        dealt.append(view.seat)
        return real(self, view, rng, memory)

    monkeypatch.setattr(type(rules), "sample", counting)
    table = [hard] + [bots.make(game, bots.NORMAL, s) for s in range(1, 4)]
    chosen = [0]
    choose = hard.choose

    def counted(view):
        before = len(dealt)
        move = choose(view)
        assert len(dealt) - before <= 5
        chosen[0] += 1
        return move

    hard.choose = counted
    options = {"round-limit": 2} if game == "quack" else None
    play_game(rules, table, seed=11, options=options, max_moves=5_000)
    assert chosen[0] > 0 and dealt and set(dealt) == {0}


@pytest.mark.parametrize("playout_moves", [None, 1, 40])
def test_a_decision_stops_dealing_once_its_playout_moves_are_spent(playout_moves, monkeypatch) -> None:
    """Rounds stop once the playouts have made budget * playout_moves moves
    (after MIN_ROUNDS deals at least); without a limit every round is played."""
    from quackbox.core import search
    from quackbox.core.side_effects.bot import SideEffectsBot, search_candidates

    rules = games.get("side-effects")
    budget = 60
    bot = search.SearchBot(
        3,
        rules=rules,
        heuristic=SideEffectsBot,
        candidates=search_candidates,
        budget=budget,
        playout_moves=playout_moves,
    )
    per_round: list[tuple[int, int]] = []  # (deals so far, playout moves so far) after each deal
    made = [0]
    real_sample, real_next_move = type(rules).sample, search.next_move

    def sample(self, view, rng, memory=None):
        per_round.append((len(per_round) + 1, made[0]))
        return real_sample(self, view, rng, memory)

    def next_move(*args):  # each move of a playout is asked of its bots here
        made[0] += 1
        return real_next_move(*args)

    monkeypatch.setattr(type(rules), "sample", sample)
    monkeypatch.setattr(search, "next_move", next_move)
    state = rules.new_game(seats=4, seed=2)
    view = rules.view(state, rules.waiting_for(state)[0])
    moves = search_candidates(view, bot.base, None)
    assert len(moves) > 1
    bot.choose(view)  # the candidates are those above: more than one, so it searches
    rounds = budget // len(moves)
    if playout_moves is None:
        assert len(per_round) == rounds
    else:
        allowance = budget * playout_moves
        assert len(per_round) >= min(rounds, search.MIN_ROUNDS)
        # every deal but the first few was made while moves were left
        assert all(spent < allowance for deals, spent in per_round if deals > search.MIN_ROUNDS)
        assert len(per_round) == rounds or made[0] >= allowance
    if playout_moves == 1:
        assert len(per_round) == search.MIN_ROUNDS


@pytest.mark.parametrize("game", ["side-effects", "quack"])
def test_every_level_is_a_bot_kind(game: str) -> None:
    for level in bots.LEVELS:
        assert level in bots.kinds(game)
    assert bots.make(game, bots.HARD, 1, budget=9).budget == 9


@pytest.mark.parametrize("game", ["side-effects", "quack"])
def test_the_search_bot_is_reproducible_by_seed(game: str) -> None:
    rules = games.get(game)
    options = {"round-limit": 3} if game == "quack" else None

    def moves(seed):
        table = [bots.make(game, bots.HARD, seed, budget=3)] + [bots.make(game, bots.NORMAL, s) for s in (1, 2)]
        return play_game(rules, table, seed=5, options=options, max_moves=5_000).moves

    assert moves(1) == moves(1)


def test_the_easy_bot_is_not_random() -> None:
    """Easy is weak but sensible: it beats random bots."""
    rules = games.get("side-effects")
    wins = 0
    for seed in range(60):
        table = [bots.make("side-effects", bots.EASY, seed)] + [
            bots.make("side-effects", "random", seed + s) for s in (1, 2, 3)
        ]
        wins += 0 in play_game(rules, table, seed=seed).outcome.winners
    assert wins > 25


def test_normal_does_not_hand_a_rival_the_card_that_wins_it() -> None:
    """The normal bot values a card asked for by what it is worth to the asker too."""
    from quackbox.core import side_effects as se
    from quackbox.core.side_effects.bot import SideEffectsBot
    from tests.core.se_helpers import table

    state = table(
        2,
        hands={0: ["Episode"], 1: ["Lithium", "Tremors"]},
        psyches={0: ["Gambling Addiction"], 1: ["Depression", "Anorexia"]},
    )
    se.RULES.apply(state, 0, se.OfferTrade(1, (state.hands[0][0],), ("Lithium",)))
    assert se.DeclineTrade(1) == SideEffectsBot(1).react(se.RULES.view(state, 1))


def test_a_move_replaces_the_heuristic_choice_only_when_it_clearly_won() -> None:
    from quackbox.core.search import clear_winner

    heuristic = [1, 0, 1, 0, 1, 0, 1, 0]
    lucky = [1, 1, 1, 0, 1, 0, 1, 0]  # one deal better: within the noise
    clear = [1, 1, 1, 1, 1, 1, 1, 0]  # better on three deals of four it differs on, never worse
    assert clear_winner([heuristic, lucky]) == 0
    assert clear_winner([heuristic, lucky, clear]) == 2
    assert clear_winner([heuristic, clear], confidence=10.0) == 0
    # Worse or equal moves never replace it, and one deal decides nothing against a tie.
    assert clear_winner([heuristic, [0] * 8, list(heuristic)]) == 0
    assert clear_winner([[0.0], [0.0]]) == 0


def test_side_effects_prompts_search_the_heuristic_answer_first() -> None:
    from quackbox.core.side_effects import bot as se_bot

    rules = games.get("side-effects")
    normal = bots.make("side-effects", bots.NORMAL, 3)
    seen = 0
    for seed in range(40):
        state = rules.new_game(seats=4, seed=seed)
        table = [bots.make("side-effects", bots.NORMAL, seed * 4 + s) for s in range(4)]
        while rules.outcome(state) is None and seen < 20:
            seat, move = bots.next_move(rules, state, table)
            view = rules.view(state, seat)
            if view.prompt is not None and len(view.legal) > 1:
                candidates = se_bot.search_candidates(view, normal, None)
                assert candidates[0] == normal.choose(view)
                seen += 1
            rules.apply(state, seat, move)
    assert seen >= 5


def test_after_pruning_only_the_heuristic_choice_and_the_leaders_are_played_on() -> None:
    """prune_after deals, then the heuristic's own choice and the ``keep`` that did best so far
    only, on as many deals as the budget leaves; every deal with the same luck for each."""
    from quackbox.core import search
    from quackbox.core.side_effects.bot import SideEffectsBot, search_candidates

    rules = games.get("side-effects")
    state = rules.new_game(seats=4, seed=2)
    view = rules.view(state, rules.waiting_for(state)[0])
    moves = search_candidates(view, SideEffectsBot(1), None)
    assert len(moves) > 3
    bot = search.SearchBot(
        3, rules=rules, heuristic=SideEffectsBot, candidates=search_candidates, budget=60, prune_after=4, keep=1
    )
    playing, results = bot.trials(view, list(moves))
    assert playing[0] == 0 and len(playing) == 2
    assert [len(results[i]) for i in playing] == [4 + (60 - 4 * len(moves)) // 2] * 2
    assert all(len(r) == 4 for i, r in enumerate(results) if i not in playing)
    dropped = [sum(r) for i, r in enumerate(results) if i not in playing and i != 0]
    assert all(sum(results[playing[1]][:4]) >= d for d in dropped)


@pytest.mark.parametrize("game", ["side-effects", "quack"])
def test_a_hard_bot_sent_to_think_stays_small(game: str) -> None:
    """The whole hard bot is pickled for every decision it makes in a worker: after a game's worth
    of memory it still pickles small (its rules by name), and comes back choosing the same."""
    import pickle

    rules = games.get(game)
    hard = bots.make(game, bots.HARD, 5, budget=4)
    table = [hard] + [bots.make(game, bots.NORMAL, s) for s in range(1, 4)]
    options = {"round-limit": 6} if game == "quack" else None
    play_game(rules, table, seed=4, options=options, max_moves=5_000)
    data = pickle.dumps(hard)
    assert len(data) < 3_000, len(data)
    again = pickle.loads(data)
    state = rules.new_game(seats=4, seed=9)
    seat = rules.waiting_for(state)[0]
    view = rules.view(state, seat)
    assert again.choose(view) == pickle.loads(data).choose(view)


def test_a_play_that_wins_now_is_made_without_search() -> None:
    from quackbox.core import side_effects as se
    from quackbox.core.side_effects.bot import SideEffectsBot, search_candidates
    from tests.core.se_helpers import table

    state = table(3, hands={0: ["Lithium", "Episode"]}, psyches={0: ["Gambling Addiction"]})
    view = se.RULES.view(state, 0)
    moves = search_candidates(view, SideEffectsBot(1), None)
    assert len(moves) == 1 and isinstance(moves[0], se.Treat)


def test_the_search_offers_trades_the_normal_bot_accepts() -> None:
    """fair_offers: for a Drug this seat needs, a gift the holder (a normal bot) values above
    that Drug, and which costs this seat least; the normal bot takes it."""
    from quackbox.core import side_effects as se
    from quackbox.core.side_effects.bot import SideEffectsBot, fair_offers
    from tests.core.se_helpers import table

    state = table(
        3,
        hands={0: ["Chlorpromazine", "Episode", "Sildenafil", "Lithium"], 1: ["Lorazepam", "Tremors"], 2: ["Tremors"]},
        psyches={
            0: ["Anxiety", "Gambling Addiction", "Depression"],
            1: ["Madness", "Suicidal Thoughts"],
            2: ["Impotence", "Depression"],
        },
    )
    view = se.RULES.view(state, 0)
    offers = [o for o in fair_offers(view, SideEffectsBot(1), None) if o.to == 1 and o.want == ("Lorazepam",)]
    assert len(offers) == 1
    names = sorted(se.RULES.card_name(c) for c in offers[0].give)
    assert "Chlorpromazine" in names and "Lithium" not in names  # theirs to use; ours kept
    se.RULES.apply(state, 0, offers[0])
    answer = SideEffectsBot(2).react(se.RULES.view(state, 1))
    assert isinstance(answer, se.AcceptTrade)


def test_playouts_play_the_searching_seat_by_its_heuristic_and_the_others_by_rivals() -> None:
    """Quack's hard bot plays itself sharp in its playouts and expects normal doctors of the rest."""
    from quackbox.core import search
    from quackbox.core.quack import bot as qb

    made: list[str] = []

    def own(seed: int) -> Bot:
        made.append("own")
        return qb.SharpQuackBot(seed)

    def rival(seed: int) -> Bot:
        made.append("rival")
        return qb.QuackBot(seed)

    rules = games.get("quack")
    state = rules.new_game(seats=4, seed=3)
    seat = rules.waiting_for(state)[0]
    view = rules.view(state, seat)
    bot = search.SearchBot(
        1,
        rules=rules,
        heuristic=own,
        rivals=rival,
        candidates=qb.search_candidates,
        budget=6,
        horizon=qb._search_horizon,
        judge=qb._search_judge,
    )
    del made[:]
    moves = list(view.legal[:2])
    bot.trials(view, moves)
    tables = [made[i : i + 4] for i in range(0, len(made), 4)]
    assert len(tables) == 6
    assert all(t.index("own") == seat and t.count("own") == 1 for t in tables)
    hard = bots.make("quack", bots.HARD, 1)
    assert isinstance(hard.base, qb.SharpQuackBot) and hard.rivals is qb.QuackBot
