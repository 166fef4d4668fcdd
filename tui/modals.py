"""Modal choices as typed screens: each dismisses with the answer (``ModalScreen[T]``).

ConfirmScreen -> bool, ChoiceScreen -> the index picked or None, and the
reading screens (help, rules) that only close.
"""

from __future__ import annotations

from typing import Collection, Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, OptionList, Static
from textual.widgets.option_list import Option


class ConfirmScreen(ModalScreen[bool]):
    """A yes/no question. y says yes; Escape or n says no; Enter presses the focused
    button, which is at first the safe one (no): a key pressed by habit destroys nothing."""

    DEFAULT_CSS = """
    ConfirmScreen { align: center middle; }
    ConfirmScreen > Vertical { width: 64; max-width: 96%; height: auto; border: thick $warning;
                               background: $panel; padding: 1 2; }
    ConfirmScreen #question { width: 1fr; margin-bottom: 1; }
    ConfirmScreen Horizontal { height: auto; align-horizontal: right; }
    ConfirmScreen Button { margin-left: 2; min-width: 12; }
    """

    BINDINGS = [
        Binding("y", "answer(True)", "yes", show=False),
        Binding("n", "answer(False)", "no", show=False),
        Binding("escape", "answer(False)", "no"),
    ]

    def __init__(self, question: Text | str, *, yes: str = "Yes", no: str = "No") -> None:
        super().__init__()
        self.question = question if isinstance(question, Text) else Text(question)
        self.yes, self.no = yes, no

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.question, id="question")
            with Horizontal():
                yield Button(self.no, id="no")
                yield Button(self.yes, id="yes", variant="warning")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


class ChoiceScreen(ModalScreen[int | None]):
    """Pick one of several labelled choices; dismisses with its index, or None on Escape.
    Choices listed in ``notes`` are lines to read between them (why a choice is missing),
    never picked."""

    DEFAULT_CSS = """
    ChoiceScreen { align: center middle; }
    ChoiceScreen > Vertical { width: 72; max-width: 96%; height: auto; max-height: 90%;
                              border: thick $accent; background: $panel; padding: 0 1; }
    ChoiceScreen #title { width: 1fr; padding: 1 0; }
    ChoiceScreen OptionList { height: auto; max-height: 60vh; border: none; }
    ChoiceScreen #hint { color: $text-muted; padding: 0 0 0 1; }
    """

    BINDINGS = [Binding("escape", "cancel", "cancel")]

    def __init__(
        self, title: Text | str, choices: Sequence[Text | str], *, start: int = 0, notes: Collection[int] = ()
    ) -> None:
        super().__init__()
        self.title_text = title if isinstance(title, Text) else Text(title)
        self.choices = [c if isinstance(c, Text) else Text(c) for c in choices]
        self.start = start
        self.notes = frozenset(notes)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.title_text, id="title")
            yield OptionList(
                *[Option(label, id=str(i), disabled=i in self.notes) for i, label in enumerate(self.choices)],
                id="choices",
            )
            yield Static("↑↓ choose · Enter pick · Esc cancel", id="hint")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.focus()
        choosable = [i for i in range(len(self.choices)) if i not in self.notes]
        if choosable:
            options.highlighted = min(choosable, key=lambda i: (i < self.start, abs(i - self.start)))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None:  # each has its index for id (compose)
            self.dismiss(int(event.option.id))

    def action_cancel(self) -> None:
        self.dismiss(None)


class ReadingScreen(ModalScreen[None]):
    """A page of Markdown to read (rules, help); Escape or q closes it."""

    DEFAULT_CSS = """
    ReadingScreen { align: center middle; }
    ReadingScreen > VerticalScroll { width: 100; max-width: 100%; height: 1fr; border: thick $accent;
                                     background: $surface; padding: 0 1; }
    ReadingScreen Markdown { margin: 0; padding: 0; }
    """

    BINDINGS = [
        Binding("escape", "close", "close"),
        Binding("q", "close", "close", show=False),
        Binding("up", "scroll(-1)", "scroll", key_display="↑↓", show=True),
        Binding("down", "scroll(1)", show=False),
        Binding("pageup", "scroll(-10)", show=False),
        Binding("pagedown,space", "scroll(10)", show=False),
    ]

    def __init__(self, title: str, markdown: str) -> None:
        super().__init__()
        self.page_title = title
        self.markdown = markdown

    def compose(self) -> ComposeResult:
        # Imported here: the Markdown widget (and its parser) costs start-up time
        # every run, and is needed only when someone opens the rules.
        from textual.widgets import Markdown

        with VerticalScroll(id="page") as page:
            page.border_title = Text(self.page_title)
            yield Markdown(self.markdown)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#page").focus()

    def action_scroll(self, lines: int) -> None:
        self.query_one("#page", VerticalScroll).scroll_relative(y=lines, animate=False)

    def action_close(self) -> None:
        self.dismiss(None)
