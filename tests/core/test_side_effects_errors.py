"""Bad moves in Side Effects: refused with the typed error, a plain sentence, and no change.

The contract (core.rules, STYLE lessons 3-4): every move is either accepted
or refused with MalformedMove, NotYourTurn, IllegalMove or GameOver; the
message is a sentence; ``check`` and a refused ``apply`` leave the state
exactly as it was (every field, the RNG included). And ``check`` agrees with
``legal_moves``: a move passes ``check`` if and only if it is listed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest

from quackbox.core import side_effects as se
from quackbox.core.rules import NONE, Event, GameOver, IllegalMove, MalformedMove, Move, NotYourTurn, RulesError
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
from tests.core.se_helpers import assert_conserved, card_id, disorder_id, drug_on, play, snapshot, table


def refused(state, seat, move, error: type[RulesError], match: str = "") -> str:
    """Assert ``move`` is refused with exactly ``error`` by check and apply, changing nothing."""
    before = snapshot(state)
    with pytest.raises(RulesError) as caught:
        RULES.check(state, seat, move)
    assert type(caught.value) is error, f"{move!r}: {type(caught.value).__name__}: {caught.value}"
    assert snapshot(state) == before, f"check({move!r}) changed the state"
    with pytest.raises(error):
        RULES.apply(state, seat, move)
    assert snapshot(state) == before, f"a refused apply({move!r}) changed the state"
    message = str(caught.value)
    assert _sentence(message), f"not a plain sentence: {message!r}"
    assert match.lower() in message.lower(), f"{message!r} does not mention {match!r}"
    return message


def _sentence(message: str) -> bool:
    """One line of words ending in a full stop (it may open with the quoted bad input)."""
    return "\n" not in message and message.endswith(".") and len(message.split()) >= 3


def _basic():
    return table(
        3,
        psyches={0: ["Madness", "Anxiety"], 1: [("Madness", "Chlorpromazine"), "Depression"], 2: ["Tremors"]},
        hands={0: ["Chlorpromazine", "Episode", "Tremors", "Therapy"], 1: ["Lorazepam", "Episode"], 2: ["Lithium"]},
    )


# --- who may move -----------------------------------------------------------


def test_wrong_seat_is_not_your_turn():
    """quackbox.core.rules NotYourTurn: only the current seat plays, discards or ends the turn."""
    state = _basic()
    refused(state, 1, EndTurn(), NotYourTurn, "seat 1's turn")
    refused(state, 1, Discard(card_id(state, 1, "Episode")), NotYourTurn)
    refused(state, 1, PlayEpisode(card_id(state, 1, "Episode"), disorder_id(state, 0, "Madness")), NotYourTurn)
    refused(state, 2, TakeNothing(), NotYourTurn)


def test_wrong_seat_during_prompts_is_not_your_turn():
    """SE7: during Tremors only the target answers; during Anxiety only the inflictor."""
    tremors = table(
        3,
        psyches={0: ["Madness", "Anxiety"], 1: ["Tremors", "Anxiety"]},
        hands={0: ["Episode", "Lithium"], 1: ["Lithium", "Therapy", "Clozapine", "Sildenafil"]},
    )
    play(tremors, 0, PlayEpisode(card_id(tremors, 0, "Episode"), disorder_id(tremors, 1, "Tremors")))
    assert tremors.phase == se.TREMORS
    refused(tremors, 0, Discard(card_id(tremors, 0, "Lithium")), NotYourTurn, "Tremors")
    refused(tremors, 2, Discard(tremors.hands[2][0]), NotYourTurn)

    anxiety = table(3, psyches={1: ["Anxiety", "Madness"]}, hands={0: ["Episode"], 1: ["Lithium"]})
    play(anxiety, 0, PlayEpisode(card_id(anxiety, 0, "Episode"), disorder_id(anxiety, 1, "Anxiety")))
    assert anxiety.phase == se.ANXIETY
    refused(anxiety, 1, TakeNothing(), NotYourTurn)
    refused(anxiety, 1, TakeCard(card_id(anxiety, 1, "Lithium")), NotYourTurn)


def test_a_player_who_has_won_may_not_move():
    """SE9 until one loser: a seat that won has left the game; its moves are NotYourTurn."""
    state = _one_winner()
    refused(state, 0, EndTurn(), NotYourTurn, "won")
    refused(state, 0, OfferTrade(1, (), ("Lithium",)), NotYourTurn, "won")


# --- cards and targets ------------------------------------------------------


def test_card_not_in_hand():
    """Rulebook: you play cards from your own hand; naming any other card is IllegalMove."""
    state = _basic()
    in_other_hand = card_id(state, 1, "Episode")
    in_draw = state.draw[-1]
    refused(state, 0, Discard(in_other_hand), IllegalMove, "not in your hand")
    refused(state, 0, Discard(in_draw), IllegalMove, "not in your hand")
    refused(state, 0, Discard(len(state.cards)), IllegalMove, f"no card {len(state.cards)}")
    refused(state, 0, Discard(-1), IllegalMove, "no card -1")
    refused(state, 0, Treat(card_id(state, 1, "Lorazepam"), disorder_id(state, 0, "Anxiety")), IllegalMove)
    refused(state, 0, PlayEpisode(in_other_hand, disorder_id(state, 2, "Tremors")), IllegalMove, "not in your hand")


def test_card_of_the_wrong_kind():
    """Rulebook plays: each play needs its kind of card (Drug, Disorder, Therapy, Episode)."""
    state = _basic()
    episode, therapy, tremors = (card_id(state, 0, n) for n in ("Episode", "Therapy", "Tremors"))
    refused(state, 0, Treat(episode, disorder_id(state, 0, "Madness")), IllegalMove, "not a Drug")
    refused(state, 0, GiveDisorder(therapy, 1), IllegalMove, "not a Disorder")
    refused(state, 0, PlayTherapy(episode, disorder_id(state, 0, "Anxiety")), IllegalMove, "not Therapy")
    refused(state, 0, PlayEpisode(tremors, disorder_id(state, 2, "Tremors")), IllegalMove, "not an Episode")


@pytest.mark.parametrize("target", [0, -1, 3, 99])
def test_give_disorder_needs_another_seat_at_the_table(target):
    """Rulebook Give a Disorder: the target is *another* player at the table."""
    state = _basic()
    message = refused(state, 0, GiveDisorder(card_id(state, 0, "Tremors"), target), IllegalMove)
    # Seats are named as people count them, from 1.
    assert ("another player" in message) if target == 0 else (f"no seat {target + 1} " in message)


def test_disorder_targets_must_be_on_a_psyche():
    """SE7/SE8: Treat, Therapy and Episode name a Disorder on a Psyche; other ids are IllegalMove."""
    state = _basic()
    episode = card_id(state, 0, "Episode")
    refused(state, 0, PlayEpisode(episode, disorder_id(state, 0, "Anxiety")), IllegalMove, "another player")
    refused(state, 0, PlayEpisode(episode, state.draw[0]), IllegalMove, "not a Disorder on anyone's Psyche")
    refused(state, 0, PlayEpisode(episode, drug_on(state, 1, "Madness")), IllegalMove)
    refused(state, 0, PlayEpisode(episode, -5), IllegalMove, "no card -5")
    refused(state, 0, PlayTherapy(card_id(state, 0, "Therapy"), 10_000), IllegalMove, "no card 10000")


def _one_winner():
    """Seat 0 has won under "until one loser"; seat 1 is to play and holds what could hit seat 0."""
    state = table(
        3,
        psyches={0: ["Madness"], 1: ["Anxiety", "Depression"], 2: ["Impotence", "Depression"]},
        hands={0: ["Chlorpromazine"], 1: ["Tremors", "Episode", "High Tolerance", "Misdiagnosis"], 2: []},
        options={"until_one_loser": True, "bonus_cards": True},
    )
    play(state, 0, Treat(card_id(state, 0, "Chlorpromazine"), disorder_id(state, 0, "Madness")))
    assert state.places[0] == 1 and state.current == 1 and not state.over
    return state


def test_a_finished_player_is_no_target():
    """SE9 until one loser: a winner has left the rotation; no card may target them."""
    state = _one_winner()
    drug = drug_on(state, 0, "Madness")
    refused(state, 1, GiveDisorder(card_id(state, 1, "Tremors"), 0), IllegalMove, "won")
    refused(state, 1, PlayHighTolerance(card_id(state, 1, "High Tolerance"), drug), IllegalMove, "won")
    refused(state, 1, OfferTrade(0, (card_id(state, 1, "Episode"),), ()), IllegalMove, "won")
    refused(state, 1, PlayEpisode(card_id(state, 1, "Episode"), disorder_id(state, 0, "Madness")), IllegalMove)


def test_move_after_the_game_ended_is_game_over():
    """SE9 / core.rules GameOver: once someone has won, every move of every seat is GameOver."""
    state = table(3, psyches={0: ["Anorexia"]}, hands={0: ["Therapy", "Episode"], 1: ["Lithium"]})
    play(state, 0, PlayTherapy(card_id(state, 0, "Therapy"), disorder_id(state, 0, "Anorexia")))
    assert state.over
    for seat, move in [
        (0, EndTurn()),
        (0, Discard(card_id(state, 0, "Episode"))),
        (1, EndTurn()),
        (1, OfferTrade(2, (card_id(state, 1, "Lithium"),), ())),
        (2, Timeout()),
        (1, AcceptTrade(1)),
    ]:
        refused(state, seat, move, GameOver, "over")


# --- moves that do not fit the moment --------------------------------------


def test_moves_out_of_their_phase():
    """SE5/SE7: prompt answers only during their prompt; plays and EndTurn not during one."""
    state = _basic()
    refused(state, 0, TakeCard(card_id(state, 1, "Episode")), IllegalMove, "no shown hand")
    refused(state, 0, TakeNothing(), IllegalMove)
    refused(state, 0, Timeout(), IllegalMove, "Tremors")

    big = table(3, psyches={0: ["Madness", "Anxiety"]}, hands={0: ["Chlorpromazine"] + ["Episode"] * 6})
    play(big, 0, EndTurn())
    assert big.phase == se.DISCARD_DOWN
    refused(big, 0, EndTurn(), IllegalMove, "discard down to 6")
    refused(big, 0, Treat(card_id(big, 0, "Chlorpromazine"), disorder_id(big, 0, "Madness")), IllegalMove)
    refused(big, 0, OfferTrade(1, (card_id(big, 0, "Episode"),), ()), IllegalMove, "Trading waits")


def test_no_third_play_and_no_play_when_impotent():
    """Rulebook Turns / SE7 Impotence: no play once none are left."""
    state = table(
        3,
        psyches={0: ["Madness", "Anxiety", "Depression"]},
        hands={0: ["Chlorpromazine", "Lorazepam", "Fluoxetine"]},
    )
    state.plays_left = 0  # as after two plays, had the turn not passed
    refused(state, 0, Treat(card_id(state, 0, "Fluoxetine"), disorder_id(state, 0, "Depression")), IllegalMove,
            "2 plays")  # fmt: skip
    state.impotent = True
    refused(state, 0, Treat(card_id(state, 0, "Fluoxetine"), disorder_id(state, 0, "Depression")), IllegalMove,
            "Impotence")  # fmt: skip


def test_bad_trade_offers_and_answers():
    """SE10: an offer needs cards, from your own hand, named once, for cards of this deck; answers only by the parties."""
    state = table(3, hands={0: ["Lithium", "Episode"], 1: ["Clozapine"], 2: ["Therapy"]})
    lithium = card_id(state, 0, "Lithium")
    refused(state, 0, OfferTrade(1, (), ()), IllegalMove, "at least one card")
    refused(state, 0, OfferTrade(1, (lithium, lithium), ()), IllegalMove, "twice")
    refused(state, 0, OfferTrade(1, (card_id(state, 1, "Clozapine"),), ()), IllegalMove, "not in your hand")
    refused(state, 0, OfferTrade(1, (), ("Aspirin",)), IllegalMove, "no card called 'Aspirin'")
    refused(state, 0, OfferTrade(0, (lithium,), ()), IllegalMove, "another player")
    refused(state, 0, OfferTrade(3, (lithium,), ()), IllegalMove, "no seat 4")
    play(state, 0, OfferTrade(1, (lithium,), ()))
    refused(state, 2, AcceptTrade(1), IllegalMove, "not made to you")
    refused(state, 2, DeclineTrade(1), IllegalMove, "not made to you")
    refused(state, 1, WithdrawTrade(1), IllegalMove, "not yours")
    refused(state, 1, AcceptTrade(7), IllegalMove, "no open trade offer 7")
    play(state, 0, OfferTrade(2, (lithium,), ()), OfferTrade(2, (), ("Therapy",)))
    refused(state, 0, OfferTrade(1, (), ("Therapy",)), IllegalMove, "3 open offers")


# --- malformed --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class QuackPlay(Move):
    """A move of another game (shaped like a Side Effects one)."""

    card: int


@dataclass(frozen=True, slots=True)
class SneakyEndTurn(se.EndTurn):
    """A subclass of a real move: not a move of this game either."""


def _other_games_moves() -> list[Move]:
    """Moves of Quack in the Box, when it is there: the same names, another game."""
    try:
        from quackbox.core import quack
    except ImportError:  # pragma: no cover - only while the second game is being built
        return []
    return [quack.Discard(3), quack.Timeout(0), quack.Pass(), quack.PlayTreatment(3)]


MALFORMED = _other_games_moves() + [
    Discard(True),
    Discard("3"),
    Discard(1.0),
    Discard(None),
    Treat(1, "2"),
    Treat(False, 2),
    GiveDisorder(1, True),
    GiveDisorder(1, 1.0),
    PlayEpisode(None, None),
    PlayMisdiagnosis(1, 2, 3.0),
    TakeCard("Lithium"),
    AcceptTrade("1"),
    WithdrawTrade(None),
    OfferTrade(True, (), ("Lithium",)),
    OfferTrade(1, [1], ()),
    OfferTrade(1, (True,), ()),
    OfferTrade(1, (), "Lithium"),
    OfferTrade(1, (), ("Lithium", 3)),
    OfferTrade(1, None, None),
    QuackPlay(1),
    SneakyEndTurn(),
    Move(),
    se.TurnEnded(seat=0),
    Event(),
    object(),
    None,
    "EndTurn",
    ("Discard", 3),
    {"type": "EndTurn"},
    se.EndTurn,
]


@pytest.mark.parametrize("move", MALFORMED, ids=lambda m: "object()" if type(m) is object else repr(m))
def test_malformed_moves(move):
    """quackbox.core.rules MalformedMove: not a move of this game, or a field of the wrong type (bools are not ints)."""
    state = _basic()
    refused(state, 0, move, MalformedMove)


@pytest.mark.parametrize("seat", [True, False, "0", 0.0, None, -1, 3])
def test_malformed_seats(seat):
    """quackbox.core.rules MalformedMove: the seat is an int naming a seat at the table."""
    state = _basic()
    refused(state, seat, EndTurn(), MalformedMove, "no seat")


def test_view_of_a_seat_not_at_the_table():
    """Views: a seat that is not at the table is MalformedMove, not a crash."""
    state = _basic()
    for seat in (3, -1, True, "0"):
        with pytest.raises(MalformedMove):
            RULES.view(state, seat)


# --- check agrees with legal_moves ------------------------------------------

CONFIGS = [
    (2, {}),
    (3, {"tremors_seconds": 0.0}),
    (4, {"bonus_cards": True}),
    (5, {"treat_others": True, "duplicate_disorders": True, "bonus_cards": True}),
    (4, {"until_one_loser": True, "bonus_cards": True, "treat_others": True}),
    (7, {}),
]


def _random_offer(state, rng: random.Random) -> OfferTrade | None:
    active = [s for s in range(state.seats) if state.places[s] == 0]
    if state.phase != se.PLAY or len(active) < 2:
        return None
    seat, to = rng.sample(active, 2)
    hand = state.hands[seat]
    give = tuple(rng.sample(hand, min(len(hand), rng.randint(0, 2))))
    want = tuple(rng.choice(state.cards).name for _ in range(rng.randint(0 if give else 1, 1)))
    move = OfferTrade(to, give, want)
    try:
        RULES.check(state, seat, move)
    except IllegalMove:
        return None
    return seat, move


def _candidates(state, rng: random.Random):
    """A broad set of moves: every kind, over the cards and seats that matter and a few that do not."""
    n = len(state.cards)
    in_hands = [c for hand in state.hands for c in hand]
    on_psyche = [c for p in state.psyche for slot in p for c in (slot.disorder, slot.drug) if c != NONE]
    elsewhere = rng.sample(range(n), 4) + [-1, n]
    cards = sorted(set(in_hands + elsewhere))
    spots = sorted(set(on_psyche + elsewhere))
    seats = range(-1, state.seats + 1)
    offer_ids = list(state.offers) + [0, state.next_offer]
    moves: list[Move] = [EndTurn(), TakeNothing(), Timeout()]
    moves += [Discard(c) for c in cards] + [TakeCard(c) for c in cards]
    moves += [m(o) for o in offer_ids for m in (AcceptTrade, DeclineTrade, WithdrawTrade)]
    for c in cards:
        moves += [GiveDisorder(c, t) for t in seats]
        moves += [m(c, d) for d in spots for m in (Treat, PlayTherapy, PlayEpisode, PlayHighTolerance)]
    for c in in_hands:
        if state.cards[c].kind == "misdiagnosis":
            moves += [PlayMisdiagnosis(c, a, b) for a in spots for b in spots]
    return moves


def _passes(state, seat, move) -> bool:
    try:
        RULES.check(state, seat, move)
    except RulesError as error:
        assert isinstance(error, (MalformedMove, NotYourTurn, IllegalMove, GameOver))
        assert _sentence(str(error)), str(error)
        return False
    return True


def _audit(state, rng: random.Random) -> int:
    """Check every candidate of every seat against legal_moves; return how many were checked."""
    # Asking changes nothing: not legal_moves, not view, not check.
    before = snapshot(state)
    legals = [RULES.legal_moves(state, seat) for seat in range(state.seats)]
    for seat in [*range(state.seats), None]:
        RULES.view(state, seat)
    assert snapshot(state) == before, "legal_moves or view changed the state"
    candidates = _candidates(state, rng)
    checked = 0
    for seat, legal in enumerate(legals):
        assert len(set(legal)) == len(legal), "a legal move is listed twice"
        listed = set(legal)
        for move in legal:
            assert _passes(state, seat, move), f"listed but refused: seat {seat} {move!r}"
        for move in candidates:
            ok = _passes(state, seat, move)
            checked += 1
            if type(move) is Timeout:
                # The host's move (Deadline.timeout): accepted for the Tremors target while a
                # countdown runs, never listed.
                timed = state.options.tremors_seconds > 0
                assert ok == (state.phase == se.TREMORS and seat == state.prompt_seat and timed), (seat, move)
                continue
            assert ok == (move in listed), (
                f"check {'accepts' if ok else 'refuses'} but legal_moves {'lists' if move in listed else 'omits'}"
                f" seat {seat} {move!r} in phase {state.phase}"
            )
        if seat in RULES.waiting_for(state):
            assert legal, f"the game waits for seat {seat}, who has no legal move"
    assert snapshot(state) == before, "check changed the state"
    assert [RULES.legal_moves(state, seat) for seat in range(state.seats)] == legals
    assert_conserved(state)
    return checked


def test_check_agrees_with_legal_moves_in_random_games():
    """quackbox.core.rules: check passes iff the move is in legal_moves (OfferTrade is never enumerated), changing nothing."""
    audits = checked = 0
    for index, (seats, opts) in enumerate(CONFIGS):
        for game in range(4):
            seed = 1000 * index + game
            rng = random.Random(seed)
            state = RULES.new_game(seats=seats, options=opts, seed=seed)
            audit_at = set(rng.sample(range(1, 120), 3))
            prompts = 0  # prompts are rare in random play: audit the first few of each game too
            for step in range(120):
                if state.over:
                    break
                if rng.random() < 0.15 and (offer := _random_offer(state, rng)):
                    play(state, *offer)
                    continue
                in_prompt = state.phase != se.PLAY
                if step in audit_at or (in_prompt and prompts < 3):
                    prompts += in_prompt
                    checked += _audit(state, rng)
                    audits += 1
                seat = RULES.waiting_for(state)[0]
                if RULES.deadline(state) is not None and rng.random() < 0.3:
                    move = RULES.deadline(state).timeout
                else:
                    move = rng.choice(RULES.legal_moves(state, seat))
                play(state, seat, move)
            checked += _audit(state, rng)  # the end (often a finished game)
            audits += 1
    assert audits >= 60 and checked > 100_000
