"""The terminal writer (quackbox.tui.terminal): what it sends for a change, and what it needs of Textual."""

from __future__ import annotations

from rich.color import ColorSystem
from rich.segment import Segment
from rich.style import Style
from textual._compositor import LayoutUpdate
from textual.geometry import Region
from textual.strip import Strip
from textual.widgets import Static

from quackbox.tui.terminal import Pens, TerminalApp, Writer, cells_of, changed_runs, private_api_problems, written
from tests.tui.screen_check import Terminal

PENS = Pens(ColorSystem.STANDARD)


def cells(text: str, style: str = "") -> list:
    return cells_of([Strip([Segment(text, Style.parse(style) if style else None)])], PENS)


def spans(runs) -> list[tuple[int, int, int]]:
    return [(run.y, run.x, run.end) for run in runs]


def test_a_row_is_written_where_it_differs_from_what_the_terminal_shows():
    """Runs of changed cells, those close together joined, far ones apart; unknown cells are changed."""
    assert spans(changed_runs(0, cells("Ben · 5 cards"), cells("Ben · 6 cards"))) == [(0, 6, 7)]
    assert changed_runs(0, cells("same"), cells("same")) == []
    # A line that got shorter writes the cells it leaves blank.
    assert spans(changed_runs(3, cells("deck 10"), cells("deck 9 "))) == [(3, 5, 7)]
    # The same ending at another place is a change.
    assert spans(changed_runs(0, cells("Bot 4 is playing.     "), cells("Your turn: e end turn."))) == [(0, 0, 22)]
    # Only the colour changed: still a change.
    assert spans(changed_runs(0, cells("│ ✗ Madness  │"), cells("│ ✗ Madness  │", "yellow"))) == [(0, 0, 14)]
    # The two sides of a box, far apart, are two runs.
    side = cells("│ ✗ Madness        │")
    lit = cells("│", "yellow") + side[1:-1] + cells("│", "yellow")
    assert spans(changed_runs(0, side, lit)) == [(0, 0, 1), (0, 19, 20)]
    # Nothing known: everything is written.
    assert spans(changed_runs(0, [None] * 4, cells("abcd"))) == [(0, 0, 4)]


def test_a_wide_character_is_written_whole():
    """A change in the right half of a wide character writes the whole character."""
    old, new = cells("界 a"), cells("界 a")
    new[1] = ("", PENS(Style.parse("red")))
    new[0] = ("界", PENS(Style.parse("red")))
    assert spans(changed_runs(0, old, new)) == [(0, 0, 2)]
    assert spans(changed_runs(0, cells("ab a"), cells("界 a"))) == [(0, 0, 2)]


def test_only_the_colour_codes_that_change_are_written():
    """Each change of style sends what changed; a reset only where an attribute goes off."""
    red, bold, green = "red on black", "bold red on black", "green on black"
    row = cells("a", red) + cells("b", bold) + cells("c", red) + cells("d", green)
    text, pen = written(row)
    assert text == "\x1b[0;31;40ma\x1b[1mb\x1b[0;31;40mc\x1b[32md"
    # A click action is never sent: the same pen.
    assert cells("e", green) == cells_of(
        [Strip([Segment("e", Style.parse(green) + Style(meta={"@click": "x"}))])], PENS
    )
    # Starting from the pen the terminal already has, nothing is repeated.
    assert written(cells("e", green), pen)[0] == "e"


def test_a_frame_writes_only_what_changed_and_the_terminal_ends_as_drawn():
    """Two frames through the writer into an emulator: the second sends only its changed
    cells, and the emulator shows the second drawing."""
    writer = Writer()
    terminal = Terminal(12, 2)

    def frame(lines: list[str]) -> str:
        update = LayoutUpdate(
            [[Strip([Segment(line, Style.parse("white on blue"))])] for line in lines], Region(0, 0, 12, 2)
        )
        text = writer.frame(update, 12, 2, ColorSystem.STANDARD).text
        terminal.feed(text)
        return text

    first = frame(["Turn 9: Ann ", "Ann drew 2. "])
    assert "Turn 9" in first and "drew" in first
    second = frame(["Turn 10: Bo ", "Ann drew 2. "])
    assert "drew" not in second and "10: Bo" in second
    assert terminal.rows() == ["Turn 10: Bo ", "Ann drew 2. "]
    assert {cell.bg for row in terminal.cells() for cell in row} == {"blue"}
    writer.forget()
    assert "drew" in frame(["Turn 10: Bo ", "Ann drew 2. "])  # not known any more: all of it


async def test_textual_still_offers_what_the_writer_uses():
    """The writer reaches into Textual's private API; after a Textual upgrade that moved
    any of it, this fails and says what to look at in quackbox/tui/terminal.py."""

    class Plain(TerminalApp[None]):
        def compose(self):
            yield Static("hello")

    app = Plain()
    async with app.run_test(size=(20, 3)) as pilot:
        await pilot.pause()
        problems = private_api_problems(app)
        assert problems == [], "Textual's private API changed; tui/terminal.py must follow: " + "; ".join(problems)
        sent = []
        app.writer.listeners.append(sent.append)
        app.query_one(Static).update("hullo")
        await pilot.pause()
        assert sent and "u" in sent[-1].text and "hello" not in sent[-1].text
