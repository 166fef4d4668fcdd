"""Every Side Effects move and event.

Moves are imperative (what a player asks for), events past tense (what
happened). Both are frozen dataclasses of ints, strs, bools, floats and
tuples: cards are named by their stable id, seats by number from 0, and
NONE (-1) stands for no card or no seat.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from quackbox.core.rules import Event, Move
from quackbox.core.side_effects.cards import Punishment

# --- moves ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Treat(Move):
    """Put the Drug ``drug`` from your hand on the untreated Disorder ``disorder``."""

    drug: int
    disorder: int


@dataclass(frozen=True, slots=True)
class GiveDisorder(Move):
    """Add the Disorder ``card`` from your hand to ``target``'s Psyche."""

    card: int
    target: int


@dataclass(frozen=True, slots=True)
class PlayTherapy(Move):
    """Discard your untreated Disorder ``disorder`` together with Therapy ``card``."""

    card: int
    disorder: int


@dataclass(frozen=True, slots=True)
class PlayEpisode(Move):
    """Trigger the punishment of another player's untreated Disorder ``disorder``."""

    card: int
    disorder: int


@dataclass(frozen=True, slots=True)
class PlayMisdiagnosis(Move):
    """Swap your untreated Disorder ``mine`` with another's untreated ``theirs``."""

    card: int
    mine: int
    theirs: int


@dataclass(frozen=True, slots=True)
class PlayHighTolerance(Move):
    """Discard the Drug ``drug`` from another player's Psyche."""

    card: int
    drug: int


@dataclass(frozen=True, slots=True)
class Discard(Move):
    """Discard ``card`` from your hand: freely on your turn, to the hand limit, or for Tremors."""

    card: int


@dataclass(frozen=True, slots=True)
class EndTurn(Move):
    """End your turn (you will discard down to six if you hold more)."""


@dataclass(frozen=True, slots=True)
class TakeCard(Move):
    """Anxiety: take ``card`` from the hand you were shown."""

    card: int


@dataclass(frozen=True, slots=True)
class TakeNothing(Move):
    """Anxiety: take nothing from the hand you were shown."""


@dataclass(frozen=True, slots=True)
class OfferTrade(Move):
    """Offer ``to`` the cards ``give`` from your hand for cards named ``want`` from theirs."""

    to: int
    give: tuple[int, ...]
    want: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class AcceptTrade(Move):
    """Accept the trade offer ``offer`` made to you."""

    offer: int


@dataclass(frozen=True, slots=True)
class DeclineTrade(Move):
    """Decline the trade offer ``offer`` made to you."""

    offer: int


@dataclass(frozen=True, slots=True)
class WithdrawTrade(Move):
    """Withdraw your own trade offer ``offer``."""

    offer: int


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
SEMove = (Treat | GiveDisorder | PlayTherapy | PlayEpisode | PlayMisdiagnosis | PlayHighTolerance | Discard | EndTurn
          | TakeCard | TakeNothing | OfferTrade | AcceptTrade | DeclineTrade | WithdrawTrade | Timeout)
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
    first: int


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnStarted(Event):
    seat: int
    turn: int


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnSkipped(Event):
    """Depression: the seat sat this turn out; ``skips_left`` more are owed."""

    seat: int
    skips_left: int


@dataclass(frozen=True, slots=True, kw_only=True)
class CardsDrawn(Event):
    """``cards`` is empty in every copy but the drawer's; ``count`` is public."""

    seat: int
    cards: tuple[int, ...]
    count: int


@dataclass(frozen=True, slots=True, kw_only=True)
class DeckReshuffled(Event):
    """SE4: the discard pile was shuffled into a new draw pile of ``count`` cards."""

    count: int


@dataclass(frozen=True, slots=True, kw_only=True)
class DrawPrevented(Event):
    """Anorexia: the seat drew nothing this turn."""

    seat: int


@dataclass(frozen=True, slots=True, kw_only=True)
class PlaysPrevented(Event):
    """Impotence: the seat may play no card this turn."""

    seat: int


@dataclass(frozen=True, slots=True, kw_only=True)
class DisorderTreated(Event):
    """``seat`` put ``drug`` on ``target``'s Disorder ``disorder``."""

    seat: int
    drug: int
    disorder: int
    target: int


@dataclass(frozen=True, slots=True, kw_only=True)
class DisorderGiven(Event):
    seat: int
    card: int
    target: int


@dataclass(frozen=True, slots=True, kw_only=True)
class TherapyUsed(Event):
    """``seat`` discarded its Disorder ``disorder`` with the Therapy ``card``."""

    seat: int
    card: int
    disorder: int


@dataclass(frozen=True, slots=True, kw_only=True)
class EpisodePlayed(Event):
    seat: int
    card: int
    target: int
    disorder: int
    punishment: Punishment
    effective: bool
    """False when the punishment could do nothing (the card is spent anyway)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class DrugsDiscarded(Event):
    """Madness: every Drug on ``seat``'s Psyche went to the discard pile."""

    seat: int
    cards: tuple[int, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class HandDiscarded(Event):
    """``seat`` discarded the whole hand (discards are face up, so public)."""

    seat: int
    cards: tuple[int, ...]
    reason: HandDiscardReason


@dataclass(frozen=True, slots=True, kw_only=True)
class SkipAdded(Event):
    """Depression: ``seat`` will sit out ``skips`` turns."""

    seat: int
    skips: int


@dataclass(frozen=True, slots=True, kw_only=True)
class PlaysBlocked(Event):
    """Impotence: ``seat`` may not play cards on their next turn."""

    seat: int


@dataclass(frozen=True, slots=True, kw_only=True)
class DrawBlocked(Event):
    """Anorexia: ``seat`` will not draw on their next turn."""

    seat: int


@dataclass(frozen=True, slots=True, kw_only=True)
class TremorsStarted(Event):
    """``seat`` must discard ``count`` cards within ``seconds`` (0: no limit)."""

    seat: int
    inflictor: int
    count: int
    seconds: float


@dataclass(frozen=True, slots=True, kw_only=True)
class CardDiscarded(Event):
    seat: int
    card: int
    reason: DiscardReason


@dataclass(frozen=True, slots=True, kw_only=True)
class CardsTaken(Event):
    """``seat`` took cards from ``target``'s hand. ``cards`` is seen by the two only."""

    seat: int
    target: int
    cards: tuple[int, ...]
    count: int
    how: Taking


@dataclass(frozen=True, slots=True, kw_only=True)
class HandShown(Event):
    """Anxiety: ``target``'s hand shown to ``seat`` only."""

    seat: int
    target: int
    cards: tuple[int, ...]
    count: int


@dataclass(frozen=True, slots=True, kw_only=True)
class MisdiagnosisPlayed(Event):
    """``seat``'s Disorder ``mine`` and ``target``'s ``theirs`` changed places."""

    seat: int
    card: int
    mine: int
    target: int
    theirs: int


@dataclass(frozen=True, slots=True, kw_only=True)
class HighTolerancePlayed(Event):
    """The Drug ``drug`` on ``target``'s Psyche was discarded."""

    seat: int
    card: int
    target: int
    drug: int


@dataclass(frozen=True, slots=True, kw_only=True)
class TradeOffered(Event):
    """``give`` and ``want`` are seen by the two parties only."""

    offer: int
    seat: int
    to: int
    give: tuple[int, ...]
    want: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class TradeAccepted(Event):
    """``gave`` went from ``seat`` to ``to``; ``got`` the other way. Private to the two."""

    offer: int
    seat: int
    to: int
    gave: tuple[int, ...]
    got: tuple[int, ...]
    count: int


@dataclass(frozen=True, slots=True, kw_only=True)
class TradeClosed(Event):
    """An offer ended unaccepted."""

    offer: int
    seat: int
    to: int
    how: TradeEnd


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnEnded(Event):
    seat: int


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerWon(Event):
    """SE9: ``seat`` has no untreated Disorder left and finished in ``place``."""

    seat: int
    place: int


@dataclass(frozen=True, slots=True, kw_only=True)
class GameEnded(Event):
    winners: tuple[int, ...]
    loser: int
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
