"""The Quack in the Box deck (QB1) and its loader's refusals."""

from __future__ import annotations

import dataclasses

import pytest

from quackbox.cards import quack as qc
from quackbox.cards.data import CardDataError
from quackbox.cards.quack import Anytime, Patient, Treatment

DECK = qc.load()


def test_the_shipped_deck_meets_qb1() -> None:
    """QB1: >= 30 Patients covering all 12 illness types (1-3 each, Cure 2-10, some Mortal),
    >= 35 Treatments covering all 7 types ($0-$2000, some "All others"), >= 12 distinct Anytime cards."""
    patients, treatments, anytimes = DECK.patients, DECK.treatments, DECK.anytimes
    assert len(patients) >= 30
    assert {i for p in patients for i in p.illnesses} == set(qc.ILLNESSES)
    assert all(1 <= len(p.illnesses) <= 3 and 2 <= p.cure <= 10 for p in patients)
    assert any(p.mortal for p in patients) and not all(p.mortal for p in patients)
    assert len(treatments) >= 35
    assert {t.treatment_type for t in treatments} == set(qc.TREATMENT_TYPES)
    assert all(0 <= t.price <= 2000 for t in treatments)
    assert any(t.harms_all_others for t in treatments)
    assert any(t.cures and t.harms for t in treatments)
    assert len({a.name for a in anytimes}) >= 12
    effects = {a.effect for a in anytimes}
    assert {qc.FACE_DOWN, qc.REDIRECT, qc.SHRED} <= effects
    assert "Diagnostic Dilemma" in {a.name for a in anytimes if a.effect == qc.FACE_DOWN}


def test_every_effect_the_engine_knows_is_in_the_deck() -> None:
    """Each Anytime effect is exercised by the shipped deck (so the tests of each card run against real data)."""
    assert {a.effect for a in DECK.anytimes} == set(qc.EFFECTS)


def test_names_and_descriptions_are_ours_and_unique() -> None:
    names = [c.name for c in (*DECK.patients, *DECK.treatments, *DECK.anytimes)]
    assert len(names) == len(set(n.casefold() for n in names))
    descriptions = [c.description for c in (*DECK.patients, *DECK.treatments, *DECK.anytimes)]
    assert all(descriptions) and len(set(descriptions)) == len(descriptions)


def test_build_gives_stable_ids_equal_to_the_index() -> None:
    cards = DECK.build()
    assert [c.id for c in cards] == list(range(len(cards)))
    assert cards == DECK.build()
    kinds = [type(c) for c in cards]
    assert kinds == sorted(kinds, key=[Patient, Treatment, Anytime].index)  # Patients, Treatments, Anytime
    copies = sum(DECK.patient_copies) + sum(DECK.treatment_copies) + sum(DECK.anytime_copies)
    assert len(cards) == copies


def test_cards_are_frozen_and_wire_friendly() -> None:
    """Views carry cards over the wire: only ints, strs and tuples of them."""

    def plain(value: object) -> bool:
        if type(value) in (int, str):
            return True
        return type(value) is tuple and all(plain(v) for v in value)

    for card in DECK.build():
        for f in dataclasses.fields(card):
            assert plain(getattr(card, f.name)), f"{card.name}.{f.name}"
        with pytest.raises(dataclasses.FrozenInstanceError):
            card.name = "x"  # type: ignore[misc]


def test_cures_and_harms_are_in_canonical_order() -> None:
    for t in DECK.treatments:
        for table in (t.cures, t.harms):
            order = [qc.ILLNESSES.index(ill) for ill, _ in table]
            assert order == sorted(order)


PATIENT = """
[[patient]]
name = "Test Patient"
illnesses = ["Cardiac"]
cure = 5
kill = 5
infamy = 1
"""

TREATMENT = """
[[treatment]]
name = "Test Treatment"
type = "Medicine"
price = 100
cures = { Cardiac = 2 }
"""


def _parse(text: str) -> qc.Deck:
    return qc.parse(text, "house.toml")


def test_a_minimal_deck_parses() -> None:
    deck = _parse(PATIENT + TREATMENT)
    assert deck.patients[0].illnesses == ("Cardiac",) and deck.treatments[0].cures == (("Cardiac", 2),)
    assert deck.patient_copies == (1,) and deck.anytimes == ()


@pytest.mark.parametrize(
    ("text", "card", "problem"),
    [
        (PATIENT.replace('"Cardiac"', '"Gout"') + TREATMENT, "Test Patient", "unknown illness 'Gout'"),
        (PATIENT.replace("cure = 5", "cure = 11") + TREATMENT, "Test Patient", "'cure' must be from 2 to 10"),
        (PATIENT.replace("cure = 5", "cure = 1") + TREATMENT, "Test Patient", "'cure' must be from 2 to 10"),
        (PATIENT.replace("kill = 5", "kill = 0") + TREATMENT, "Test Patient", "'kill' must be from"),
        (PATIENT.replace("kill = 5", 'kill = "lots"') + TREATMENT, "Test Patient", "'kill' must be a whole number"),
        (PATIENT.replace('["Cardiac"]', "[]") + TREATMENT, "Test Patient", "1 to 3 illnesses"),
        (PATIENT.replace('["Cardiac"]', '["GI", "GI"]') + TREATMENT, "Test Patient", "an illness twice"),
        (
            PATIENT.replace('["Cardiac"]', '["GI", "Neuro", "Allergy", "Bleeding"]') + TREATMENT,
            "Test Patient",
            "1 to 3",
        ),
        (PATIENT + "copys = 2\n" + TREATMENT, "Test Patient", "unknown field(s): copys"),
        (PATIENT + TREATMENT.replace('"Medicine"', '"Prayer"'), "Test Treatment", "unknown treatment type 'Prayer'"),
        (PATIENT + TREATMENT.replace("cures = { Cardiac = 2 }", ""), "Test Treatment", "neither Cures nor Harms"),
        (PATIENT + TREATMENT.replace("Cardiac = 2", "Heartache = 2"), "Test Treatment", "unknown illness 'Heartache'"),
        (
            PATIENT + TREATMENT.replace("price = 100", "price = 2500"),
            "Test Treatment",
            "'price' must be from 0 to 2000",
        ),
        (PATIENT + TREATMENT + "harms = { Cardiac = 1 }\n", "Test Treatment", "under both cures and harms"),
        (PATIENT + TREATMENT.replace("Cardiac = 2", "Cardiac = 0"), "Test Treatment", "from 1 to 10"),
        (PATIENT + TREATMENT + TREATMENT, "Test Treatment", "appears twice"),
        (
            PATIENT + TREATMENT + '[[anytime]]\nname = "Zap"\neffect = "lightning"\n',
            "Zap",
            "unknown effect 'lightning'",
        ),
        (PATIENT + TREATMENT + '[[anytime]]\nname = "Zap"\neffect = "fine"\n', "Zap", "missing 'amount'"),
        (
            PATIENT + TREATMENT + '[[anytime]]\nname = "Zap"\neffect = "shred"\namount = 2\n',
            "Zap",
            "unknown field(s): amount",
        ),
        (
            PATIENT + TREATMENT + '[[anytime]]\nname = "Zap"\neffect = "nullify_type"\ntreatment_type = "Magic"\n',
            "Zap",
            "unknown treatment type 'Magic'",
        ),
    ],
)
def test_bad_card_data_is_refused_naming_file_and_card(text: str, card: str, problem: str) -> None:
    with pytest.raises(CardDataError) as info:
        _parse(text)
    message = str(info.value)
    assert message.startswith(f"house.toml: card {card!r}"), message
    assert problem in message, message


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("[[patient]\nname=", "not valid TOML"),
        (PATIENT + TREATMENT + "[[bonus]]\nname = 'x'\n", "unknown section(s): bonus"),
        (TREATMENT, "no [[patient]] cards"),
        (PATIENT, "no [[treatment]] cards"),
        ("patient = 3\n" + TREATMENT, "must be written as [[patient]] tables"),
    ],
)
def test_bad_files_are_refused_naming_the_file(text: str, problem: str) -> None:
    with pytest.raises(CardDataError) as info:
        _parse(text)
    assert str(info.value).startswith("house.toml") and problem in str(info.value)
