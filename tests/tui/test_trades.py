"""Trades that explain (SE10), and the Treat preview's news (SE6), at the Side Effects table.

An offer you cannot accept says why where its Accept would be; one you can
accept shows Accept; a declined offer says it was declined and nothing more.
"""

from __future__ import annotations

from quackbox.core import side_effects as se
from quackbox.core.side_effects import RULES
from quackbox.tui.modals import ChoiceScreen
from quackbox.tui.se_text import describe_move
from tests.core.se_helpers import card_id, disorder_id, table
from tests.tui.conftest import SIZE
from tests.tui.fakes import RulesTable, at_table, wait_for

NAMES = ("ann", "bob", "cy")
"""Written in lower case by their owners, and shown so."""


def offers_table(hand: list[str]) -> RulesTable:
    state = table(
        3,
        psyches={0: ["Anxiety"], 1: ["Madness"], 2: ["Tremors"]},
        hands={0: hand, 1: ["Lorazepam", "Episode"], 2: ["Lithium"]},
        current=0,
    )
    return RulesTable(RULES, state, names=NAMES)


def prompts(screen: ChoiceScreen) -> list[tuple[str, bool]]:
    options = screen.query_one("OptionList")
    return [
        (options.get_option_at_index(i).prompt.plain, options.get_option_at_index(i).disabled)
        for i in range(options.option_count)
    ]


async def test_an_offer_you_cannot_accept_says_why_and_offers_decline(app_for):
    """The newcomer's dialog had only "Decline: ..." with no Accept and no why: now the line
    where Accept would be says what is missing, from their own hand; it cannot be picked."""
    session = offers_table(["Episode", "Therapy"])
    state = session.state
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, board):
        session.act(1, se.OfferTrade(to=0, give=(card_id(state, 1, "Lorazepam"),), want=("Clozapine",)))
        await wait_for(pilot, lambda: board.view.offers, what="the offer")
        await pilot.press("o")
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen), what="the offers")
        shown = prompts(app.screen)
        assert shown == [
            ("Cannot accept bob offers you Lorazepam for your Clozapine: you do not hold Clozapine.", True),
            ("Decline: bob offers you Lorazepam for your Clozapine.", False),
        ]
        # Enter picks the first choice that can be picked: declining, never the note.
        await pilot.press("enter")
        await wait_for(pilot, lambda: any(isinstance(m, se.DeclineTrade) for m in session.moves), what="decline")


async def test_an_offer_you_can_accept_shows_accept(app_for):
    session = offers_table(["Clozapine", "Therapy"])
    state = session.state
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, board):
        session.act(1, se.OfferTrade(to=0, give=(card_id(state, 1, "Lorazepam"),), want=("Clozapine",)))
        await wait_for(pilot, lambda: board.view.offers, what="the offer")
        await pilot.press("o")
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen), what="the offers")
        assert prompts(app.screen) == [
            ("Accept: bob offers you Lorazepam for your Clozapine.", False),
            ("Decline: bob offers you Lorazepam for your Clozapine.", False),
        ]


def test_why_counts_the_copies_asked_for():
    """Two Lithium asked for, one held: the reason says so (SE10 counts copies)."""
    from quackbox.tui.se_text import cannot_accept

    state = table(3, hands={0: ["Lithium", "Therapy"], 1: ["Lorazepam"]}, current=0)
    RULES.apply(state, 1, se.OfferTrade(to=0, give=(card_id(state, 1, "Lorazepam"),), want=("Lithium", "Lithium")))
    view = RULES.view(state, 0)
    assert se.AcceptTrade(view.offers[0].id) not in view.legal
    assert cannot_accept(view, view.offers[0]) == "you do not hold 2 Lithium (you hold 1)"


async def test_a_declined_offer_says_only_that_it_was_declined(app_for):
    """The one who offered reads that it was declined, with no reason and no card of the
    other hand: whatever the reason, saying it could tell what someone holds."""
    session = offers_table(["Episode", "Therapy"])
    state = session.state
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, board):
        session.act(0, se.OfferTrade(to=1, give=(card_id(state, 0, "Therapy"),), want=("Lorazepam",)))
        await wait_for(pilot, lambda: board.view.offers, what="the offer")
        before = len(app.table_screen.log_lines)
        session.act(1, se.DeclineTrade(board.view.offers[0].id))
        await wait_for(pilot, lambda: not board.view.offers, what="the offer closed")
        assert app.table_screen.log_lines[before:] == ["bob declined your offer."]


def test_the_treat_preview_warns_only_of_what_is_new():
    """SE6: a side effect the seat's Drugs already cause, or a Disorder it holds (and may not
    be given twice), is no news; the preview names only the Disorders it would newly be open to."""
    state = table(3, psyches={0: ["Anxiety", ("Tremors", "Pramipexole")]}, hands={0: ["Lorazepam"]}, current=0)
    view = RULES.view(state, 0)
    treat = se.Treat(drug=card_id(state, 0, "Lorazepam"), disorder=disorder_id(state, 0, "Anxiety"))
    assert treat in view.legal
    # Pramipexole already opens the seat to Depression and Madness: only Suicidal Thoughts is new.
    assert describe_move(view, treat, NAMES) == (
        "Treat your Anxiety with Lorazepam; you become open to Suicidal Thoughts."
    )

    state = table(
        3,
        psyches={0: ["Anxiety", "Suicidal Thoughts", ("Tremors", "Pramipexole")]},
        hands={0: ["Lorazepam"]},
        current=0,
    )
    view = RULES.view(state, 0)
    treat = se.Treat(drug=card_id(state, 0, "Lorazepam"), disorder=disorder_id(state, 0, "Anxiety"))
    assert describe_move(view, treat, NAMES) == "Treat your Anxiety with Lorazepam."


def test_the_summary_labels_each_figure_one_way():
    """Issue 41, item 8: the standings said "1/6 Disorders treated" while the figures beneath
    had a "Disorders treated" column counting something else (Drugs played, which Madness may
    undo). The standings put the label first ("Disorders treated 1/6"), the column is "Drugs
    played", and both name the seats alike ("ann (you)")."""
    import re

    from quackbox.core import bots as core_bots
    from quackbox.core.play import next_move
    from quackbox.net.protocol import View
    from quackbox.tui.se_game import SERecord, figures_table, progress, ranked

    state = RULES.new_game(seats=4, seed=11)
    players = [core_bots.make(RULES.name, "heuristic", 11 + s) for s in range(4)]
    record = SERecord()
    while RULES.outcome(state) is None:
        seat, move = next_move(RULES, state, players)
        events = RULES.apply(state, seat, move)
        record.see(View(seq=0, view=RULES.view(state, 0), events=tuple(events), log=(), deadline=None))
    view = RULES.view(state, 0)
    names = ("ann", "bob", "cy", "dee")
    standings = [progress(view, seat).plain for _place, seat in ranked(view)]
    assert all(re.fullmatch(r"Disorders treated \d+/\d+|Psyche emptied", line) for line in standings), standings
    table = figures_table(view, names, record).plain
    assert "treated" not in table and "Drugs" in table and "played" in table
    assert "ann (you)" in table and "You " not in table
