"""What a program playing a seat is told, and what it may answer: JSON lines, no IO.

A program of any language can play a seat (``quackbox join ADDR --bot-cmd``,
``quackbox host --bot-cmd``, ``quackbox sim --bots cmd:...``). It runs as a
child of quackbox, which keeps the seat itself: the program reads one JSON
object per line on its standard input and writes one line back for each,
on its standard output. docs/BOTS.md is the reference a program is written
from; this module is its executable form, shared by the runners over the
network (:mod:`quackbox.net.program`) and in ``sim``
(:mod:`quackbox.net.program_threads`).

A line to the program is one of:

- ``{"type": "view", ...}``: the seat's view changed. ``legal`` holds the
  moves the seat may make now, written as docs/PROTOCOL.md writes moves;
  ``waiting`` is true when the game waits for this seat. The answer is an
  index into ``legal``, or ``-1`` for no move now, which is an answer only
  while ``waiting`` is false.
- ``{"type": "replaced", "reason": ...}``: the program broke the rules of
  its seat (see :class:`ProgramFault`); the normal bot plays the seat from
  now on, and the program's standard input closes after this line.

Values are written as the wire writes them (:meth:`quackbox.net.codec.Codec.dumps_json`):
a dataclass as a map tagged ``"@"``, a card as its id. The first line of
each game carries ``cards``, every card of the game written out in full, so a
program needs no card data of its own.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any, Sequence

from quackbox.core.rules import AnyRules, Event, GameView, Move
from quackbox.net.protocol import Wire

__all__ = [
    "ANSWER_SECONDS",
    "Asked",
    "MAX_LINE",
    "ProgramFault",
    "SeatLines",
    "read_answer",
    "replaced_line",
]

ANSWER_SECONDS = 10.0
"""Seconds a program has to answer a line when the game runs no countdown for its seat."""
MAX_LINE = 64 * 1024
"""Longest line read from a program at all (an answer or a line of its standard error)."""
NO_MOVE = -1
"""The answer that makes no move now."""
REPLACED_BY = "The normal bot plays this seat for the rest of the game."

_INDEX = re.compile(r"-?[0-9]{1,9}")


class ProgramFault(Exception):
    """The program broke the rules of its seat: it exited, wrote something that is
    not an answer, answered out of range, or missed its time. ``str()`` is the
    sentence the program is told and the log says; its seat goes to the normal bot."""


@dataclass(frozen=True, slots=True)
class Asked:
    """What a line asked: the moves its ``legal`` listed, and whether the game waited."""

    legal: tuple[Move, ...]
    waiting: bool


class SeatLines:
    """The lines of one program at one seat of one game.

    Args:
        rules: the game's rules.
        seat: the seat the program plays.
        names: the players' names by seat, as the log names them.
        number: which game this is for the program (1 for its first).
    """

    def __init__(
        self, rules: AnyRules, *, seat: int, names: Sequence[str], number: int, wire: Wire | None = None
    ) -> None:
        self.rules = rules
        self.seat = seat
        self.names = tuple(names)
        self.number = number
        self.wire = wire if wire is not None else Wire(rules)
        self.sent = 0
        """Lines sent so far in this game."""

    def view_line(
        self, view: GameView, *, events: Sequence[Event], log: Sequence[str], deadline: float | None
    ) -> tuple[str, Asked]:
        """The line telling the program of ``view``, after ``events`` (already redacted for
        its seat) and the log lines ``log`` they made; ``deadline``, the seconds the seat
        has to answer when a countdown runs for it. Also what the line asks."""
        waiting = view.seat in view.waiting_for and view.outcome is None and bool(view.legal)
        line: dict[str, Any] = {
            "type": "view",
            "game": self.rules.name,
            "number": self.number,
            "seat": self.seat,
            "names": list(self.names),
            "waiting": waiting,
            "deadline": deadline,
            "legal": view.legal,
            "events": tuple(events),
            "log": tuple(log),
            "view": view,
        }
        if self.sent == 0:
            line["cards"] = cards_of(self.rules)
        self.sent += 1
        return self.wire.values.dumps_json(line), Asked(tuple(view.legal), waiting)


def cards_of(rules: AnyRules) -> list[dict[str, Any]]:
    """Every card of the game written out in full, each with the id lines name it by."""
    out: list[dict[str, Any]] = []
    for values in rules.wire_refs().values():
        for card in values:
            out.append({"@": type(card).__name__, **dataclasses.asdict(card)})
    return sorted(out, key=lambda card: int(card["id"]))


def replaced_line(reason: str, wire: Wire) -> str:
    """The last line a program is sent: why it lost its seat."""
    return wire.values.dumps_json({"type": "replaced", "reason": reason, "then": REPLACED_BY})


def read_answer(text: str, asked: Asked) -> Move | None:
    """The move the answer ``text`` (one line, its end stripped or not) names, or None
    for no move now.

    Raises:
        ProgramFault: ``text`` is not an index into the line's ``legal``, or it is
            -1 while the game waits for the seat.
    """
    answer = text.strip()
    if not _INDEX.fullmatch(answer):
        shown = answer if len(answer) <= 40 else answer[:40] + "..."
        raise ProgramFault(f"It answered {shown!r}, which is neither an index into legal nor -1.")
    index = int(answer)
    if index == NO_MOVE:
        if asked.waiting:
            raise ProgramFault("It answered -1 (no move) while the game was waiting for it.")
        return None
    if not 0 <= index < len(asked.legal):
        if not asked.legal:
            raise ProgramFault(f"It answered {index}, but legal was empty: the only answer was -1.")
        raise ProgramFault(f"It answered {index}, but legal held moves 0 to {len(asked.legal) - 1}.")
    return asked.legal[index]
