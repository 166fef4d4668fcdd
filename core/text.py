"""The English both games' logs are written in: a sentence told from one seat's side.

Each game's ``text.py`` keeps one small function per event (its own words);
what they share is here: naming a seat as the reader sees it ("You", "Ana",
"your", "Ana's"), the verb that agrees with it, and joining and counting words.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any, Callable, Protocol, Sequence, TypeVar, cast

from quackbox.core.rules import Event, LineKind

__all__ = ["Named", "Sentences", "Teller", "counted", "joined"]


class Named(Protocol):
    """A card, as a sentence names it."""

    @property
    def name(self) -> str: ...


def joined(words: Sequence[str]) -> str:
    """``words`` as a list in a sentence: "A", "A and B", "A, B and C" ("" for none)."""
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def counted(count: int, word: str) -> str:
    """``count`` of ``word``: "1 card", "2 cards", "0 cards"."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


class Teller:
    """Words for the seats of one table, told to one reader (``reader``; None
    for a spectator): the reader is "You", everyone else their name.

    ``names`` are the players' names by seat; ``deck`` the game's cards by id.
    """

    def __init__(self, names: Sequence[str], reader: int | None, deck: Sequence[Named]) -> None:
        self.names = names
        self.reader = reader
        self.deck = deck

    def lookup(self, card: int) -> Named | None:
        """The card of id ``card``, or None for an id that is no card (NONE, a redacted one)."""
        return self.deck[card] if 0 <= card < len(self.deck) else None

    def card(self, card: int) -> str:
        """A card by name, or "card 12" for an id that is no card."""
        found = self.lookup(card)
        return found.name if found is not None else f"card {card}"

    def name(self, seat: int) -> str:
        """``seat`` as the subject of a sentence: "You", "Ana" (or "Seat 3" unnamed)."""
        if seat == self.reader:
            return "You"
        if 0 <= seat < len(self.names):
            return self.names[seat]
        return f"Seat {seat + 1}"

    def obj(self, seat: int) -> str:
        """``seat`` as an object: "you", "Ana"."""
        return "you" if seat == self.reader else self.name(seat)

    def poss(self, seat: int) -> str:
        """Whose: "your", "Ana's"."""
        return "your" if seat == self.reader else f"{self.name(seat)}'s"

    def poss_first(self, seat: int) -> str:
        """Whose, opening a sentence: "Your", "Ana's", "bob's" (a name stays as its owner
        wrote it: only the reader's own word is made upper case)."""
        return "Your" if seat == self.reader else self.poss(seat)

    def their(self, seat: int) -> str:
        """Whose, of a seat already named in the sentence: "your", "their"."""
        return "your" if seat == self.reader else "their"

    def verb(self, seat: int, you: str, other: str) -> str:
        """The verb agreeing with ``seat`` as the subject: ``you`` for the reader, ``other`` for the rest."""
        return you if seat == self.reader else other

    def obj_of(self, actor: int, seat: int) -> str:
        """``seat`` as the object of ``actor``'s action: "yourself"/"themselves" when the same."""
        if seat == actor:
            return "yourself" if seat == self.reader else "themselves"
        return self.obj(seat)

    def poss_of(self, actor: int, seat: int) -> str:
        """Whose, after ``actor``: "your"/"their" when the same seat, else :meth:`poss`."""
        return self.their(seat) if seat == actor else self.poss(seat)

    def cards(self, ids: Sequence[int]) -> str:
        """The cards ``ids`` by name, :func:`joined`."""
        return joined([self.card(c) for c in ids])

    def listed(self, seats: Sequence[int], *, subject: bool = True) -> str:
        """``seats`` :func:`joined`: the first as a subject ("You and Ana"), or all as objects."""
        return joined([self.name(s) if i == 0 and subject else self.obj(s) for i, s in enumerate(seats)])


E = TypeVar("E", bound=Event)
Sentence = Callable[[Any, Teller], str]


class _Seated(Protocol):
    seat: int


class Sentences:
    """One game's log: a small function per kind of event, each making that
    event's sentence (registered with :meth:`of`), and :meth:`describe`;
    :meth:`line_kind` says what each line tells."""

    def __init__(self, unknown: Callable[[Event], str]) -> None:
        self._by_kind: dict[type, Sentence] = {}
        self._unknown = unknown
        self._turns: set[type] = set()
        self._seated: set[type] = set()
        """Kinds of event with a ``seat``: the seat that did it, or that it happened to."""

    def of(
        self, kind: type[E], *, turn: bool = False
    ) -> Callable[[Callable[[E, Teller], str]], Callable[[E, Teller], str]]:
        """Register the decorated function as the sentence of events of ``kind``
        (``turn``: its line says a turn or round begins)."""

        def register(sentence: Callable[[E, Teller], str]) -> Callable[[E, Teller], str]:
            self._by_kind[kind] = sentence
            if turn:
                self._turns.add(kind)
            if any(f.name == "seat" for f in fields(kind)):
                self._seated.add(kind)
            return sentence

        return register

    def line_kind(self, event: Event, seat: int | None) -> LineKind:
        """What ``event``'s line tells ``seat``: a turn begins, the reader's own
        seat's doing, or another event."""
        kind = type(event)
        if kind in self._turns:
            return LineKind.TURN
        if seat is not None and kind in self._seated and cast(_Seated, event).seat == seat:
            return LineKind.MINE
        return LineKind.EVENT

    def kinds(self) -> frozenset[type]:
        """The kinds of event that have a sentence."""
        return frozenset(self._by_kind)

    def describe(self, event: Event, names: Sequence[str], seat: int | None, cards: Sequence[Named]) -> str:
        """``event`` as a sentence for ``seat``'s log; ``names`` are the players'
        names by seat, ``cards`` the game's cards by id."""
        sentence = self._by_kind.get(type(event))
        if sentence is None:
            return self._unknown(event)
        return sentence(event, Teller(names, seat, cards))
