"""Scenario tests for the Side Effects rules: one rule per test.

Each docstring names the rule it checks: the rulebook (shared/seeds, quoted
as "Rulebook: <section>") or a ruling SE1-SE12 of DESIGN.md section 3. The
tables are stacked with :mod:`tests.core.se_helpers`.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import fields, is_dataclass

import pytest

from quackbox.cards import side_effects as se_cards
from quackbox.cards.side_effects import SECard
from quackbox.core import side_effects as se
from quackbox.core.rules import NONE, BadOptions, Deadline, GameOver, IllegalMove, NotYourTurn
from quackbox.core.side_effects import (
    RULES,
    AcceptTrade,
    DeclineTrade,
    Discard,
    EndTurn,
    GiveDisorder,
    OfferTrade,
    PlayEpisode,
    PlayHighTolerance,
    PlayMisdiagnosis,
    PlayTherapy,
    TakeCard,
    TakeNothing,
    Timeout,
    Treat,
    WithdrawTrade,
)
from tests.core.se_helpers import (
    assert_conserved,
    card_id,
    disorder_id,
    drug_on,
    end_turn,
    hand_names,
    names,
    of_type,
    play,
    psyche_names,
    snapshot,
    table,
)

# --- setup (SE1, SE2, SE3, rulebook Setup) -----------------------------------

SE1_COUNTS = {
    "Depression": 5, "Anxiety": 5, "Impotence": 5, "Gambling Addiction": 5,
    "Suicidal Thoughts": 5, "Tremors": 5, "Anorexia": 4, "Madness": 4,
    "Fluoxetine": 5, "Lorazepam": 5, "Sildenafil": 5, "Lithium": 5,
    "Clozapine": 5, "Pramipexole": 6, "Chlorpromazine": 5,
    "Episode": 10, "Therapy": 5,
}  # fmt: skip

GAME_KEY = {  # Drug: (treats, May Cause) from the rulebook's Game Key
    "Chlorpromazine": ("Madness", {"Tremors"}),
    "Clozapine": ("Suicidal Thoughts", {"Madness"}),
    "Fluoxetine": ("Depression", {"Suicidal Thoughts", "Impotence", "Anorexia"}),
    "Pramipexole": ("Tremors", {"Gambling Addiction", "Depression", "Madness"}),
    "Lithium": ("Gambling Addiction", {"Impotence"}),
    "Lorazepam": ("Anxiety", {"Suicidal Thoughts", "Depression", "Madness"}),
    "Sildenafil": ("Impotence", {"Anxiety"}),
}


def test_deck_has_89_cards_in_the_ruled_counts():
    """SE1 Deck: 38 Disorders, 36 Drugs, 10 Episodes, 5 Therapy; 89 in all."""
    cards = RULES.deck.build()
    assert len(cards) == 89
    assert Counter(c.name for c in cards) == SE1_COUNTS
    kinds = Counter(c.kind for c in cards)
    assert kinds == {se_cards.DISORDER: 38, se_cards.DRUG: 36, se_cards.EPISODE: 10, se_cards.THERAPY: 5}
    assert [c.id for c in cards] == list(range(89))


def test_drugs_follow_the_game_key():
    """SE1 Deck: each Drug treats one Disorder and causes the Game Key's "May Cause" list; none treats Anorexia."""
    drugs = {k.name: (k.treats, set(k.side_effects)) for k in RULES.deck.kinds if k.kind == se_cards.DRUG}
    assert drugs == GAME_KEY
    assert "Anorexia" not in {treats for treats, _ in drugs.values()}


def test_bonus_cards_make_93_and_keep_the_ids():
    """SE1/SE12: the bonus option adds 2 Misdiagnosis and 2 High Tolerance; the other 89 ids do not move."""
    plain, bonus = RULES.deck.build(), RULES.deck.build(bonus=True)
    assert len(bonus) == 93
    assert Counter(c.name for c in bonus[89:]) == {"Misdiagnosis": 2, "High Tolerance": 2}
    assert [c.name for c in bonus[:89]] == [c.name for c in plain]
    assert len(RULES.new_game(seats=3, seed=1).cards) == 89
    assert len(RULES.new_game(seats=3, seed=1, options={"bonus_cards": True}).cards) == 93


@pytest.mark.parametrize("seats", range(2, 9))
def test_psyche_and_hand_sizes(seats):
    """SE2 Seats: 2-8 players; a Psyche of 4 Disorders (3 with 6+ players), all different; hands of 4."""
    state = RULES.new_game(seats=seats, seed=seats)
    size = 3 if seats >= 6 else 4
    for s in range(seats):
        psyche = psyche_names(state, s)
        assert len(psyche) == size
        assert len(set(psyche)) == size, f"duplicate Disorder dealt to seat {s}: {psyche}"
        assert all(
            state.cards[slot.disorder].kind == se_cards.DISORDER and slot.drug == NONE for slot in state.psyche[s]
        )
        # Hands of 4; the first player has already drawn their 2.
        assert len(state.hands[s]) == (6 if s == state.current else 4)
    assert_conserved(state)


@pytest.mark.parametrize("seats", [0, 1, 9, True, "3", 2.0])
def test_seat_count_outside_2_to_8_is_refused(seats):
    """SE2 Seats: Side Effects is for 2 to 8 players; anything else is BadOptions."""
    with pytest.raises(BadOptions, match="2 to 8"):
        RULES.new_game(seats=seats, seed=0)


def _pile_order(seed: int) -> list[int]:
    """The shuffled Disorder pile of ``seed``, top first, read off a duplicate-allowing deal.

    With duplicates allowed the deal is a plain round robin, so an 8-seat
    Psyche deal shows the top 24 cards in order (the seat count does not
    change the shuffle).
    """
    state = RULES.new_game(seats=8, seed=seed, options={"duplicate_disorders": True})
    return [state.psyche[k % 8][k // 8].disorder for k in range(24)]


def _first_seed_with_setup_duplicate(seats: int) -> int:
    cards = RULES.deck.build()
    for seed in range(500):
        pile = _pile_order(seed)
        for s in range(seats):
            dealt = [cards[pile[r * seats + s]].name for r in range(4)]
            if len(set(dealt)) < 4:
                return seed
    raise AssertionError("no seed deals a duplicate")  # pragma: no cover


def test_duplicate_disorder_at_setup_goes_to_the_bottom():
    """Rulebook Setup: a Psyche never holds 2 of the same Disorder; the duplicate goes to the bottom and the next is dealt."""
    seed = _first_seed_with_setup_duplicate(3)
    cards = RULES.deck.build()
    pile = _pile_order(seed)
    expected: list[list[int]] = [[] for _ in range(3)]
    bounced = []
    for _round in range(4):
        for s in range(3):
            while True:
                card = pile.pop(0)
                if cards[card].name in {cards[d].name for d in expected[s]}:
                    bounced.append(card)  # to the bottom: not reached again in this deal
                    continue
                expected[s].append(card)
                break
    assert bounced, "the chosen seed should force a duplicate"
    state = RULES.new_game(seats=3, seed=seed)
    assert [[slot.disorder for slot in state.psyche[s]] for s in range(3)] == expected
    on_psyches = {slot.disorder for s in range(3) for slot in state.psyche[s]}
    assert not on_psyches & set(bounced)
    assert_conserved(state)


def test_duplicate_house_rule_keeps_the_duplicate_at_setup():
    """SE11 duplicates option: with duplicates allowed, a duplicate dealt at setup stays on the Psyche."""
    seed = _first_seed_with_setup_duplicate(3)
    pile = _pile_order(seed)
    state = RULES.new_game(seats=3, seed=seed, options={"duplicate_disorders": True})
    round_robin = [[pile[r * 3 + s] for r in range(4)] for s in range(3)]
    assert [[slot.disorder for slot in state.psyche[s]] for s in range(3)] == round_robin
    assert any(len(set(psyche_names(state, s))) < 4 for s in range(3))


def test_first_player_is_drawn_from_the_seed():
    """SE3 First player: drawn by the game's RNG, so the same seed picks the same seat and seeds vary it."""
    firsts = [RULES.new_game(seats=4, seed=seed).current for seed in range(60)]
    assert set(firsts) == {0, 1, 2, 3}
    assert firsts == [RULES.new_game(seats=4, seed=seed).current for seed in range(60)]


@pytest.mark.parametrize("first", [0, 1, 3])
def test_first_seat_option_picks_the_seat(first):
    """SE3 First player: the host may pick the first seat instead; it draws first."""
    state = RULES.new_game(seats=4, seed=7, options={"first_seat": first})
    assert state.current == first
    assert len(state.hands[first]) == 6
    assert all(len(state.hands[s]) == 4 for s in range(4) if s != first)


def test_first_seat_option_must_be_a_seat():
    """SE3 First player: a first-seat beyond the table is BadOptions."""
    with pytest.raises(BadOptions, match="first-seat"):
        RULES.new_game(seats=3, seed=0, options={"first_seat": 3})


@pytest.mark.parametrize("value", [float("nan"), float("inf"), 1.5, "one", True])
def test_first_seat_option_rejects_non_seats(value):
    """SE3 First player option: a value that is not a whole seat number is BadOptions, never another error."""
    with pytest.raises(BadOptions):
        se.parse_options({"first_seat": value})


@pytest.mark.parametrize("seed", [3, 8, 21])
def test_a_clone_plays_on_exactly_as_the_original(seed):
    """clone: a copy of the game, its RNG included; the same moves give the same events and views."""
    state = RULES.new_game(seats=4, seed=seed, options={"bonus_cards": True, "until_one_loser": True})
    chooser = random.Random(seed)
    for _ in range(60):
        seat = RULES.waiting_for(state)[0]
        RULES.apply(state, seat, chooser.choice(RULES.legal_moves(state, seat)))
    copy = RULES.clone(state)
    assert copy is not state and copy.rng is not state.rng
    assert snapshot(copy) == snapshot(state)
    reshuffles = 0
    while not state.over:
        seat = RULES.waiting_for(state)[0]
        move = chooser.choice(RULES.legal_moves(state, seat))
        events = RULES.apply(state, seat, move)
        assert RULES.apply(copy, seat, move) == events
        reshuffles += len(of_type(events, se.DeckReshuffled))
        for viewer in [*range(4), None]:
            assert RULES.view(copy, viewer) == RULES.view(state, viewer)
    assert snapshot(copy) == snapshot(state)
    assert reshuffles, "the RNG should have been used after the clone"


def test_changing_a_clone_leaves_the_original_alone():
    """clone: an independent copy; nothing done to it reaches the original, RNG included."""
    state = table(
        3,
        psyches={0: ["Madness", ("Anxiety", "Lorazepam")], 1: ["Gambling Addiction", "Depression"]},
        hands={0: ["Episode", "Chlorpromazine"], 1: ["Lithium", "Therapy", "Clozapine", "Sildenafil"]},
    )
    play(state, 1, OfferTrade(0, (card_id(state, 1, "Lithium"),), ()))
    before = snapshot(state)
    copy = se.clone(state)
    events = play(copy, 0, PlayEpisode(card_id(copy, 0, "Episode"), disorder_id(copy, 1, "Gambling Addiction")))
    assert of_type(events, se.CardsTaken) and of_type(events, se.TradeClosed)  # the RNG stole; the offer lapsed
    play(copy, 0, Treat(card_id(copy, 0, "Chlorpromazine"), disorder_id(copy, 0, "Madness")))
    copy.psyche[1][0].drug = 0
    for field in (copy.draw, copy.discard, copy.hands[2], copy.finish_order):
        field.append(-5)
    copy.skips[2] = copy.no_play[2] = copy.no_draw[2] = copy.places[2] = 1
    copy.offers[9] = copy.offers.get(9)
    copy.rng.random()
    assert snapshot(state) == before


# --- turn flow (rulebook Turns, SE4, SE5) -----------------------------------


def test_turn_starts_by_drawing_two():
    """Rulebook Turns: start your turn by drawing 2 cards (from the top of the draw pile)."""
    state = table(3, hands={0: [], 1: ["Episode"]}, draw=["Lithium", "Therapy", "Clozapine"])
    turn = state.turn
    events = play(state, 0, EndTurn())
    assert state.current == 1 and state.turn == turn + 1
    assert hand_names(state, 1) == ["Episode", "Lithium", "Therapy"]
    (drawn,) = of_type(events, se.CardsDrawn)
    assert drawn.seat == 1 and drawn.count == 2 and names(state, drawn.cards) == ["Lithium", "Therapy"]
    assert names(state, state.draw[-1:]) == ["Clozapine"]
    assert of_type(events, se.TurnEnded) == [se.TurnEnded(seat=0)]
    assert of_type(events, se.TurnStarted) == [se.TurnStarted(seat=1, turn=turn + 1)]


def test_turn_ends_after_the_second_play():
    """Rulebook Turns: up to 2 plays a turn; a turn ends when a player makes 2 moves."""
    state = table(
        3,
        psyches={0: ["Madness", "Anxiety", "Depression"]},
        hands={0: ["Chlorpromazine", "Lorazepam", "Fluoxetine"]},
    )
    play(state, 0, Treat(card_id(state, 0, "Chlorpromazine"), disorder_id(state, 0, "Madness")))
    assert state.current == 0 and state.plays_left == 1
    events = play(state, 0, Treat(card_id(state, 0, "Lorazepam"), disorder_id(state, 0, "Anxiety")))
    assert state.current == 1
    assert se.TurnEnded(seat=0) in events
    assert "Fluoxetine" in hand_names(state, 0)  # the third Drug could not be played
    assert drug_on(state, 0, "Depression") == NONE


def test_end_turn_early_after_one_play():
    """Rulebook Turns: a player may end the turn early (not compelled to play)."""
    state = table(3, psyches={0: ["Madness", "Anxiety"]}, hands={0: ["Chlorpromazine", "Lorazepam"]})
    play(state, 0, Treat(card_id(state, 0, "Chlorpromazine"), disorder_id(state, 0, "Madness")))
    play(state, 0, EndTurn())
    assert state.current == 1 and state.plays_left == 2
    assert "Lorazepam" in hand_names(state, 0)


def test_end_turn_with_no_play():
    """Rulebook Turns: you're not compelled to play anything."""
    state = table(3, hands={0: ["Episode"]})
    play(state, 0, EndTurn())
    assert state.current == 1
    assert hand_names(state, 0) == ["Episode"]


def test_free_discards_are_not_plays():
    """SE5 Discards: discarding from your own hand on your turn does not count toward the 2 plays."""
    state = table(
        3,
        psyches={0: ["Madness", "Anxiety", "Depression"]},
        hands={0: ["Chlorpromazine", "Lorazepam", "Episode", "Therapy"]},
    )
    episode, therapy = card_id(state, 0, "Episode"), card_id(state, 0, "Therapy")
    events = play(state, 0, Discard(episode), Discard(therapy))
    assert of_type(events, se.CardDiscarded) == [
        se.CardDiscarded(seat=0, card=episode, reason="free"),
        se.CardDiscarded(seat=0, card=therapy, reason="free"),
    ]
    assert state.plays_left == 2 and state.current == 0
    assert state.discard[-2:] == [episode, therapy]
    # Both plays are still there.
    play(state, 0, Treat(card_id(state, 0, "Chlorpromazine"), disorder_id(state, 0, "Madness")))
    assert state.current == 0
    play(state, 0, Treat(card_id(state, 0, "Lorazepam"), disorder_id(state, 0, "Anxiety")))
    assert state.current == 1


def test_hand_limit_discards_are_chosen_one_at_a_time():
    """SE5 / Rulebook Turns: at the end of the turn the player chooses cards to discard down to 6, one at a time."""
    hand = ["Episode", "Therapy", "Lithium", "Clozapine", "Sildenafil", "Fluoxetine", "Lorazepam", "Madness"]
    state = table(3, hands={0: hand})
    assert play(state, 0, EndTurn()) == []  # nothing happens until the choice is made
    assert state.phase == se.DISCARD_DOWN and state.current == 0
    view = RULES.view(state, 0)
    assert view.prompt is not None and (view.prompt.kind, view.prompt.seat, view.prompt.count) == ("discard_down", 0, 2)
    assert set(RULES.legal_moves(state, 0)) == {Discard(c) for c in state.hands[0]}
    assert RULES.waiting_for(state) == (0,)
    with pytest.raises(IllegalMove):
        RULES.check(state, 0, EndTurn())

    lithium, madness = card_id(state, 0, "Lithium"), card_id(state, 0, "Madness")
    events = play(state, 0, Discard(lithium))
    assert events == [se.CardDiscarded(seat=0, card=lithium, reason="hand_limit")]
    assert state.phase == se.DISCARD_DOWN and RULES.view(state, 0).prompt.count == 1
    events = play(state, 0, Discard(madness))
    assert events[0] == se.CardDiscarded(seat=0, card=madness, reason="hand_limit")
    assert state.current == 1 and state.phase == se.PLAY
    assert hand_names(state, 0) == sorted(set(hand) - {"Lithium", "Madness"})


def test_hand_of_exactly_six_keeps_every_card():
    """SE5: the limit is 6, so a hand of 6 at the end of the turn discards nothing."""
    state = table(3, hands={0: ["Episode"] * 6})
    play(state, 0, EndTurn())
    assert state.current == 1 and len(state.hands[0]) == 6


def test_cards_taken_mid_turn_may_exceed_six_until_the_end():
    """SE5: cards taken mid-turn (Gambling Addiction) may exceed 6 until the end of the turn."""
    state = table(
        3,
        psyches={0: ["Madness", "Anxiety"], 1: ["Gambling Addiction", "Depression"]},
        hands={0: ["Episode", "Chlorpromazine", "Therapy", "Therapy", "Lithium", "Lithium"], 1: ["Clozapine"] * 4},
    )
    play(state, 0, PlayEpisode(card_id(state, 0, "Episode"), disorder_id(state, 1, "Gambling Addiction")))
    assert len(state.hands[0]) == 8 and state.phase == se.PLAY and state.plays_left == 1
    play(state, 0, Treat(card_id(state, 0, "Chlorpromazine"), disorder_id(state, 0, "Madness")))
    assert state.phase == se.DISCARD_DOWN and len(state.hands[0]) == 7 and state.current == 0


# --- SE4 draw ---------------------------------------------------------------


def test_empty_draw_pile_is_replaced_by_the_shuffled_discard():
    """SE4 Draw: an empty draw pile is replaced by the shuffled discard pile."""
    state = table(3, hands={0: [], 1: []}, draw=["Lithium"], leftovers="discard")
    old_discard = list(state.discard)
    events = play(state, 0, EndTurn())
    (reshuffled,) = of_type(events, se.DeckReshuffled)
    assert reshuffled.count == len(old_discard)
    (drawn,) = of_type(events, se.CardsDrawn)
    assert drawn.count == 2 and names(state, drawn.cards)[0] == "Lithium"
    assert state.discard == [] and len(state.draw) == len(old_discard) - 1
    new_pile = state.draw + [drawn.cards[1]]  # bottom first, as the discard pile was
    assert sorted(new_pile) == sorted(old_discard) and new_pile != old_discard, "not shuffled"
    assert_conserved(state)


def test_draw_what_there_is_when_both_piles_are_empty():
    """SE4 Draw: if both piles are empty the player draws what there is (here 1, then 0)."""
    state = table(3, hands={0: [], 1: []}, draw=["Lithium"], leftovers=2)
    events = play(state, 0, EndTurn())
    assert of_type(events, se.CardsDrawn) == [se.CardsDrawn(seat=1, cards=(state.hands[1][0],), count=1)]
    assert hand_names(state, 1) == ["Lithium"] and state.draw == []
    events = play(state, 1, EndTurn())
    assert of_type(events, se.CardsDrawn) == [se.CardsDrawn(seat=2, cards=(), count=0)]
    assert not of_type(events, se.DeckReshuffled)
    assert state.current == 2


# --- the four plays (rulebook "ways you can play your cards", SE6, SE8) -----


def test_treat_puts_the_drug_on_its_matching_disorder():
    """Rulebook Treat a Disorder: a Drug that treats one of your Disorders goes on top of it."""
    state = table(3, psyches={0: ["Madness", "Anxiety"]}, hands={0: ["Chlorpromazine"]})
    drug, madness = card_id(state, 0, "Chlorpromazine"), disorder_id(state, 0, "Madness")
    assert Treat(drug, madness) in RULES.legal_moves(state, 0)
    events = play(state, 0, Treat(drug, madness))
    assert events == [se.DisorderTreated(seat=0, drug=drug, disorder=madness, target=0)]
    assert psyche_names(state, 0) == [("Madness", "Chlorpromazine"), "Anxiety"]
    assert drug not in state.hands[0] and state.plays_left == 1


def test_treat_refuses_the_wrong_disorder_and_a_treated_one():
    """Rulebook Treat: only the matching Disorder, and only an untreated one (one Drug per Disorder)."""
    state = table(
        3,
        psyches={0: [("Madness", "Chlorpromazine"), "Anxiety"]},
        hands={0: ["Chlorpromazine", "Lithium", "Episode"]},
    )
    drug = card_id(state, 0, "Chlorpromazine")
    with pytest.raises(IllegalMove, match="already treated"):
        RULES.check(state, 0, Treat(drug, disorder_id(state, 0, "Madness")))
    with pytest.raises(IllegalMove, match="treats Madness, not Anxiety"):
        RULES.check(state, 0, Treat(drug, disorder_id(state, 0, "Anxiety")))
    with pytest.raises(IllegalMove, match="not a Drug"):
        RULES.check(state, 0, Treat(card_id(state, 0, "Episode"), disorder_id(state, 0, "Anxiety")))
    assert not [m for m in RULES.legal_moves(state, 0) if isinstance(m, Treat)]


def test_treat_only_your_own_psyche_without_the_house_rule():
    """Rulebook Treat / SE11 off: you treat Disorders in *your* Psyche only."""
    state = table(3, psyches={1: ["Madness", "Anxiety"]}, hands={0: ["Chlorpromazine"]})
    with pytest.raises(IllegalMove, match="own Psyche"):
        RULES.check(state, 0, Treat(card_id(state, 0, "Chlorpromazine"), disorder_id(state, 1, "Madness")))


def test_give_disorder_needs_vulnerability_and_no_duplicate():
    """Rulebook Give a Disorder / SE6: only a Disorder on the target's Drugs' side-effect lists, never one they hold."""
    state = table(
        3,
        psyches={1: [("Madness", "Chlorpromazine"), "Anxiety"], 2: [("Anxiety", "Lorazepam"), "Madness"]},
        hands={0: ["Tremors", "Depression", "Madness"]},
    )
    tremors, depression, madness = (card_id(state, 0, n) for n in ("Tremors", "Depression", "Madness"))
    legal = RULES.legal_moves(state, 0)
    assert GiveDisorder(tremors, 1) in legal and GiveDisorder(depression, 2) in legal
    assert GiveDisorder(depression, 1) not in legal and GiveDisorder(tremors, 2) not in legal
    with pytest.raises(IllegalMove, match="not vulnerable to Depression"):
        RULES.check(state, 0, GiveDisorder(depression, 1))
    # Lorazepam causes Madness, but seat 2 already has it (treated or not, it counts).
    with pytest.raises(IllegalMove, match="already has Madness"):
        RULES.check(state, 0, GiveDisorder(madness, 2))
    events = play(state, 0, GiveDisorder(tremors, 1))
    assert events[0] == se.DisorderGiven(seat=0, card=tremors, target=1)
    assert psyche_names(state, 1) == [("Madness", "Chlorpromazine"), "Anxiety", "Tremors"]


def test_player_without_drugs_is_not_vulnerable():
    """Rulebook Give a Disorder: a player with no Drugs on their Psyche is not vulnerable to new Disorders."""
    state = table(3, psyches={1: ["Madness", "Anxiety"]}, hands={0: ["Tremors", "Depression", "Impotence"]})
    assert RULES.view(state, 0).players[1].vulnerable_to == ()
    assert not [m for m in RULES.legal_moves(state, 0) if isinstance(m, GiveDisorder) and m.target == 1]


def test_vulnerability_is_the_union_of_the_drugs_now_on_the_psyche():
    """SE6 Vulnerability: the union of the side-effect lists of the Drugs on the Psyche now, minus what is held."""
    state = table(
        3,
        psyches={1: [("Gambling Addiction", "Lithium"), ("Madness", "Chlorpromazine"), ("Anxiety", "Lorazepam")]},
    )
    vulnerable = RULES.view(state, 2).players[1].vulnerable_to
    # Lithium: Impotence; Chlorpromazine: Tremors; Lorazepam: Suicidal Thoughts, Depression, (Madness held).
    assert sorted(vulnerable) == ["Depression", "Impotence", "Suicidal Thoughts", "Tremors"]


def test_drug_discarded_by_madness_no_longer_counts():
    """SE6: a Drug discarded by a Madness Episode no longer makes the player vulnerable."""
    state = table(
        3,
        psyches={1: ["Madness", ("Anxiety", "Lorazepam")]},
        hands={0: ["Episode", "Suicidal Thoughts"]},
    )
    st = card_id(state, 0, "Suicidal Thoughts")
    assert GiveDisorder(st, 1) in RULES.legal_moves(state, 0)
    play(state, 0, PlayEpisode(card_id(state, 0, "Episode"), disorder_id(state, 1, "Madness")))
    assert GiveDisorder(st, 1) not in RULES.legal_moves(state, 0)
    with pytest.raises(IllegalMove, match="not vulnerable"):
        RULES.check(state, 0, GiveDisorder(st, 1))
    assert RULES.view(state, 0).players[1].vulnerable_to == ()


def test_therapy_removes_an_untreated_disorder_and_both_cards_are_discarded():
    """SE8 Therapy: removes one of your own untreated Disorders; the Disorder and the Therapy go to the discard pile."""
    state = table(3, psyches={0: ["Anorexia", "Madness"]}, hands={0: ["Therapy"]})
    therapy, anorexia = card_id(state, 0, "Therapy"), disorder_id(state, 0, "Anorexia")
    events = play(state, 0, PlayTherapy(therapy, anorexia))
    assert events[0] == se.TherapyUsed(seat=0, card=therapy, disorder=anorexia)
    assert psyche_names(state, 0) == ["Madness"]
    assert set(state.discard[-2:]) == {therapy, anorexia}
    assert state.plays_left == 1
    assert_conserved(state)


def test_therapy_does_not_work_on_tremors_or_a_treated_disorder():
    """SE8 Therapy: not on Tremors; only untreated Disorders; only your own."""
    state = table(
        3,
        psyches={0: ["Tremors", ("Madness", "Chlorpromazine")], 1: ["Anxiety"]},
        hands={0: ["Therapy"]},
    )
    therapy = card_id(state, 0, "Therapy")
    with pytest.raises(IllegalMove, match="Tremors"):
        RULES.check(state, 0, PlayTherapy(therapy, disorder_id(state, 0, "Tremors")))
    with pytest.raises(IllegalMove, match="already treated"):
        RULES.check(state, 0, PlayTherapy(therapy, disorder_id(state, 0, "Madness")))
    with pytest.raises(IllegalMove, match="own Psyche"):
        RULES.check(state, 0, PlayTherapy(therapy, disorder_id(state, 1, "Anxiety")))
    assert not [m for m in RULES.legal_moves(state, 0) if isinstance(m, PlayTherapy)]


def test_episode_only_on_another_players_untreated_disorder():
    """Rulebook Give someone an Episode / SE7: the target is another player's untreated Disorder."""
    state = table(
        3,
        psyches={0: ["Depression"], 1: [("Madness", "Chlorpromazine"), "Anxiety"], 2: ["Tremors"]},
        hands={0: ["Episode"]},
    )
    episode = card_id(state, 0, "Episode")
    plays = {m.disorder for m in RULES.legal_moves(state, 0) if isinstance(m, PlayEpisode)}
    assert plays == {disorder_id(state, 1, "Anxiety"), disorder_id(state, 2, "Tremors")}
    with pytest.raises(IllegalMove, match="another player"):
        RULES.check(state, 0, PlayEpisode(episode, disorder_id(state, 0, "Depression")))
    with pytest.raises(IllegalMove, match="treated"):
        RULES.check(state, 0, PlayEpisode(episode, disorder_id(state, 1, "Madness")))


# --- SE7 punishments --------------------------------------------------------


def _episode(state, target: int, disorder: str, seat: int = 0):
    return play(state, seat, PlayEpisode(card_id(state, seat, "Episode"), disorder_id(state, target, disorder)))


def test_madness_discards_every_drug_on_the_psyche():
    """SE7 Madness: the target discards every Drug on their Psyche; the Disorders stay, untreated."""
    state = table(
        3,
        psyches={1: ["Madness", ("Anxiety", "Lorazepam"), ("Depression", "Fluoxetine")]},
        hands={0: ["Episode"]},
    )
    drugs = {drug_on(state, 1, "Anxiety"), drug_on(state, 1, "Depression")}
    events = _episode(state, 1, "Madness")
    assert of_type(events, se.EpisodePlayed)[0].effective
    (lost,) = of_type(events, se.DrugsDiscarded)
    assert lost.seat == 1 and set(lost.cards) == drugs
    assert psyche_names(state, 1) == ["Madness", "Anxiety", "Depression"]
    assert drugs <= set(state.discard)
    assert_conserved(state)


def test_suicidal_thoughts_discards_the_whole_hand():
    """SE7 Suicidal Thoughts: the target discards their whole hand."""
    state = table(3, psyches={1: ["Suicidal Thoughts"]}, hands={0: ["Episode"], 1: ["Lithium", "Therapy", "Episode"]})
    hand = tuple(state.hands[1])
    events = _episode(state, 1, "Suicidal Thoughts")
    assert of_type(events, se.HandDiscarded) == [se.HandDiscarded(seat=1, cards=hand, reason="suicidal_thoughts")]
    assert state.hands[1] == [] and set(hand) <= set(state.discard)


def test_depression_skips_are_stacked():
    """SE7 Depression: the target skips their next turn entirely; repeated hits stack."""
    state = table(3, psyches={1: ["Depression", "Anxiety"]}, hands={0: ["Episode", "Episode"], 1: []})
    events = _episode(state, 1, "Depression") + _episode(state, 1, "Depression")
    assert of_type(events, se.SkipAdded) == [se.SkipAdded(seat=1, skips=1), se.SkipAdded(seat=1, skips=2)]
    # The second play ended seat 0's turn; seat 1 sits out (drawing nothing) and seat 2 plays.
    assert of_type(events, se.TurnSkipped) == [se.TurnSkipped(seat=1, skips_left=1)]
    assert state.current == 2 and state.hands[1] == []
    end_turn(state, 2)
    events = end_turn(state, 0)  # seat 1's second skipped turn
    assert of_type(events, se.TurnSkipped) == [se.TurnSkipped(seat=1, skips_left=0)]
    assert state.current == 2 and state.hands[1] == []
    end_turn(state, 2)
    end_turn(state, 0)
    assert state.current == 1 and len(state.hands[1]) == 2 and state.skips[1] == 0


def _tremors_table(hand_size: int, seconds: float = 3.0):
    hand = ["Lithium", "Therapy", "Clozapine", "Sildenafil", "Fluoxetine", "Lorazepam"][:hand_size]
    return table(
        3,
        psyches={0: ["Madness", "Depression"], 1: ["Tremors", "Anxiety"]},
        hands={0: ["Episode", "Episode", "Chlorpromazine"], 1: hand},
        options={"tremors_seconds": seconds},
    )


def test_tremors_is_a_timed_prompt_and_the_inflictors_turn_waits():
    """SE7 Tremors: the target picks 3 cards to discard within 3 seconds; the inflictor's turn waits for the answer."""
    state = _tremors_table(5)
    events = _episode(state, 1, "Tremors")
    assert of_type(events, se.TremorsStarted) == [se.TremorsStarted(seat=1, inflictor=0, count=3, seconds=3.0)]
    assert state.phase == se.TREMORS and RULES.waiting_for(state) == (1,)
    assert RULES.deadline(state) == Deadline(1, 3.0, "tremors", Timeout())
    assert set(RULES.legal_moves(state, 1)) == {Discard(c) for c in state.hands[1]}
    assert RULES.legal_moves(state, 0) == ()
    with pytest.raises(NotYourTurn):
        RULES.check(state, 0, EndTurn())
    view = RULES.view(state, 2)
    assert (view.prompt.kind, view.prompt.seat, view.prompt.inflictor, view.prompt.count) == ("tremors", 1, 0, 3)

    picks = [card_id(state, 1, n) for n in ("Lithium", "Therapy", "Clozapine")]
    for i, card in enumerate(picks):
        events = play(state, 1, Discard(card))
        assert events[0] == se.CardDiscarded(seat=1, card=card, reason="tremors")
        assert state.phase == (se.TREMORS if i < 2 else se.PLAY)
    assert hand_names(state, 1) == ["Fluoxetine", "Sildenafil"]
    # Back to the inflictor, who still has one play.
    assert state.current == 0 and state.plays_left == 1 and RULES.deadline(state) is None
    play(state, 0, Treat(card_id(state, 0, "Chlorpromazine"), disorder_id(state, 0, "Madness")))
    assert state.current == 1


def test_tremors_timeout_discards_the_whole_hand():
    """SE7 Tremors: if time runs out (the host applies Timeout) the target discards their whole hand."""
    state = _tremors_table(6)
    _episode(state, 1, "Tremors")
    play(state, 1, Discard(card_id(state, 1, "Lithium")))
    rest = tuple(state.hands[1])
    events = play(state, 1, RULES.deadline(state).timeout)
    assert events[0] == se.HandDiscarded(seat=1, cards=rest, reason="tremors")
    assert state.hands[1] == [] and state.phase == se.PLAY and state.current == 0


def test_tremors_with_three_or_fewer_cards_discards_the_hand_at_once():
    """SE7 Tremors: with 3 or fewer cards the whole hand goes at once, with no prompt."""
    state = _tremors_table(3)
    hand = tuple(state.hands[1])
    events = _episode(state, 1, "Tremors")
    assert of_type(events, se.HandDiscarded) == [se.HandDiscarded(seat=1, cards=hand, reason="tremors")]
    assert not of_type(events, se.TremorsStarted)
    assert state.phase == se.PLAY and state.hands[1] == [] and RULES.deadline(state) is None


def test_tremors_untimed_option_has_no_deadline():
    """SE7 Tremors: the time is an option; 0 waits for ever (no Deadline), the prompt still stands."""
    state = _tremors_table(5, seconds=0)
    _episode(state, 1, "Tremors")
    assert state.phase == se.TREMORS and RULES.deadline(state) is None


def test_tremors_on_the_second_play_ends_the_turn_after_the_answer():
    """SE7 Tremors / Rulebook Turns: the inflictor's turn waits, then ends because both plays are made."""
    state = _tremors_table(4)
    play(state, 0, Treat(card_id(state, 0, "Chlorpromazine"), disorder_id(state, 0, "Madness")))
    _episode(state, 1, "Tremors")
    assert state.current == 0 and state.phase == se.TREMORS
    play(state, 1, *[Discard(c) for c in list(state.hands[1])[:2]])
    assert state.phase == se.TREMORS
    events = play(state, 1, Discard(state.hands[1][0]))
    assert se.TurnEnded(seat=0) in events and state.current == 1 and len(state.hands[1]) == 3  # 1 left + 2 drawn


def _steal(seed: int, hand: list[str]):
    state = table(3, seed=seed, psyches={1: ["Gambling Addiction"]}, hands={0: ["Episode"], 1: hand})
    before = list(state.hands[1])
    events = _episode(state, 1, "Gambling Addiction")
    return state, before, events


def test_gambling_addiction_takes_three_at_random():
    """SE7 Gambling Addiction: the inflictor takes up to 3 cards from the target's hand at random."""
    hand = ["Lithium", "Therapy", "Clozapine", "Sildenafil", "Episode"]
    state, before, events = _steal(3, hand)
    (taken,) = of_type(events, se.CardsTaken)
    assert (taken.seat, taken.target, taken.count, taken.how) == (0, 1, 3, "random")
    assert set(taken.cards) <= set(before) and len(set(taken.cards)) == 3
    assert set(state.hands[0]) == set(taken.cards)
    assert sorted(state.hands[1]) == sorted(set(before) - set(taken.cards))
    # Only the two parties see which cards moved.
    assert RULES.redact(taken, 2) == se.CardsTaken(seat=0, target=1, cards=(), count=3, how="random")
    assert RULES.redact(taken, 1) == taken


def test_gambling_addiction_is_deterministic_by_seed_and_varies_across_seeds():
    """SE7 Gambling Addiction / SE3: 'at random' uses the state's seeded RNG."""
    hand = ["Lithium", "Therapy", "Clozapine", "Sildenafil", "Episode"]

    def stolen(seed):
        state, _before, events = _steal(seed, hand)
        return sorted(names(state, of_type(events, se.CardsTaken)[0].cards))

    assert stolen(5) == stolen(5)
    assert len({tuple(stolen(seed)) for seed in range(12)}) > 1


def test_gambling_addiction_takes_what_there_is():
    """SE7 Gambling Addiction: *up to* 3: a hand of 2 loses both."""
    state, before, events = _steal(0, ["Lithium", "Therapy"])
    (taken,) = of_type(events, se.CardsTaken)
    assert taken.count == 2 and set(taken.cards) == set(before) and state.hands[1] == []


def _anxiety_table():
    return table(
        3,
        psyches={1: ["Anxiety", "Madness"]},
        hands={0: ["Episode", "Episode"], 1: ["Lithium", "Therapy", "Clozapine"], 2: ["Fluoxetine"]},
    )


def test_anxiety_shows_the_hand_to_the_inflictor_only():
    """SE7 Anxiety: the target's hand is shown to the inflictor only (views and redacted events)."""
    state = _anxiety_table()
    hand = tuple(state.hands[1])
    events = _episode(state, 1, "Anxiety")
    (shown,) = of_type(events, se.HandShown)
    assert shown == se.HandShown(seat=0, target=1, cards=hand, count=3)
    for seat in (2, None):
        assert RULES.redact(shown, seat) == se.HandShown(seat=0, target=1, cards=(), count=3)
    assert RULES.redact(shown, 0).cards == hand

    assert state.phase == se.ANXIETY and RULES.waiting_for(state) == (0,) and RULES.deadline(state) is None
    assert RULES.view(state, 0).prompt.revealed == tuple(state.cards[c] for c in hand)
    for seat in (1, 2, None):
        prompt = RULES.view(state, seat).prompt
        assert prompt.kind == "anxiety" and prompt.target == 1 and prompt.revealed == ()


def test_anxiety_inflictor_may_take_one_card():
    """SE7 Anxiety: the inflictor may take 1 card of the shown hand (only one)."""
    state = _anxiety_table()
    _episode(state, 1, "Anxiety")
    assert set(RULES.legal_moves(state, 0)) == {TakeCard(c) for c in state.hands[1]} | {TakeNothing()}
    with pytest.raises(IllegalMove):
        RULES.check(state, 0, Discard(card_id(state, 0, "Episode")))
    therapy = card_id(state, 1, "Therapy")
    events = play(state, 0, TakeCard(therapy))
    assert events[0] == se.CardsTaken(seat=0, target=1, cards=(therapy,), count=1, how="chosen")
    assert therapy in state.hands[0] and hand_names(state, 1) == ["Clozapine", "Lithium"]
    assert state.phase == se.PLAY and state.plays_left == 1
    with pytest.raises(IllegalMove):
        RULES.check(state, 0, TakeCard(card_id(state, 1, "Lithium")))


def test_anxiety_inflictor_may_take_nothing():
    """SE7 Anxiety: taking a card is optional."""
    state = _anxiety_table()
    _episode(state, 1, "Anxiety")
    hands = [sorted(h) for h in state.hands]
    assert play(state, 0, TakeNothing()) == []
    assert [sorted(h) for h in state.hands] == hands and state.phase == se.PLAY and state.plays_left == 1


def test_impotence_blocks_plays_on_the_next_taken_turn():
    """SE7 Impotence: the target may not play cards on their next *taken* turn (a Depression skip does not use it up)."""
    state = table(
        3,
        psyches={1: ["Impotence", "Depression"]},
        hands={0: ["Episode", "Episode"], 1: ["Sildenafil", "Episode"]},
    )
    events = _episode(state, 1, "Impotence") + _episode(state, 1, "Depression")
    assert se.PlaysBlocked(seat=1) in events and se.TurnSkipped(seat=1, skips_left=0) in events
    assert state.current == 2 and state.no_play[1]
    end_turn(state, 2)
    events = end_turn(state, 0)
    assert se.PlaysPrevented(seat=1) in events and state.current == 1 and state.plays_left == 0
    sildenafil = card_id(state, 1, "Sildenafil")
    with pytest.raises(IllegalMove, match="Impotence"):
        RULES.check(state, 1, Treat(sildenafil, disorder_id(state, 1, "Impotence")))
    legal = RULES.legal_moves(state, 1)
    assert not [m for m in legal if isinstance(m, se.PLAY_TYPES)]
    assert Discard(sildenafil) in legal and EndTurn() in legal
    end_turn(state, 1)
    end_turn(state, 2)
    end_turn(state, 0)
    assert state.current == 1 and state.plays_left == 2  # only the one turn


def test_anorexia_skips_the_draw_of_the_next_turn():
    """SE7 Anorexia: the target does not draw on their next taken turn (and draws again after)."""
    state = table(3, psyches={1: ["Anorexia", "Madness"]}, hands={0: ["Episode"], 1: ["Lithium"]})
    events = _episode(state, 1, "Anorexia")
    assert se.DrawBlocked(seat=1) in events and state.no_draw[1]
    draw_size = len(state.draw)
    events = end_turn(state, 0)
    assert se.DrawPrevented(seat=1) in events and not of_type(events, se.CardsDrawn)
    assert hand_names(state, 1) == ["Lithium"] and len(state.draw) == draw_size
    assert state.plays_left == 2 and not state.no_draw[1]
    end_turn(state, 1)
    end_turn(state, 2)
    end_turn(state, 0)
    assert state.current == 1 and len(state.hands[1]) == 3


@pytest.mark.parametrize(
    "disorder, hand",
    [("Suicidal Thoughts", []), ("Madness", []), ("Gambling Addiction", []), ("Anxiety", []), ("Tremors", [])],
)
def test_episode_that_does_nothing_is_still_legal_and_spent(disorder, hand):
    """SE7: an Episode whose punishment would do nothing is still legal; the card is spent (effective=False)."""
    state = table(3, psyches={1: [disorder, "Depression"]}, hands={0: ["Episode", "Episode"], 1: hand})
    episode, target = card_id(state, 0, "Episode"), disorder_id(state, 1, disorder)
    assert PlayEpisode(episode, target) in RULES.legal_moves(state, 0)
    events = play(state, 0, PlayEpisode(episode, target))
    (played,) = of_type(events, se.EpisodePlayed)
    assert played.effective is False
    assert state.discard[-1] == episode and state.plays_left == 1 and state.phase == se.PLAY
    assert not of_type(events, se.HandDiscarded) and not of_type(events, se.DrugsDiscarded)


# --- SE9 winning ------------------------------------------------------------


def test_treating_the_last_disorder_wins_at_once():
    """SE9 Winning: right after a play that leaves no untreated Disorder, that player wins; the game is over."""
    state = table(
        3,
        psyches={0: [("Madness", "Chlorpromazine"), "Anxiety"]},
        hands={0: ["Lorazepam", "Episode"]},
    )
    events = play(state, 0, Treat(card_id(state, 0, "Lorazepam"), disorder_id(state, 0, "Anxiety")))
    assert events[-2:] == [se.PlayerWon(seat=0, place=1), se.GameEnded(winners=(0,), loser=-1)]
    outcome = RULES.outcome(state)
    assert outcome.winners == (0,) and outcome.places == (1, 2, 2)
    assert RULES.waiting_for(state) == () and all(RULES.legal_moves(state, s) == () for s in range(3))
    assert RULES.view(state, 1).outcome == outcome
    with pytest.raises(GameOver):
        RULES.check(state, 0, EndTurn())


def test_treating_with_disorders_left_does_not_win():
    """SE9 Winning: a player with an untreated Disorder left has not won."""
    state = table(3, psyches={0: ["Madness", "Anxiety"]}, hands={0: ["Lorazepam"]})
    play(state, 0, Treat(card_id(state, 0, "Lorazepam"), disorder_id(state, 0, "Anxiety")))
    assert not state.over and RULES.outcome(state) is None


@pytest.mark.parametrize("psyche", [["Anorexia"], [("Madness", "Chlorpromazine"), "Anorexia"]])
def test_therapy_can_win(psyche):
    """SE9 Winning: the Psyche left with no untreated Disorder by Therapy (even emptied) wins."""
    state = table(3, psyches={0: psyche}, hands={0: ["Therapy"]})
    events = play(state, 0, PlayTherapy(card_id(state, 0, "Therapy"), disorder_id(state, 0, "Anorexia")))
    assert se.PlayerWon(seat=0, place=1) in events and state.over
    assert RULES.outcome(state).winners == (0,)


def test_until_one_loser_plays_on_without_the_winners():
    """SE9 option "until one loser": winners leave with their place (hand discarded); play goes on until one is left."""
    state = table(
        4,
        psyches={0: ["Madness"], 1: ["Anxiety", "Depression"], 2: ["Impotence"], 3: ["Tremors", "Madness"]},
        hands={0: ["Chlorpromazine", "Episode"], 1: ["Lorazepam", "Fluoxetine"], 2: ["Sildenafil"], 3: []},
        options={"until_one_loser": True},
    )
    episode = card_id(state, 0, "Episode")
    events = play(state, 0, Treat(card_id(state, 0, "Chlorpromazine"), disorder_id(state, 0, "Madness")))
    assert (
        se.PlayerWon(seat=0, place=1) in events and se.HandDiscarded(seat=0, cards=(episode,), reason="won") in events
    )
    assert not state.over and state.hands[0] == [] and state.places[0] == 1
    assert state.current == 1 and RULES.legal_moves(state, 0) == ()
    with pytest.raises(NotYourTurn, match="won"):
        RULES.check(state, 0, EndTurn())

    play(state, 1, EndTurn())
    play(state, 2, Treat(card_id(state, 2, "Sildenafil"), disorder_id(state, 2, "Impotence")))
    assert state.places[2] == 2 and not state.over and state.current == 3
    play(state, 3, EndTurn())
    assert state.current == 1  # seats 0 and 2 have left the rotation
    play(state, 1, Treat(card_id(state, 1, "Lorazepam"), disorder_id(state, 1, "Anxiety")))
    events = play(state, 1, Treat(card_id(state, 1, "Fluoxetine"), disorder_id(state, 1, "Depression")))
    assert events[-2:] == [se.PlayerWon(seat=1, place=3), se.GameEnded(winners=(0,), loser=3)]
    outcome = RULES.outcome(state)
    assert outcome.places == (1, 3, 2, 4) and outcome.winners == (0,) and outcome.ranking == (0, 2, 1, 3)
    assert_conserved(state)


# --- SE10 bargaining --------------------------------------------------------


def _trade_table():
    return table(
        3,
        hands={0: ["Lithium", "Episode"], 1: ["Clozapine", "Therapy"], 2: ["Fluoxetine"]},
    )


def test_offer_and_accept_swaps_the_cards_and_is_not_a_play():
    """SE10 Bargaining: any player may offer another a trade; the other accepts; trades are never plays."""
    state = _trade_table()
    clozapine, lithium = card_id(state, 1, "Clozapine"), card_id(state, 0, "Lithium")
    events = play(state, 1, OfferTrade(0, (clozapine,), ("Lithium",)))  # not seat 1's turn
    assert events == [se.TradeOffered(offer=1, seat=1, to=0, give=(clozapine,), want=("Lithium",))]
    assert AcceptTrade(1) in RULES.legal_moves(state, 0) and DeclineTrade(1) in RULES.legal_moves(state, 0)
    assert WithdrawTrade(1) in RULES.legal_moves(state, 1)
    events = play(state, 0, AcceptTrade(1))
    assert events == [se.TradeAccepted(offer=1, seat=1, to=0, gave=(clozapine,), got=(lithium,), count=2)]
    assert hand_names(state, 0) == ["Clozapine", "Episode"] and hand_names(state, 1) == ["Lithium", "Therapy"]
    assert state.plays_left == 2 and state.current == 0 and state.offers == {}


def test_a_gift_needs_nothing_back_and_cannot_be_played_off_turn():
    """SE10: one side may be empty (a gift); cards received off-turn are not put into play."""
    state = _trade_table()
    episode = card_id(state, 0, "Episode")
    play(state, 0, OfferTrade(2, (episode,), ()))
    play(state, 2, AcceptTrade(1))
    assert hand_names(state, 2) == ["Episode", "Fluoxetine"]
    target = state.psyche[1][0].disorder
    with pytest.raises(NotYourTurn):
        RULES.check(state, 2, PlayEpisode(episode, target))


def test_decline_and_withdraw_close_the_offer():
    """SE10: the other player may decline; the offerer may withdraw; the cards stay put."""
    state = _trade_table()
    hands = [sorted(h) for h in state.hands]
    play(state, 1, OfferTrade(0, (card_id(state, 1, "Therapy"),), ()))
    play(state, 2, OfferTrade(0, (), ("Episode",)))
    assert play(state, 0, DeclineTrade(1)) == [se.TradeClosed(offer=1, seat=1, to=0, how="declined")]
    assert play(state, 2, WithdrawTrade(2)) == [se.TradeClosed(offer=2, seat=2, to=0, how="withdrawn")]
    assert state.offers == {} and [sorted(h) for h in state.hands] == hands
    with pytest.raises(IllegalMove):
        RULES.check(state, 0, AcceptTrade(1))


def test_offer_lapses_when_either_hand_changes():
    """SE10: an offer lapses when either hand changes (here the recipient's free discard)."""
    state = _trade_table()
    play(state, 1, OfferTrade(0, (card_id(state, 1, "Therapy"),), ("Lithium",)))
    play(state, 1, OfferTrade(2, (card_id(state, 1, "Clozapine"),), ()))
    events = play(state, 0, Discard(card_id(state, 0, "Episode")))
    assert se.TradeClosed(offer=1, seat=1, to=0, how="lapsed") in events
    assert set(state.offers) == {2}  # seat 1's and seat 2's hands did not change
    with pytest.raises(IllegalMove, match="no open trade offer 1"):
        RULES.check(state, 0, AcceptTrade(1))


def test_accept_needs_the_wanted_cards():
    """SE10: the recipient can accept only while holding the cards asked for."""
    state = _trade_table()
    play(state, 1, OfferTrade(0, (), ("Therapy",)))
    assert AcceptTrade(1) not in RULES.legal_moves(state, 0)
    with pytest.raises(IllegalMove, match="Therapy"):
        RULES.check(state, 0, AcceptTrade(1))


def test_trading_is_closed_during_a_prompt():
    """SE10 / SE7: while a Tremors prompt is open no offer may be made, answered or withdrawn."""
    state = _tremors_table(5)
    play(state, 2, OfferTrade(1, (), ("Lithium",)))
    _episode(state, 1, "Tremors")
    assert state.phase == se.TREMORS and 1 in state.offers
    for seat, move in [(2, OfferTrade(1, (), ("Therapy",))), (1, AcceptTrade(1)), (1, DeclineTrade(1)),
                       (2, WithdrawTrade(1))]:  # fmt: skip
        with pytest.raises(IllegalMove, match="Trading waits"):
            RULES.check(state, seat, move)
    assert RULES.legal_moves(state, 2) == ()


def test_offer_details_are_private_to_the_two_parties():
    """SE10: an offer's cards are seen by the two parties only (events and views)."""
    state = _trade_table()
    clozapine = card_id(state, 1, "Clozapine")
    (offered,) = play(state, 1, OfferTrade(0, (clozapine,), ("Lithium",)))
    for seat in (0, 1):
        assert RULES.redact(offered, seat) == offered
        assert [(o.id, o.give, o.want) for o in RULES.view(state, seat).offers] == [
            (1, (state.cards[clozapine],), ("Lithium",))
        ]
    for seat in (2, None):
        assert RULES.redact(offered, seat) == se.TradeOffered(offer=1, seat=1, to=0, give=(), want=())
        assert RULES.view(state, seat).offers == ()
    (accepted,) = play(state, 0, AcceptTrade(1))
    assert RULES.redact(accepted, 2) == se.TradeAccepted(offer=1, seat=1, to=0, gave=(), got=(), count=2)
    assert RULES.redact(accepted, 1) == accepted


# --- SE11 house rules -------------------------------------------------------


def test_duplicate_house_rule_allows_giving_a_held_disorder():
    """SE11 duplicates: with the house rule, a vulnerable player can be given a Disorder they already hold."""
    psyches = {1: [("Madness", "Chlorpromazine"), "Tremors"]}
    plain = table(3, psyches=psyches, hands={0: ["Tremors"]})
    with pytest.raises(IllegalMove, match="already has Tremors"):
        RULES.check(plain, 0, GiveDisorder(card_id(plain, 0, "Tremors"), 1))
    house = table(3, psyches=psyches, hands={0: ["Tremors"]}, options={"duplicate_disorders": True})
    tremors = card_id(house, 0, "Tremors")
    assert GiveDisorder(tremors, 1) in RULES.legal_moves(house, 0)
    play(house, 0, GiveDisorder(tremors, 1))
    assert psyche_names(house, 1) == [("Madness", "Chlorpromazine"), "Tremors", "Tremors"]


def test_treat_others_house_rule_and_it_can_make_them_win():
    """SE11 treating another's Disorder: your Drug may treat their Disorder, and if it was their last, *they* win."""
    psyches = {0: ["Anxiety"], 1: ["Madness", ("Anxiety", "Lorazepam")]}
    plain = table(3, psyches=psyches, hands={0: ["Chlorpromazine"]})
    drug = card_id(plain, 0, "Chlorpromazine")
    assert Treat(drug, disorder_id(plain, 1, "Madness")) not in RULES.legal_moves(plain, 0)

    house = table(3, psyches=psyches, hands={0: ["Chlorpromazine"]}, options={"treat_others": True})
    drug, madness = card_id(house, 0, "Chlorpromazine"), disorder_id(house, 1, "Madness")
    assert Treat(drug, madness) in RULES.legal_moves(house, 0)
    events = play(house, 0, Treat(drug, madness))
    assert events[0] == se.DisorderTreated(seat=0, drug=drug, disorder=madness, target=1)
    assert events[-2:] == [se.PlayerWon(seat=1, place=1), se.GameEnded(winners=(1,), loser=-1)]
    assert RULES.outcome(house).winners == (1,)


# --- SE12 bonus cards -------------------------------------------------------

BONUS = {"bonus_cards": True}


def test_misdiagnosis_swaps_untreated_disorders():
    """SE12 Misdiagnosis: swap one untreated Disorder of yours with another player's untreated Disorder; it is a play."""
    state = table(
        3,
        psyches={0: ["Madness", "Anxiety"], 1: ["Depression", ("Tremors", "Pramipexole")]},
        hands={0: ["Misdiagnosis", "Misdiagnosis"]},
        options=BONUS,
    )
    card = card_id(state, 0, "Misdiagnosis")
    mine, theirs = disorder_id(state, 0, "Madness"), disorder_id(state, 1, "Depression")
    events = play(state, 0, PlayMisdiagnosis(card, mine, theirs))
    assert events[0] == se.MisdiagnosisPlayed(seat=0, card=card, mine=mine, target=1, theirs=theirs)
    assert psyche_names(state, 0) == ["Depression", "Anxiety"]
    assert psyche_names(state, 1) == ["Madness", ("Tremors", "Pramipexole")]
    assert state.discard[-1] == card and state.plays_left == 1
    with pytest.raises(IllegalMove, match="untreated"):
        second = card_id(state, 0, "Misdiagnosis")
        RULES.check(state, 0, PlayMisdiagnosis(second, theirs, disorder_id(state, 1, "Tremors")))


def test_misdiagnosis_refuses_a_swap_that_makes_a_duplicate():
    """SE12 Misdiagnosis: no duplicates may result on either Psyche."""
    state = table(
        3,
        psyches={0: ["Madness", "Anxiety"], 1: ["Anxiety", "Depression"]},
        hands={0: ["Misdiagnosis"]},
        options=BONUS,
    )
    card = card_id(state, 0, "Misdiagnosis")
    mad, anx0 = disorder_id(state, 0, "Madness"), disorder_id(state, 0, "Anxiety")
    anx1, dep = disorder_id(state, 1, "Anxiety"), disorder_id(state, 1, "Depression")
    for mine, theirs in [(mad, anx1), (anx0, dep)]:
        with pytest.raises(IllegalMove, match="same Disorder twice"):
            RULES.check(state, 0, PlayMisdiagnosis(card, mine, theirs))
    legal = {(m.mine, m.theirs) for m in RULES.legal_moves(state, 0) if isinstance(m, PlayMisdiagnosis)}
    assert (mad, dep) in legal and (mad, anx1) not in legal and (anx0, dep) not in legal


def test_high_tolerance_discards_a_drug_and_the_disorder_is_untreated():
    """SE12 High Tolerance: discard one Drug from another player's Psyche; that Disorder is untreated again."""
    state = table(
        3,
        psyches={0: [("Anxiety", "Lorazepam")], 1: [("Madness", "Chlorpromazine"), "Anxiety"]},
        hands={0: ["High Tolerance", "Tremors"]},
        options=BONUS,
    )
    card, drug = card_id(state, 0, "High Tolerance"), drug_on(state, 1, "Madness")
    with pytest.raises(IllegalMove, match="another player"):
        RULES.check(state, 0, PlayHighTolerance(card, drug_on(state, 0, "Anxiety")))
    assert RULES.view(state, 0).players[1].vulnerable_to == ("Tremors",)
    events = play(state, 0, PlayHighTolerance(card, drug))
    assert events[0] == se.HighTolerancePlayed(seat=0, card=card, target=1, drug=drug)
    assert psyche_names(state, 1) == ["Madness", "Anxiety"]
    assert state.discard[-2:] == [card, drug] and state.plays_left == 1
    assert RULES.view(state, 0).players[1].vulnerable_to == ()
    with pytest.raises(IllegalMove, match="not vulnerable"):
        RULES.check(state, 0, GiveDisorder(card_id(state, 0, "Tremors"), 1))


def test_bonus_cards_are_off_by_default():
    """SE12: the bonus cards are an option, off by default."""
    assert se.SEOptions().bonus_cards is False
    state = RULES.new_game(seats=3, seed=0)
    assert not {"Misdiagnosis", "High Tolerance"} & {c.name for c in state.cards}
    with pytest.raises(ValueError, match="Misdiagnosis"):
        table(3, hands={0: ["Misdiagnosis"]})


# --- views ------------------------------------------------------------------


def _cards_in(value, out: set[int]) -> set[int]:
    """Every SECard id anywhere inside a view."""
    if isinstance(value, SECard):
        out.add(value.id)
    elif is_dataclass(value) and not isinstance(value, type):
        for f in fields(value):
            _cards_in(getattr(value, f.name), out)
    elif isinstance(value, (tuple, list)):
        for v in value:
            _cards_in(v, out)
    return out


def test_view_shows_your_hand_and_only_the_size_of_others():
    """Views (hidden information): you see your own hand; of other hands only their size."""
    state = table(3, hands={0: ["Lithium", "Episode"], 1: ["Therapy", "Clozapine", "Madness"], 2: ["Fluoxetine"]})
    for seat in range(3):
        view = RULES.view(state, seat)
        assert sorted(c.id for c in view.hand) == sorted(state.hands[seat])
        assert [p.hand_size for p in view.players] == [2, 3, 1]
        seen = _cards_in(view, set())
        hidden = {c for s in range(3) if s != seat for c in state.hands[s]}
        assert not seen & hidden, f"seat {seat} sees another hand"


def test_spectator_sees_no_hand_no_moves_no_offers():
    """Views: a spectator (seat None) gets public information only: no hand, no legal moves, no offers."""
    state = _trade_table()
    play(state, 1, OfferTrade(0, (card_id(state, 1, "Therapy"),), ()))
    view = RULES.view(state, None)
    assert view.seat is None and view.hand == () and view.legal == () and view.offers == ()
    assert [p.hand_size for p in view.players] == [2, 2, 1]
    assert not _cards_in(view, set()) & {c for h in state.hands for c in h}


def test_legal_moves_appear_in_the_view():
    """Views: each seat's view carries exactly its legal moves (none for seats not to act)."""
    state = table(3, psyches={0: ["Madness"], 1: ["Anxiety"]}, hands={0: ["Chlorpromazine", "Episode"]})
    assert RULES.view(state, 0).legal == RULES.legal_moves(state, 0)
    assert Treat(card_id(state, 0, "Chlorpromazine"), disorder_id(state, 0, "Madness")) in RULES.view(state, 0).legal
    assert RULES.view(state, 1).legal == () and RULES.view(state, 2).legal == ()
    assert RULES.view(state, 0).waiting_for == (0,)


def test_legal_moves_are_in_the_documented_order():
    """Legal-move order (module docstring): plays, then Discard by hand order, then EndTurn, then trade answers."""
    state = table(
        3,
        psyches={0: ["Madness"], 1: ["Anxiety"]},
        hands={0: ["Episode", "Chlorpromazine", "Lithium"], 1: ["Therapy"]},
    )
    play(state, 1, OfferTrade(0, (card_id(state, 1, "Therapy"),), ()))
    legal = RULES.legal_moves(state, 0)
    kinds = [type(m) for m in legal]
    first_discard = kinds.index(Discard)
    assert all(k in se.PLAY_TYPES for k in kinds[:first_discard]) and first_discard > 0
    assert legal[first_discard : first_discard + 3] == tuple(Discard(c) for c in state.hands[0])
    assert legal[first_discard + 3 :] == (EndTurn(), AcceptTrade(1), DeclineTrade(1))


def test_episode_bites_only_when_its_punishment_has_something_to_take():
    """SE7 and its ruling: an Episode on a player with nothing for it to act on
    does nothing (the table warns first); a second Impotence or Anorexia
    before that turn adds nothing."""
    bites = se.episode_bites
    facts = dict(drugs=0, hand=0, no_play=False, no_draw=False)
    assert not bites("discard_drugs", **facts) and bites("discard_drugs", **{**facts, "drugs": 1})
    for punishment in ("discard_hand", "tremors", "random_steal", "reveal_and_take"):
        assert not bites(punishment, **facts) and bites(punishment, **{**facts, "hand": 2})
    assert bites("no_play", **facts) and not bites("no_play", **{**facts, "no_play": True})
    assert bites("no_draw", **facts) and not bites("no_draw", **{**facts, "no_draw": True})
    assert bites("skip_turn", **facts)


def test_the_view_names_who_may_be_offered_a_trade():
    """SE10: trading happens in the PLAY phase with players still in the game;
    the view lists them, so a table need not judge it."""
    state = RULES.new_game(seats=3, seed=4)
    me = state.current
    others = tuple(s for s in range(3) if s != me)
    assert RULES.view(state, me).trade_partners == others
    assert RULES.view(state, None).trade_partners == ()
    state.places[others[0]] = 1
    assert RULES.view(state, me).trade_partners == (others[1],)
    state.phase = se.TREMORS
    assert RULES.view(state, me).trade_partners == ()
