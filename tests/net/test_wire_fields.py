"""docs/PROTOCOL.md's field tables are the code's: written from the annotations
the wire's codec reads (:mod:`quackbox.net.wire_fields`), and checked here."""

from __future__ import annotations

import re
from pathlib import Path

from quackbox.core import games
from quackbox.core.rules import Seat
from quackbox.net import wire_fields
from quackbox.net.protocol import Wire

DOC = Path(__file__).resolve().parents[2] / "docs" / "PROTOCOL.md"

SEAT_NAMES = {
    "seat",
    "seats",
    "target",
    "to",
    "by",
    "first",
    "inflictor",
    "loser",
    "current",
    "winners",
    "waiting_for",
    "trade_partners",
    "window_seats",
    "other",
    "redirect_seat",
    "first_seat",
}
"""Fields that name seats: none of them may read as a bare number."""
CARD_NAMES = {
    "card",
    "cards",
    "drug",
    "disorder",
    "mine",
    "theirs",
    "give",
    "gave",
    "got",
    "patient",
    "discard",
    "reminder",
    "hand",
    "revealed",
    "discard_top",
    "reminders",
    "paying",
    "treatments",
}
"""Fields that hold cards."""


def test_the_document_lists_every_field_as_the_code_has_it() -> None:
    """The section between the markers is exactly what the annotations say now:
    rename a field or change its kind and this fails until the document is
    written again (python -m quackbox.net.wire_fields docs/PROTOCOL.md)."""
    text = DOC.read_text()
    start, end = text.index(wire_fields.BEGIN), text.index(wire_fields.END) + len(wire_fields.END)
    assert text[start:end] == wire_fields.fields_section()


def test_every_seat_and_card_field_says_so() -> None:
    """A field named as a seat or a card is never documented as a plain number,
    so a client written from the document alone need not guess."""
    for name in games.TITLES:
        rules = games.get(name)
        codec = Wire(rules).values
        refs = tuple(rules.wire_refs())
        for cls in rules.wire_types():
            if cls in refs:
                continue
            for field in codec.wire_fields(cls):
                said = wire_fields.describe(field.shown, refs)
                where = f"{cls.__name__}.{field.name}: {said}"
                # GameStarted.seats counts the seats; a list of seats says so.
                if field.name in SEAT_NAMES and not (field.name == "seats" and said == "number"):
                    assert "seat" in said, where
                if field.name in CARD_NAMES:
                    assert "card id" in said or "card name" in said or "text" in said, where


def test_the_four_ambiguities_are_gone() -> None:
    """window is a number only (the seats are window_seats); patient is a card
    id only (a doctor's Patient is its case); redirect_seat and first_seat are
    seats; discard is a card id, and -1 only where the table says so."""
    section = wire_fields.fields_section()
    for field, said in re.findall(r"\| `(\w+)` \| ([^|]+) \|", section):
        if field == "window":
            assert said.strip() == "window number", said
        if field == "patient":
            assert said.startswith("card id (Patient)"), said
        if field in ("redirect_seat", "first_seat", "first", "starter"):
            assert said.startswith("seat"), said
        if field == "discard" and "card id" not in said:
            assert said.strip() == "array of: card id (SECard)" or said.startswith("card id"), said
    assert wire_fields.describe(Seat, ()) == "seat"
