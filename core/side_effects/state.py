"""The State of one Side Effects game: where every card lies and whose turn it is.

The State is mutable and owned by whoever runs the game (the host, a
simulation, a test); the rules object holds no game. It holds the game's
facts and nothing else: piles, hands, Psyches, the facts of the turn, the
open trade offers and the seeded RNG. :func:`clone` copies one.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from enum import StrEnum

from quackbox.cards.side_effects import SECard
from quackbox.core.options import option
from quackbox.core.rules import NONE, Event, Outcome, SeatOrRandom

GAME = "side-effects"

# The numbers of the rulebook and of rulings SE2, SE5, SE7 and SE10.
HAND_SIZE = 4
"""Cards dealt to each hand (rulebook Setup)."""
PSYCHE_SIZE = 4
"""Disorders dealt to each Psyche (rulebook Setup) ..."""
SMALL_TABLE_PSYCHE = 3
"""... or this many from SMALL_PSYCHE_FROM players on (SE2)."""
SMALL_PSYCHE_FROM = 6
DRAW_PER_TURN = 2
PLAYS_PER_TURN = 2
HAND_LIMIT = 6
"""SE5: at the end of a turn the player discards down to this many."""
TREMORS_CARDS = 3
"""SE7 Tremors: the cards to discard in time."""
STEAL_CARDS = 3
"""SE7 Gambling Addiction: the most cards taken at random."""
MAX_OPEN_OFFERS = 3
"""SE10: open offers per offering seat; enough to haggle, too few to flood."""


class Phase(StrEnum):
    """What the game is waiting for."""

    PLAY = "play"
    """The current player plays, discards, trades or ends the turn."""
    DISCARD_DOWN = "discard_down"
    """SE5: the current player discards down to HAND_LIMIT, one card at a time."""
    TREMORS = "tremors"
    """SE7: the target of a Tremors Episode picks cards to discard in time."""
    ANXIETY = "anxiety"
    """SE7: the inflictor of an Anxiety Episode may take a card of the shown hand."""
    OVER = "over"
    """The game has ended."""


PLAY = Phase.PLAY
DISCARD_DOWN = Phase.DISCARD_DOWN
TREMORS = Phase.TREMORS
ANXIETY = Phase.ANXIETY
OVER = Phase.OVER


@dataclass(frozen=True, slots=True)
class SEOptions:
    """Table options. Everything off is the rulebook game."""

    tremors_seconds: float = option(3.0, low=0.0, high=60.0)
    """Time to pick the Tremors discards (SE7); 0 waits for ever."""
    until_one_loser: bool = option(False)
    """SE9: winners leave and play goes on until one player is left."""
    duplicate_disorders: bool = option(False)
    """SE11 house rule: a Psyche may hold the same Disorder twice."""
    treat_others: bool = option(False)
    """SE11 house rule: your Drug may treat another player's Disorder."""
    bonus_cards: bool = option(False)
    """SE12: add Misdiagnosis and High Tolerance to the deck."""
    first_seat: SeatOrRandom = option(-1, low=-1, high=7)
    """SE3: the seat that starts, counted from 0; -1 draws it at random."""


@dataclass(frozen=True, slots=True, kw_only=True)
class OpenOffer:
    """A trade offer waiting for its answer (SE10)."""

    seat: int
    """Who offers."""
    to: int
    """Who is asked."""
    give: tuple[int, ...]
    """The cards offered, from ``seat``'s hand."""
    want: tuple[str, ...]
    """The names of the cards asked for from ``to``'s hand."""
    hands_then: tuple[tuple[int, ...], tuple[int, ...]]
    """Both hands, sorted, when offered: the offer lapses once either changes."""


@dataclass(slots=True)
class PsycheSlot:
    """One Disorder on a Psyche, and the Drug on top of it (NONE while untreated)."""

    disorder: int
    drug: int = NONE


@dataclass(slots=True)
class SEState:
    """One game of Side Effects. Card ids index ``cards``.

    Every card is in exactly one place: ``draw`` (its top is the end of the
    list), ``discard`` (likewise), a hand in ``hands``, or on a Psyche. A
    Psyche is a list of :class:`PsycheSlot`, one per Disorder in the order
    they came.
    Per-seat lists are indexed by seat.
    """

    seats: int
    options: SEOptions
    rng: random.Random
    cards: tuple[SECard, ...]
    """The physical cards of this game (with or without the bonus cards)."""

    # Where the cards are.
    draw: list[int]
    discard: list[int]
    hands: list[list[int]]
    psyche: list[list[PsycheSlot]]

    # What each seat owes or has done.
    skips: list[int]
    """Turns each seat will sit out (Depression)."""
    no_play: list[bool]
    """Seats whose next taken turn has no plays (Impotence)."""
    no_draw: list[bool]
    """Seats whose next taken turn has no draw (Anorexia)."""
    places: list[int]
    """0 while a seat plays on; its finishing place once it has won."""
    finish_order: list[int]
    """The seats that have won, first winner first."""

    offers: dict[int, OpenOffer]
    """Open trade offers by id, oldest first."""
    next_offer: int = 1

    # The turn.
    current: int = 0
    """Whose turn it is."""
    turn: int = 0
    """Turns started so far (skipped turns are not counted)."""
    phase: Phase = PLAY
    plays_left: int = 0
    impotent: bool = False
    """True for a turn on which Impotence forbids every play."""
    prompt_seat: int = NONE
    """Tremors: the target; Anxiety: the target whose hand is shown."""
    prompt_count: int = 0
    """Tremors: the cards still to discard."""

    outcome: Outcome | None = None
    """How the game ended (SE9), once it has."""
    start_events: tuple[Event, ...] = ()
    """What happened inside new_game (the deal, the first draw), for the host to relay."""

    @property
    def over(self) -> bool:
        return self.outcome is not None

    def active(self, seat: int) -> bool:
        """Whether ``seat`` still plays (has not won and left)."""
        return self.places[seat] == 0


def new_state(seats: int, options: SEOptions, rng: random.Random, cards: tuple[SECard, ...]) -> SEState:
    """A table before the deal: empty piles, hands and Psyches."""
    return SEState(
        seats=seats,
        options=options,
        rng=rng,
        cards=cards,
        draw=[],
        discard=[],
        hands=[[] for _ in range(seats)],
        psyche=[[] for _ in range(seats)],
        skips=[0] * seats,
        no_play=[False] * seats,
        no_draw=[False] * seats,
        places=[0] * seats,
        finish_order=[],
        offers={},
    )


def clone(state: SEState) -> SEState:
    """An independent copy of ``state``: changing one never changes the other.

    The RNG is copied with its state, so the copy plays on exactly as the
    original would. Cards, options, offers and events are frozen values and
    are shared; every list is copied.
    """
    rng = random.Random()
    rng.setstate(state.rng.getstate())
    return replace(
        state,
        rng=rng,
        draw=list(state.draw),
        discard=list(state.discard),
        hands=[list(hand) for hand in state.hands],
        psyche=[[PsycheSlot(s.disorder, s.drug) for s in psyche] for psyche in state.psyche],
        skips=list(state.skips),
        no_play=list(state.no_play),
        no_draw=list(state.no_draw),
        places=list(state.places),
        finish_order=list(state.finish_order),
        offers=dict(state.offers),
    )
