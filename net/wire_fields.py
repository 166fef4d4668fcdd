"""The fields section of docs/PROTOCOL.md, written from the wire's own annotations.

Every game value on the wire is a dataclass of ``rules.wire_types()``; the
codec (:mod:`quackbox.net.codec`) reads their annotations to decode and check
each field, and this module reads the same annotations, with the kind each
integer field holds (:class:`quackbox.core.rules.Wire`: a seat, a card id of
which table, an offer id, a window number...), to write the document's tables.
So the document cannot drift from the code: ``tests/net/test_wire_fields.py``
fails when they differ, and

    python -m quackbox.net.wire_fields docs/PROTOCOL.md

writes the section again between its two marker lines.
"""

from __future__ import annotations

import enum
import sys
import types
import typing
from pathlib import Path
from typing import Annotated, Any, Iterable

from quackbox.core import games
from quackbox.core import rules as core_rules
from quackbox.core.rules import Event
from quackbox.net.protocol import Wire

__all__ = ["BEGIN", "END", "describe", "fields_section", "rewrite"]

BEGIN = "<!-- fields: written by `python -m quackbox.net.wire_fields docs/PROTOCOL.md`; do not edit by hand -->"
END = "<!-- end of fields -->"
_NONE = type(None)


def describe(ann: Any, refs: Iterable[type]) -> str:
    """What a field of annotation ``ann`` holds on the wire, in words."""
    refs = tuple(refs)
    if typing.get_origin(ann) is Annotated:
        base, *marks = typing.get_args(ann)
        for mark in marks:
            if isinstance(mark, core_rules.Wire):
                return mark.text
        return describe(base, refs)
    if ann is int:
        return "number"
    if ann is float:
        return "number (may have a fraction)"
    if ann is str:
        return "text"
    if ann is bool:
        return "true or false"
    if ann is Any:
        return "any game value"
    if isinstance(ann, type) and issubclass(ann, enum.Enum):
        return "text: " + ", ".join(f"`{member.value}`" if member.value else '`""`' for member in ann)
    if isinstance(ann, type) and ann in refs:
        return f"card id ({ann.__name__})"
    if isinstance(ann, type):
        return f"`{ann.__name__}` map"
    args = typing.get_args(ann)
    if typing.get_origin(ann) is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return f"array of: {describe(args[0], refs)}"
        return "array of " + ", ".join(describe(arg, refs) for arg in args)
    if typing.get_origin(ann) in (typing.Union, types.UnionType):
        arms = [arm for arm in args if arm is not _NONE]
        if arms and all(isinstance(arm, type) and arm in refs for arm in arms):
            shown = f"card id ({' or '.join(arm.__name__ for arm in arms)})"
        else:
            shown = " or ".join(describe(arm, refs) for arm in arms)
        return f"{shown}, or nil" if _NONE in args else shown
    return str(ann)


def _heading(cls: type, moves: tuple[type, ...]) -> str:
    if cls in moves:
        return "move"
    if issubclass(cls, Event):
        return "event"
    return "value"


def fields_section() -> str:
    """The document's fields section: every game value of every game, each
    field with what it holds, as the wire's codec reads their annotations."""
    out = [BEGIN, ""]
    shown: set[type] = set()
    for name in sorted(games.TITLES):
        rules = games.get(name)
        codec = Wire(rules).values
        refs = tuple(rules.wire_refs())
        moves = tuple(rules.move_types())
        out += [f"### {rules.title} (`{name}`)", ""]
        if refs:
            cards = ", ".join(f"`{cls.__name__}`" for cls in refs)
            out += [f'Cards ({cards}) travel by id: see "Cards travel by id".', ""]
        for cls in rules.wire_types():
            if cls in refs:
                continue
            if cls in shown:
                out += [f"`{cls.__name__}` ({_heading(cls, moves)}): as above.", ""]
                continue
            shown.add(cls)
            fields = codec.wire_fields(cls)
            if not fields:
                out += [f"`{cls.__name__}` ({_heading(cls, moves)}): no fields.", ""]
                continue
            out += [f"`{cls.__name__}` ({_heading(cls, moves)})", "", "| field | holds |", "|---|---|"]
            for field in fields:
                optional = "" if field.required else " *(optional)*"
                out.append(f"| `{field.name}` | {describe(field.shown, refs)}{optional} |")
            out.append("")
    out.append(END)
    return "\n".join(out)


def rewrite(text: str) -> str:
    """``text`` (docs/PROTOCOL.md) with its fields section written anew."""
    start, end = text.index(BEGIN), text.index(END) + len(END)
    return text[:start] + fields_section() + text[end:]


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m quackbox.net.wire_fields docs/PROTOCOL.md", file=sys.stderr)
        return 2
    path = Path(args[0])
    path.write_text(rewrite(path.read_text()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
