"""Side Effects, the rules of the game (rulebook and rulings SE1-SE12 of DESIGN.md).

The package, by part:

- :mod:`.cards`  what a card's data means to the rules (punishments, Therapy-proof)
- :mod:`.state`  the State, its options and :func:`~.state.clone`
- :mod:`.moves`  every move and event
- :mod:`.legal`  the legal moves, in their documented order, and the check of every move
- :mod:`.rules`  making moves, the turn, and the rules object :data:`RULES`
- :mod:`.view`   what each seat may see, and redacted events
- :mod:`.text`   events as sentences for the log
- :mod:`.bot`    the heuristic bot

The names other layers use are re-exported here, so
``from quackbox.core import side_effects as se; se.RULES`` is the way in.
"""

from quackbox.core.side_effects.cards import Punishment
from quackbox.core.side_effects.legal import cards_lacking, open_to, trade_partners, vulnerability, vulnerable_to
from quackbox.core.side_effects.moves import (
    EVENT_TYPES,
    MOVE_TYPES,
    PLAY_TYPES,
    TRADE_ANSWERS,
    AcceptTrade,
    CardDiscarded,
    CardsDrawn,
    CardsTaken,
    DeckReshuffled,
    DeclineTrade,
    Discard,
    DiscardReason,
    DisorderGiven,
    DisorderTreated,
    DrawBlocked,
    DrawPrevented,
    DrugsDiscarded,
    EndTurn,
    EpisodePlayed,
    GameEnded,
    GameStarted,
    GiveDisorder,
    HandDiscarded,
    HandDiscardReason,
    HandShown,
    HighTolerancePlayed,
    MisdiagnosisPlayed,
    OfferTrade,
    PlayEpisode,
    PlayerWon,
    PlayHighTolerance,
    PlayMisdiagnosis,
    PlaysBlocked,
    PlaysPrevented,
    PlayTherapy,
    SkipAdded,
    TakeCard,
    TakeNothing,
    Taking,
    TherapyUsed,
    Timeout,
    TradeAccepted,
    TradeClosed,
    TradeEnd,
    TradeOffered,
    Treat,
    TremorsStarted,
    TurnEnded,
    TurnSkipped,
    TurnStarted,
    WithdrawTrade,
)
from quackbox.core.side_effects.rules import RULES, SideEffects, episode_bites, parse_options
from quackbox.core.side_effects.sampling import Memory
from quackbox.core.side_effects.state import (
    ANXIETY,
    DISCARD_DOWN,
    DRAW_PER_TURN,
    GAME,
    HAND_LIMIT,
    HAND_SIZE,
    MAX_OPEN_OFFERS,
    OVER,
    PLAY,
    PLAYS_PER_TURN,
    PSYCHE_SIZE,
    SMALL_PSYCHE_FROM,
    SMALL_TABLE_PSYCHE,
    STEAL_CARDS,
    TREMORS,
    TREMORS_CARDS,
    OpenOffer,
    Phase,
    PsycheSlot,
    SEOptions,
    SEState,
    clone,
)
from quackbox.core.side_effects.view import Offer, PlayerView, Prompt, SEView, Slot

sample = RULES.sample
"""``sample(view, rng, memory=None)``: a State consistent with one seat's view (:mod:`.sampling`)."""

__all__ = [
    "ANXIETY", "DISCARD_DOWN", "OVER", "PLAY", "TREMORS", "Phase",
    "DRAW_PER_TURN", "GAME", "HAND_LIMIT", "HAND_SIZE", "MAX_OPEN_OFFERS", "PLAYS_PER_TURN", "PSYCHE_SIZE",
    "SMALL_PSYCHE_FROM", "SMALL_TABLE_PSYCHE", "STEAL_CARDS", "TREMORS_CARDS",
    "RULES", "SideEffects", "SEOptions", "SEState", "OpenOffer", "PsycheSlot", "clone", "sample", "Memory", "parse_options", "episode_bites",
    "trade_partners", "vulnerable_to", "vulnerability", "open_to", "cards_lacking",
    "Punishment", "DiscardReason", "HandDiscardReason", "Taking", "TradeEnd",
    "MOVE_TYPES", "PLAY_TYPES", "TRADE_ANSWERS", "EVENT_TYPES",
    "Treat", "GiveDisorder", "PlayTherapy", "PlayEpisode", "PlayMisdiagnosis", "PlayHighTolerance", "Discard",
    "EndTurn", "TakeCard", "TakeNothing", "OfferTrade", "AcceptTrade", "DeclineTrade", "WithdrawTrade", "Timeout",
    "GameStarted", "TurnStarted", "TurnSkipped", "CardsDrawn", "DeckReshuffled", "DrawPrevented", "PlaysPrevented",
    "DisorderTreated", "DisorderGiven", "TherapyUsed", "EpisodePlayed", "DrugsDiscarded", "HandDiscarded",
    "SkipAdded", "PlaysBlocked", "DrawBlocked", "TremorsStarted", "CardDiscarded", "CardsTaken", "HandShown",
    "MisdiagnosisPlayed", "HighTolerancePlayed", "TradeOffered", "TradeAccepted", "TradeClosed", "TurnEnded",
    "PlayerWon", "GameEnded",
    "SEView", "PlayerView", "Slot", "Prompt", "Offer",
]  # fmt: skip
