"""What a change repaints: the cells of the part whose data changed, nothing more.

Over SSH every painted cell is bytes on the wire (``bench/terminal.py``
measures them). These tests record what the terminal writer sends, as
spans of cells (row, first column, end column): a part that redraws what
did not change, or a layout that moves what need not move, shows up here
as cells written outside the part that changed.
"""

from __future__ import annotations

from typing import Any

import pytest
from rich.text import Text
from textual.geometry import Region

from quackbox.core import quack as q
from quackbox.core import side_effects as se
from quackbox.core.quack import RULES as QUACK
from quackbox.core.side_effects import RULES
from quackbox.tui.se_board import PsychePanel
from quackbox.tui.terminal import TerminalApp
from quackbox.tui.widgets import TICKS_PER_SECOND, GameLog, KeyBar, PromptBar
from tests.core.se_helpers import card_id, disorder_id, table
from tests.tui.conftest import SIZE
from tests.tui.fakes import ManualClock, RulesTable, at_table, drawn, quack_table, screen_text, settled, wait_for
from tests.tui.test_se_table import tremors_table


class Painted:
    """Every cell the app writes to its terminal, as its terminal writer sent them."""

    def __init__(self, app: Any) -> None:
        self.spans: list[tuple[int, int, int]] = []
        self.frames: list[int] = []
        """The cells of each frame sent."""
        self.sent: list[str] = []
        app.writer.listeners.append(self._sent)

    def _sent(self, frame: Any) -> None:
        self.spans += [(run.y, run.x, run.end) for run in frame.runs]
        self.frames.append(sum(run.end - run.x for run in frame.runs))
        self.sent.append(frame.text)

    @property
    def updates(self) -> int:
        return len(self.frames)

    @property
    def text(self) -> str:
        return "".join(self.sent)

    def inside(self, region: Region) -> list[tuple[int, int, int]]:
        """The painted spans that touch ``region`` (screen coordinates), cut to it."""
        out = []
        for y, x1, x2 in self.spans:
            lo, hi = max(x1, region.x), min(x2, region.right)
            if region.y <= y < region.bottom and lo < hi:
                out.append((y, lo, hi))
        return out

    def touched(self, widget: Any) -> bool:
        return bool(self.inside(widget.region))

    def columns(self, widget: Any) -> set[int]:
        """The columns painted inside ``widget``'s content, from its left edge."""
        region = widget.content_region
        return {x - region.x for _, x1, x2 in self.inside(region) for x in range(x1, x2)}


HAND = ("Chlorpromazine", "Episode", "Gambling Addiction", "Lithium")


def four_seats(hand: tuple[str, ...] = HAND, last: tuple[Any, ...] = ("Anorexia",)):
    """Four seats, ours first; ``last`` is the Psyche of the last seat."""
    state = table(
        4,
        psyches={
            0: ["Madness", "Anxiety"],
            1: ["Depression", ("Tremors", "Pramipexole")],
            2: ["Impotence", "Suicidal Thoughts"],
            3: list(last),
        },
        hands={0: list(hand), 1: ["Fluoxetine"], 2: ["Sildenafil", "Clozapine"], 3: ["Lithium"]},
        current=0,
    )
    return state, RulesTable(RULES, state)


def card_columns(hand: Any) -> list[range]:
    """The columns of each card of the hand row (its first line is the rule above the cards)."""
    top = hand.draw().split("\n")[1].plain
    starts = [i for i, ch in enumerate(top) if ch in "╭┏"]
    return [range(a, b) for a, b in zip(starts, starts[1:] + [len(top)])]


async def test_a_rival_hand_size_repaints_that_rival_panel_only(app_for):
    """A view whose only change is one rival's hand size repaints that rival's box, not the board."""
    state, session = four_seats()
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, board):
        await drawn(pilot)
        painted = Painted(app)
        panels = {p.player.seat: p for p in board.query("PsychePanel.rival")}
        state.hands[2].append(state.draw.pop())  # a card reaches seat 2's hand, nothing else of the board changes
        seq = session.seq
        session.resend()
        await wait_for(pilot, lambda: app.table_screen.seq > seq, what="the new view")
        await drawn(pilot)
        assert panels[2].player.hand_size == 3
        assert painted.touched(panels[2])
        quiet = [
            panels[1],
            panels[3],
            board.query_one("#mine"),
            board.query_one("#hand"),
            board.query_one("#prompt"),
            app.table_screen.log_widget,
        ]
        assert [w for w in quiet if painted.touched(w)] == []
        # The status line says the deck is one card shorter: those few cells, not the whole line.
        status = app.table_screen.query_one("#status")
        assert 0 < sum(x2 - x1 for _, x1, x2 in painted.inside(status.region)) < status.region.width // 2


@pytest.mark.parametrize(
    "first, cards, reached, unsent",
    [
        ("right", {0, 1}, "Episode", ()),
        # At the right of the hand: written from the third card, not from the hand's left edge
        # (Textual's own update), so the first cards' words are not sent.
        ("3", {2, 3}, "Lithium", ("Chlorpro", "Episode")),
    ],
)
async def test_moving_the_highlight_repaints_two_cards(app_for, first, cards, reached, unsent):
    """The right arrow moves the highlight: the hand row repaints the card left and the card reached."""
    state, session = four_seats()
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, board):
        hand = board.query_one("#hand")
        await pilot.press(first)  # a card is picked
        await drawn(pilot)
        painted = Painted(app)
        await pilot.press("right")
        await drawn(pilot)
        assert board.selected == card_id(state, 0, reached)
        columns = painted.columns(hand)
        assert {i for i, card in enumerate(card_columns(hand)) if columns & set(card)} == cards
        assert reached[:8] in painted.text and not [word for word in unsent if word in painted.text]


async def test_a_stand_in_playing_our_last_card_repaints_that_card(app_for):
    """A seated move: the host plays the seat's last card (a stand-in bot would). The
    other cards keep their width and place, so the hand repaints the card that went
    and the count in its title, nothing of the five cards left."""
    state, session = four_seats(
        ("Episode", "Gambling Addiction", "Lithium", "Sildenafil", "Fluoxetine", "Chlorpromazine")
    )
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, board):
        hand = board.query_one("#hand")
        await drawn(pilot)
        kept = card_columns(hand)[:5]
        painted = Painted(app)
        seq = session.seq
        session.act(0, se.Treat(drug=card_id(state, 0, "Chlorpromazine"), disorder=disorder_id(state, 0, "Madness")))
        await wait_for(pilot, lambda: app.table_screen.seq > seq, what="the new view")
        await drawn(pilot)
        assert len(board.view.hand) == 5 and card_columns(hand) == kept
        cards = {
            x - hand.content_region.x
            for y, x1, x2 in painted.inside(hand.content_region)
            if y > hand.content_region.y
            for x in range(x1, x2)
        }
        assert cards and not cards & {x for card in kept for x in card}
        rule = [(x1, x2) for y, x1, x2 in painted.inside(hand.region) if y == hand.region.y]
        assert rule and sum(x2 - x1 for x1, x2 in rule) <= 3  # "6 cards" became "5 cards"


async def test_a_seat_no_longer_lit_repaints_the_edges_of_its_box(app_for):
    """A Disorder picked lights the rivals open to it (their boxes drawn double); the
    highlight moved on, a lit box repaints its edges and the line that named what it
    is open to, not the whole box as a change of CSS class would. (The box aimed at
    is tinted all over, so it repaints whole.)"""
    state, session = four_seats(last=("Anorexia", ("Tremors", "Pramipexole")))
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, board):
        await pilot.press("3")  # Gambling Addiction: seats 1 and 3 are open to it, seat 1 is aimed at
        await drawn(pilot)
        box = next(p for p in board.query(PsychePanel) if p.player is not None and p.player.seat == 3)
        assert box.draw().plain.startswith("╔")
        painted = Painted(app)
        await pilot.press("right")
        await drawn(pilot)
        assert box.draw().plain.startswith("╭")
        region = box.region
        cells = {(x, y) for y, x1, x2 in painted.inside(region) for x in range(x1, x2)}
        assert (region.x, region.y + 1) in cells and (region.right - 1, region.y + 1) in cells
        open_to = region.y + next(i for i, line in enumerate(box.draw().split("\n")) if "open to" in line.plain)
        inside = {(x, y) for x, y in cells if region.x < x < region.right - 1 and region.y < y < region.bottom - 1}
        assert {y for _, y in inside} <= {open_to}


async def test_the_keys_repaint_only_the_keys_that_changed(app_for):
    """Picking a card adds keys to the bar; the keys before them are not repainted
    (Textual's footer builds itself anew, every key)."""
    state, session = four_seats()
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, _board):
        await drawn(pilot)
        keys = app.table_screen.query_one(KeyBar)
        first = keys.draw().plain.index(" e ")  # ←→ card, then end turn: the keys before aiming
        painted = Painted(app)
        await pilot.press("1")
        await drawn(pilot)
        assert "aim" in keys.draw().plain
        columns = painted.columns(keys)
        assert columns and min(columns) >= first


async def test_countdown_repaints_at_most_four_times_a_second(app_for):
    """A running countdown repaints only its own cells, and at most four times in a second."""
    state, session = tremors_table(9.0)  # the test is over long before the host's deadline
    clock = ManualClock()
    app = app_for(session, clock=clock)
    async with at_table(app, session, SIZE) as (pilot, board):
        session.act(1, se.PlayEpisode(card=card_id(state, 1, "Episode"), disorder=disorder_id(state, 0, "Tremors")))
        await wait_for(pilot, lambda: board.view.phase == se.TREMORS, what="the Tremors prompt")
        bar = board.query_one("#prompt", PromptBar)
        await wait_for(pilot, lambda: bar.countdown() in screen_text(app), what="the countdown")
        before = bar.countdown()
        painted = Painted(app)
        for _ in range(2 * TICKS_PER_SECOND):  # two seconds, tick by tick
            clock.advance(1 / TICKS_PER_SECOND)
            await pilot.pause()
        await wait_for(pilot, lambda: bar.countdown() in screen_text(app), what="the last second shown")
        assert bar.countdown() != before  # it counted down
        assert 1 <= painted.updates <= 2  # at most once a second, not at each of the eight ticks
        cells = painted.inside(app.screen.region)
        assert cells and all(bar.region.contains(x, y) for y, x, _ in cells)
        assert max(x2 - x1 for _, x1, x2 in cells) <= Text(bar.countdown()).cell_len


QUACK_HAND = ["Walk It Off", "Yoga", "Drink More Water", "Get Some Rest", "Aspirin", "Trepanation"]
"""Six Treatments, no Anytime card (one would light up when a Patient arrives to aim it at)."""


def doctor_rows(table: Any, seats: set[int]) -> set[int]:
    """The screen rows of the doctor table that belong to ``seats`` (two lines each)."""
    top = table.content_region.y
    return {top + 2 * seat + line for seat in seats for line in (0, 1)}


async def test_a_rival_admitting_a_patient_repaints_that_doctors_rows(app_for):
    """Bot 2 admits a Patient: its line of bars was kept blank, so the doctor table
    keeps its height and the hand and the prompt under it stay where they are,
    unpainted (a growing table repaints everything under it, twice)."""
    state = quack_table(4, hands={0: QUACK_HAND}, first=1)
    session = RulesTable(QUACK, state)
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, board):
        await drawn(pilot)
        table, hand = board.query_one("#doctors"), board.query_one("#hand")
        places = table.region, hand.region
        painted = Painted(app)
        seq = session.seq
        session.act(1, q.StayHome())
        await wait_for(pilot, lambda: app.table_screen.seq > seq, what="the new view")
        await drawn(pilot)
        assert board.view.players[1].case is not None
        assert (table.region, hand.region) == places
        assert {y for y, _, _ in painted.inside(table.region)} <= doctor_rows(table, {1})
        assert not painted.touched(hand)


async def test_a_stand_in_playing_our_card_keeps_the_hand_height(app_for):
    """A seated move: the host plays one of our six Treatments. The hand keeps its six
    lines, so the other doctors and the prompt's place are left alone, and of the
    cards above the one played only what each would do to the Patient now."""
    state = quack_table(4, hands={0: QUACK_HAND}, patients={0: "The Paper Cut"})
    session = RulesTable(QUACK, state)
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, board):
        session.act(0, q.StayHome())
        await wait_for(pilot, lambda: board.view.phase == q.TREAT, what="our Treatments")
        await drawn(pilot)
        table, hand, prompt = board.query_one("#doctors"), board.query_one("#hand"), board.query_one("#prompt")
        places = hand.region, prompt.region
        painted = Painted(app)
        seq = session.seq
        session.act(0, q.PlayTreatment(next(c for c in state.hands[0] if QUACK.cards[c].name == "Aspirin")))
        await wait_for(pilot, lambda: app.table_screen.seq > seq, what="the new view")
        await drawn(pilot)
        assert len(board.view.hand) == 5 and (hand.region, prompt.region) == places
        assert not {y for y, _, _ in painted.inside(table.region)} & doctor_rows(table, {1, 2, 3})
        played = QUACK_HAND.index("Aspirin")
        lines = [line.plain for line in hand.draw().split("\n", allow_blank=True)]
        left: dict[int, int] = {}
        for y, x1, _ in painted.inside(hand.content_region):
            y, x = y - hand.content_region.y, x1 - hand.content_region.x
            left[y] = min(left.get(y, x), x)
        assert played in left and len(lines) == len(QUACK_HAND)
        assert all(left[y] >= lines[y].index("→") for y in left if y < played)


class LogApp(TerminalApp[None]):
    def compose(self):
        yield GameLog(id="log")


async def test_a_new_line_at_the_bottom_of_the_log_rewrites_only_the_text_that_moved():
    """The newest line is at the bottom: a new one moves the others up a row. Each row
    is written as far as its old or its new line goes, not across the whole log."""
    app = LogApp()
    async with app.run_test(size=(40, 6)) as pilot:
        log = app.query_one(GameLog)
        for n in range(1, 9):
            log.event(f"line {n}" + "!" * (n % 3))
        await drawn(pilot)
        painted = Painted(app)
        before = [line.plain for line in log.page()]
        log.event("line 9")
        await drawn(pilot)
        after = [line.plain for line in log.page()]
        assert after == before[1:] + ["line 9"]
        text = log.content_region
        spans = painted.inside(app.screen.region)
        assert spans
        for y, _x1, x2 in spans:
            row = y - text.y
            assert x2 - text.x <= max(len(before[row]), len(after[row]))


async def test_a_resize_is_painted_once(app_for):
    """Textual paints a resized screen several times over; the app sends one frame."""
    state, session = four_seats()
    app = app_for(session)
    async with at_table(app, session, SIZE) as (pilot, _board):
        await drawn(pilot)
        painted = Painted(app)
        await pilot.resize_terminal(SIZE[0] + 2, SIZE[1])
        await settled(pilot, app)
        whole = [n for n in painted.frames if n >= (SIZE[0] + 2) * SIZE[1]]
        assert len(whole) == 1
        assert sum(painted.frames) < 1.1 * (SIZE[0] + 2) * SIZE[1]
