"""The Side Effects card data and its loader (ruling SE1)."""

from __future__ import annotations

import pytest

from quackbox.cards import CardDataError
from quackbox.cards import side_effects as se_cards
from quackbox.cards.data import read_packaged


def test_shipped_deck_matches_ruling_se1() -> None:
    """SE1: 38 Disorders, 36 Drugs, 10 Episodes, 5 Therapy = 89; bonus adds 4."""
    deck = se_cards.load()
    cards = deck.build()
    by_kind: dict[str, int] = {}
    for card in cards:
        by_kind[card.kind] = by_kind.get(card.kind, 0) + 1
    assert by_kind == {"disorder": 38, "drug": 36, "episode": 10, "therapy": 5}
    assert len(deck.build(bonus=True)) == 93
    assert [c.id for c in cards] == list(range(89))


def _with(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new, 1)


@pytest.fixture
def shipped() -> str:
    return read_packaged(se_cards.FILENAME)


def test_unknown_side_effect_names_the_file_and_card(shipped: str) -> None:
    bad = _with(shipped, '"Suicidal Thoughts", "Impotence", "Anorexia"', '"Suicidal Thoughts", "Hiccups"')
    with pytest.raises(CardDataError) as error:
        se_cards.parse(bad, "house.toml")
    message = str(error.value)
    assert "house.toml" in message and "Fluoxetine" in message and "Hiccups" in message


def test_bad_count_is_refused(shipped: str) -> None:
    bad = _with(shipped, "copies = 10", "copies = 0")
    with pytest.raises(CardDataError, match="Episode.*copies"):
        se_cards.parse(bad)


def test_count_must_be_a_number(shipped: str) -> None:
    bad = _with(shipped, "copies = 10", 'copies = "ten"')
    with pytest.raises(CardDataError, match="whole number"):
        se_cards.parse(bad)


def test_duplicate_card_name_is_refused(shipped: str) -> None:
    bad = shipped + '\n[[therapy]]\nname = "Lithium"\ncopies = 1\n'
    with pytest.raises(CardDataError, match="'Lithium'.*twice"):
        se_cards.parse(bad)


def test_unknown_field_is_refused(shipped: str) -> None:
    bad = _with(shipped, "copies = 10", "copys = 10")
    with pytest.raises(CardDataError, match="unknown field.*copys"):
        se_cards.parse(bad)


def test_drug_must_treat_a_known_disorder(shipped: str) -> None:
    bad = _with(shipped, 'treats = "Madness"', 'treats = "Ennui"')
    with pytest.raises(CardDataError, match="Chlorpromazine.*Ennui"):
        se_cards.parse(bad)


def test_unknown_punishment_is_refused(shipped: str) -> None:
    bad = _with(shipped, 'punishment = "no_draw"', 'punishment = "no_dessert"')
    with pytest.raises(CardDataError, match="Anorexia.*no_dessert"):
        se_cards.parse(bad)


def test_broken_toml_names_the_file() -> None:
    with pytest.raises(CardDataError, match="mine.toml.*not valid TOML"):
        se_cards.parse("[[disorder]\nname=", "mine.toml")


def test_a_house_deck_is_a_data_edit(shipped: str) -> None:
    """Counts live in the data: change one and the deck follows."""
    house = _with(shipped, "copies = 10", "copies = 12")
    assert len(se_cards.parse(house).build()) == 91
