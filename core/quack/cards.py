"""What a card does: the arithmetic of Quack in the Box, each rule once.

The rules (:mod:`quackbox.core.quack.rules`) and the table's previews (``tui/quack_text.py``)
call these same functions, so a preview can never disagree with what the
move then does. They read card values and plain numbers only, never a State.

- Treatments (QB4): :func:`treatment_points` and :func:`case_fate`.
- Infamy (QB5, QB6): :func:`infamy_after`, :func:`mob_comes`, :func:`split_infamy`.
- Anytime cards (QB8): :func:`signed_amount`, :func:`fine_taken`,
  :func:`owed_after`, :data:`AIMS`, what each effect may be played on, and
  :data:`HARMFUL` / :data:`HELPFUL`, what it does to the doctor it is aimed at.
"""

from __future__ import annotations

from enum import StrEnum
from typing import NamedTuple

from quackbox.cards import quack as qc
from quackbox.cards.quack import Anytime, Patient, Treatment

__all__ = [
    "AIMS",
    "DOCTOR",
    "HARMFUL",
    "HELPFUL",
    "OWN_HAND",
    "PATIENT",
    "REDIRECT",
    "SWAP",
    "Aim",
    "Fate",
    "Points",
    "UNIQUE_REMINDERS",
    "case_fate",
    "fine_taken",
    "infamy_after",
    "mob_comes",
    "owed_after",
    "signed_amount",
    "split_infamy",
    "treatment_points",
]


# --- Treatments (QB4) ---------------------------------------------------------


class Points(NamedTuple):
    """The Cure and Harm one Treatment gives one Patient."""

    cure: int
    harm: int


class Fate(StrEnum):
    """What becomes of a Patient (QB4). Equal to the words the events carry."""

    HARM = "harm"
    """Died of the Harm: total Harm reached the Patient's Kill."""
    CURED = "cured"
    """Went home cured: total Cure reached the Patient's Cure."""
    MORTAL = "mortal"
    """Died of too many Treatments: it received its Mortal number of them."""


def treatment_points(treatment: Treatment, patient: Patient) -> Points:
    """QB4: the Cure and Harm of ``treatment`` on ``patient``. Each is the
    largest value among the Patient's illness types the card lists; "All
    others" harms every illness type of the Patient the card does not name."""
    illnesses = patient.illnesses
    cure = harm = 0
    for ill, points in treatment.cures:
        if ill in illnesses:
            cure = max(cure, points)
    for ill, points in treatment.harms:
        if ill in illnesses:
            harm = max(harm, points)
    if treatment.harms_all_others:
        named = [ill for ill, _ in treatment.cures + treatment.harms]
        if any(ill not in named for ill in illnesses):
            harm = max(harm, treatment.harms_all_others)
    return Points(cure, harm)


def case_fate(patient: Patient, cure: int, harm: int, received: int) -> Fate | None:
    """QB4: what a Patient with these totals, after ``received`` Treatment
    cards, comes to; None while it stays in the bed. Harm is checked first,
    so a card that both kills and cures kills; then Cure, then Mortal."""
    if harm >= patient.kill:
        return Fate.HARM
    if cure >= patient.cure:
        return Fate.CURED
    if patient.mortal and received >= patient.mortal:
        return Fate.MORTAL
    return None


# --- Infamy and the Angry Mob (QB5, QB6) -------------------------------------------


def infamy_after(infamy: int, change: int) -> int:
    """A doctor's Infamy after ``change``: it never goes below 0."""
    return max(0, infamy + change)


def mob_comes(infamy: int, threshold: int) -> bool:
    """QB6: the Angry Mob comes for a doctor at or above the Infamy threshold."""
    return infamy >= threshold


def split_infamy(infamy: int) -> int:
    """QB5: a redirected Treatment's death splits the Patient's Infamy between
    the two doctors, each share rounding up."""
    return (infamy + 1) // 2


# --- Anytime cards (QB8) ---------------------------------------------------------


def signed_amount(card: Anytime) -> int:
    """The change an Infamy or Treatments-owed card makes: its amount, negative
    for the cards that take away (Glowing Online Review, Staff Shortage)."""
    if card.effect in (qc.INFAMY_DOWN, qc.FEWER_TREATMENT):
        return -card.amount
    return card.amount


def fine_taken(money: int, amount: int) -> int:
    """What a fine of ``amount`` takes from a doctor with ``money``: never more than they have."""
    return min(money, amount)


def owed_after(owed: int, change: int) -> int:
    """The Treatments owed after a change (QR17): never below 0."""
    return max(0, owed + change)


class Aim(StrEnum):
    """What an Anytime card is played on (QB8, QR14-QR16). Valid targets
    depend on public facts only, so the legal moves betray no hidden card."""

    PATIENT = "patient"
    """Any doctor with a Patient (the card acts on the Patient)."""
    DOCTOR = "doctor"
    """A practising doctor; some effects ask more (see core.quack.legal)."""
    OWN_HAND = "own_hand"
    """Your own hand: another card of it to discard (Paper Shredder)."""
    REDIRECT = "redirect"
    """A practising doctor with no Wrong Chart waiting, and another doctor's Patient."""
    SWAP = "swap"
    """Two doctors who both have a Patient, the lower seat first."""


PATIENT, DOCTOR, OWN_HAND, REDIRECT, SWAP = Aim.PATIENT, Aim.DOCTOR, Aim.OWN_HAND, Aim.REDIRECT, Aim.SWAP
"""The aims by their own names, as the rules read them."""

AIMS: dict[str, Aim] = {
    qc.CURE_POINTS: Aim.PATIENT,
    qc.HARM_POINTS: Aim.PATIENT,
    qc.RESET_HARM: Aim.PATIENT,
    qc.NULLIFY_TYPE: Aim.PATIENT,
    qc.BOOST_TYPE: Aim.PATIENT,
    qc.INFAMY_UP: Aim.DOCTOR,
    qc.INFAMY_DOWN: Aim.DOCTOR,
    qc.FINE: Aim.DOCTOR,
    qc.EXTRA_TREATMENT: Aim.DOCTOR,
    qc.FEWER_TREATMENT: Aim.DOCTOR,
    qc.FACE_DOWN: Aim.DOCTOR,
    qc.NO_PAY: Aim.DOCTOR,
    qc.DOUBLE_PAY: Aim.DOCTOR,
    qc.SHRED: Aim.OWN_HAND,
    qc.REDIRECT: Aim.REDIRECT,
    qc.TRANSFER: Aim.SWAP,
}
"""Every effect of :data:`quackbox.cards.quack.EFFECTS`, and what it is played on."""

UNIQUE_REMINDERS = frozenset((qc.FACE_DOWN, qc.NO_PAY, qc.DOUBLE_PAY))
"""QR15: reminders a doctor carries at most one of each (a second has no valid
target). Wrong Chart does not stack either: see ``Doctor.redirect_card``."""

HARMFUL = frozenset(
    (
        qc.FACE_DOWN,
        qc.REDIRECT,
        qc.HARM_POINTS,
        qc.INFAMY_UP,
        qc.FINE,
        qc.EXTRA_TREATMENT,
        qc.NO_PAY,
    )
)
"""Effects that hurt the doctor they are aimed at (or that doctor's Patient):
an unseen Patient, a Treatment sent astray, Harm, Infamy, a fine, one more
Treatment to risk, a payday lost. Nobody sane aims these at themselves."""

HELPFUL = frozenset((qc.CURE_POINTS, qc.RESET_HARM, qc.INFAMY_DOWN, qc.FEWER_TREATMENT, qc.DOUBLE_PAY))
"""Effects that help the doctor they are aimed at. The rest (Paper Shredder,
Patient Transfer, Lost Lab Results, Overexposed Film, Extra Strength) help
or hurt as the moment has it."""
