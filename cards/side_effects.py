"""The Side Effects deck: card kinds loaded from ``side_effects.toml``.

:func:`load` returns a :class:`Deck` of card kinds; :meth:`Deck.build` turns
it into the physical cards of one game, each with a stable id (its index),
so moves and views can name a card without saying where it is.
"""

from __future__ import annotations

from dataclasses import dataclass

from quackbox.cards.data import CardDataError, Fields, parse_toml, read_packaged, sections

FILENAME = "side_effects.toml"

DISORDER = "disorder"
DRUG = "drug"
EPISODE = "episode"
THERAPY = "therapy"
MISDIAGNOSIS = "misdiagnosis"
HIGH_TOLERANCE = "high_tolerance"

KINDS = (DISORDER, DRUG, EPISODE, THERAPY, MISDIAGNOSIS, HIGH_TOLERANCE)
BONUS_EFFECTS = (MISDIAGNOSIS, HIGH_TOLERANCE)

PUNISHMENTS = (
    "discard_drugs",  # Madness
    "discard_hand",  # Suicidal Thoughts
    "skip_turn",  # Depression
    "tremors",  # Tremors
    "random_steal",  # Gambling Addiction
    "reveal_and_take",  # Anxiety
    "no_play",  # Impotence
    "no_draw",  # Anorexia
)

MAX_COPIES = 40


@dataclass(frozen=True, slots=True)
class SECard:
    """One physical Side Effects card.

    ``id`` is stable for the whole game. ``treats`` and ``side_effects`` are
    set on Drugs, ``punishment`` on Disorders; ``text`` is a short summary.
    """

    id: int
    name: str
    kind: str
    treats: str = ""
    side_effects: tuple[str, ...] = ()
    punishment: str = ""
    text: str = ""
    bonus: bool = False
    therapy_proof: bool = False


@dataclass(frozen=True, slots=True)
class Deck:
    """The card kinds of a deck and their copies, validated."""

    kinds: tuple[SECard, ...]
    """One SECard per kind, id -1; ``copies`` below in the same order."""
    copies: tuple[int, ...]
    source: str

    @property
    def disorders(self) -> tuple[str, ...]:
        return tuple(k.name for k in self.kinds if k.kind == DISORDER)

    def build(self, *, bonus: bool = False) -> tuple[SECard, ...]:
        """The physical cards of one game, ids 0..n-1 in file order."""
        out: list[SECard] = []
        for kind, copies in zip(self.kinds, self.copies):
            if kind.bonus and not bonus:
                continue
            for _ in range(copies):
                out.append(
                    SECard(
                        id=len(out),
                        name=kind.name,
                        kind=kind.kind,
                        treats=kind.treats,
                        side_effects=kind.side_effects,
                        punishment=kind.punishment,
                        text=kind.text,
                        bonus=kind.bonus,
                        therapy_proof=kind.therapy_proof,
                    )
                )
        return tuple(out)


def parse(text: str, source: str = FILENAME) -> Deck:
    """Parse and validate Side Effects card data; raise CardDataError."""
    doc = parse_toml(text, source)
    sections(doc, source, (DISORDER, DRUG, EPISODE, THERAPY, "bonus"))
    kinds: list[SECard] = []
    copies: list[int] = []
    seen: set[str] = set()

    def add(fields: Fields, card: SECard, count: int) -> None:
        fields.done()
        if card.name.casefold() in seen:
            raise fields.fail("appears twice; each card name must be unique")
        seen.add(card.name.casefold())
        kinds.append(card)
        copies.append(count)

    for i, table in enumerate(doc.get(DISORDER, [])):
        f = Fields(source, DISORDER, table, i, ("copies", "punishment", "text", "therapy_proof"))
        punishment = f.text("punishment")
        if punishment not in PUNISHMENTS:
            raise f.fail(f"has unknown punishment {punishment!r}; known: {', '.join(PUNISHMENTS)}")
        card = SECard(
            -1,
            f.name,
            DISORDER,
            punishment=punishment,
            text=f.text("text", ""),
            therapy_proof=f.boolean("therapy_proof"),
        )
        add(f, card, f.integer("copies", 1, MAX_COPIES))

    disorders = {k.name for k in kinds}
    if not disorders:
        raise CardDataError(source, None, "has no [[disorder]] cards")

    treated: set[str] = set()
    for i, table in enumerate(doc.get(DRUG, [])):
        f = Fields(source, DRUG, table, i, ("copies", "treats", "side_effects", "text"))
        treats = f.text("treats")
        if treats not in disorders:
            raise f.fail(f"treats {treats!r}, which is not a Disorder in this deck")
        if treats in treated:
            raise f.fail(f"treats {treats!r}, which another Drug already treats")
        treated.add(treats)
        side_effects = f.names("side_effects")
        for name in side_effects:
            if name not in disorders:
                raise f.fail(f"lists side effect {name!r}, which is not a Disorder in this deck")
        if len(set(side_effects)) != len(side_effects):
            raise f.fail("lists a side effect twice")
        card = SECard(-1, f.name, DRUG, treats=treats, side_effects=side_effects, text=f.text("text", ""))
        add(f, card, f.integer("copies", 1, MAX_COPIES))

    for kind in (EPISODE, THERAPY):
        for i, table in enumerate(doc.get(kind, [])):
            f = Fields(source, kind, table, i, ("copies", "text"))
            add(f, SECard(-1, f.name, kind, text=f.text("text", "")), f.integer("copies", 1, MAX_COPIES))

    for i, table in enumerate(doc.get("bonus", [])):
        f = Fields(source, "bonus", table, i, ("copies", "effect", "text"))
        effect = f.text("effect")
        if effect not in BONUS_EFFECTS:
            raise f.fail(f"has unknown effect {effect!r}; known: {', '.join(BONUS_EFFECTS)}")
        card = SECard(-1, f.name, effect, text=f.text("text", ""), bonus=True)
        add(f, card, f.integer("copies", 1, MAX_COPIES))

    for kind in (EPISODE, THERAPY):
        if not any(k.kind == kind for k in kinds):
            raise CardDataError(source, None, f"has no [[{kind}]] card")
    return Deck(tuple(kinds), tuple(copies), source)


def load() -> Deck:
    """The deck shipped with quackbox."""
    return parse(read_packaged(FILENAME), FILENAME)
