"""Issue 25, item 4: card names are whole wherever the width allows, and else in the one
short form each word has (the same in the hand and the Psyche boxes), never cut mid-word."""

from __future__ import annotations

import re

import pytest

from quackbox.core.side_effects import RULES
from quackbox.tui import se_text
from tests.core.se_helpers import table
from tests.tui.fakes import RulesTable, at_table, drawn, screen_text

HAND = [
    "Sildenafil",
    "Lorazepam",
    "Suicidal Thoughts",
    "Chlorpromazine",
    "Gambling Addiction",
    "Pramipexole",
    "Fluoxetine",
    "Episode",
]


def stacked(cards: int):
    return table(
        4,
        psyches={
            0: ["Madness"],
            1: [("Gambling Addiction", "Lithium"), "Depression"],
            2: ["Impotence", ("Suicidal Thoughts", "Clozapine")],
            3: ["Anorexia"],
        },
        hands={0: HAND[:cards]},
        current=0,
    )


async def hand_and_boxes(app_for, size: tuple[int, int], cards: int) -> str:
    session = RulesTable(RULES, stacked(cards))
    app = app_for(session)
    async with at_table(app, session, size) as (pilot, _board):
        await drawn(pilot)
        return screen_text(app)


def card_rows(text: str) -> list[str]:
    lines = text.splitlines()
    top = next(i for i, line in enumerate(lines) if "Your hand" in line)
    return lines[top + 2 : top + 4]  # the two lines under the cards' top edges


@pytest.mark.parametrize("size, cards", [((80, 24), 8), ((80, 24), 6), ((100, 30), 8), ((120, 40), 6)])
async def test_names_in_hand_are_whole_or_in_their_short_form(app_for, size, cards):
    text = await hand_and_boxes(app_for, size, cards)
    rows = card_rows(text)
    cells = [re.split(r"[│┃]+", row)[1:-1] for row in rows]
    for first, second in zip(*cells):
        first, second = first.strip(), second.strip()
        assert "…" not in first, rows
        known = {w for name in HAND for w in se_text.name_versions(name)[-1].split()} | set(" ".join(HAND).split())
        assert all(word in known for word in first.split()), (first, rows)
    # A two-word Disorder that does not fit on a line goes over two rather than lose a word.
    assert "Suicidal Thoughts" in rows[0] or (re.search(r"[│┃]Suicidal\s*[│┃]", rows[0]) and "Thoughts" in rows[1])


async def test_whole_names_on_a_wide_screen_and_short_forms_at_80(app_for):
    wide = await hand_and_boxes(app_for, (120, 40), 6)
    assert "Chlorpromazine" in wide and "Pramipexole" in wide
    narrow = await hand_and_boxes(app_for, (80, 24), 8)
    assert "│Chlorpro" in narrow and "│Pramipex" in narrow and "Sildenaf" in narrow
    assert "Silden…" not in narrow and "Loraze…" not in narrow and "Suicid…" not in narrow


async def test_a_boxed_rival_shows_the_drug_on_each_disorder(app_for):
    """A treated Disorder in a rival's box keeps its Drug: whole names if they fit,
    else the Disorder in three letters ("✓ Gambling Addiction" lost its Lithium)."""
    narrow = await hand_and_boxes(app_for, (80, 24), 6)
    assert "✓ Gam +Lithium" in narrow and "✓ Sui +Clozapine" in narrow
    wide = await hand_and_boxes(app_for, (120, 40), 6)
    assert "✓ Gambling Addiction +Lithium" in wide and "✓ Suicidal Thoughts +Clozapine" in wide


async def test_a_tall_screen_shows_what_each_card_does_in_full(app_for):
    """At 200x50 the cards are tall: a Disorder says its Episode in full, a Drug its whole
    list of side effects (the lower half of the screen stood empty)."""
    text = await hand_and_boxes(app_for, (200, 50), 6)
    assert "Episode: discard your" in text and "whole hand." in text  # Suicidal Thoughts
    assert "⚠ Suicidal" in text and "Depression," in text and "Madness" in text  # Lorazepam's three
    assert "⚠ Sui Dep Mad" not in text
