"""Quack in the Box rules: scenarios with stacked decks, errors, and invariants.

Scenario tests deal a real game with ``RULES.new_game`` and then move real
card ids between piles (:func:`table`), so every card is still in exactly one
place. Each docstring names the rule (rulebook phase) or ruling (QB1-QB10,
docs/QUACK_RULINGS.md) it checks.
"""

from __future__ import annotations

import copy
import dataclasses
import random
from collections import Counter
from typing import Any, Mapping, Sequence

import pytest

from quackbox.cards.quack import Anytime, Patient, Treatment
from quackbox.core import quack as q
from quackbox.core.bots import RandomBot
from quackbox.core.quack import RULES, QuackState
from quackbox.core.quack.bot import QuackBot
from quackbox.core.quack.cards import AIMS
from quackbox.core.rules import BadOptions, Deadline, GameOver, IllegalMove, MalformedMove, NotYourTurn
from tests.core import invariants
from tests.core.invariants import Adapter, play_checked

CARDS = RULES.cards


# --- stacking the table -------------------------------------------------------


def ids(name: str) -> list[int]:
    """Every physical id of the card called ``name``."""
    found = [c.id for c in CARDS if c.name == name]
    assert found, f"no card called {name!r}"
    return found


class ScriptedRandom(random.Random):
    """The game's RNG with draws queued: ``random()`` returns the queued
    values first, then carries on as usual. A die roll reads :func:`face`;
    an admission reads :data:`FIRST_PATIENT`."""

    def __init__(self, seed: int = 0, values: Sequence[float] = ()) -> None:
        # Defaults: copy and pickle rebuild a Random by calling its class with no arguments.
        super().__init__(seed)
        self.values = list(values)

    def random(self) -> float:
        if self.values:
            return self.values.pop(0)
        return super().random()


def face(value: int) -> float:
    """The draw a die roll reads as ``value`` (phase 4)."""
    return (value - 1) / q.DIE_SIDES + 0.01


FIRST_PATIENT = 0.0
"""The draw an admission reads as the first card of the Patient deck, which
is otherwise in no order (it takes a Patient at random)."""


def _pull(state: QuackState, card: int) -> None:
    """Take ``card`` out of whichever pile or hand holds it."""
    for pile in (state.doc_deck, state.doc_discard, state.patient_deck, state.patient_discard, *state.hands):
        if card in pile:
            pile.remove(card)
            return
    raise AssertionError(f"card {card} is not in a pile or hand")


def _free(state: QuackState, name: str, claimed: set[int]) -> int:
    """An id of ``name`` lying in a deck or discard pile (never in play)."""
    for card in ids(name):
        if card in claimed:
            continue
        if (
            card in state.doc_deck
            or card in state.doc_discard
            or card in state.patient_deck
            or card in state.patient_discard
        ):
            claimed.add(card)
            return card
    for card in ids(name):
        if card not in claimed and any(card in h for h in state.hands):
            claimed.add(card)
            return card
    raise AssertionError(f"no free copy of {name!r}")


PatientSpec = str | tuple[str, int, int, int]


def table(
    seats: int = 3,
    *,
    hands: Mapping[int, Sequence[str]] | None = None,
    patients: Mapping[int, PatientSpec] | None = None,
    doc_top: Sequence[str] = (),
    next_patient: str = "",
    money: Mapping[int, int] | None = None,
    infamy: Mapping[int, int] | None = None,
    faces: Sequence[int] = (),
    seed: int = 0,
    pad: bool = True,
    **options: Any,
) -> QuackState:
    """A dealt game with seat 0 to act in phase 1, rearranged: ``hands`` by
    name; ``patients`` as a name or (name, cure, harm, received); ``doc_top``
    top first; ``next_patient`` the Patient the next admission takes (its draw
    is queued before the die ``faces``, as phase 3 comes before phase 4).
    Windows are off unless ``window_seconds`` is given. Displaced cards go
    under the Doc deck.
    Named hands shorter than six are padded with Treatments named nowhere in
    the call (``pad=False`` leaves them short)."""
    options.setdefault("window_seconds", 0)
    options.setdefault("first_seat", 0)
    state = RULES.new_game(seats=seats, options=options, seed=seed)
    claimed: set[int] = set()
    for seat, names in (hands or {}).items():
        wanted = [_free(state, n, claimed) for n in names]
        for c in wanted:
            _pull(state, c)
        old = state.hands[seat]
        state.doc_deck[0:0] = old
        state.hands[seat] = wanted
    # Any hand robbed of a card by _free is topped up from the deck bottom.
    for seat, hand in enumerate(state.hands):
        if hands and seat in hands:
            continue
        while len(hand) < q.HAND_SIZE and state.doc_deck:
            hand.append(state.doc_deck.pop(0))
    if pad:
        named = {n for names in (hands or {}).values() for n in names} | set(doc_top) | {next_patient}
        named |= {spec if isinstance(spec, str) else spec[0] for spec in (patients or {}).values()}
        fillers = [c.name for c in RULES.deck.treatments if c.name not in named]
        for seat in sorted(hands or {}):
            names = list(hands[seat])
            while len(state.hands[seat]) < q.HAND_SIZE:
                name = fillers.pop(0)
                card = _free(state, name, claimed)
                _pull(state, card)
                state.hands[seat].append(card)
    for seat, spec in (patients or {}).items():
        name, cure, harm, received = (spec, 0, 0, 0) if isinstance(spec, str) else spec
        card = _free(state, name, claimed)
        _pull(state, card)
        old_case = state.doctors[seat].case
        if old_case is not None:  # admitted inside new_game (Deathmatch): back under the decks
            state.patient_deck.insert(0, old_case.card)
            state.doc_deck[0:0] = old_case.treatments + old_case.reminders
        case = q.Case(card)
        case.cure, case.harm, case.received = cure, harm, received
        state.doctors[seat].case = case
    for name in reversed(doc_top):
        card = _free(state, name, claimed)
        _pull(state, card)
        state.doc_deck.append(card)
    draws = [face(value) for value in faces]
    if next_patient:
        card = _free(state, next_patient, claimed)
        _pull(state, card)
        # The Patient deck is in no order: the admission before the roll takes the first card.
        state.patient_deck.insert(0, card)
        draws.insert(0, FIRST_PATIENT)
    for seat, value in (money or {}).items():
        state.doctors[seat].money = value
    for seat, value in (infamy or {}).items():
        state.doctors[seat].infamy = value
    if draws:
        rng = ScriptedRandom(0, draws)
        rng.setstate(state.rng.getstate())
        state.rng = rng
    QuackAdapter().assert_conserved(state)
    return state


def card_in_hand(state: QuackState, seat: int, name: str) -> int:
    for c in state.hands[seat]:
        if CARDS[c].name == name:
            return c
    raise AssertionError(f"seat {seat} holds no {name!r}")


def treat(state: QuackState, seat: int, name: str, target: int = q.NONE) -> list:
    return RULES.apply(state, seat, q.PlayTreatment(card_in_hand(state, seat, name), target))


def anytime(state: QuackState, seat: int, name: str, target: int, other: int = q.NONE, discard: int = q.NONE) -> list:
    return RULES.apply(state, seat, q.PlayAnytime(card_in_hand(state, seat, name), target, other, discard))


def of(events: Sequence[Any], kind: type) -> list:
    return [e for e in events if type(e) is kind]


def patient_name(state: QuackState, seat: int) -> str | None:
    case = state.doctors[seat].case
    return None if case is None else CARDS[case.card].name


def play_out_turn(state: QuackState) -> list:
    """Finish the current turn with the first phase move each time (StayHome,
    the first Treatment, Pass, or a short-hand Discard), up to the next
    doctor's decision (turns in Switzerland run by themselves)."""
    events: list = []
    while not of(events, q.TurnStarted) and not state.over:
        waiting = RULES.waiting_for(state)
        who = waiting[0]
        legal = RULES.legal_moves(state, who)
        phase_moves = [m for m in legal if not isinstance(m, q.PlayAnytime)] or list(legal)
        move = phase_moves[0]
        if isinstance(move, q.FleeToSwitzerland):
            move = q.StayHome()
        events += RULES.apply(state, who, move)
    return events


def snapshot(value: Any) -> Any:
    """A comparable copy of a State: every field, the RNG's state included."""
    if isinstance(value, random.Random):
        return ("rng", value.getstate())
    if isinstance(value, (list, tuple)):
        return tuple(snapshot(v) for v in value)
    if isinstance(value, set):
        return ("set", tuple(sorted(value)))
    if isinstance(value, (QuackState, q.Doctor, q.Case)):
        return tuple((f.name, snapshot(getattr(value, f.name))) for f in dataclasses.fields(value))
    return value


# --- the card math (QB4) --------------------------------------------------------


def _t(cures=(), harms=(), others=0) -> Treatment:
    return Treatment(0, "T", "", "Medicine", 100, tuple(cures), tuple(harms), others)


def _p(*illnesses: str) -> Patient:
    return Patient(0, "P", "", tuple(illnesses), 5, 5, 1)


def test_points_use_the_largest_value_among_the_patients_types() -> None:
    """QB4: Cure and Harm are each the largest value among the Patient's listed types, not a sum."""
    t = _t(cures=(("Cardiac", 2), ("Minor Trauma", 1)), harms=(("Bleeding", 2), ("GI", 3)))
    assert q.treatment_points(t, _p("Cardiac", "Minor Trauma")) == (2, 0)
    assert q.treatment_points(t, _p("Bleeding", "GI", "Minor Trauma")) == (1, 3)
    assert q.treatment_points(t, _p("Neuro")) == (0, 0)


def test_all_others_harms_only_types_the_card_does_not_name() -> None:
    """QB4: "All others" harms every illness type of the Patient the card names nowhere."""
    trepanation = CARDS[ids("Trepanation")[0]]
    assert q.treatment_points(trepanation, _p("Neuro")) == (1, 0)
    assert q.treatment_points(trepanation, _p("Neuro", "Psychiatry")) == (1, 3)
    named_as_harm = _t(cures=(("Neuro", 1),), harms=(("Cardiac", 1),), others=3)
    assert q.treatment_points(named_as_harm, _p("Cardiac")) == (0, 1)
    assert q.treatment_points(named_as_harm, _p("Cardiac", "GI")) == (0, 3)


def test_infamy_fines_and_owed_treatments_arithmetic() -> None:
    """QB5/QB6/QR17, the small rules the table's previews ask too: Infamy and the
    Treatments owed never go below 0, the Mob comes at the threshold, a fine takes
    at most what the doctor has, a redirected death's Infamy is split rounding up."""
    from quackbox.core.quack import cards as qcards

    assert q.infamy_after(1, -3) == 0 and q.infamy_after(4, 2) == 6
    assert q.mob_comes(6, 6) and not q.mob_comes(5, 6)
    assert q.fine_taken(300, 500) == 300 and q.fine_taken(900, 500) == 500
    assert q.owed_after(1, -3) == 0 and q.owed_after(2, 1) == 3
    assert [qcards.split_infamy(n) for n in (1, 2, 3)] == [1, 1, 2]
    review = next(c for c in CARDS if isinstance(c, Anytime) and c.effect == "infamy_down")
    suit = next(c for c in CARDS if isinstance(c, Anytime) and c.effect == "infamy_up")
    assert q.signed_amount(review) == -review.amount and q.signed_amount(suit) == suit.amount


def test_every_anytime_effect_has_an_aim() -> None:
    """QB8: every effect a card file may name says what the card is played on."""
    from quackbox.cards import quack as qc
    from quackbox.core.quack import cards as qcards

    assert set(qcards.AIMS) == set(qc.EFFECTS)


# --- phases of a turn ---------------------------------------------------------------


def test_phase_1_offers_stay_or_flee_before_drawing() -> None:
    """Rulebook phase 1: the turn opens with the choice to flee, before any draw."""
    state = table()
    assert state.phase == q.FLEE and RULES.waiting_for(state) == (0,)
    legal = RULES.legal_moves(state, 0)
    assert legal[:2] == (q.StayHome(), q.FleeToSwitzerland())
    assert all(isinstance(m, q.PlayAnytime) for m in legal[2:])


def test_phases_2_to_4_draw_admit_copay_and_roll() -> None:
    """Phases 2-4: draw up to six, admit a Patient and collect the $50 co-pay (QB5), roll the Treatments owed."""
    state = table(
        hands={0: ["Stitches", "Xray", "Yoga", "Aspirin"]},
        doc_top=["Knee Tap", "Get Some Rest", "Heparin"],
        next_patient="Weekend Warrior",
        faces=[3],
        pad=False,
    )
    events = RULES.apply(state, 0, q.StayHome())
    drawn = of(events, q.CardsDrawn)
    assert [CARDS[c].name for c in drawn[0].cards] == ["Knee Tap", "Get Some Rest"]
    assert len(state.hands[0]) == q.HAND_SIZE
    assert patient_name(state, 0) == "Weekend Warrior"
    assert of(events, q.PatientAdmitted)[0].face_down is False
    assert of(events, q.MoneyPaid) == [
        q.MoneyPaid(seat=0, amount=q.CO_PAY, reason="co-pay", cards=(), billed=q.CO_PAY, reminder=q.NONE)
    ]
    assert state.doctors[0].money == 50
    assert of(events, q.DieRolled) == [q.DieRolled(seat=0, rolls=(3,), value=3, owed=3)]
    assert state.phase == q.TREAT and state.owed == 3


def test_a_draw_with_both_doc_piles_empty_draws_nothing_and_says_so() -> None:
    """QR3: with the Doc deck and its discard pile both empty the doctor draws what
    there is, nothing here; the draw is still an event, as in Side Effects (SE4)."""
    state = table(hands={0: ["Yoga"]}, next_patient="Weekend Warrior", faces=[3], pad=False)
    state.hands[1].extend(state.doc_deck + state.doc_discard)  # every other Doc card out of reach
    state.doc_deck.clear()
    state.doc_discard.clear()
    events = RULES.apply(state, 0, q.StayHome())
    assert of(events, q.CardsDrawn) == [q.CardsDrawn(seat=0, cards=(), count=0)]
    assert not of(events, q.DeckReshuffled) and [CARDS[c].name for c in state.hands[0]] == ["Yoga"]
    assert RULES.describe(of(events, q.CardsDrawn)[0], ["Ana", "Ben", "Cy"], 0) == "You had nothing left to draw."


def test_a_patient_stays_from_round_to_round() -> None:
    """Phase 3: a doctor who already has a Patient admits no other and collects no co-pay."""
    state = table(patients={0: "Retired Hypochondriac"}, faces=[2])
    events = RULES.apply(state, 0, q.StayHome())
    assert not of(events, q.PatientAdmitted) and not of(events, q.MoneyPaid)
    assert patient_name(state, 0) == "Retired Hypochondriac"


def test_the_die_rerolls_ones_and_sixes() -> None:
    """Phase 4: required Treatments are 2-5, a die rerolling 1s and 6s."""
    # A Patient already in: no admission, so only the die reads the faces.
    state = table(patients={0: "Retired Hypochondriac"}, faces=[1, 6, 1, 5])
    events = RULES.apply(state, 0, q.StayHome())
    assert of(events, q.DieRolled) == [q.DieRolled(seat=0, rolls=(1, 6, 1, 5), value=5, owed=5)]


def test_die_rolls_stay_between_two_and_five() -> None:
    """Phase 4 over many seeds: every value is 2-5."""
    for seed in range(60):
        state = RULES.new_game(seats=2, seed=seed, options={"first_seat": 0})
        events = RULES.apply(state, 0, q.StayHome())
        rolled = of(events, q.DieRolled)
        assert rolled and q.DIE_LOW <= rolled[0].value <= q.DIE_HIGH


def test_both_decks_come_off_in_random_order() -> None:
    """Starting the Game: shuffled decks. The Patient deck is kept in no order
    and each admission takes a Patient at random; across seeds, the first
    Patient admitted and the first hand dealt are spread over the decks, and
    the same seed deals the same again."""
    first_patients = Counter()
    first_cards = Counter()
    for seed in range(300):
        state = RULES.new_game(seats=2, seed=seed, options={"first_seat": 0})
        RULES.apply(state, 0, q.StayHome())
        first_patients[state.doctors[0].case.card] += 1
        first_cards[state.hands[1][0]] += 1
    patients = len(RULES.deck.patients)
    assert len(first_patients) >= patients * 3 // 4 and max(first_patients.values()) <= 30
    assert len(first_cards) >= 40 and max(first_cards.values()) <= 30
    again = RULES.new_game(seats=2, seed=7, options={"first_seat": 0})
    RULES.apply(again, 0, q.StayHome())
    replay = RULES.new_game(seats=2, seed=7, options={"first_seat": 0})
    RULES.apply(replay, 0, q.StayHome())
    assert again.doctors[0].case.card == replay.doctors[0].case.card and again.hands == replay.hands


def test_cure_sends_the_patient_home_waives_the_rest_and_pays() -> None:
    """Phase 5 and QB4/QB5: a cured Patient leaves, the rest of the requirement is waived, every Treatment pays."""
    state = table(
        hands={0: ["Stitches", "Xray", "Yoga", "Knee Tap", "Drink More Water", "Heparin"]},
        next_patient="Weekend Warrior",
        faces=[4],
    )
    RULES.apply(state, 0, q.StayHome())
    treat(state, 0, "Stitches")  # Minor Trauma 2 of 3
    assert state.doctors[0].case.cure == 2 and state.current == 0
    events = treat(state, 0, "Xray")  # +1: cured, two Treatments still owed are waived
    assert of(events, q.PatientCured) == [q.PatientCured(seat=0, patient=ids("Weekend Warrior")[0], by=0)]
    paid = of(events, q.MoneyPaid)
    assert paid[0].amount == 150 + 300 and paid[0].reason == "treatments"
    assert state.doctors[0].money == 50 + 450
    assert state.doctors[0].case is None and ids("Weekend Warrior")[0] in state.patient_discard
    assert state.current == 1 and state.phase == q.FLEE


def test_death_pays_nothing_this_round_and_adds_infamy() -> None:
    """QB5: a death pays nothing for the round's Treatments and adds the Patient's Infamy."""
    state = table(
        hands={0: ["Stitches", "Heparin", "Yoga", "Knee Tap", "Drink More Water", "Xray"]},
        next_patient="Nosebleed That Won't Quit",
        faces=[4],
    )
    RULES.apply(state, 0, q.StayHome())
    treat(state, 0, "Stitches")  # Bleeding +2 Cure, $150 at stake
    events = treat(state, 0, "Heparin")  # Bleeding 9 Harm >= Kill 6
    assert of(events, q.PatientDied) == [
        q.PatientDied(seat=0, patient=ids("Nosebleed That Won't Quit")[0], cause="harm", by=0)
    ]
    assert not [e for e in of(events, q.MoneyPaid) if e.reason == "treatments"]
    assert state.doctors[0].money == 50
    assert state.doctors[0].infamy == 1
    assert state.current == 1


def test_harm_kills_even_when_the_same_card_completes_the_cure() -> None:
    """QB4: death is checked first: Harm >= Kill kills though the same card reaches the Cure."""
    # Helmets Are for Quitters: Minor Trauma, Bleeding, Neuro; Cure 8, Kill 7. Aspirin: MT +1 Cure, Bleeding +2 Harm.
    state = table(
        hands={0: ["Aspirin", "Yoga", "Knee Tap", "Drink More Water", "Xray", "Stitches"]},
        patients={0: ("Helmets Are for Quitters", 7, 5, 0)},
        faces=[2],
    )
    RULES.apply(state, 0, q.StayHome())
    events = treat(state, 0, "Aspirin")
    assert of(events, q.PatientDied) and not of(events, q.PatientCured)


def test_mortal_patient_dies_after_that_many_treatments() -> None:
    """Rulebook Mortal, QB4: a Patient dies on receiving its Mortal number of Treatment cards uncured."""
    # Buffet Heart Attack: Cardiac, Cure 8, Kill 5, Mortal 5. Drink More Water does nothing for Cardiac.
    state = table(
        hands={0: ["Drink More Water", "Yoga", "Knee Tap", "Xray", "Stitches", "Aspirin"]},
        patients={0: ("Buffet Heart Attack", 0, 0, 4)},
        faces=[3],
    )
    RULES.apply(state, 0, q.StayHome())
    events = treat(state, 0, "Drink More Water")
    assert of(events, q.PatientDied)[0].cause == "mortal"
    assert state.doctors[0].infamy == 2


def test_a_cure_on_the_mortal_card_still_cures() -> None:
    """QB4: Mortal counts Treatments *without being cured*; curing on that card wins."""
    state = table(
        hands={0: ["Aspirin", "Yoga", "Knee Tap", "Xray", "Stitches", "Drink More Water"]},
        patients={0: ("Buffet Heart Attack", 7, 0, 4)},
        faces=[3],
    )
    RULES.apply(state, 0, q.StayHome())
    events = treat(state, 0, "Aspirin")  # Cardiac +2: 9 >= 8 on the 5th Treatment
    assert of(events, q.PatientCured) and not of(events, q.PatientDied)


def test_short_hand_rule_play_all_treatments_then_one_anytime() -> None:
    """Phase 4 short-hand rule: without enough Treatments, play them all, then play or discard one Anytime card."""
    hand = ["Stitches", "Placebo", "Malpractice Suit", "Tax Audit", "Glowing Online Review", "Upcoding"]
    state = table(hands={0: hand}, next_patient="Retired Hypochondriac", faces=[4])
    RULES.apply(state, 0, q.StayHome())
    assert state.phase == q.TREAT
    treat(state, 0, "Stitches")
    assert state.phase == q.SHORT_HAND and state.owed == 3
    legal = RULES.legal_moves(state, 0)
    discards = [m for m in legal if isinstance(m, q.Discard)]
    assert {CARDS[m.card].name for m in discards} == set(hand[1:])
    assert legal[-len(discards) :] == tuple(discards)  # Discards come last
    audit = card_in_hand(state, 0, "Tax Audit")
    events = RULES.apply(state, 0, q.Discard(audit))
    assert of(events, q.CardsDiscarded) == [q.CardsDiscarded(seat=0, cards=(audit,), reason="short_hand")]
    assert audit in state.doc_discard and state.current == 1


def test_short_hand_rule_may_be_met_by_playing_the_anytime_card() -> None:
    """Short-hand rule: playing one Anytime card instead of discarding also ends the phase."""
    hand = ["Stitches", "Placebo", "Malpractice Suit", "Tax Audit", "Glowing Online Review", "Upcoding"]
    state = table(hands={0: hand}, next_patient="Retired Hypochondriac", faces=[4])
    RULES.apply(state, 0, q.StayHome())
    treat(state, 0, "Stitches")
    anytime(state, 0, "Malpractice Suit", 1)
    assert state.current == 1 and state.doctors[1].infamy == 1
    assert len(state.hands[0]) == 4


def test_a_doctor_with_no_treatments_goes_straight_to_the_short_hand_rule() -> None:
    """Short-hand rule with zero Treatments in hand."""
    hand = ["Placebo", "Malpractice Suit", "Tax Audit", "Glowing Online Review", "Upcoding", "Staff Shortage"]
    state = table(hands={0: hand}, next_patient="Retired Hypochondriac", faces=[2])
    RULES.apply(state, 0, q.StayHome())
    assert state.phase == q.SHORT_HAND


# --- Switzerland (QB7) ------------------------------------------------------------


def test_fleeing_is_final_and_freezes_money_and_infamy() -> None:
    """QB7: the Patient goes with no pay and no Infamy; Treatments are dropped (ruling);
    the draw keeps the first Anytime card and discards the rest."""
    hand = ["Stitches", "Heparin", "Malpractice Suit", "Yoga", "Xray", "Aspirin"]
    state = table(
        hands={0: hand},
        patients={0: ("Nosebleed That Won't Quit", 0, 5, 1)},
        doc_top=["Walk It Off", "Knee Tap", "Placebo", "Tax Audit"],
        money={0: 700},
        infamy={0: 3},
    )
    events = RULES.apply(state, 0, q.FleeToSwitzerland())
    doctor = state.doctors[0]
    assert doctor.status == q.SWITZERLAND and doctor.case is None
    assert of(events, q.DoctorFled) == [q.DoctorFled(seat=0, money=700, infamy=3)]
    assert of(events, q.PatientDischarged)[0].reason == "fled"
    assert (doctor.money, doctor.infamy) == (700, 3)
    assert [CARDS[c].name for c in state.hands[0]] == ["Malpractice Suit", "Placebo"]
    thrown = [e for e in of(events, q.CardsDiscarded) if e.reason == "switzerland"]
    assert [CARDS[c].name for c in thrown[0].cards] == ["Walk It Off", "Knee Tap"]
    assert state.current == 1
    # Anytime cards still work from Switzerland, and Money can no longer change.
    anytime(state, 0, "Malpractice Suit", 1)
    assert state.doctors[1].infamy == 1
    assert not any(m.target == 0 for m in RULES.legal_moves(state, 0) if isinstance(m, q.PlayAnytime))


def test_nothing_can_touch_money_or_infamy_in_switzerland() -> None:
    """QB7: Money and Infamy freeze, so Tax Audit, Malpractice Suit and the like find no target there."""
    state = table(
        money={0: 700},
        infamy={0: 2},
        hands={1: ["Tax Audit", "Malpractice Suit", "Glowing Online Review", "Claim Denied"]},
    )
    RULES.apply(state, 0, q.FleeToSwitzerland())
    assert not [m for m in RULES.legal_moves(state, 1) if isinstance(m, q.PlayAnytime) and m.target == 0]
    for name in ("Tax Audit", "Malpractice Suit", "Glowing Online Review", "Claim Denied"):
        with pytest.raises(IllegalMove, match="no longer practises"):
            anytime(state, 1, name, 0)
    assert (state.doctors[0].money, state.doctors[0].infamy) == (700, 2)


def test_switzerland_turns_only_draw_an_anytime_card() -> None:
    """QB7: a doctor in Switzerland takes no Treatments; each turn draws until one Anytime card."""
    state = table(seats=2, two_player_endgame="play_on", doc_top=["Heparin", "Yoga", "Placebo"])
    RULES.apply(state, 0, q.FleeToSwitzerland())
    before = len(state.hands[0])
    state.doc_deck[-3:] = state.doc_deck[-3:]  # seat 1 draws nothing (full hand); seat 0 finds Placebo next
    events = play_out_turn(state)  # seat 1's turn, then seat 0's in Switzerland runs by itself
    assert [e.seat for e in of(events, q.TurnStarted)] == [0, 1]
    assert len(state.hands[0]) == before + 1 and isinstance(CARDS[state.hands[0][-1]], Anytime)
    assert not of(events, q.DieRolled) or of(events, q.DieRolled)[0].seat == 1
    assert state.current == 1 and state.phase == q.FLEE


def test_nobody_flees_in_deathmatch() -> None:
    """QB3 Deathmatch: nobody can flee; phase 1 has no decision, so the turn starts at the treatments."""
    state = RULES.new_game(seats=3, seed=5, options={"deathmatch": True, "first_seat": 0, "window_seconds": 0})
    assert state.phase in (q.TREAT, q.SHORT_HAND)
    assert of(state.start_events, q.PatientAdmitted) and of(state.start_events, q.DieRolled)
    assert not any(isinstance(m, q.FleeToSwitzerland) for m in RULES.legal_moves(state, 0))
    play_out_turn(state)
    with pytest.raises(IllegalMove, match="Deathmatch"):
        RULES.check(state, state.current, q.FleeToSwitzerland())


# --- the Angry Mob (QB6) -------------------------------------------------------------


def test_the_mob_comes_the_moment_infamy_reaches_the_threshold() -> None:
    """QB6: out of the game, hand and Patient discarded, no more moves, cannot win."""
    state = table(patients={1: "Weekend Warrior"}, infamy={1: 5}, hands={0: ["Malpractice Suit"]})
    events = anytime(state, 0, "Malpractice Suit", 1)
    assert of(events, q.DoctorMobbed) == [q.DoctorMobbed(seat=1, infamy=6)]
    assert state.doctors[1].status == q.MOBBED
    assert state.hands[1] == [] and state.doctors[1].case is None
    assert RULES.legal_moves(state, 1) == ()
    with pytest.raises(NotYourTurn):
        RULES.check(state, 1, q.Pass())


def test_death_on_your_own_turn_can_bring_the_mob() -> None:
    """QB6: a death raising Infamy to the threshold mobs at once and ends the turn."""
    state = table(hands={0: ["Throat Culture"]}, patients={0: ("Peanut Gallery", 0, 3, 0)}, infamy={0: 4}, faces=[3])
    RULES.apply(state, 0, q.StayHome())
    events = treat(state, 0, "Throat Culture")  # Allergy +1 Harm: 4 >= Kill 4
    assert of(events, q.DoctorMobbed)
    assert state.doctors[0].status == q.MOBBED and state.current == 1


def test_mobbed_doctors_skip_their_turns() -> None:
    """QB6: the mobbed are out of the rotation."""
    state = table(patients={1: "Weekend Warrior"}, infamy={1: 5}, hands={0: ["Malpractice Suit"]})
    anytime(state, 0, "Malpractice Suit", 1)
    play_out_turn(state)
    assert state.current == 2


# --- Anytime cards (QB8) ---------------------------------------------------------------


def test_anytime_cards_are_playable_off_turn_by_anyone() -> None:
    """QB8: any doctor still in the game may play at any time, on anyone (self included)."""
    state = table(hands={2: ["Malpractice Suit"]})
    legal = RULES.legal_moves(state, 2)
    assert {m.target for m in legal} == {0, 1, 2}
    anytime(state, 2, "Malpractice Suit", 2)
    assert state.doctors[2].infamy == 1 and state.current == 0 and state.phase == q.FLEE


def test_diagnostic_dilemma_hides_the_patient_from_everyone_until_treated() -> None:
    """Diagnostic Dilemma: the next Patient is face down, hidden from all (its doctor too), revealed after a round."""
    state = table(
        hands={
            1: ["Diagnostic Dilemma"],
            0: ["Yoga", "Drink More Water", "Get Some Rest", "Knee Tap", "Walk It Off", "Thorough H&P"],
        },
        next_patient="Retired Hypochondriac",
        faces=[2],
    )
    anytime(state, 1, "Diagnostic Dilemma", 0)
    assert [c.name for c in RULES.view(state, 2).players[0].reminders] == ["Diagnostic Dilemma"]
    events = RULES.apply(state, 0, q.StayHome())
    admitted = of(events, q.PatientAdmitted)[0]
    assert admitted.face_down and admitted.patient == ids("Retired Hypochondriac")[0]
    for seat in (0, 1, 2, None):
        assert RULES.redact(admitted, seat).patient == q.NONE
        seen = RULES.view(state, seat).players[0].case
        assert seen.face_down and seen.patient is None and seen.cure_points is None
    assert of(events, q.MoneyPaid)[0].amount == q.CO_PAY  # the co-pay is paid face down too
    played = of(treat(state, 0, "Yoga"), q.TreatmentPlayed)[0]
    hidden = RULES.redact(played, 0)
    assert (hidden.patient, hidden.cure, hidden.total_cure) == (q.NONE, q.NONE, q.NONE)
    events = treat(state, 0, "Get Some Rest")
    assert of(events, q.PatientRevealed) == [q.PatientRevealed(seat=0, patient=ids("Retired Hypochondriac")[0])]
    assert RULES.view(state, 2).players[0].case.patient.name == "Retired Hypochondriac"
    assert RULES.view(state, 2).players[0].case.cure_points == 3
    assert ids("Diagnostic Dilemma")[0] in state.doc_discard or ids("Diagnostic Dilemma")[1] in state.doc_discard


def test_wrong_chart_sends_the_treatment_and_pays_its_player() -> None:
    """Wrong Chart, QB5: the redirected Treatment lands on another doctor's Patient and pays its player if it survives."""
    state = table(
        hands={
            2: ["Wrong Chart"],
            0: ["Tourniquet", "Yoga", "Drink More Water", "Knee Tap", "Walk It Off", "Thorough H&P"],
        },
        patients={0: "Retired Hypochondriac", 1: ("Nosebleed That Won't Quit", 0, 0, 0)},
        faces=[2],
    )
    anytime(state, 2, "Wrong Chart", 0, 1)
    RULES.apply(state, 0, q.StayHome())
    events = treat(state, 0, "Tourniquet")  # Bleeding +3: cures seat 1's nosebleed
    played = of(events, q.TreatmentPlayed)[0]
    assert played.redirected and played.target == 1
    assert of(events, q.PatientCured) == [q.PatientCured(seat=1, patient=ids("Nosebleed That Won't Quit")[0], by=0)]
    events = treat(state, 0, "Yoga")
    paid = [e for e in of(events, q.MoneyPaid) if e.reason == "treatments"][0]
    assert paid.amount == 75 + 50 and paid.seat == 0
    assert state.doctors[1].money == 0


def test_a_redirected_killing_treatment_splits_the_infamy_rounding_up() -> None:
    """QB5: a death by a redirected Treatment splits the Infamy between the two doctors, each rounding up."""
    state = table(
        hands={2: ["Wrong Chart"], 0: ["Xray", "Yoga", "Drink More Water", "Knee Tap", "Walk It Off", "Thorough H&P"]},
        patients={0: "Retired Hypochondriac", 1: ("Overdue and Furious", 0, 3, 0)},
        faces=[2],
    )
    anytime(state, 2, "Wrong Chart", 0, 1)
    RULES.apply(state, 0, q.StayHome())
    events = treat(state, 0, "Xray")  # Pregnancy +2 Harm: 5 >= Kill 5; Infamy 3 -> 2 and 2
    assert of(events, q.PatientDied)[0].by == 0
    assert state.doctors[0].infamy == 2 and state.doctors[1].infamy == 2
    events = treat(state, 0, "Yoga")
    paid = [e for e in of(events, q.MoneyPaid) if e.reason == "treatments"]
    assert paid[0].amount == 50  # Yoga on the survivor; nothing for the Xray on the dead


def test_wrong_chart_fizzles_when_its_patient_has_gone() -> None:
    """Wrong Chart: if the chosen Patient has left, the card is discarded and the Treatment goes home."""
    state = table(
        hands={
            2: ["Wrong Chart", "Placebo"],
            0: ["Yoga", "Drink More Water", "Get Some Rest", "Knee Tap", "Walk It Off", "Thorough H&P"],
        },
        patients={0: "Retired Hypochondriac", 1: ("Nosebleed That Won't Quit", 2, 0, 0)},
        faces=[2],
    )
    anytime(state, 2, "Wrong Chart", 0, 1)
    anytime(state, 2, "Placebo", 1)  # cures seat 1's Patient: it leaves
    RULES.apply(state, 0, q.StayHome())
    events = treat(state, 0, "Yoga")
    assert of(events, q.ReminderDiscarded)[0].reason == "fizzled"
    assert of(events, q.TreatmentPlayed)[0].target == 0


def test_paper_shredder_discards_a_card_of_your_choice_and_draws_one() -> None:
    """Paper Shredder: the Anytime card that lets a player discard (QB1)."""
    state = table(hands={1: ["Paper Shredder", "Heparin"]}, doc_top=["Yoga"])
    heparin = card_in_hand(state, 1, "Heparin")
    events = anytime(state, 1, "Paper Shredder", 1, discard=heparin)
    played = of(events, q.AnytimePlayed)[0].card
    assert heparin in state.doc_discard and played in state.doc_discard and CARDS[played].name == "Paper Shredder"
    assert [CARDS[c].name for c in of(events, q.CardsDrawn)[0].cards] == ["Yoga"]
    assert len(state.hands[1]) == 5
    with pytest.raises(IllegalMove):
        RULES.check(state, 0, q.PlayAnytime(ids("Paper Shredder")[1], 1, q.NONE, heparin))


def test_placebo_adds_cure_and_can_cure_off_turn() -> None:
    """Placebo: +2 Cure points, which may send the Patient home at once."""
    state = table(hands={2: ["Placebo"]}, patients={1: ("Weekend Warrior", 1, 0, 0)})
    events = anytime(state, 2, "Placebo", 1)
    assert of(events, q.PatientCured) == [q.PatientCured(seat=1, patient=ids("Weekend Warrior")[0], by=2)]


def test_nurse_night_off_kills_and_its_doctor_answers_for_it() -> None:
    """Nurse Has the Night Off: +2 Harm; a death by an Anytime card puts the Infamy on the Patient's doctor (ruling)."""
    state = table(hands={2: ["Nurse Has the Night Off"]}, patients={1: ("Overdue and Furious", 0, 3, 0)})
    events = anytime(state, 2, "Nurse Has the Night Off", 1)
    assert of(events, q.PatientDied)[0].by == 2
    assert state.doctors[1].infamy == 3 and state.doctors[2].infamy == 0


def test_nurse_night_off_during_the_round_loses_the_round_pay() -> None:
    """QB5 with an Anytime death: Treatments played this round on the dead Patient pay nothing."""
    state = table(
        hands={
            0: ["Stitches", "Yoga", "Drink More Water", "Knee Tap", "Walk It Off", "Thorough H&P"],
            1: ["Nurse Has the Night Off"],
        },
        patients={0: ("Weekend Warrior", 0, 4, 0)},
        faces=[3],
    )
    RULES.apply(state, 0, q.StayHome())
    treat(state, 0, "Stitches")  # MT +2 Cure, $150
    anytime(state, 1, "Nurse Has the Night Off", 0)  # Harm 6 >= Kill 6
    assert state.current == 1
    assert state.doctors[0].money == 0 and state.doctors[0].infamy == 1


@pytest.mark.parametrize(("name", "start", "end"), [("Malpractice Suit", 2, 3), ("Glowing Online Review", 2, 1)])
def test_infamy_cards(name: str, start: int, end: int) -> None:
    """Malpractice Suit and Glowing Online Review move a doctor's Infamy by 1."""
    state = table(hands={2: [name]}, infamy={1: start})
    events = anytime(state, 2, name, 1)
    assert state.doctors[1].infamy == end
    assert of(events, q.InfamyChanged)[0].total == end


def test_glowing_review_needs_infamy_to_remove() -> None:
    """QB8: a card with no valid target cannot be played."""
    state = table(hands={2: ["Glowing Online Review"]})
    assert not [m for m in RULES.legal_moves(state, 2) if isinstance(m, q.PlayAnytime)]
    with pytest.raises(IllegalMove, match="no Infamy"):
        anytime(state, 2, "Glowing Online Review", 1)


def test_tax_audit_takes_up_to_its_amount() -> None:
    """Tax Audit: the target loses $300, or everything if they have less."""
    state = table(hands={2: ["Tax Audit"]}, money={1: 120})
    events = anytime(state, 2, "Tax Audit", 1)
    assert state.doctors[1].money == 0 and of(events, q.MoneyLost) == [
        q.MoneyLost(seat=1, amount=120, reason="fine", total=0)
    ]


def test_miraculous_recovery_wipes_the_harm() -> None:
    """Miraculous Recovery: the target Patient's Harm goes back to 0."""
    state = table(hands={2: ["Miraculous Recovery"]}, patients={1: ("Weekend Warrior", 1, 5, 2)})
    anytime(state, 2, "Miraculous Recovery", 1)
    case = state.doctors[1].case
    assert (case.cure, case.harm, case.received) == (1, 0, 2)


def test_patient_transfer_swaps_patients_with_their_progress() -> None:
    """Patient Transfer: two doctors swap Patients, with every point and Treatment they carry."""
    state = table(
        hands={2: ["Patient Transfer"]},
        patients={0: ("Weekend Warrior", 2, 1, 1), 1: ("Retired Hypochondriac", 0, 4, 3)},
    )
    with pytest.raises(IllegalMove, match="lower seat first"):
        RULES.check(state, 2, q.PlayAnytime(ids("Patient Transfer")[0], 1, 0))
    anytime(state, 2, "Patient Transfer", 0, 1)
    assert patient_name(state, 0) == "Retired Hypochondriac" and state.doctors[0].case.harm == 4
    assert patient_name(state, 1) == "Weekend Warrior" and state.doctors[1].case.cure == 2


def test_teaching_hospital_now_or_at_the_next_roll() -> None:
    """Teaching Hospital: +1 Treatment this round if the doctor is treating now, else at their next roll."""
    state = table(
        hands={
            1: ["Teaching Hospital", "Staff Shortage"],
            0: ["Yoga", "Drink More Water", "Get Some Rest", "Knee Tap", "Walk It Off", "Thorough H&P"],
        },
        patients={0: "Retired Hypochondriac"},
        faces=[2, 4],
    )
    anytime(state, 1, "Teaching Hospital", 0)  # before the roll: a reminder for this turn's roll
    assert state.doctors[0].reminders
    events = RULES.apply(state, 0, q.StayHome())
    assert of(events, q.DieRolled)[0].owed == 3 and not state.doctors[0].reminders
    events = anytime(state, 1, "Staff Shortage", 0)  # while treating: at once
    assert of(events, q.TreatmentsOwedChanged) == [q.TreatmentsOwedChanged(seat=0, owed=2)]


def test_staff_shortage_cannot_go_below_zero_and_ends_the_phase() -> None:
    """Staff Shortage: owing 0 Treatments ends the treatment phase (payday follows)."""
    state = table(
        hands={
            1: ["Staff Shortage"],
            0: ["Yoga", "Drink More Water", "Get Some Rest", "Knee Tap", "Walk It Off", "Thorough H&P"],
        },
        patients={0: "Retired Hypochondriac"},
        faces=[2],
    )
    RULES.apply(state, 0, q.StayHome())
    treat(state, 0, "Yoga")
    events = anytime(state, 1, "Staff Shortage", 0)
    assert of(events, q.TreatmentsOwedChanged)[0].owed == 0
    assert state.current == 1
    assert [e for e in of(events, q.MoneyPaid) if e.reason == "treatments"][0].amount == 50


@pytest.mark.parametrize(("card", "treatment"), [("Lost Lab Results", "Throat Culture"), ("Overexposed Film", "Xray")])
def test_nullify_cards_make_the_next_treatment_of_their_type_do_nothing(card: str, treatment: str) -> None:
    """Lost Lab Results / Overexposed Film: the next Treatment of that type does nothing, yet counts and pays."""
    state = table(
        hands={1: [card], 0: [treatment, "Drink More Water", "Get Some Rest", "Knee Tap", "Yoga", "Thorough H&P"]},
        patients={0: ("Daycare Lice Outbreak", 0, 0, 0)},
        faces=[2],
    )
    anytime(state, 1, card, 0)
    RULES.apply(state, 0, q.StayHome())
    played = of(treat(state, 0, treatment), q.TreatmentPlayed)[0]
    assert (played.cure, played.harm, played.note, played.received) == (0, 0, "nullified", 1)
    events = treat(state, 0, "Get Some Rest")  # Infectious +1 Cure
    assert [e for e in of(events, q.MoneyPaid) if e.reason == "treatments"][0].amount == CARDS[
        ids(treatment)[0]
    ].price + 25


def test_extra_strength_doubles_the_next_medicine() -> None:
    """Extra Strength: the next Medicine on the Patient counts double, Cure and Harm."""
    state = table(
        hands={
            1: ["Extra Strength"],
            0: ["Aspirin", "Drink More Water", "Get Some Rest", "Knee Tap", "Yoga", "Thorough H&P"],
        },
        patients={0: ("Marathon Collapse", 0, 0, 0)},
        faces=[2],
    )
    anytime(state, 1, "Extra Strength", 0)
    RULES.apply(state, 0, q.StayHome())
    played = of(treat(state, 0, "Aspirin"), q.TreatmentPlayed)[0]
    assert (played.cure, played.note) == (4, "doubled")


@pytest.mark.parametrize(("card", "factor"), [("Claim Denied", 0), ("Upcoding", 2)])
def test_payday_reminders(card: str, factor: int) -> None:
    """Claim Denied pays nothing, Upcoding pays double, at the target's next payday."""
    state = table(
        hands={1: [card], 0: ["Thorough H&P", "Drink More Water", "Get Some Rest", "Knee Tap", "Yoga", "Xray"]},
        patients={0: "Retired Hypochondriac"},
        faces=[2],
    )
    anytime(state, 1, card, 0)
    RULES.apply(state, 0, q.StayHome())
    treat(state, 0, "Thorough H&P")
    events = treat(state, 0, "Drink More Water")
    assert state.doctors[0].money == 325 * factor
    assert not state.doctors[0].reminders
    assert of(events, q.ReminderDiscarded)[0].reason == "used"


def test_unique_reminders_do_not_stack() -> None:
    """One Claim Denied (or Diagnostic Dilemma, Upcoding) waits per doctor: a second has no valid target."""
    state = table(hands={1: ["Claim Denied", "Diagnostic Dilemma"], 2: ["Diagnostic Dilemma"]})
    anytime(state, 1, "Diagnostic Dilemma", 0)
    with pytest.raises(IllegalMove, match="already has"):
        anytime(state, 2, "Diagnostic Dilemma", 0)


# --- response windows (QB8) ---------------------------------------------------------


def test_each_treatment_opens_a_timed_window_for_other_doctors() -> None:
    """QB8: a fair chance between any two Treatments: a window with a Deadline; Pass and Timeout close it."""
    state = table(
        hands={
            0: ["Yoga", "Drink More Water", "Get Some Rest", "Knee Tap", "Walk It Off", "Thorough H&P"],
            1: ["Malpractice Suit"],
            2: ["Walk It Off"],
        },
        patients={0: "Retired Hypochondriac"},
        faces=[3],
        window_seconds=8,
    )
    RULES.apply(state, 0, q.StayHome())
    assert RULES.deadline(state) is None
    events = treat(state, 0, "Yoga")
    assert of(events, q.WindowOpened) == [q.WindowOpened(window=1, seats=(1,))]
    assert RULES.waiting_for(state) == (1,) and state.phase == q.WINDOW
    assert RULES.legal_moves(state, 1)[0] == q.Pass()
    assert RULES.deadline(state) == Deadline(0, 8.0, q.WINDOW, q.Timeout(1))
    with pytest.raises(NotYourTurn):
        treat(state, 0, "Get Some Rest")
    RULES.apply(state, 1, q.Pass())
    assert state.phase == q.TREAT
    treat(state, 0, "Get Some Rest")
    assert state.window == 2
    with pytest.raises(IllegalMove):
        RULES.apply(state, 0, q.Timeout(1))  # a stale timeout does not close the new window
    RULES.apply(state, 0, q.Timeout(2))
    assert state.phase == q.TREAT and RULES.deadline(state) is None


def test_playing_in_a_window_answers_it() -> None:
    """QB8: an Anytime card played in the window resolves at once and counts as the answer."""
    state = table(
        hands={
            0: ["Yoga", "Drink More Water", "Get Some Rest", "Knee Tap", "Walk It Off", "Thorough H&P"],
            1: ["Malpractice Suit", "Tax Audit"],
            2: [],
        },  # seat 2: Treatments only
        patients={0: "Retired Hypochondriac"},
        faces=[3],
        window_seconds=5,
    )
    RULES.apply(state, 0, q.StayHome())
    treat(state, 0, "Yoga")
    assert state.window_seats == [1]
    anytime(state, 1, "Malpractice Suit", 0)
    assert state.phase == q.TREAT and state.doctors[0].infamy == 1


def test_no_window_when_nobody_can_answer() -> None:
    """Windows open only for doctors holding an Anytime card with a valid target."""
    state = table(
        seats=2,
        hands={0: ["Yoga", "Drink More Water", "Get Some Rest", "Knee Tap", "Walk It Off", "Xray"], 1: ["Walk It Off"]},
        patients={0: "Retired Hypochondriac"},
        faces=[3],
        window_seconds=5,
    )
    RULES.apply(state, 0, q.StayHome())
    treat(state, 0, "Yoga")
    assert state.phase == q.TREAT


# --- the end (QB9, QB3) -------------------------------------------------------------


def test_endgame_at_four_seats_when_two_remain() -> None:
    """QB9: when at most 2 doctors remain, each takes one more turn and the game ends."""
    state = table(seats=4)
    RULES.apply(state, 0, q.FleeToSwitzerland())
    events = RULES.apply(state, 1, q.FleeToSwitzerland())
    assert of(events, q.EndgameStarted)[0].seats == (2, 3)
    assert RULES.view(state, None).players[3].final_turn  # seat 2's last turn is under way
    play_out_turn(state)
    assert state.current == 3 and not state.over
    events = play_out_turn(state)
    assert state.over and of(events, q.GameEnded)
    assert RULES.legal_moves(state, 2) == () and RULES.waiting_for(state) == ()


def test_the_doctor_whose_turn_triggers_the_endgame_still_gets_one_more_turn() -> None:
    """QB9: the remaining doctors each take one *more* turn after the trigger."""
    state = table(seats=3, patients={1: "Weekend Warrior"}, infamy={1: 5}, hands={0: ["Malpractice Suit"]})
    events = anytime(state, 0, "Malpractice Suit", 1)  # mobbed during seat 0's turn: 2 remain
    assert of(events, q.EndgameStarted)[0].seats == (0, 2)
    play_out_turn(state)  # seat 0's current turn does not count
    play_out_turn(state)  # seat 2's last
    assert not state.over and state.current == 0
    play_out_turn(state)  # seat 0's last
    assert state.over


@pytest.mark.parametrize(("mode", "ends_after_turns"), [("one_left", 2), ("immediate", 1)])
def test_two_player_endgame_modes(mode: str, ends_after_turns: int) -> None:
    """QB3: with 2 seats, one doctor left takes one more turn (default) or the game ends with the turn."""
    state = table(seats=2, two_player_endgame=mode)
    RULES.apply(state, 0, q.FleeToSwitzerland())
    turns = 1
    while not state.over:
        play_out_turn(state)
        turns += 1
    assert turns == ends_after_turns


def test_two_player_play_on_lasts_until_the_last_doctor_leaves() -> None:
    """QB3 ``play_on``: the last doctor practises on; the game ends when they flee."""
    state = table(seats=2, two_player_endgame="play_on")
    RULES.apply(state, 0, q.FleeToSwitzerland())
    assert not state.endgame
    for _ in range(3):
        play_out_turn(state)  # seat 1's turn, then seat 0's in Switzerland by itself
        assert not state.over and state.current == 1
    RULES.apply(state, 1, q.FleeToSwitzerland())
    assert state.over


def test_round_limit_starts_the_endgame() -> None:
    """QB3: after the round limit every practising doctor takes one more turn, so every game ends."""
    state = table(seats=3, round_limit=1)
    for _ in range(3):
        play_out_turn(state)
    assert state.endgame and state.round == 2
    for _ in range(3):
        play_out_turn(state)
    assert state.over and state.outcome is not None


def test_most_money_wins_the_mobbed_cannot() -> None:
    """QB9: most money among doctors not mobbed wins; the mobbed rank last."""
    state = table(
        seats=3,
        money={0: 900, 1: 5000, 2: 400},
        infamy={1: 5},
        patients={1: "Weekend Warrior"},
        hands={0: ["Malpractice Suit"]},
    )
    anytime(state, 0, "Malpractice Suit", 1)
    RULES.apply(state, 0, q.FleeToSwitzerland())  # one doctor practises: the endgame
    while not state.over:
        RULES.apply(state, state.current, q.FleeToSwitzerland())
    out = RULES.outcome(state)
    assert out.winners == (0,) and out.places == (1, 3, 2)


@pytest.mark.parametrize(("infamy", "winners", "places"), [((2, 1), (1,), (2, 1)), ((1, 1), (0, 1), (1, 1))])
def test_money_ties_go_to_lower_infamy_then_share(infamy, winners, places) -> None:
    """QB9: ties on money go to lower Infamy, then the win is shared."""
    state = table(seats=2, money={0: 800, 1: 800}, infamy={0: infamy[0], 1: infamy[1]}, two_player_endgame="immediate")
    RULES.apply(state, 0, q.FleeToSwitzerland())
    out = RULES.outcome(state)
    assert out.winners == winners and out.places == places


def test_nobody_wins_when_the_mob_gets_everyone() -> None:
    """QB9: only doctors not mobbed can win."""
    state = table(
        seats=2,
        infamy={0: 5, 1: 5},
        patients={0: ("Overdue and Furious", 0, 3, 0), 1: "Weekend Warrior"},
        hands={0: ["Malpractice Suit", "Nurse Has the Night Off"]},
        two_player_endgame="immediate",
    )
    anytime(state, 0, "Malpractice Suit", 1)
    assert not state.over
    anytime(state, 0, "Nurse Has the Night Off", 0)  # its own Patient dies: Infamy 8
    assert state.over and RULES.outcome(state).winners == ()


# --- variants (QB3) -------------------------------------------------------------------


def test_turbo_infamy_gives_every_practising_doctor_one() -> None:
    """Turbo-Infamy: when a Patient dies, everyone (still practising) gains 1 Infamy."""
    state = table(
        seats=4,
        turbo_infamy=True,
        patients={1: ("Overdue and Furious", 0, 3, 0)},
        hands={2: ["Nurse Has the Night Off"]},
    )
    RULES.apply(state, 0, q.FleeToSwitzerland())
    anytime(state, 2, "Nurse Has the Night Off", 1)
    assert [d.infamy for d in state.doctors] == [0, 4, 1, 1]


def test_group_practice_treats_any_patient_and_the_killer_takes_the_infamy() -> None:
    """Group Practice: Treatments on any Patient, paid if it survives; the killing card's player takes all the Infamy."""
    state = table(
        group_practice=True,
        hands={0: ["Xray", "Stitches", "Get Some Rest", "Knee Tap", "Walk It Off", "Thorough H&P"]},
        patients={0: "Retired Hypochondriac", 1: ("Overdue and Furious", 0, 3, 0), 2: ("Weekend Warrior", 0, 0, 0)},
        faces=[3],
    )
    RULES.apply(state, 0, q.StayHome())
    xray = card_in_hand(state, 0, "Xray")
    assert q.PlayTreatment(xray, 1) in RULES.legal_moves(state, 0)
    treat(state, 0, "Xray", 1)  # Pregnancy +2 Harm kills seat 1's Patient
    assert state.doctors[0].infamy == 3 and state.doctors[1].infamy == 0
    treat(state, 0, "Stitches", 2)  # MT +2 on seat 2's Patient, $150
    events = treat(state, 0, "Get Some Rest")
    paid = [e for e in of(events, q.MoneyPaid) if e.reason == "treatments"][0]
    assert paid.amount == 150 + 25


def test_without_group_practice_only_your_own_patient() -> None:
    """Rulebook: Treatments go on your own Patient unless Group Practice is on."""
    state = table(
        hands={0: ["Xray", "Stitches", "Get Some Rest", "Knee Tap", "Walk It Off", "Thorough H&P"]},
        patients={0: "Retired Hypochondriac", 1: "Weekend Warrior"},
        faces=[3],
    )
    RULES.apply(state, 0, q.StayHome())
    with pytest.raises(IllegalMove, match="Group Practice"):
        treat(state, 0, "Xray", 1)


# --- refused moves change nothing -----------------------------------------------------


def _bad_moves(state: QuackState) -> list[tuple[int, Any, type]]:
    heparin = ids("Heparin")[0]
    not_mine = next(c for c in state.hands[1])
    return [
        (0, "StayHome", MalformedMove),
        (0, q.PlayTreatment("7"), MalformedMove),
        (0, q.PlayTreatment(True), MalformedMove),
        (0, q.PlayAnytime(3, 1.0), MalformedMove),
        (7, q.StayHome(), MalformedMove),
        (1, q.StayHome(), NotYourTurn),
        (0, q.PlayTreatment(heparin), IllegalMove),
        (0, q.PlayTreatment(not_mine), IllegalMove),
        (0, q.PlayTreatment(99999), IllegalMove),
        (0, q.Discard(state.hands[0][0]), IllegalMove),
        (0, q.Pass(), IllegalMove),
        (0, q.Timeout(0), IllegalMove),
        (0, q.PlayAnytime(card_in_hand(state, 0, "Placebo"), 2), IllegalMove),  # seat 2 has no Patient
        (0, q.PlayAnytime(card_in_hand(state, 0, "Placebo"), 9), IllegalMove),
        (0, q.PlayAnytime(card_in_hand(state, 0, "Placebo"), 1, 2), IllegalMove),
        (0, q.PlayAnytime(card_in_hand(state, 0, "Yoga"), 1), IllegalMove),
    ]


def test_refused_moves_raise_typed_errors_and_change_nothing() -> None:
    """Errors: MalformedMove / NotYourTurn / IllegalMove with a plain sentence; the state is untouched."""
    state = table(hands={0: ["Placebo"]}, patients={1: "Weekend Warrior"})
    before = snapshot(state)
    copy_before = copy.deepcopy(state)
    for seat, move, error in _bad_moves(state):
        with pytest.raises(error) as info:
            RULES.apply(state, seat, move)
        assert str(info.value).endswith(".") and len(str(info.value)) > 10
        assert snapshot(state) == before, f"{move!r} changed the state"
    assert snapshot(copy_before) == before


def test_a_listed_move_is_checked_again_when_applied() -> None:
    """apply checks every move, one that legal_moves listed included: by
    another seat, by a bool for a seat, or in a state changed since (by hand)
    it is refused."""
    state = table(hands={0: ["Placebo"]}, patients={0: "Weekend Warrior"})
    stay = RULES.legal_moves(state, 0)[0]
    assert stay == q.StayHome()
    before = snapshot(state)
    with pytest.raises(NotYourTurn):
        RULES.apply(state, 1, stay)
    with pytest.raises(MalformedMove):
        RULES.apply(state, False, stay)  # False == 0, but no seat
    assert snapshot(state) == before
    RULES.apply(state, 0, stay)
    placebo = card_in_hand(state, 0, "Placebo")
    treat_it = next(m for m in RULES.legal_moves(state, 0) if getattr(m, "card", None) == placebo)
    state.hands[0].remove(placebo)
    state.doc_discard.append(placebo)
    with pytest.raises(IllegalMove, match="not in your hand"):
        RULES.apply(state, 0, treat_it)


def test_the_message_names_the_card() -> None:
    """Errors name the bad input: "Heparin (card n) is not in your hand."."""
    state = table(hands={0: ["Placebo"]})
    RULES.apply(state, 0, q.StayHome())
    heparin = ids("Heparin")[0]
    if heparin in state.hands[0]:
        heparin = ids("Heparin")[0]
    with pytest.raises(IllegalMove, match=r"Heparin \(card \d+\) is not in your hand\."):
        RULES.check(state, 0, q.PlayTreatment(heparin))


def test_no_move_after_the_game_ends() -> None:
    """GameOver once the game has ended."""
    state = table(seats=2, two_player_endgame="immediate")
    RULES.apply(state, 0, q.FleeToSwitzerland())
    assert state.over
    before = snapshot(state)
    with pytest.raises(GameOver):
        RULES.apply(state, 1, q.StayHome())
    assert snapshot(state) == before


# --- options ------------------------------------------------------------------------


def test_options_parse_plain_values_and_command_line_text() -> None:
    """QB3 options, from the wire or the command line."""
    opts = RULES.parse_options(
        {"infamy-threshold": "10", "turbo_infamy": "yes", "two-player-endgame": "play-on", "window_seconds": 2}
    )
    assert opts == q.QuackOptions(
        infamy_threshold=10, turbo_infamy=True, two_player_endgame="play_on", window_seconds=2.0
    )
    assert RULES.default_options() == q.QuackOptions()
    assert RULES.parse_options(opts) == opts


@pytest.mark.parametrize(
    "bad",
    [
        {"colour": 1},
        {"infamy_threshold": 0},
        {"infamy_threshold": 2.5},
        {"deathmatch": "maybe"},
        {"round_limit": True},
        {"two_player_endgame": "sudden"},
        {"window_seconds": -1},
        {"round_limit": "many"},
    ],
)
def test_bad_options_are_refused_with_a_sentence(bad: dict) -> None:
    with pytest.raises(BadOptions) as info:
        RULES.parse_options(bad)
    assert str(info.value).endswith(".")


def test_bad_seat_counts_and_first_seats() -> None:
    """QB2: 2-8 seats."""
    for seats in (1, 9, True, "4"):
        with pytest.raises(BadOptions):
            RULES.new_game(seats=seats, seed=1)
    with pytest.raises(BadOptions):
        RULES.new_game(seats=3, seed=1, options={"first_seat": 3})


# --- describe ----------------------------------------------------------------------------


def test_describe_tells_the_reader_you() -> None:
    """The log speaks to the reader: "You drew ..." for the drawer, a count for the rest."""
    state = table(hands={0: ["Stitches", "Xray", "Yoga", "Aspirin"]}, doc_top=["Knee Tap", "Get Some Rest"], pad=False)
    events = RULES.apply(state, 0, q.StayHome())
    drawn = of(events, q.CardsDrawn)[0]
    names = ["Ana", "Ben", "Cy"]
    assert RULES.describe(RULES.redact(drawn, 0), names, 0) == "You drew Knee Tap, Get Some Rest."
    assert RULES.describe(RULES.redact(drawn, 1), names, 1) == "Ana drew 2 cards."


# --- the invariant harness (tests/core/invariants.py) ---------------------------------


class QuackAdapter(Adapter):
    """Quack in the Box for the shared invariant harness."""

    rules = RULES
    card_types = (Patient, Treatment, Anytime)
    event_card_fields = frozenset({"card", "cards", "patient", "discard"})

    def __init__(self) -> None:
        self.game: QuackState | None = None
        self.frozen: dict[int, tuple[int, int]] = {}

    def all_cards(self, state: QuackState) -> Counter:
        return Counter(range(len(state.cards)))

    def locations(self, state: QuackState) -> Counter:
        where: Counter = Counter(state.patient_deck)
        for pile in (state.patient_discard, state.doc_deck, state.doc_discard, *state.hands):
            where.update(pile)
        for doctor in state.doctors:
            where.update(doctor.reminders)
            case = doctor.case
            if case is not None:
                where[case.card] += 1
                where.update(case.treatments)
                where.update(case.reminders)
        return where

    def assert_conserved(self, state: QuackState) -> None:
        assert self.locations(state) == self.all_cards(state), "cards lost or duplicated"

    def hidden_from(self, state: QuackState, seat: int | None) -> set[int]:
        hidden = set(state.doc_deck) | set(state.patient_deck)
        for other, hand in enumerate(state.hands):
            if other != seat:
                hidden.update(hand)
        for doctor in state.doctors:
            if doctor.case is not None and doctor.case.face_down:
                hidden.add(doctor.case.card)  # from everyone, its doctor included
        return hidden

    def before_step(self, state: QuackState) -> Any:
        # The cards in the decks, and the Treatments played face up this turn so far.
        return set(state.doc_deck) | set(state.patient_deck), {c for c, _ in state.plays}

    def shown_during(self, note: Any, state: QuackState, events: Sequence[Any]) -> set[int]:
        in_decks, played = note
        # Cards that reached a deck during the move came from a face-up discard pile.
        shown = (set(state.doc_deck) | set(state.patient_deck)) - in_decks
        played = set(played)
        for e in events:
            kind = type(e)
            if kind is q.CardsDiscarded:
                shown.update(e.cards)
            elif kind in (q.PatientCured, q.PatientDied, q.PatientDischarged, q.PatientRevealed):
                shown.add(e.patient)
            elif kind in (q.TreatmentPlayed, q.AnytimePlayed, q.ReminderDiscarded):
                shown.add(e.card)
                if kind is q.TreatmentPlayed:
                    played.add(e.card)
            elif kind is q.MoneyPaid:
                # Payday names the Treatments played this turn: face up when
                # played, though one may since have been discarded with its
                # Patient and shuffled back into the deck. Only those.
                shown.update(set(e.cards) & played)
            elif kind is q.TurnStarted:
                played = set()
        return shown

    def check_step(self, state: QuackState, events: Sequence[Any]) -> None:
        quack_invariants(state)
        if state is not self.game:
            self.game, self.frozen = state, {}
        for e in events:
            if type(e) is q.DoctorFled:
                self.frozen[e.seat] = (e.money, e.infamy)
            elif type(e) is q.WindowOpened and state.phase == q.WINDOW and state.window == e.window:
                # QB8: a response window waits for exactly the other doctors
                # who could play an Anytime card now, as legal_moves lists them.
                can_answer = [
                    s
                    for s in range(state.seats)
                    if s != state.current and any(type(m) is q.PlayAnytime for m in RULES.legal_moves(state, s))
                ]
                assert sorted(e.seats) == can_answer, f"window {e.seats}, but {can_answer} hold a playable card"
        for seat, doctor in enumerate(state.doctors):
            frozen = self.frozen.get(seat)
            if frozen is not None:
                assert (doctor.money, doctor.infamy) == frozen, f"seat {seat}'s money or Infamy changed in Switzerland"

    def fingerprint(self, state: QuackState) -> Any:
        return snapshot(state)


def quack_invariants(state: QuackState) -> None:
    """What holds in every Quack in the Box state, whatever the moves."""
    seen: Counter = QuackAdapter().locations(state)
    assert seen == Counter(range(len(state.cards))), "every card is in exactly one place"
    cards = state.cards
    assert all(isinstance(cards[c], Patient) for c in state.patient_deck + state.patient_discard)
    assert not any(isinstance(cards[c], Patient) for c in state.doc_deck + state.doc_discard)
    threshold = state.options.infamy_threshold
    for seat, doctor in enumerate(state.doctors):
        assert doctor.money >= 0 and doctor.infamy >= 0
        assert not any(isinstance(cards[c], Patient) for c in state.hands[seat])
        if doctor.status == q.MOBBED:
            assert not state.hands[seat] and doctor.case is None and not doctor.reminders
        else:
            assert doctor.status == q.SWITZERLAND or doctor.infamy < threshold or state.over
        if doctor.status != q.PRACTISING:
            assert doctor.case is None and not doctor.reminders
        case = doctor.case
        if case is not None:
            patient = state.cards[case.card]
            assert isinstance(patient, Patient)
            assert case.harm < patient.kill and case.cure < patient.cure
            assert not patient.mortal or case.received < patient.mortal
            assert all(isinstance(cards[c], Treatment) for c in case.treatments)
            assert len(case.treatments) == case.received
    if state.over:
        assert state.outcome is not None and state.phase == q.OVER
    else:
        assert state.phase in (q.FLEE, q.TREAT, q.SHORT_HAND, q.WINDOW)
        assert state.doctors[state.current].status != q.MOBBED or state.phase == q.WINDOW
        if state.phase == q.WINDOW:
            assert state.window_seats and state.current not in state.window_seats
        assert 1 <= state.round <= state.options.round_limit + 1


class NervousRandomBot(RandomBot):
    """A random doctor that rarely flees (random ones flee half the time, so
    games would end before reaching deep states) and plays Anytime cards unasked."""

    reacts = True

    def choose(self, view: Any) -> Any:
        legal = [m for m in view.legal if not isinstance(m, q.FleeToSwitzerland) or self.rng.random() < 0.05]
        return self.rng.choice(legal or view.legal)

    def react(self, view: Any) -> Any:
        if view.legal and self.rng.random() < 0.03:
            return self.rng.choice(view.legal)
        return None


QUACK_OPTION_CHOICES = {
    "turbo_infamy": (False, False, True),
    "group_practice": (False, False, True),
    "deathmatch": (False, False, True),
    "window_seconds": (0, 10),
    "infamy_threshold": (6, 6, 3, 12),
    "round_limit": (30, 12, 4),
    "two_player_endgame": q.TWO_PLAYER_ENDGAMES,
}


def _quack_table(seed: int, seats: int) -> list[Any]:
    kinds = (RandomBot, NervousRandomBot, NervousRandomBot, QuackBot)
    rng = random.Random(seed)
    return [rng.choice(kinds)(seed * 10 + s) for s in range(seats)]


QUACK_GAMES = 200


@pytest.mark.parametrize("chunk", range(5))
def test_quack_invariants(chunk: int) -> None:
    """Invariants over 200 seeded games at 2-8 seats with options on and off: no
    exception, every game ends, cards conserved, no leaks, Switzerland frozen."""
    adapter = QuackAdapter()
    for seed in range(chunk * QUACK_GAMES // 5, (chunk + 1) * QUACK_GAMES // 5):
        rng = random.Random(seed)
        seats = 2 + seed % 7
        options = invariants.random_options(RULES, rng, QUACK_OPTION_CHOICES)
        every = 1 if seed % 15 == 0 else 25
        play_checked(adapter, _quack_table(seed, seats), seed=seed, options=options, check_views_every=every)


def test_clone_plays_on_the_same_and_alone() -> None:
    """RULES.clone: the copy, given the same moves, gives the same events and
    views as the original, RNG included; changing the copy leaves the
    original alone, down to its doctors' Patients."""
    from quackbox.core.play import next_move

    options = {"window_seconds": 5, "group_practice": True, "turbo_infamy": True}
    state = RULES.new_game(seats=4, seed=12, options=options)
    bots = _quack_table(12, 4)
    while state.round < 3:  # into the game: Patients in the offices, reminders, discards
        seat, move = next_move(RULES, state, bots)
        RULES.apply(state, seat, move)
    assert not state.over and state.doc_discard
    twin = RULES.clone(state)
    assert twin is not state and snapshot(twin) == snapshot(state)
    while not state.over:
        seat, move = next_move(RULES, state, bots)
        assert RULES.apply(twin, seat, move) == RULES.apply(state, seat, move)
        for viewer in (0, 1, 2, 3, None):
            assert RULES.view(twin, viewer) == RULES.view(state, viewer)
    assert snapshot(twin) == snapshot(state)

    state = RULES.new_game(seats=3, seed=5, options=options)
    while state.round < 2:
        seat, move = next_move(RULES, state, bots[:3])
        RULES.apply(state, seat, move)
    assert any(doctor.case is not None for doctor in state.doctors)
    before = snapshot(state)
    twin = q.clone(state)
    twin.rng.random()
    for pile in (twin.doc_deck, twin.doc_discard, twin.patient_deck, twin.patient_discard, *twin.hands):
        pile.append(-1)
    for doctor in twin.doctors:
        doctor.money += 1
        doctor.reminders.append(-1)
        if doctor.case is not None:
            doctor.case.harm += 1
            doctor.case.treatments.append(-1)
    twin.plays.append((-1, -1))
    twin.dead.add(-1)
    twin.final_pending.add(-1)
    twin.window_seats.append(-1)
    assert snapshot(state) == before


def test_every_event_has_a_sentence() -> None:
    """describe: every kind of event met in play reads as a sentence, not a repr; but a
    response window opening, which has none (the table's status line shows it)."""
    seen: set[type] = set()
    names = [f"Doc{i}" for i in range(8)]
    for seed in range(40):
        seats = 2 + seed % 7
        options = {"window_seconds": 5, "turbo_infamy": seed % 3 == 0, "round_limit": 12}
        state = RULES.new_game(seats=seats, seed=seed, options=options)
        bots = _quack_table(seed, seats)
        from quackbox.core.play import next_move

        events = list(state.start_events)
        while not state.over:
            seat, move = next_move(RULES, state, bots)
            events += RULES.apply(state, seat, move)
        for e in events:
            for reader in (None, 0, 1):
                seen_event = RULES.redact(e, reader)
                text = RULES.describe(seen_event, names[:seats], reader)
                if type(e) is q.WindowOpened:
                    assert text == ""
                    continue
                assert text and not text.startswith(type(e).__name__ + "("), text
            seen.add(type(e))
    missing = set(q.EVENT_TYPES) - seen
    assert len(missing) <= 3, f"event types never met in 40 games: {missing}"


def test_wire_types_are_plain() -> None:
    """Moves, events, cards and views hold only ints, strs (StrEnums among them), bools,
    floats, None, tuples and listed dataclasses."""
    import enum

    listed = set(RULES.wire_types())
    assert set(RULES.move_types()) <= listed
    state = RULES.new_game(seats=4, seed=3, options={"window_seconds": 5})

    def plain(value: Any) -> None:
        if value is None or type(value) in (int, str, bool, float) or isinstance(value, enum.StrEnum):
            return
        if type(value) is tuple:
            for v in value:
                plain(v)
            return
        assert type(value) in listed, f"{type(value).__name__} is not a wire type"
        for f in dataclasses.fields(value):
            plain(getattr(value, f.name))

    for seat in (0, 1, None):
        plain(RULES.view(state, seat))
    for move in RULES.legal_moves(state, state.current):
        plain(move)
        assert eval(repr(move), vars(q)) == move


def _garbage_move(rng: random.Random, state: QuackState) -> Any:
    """A move of any type with fields that are often nonsense (wrong seat, card, type)."""
    cards = len(state.cards)

    def field() -> Any:
        roll = rng.random()
        if roll < 0.6:
            return rng.choice([rng.randrange(-2, cards + 3), rng.randrange(-1, state.seats + 2)])
        if roll < 0.8:
            pool = [c for h in state.hands for c in h] or [0]
            return rng.choice(pool)
        return rng.choice(["3", None, 2.0, True, (1,), -1])

    kind = rng.choice(q.MOVE_TYPES + (str,))
    if kind is str:
        return "PlayTreatment(3)"
    return kind(*[field() for _ in dataclasses.fields(kind)])


def test_fuzzed_moves_are_accepted_or_refused_cleanly() -> None:
    """Every input is accepted or refused with a RulesError; a refusal changes nothing."""
    from quackbox.core.rules import RulesError

    accepted = refused = 0
    for seed in range(12):
        rng = random.Random(seed)
        seats = 2 + seed % 7
        options = {"window_seconds": rng.choice((0, 5)), "group_practice": seed % 4 == 0}
        state = RULES.new_game(seats=seats, seed=seed, options=options)
        bots = [NervousRandomBot(seed * 10 + s) for s in range(seats)]
        from quackbox.core.play import next_move

        while not state.over:
            for _ in range(3):
                move = _garbage_move(rng, state)
                seat = rng.choice([rng.randrange(seats), -1, seats, "0"])
                before = snapshot(state)
                try:
                    RULES.apply(state, seat, move)
                except RulesError:
                    refused += 1
                    assert snapshot(state) == before, f"refused {move!r} by {seat!r} changed the state"
                else:
                    accepted += 1
                    quack_invariants(state)
                if state.over:
                    break
            if not state.over:
                seat, move = next_move(RULES, state, bots)
                RULES.apply(state, seat, move)
    assert refused > 500 and accepted > 5


def test_case_fate_checks_harm_then_cure_then_mortal():
    """QB4: a Treatment that both kills and cures kills; Mortal counts Treatments received."""
    patient = next(c for c in q.RULES.cards if isinstance(c, Patient) and c.mortal)
    assert q.case_fate(patient, patient.cure, patient.kill, 1) == "harm"
    assert q.case_fate(patient, patient.cure, 0, patient.mortal) == q.CURED
    assert q.case_fate(patient, 0, 0, patient.mortal) == "mortal"
    assert q.case_fate(patient, 0, 0, patient.mortal - 1) is None


# --- check agrees with legal_moves ----------------------------------------------------


def _quack_candidates(state: QuackState, rng: random.Random) -> list[Any]:
    """A broad set of moves of every kind: over the cards in hands and a few
    that are not, every seat and one past each end, and for each Anytime card
    its second seat and discard both where it takes them and where it does not."""
    n = len(state.cards)
    in_hands = sorted({c for hand in state.hands for c in hand} | set(rng.sample(range(n), 3)) | {-1, n})
    seats = range(-1, state.seats + 1)
    moves: list[Any] = [q.StayHome(), q.FleeToSwitzerland(), q.Pass()]
    moves += [q.Timeout(state.window + d) for d in (-1, 0, 1)]
    moves += [q.Discard(c) for c in in_hands]
    moves += [q.PlayTreatment(c, t) for c in in_hands for t in seats]
    for c in in_hands:
        card = state.cards[c] if 0 <= c < n else None
        if not isinstance(card, Anytime):
            moves += [q.PlayAnytime(c, t) for t in seats]
            continue
        aim = AIMS[card.effect]
        others = seats if aim in ("redirect", "swap") else (q.NONE, rng.randrange(state.seats))
        discards = in_hands if aim == "own_hand" else (q.NONE, rng.choice(in_hands))
        moves += [q.PlayAnytime(c, t, o, d) for t in seats for o in others for d in discards]
    return moves


def _quack_audit(state: QuackState, rng: random.Random) -> int:
    """Every candidate of every seat passes ``check`` if and only if
    ``legal_moves`` lists it (a Timeout, the host's, only for the open window);
    asking changes nothing. Returns how many were checked."""
    before = snapshot(state)
    legals = [RULES.legal_moves(state, seat) for seat in range(state.seats)]
    candidates = _quack_candidates(state, rng)
    checked = 0
    for seat, legal in enumerate(legals):
        assert len(set(legal)) == len(legal), "a legal move is listed twice"
        listed = set(legal)
        for move in [*legal, *candidates]:
            try:
                RULES.check(state, seat, move)
                ok = True
            except (MalformedMove, NotYourTurn, IllegalMove, GameOver) as error:
                assert str(error).endswith(".") and len(str(error)) > 10, str(error)
                ok = False
            checked += 1
            if type(move) is q.Timeout:
                assert ok == (state.phase == q.WINDOW and move.window == state.window), (seat, move)
                continue
            assert ok == (move in listed), (
                f"check {'accepts' if ok else 'refuses'} but legal_moves {'lists' if move in listed else 'omits'}"
                f" seat {seat} {move!r} in phase {state.phase}"
            )
    assert snapshot(state) == before, "check or legal_moves changed the state"
    return checked


def test_check_agrees_with_legal_moves_in_random_games() -> None:
    """quackbox.core.rules: check passes iff legal_moves lists the move, in
    random games with every option (Group Practice, Deathmatch, windows), at
    every phase; as Side Effects' own audit does."""
    audits = checked = 0
    for seed in range(16):
        rng = random.Random(seed)
        seats = 2 + seed % 7
        options = invariants.random_options(RULES, rng, QUACK_OPTION_CHOICES)
        state = RULES.new_game(seats=seats, options=options, seed=seed)
        bots = _quack_table(seed, seats)
        phases_seen: set[str] = set()
        for _step in range(400):
            if state.over:
                break
            if state.phase not in phases_seen or rng.random() < 0.015:
                phases_seen.add(state.phase)
                checked += _quack_audit(state, rng)
                audits += 1
            seat, move = next_move_of(bots, state)
            RULES.apply(state, seat, move)
        checked += _quack_audit(state, rng)
        audits += 1
    assert audits >= 60 and checked > 50_000, (audits, checked)


def next_move_of(bots: list[Any], state: QuackState) -> tuple[int, Any]:
    from quackbox.core.play import next_move

    return next_move(RULES, state, bots)
