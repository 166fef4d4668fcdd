"""How the screen is drawn on terminals that cannot show everything: no colour
(``NO_COLOR``), 16 colours, or no glyphs beyond ASCII (``--ascii``, vt100, the
Linux console).

Each is a Textual line filter over everything on screen, so no widget needs
to know: :class:`Plain` takes away colour and faintness (NO_COLOR: the marks
and words carry the meaning), :class:`NoDim` takes away faintness (16
colours, where a dim grey on black can vanish), :class:`Ascii` draws every
box, mark and arrow with an ASCII character of the same width.
"""

from __future__ import annotations

import os
from typing import Mapping

from rich.segment import Segment
from rich.style import Style
from textual.color import Color
from textual.filter import LineFilter

ASCII_ENV = "QUACKBOX_ASCII"
"""Set to 1 to draw in ASCII (what ``--ascii`` does)."""
ASCII_TERMS = ("vt100", "vt102", "vt220", "linux", "dumb")
"""Terminals drawn in ASCII without being asked."""

_ASCII = {
    # marks of the table (see docs/TUI.md)
    "✗": "x",
    "✓": "+",
    "›": ">",
    "▶": "*",
    "◷": "@",
    "⚠": "!",
    "·": "-",
    "…": "~",
    "⏎": "<",
    # a filled Infamy pip and the Quack turn marker, an empty pip: told apart
    "●": "*",
    "○": ".",
    "◌": "o",
    "←": "<",
    "→": ">",
    "↑": "^",
    "↓": "v",
    "⎆": ">",
    "⇄": "=",
    "⚑": "!",
    # the bullets of the rules and help pages (Textual's Markdown)
    "•": "*",
    "▪": "*",
    "‣": ">",
    "⭑": "*",
    "◦": "o",
    # boxes, rounded and heavy
    "─": "-",
    "━": "-",
    "│": "|",
    "┃": "|",
    "╭": "+",
    "╮": "+",
    "╰": "+",
    "╯": "+",
    "┌": "+",
    "┐": "+",
    "└": "+",
    "┘": "+",
    "┏": "+",
    "┓": "+",
    "┗": "+",
    "┛": "+",
    "├": "+",
    "┤": "+",
    "┬": "+",
    "┴": "+",
    "┼": "+",
    "═": "=",
    "║": "|",
    "╔": "+",
    "╗": "+",
    "╚": "+",
    "╝": "+",
    "╠": "+",
    "╣": "+",
    "╦": "+",
    "╩": "+",
    "╬": "+",
    "╴": "-",
    "╶": "-",
    "╸": "-",
    "╺": "-",
    "╵": "|",
    "╷": "|",
    "╹": "|",
    "╻": "|",
    # Textual's half blocks (inputs, buttons, scroll bars) and block letters
    "▔": "-",
    "▁": "_",
    "▊": "|",
    "▋": "|",
    "▌": "|",
    "▍": "|",
    "▎": "|",
    "▏": "|",
    "▕": "|",
    "▐": "|",
    "▀": "#",
    "▄": "#",
    "█": "#",
    "░": ".",
    "▒": ":",
    "▓": "#",
    "▂": "_",
    "▃": "_",
    "▅": "#",
    "▆": "#",
    "▇": "#",
    "▼": "v",
    "▲": "^",
    "►": ">",
    "◄": "<",
    "✔": "+",
    "✕": "x",
    "×": "x",
}
ASCII_TABLE: Mapping[int, str] = str.maketrans(_ASCII)
"""Each glyph a plain terminal may lack, and the one-cell ASCII character drawn instead."""


def wants_ascii(setting: bool, environ: Mapping[str, str] | None = None) -> bool:
    """ASCII when chosen (the setting or ``--ascii``), or on a terminal known to lack the glyphs."""
    env = os.environ if environ is None else environ
    if setting or env.get(ASCII_ENV, "") not in ("", "0"):
        return True
    return env.get("TERM", "").lower().startswith(ASCII_TERMS)


class Ascii(LineFilter):
    """Every glyph of :data:`ASCII_TABLE` drawn as its ASCII stand-in."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        return [Segment(text.translate(ASCII_TABLE), style, control) for text, style, control in segments]


_NOT_DIM = Style(dim=False)


class NoDim(LineFilter):
    """No faint text: on 16 colours a dim grey can all but vanish."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        return [
            Segment(text, style + _NOT_DIM, control)
            if style is not None and style.dim
            else Segment(text, style, control)
            for text, style, control in segments
        ]


_PLAIN = Style(color="default", bgcolor="default", dim=False)


class Plain(LineFilter):
    """NO_COLOR: the terminal's own colours everywhere and no faint text; bold,
    underline and reverse (the aimed target) stay."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        return [
            Segment(text, (style + _PLAIN) if style is not None else _PLAIN, control)
            for text, style, control in segments
        ]


__all__ = ["ASCII_ENV", "ASCII_TABLE", "Ascii", "NoDim", "Plain", "wants_ascii"]
