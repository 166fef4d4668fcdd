"""What a change repaints: the cells of the part whose data changed, nothing more.

Over SSH every painted cell is bytes on the wire (``bench/terminal.py``
measures them). These tests record what the screen sends to the terminal:
each update Textual makes is a list of spans (row, first column, end
column), or the whole screen. A board that repaints itself, or a part
that repaints all of its cells, shows up here as cells painted outside
the part that changed.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual._compositor import ChopsUpdate, LayoutUpdate
from textual.geometry import Region

from core import side_effects as se
from core.side_effects import RULES
from tests.core.se_helpers import card_id, disorder_id, table
from tests.tui.conftest import SIZE
from tests.tui.fakes import RulesTable, opened, wait_for
from tests.tui.test_se_table import tremors_table
from tui.widgets import PromptBar, changed_cells


class Painted:
    """Every cell the app sends to its terminal, recorded from its screen updates."""

    def __init__(self, app: Any, monkeypatch: Any) -> None:
        self.spans: list[tuple[int, int, int]] = []
        self.frames: list[int] = []
        """The cells of each update sent."""
        display = app._display

        def recording(screen: Any, renderable: Any) -> None:
            if app._batch_count:  # held back: Textual sends nothing during a batch
                pass
            elif isinstance(renderable, ChopsUpdate):
                self.spans += renderable.spans
                self.frames.append(sum(x2 - x1 for _, x1, x2 in renderable.spans))
            elif isinstance(renderable, LayoutUpdate):
                region = renderable.region
                self.spans += [(y, region.x, region.right) for y in range(region.y, region.bottom)]
                self.frames.append(region.area)
            display(screen, renderable)

        monkeypatch.setattr(app, "_display", recording)

    @property
    def updates(self) -> int:
        return len(self.frames)

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


def four_seats():
    state = table(
        4,
        psyches={0: ["Madness", "Anxiety"], 1: ["Depression", ("Tremors", "Pramipexole")],
                 2: ["Impotence", "Suicidal Thoughts"], 3: ["Anorexia"]},
        hands={0: ["Chlorpromazine", "Episode", "Gambling Addiction", "Lithium"], 1: ["Fluoxetine"],
               2: ["Sildenafil", "Clozapine"], 3: ["Lithium"]},
        current=0,
    )
    return state, RulesTable(RULES, state)


async def test_a_rival_hand_size_repaints_that_rival_panel_only(app_for, monkeypatch):
    """A view whose only change is one rival's hand size repaints that rival's box, not the board."""
    state, session = four_seats()
    app = app_for(session)
    async with app.run_test(size=SIZE) as pilot:
        session.begin()
        board = await opened(pilot)
        await pilot.pause(0.2)
        painted = Painted(app, monkeypatch)
        panels = {p.player.seat: p for p in board.query("PsychePanel.rival")}
        state.hands[2].append(state.draw.pop())  # a card reaches seat 2's hand, nothing else of the board changes
        seq = session.seq
        session.resend()
        await wait_for(pilot, lambda: app.table_screen.seq > seq, what="the new view")
        await pilot.pause(0.2)
        assert panels[2].player.hand_size == 3
        assert painted.touched(panels[2])
        quiet = [panels[1], panels[3], board.query_one("#mine"), board.query_one("#hand"), board.query_one("#prompt"),
                 app.table_screen.log_widget]
        assert [w for w in quiet if painted.touched(w)] == []
        # The status line says the deck is one card shorter: those few cells, not the whole line.
        status = app.table_screen.query_one("#status")
        assert 0 < sum(x2 - x1 for _, x1, x2 in painted.inside(status.region)) < status.region.width // 2


async def test_moving_the_highlight_repaints_two_cards(app_for, monkeypatch):
    """The right arrow moves the highlight: the hand row repaints the card left and the card reached."""
    state, session = four_seats()
    app = app_for(session)
    async with app.run_test(size=SIZE) as pilot:
        session.begin()
        board = await opened(pilot)
        hand = board.query_one("#hand")
        await pilot.press("right")  # the first card is picked
        await pilot.pause(0.2)
        painted = Painted(app, monkeypatch)
        await pilot.press("right")
        await pilot.pause(0.2)
        assert board.selected == card_id(state, 0, "Episode")
        # Each card is a box; its top-left corner is where its column starts.
        top = hand.draw().split("\n")[0].plain
        starts = [i for i, ch in enumerate(top) if ch in "╭┏"]
        edges = starts + [len(top)]
        region = hand.content_region
        columns = {x - region.x for _, x1, x2 in painted.inside(region) for x in range(x1, x2)}
        cards = {i for i in range(len(starts)) if columns & set(range(edges[i], edges[i + 1]))}
        assert cards == {0, 1}


async def test_countdown_repaints_at_most_four_times_a_second(app_for, monkeypatch):
    """A running countdown repaints only its own cells, and at most four times in a second."""
    state, session = tremors_table(9.0)  # the test is over long before the host's deadline
    app = app_for(session)
    async with app.run_test(size=SIZE) as pilot:
        session.begin()
        board = await opened(pilot)
        session.act(1, se.PlayEpisode(card=card_id(state, 1, "Episode"), disorder=disorder_id(state, 0, "Tremors")))
        await wait_for(pilot, lambda: board.view.phase == se.TREMORS, what="the Tremors prompt")
        await pilot.pause(0.3)
        bar = board.query_one("#prompt", PromptBar)
        before = bar.countdown()
        painted = Painted(app, monkeypatch)
        await pilot.pause(2.1)
        assert bar.countdown() != before  # it counted down
        assert 1 <= painted.updates <= 2 * 4 + 1
        cells = painted.inside(app.screen.region)
        assert cells and all(bar.region.contains(x, y) for y, x, _ in cells)
        assert max(x2 - x1 for _, x1, x2 in cells) <= Text(bar.countdown()).cell_len


def test_changed_cells_finds_the_first_and_last_changed_cell_of_each_line():
    """The comparison a part makes before repainting: per line, the span that differs."""
    old = [Text("Ben · 5 cards"), Text("✗ Madness"), Text("same")]
    new = [Text("Ben · 6 cards"), Text("✓ Madness", style=""), Text("same")]
    new[1].stylize("green", 0, 1)
    assert changed_cells(old, new) == [Region(6, 0, 1, 1), Region(0, 1, 1, 1)]
    assert changed_cells(old, old) == []
    # A line that got shorter repaints the cells it leaves blank.
    assert changed_cells([Text("deck 10")], [Text("deck 9")]) == [Region(5, 0, 2, 1)]
    # Lines are compared cell by cell from the left: the same ending at another place is a change.
    assert changed_cells([Text("Bot 4 is playing.")], [Text("Your turn: e end turn.")]) == [Region(0, 0, 22, 1)]
    # A wide character takes two cells.
    assert changed_cells([Text("界 a")], [Text("界 b")]) == [Region(3, 0, 1, 1)]
    # A different number of lines is a new height: the caller repaints everything.
    assert changed_cells(old, new[:2]) is None


async def test_a_resize_is_painted_once(app_for, monkeypatch):
    """Textual paints a resized screen several times over; the app sends one frame."""
    state, session = four_seats()
    app = app_for(session)
    async with app.run_test(size=SIZE) as pilot:
        session.begin()
        await opened(pilot)
        await pilot.pause(0.2)
        painted = Painted(app, monkeypatch)
        await pilot.resize_terminal(SIZE[0] + 2, SIZE[1])
        await pilot.pause(0.5)
        whole = [n for n in painted.frames if n >= (SIZE[0] + 2) * SIZE[1]]
        assert len(whole) == 1
        assert sum(painted.frames) < 1.1 * (SIZE[0] + 2) * SIZE[1]
