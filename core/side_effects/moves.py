"""Every Side Effects move and event.

Moves are imperative (what a player asks for), events past tense (what
happened). Both are frozen dataclasses of ints, strs, bools, floats and
tuples: cards are named by their stable id, seats by number from 0, and
NONE (-1) stands for no card or no seat.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated

from quackbox.core.rules import Event, Move, Seat, SeatOrNone, Wire
from quackbox.core.side_effects.cards import Punishment

CardId = Annotated[int, Wire("card id (SECard)")]
"""A card of the game by its id (``rules.wire_refs()``)."""
OfferId = Annotated[int, Wire("offer id")]
"""A trade offer, by the id its TradeOffered gave it."""

# --- moves ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Treat(Move):
    """Put the Drug ``drug`` from your hand on the untreated Disorder ``disorder``."""

    drug: CardId
    disorder: CardId


@dataclass(frozen=True, slots=True)
class GiveDisorder(Move):
    """Add the Disorder ``card`` from your hand to ``target``'s Psyche."""

    card: CardId
    target: Seat


@dataclass(frozen=True, slots=True)
class PlayTherapy(Move):
    """Discard your untreated Disorder ``disorder`` together with Therapy ``card``."""

    card: CardId
    disorder: CardId


@dataclass(frozen=True, slots=True)
class PlayEpisode(Move):
    """Trigger the punishment of another player's untreated Disorder ``disorder``."""

    card: CardId
    disorder: CardId


@dataclass(frozen=True, slots=True)
class PlayMisdiagnosis(Move):
    """Swap your untreated Disorder ``mine`` with another's untreated ``theirs``."""

    card: CardId
    mine: CardId
    theirs: CardId


@dataclass(frozen=True, slots=True)
class PlayHighTolerance(Move):
    """Discard the Drug ``drug`` from another player's Psyche."""

    card: CardId
    drug: CardId


@dataclass(frozen=True, slots=True)
class Discard(Move):
    """Discard ``card`` from your hand: freely on your turn, to the hand limit, or for Tremors."""

    card: CardId


@dataclass(frozen=True, slots=True)
class EndTurn(Move):
    """End your turn (you will discard down to six if you hold more)."""


@dataclass(frozen=True, slots=True)
class TakeCard(Move):
    """Anxiety: take ``card`` from the hand you were shown."""

    card: CardId


@dataclass(frozen=True, slots=True)
class TakeNothing(Move):
    """Anxiety: take nothing from the hand you were shown."""


@dataclass(frozen=True, slots=True)
class OfferTrade(Move):
    """Offer ``to`` the cards ``give`` from your hand for cards named ``want`` from theirs."""

    to: Seat
    give: tuple[CardId, ...]
    want: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class AcceptTrade(Move):
    """Accept the trade offer ``offer`` made to you."""

    offer: OfferId


@dataclass(frozen=True, slots=True)
class DeclineTrade(Move):
    """Decline the trade offer ``offer`` made to you."""

    offer: OfferId


@dataclass(frozen=True, slots=True)
class WithdrawTrade(Move):
    """Withdraw your own trade offer ``offer``."""

    offer: OfferId


@dataclass(frozen=True, slots=True)
class Timeout(Move):
    """Applied by the host, never sent by a player: the Tremors time ran out."""


MOVE_TYPES = (
    Treat,
    GiveDisorder,
    PlayTherapy,
    PlayEpisode,
    PlayMisdiagnosis,
    PlayHighTolerance,
    Discard,
    EndTurn,
    TakeCard,
    TakeNothing,
    OfferTrade,
    AcceptTrade,
    DeclineTrade,
    WithdrawTrade,
    Timeout,
)
SEMove = (
    Treat
    | GiveDisorder
    | PlayTherapy
    | PlayEpisode
    | PlayMisdiagnosis
    | PlayHighTolerance
    | Discard
    | EndTurn
    | TakeCard
    | TakeNothing
    | OfferTrade
    | AcceptTrade
    | DeclineTrade
    | WithdrawTrade
    | Timeout
)
"""Any Side Effects move."""
PLAY_TYPES = (Treat, GiveDisorder, PlayTherapy, PlayEpisode, PlayMisdiagnosis, PlayHighTolerance)
"""The plays: each uses up one of the turn's plays (rulebook Turns)."""
TRADE_ANSWERS = (AcceptTrade, DeclineTrade, WithdrawTrade)


# --- why things happened ----------------------------------------------------


class DiscardReason(StrEnum):
    """Why a single card was discarded."""

    FREE = "free"
    """SE5: a discard of the player's own choosing, on their turn."""
    HAND_LIMIT = "hand_limit"
    """SE5: discarding down to six at the end of the turn."""
    TREMORS = "tremors"
    """SE7: one of the cards picked in time for Tremors."""


class HandDiscardReason(StrEnum):
    """Why a whole hand was discarded."""

    SUICIDAL_THOUGHTS = "suicidal_thoughts"
    TREMORS = "tremors"
    """Too slow for Tremors, or 3 cards or fewer to start with."""
    WON = "won"
    """SE9 until one loser: a winner's hand goes back into circulation."""


class Taking(StrEnum):
    """How cards were taken from another hand."""

    RANDOM = "random"
    """Gambling Addiction."""
    CHOSEN = "chosen"
    """Anxiety."""


class TradeEnd(StrEnum):
    """How a trade offer ended unaccepted."""

    DECLINED = "declined"
    WITHDRAWN = "withdrawn"
    LAPSED = "lapsed"
    """A hand changed, or a party left the game, or the game ended (SE10)."""


# --- events -----------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class GameStarted(Event):
    """A game for ``seats`` players was dealt; ``first`` plays first."""

    seats: int
    first: Seat


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnStarted(Event):
    seat: Seat
    turn: int


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnSkipped(Event):
    """Depression: the seat sat this turn out; ``skips_left`` more are owed."""

    seat: Seat
    skips_left: int


@dataclass(frozen=True, slots=True, kw_only=True)
class CardsDrawn(Event):
    """``cards`` is empty in every copy but the drawer's; ``count`` is public."""

    seat: Seat
    cards: tuple[CardId, ...]
    count: int


@dataclass(frozen=True, slots=True, kw_only=True)
class DeckReshuffled(Event):
    """SE4: the discard pile was shuffled into a new draw pile of ``count`` cards."""

    count: int


@dataclass(frozen=True, slots=True, kw_only=True)
class DrawPrevented(Event):
    """Anorexia: the seat drew nothing this turn."""

    seat: Seat


@dataclass(frozen=True, slots=True, kw_only=True)
class PlaysPrevented(Event):
    """Impotence: the seat may play no card this turn."""

    seat: Seat


@dataclass(frozen=True, slots=True, kw_only=True)
class DisorderTreated(Event):
    """``seat`` put ``drug`` on ``target``'s Disorder ``disorder``."""

    seat: Seat
    drug: CardId
    disorder: CardId
    target: Seat


@dataclass(frozen=True, slots=True, kw_only=True)
class DisorderGiven(Event):
    seat: Seat
    card: CardId
    target: Seat


@dataclass(frozen=True, slots=True, kw_only=True)
class TherapyUsed(Event):
    """``seat`` discarded its Disorder ``disorder`` with the Therapy ``card``."""

    seat: Seat
    card: CardId
    disorder: CardId


@dataclass(frozen=True, slots=True, kw_only=True)
class EpisodePlayed(Event):
    seat: Seat
    card: CardId
    target: Seat
    disorder: CardId
    punishment: Punishment
    effective: bool
    """False when the punishment could do nothing (the card is spent anyway)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class DrugsDiscarded(Event):
    """Madness: every Drug on ``seat``'s Psyche went to the discard pile."""

    seat: Seat
    cards: tuple[CardId, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class HandDiscarded(Event):
    """``seat`` discarded the whole hand (discards are face up, so public)."""

    seat: Seat
    cards: tuple[CardId, ...]
    reason: HandDiscardReason


@dataclass(frozen=True, slots=True, kw_only=True)
class SkipAdded(Event):
    """Depression: ``seat`` will sit out ``skips`` turns."""

    seat: Seat
    skips: int


@dataclass(frozen=True, slots=True, kw_only=True)
class PlaysBlocked(Event):
    """Impotence: ``seat`` may not play cards on their next turn."""

    seat: Seat


@dataclass(frozen=True, slots=True, kw_only=True)
class DrawBlocked(Event):
    """Anorexia: ``seat`` will not draw on their next turn."""

    seat: Seat


@dataclass(frozen=True, slots=True, kw_only=True)
class TremorsStarted(Event):
    """``seat`` must discard ``count`` cards within ``seconds`` (0: no limit)."""

    seat: Seat
    inflictor: Seat
    count: int
    seconds: float


@dataclass(frozen=True, slots=True, kw_only=True)
class CardDiscarded(Event):
    seat: Seat
    card: CardId
    reason: DiscardReason


@dataclass(frozen=True, slots=True, kw_only=True)
class CardsTaken(Event):
    """``seat`` took cards from ``target``'s hand. ``cards`` is seen by the two only."""

    seat: Seat
    target: Seat
    cards: tuple[CardId, ...]
    count: int
    how: Taking


@dataclass(frozen=True, slots=True, kw_only=True)
class HandShown(Event):
    """Anxiety: ``target``'s hand shown to ``seat`` only."""

    seat: Seat
    target: Seat
    cards: tuple[CardId, ...]
    count: int


@dataclass(frozen=True, slots=True, kw_only=True)
class MisdiagnosisPlayed(Event):
    """``seat``'s Disorder ``mine`` and ``target``'s ``theirs`` changed places."""

    seat: Seat
    card: CardId
    mine: CardId
    target: Seat
    theirs: CardId


@dataclass(frozen=True, slots=True, kw_only=True)
class HighTolerancePlayed(Event):
    """The Drug ``drug`` on ``target``'s Psyche was discarded."""

    seat: Seat
    card: CardId
    target: Seat
    drug: CardId


@dataclass(frozen=True, slots=True, kw_only=True)
class TradeOffered(Event):
    """``give`` and ``want`` are seen by the two parties only."""

    offer: OfferId
    seat: Seat
    to: Seat
    give: tuple[CardId, ...]
    want: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class TradeAccepted(Event):
    """``gave`` went from ``seat`` to ``to``; ``got`` the other way. Private to the two."""

    offer: OfferId
    seat: Seat
    to: Seat
    gave: tuple[CardId, ...]
    got: tuple[CardId, ...]
    count: int


@dataclass(frozen=True, slots=True, kw_only=True)
class TradeClosed(Event):
    """An offer ended unaccepted."""

    offer: OfferId
    seat: Seat
    to: Seat
    how: TradeEnd


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnEnded(Event):
    seat: Seat


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerWon(Event):
    """SE9: ``seat`` has no untreated Disorder left and finished in ``place``."""

    seat: Seat
    place: int


@dataclass(frozen=True, slots=True, kw_only=True)
class GameEnded(Event):
    winners: tuple[Seat, ...]
    loser: SeatOrNone
    """The last player left with ``until_one_loser``; else NONE."""


EVENT_TYPES = (
    GameStarted,
    TurnStarted,
    TurnSkipped,
    CardsDrawn,
    DeckReshuffled,
    DrawPrevented,
    PlaysPrevented,
    DisorderTreated,
    DisorderGiven,
    TherapyUsed,
    EpisodePlayed,
    DrugsDiscarded,
    HandDiscarded,
    SkipAdded,
    PlaysBlocked,
    DrawBlocked,
    TremorsStarted,
    CardDiscarded,
    CardsTaken,
    HandShown,
    MisdiagnosisPlayed,
    HighTolerancePlayed,
    TradeOffered,
    TradeAccepted,
    TradeClosed,
    TurnEnded,
    PlayerWon,
    GameEnded,
)
