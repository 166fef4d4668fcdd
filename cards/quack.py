"""The Quack in the Box deck: card kinds loaded from ``quack.toml``.

Three kinds of card (rulebook, "Types of Cards"): Patients (their own deck),
Treatments and Anytime cards (together the Doc deck). :func:`load` returns a
:class:`Deck` of card kinds; :meth:`Deck.build` turns it into the physical
cards of one game, each with a stable id (its index in the tuple), so moves
and views can name a card without saying where it is.

The cards are frozen dataclasses of ints, strs and tuples only, because views
carry them to every screen over the wire.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Sequence

from quackbox.cards.data import CardDataError, Fields, parse_toml, read_packaged, sections

FILENAME = "quack.toml"

ILLNESSES = (
    "Abdominal Surgery",
    "Allergy",
    "Bleeding",
    "Cardiac",
    "GI",
    "Gynecology",
    "Infectious",
    "Minor Trauma",
    "Neuro",
    "Oncology",
    "Pregnancy",
    "Psychiatry",
)
"""The twelve Types of Illness of the rulebook."""

TREATMENT_TYPES = ("Advice", "H&P", "Laboratory", "Medicine", "Procedure", "Transfusion", "Xray")
"""The seven Types of Treatment of the rulebook."""

PATIENT = "patient"
TREATMENT = "treatment"
ANYTIME = "anytime"

# Anytime effects the engine (core/quack.py) implements, and what each reads.
FACE_DOWN = "face_down"  # target doctor's next Patient is drawn face down
REDIRECT = "redirect"  # target doctor's next Treatment goes to another doctor's Patient
SHRED = "shred"  # discard a card of your choice from your hand, draw one
CURE_POINTS = "cure_points"  # target Patient gains ``amount`` Cure points
HARM_POINTS = "harm_points"  # target Patient gains ``amount`` Harm points
INFAMY_UP = "infamy_up"  # target doctor gains ``amount`` Infamy
INFAMY_DOWN = "infamy_down"  # target doctor loses ``amount`` Infamy
FINE = "fine"  # target doctor loses $``amount``
RESET_HARM = "reset_harm"  # target Patient's Harm goes back to 0
TRANSFER = "transfer"  # two doctors swap Patients
EXTRA_TREATMENT = "extra_treatment"  # target doctor owes ``amount`` more Treatments
FEWER_TREATMENT = "fewer_treatment"  # target doctor owes ``amount`` fewer Treatments
NULLIFY_TYPE = "nullify_type"  # the next ``treatment_type`` Treatment on target Patient does nothing
BOOST_TYPE = "boost_type"  # the next ``treatment_type`` Treatment on target Patient counts double
NO_PAY = "no_pay"  # target doctor's next payday pays nothing
DOUBLE_PAY = "double_pay"  # target doctor's next payday pays double

EFFECTS = (
    FACE_DOWN,
    REDIRECT,
    SHRED,
    CURE_POINTS,
    HARM_POINTS,
    INFAMY_UP,
    INFAMY_DOWN,
    FINE,
    RESET_HARM,
    TRANSFER,
    EXTRA_TREATMENT,
    FEWER_TREATMENT,
    NULLIFY_TYPE,
    BOOST_TYPE,
    NO_PAY,
    DOUBLE_PAY,
)
AMOUNT_EFFECTS = (CURE_POINTS, HARM_POINTS, INFAMY_UP, INFAMY_DOWN, FINE, EXTRA_TREATMENT, FEWER_TREATMENT)
"""Effects that need ``amount`` (a positive number)."""
TYPE_EFFECTS = (NULLIFY_TYPE, BOOST_TYPE)
"""Effects that need ``treatment_type``."""

CURE_RANGE = (2, 10)
KILL_RANGE = (1, 20)
INFAMY_RANGE = (0, 10)
MORTAL_RANGE = (0, 20)
PRICE_RANGE = (0, 2000)
POINTS_RANGE = (1, 10)
AMOUNT_RANGE = {FINE: (1, 2000)}
DEFAULT_AMOUNT_RANGE = (1, 10)
MAX_ILLNESSES = 3
MAX_COPIES = 40


@dataclass(frozen=True, slots=True)
class Patient:
    """A Patient card. ``mortal`` 0 means the card has no Mortal number."""

    id: int
    name: str
    description: str
    illnesses: tuple[str, ...]
    cure: int
    kill: int
    infamy: int
    mortal: int = 0


@dataclass(frozen=True, slots=True)
class Treatment:
    """A Treatment card. ``cures`` and ``harms`` are (illness, points) pairs in
    the order of :data:`ILLNESSES`; ``harms_all_others`` (0 = none) harms every
    illness type the card names nowhere (ruling QB4)."""

    id: int
    name: str
    description: str
    treatment_type: str
    price: int
    cures: tuple[tuple[str, int], ...]
    harms: tuple[tuple[str, int], ...]
    harms_all_others: int = 0


@dataclass(frozen=True, slots=True)
class Anytime:
    """An Anytime card: ``effect`` is one of :data:`EFFECTS`; ``amount`` and
    ``treatment_type`` are its parameters where it uses them (else 0 and "")."""

    id: int
    name: str
    description: str
    effect: str
    amount: int = 0
    treatment_type: str = ""


Card = Patient | Treatment | Anytime


@dataclass(frozen=True, slots=True)
class Deck:
    """The card kinds of a deck and their copies, validated (ids are -1)."""

    patients: tuple[Patient, ...]
    patient_copies: tuple[int, ...]
    treatments: tuple[Treatment, ...]
    treatment_copies: tuple[int, ...]
    anytimes: tuple[Anytime, ...]
    anytime_copies: tuple[int, ...]
    source: str

    def build(self) -> tuple[Card, ...]:
        """The physical cards of one game: Patients, then Treatments, then
        Anytime cards, each in file order; ids 0..n-1 are their indices."""
        out: list[Card] = []
        kinds_and_copies: tuple[tuple[Sequence[Card], Sequence[int]], ...] = (
            (self.patients, self.patient_copies),
            (self.treatments, self.treatment_copies),
            (self.anytimes, self.anytime_copies),
        )
        for kinds, copies in kinds_and_copies:
            for kind, count in zip(kinds, copies):
                for _ in range(count):
                    out.append(replace(kind, id=len(out)))
        return tuple(out)


def _points(f: Fields, key: str) -> tuple[tuple[str, int], ...]:
    table = f.table_of_ints(key, *POINTS_RANGE)
    for illness in table:
        if illness not in ILLNESSES:
            raise f.fail(f"lists unknown illness {illness!r} under {key!r}; known: {', '.join(ILLNESSES)}")
    return tuple((ill, table[ill]) for ill in ILLNESSES if ill in table)


def parse(text: str, source: str = FILENAME) -> Deck:
    """Parse and validate Quack in the Box card data; raise CardDataError."""
    doc = parse_toml(text, source)
    sections(doc, source, (PATIENT, TREATMENT, ANYTIME))
    seen: set[str] = set()

    def unique(f: Fields) -> None:
        f.done()
        if f.name.casefold() in seen:
            raise f.fail("appears twice; each card name must be unique")
        seen.add(f.name.casefold())

    patients: list[Patient] = []
    patient_copies: list[int] = []
    for i, table in enumerate(doc.get(PATIENT, [])):
        f = Fields(source, PATIENT, table, i)
        illnesses = f.names("illnesses")
        if not 1 <= len(illnesses) <= MAX_ILLNESSES:
            raise f.fail(f"must have 1 to {MAX_ILLNESSES} illnesses, not {len(illnesses)}")
        for illness in illnesses:
            if illness not in ILLNESSES:
                raise f.fail(f"has unknown illness {illness!r}; known: {', '.join(ILLNESSES)}")
        if len(set(illnesses)) != len(illnesses):
            raise f.fail("lists an illness twice")
        patient = Patient(
            id=-1,
            name=f.name,
            description=f.text("description", ""),
            illnesses=illnesses,
            cure=f.integer("cure", *CURE_RANGE),
            kill=f.integer("kill", *KILL_RANGE),
            infamy=f.integer("infamy", *INFAMY_RANGE),
            mortal=f.integer("mortal", *MORTAL_RANGE, default=0),
        )
        patient_copies.append(f.integer("copies", 1, MAX_COPIES, default=1))
        unique(f)
        patients.append(patient)

    treatments: list[Treatment] = []
    treatment_copies: list[int] = []
    for i, table in enumerate(doc.get(TREATMENT, [])):
        f = Fields(source, TREATMENT, table, i)
        kind = f.text("type")
        if kind not in TREATMENT_TYPES:
            raise f.fail(f"has unknown treatment type {kind!r}; known: {', '.join(TREATMENT_TYPES)}")
        cures = _points(f, "cures")
        harms = _points(f, "harms")
        all_others = f.integer("all_others", 0, POINTS_RANGE[1], default=0)
        if not cures and not harms and not all_others:
            raise f.fail("has neither Cures nor Harms")
        both = sorted({ill for ill, _ in cures} & {ill for ill, _ in harms})
        if both:
            raise f.fail(f"lists {', '.join(both)} under both cures and harms")
        treatment = Treatment(
            id=-1,
            name=f.name,
            description=f.text("description", ""),
            treatment_type=kind,
            price=f.integer("price", *PRICE_RANGE),
            cures=cures,
            harms=harms,
            harms_all_others=all_others,
        )
        treatment_copies.append(f.integer("copies", 1, MAX_COPIES, default=1))
        unique(f)
        treatments.append(treatment)

    anytimes: list[Anytime] = []
    anytime_copies: list[int] = []
    for i, table in enumerate(doc.get(ANYTIME, [])):
        f = Fields(source, ANYTIME, table, i)
        effect = f.text("effect")
        if effect not in EFFECTS:
            raise f.fail(f"has unknown effect {effect!r}; known: {', '.join(EFFECTS)}")
        amount = 0
        if effect in AMOUNT_EFFECTS:
            low, high = AMOUNT_RANGE.get(effect, DEFAULT_AMOUNT_RANGE)
            amount = f.integer("amount", low, high)
        treatment_type = ""
        if effect in TYPE_EFFECTS:
            treatment_type = f.text("treatment_type")
            if treatment_type not in TREATMENT_TYPES:
                raise f.fail(f"has unknown treatment type {treatment_type!r}; known: {', '.join(TREATMENT_TYPES)}")
        anytime = Anytime(
            id=-1,
            name=f.name,
            description=f.text("description", ""),
            effect=effect,
            amount=amount,
            treatment_type=treatment_type,
        )
        anytime_copies.append(f.integer("copies", 1, MAX_COPIES, default=1))
        # A parameter the effect does not use is refused as an unknown field.
        unique(f)
        anytimes.append(anytime)

    if not patients:
        raise CardDataError(source, None, "has no [[patient]] cards")
    if not treatments:
        raise CardDataError(source, None, "has no [[treatment]] cards")
    return Deck(
        tuple(patients),
        tuple(patient_copies),
        tuple(treatments),
        tuple(treatment_copies),
        tuple(anytimes),
        tuple(anytime_copies),
        source,
    )


def load() -> Deck:
    """The deck shipped with quackbox."""
    return parse(read_packaged(FILENAME), FILENAME)
