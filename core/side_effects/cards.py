"""What a Side Effects card does, in the rulebook's words, read off its card data.

The deck itself (names, copies, texts) is data: ``cards/side_effects.toml``,
loaded by :mod:`quackbox.cards.side_effects` into frozen :class:`~quackbox.cards.side_effects.SECard`
values. This module says what that data means to the rules.
"""

from __future__ import annotations

from enum import StrEnum

from quackbox.cards.side_effects import SECard


class Punishment(StrEnum):
    """SE7: what an Episode on a Disorder does to the player who has it."""

    DISCARD_DRUGS = "discard_drugs"
    """Madness: every Drug on the target's Psyche is discarded."""
    DISCARD_HAND = "discard_hand"
    """Suicidal Thoughts: the target discards their whole hand."""
    SKIP_TURN = "skip_turn"
    """Depression: the target skips their next turn; hits stack."""
    TREMORS = "tremors"
    """Tremors: the target discards 3 cards in time, or the whole hand."""
    RANDOM_STEAL = "random_steal"
    """Gambling Addiction: the inflictor takes up to 3 cards at random."""
    REVEAL_AND_TAKE = "reveal_and_take"
    """Anxiety: the hand is shown to the inflictor, who may take 1 card."""
    NO_PLAY = "no_play"
    """Impotence: the target plays no card on their next taken turn."""
    NO_DRAW = "no_draw"
    """Anorexia: the target draws nothing on their next taken turn."""


def punishment(disorder: SECard) -> Punishment:
    """The punishment an Episode on ``disorder`` triggers (SE7)."""
    return Punishment(disorder.punishment)


def therapy_works_on(disorder: SECard) -> bool:
    """SE8: Therapy removes any Disorder but those marked Therapy-proof (Tremors)."""
    return not disorder.therapy_proof
