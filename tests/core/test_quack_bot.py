"""The heuristic Quack in the Box bot: judgement in set positions, strength, balance (QB10)."""

from __future__ import annotations

import pytest

from quackbox.core import bots as bot_registry
from quackbox.core import quack as q
from quackbox.core.bots import RandomBot
from quackbox.core.play import play_game
from quackbox.core.quack import RULES
from quackbox.core.quack.bot import QuackBot, SharpQuackBot
from tests.core.test_quack_rules import NervousRandomBot, card_in_hand, table, treat


def test_registered_for_quack() -> None:
    bot = bot_registry.make("quack", "heuristic", 3)
    assert isinstance(bot, QuackBot) and bot.reacts
    assert {"heuristic", "random"} <= set(bot_registry.kinds("quack"))


def _treating(hand, patient, owed_faces, **kw):
    state = table(hands={0: hand}, patients={0: patient}, faces=owed_faces, **kw)
    RULES.apply(state, 0, q.StayHome())
    return state


def test_plays_the_cure_before_the_killer() -> None:
    """Phase 5: with only a cure and a killer in hand, cure first (the rest is then waived)."""
    state = _treating(
        [
            "Heparin",
            "Tourniquet",
            "Diagnostic Dilemma",
            "Teaching Hospital",
            "Glowing Online Review",
            "Lost Lab Results",
        ],
        "Nosebleed That Won't Quit",
        [3],
    )
    move = QuackBot(1).choose(RULES.view(state, 0))
    assert move == q.PlayTreatment(card_in_hand(state, 0, "Tourniquet"))


def test_bills_harmless_treatments_before_the_cure() -> None:
    """QB5: every Treatment pays if the Patient survives, so play the harmless paying ones, then cure."""
    state = _treating(
        ["Heparin", "Tourniquet", "Yoga", "Knee Tap", "Drink More Water", "Get Some Rest"],
        "Nosebleed That Won't Quit",
        [3],
    )
    played = []
    while state.current == 0:
        move = QuackBot(1).choose(RULES.view(state, 0))
        played.append(q.RULES.cards[move.card].name)
        RULES.apply(state, 0, move)
    assert played[-1] == "Tourniquet" and len(played) == 3 and "Heparin" not in played
    assert state.doctors[0].money == 75 + 50 + 100  # the Patient was placed, so no co-pay


def test_keeps_a_fragile_patient_alive() -> None:
    """QB4/QB5: a Treatment that would kill forfeits the round's pay and brings Infamy: avoid it."""
    state = _treating(
        ["Knee Tap", "Drink More Water", "Get Some Rest", "Thorough H&P", "Pelvic Exam", "Ultrasound"],
        ("Weekend Warrior", 0, 5, 0),
        [2],
    )
    for _ in range(2):
        move = QuackBot(1).choose(RULES.view(state, 0))
        assert q.RULES.cards[move.card].name != "Knee Tap"
        RULES.apply(state, 0, move)
    assert state.doctors[0].infamy == 0


def test_prefers_money_among_harmless_treatments() -> None:
    """Neutral Treatments still pay: the expensive harmless one goes first."""
    state = _treating(
        ["Drink More Water", "Full-Body MRI", "Get Some Rest", "Stool Softener", "Pelvic Exam", "IV Saline"],
        "Retired Hypochondriac",
        [2],
    )
    move = QuackBot(1).choose(RULES.view(state, 0))
    assert q.RULES.cards[move.card].name == "Full-Body MRI"


def test_flees_when_one_more_death_brings_the_mob() -> None:
    """Phase 1: at Infamy 5 of 6 with money worth keeping and a dangerous Patient, go to Switzerland."""
    state = table(
        hands={0: []},
        patients={0: ("Overdue and Furious", 0, 3, 0)},
        infamy={0: 5},  # Treatments only
        money={0: 3000, 1: 2500, 2: 2000},
    )
    assert QuackBot(1).choose(RULES.view(state, 0)) == q.FleeToSwitzerland()


def test_stays_when_safe() -> None:
    state = table(patients={0: "Retired Hypochondriac"}, money={0: 500, 1: 600, 2: 700})
    assert QuackBot(1).choose(RULES.view(state, 0)) == q.StayHome()


def test_never_offers_to_flee_in_deathmatch() -> None:
    state = table(patients={0: ("Overdue and Furious", 0, 3, 0)}, infamy={0: 5}, money={0: 3000}, deathmatch=True)
    move = QuackBot(1).choose(RULES.view(state, state.current))
    assert move in RULES.legal_moves(state, state.current)


def test_uses_an_anytime_card_to_bring_the_mob_on_the_leader() -> None:
    """QB8 with purpose, off-turn (react): push the richest rival over the Infamy threshold."""
    state = table(
        hands={2: ["Malpractice Suit", "Placebo"]},
        infamy={1: 5},
        money={1: 4000, 2: 1000},
        patients={1: "Weekend Warrior"},
    )
    move = QuackBot(1).react(RULES.view(state, 2))
    assert move == q.PlayAnytime(card_in_hand(state, 2, "Malpractice Suit"), 1)


def test_kills_a_rivals_fragile_patient_in_a_window() -> None:
    """Response window: Nurse Has the Night Off on a rival's dying Patient puts Infamy on them."""
    state = table(
        hands={
            0: ["Yoga", "Drink More Water", "Get Some Rest", "Knee Tap", "Walk It Off", "Thorough H&P"],
            1: ["Nurse Has the Night Off"],
        },
        patients={0: ("Overdue and Furious", 0, 3, 0)},
        infamy={0: 4},
        money={0: 3000, 1: 500},
        faces=[3],
        window_seconds=5,
    )
    RULES.apply(state, 0, q.StayHome())
    treat(state, 0, "Yoga")
    assert state.phase == q.WINDOW
    move = QuackBot(1).choose(RULES.view(state, 1))
    assert move == q.PlayAnytime(card_in_hand(state, 1, "Nurse Has the Night Off"), 0)


def test_passes_and_stays_quiet_when_nothing_is_worth_it() -> None:
    state = table(
        hands={
            0: ["Yoga", "Drink More Water", "Get Some Rest", "Knee Tap", "Walk It Off", "Thorough H&P"],
            1: ["Placebo"],
        },
        patients={0: "Retired Hypochondriac"},
        faces=[3],
        window_seconds=5,
    )
    RULES.apply(state, 0, q.StayHome())
    assert QuackBot(1).react(RULES.view(state, 1)) is None
    treat(state, 0, "Yoga")
    assert QuackBot(1).choose(RULES.view(state, 1)) == q.Pass()


def test_cures_its_own_patient_with_placebo() -> None:
    state = table(hands={1: ["Placebo"]}, patients={1: ("Weekend Warrior", 2, 0, 0), 0: "Retired Hypochondriac"})
    move = QuackBot(1).react(RULES.view(state, 1))
    assert move == q.PlayAnytime(card_in_hand(state, 1, "Placebo"), 1)


def test_the_sharp_doctor_spends_an_anytime_card_the_normal_one_keeps() -> None:
    """A $300 Tax Audit on rivals who have $80 each is worth about $100 to seat 1:
    under the normal bar, over the sharp one."""
    state = table(
        hands={
            0: ["Yoga", "Drink More Water", "Get Some Rest", "Knee Tap", "Walk It Off", "Thorough H&P"],
            1: ["Tax Audit"],
        },
        patients={0: "Retired Hypochondriac"},
        money={0: 80, 1: 50, 2: 80},
        faces=[3],
        window_seconds=5,
    )
    RULES.apply(state, 0, q.StayHome())
    treat(state, 0, "Yoga")
    assert state.phase == q.WINDOW
    view = RULES.view(state, 1)
    assert QuackBot(1).choose(view) == q.Pass()
    move = SharpQuackBot(1).choose(view)
    assert isinstance(move, q.PlayAnytime) and move.card == card_in_hand(state, 1, "Tax Audit")


def test_the_sharp_doctor_stays_with_a_patient_not_yet_near_death() -> None:
    """One death from the Mob (Infamy 3, the Patient's 3 would make 6) with a Patient
    at 2 Harm of 5: the normal doctor flees, the sharp one keeps practising."""
    state = table(
        hands={0: []},
        patients={0: ("Overdue and Furious", 0, 2, 0)},
        infamy={0: 3},
        money={0: 3000, 1: 2500, 2: 2000},
    )
    view = RULES.view(state, 0)
    assert QuackBot(1).choose(view) == q.FleeToSwitzerland()
    assert SharpQuackBot(1).choose(view) == q.StayHome()


def test_the_sharp_doctor_is_registered_and_beats_normal_ones() -> None:
    """Kind ``sharp`` for sim and bench; over 200 seeded games against three normal
    doctors, seats rotated, it wins well above a fair quarter."""
    assert isinstance(bot_registry.make("quack", "sharp", 1), SharpQuackBot)

    def rotated(seed: int) -> list[QuackBot]:
        seats = [QuackBot(seed * 4 + i) for i in range(4)]
        seats[seed % 4] = SharpQuackBot(seed * 4 + seed % 4)
        return seats

    won = 0.0
    for seed in range(200):
        winners = play_game(RULES, rotated(seed), seed=seed).outcome.winners
        won += 1 / len(winners) if seed % 4 in winners else 0.0
    assert won / 200 > 0.3


def _wins(table_of, games: int, seat: int = 0) -> float:
    won = 0.0
    for seed in range(games):
        record = play_game(RULES, table_of(seed), seed=seed)
        winners = record.outcome.winners
        if seat in winners:
            won += 1 / len(winners)
    return won / games


def test_heuristic_beats_random_bots() -> None:
    """The heuristic doctor wins far more than a fair quarter against three random ones."""
    share = _wins(lambda s: [QuackBot(s)] + [RandomBot(s * 7 + i) for i in range(3)], 60)
    assert share > 0.6, share


def test_heuristic_beats_random_doctors_who_rarely_flee() -> None:
    """Random doctors that stay in practice are a harder field; still well above a fair quarter."""
    share = _wins(lambda s: [QuackBot(s)] + [NervousRandomBot(s * 7 + i) for i in range(3)], 100)
    assert share > 0.35, share


def test_balance_qb10_at_four_seats() -> None:
    """QB10 (sample of 50 games; the full measurement is in docs/QUACK_RULINGS.md): default
    options, heuristic bots, 4 seats: 30-60% cured, 20-50% died, median 6-20 rounds."""
    records = [play_game(RULES, [QuackBot(g * 10 + i) for i in range(4)], seed=g, keep_events=True) for g in range(50)]
    report = q.balance_report(records)
    assert 30 <= report["cured_pct"] <= 60, report
    assert 20 <= report["died_pct"] <= 50, report
    assert 6 <= report["median_rounds"] <= 20, report
    assert report["no_winner_pct"] < 20, report


def test_balance_report_needs_records() -> None:
    with pytest.raises(ValueError):
        q.balance_report([])
