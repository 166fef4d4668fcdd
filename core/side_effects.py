"""Side Effects: the complete rules, per the rulebook and rulings SE1-SE12.

Play: each player has a Psyche of Disorders and a hidden hand. On your turn
you draw 2 and make up to 2 plays: Treat one of your Disorders with its Drug,
give another player a Disorder their Drugs make them vulnerable to, use
Therapy on one of your Disorders, or play an Episode to trigger the
punishment of another player's untreated Disorder. The first player with no
untreated Disorder wins.

The State is mutable and owned by the caller; :data:`RULES` holds no game.

Legal moves come in this order (documented because bots, tests and the TUI
rely on it): plays (Treat, GiveDisorder, PlayTherapy, PlayEpisode,
PlayMisdiagnosis, PlayHighTolerance; each by hand order, then by target in
seat and Psyche order), then Discard by hand order, then EndTurn, then answers
to trade offers (AcceptTrade, DeclineTrade, WithdrawTrade by offer id). During
a prompt, only the prompt's answers. OfferTrade is legal whenever trading is
open but is not enumerated: its space is every subset of a hand.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, fields, replace
from typing import Any, Mapping, Sequence

from cards import side_effects as se_cards
from cards.side_effects import SECard
from core.rules import (
    BadOptions,
    Deadline,
    Event,
    GameOver,
    IllegalMove,
    MalformedMove,
    Move,
    NotYourTurn,
    Outcome,
    RulesError,
)

GAME = "side-effects"
DRAW_PER_TURN = 2
PLAYS_PER_TURN = 2
HAND_LIMIT = 6
HAND_SIZE = 4
PSYCHE_SIZE = 4
SMALL_TABLE_PSYCHE = 3  # SE2: 6+ players get 3 Disorders
SMALL_PSYCHE_FROM = 6
TREMORS_CARDS = 3
STEAL_CARDS = 3
MAX_OPEN_OFFERS = 3  # per offering seat; enough to haggle, too few to flood
NO_CARD = -1

# Phases
PLAY = "play"
DISCARD_DOWN = "discard_down"
TREMORS = "tremors"
ANXIETY = "anxiety"
OVER = "over"


# --- options ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SEOptions:
    """Table options. Everything off is the rulebook game."""

    tremors_seconds: float = 3.0
    """Time to pick the Tremors discards (SE7); 0 waits for ever."""
    until_one_loser: bool = False
    """SE9: winners leave and play goes on until one player is left."""
    duplicate_disorders: bool = False
    """SE11 house rule: a Psyche may hold the same Disorder twice."""
    treat_others: bool = False
    """SE11 house rule: your Drug may treat another player's Disorder."""
    bonus_cards: bool = False
    """SE12: add Misdiagnosis and High Tolerance to the deck."""
    first_player: int = -1
    """SE3: the seat that starts; -1 draws it at random."""


_OPTION_LIMITS = {"tremors_seconds": (0.0, 60.0), "first_player": (-1, 7)}


def parse_options(values: Mapping[str, Any] | SEOptions | None) -> SEOptions:
    """Options from plain values (names with ``-`` or ``_``); BadOptions if wrong."""
    if values is None:
        return SEOptions()
    if isinstance(values, SEOptions):
        values = {f.name: getattr(values, f.name) for f in fields(SEOptions)}
    known = {f.name: f for f in fields(SEOptions)}
    out: dict[str, Any] = {}
    for raw_key, value in values.items():
        key = str(raw_key).replace("-", "_")
        if key not in known:
            raise BadOptions(f"Side Effects has no option {raw_key!r}; options are {', '.join(known)}.")
        default = known[key].default
        if isinstance(default, bool):
            if not isinstance(value, bool):
                raise BadOptions(f"Option {key} must be true or false, not {value!r}.")
        elif isinstance(default, (int, float)):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise BadOptions(f"Option {key} must be a number, not {value!r}.")
            if isinstance(default, int) and not isinstance(default, bool) and value != int(value):
                raise BadOptions(f"Option {key} must be a whole number, not {value!r}.")
            low, high = _OPTION_LIMITS[key]
            if not low <= value <= high:
                raise BadOptions(f"Option {key} must be from {low} to {high}, not {value!r}.")
            value = type(default)(value)
        out[key] = value
    return SEOptions(**out)


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
    offer: int


@dataclass(frozen=True, slots=True)
class DeclineTrade(Move):
    offer: int


@dataclass(frozen=True, slots=True)
class WithdrawTrade(Move):
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
PLAY_TYPES = (Treat, GiveDisorder, PlayTherapy, PlayEpisode, PlayMisdiagnosis, PlayHighTolerance)
TRADE_ANSWERS = (AcceptTrade, DeclineTrade, WithdrawTrade)

_END_TURN = EndTurn()
_TAKE_NOTHING = TakeNothing()
_TIMEOUT = Timeout()


# --- events -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GameStarted(Event):
    seats: int
    first: int


@dataclass(frozen=True, slots=True)
class TurnStarted(Event):
    seat: int
    turn: int


@dataclass(frozen=True, slots=True)
class TurnSkipped(Event):
    """Depression: the seat sat this turn out; ``skips_left`` more are owed."""

    seat: int
    skips_left: int


@dataclass(frozen=True, slots=True)
class CardsDrawn(Event):
    """``cards`` is empty in every copy but the drawer's; ``count`` is public."""

    seat: int
    cards: tuple[int, ...]
    count: int


@dataclass(frozen=True, slots=True)
class DeckReshuffled(Event):
    count: int


@dataclass(frozen=True, slots=True)
class DrawPrevented(Event):
    """Anorexia: the seat drew nothing this turn."""

    seat: int


@dataclass(frozen=True, slots=True)
class PlaysPrevented(Event):
    """Impotence: the seat may play no card this turn."""

    seat: int


@dataclass(frozen=True, slots=True)
class DisorderTreated(Event):
    seat: int
    drug: int
    disorder: int
    target: int


@dataclass(frozen=True, slots=True)
class DisorderGiven(Event):
    seat: int
    card: int
    target: int


@dataclass(frozen=True, slots=True)
class TherapyUsed(Event):
    seat: int
    card: int
    disorder: int


@dataclass(frozen=True, slots=True)
class EpisodePlayed(Event):
    seat: int
    card: int
    target: int
    disorder: int
    punishment: str
    effective: bool
    """False when the punishment could do nothing (the card is spent anyway)."""


@dataclass(frozen=True, slots=True)
class DrugsDiscarded(Event):
    """Madness: every Drug on ``seat``'s Psyche went to the discard pile."""

    seat: int
    cards: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class HandDiscarded(Event):
    """``seat`` discarded the whole hand (discards are face up, so public)."""

    seat: int
    cards: tuple[int, ...]
    reason: str


@dataclass(frozen=True, slots=True)
class SkipAdded(Event):
    """Depression: ``seat`` will sit out ``skips`` turns."""

    seat: int
    skips: int


@dataclass(frozen=True, slots=True)
class PlaysBlocked(Event):
    """Impotence: ``seat`` may not play cards on their next turn."""

    seat: int


@dataclass(frozen=True, slots=True)
class DrawBlocked(Event):
    """Anorexia: ``seat`` will not draw on their next turn."""

    seat: int


@dataclass(frozen=True, slots=True)
class TremorsStarted(Event):
    seat: int
    inflictor: int
    count: int
    seconds: float


@dataclass(frozen=True, slots=True)
class CardDiscarded(Event):
    seat: int
    card: int
    reason: str
    """``free``, ``hand_limit`` or ``tremors``."""


@dataclass(frozen=True, slots=True)
class CardsTaken(Event):
    """``seat`` took cards from ``target``: ``how`` is ``random`` (Gambling
    Addiction) or ``chosen`` (Anxiety). ``cards`` is seen by the two only."""

    seat: int
    target: int
    cards: tuple[int, ...]
    count: int
    how: str


@dataclass(frozen=True, slots=True)
class HandShown(Event):
    """Anxiety: ``target``'s hand shown to ``seat`` only."""

    seat: int
    target: int
    cards: tuple[int, ...]
    count: int


@dataclass(frozen=True, slots=True)
class MisdiagnosisPlayed(Event):
    seat: int
    card: int
    mine: int
    target: int
    theirs: int


@dataclass(frozen=True, slots=True)
class HighTolerancePlayed(Event):
    seat: int
    card: int
    target: int
    drug: int


@dataclass(frozen=True, slots=True)
class TradeOffered(Event):
    """``give`` and ``want`` are seen by the two parties only."""

    offer: int
    seat: int
    to: int
    give: tuple[int, ...]
    want: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class TradeAccepted(Event):
    """``gave`` went from ``seat`` to ``to``; ``got`` the other way. Private to the two."""

    offer: int
    seat: int
    to: int
    gave: tuple[int, ...]
    got: tuple[int, ...]
    count: int


@dataclass(frozen=True, slots=True)
class TradeClosed(Event):
    """An offer ended unaccepted: ``declined``, ``withdrawn`` or ``lapsed``."""

    offer: int
    seat: int
    to: int
    how: str


@dataclass(frozen=True, slots=True)
class TurnEnded(Event):
    seat: int


@dataclass(frozen=True, slots=True)
class PlayerWon(Event):
    seat: int
    place: int


@dataclass(frozen=True, slots=True)
class GameEnded(Event):
    winners: tuple[int, ...]
    loser: int
    """The last player left with ``until_one_loser``; else -1."""


# --- views ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Slot:
    """One Disorder on a Psyche and the Drug treating it, if any."""

    disorder: SECard
    drug: SECard | None


@dataclass(frozen=True, slots=True)
class PlayerView:
    seat: int
    psyche: tuple[Slot, ...]
    hand_size: int
    vulnerable_to: tuple[str, ...]
    """Disorders this player can be given right now (SE6)."""
    skips: int
    no_play: bool
    no_draw: bool
    place: int
    """0 while playing; else the place they finished in."""


@dataclass(frozen=True, slots=True)
class Prompt:
    """Something the game waits on besides an ordinary play."""

    kind: str
    """``tremors``, ``anxiety`` or ``discard_down``."""
    seat: int
    """Who must answer."""
    inflictor: int
    """Who played the Episode (-1 for ``discard_down``)."""
    target: int
    """Whose hand it is about."""
    count: int
    """Cards still to discard (``tremors``, ``discard_down``)."""
    seconds: float
    """The time allowed (``tremors``), 0 if untimed."""
    revealed: tuple[SECard, ...]
    """Anxiety: the shown hand; only in the inflictor's view."""


@dataclass(frozen=True, slots=True)
class Offer:
    id: int
    seat: int
    to: int
    give: tuple[SECard, ...]
    want: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class SEView:
    """Everything one seat may see, including its legal moves."""

    game: str
    seat: int | None
    turn: int
    current: int
    phase: str
    plays_left: int
    players: tuple[PlayerView, ...]
    hand: tuple[SECard, ...]
    draw_count: int
    discard_count: int
    discard_top: SECard | None
    prompt: Prompt | None
    offers: tuple[Offer, ...]
    legal: tuple[Move, ...]
    waiting_for: tuple[int, ...]
    outcome: Outcome | None
    options: SEOptions


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


# --- state ------------------------------------------------------------------


class SEState:
    """One game of Side Effects, mutable. Card ids index ``cards``.

    Where each card is: ``draw`` (top is the end of the list), ``discard``
    (top is the end), ``hands[seat]``, or on a Psyche as a ``[disorder,
    drug]`` pair in ``psyche[seat]`` (drug is NO_CARD while untreated).
    """

    __slots__ = (
        "seats",
        "options",
        "rng",
        "cards",
        "draw",
        "discard",
        "hands",
        "psyche",
        "current",
        "turn",
        "phase",
        "plays_left",
        "impotent",
        "skips",
        "no_play",
        "no_draw",
        "places",
        "finish_order",
        "prompt_seat",
        "prompt_count",
        "offers",
        "next_offer",
        "over",
    )

    def __init__(self, seats: int, options: SEOptions, rng: random.Random, cards: tuple[SECard, ...]) -> None:
        self.seats = seats
        self.options = options
        self.rng = rng
        self.cards = cards
        self.draw: list[int] = []
        self.discard: list[int] = []
        self.hands: list[list[int]] = [[] for _ in range(seats)]
        self.psyche: list[list[list[int]]] = [[] for _ in range(seats)]
        self.current = 0
        self.turn = 0
        self.phase = PLAY
        self.plays_left = 0
        self.impotent = False
        """True for a turn on which Impotence forbids every play."""
        self.skips = [0] * seats
        self.no_play = [False] * seats
        self.no_draw = [False] * seats
        self.places = [0] * seats
        """0 while a seat plays on; its finishing place once it has won."""
        self.finish_order: list[int] = []
        self.prompt_seat = NO_CARD
        """Tremors: the target; Anxiety: the target whose hand is shown."""
        self.prompt_count = 0
        self.offers: dict[int, _OpenOffer] = {}
        self.next_offer = 1
        self.over = False

    def active(self, seat: int) -> bool:
        return self.places[seat] == 0


@dataclass(slots=True)
class _OpenOffer:
    seat: int
    to: int
    give: tuple[int, ...]
    want: tuple[str, ...]
    hands_then: tuple[tuple[int, ...], tuple[int, ...]]
    """Both hands when offered; the offer lapses once either changes (SE10)."""


# --- the rules --------------------------------------------------------------


class SideEffects:
    """The Side Effects rules object (see core.rules.Rules)."""

    name = GAME
    title = "Side Effects"
    min_seats = 2
    max_seats = 8

    def __init__(self, deck: se_cards.Deck | None = None) -> None:
        self.deck = deck if deck is not None else se_cards.load()
        # Bonus cards come last in the data, so ids agree with or without them.
        self._names = tuple(c.name for c in self.deck.build(bonus=True))

    def deck_name(self, card_id: int) -> str:
        """The name of card ``card_id`` (for sentences; ids are public)."""
        return self._names[card_id] if 0 <= card_id < len(self._names) else f"card {card_id}"

    # options ---------------------------------------------------------------

    def default_options(self) -> SEOptions:
        return SEOptions()

    def parse_options(self, values: Mapping[str, Any] | SEOptions | None) -> SEOptions:
        return parse_options(values)

    # setup -----------------------------------------------------------------

    def new_game(self, *, seats: int, options: Any = None, seed: int) -> SEState:
        """Deal a new game (rulebook Setup, SE2, SE3)."""
        if isinstance(seats, bool) or not isinstance(seats, int) or not self.min_seats <= seats <= self.max_seats:
            raise BadOptions(f"Side Effects is for {self.min_seats} to {self.max_seats} players, not {seats!r}.")
        opts = parse_options(options)
        if opts.first_player >= seats:
            raise BadOptions(f"first_player must be a seat from 0 to {seats - 1}, not {opts.first_player}.")
        rng = random.Random(seed)
        cards = self.deck.build(bonus=opts.bonus_cards)
        state = SEState(seats, opts, rng, cards)

        disorders = [c.id for c in cards if c.kind == se_cards.DISORDER]
        others = [c.id for c in cards if c.kind != se_cards.DISORDER]
        rng.shuffle(disorders)
        size = SMALL_TABLE_PSYCHE if seats >= SMALL_PSYCHE_FROM else PSYCHE_SIZE
        # The Disorder pile's top is the end of the list; a duplicate goes to
        # the bottom (index 0) and the next card is dealt (rulebook Setup).
        for _ in range(size):
            for seat in range(seats):
                for _attempt in range(len(disorders)):
                    card = disorders.pop()
                    if opts.duplicate_disorders or not _holds(state, seat, cards[card].name):
                        state.psyche[seat].append([card, NO_CARD])
                        break
                    disorders.insert(0, card)
                else:
                    raise BadOptions("The deck has too few different Disorders to deal every Psyche.")
        state.draw = disorders + others
        rng.shuffle(state.draw)
        for _ in range(HAND_SIZE):
            for seat in range(seats):
                if state.draw:
                    state.hands[seat].append(state.draw.pop())
        state.current = opts.first_player if opts.first_player >= 0 else rng.randrange(seats)
        events: list[Event] = [GameStarted(seats, state.current)]
        self._begin_turn(state, events)
        return state

    # queries ---------------------------------------------------------------

    def waiting_for(self, state: SEState) -> tuple[int, ...]:
        if state.over:
            return ()
        if state.phase == TREMORS:
            return (state.prompt_seat,)
        return (state.current,)

    def deadline(self, state: SEState) -> Deadline | None:
        if state.phase == TREMORS and state.options.tremors_seconds > 0:
            return Deadline(state.prompt_seat, state.options.tremors_seconds, TREMORS, _TIMEOUT)
        return None

    def outcome(self, state: SEState) -> Outcome | None:
        if not state.over:
            return None
        winners = tuple(s for s in range(state.seats) if state.places[s] == 1)
        places = tuple(state.places)
        if state.options.until_one_loser:
            loser = places.index(max(places))
            reason = f"Everyone recovered but seat {loser}."
        else:
            reason = "A player treated every Disorder on their Psyche."
        return Outcome(winners=winners, places=places, reason=reason)

    def legal_moves(self, state: SEState, seat: int) -> tuple[Move, ...]:
        if state.over or not 0 <= seat < state.seats or not state.active(seat):
            return ()
        phase = state.phase
        hand = state.hands[seat]
        if phase == TREMORS:
            return tuple(Discard(c) for c in hand) if seat == state.prompt_seat else ()
        if seat != state.current:
            return self._trade_answers(state, seat) if phase == PLAY else ()
        if phase == ANXIETY:
            return tuple(TakeCard(c) for c in state.hands[state.prompt_seat]) + (_TAKE_NOTHING,)
        if phase == DISCARD_DOWN:
            return tuple(Discard(c) for c in hand)
        moves: list[Move] = []
        if state.plays_left > 0:
            self._plays(state, seat, moves)
        moves.extend(Discard(c) for c in hand)
        moves.append(_END_TURN)
        if state.offers:
            moves.extend(self._trade_answers(state, seat))
        return tuple(moves)

    def _plays(self, state: SEState, seat: int, out: list[Move]) -> None:
        cards = state.cards
        opts = state.options
        psyche = state.psyche
        seats = range(state.seats)
        others = [s for s in seats if s != seat and state.places[s] == 0]
        hand = state.hands[seat]
        for c in hand:
            card = cards[c]
            kind = card.kind
            if kind == se_cards.DRUG:
                targets = seats if opts.treat_others else (seat,)
                for t in targets:
                    if state.places[t]:
                        continue
                    for d, drug in psyche[t]:
                        if drug == NO_CARD and cards[d].name == card.treats:
                            out.append(Treat(c, d))
            elif kind == se_cards.DISORDER:
                for t in others:
                    if _can_receive(state, t, card.name):
                        out.append(GiveDisorder(c, t))
        for c in hand:
            kind = cards[c].kind
            if kind == se_cards.THERAPY:
                for d, drug in psyche[seat]:
                    if drug == NO_CARD and not cards[d].therapy_proof:
                        out.append(PlayTherapy(c, d))
            elif kind == se_cards.EPISODE:
                for t in others:
                    for d, drug in psyche[t]:
                        if drug == NO_CARD:
                            out.append(PlayEpisode(c, d))
            elif kind == se_cards.MISDIAGNOSIS:
                for mine, drug in psyche[seat]:
                    if drug != NO_CARD:
                        continue
                    for t in others:
                        for theirs, their_drug in psyche[t]:
                            if their_drug == NO_CARD and _swap_ok(state, seat, mine, t, theirs):
                                out.append(PlayMisdiagnosis(c, mine, theirs))
            elif kind == se_cards.HIGH_TOLERANCE:
                for t in others:
                    for _d, drug in psyche[t]:
                        if drug != NO_CARD:
                            out.append(PlayHighTolerance(c, drug))

    def _trade_answers(self, state: SEState, seat: int) -> tuple[Move, ...]:
        out: list[Move] = []
        for oid, offer in state.offers.items():
            if offer.to == seat:
                if _has_names(state.hands[seat], state.cards, offer.want):
                    out.append(AcceptTrade(oid))
                out.append(DeclineTrade(oid))
            elif offer.seat == seat:
                out.append(WithdrawTrade(oid))
        return tuple(out)

    # the legality gate -----------------------------------------------------

    def check(self, state: SEState, seat: int, move: Move) -> None:
        """Raise a RulesError with a plain sentence if the move is not allowed."""
        self._check(state, seat, move)

    def _check(self, state: SEState, seat: Any, move: Any) -> Any:
        """Check ``move``; return what ``apply`` needs (target seat, etc.)."""
        if not isinstance(move, MOVE_TYPES):
            raise MalformedMove(f"{move!r} is not a Side Effects move.")
        _check_fields(move)
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < state.seats:
            raise MalformedMove(f"There is no seat {seat!r} at this table of {state.seats}.")
        if state.over:
            raise GameOver("The game is over.")
        if not state.active(seat):
            raise NotYourTurn(f"Seat {seat} has already won and left the game.")
        phase = state.phase
        kind = type(move)

        if kind is Timeout:
            if phase != TREMORS or seat != state.prompt_seat:
                raise IllegalMove("There is no Tremors countdown for this seat to run out.")
            return None
        if kind is OfferTrade:
            return self._check_offer(state, seat, move)
        if kind in TRADE_ANSWERS:
            return self._check_answer(state, seat, move)

        if phase == TREMORS:
            if seat != state.prompt_seat:
                raise NotYourTurn(f"The game is waiting for seat {state.prompt_seat} to discard for Tremors.")
            if kind is not Discard:
                raise IllegalMove("Tremors: you must discard cards from your hand now.")
            _in_hand(state, seat, move.card)
            return None
        if seat != state.current:
            raise NotYourTurn(f"It is seat {state.current}'s turn, not seat {seat}'s.")
        if phase == ANXIETY:
            if kind is TakeNothing:
                return None
            if kind is not TakeCard:
                raise IllegalMove("Anxiety: take one card from the hand you were shown, or take nothing.")
            if move.card not in state.hands[state.prompt_seat]:
                raise IllegalMove(f"Card {move.card} is not in the hand you were shown.")
            return None
        if phase == DISCARD_DOWN:
            if kind is not Discard:
                raise IllegalMove(f"You hold more than {HAND_LIMIT} cards: discard down to {HAND_LIMIT} first.")
            _in_hand(state, seat, move.card)
            return None
        # PLAY
        if kind is Discard:
            _in_hand(state, seat, move.card)
            return None
        if kind is EndTurn:
            return None
        if kind in (TakeCard, TakeNothing):
            raise IllegalMove("There is no shown hand to take a card from.")
        # one of the plays
        if state.plays_left <= 0:
            if state.impotent:
                raise IllegalMove("Impotence: you may not play cards this turn.")
            raise IllegalMove(f"You have made your {PLAYS_PER_TURN} plays this turn.")
        return self._check_play(state, seat, move)

    def _check_play(self, state: SEState, seat: int, move: Move) -> Any:
        cards = state.cards
        opts = state.options
        kind = type(move)
        card = _in_hand(state, seat, move.card if kind is not Treat else move.drug)
        if kind is Treat:
            if card.kind != se_cards.DRUG:
                raise IllegalMove(f"{card.name} is not a Drug.")
            target, slot = _find_disorder(state, move.disorder)
            if target != seat and not opts.treat_others:
                raise IllegalMove("You may only treat Disorders on your own Psyche (house rule off).")
            if not state.active(target):
                raise IllegalMove(f"Seat {target} has left the game.")
            if slot[1] != NO_CARD:
                raise IllegalMove(f"That {cards[slot[0]].name} is already treated.")
            if cards[slot[0]].name != card.treats:
                raise IllegalMove(f"{card.name} treats {card.treats}, not {cards[slot[0]].name}.")
            return target, slot
        if kind is GiveDisorder:
            if card.kind != se_cards.DISORDER:
                raise IllegalMove(f"{card.name} is not a Disorder.")
            target = move.target
            _other_player(state, seat, target)
            if not _vulnerable(state, target, card.name):
                raise IllegalMove(f"Seat {target} is not vulnerable to {card.name}: no Drug on their Psyche causes it.")
            if not opts.duplicate_disorders and _holds(state, target, card.name):
                raise IllegalMove(f"Seat {target} already has {card.name}.")
            return target
        if kind is PlayTherapy:
            if card.kind != se_cards.THERAPY:
                raise IllegalMove(f"{card.name} is not Therapy.")
            target, slot = _find_disorder(state, move.disorder)
            if target != seat:
                raise IllegalMove("Therapy works only on your own Psyche.")
            if slot[1] != NO_CARD:
                raise IllegalMove(f"Your {cards[slot[0]].name} is already treated.")
            if cards[slot[0]].therapy_proof:
                raise IllegalMove(f"Therapy does not work on {cards[slot[0]].name}.")
            return slot
        if kind is PlayEpisode:
            if card.kind != se_cards.EPISODE:
                raise IllegalMove(f"{card.name} is not an Episode.")
            target, slot = _find_disorder(state, move.disorder)
            _other_player(state, seat, target)
            if slot[1] != NO_CARD:
                raise IllegalMove(f"Seat {target}'s {cards[slot[0]].name} is treated; an Episode needs an untreated Disorder.")
            return target, slot
        if kind is PlayMisdiagnosis:
            if card.kind != se_cards.MISDIAGNOSIS:
                raise IllegalMove(f"{card.name} is not Misdiagnosis.")
            owner, mine = _find_disorder(state, move.mine)
            if owner != seat:
                raise IllegalMove("Misdiagnosis: the first Disorder must be your own.")
            target, theirs = _find_disorder(state, move.theirs)
            _other_player(state, seat, target)
            if mine[1] != NO_CARD or theirs[1] != NO_CARD:
                raise IllegalMove("Misdiagnosis swaps untreated Disorders only.")
            if not _swap_ok(state, seat, move.mine, target, move.theirs):
                raise IllegalMove("That swap would put the same Disorder twice on one Psyche.")
            return target, mine, theirs
        # PlayHighTolerance
        if card.kind != se_cards.HIGH_TOLERANCE:
            raise IllegalMove(f"{card.name} is not High Tolerance.")
        for t in range(state.seats):
            for slot in state.psyche[t]:
                if slot[1] == move.drug:
                    _other_player(state, seat, t)
                    return t, slot
        raise IllegalMove(f"Card {move.drug} is not a Drug on anyone's Psyche.")

    def _check_offer(self, state: SEState, seat: int, move: OfferTrade) -> None:
        if state.phase != PLAY:
            raise IllegalMove("Trading waits until the current prompt is answered.")
        _other_player(state, seat, move.to)
        if not move.give and not move.want:
            raise IllegalMove("A trade offer needs at least one card on one side.")
        if len(set(move.give)) != len(move.give):
            raise IllegalMove("A trade offer names the same card twice.")
        for c in move.give:
            _in_hand(state, seat, c)
        names = {c.name for c in state.cards}
        for name in move.want:
            if name not in names:
                raise IllegalMove(f"There is no card called {name!r} in this deck.")
        if len(move.want) > len(state.cards):
            raise IllegalMove("A trade offer asks for more cards than the deck holds.")
        open_offers = sum(1 for o in state.offers.values() if o.seat == seat)
        if open_offers >= MAX_OPEN_OFFERS:
            raise IllegalMove(f"You already have {MAX_OPEN_OFFERS} open offers; withdraw one first.")
        return None

    def _check_answer(self, state: SEState, seat: int, move: Move) -> _OpenOffer:
        offer = state.offers.get(move.offer)
        if offer is None:
            raise IllegalMove(f"There is no open trade offer {move.offer}.")
        if isinstance(move, WithdrawTrade):
            if offer.seat != seat:
                raise IllegalMove(f"Offer {move.offer} is not yours to withdraw.")
            return offer
        if offer.to != seat:
            raise IllegalMove(f"Offer {move.offer} was not made to you.")
        if state.phase != PLAY:
            raise IllegalMove("Trading waits until the current prompt is answered.")
        if isinstance(move, AcceptTrade) and not _has_names(state.hands[seat], state.cards, offer.want):
            raise IllegalMove(f"You do not hold {', '.join(offer.want)}.")
        return offer

    # applying --------------------------------------------------------------

    def apply(self, state: SEState, seat: int, move: Move) -> list[Event]:
        """Check ``move``, then make it; return the events (unredacted)."""
        found = self._check(state, seat, move)
        events: list[Event] = []
        kind = type(move)
        if kind is Discard:
            self._discard(state, seat, move.card, events)
        elif kind is EndTurn:
            self._end_turn(state, events)
        elif kind in PLAY_TYPES:
            state.plays_left -= 1
            self._play(state, seat, move, found, events)
            self._after_play(state, events)
        elif kind is TakeCard or kind is TakeNothing:
            target = state.prompt_seat
            if kind is TakeCard:
                state.hands[target].remove(move.card)
                state.hands[seat].append(move.card)
                events.append(CardsTaken(seat, target, (move.card,), 1, "chosen"))
            state.phase = PLAY
            state.prompt_seat = NO_CARD
            self._after_play(state, events)
        elif kind is Timeout:
            target = state.prompt_seat
            hand = state.hands[target]
            events.append(HandDiscarded(target, tuple(hand), TREMORS))
            state.discard.extend(hand)
            hand.clear()
            self._close_tremors(state, events)
        elif kind is OfferTrade:
            oid = state.next_offer
            state.next_offer += 1
            state.offers[oid] = _OpenOffer(seat, move.to, move.give, move.want, _hands_of(state, seat, move.to))
            events.append(TradeOffered(oid, seat, move.to, move.give, move.want))
        elif kind is AcceptTrade:
            self._trade(state, move.offer, found, events)
        else:  # DeclineTrade, WithdrawTrade
            del state.offers[move.offer]
            how = "declined" if kind is DeclineTrade else "withdrawn"
            events.append(TradeClosed(move.offer, found.seat, found.to, how))
        if state.offers:
            _lapse_offers(state, events)
        return events

    def _discard(self, state: SEState, seat: int, card: int, events: list[Event]) -> None:
        state.hands[seat].remove(card)
        state.discard.append(card)
        phase = state.phase
        if phase == TREMORS:
            events.append(CardDiscarded(seat, card, TREMORS))
            state.prompt_count -= 1
            if state.prompt_count <= 0 or not state.hands[seat]:
                self._close_tremors(state, events)
        elif phase == DISCARD_DOWN:
            events.append(CardDiscarded(seat, card, "hand_limit"))
            if len(state.hands[seat]) <= HAND_LIMIT:
                self._next_turn(state, events)
        else:
            events.append(CardDiscarded(seat, card, "free"))

    def _close_tremors(self, state: SEState, events: list[Event]) -> None:
        state.phase = PLAY
        state.prompt_seat = NO_CARD
        state.prompt_count = 0
        self._after_play(state, events)

    def _play(self, state: SEState, seat: int, move: Any, found: Any, events: list[Event]) -> None:
        kind = type(move)
        hand = state.hands[seat]
        if kind is Treat:
            target, slot = found
            hand.remove(move.drug)
            slot[1] = move.drug
            events.append(DisorderTreated(seat, move.drug, move.disorder, target))
            self._check_win(state, target, events)
        elif kind is GiveDisorder:
            hand.remove(move.card)
            state.psyche[move.target].append([move.card, NO_CARD])
            events.append(DisorderGiven(seat, move.card, move.target))
        elif kind is PlayTherapy:
            slot = found
            hand.remove(move.card)
            state.psyche[seat].remove(slot)
            state.discard.append(slot[0])
            state.discard.append(move.card)
            events.append(TherapyUsed(seat, move.card, move.disorder))
            self._check_win(state, seat, events)
        elif kind is PlayEpisode:
            target, slot = found
            hand.remove(move.card)
            state.discard.append(move.card)
            self._punish(state, seat, target, move.card, slot[0], events)
        elif kind is PlayMisdiagnosis:
            target, mine, theirs = found
            hand.remove(move.card)
            state.discard.append(move.card)
            mine[0], theirs[0] = theirs[0], mine[0]
            events.append(MisdiagnosisPlayed(seat, move.card, move.mine, target, move.theirs))
        else:  # PlayHighTolerance
            target, slot = found
            hand.remove(move.card)
            state.discard.append(move.card)
            state.discard.append(slot[1])
            slot[1] = NO_CARD
            events.append(HighTolerancePlayed(seat, move.card, target, move.drug))

    def _punish(self, state: SEState, seat: int, target: int, card: int, disorder: int, events: list[Event]) -> None:
        """Resolve an Episode on ``target``'s Disorder (SE7)."""
        punishment = state.cards[disorder].punishment
        hand = state.hands[target]
        effective = True
        if punishment == "discard_drugs":
            drugs = tuple(s[1] for s in state.psyche[target] if s[1] != NO_CARD)
            effective = bool(drugs)
        elif punishment in ("discard_hand", "tremors", "random_steal", "reveal_and_take"):
            effective = bool(hand)
        events.append(EpisodePlayed(seat, card, target, disorder, punishment, effective))
        if punishment == "discard_drugs":
            for slot in state.psyche[target]:
                if slot[1] != NO_CARD:
                    state.discard.append(slot[1])
                    slot[1] = NO_CARD
            if drugs:
                events.append(DrugsDiscarded(target, drugs))
        elif punishment == "discard_hand":
            if hand:
                events.append(HandDiscarded(target, tuple(hand), "suicidal_thoughts"))
                state.discard.extend(hand)
                hand.clear()
        elif punishment == "skip_turn":
            state.skips[target] += 1
            events.append(SkipAdded(target, state.skips[target]))
        elif punishment == "no_play":
            state.no_play[target] = True
            events.append(PlaysBlocked(target))
        elif punishment == "no_draw":
            state.no_draw[target] = True
            events.append(DrawBlocked(target))
        elif punishment == "random_steal":
            if hand:
                taken = state.rng.sample(hand, min(STEAL_CARDS, len(hand)))
                for c in taken:
                    hand.remove(c)
                state.hands[seat].extend(taken)
                events.append(CardsTaken(seat, target, tuple(taken), len(taken), "random"))
        elif punishment == "reveal_and_take":
            events.append(HandShown(seat, target, tuple(hand), len(hand)))
            if hand:
                state.phase = ANXIETY
                state.prompt_seat = target
        elif punishment == "tremors":
            if len(hand) <= TREMORS_CARDS:
                if hand:
                    events.append(HandDiscarded(target, tuple(hand), TREMORS))
                    state.discard.extend(hand)
                    hand.clear()
            else:
                state.phase = TREMORS
                state.prompt_seat = target
                state.prompt_count = TREMORS_CARDS
                events.append(TremorsStarted(target, seat, TREMORS_CARDS, state.options.tremors_seconds))
        else:  # pragma: no cover - the loader admits only known punishments
            raise RulesError(f"unknown punishment {punishment!r}")

    def _after_play(self, state: SEState, events: list[Event]) -> None:
        """A play (and any prompt it opened) is done: end the turn after the last one."""
        if state.over or state.phase != PLAY:
            return
        if not state.active(state.current):
            self._next_turn(state, events)
        elif state.plays_left <= 0:
            self._end_turn(state, events)

    def _check_win(self, state: SEState, seat: int, events: list[Event]) -> None:
        """SE9: a player with no untreated Disorder wins at once."""
        if any(drug == NO_CARD for _d, drug in state.psyche[seat]):
            return
        place = len(state.finish_order) + 1
        state.finish_order.append(seat)
        state.places[seat] = place
        events.append(PlayerWon(seat, place))
        left = [s for s in range(state.seats) if state.places[s] == 0]
        if not state.options.until_one_loser or len(left) <= 1:
            # Everyone not placed shares the next place (the last, with one loser).
            for s in left:
                state.places[s] = place + 1
            state.over = True
            state.phase = OVER
            state.offers.clear()
            winners = tuple(s for s in range(state.seats) if state.places[s] == 1)
            events.append(GameEnded(winners, left[0] if state.options.until_one_loser and left else -1))
            return
        # The winner leaves the rotation; their hand goes back into circulation.
        hand = state.hands[seat]
        if hand:
            events.append(HandDiscarded(seat, tuple(hand), "won"))
            state.discard.extend(hand)
            hand.clear()
        for oid in [o for o, off in state.offers.items() if seat in (off.seat, off.to)]:
            off = state.offers.pop(oid)
            events.append(TradeClosed(oid, off.seat, off.to, "lapsed"))

    def _end_turn(self, state: SEState, events: list[Event]) -> None:
        """SE5: discard down to the hand limit by choice, then pass the turn."""
        if len(state.hands[state.current]) > HAND_LIMIT:
            state.phase = DISCARD_DOWN
            return
        self._next_turn(state, events)

    def _next_turn(self, state: SEState, events: list[Event]) -> None:
        if state.active(state.current):
            events.append(TurnEnded(state.current))
        state.current = self._next_seat(state, state.current)
        self._begin_turn(state, events)

    def _next_seat(self, state: SEState, seat: int) -> int:
        for step in range(1, state.seats + 1):
            s = (seat + step) % state.seats
            if state.places[s] == 0:
                return s
        return seat  # pragma: no cover - the game is over before this

    def _begin_turn(self, state: SEState, events: list[Event]) -> None:
        """Skip Depressed seats, then draw (unless Anorexic) and set the plays."""
        state.phase = PLAY
        seat = state.current
        while state.skips[seat] > 0:
            state.skips[seat] -= 1
            events.append(TurnSkipped(seat, state.skips[seat]))
            seat = state.current = self._next_seat(state, seat)
        state.turn += 1
        events.append(TurnStarted(seat, state.turn))
        if state.no_draw[seat]:
            state.no_draw[seat] = False
            events.append(DrawPrevented(seat))
        else:
            _draw(state, seat, DRAW_PER_TURN, events)
        state.impotent = state.no_play[seat]
        if state.impotent:
            state.no_play[seat] = False
            state.plays_left = 0
            events.append(PlaysPrevented(seat))
        else:
            state.plays_left = PLAYS_PER_TURN

    def _trade(self, state: SEState, oid: int, offer: _OpenOffer, events: list[Event]) -> None:
        """SE10: swap the offered cards for the wanted ones; never a play."""
        del state.offers[oid]
        giver, taker = state.hands[offer.seat], state.hands[offer.to]
        got = _pick_names(taker, state.cards, offer.want)
        for c in offer.give:
            giver.remove(c)
            taker.append(c)
        for c in got:
            taker.remove(c)
            giver.append(c)
        events.append(TradeAccepted(oid, offer.seat, offer.to, offer.give, got, len(offer.give) + len(got)))

    # seeing ----------------------------------------------------------------

    def view(self, state: SEState, seat: int | None) -> SEView:
        """What ``seat`` may see; None is a spectator (public information only)."""
        if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < state.seats):
            raise MalformedMove(f"There is no seat {seat!r} at this table.")
        cards = state.cards
        players = tuple(
            PlayerView(
                seat=s,
                psyche=tuple(Slot(cards[d], cards[g] if g != NO_CARD else None) for d, g in state.psyche[s]),
                hand_size=len(state.hands[s]),
                vulnerable_to=_vulnerable_list(state, s),
                skips=state.skips[s],
                no_play=state.no_play[s],
                no_draw=state.no_draw[s],
                place=state.places[s],
            )
            for s in range(state.seats)
        )
        prompt = None
        if state.phase == TREMORS:
            prompt = Prompt(TREMORS, state.prompt_seat, state.current, state.prompt_seat, state.prompt_count,
                            state.options.tremors_seconds, ())
        elif state.phase == ANXIETY:
            shown = state.hands[state.prompt_seat] if seat == state.current else ()
            prompt = Prompt(ANXIETY, state.current, state.current, state.prompt_seat, 0, 0.0,
                            tuple(cards[c] for c in shown))
        elif state.phase == DISCARD_DOWN:
            extra = len(state.hands[state.current]) - HAND_LIMIT
            prompt = Prompt(DISCARD_DOWN, state.current, NO_CARD, state.current, extra, 0.0, ())
        offers = ()
        if seat is not None:
            offers = tuple(
                Offer(oid, o.seat, o.to, tuple(cards[c] for c in o.give), o.want)
                for oid, o in state.offers.items()
                if seat in (o.seat, o.to)
            )
        return SEView(
            game=GAME,
            seat=seat,
            turn=state.turn,
            current=state.current,
            phase=state.phase,
            plays_left=state.plays_left,
            players=players,
            hand=tuple(cards[c] for c in state.hands[seat]) if seat is not None else (),
            draw_count=len(state.draw),
            discard_count=len(state.discard),
            discard_top=cards[state.discard[-1]] if state.discard else None,
            prompt=prompt,
            offers=offers,
            legal=self.legal_moves(state, seat) if seat is not None else (),
            waiting_for=self.waiting_for(state),
            outcome=self.outcome(state),
            options=state.options,
        )

    def redact(self, event: Event, seat: int | None) -> Event | None:
        """``event`` with the cards ``seat`` may not see emptied (counts stay)."""
        kind = type(event)
        if kind is CardsDrawn:
            return event if seat == event.seat else replace(event, cards=())
        if kind is CardsTaken or kind is HandShown:
            return event if seat in (event.seat, event.target) else replace(event, cards=())
        if kind is TradeOffered:
            return event if seat in (event.seat, event.to) else replace(event, give=(), want=())
        if kind is TradeAccepted:
            return event if seat in (event.seat, event.to) else replace(event, gave=(), got=())
        return event

    def describe(self, event: Event, names: Sequence[str], seat: int | None = None) -> str:
        from core.side_effects_text import describe

        return describe(self, event, names, seat)

    def move_types(self) -> tuple[type, ...]:
        return MOVE_TYPES

    def wire_types(self) -> tuple[type, ...]:
        return MOVE_TYPES + EVENT_TYPES + (SECard, Slot, PlayerView, Prompt, Offer, SEView, SEOptions, Outcome)


# --- helpers ----------------------------------------------------------------


def _check_fields(move: Move) -> None:
    """Refuse moves whose fields are not the types the rules expect."""
    for f in fields(move):
        value = getattr(move, f.name)
        if f.type in ("int", int):
            ok = isinstance(value, int) and not isinstance(value, bool)
        elif f.type in ("tuple[int, ...]",):
            ok = isinstance(value, tuple) and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
        elif f.type in ("tuple[str, ...]",):
            ok = isinstance(value, tuple) and all(isinstance(v, str) for v in value)
        else:  # pragma: no cover - every move field is one of the above
            ok = True
        if not ok:
            raise MalformedMove(f"{type(move).__name__}.{f.name} has the wrong type: {value!r}.")


def _in_hand(state: SEState, seat: int, card: int) -> SECard:
    if card not in state.hands[seat]:
        if 0 <= card < len(state.cards):
            raise IllegalMove(f"{state.cards[card].name} (card {card}) is not in your hand.")
        raise IllegalMove(f"There is no card {card} in this game.")
    return state.cards[card]


def _find_disorder(state: SEState, card: int) -> tuple[int, list[int]]:
    for seat in range(state.seats):
        for slot in state.psyche[seat]:
            if slot[0] == card:
                return seat, slot
    if 0 <= card < len(state.cards):
        raise IllegalMove(f"{state.cards[card].name} (card {card}) is not a Disorder on anyone's Psyche.")
    raise IllegalMove(f"There is no card {card} in this game.")


def _other_player(state: SEState, seat: int, target: Any) -> None:
    if isinstance(target, bool) or not isinstance(target, int) or not 0 <= target < state.seats:
        raise IllegalMove(f"There is no seat {target!r} at this table.")
    if target == seat:
        raise IllegalMove("That needs another player, not yourself.")
    if not state.active(target):
        raise IllegalMove(f"Seat {target} has already won and left the game.")


def _holds(state: SEState, seat: int, name: str) -> bool:
    cards = state.cards
    return any(cards[d].name == name for d, _g in state.psyche[seat])


def _vulnerable(state: SEState, seat: int, name: str) -> bool:
    """SE6: some Drug now on the Psyche lists ``name`` as a side effect."""
    cards = state.cards
    return any(g != NO_CARD and name in cards[g].side_effects for _d, g in state.psyche[seat])


def _can_receive(state: SEState, seat: int, name: str) -> bool:
    return _vulnerable(state, seat, name) and (state.options.duplicate_disorders or not _holds(state, seat, name))


def _vulnerable_list(state: SEState, seat: int) -> tuple[str, ...]:
    cards = state.cards
    names: list[str] = []
    for _d, g in state.psyche[seat]:
        if g != NO_CARD:
            for name in cards[g].side_effects:
                if name not in names and _can_receive(state, seat, name):
                    names.append(name)
    return tuple(names)


def _swap_ok(state: SEState, seat: int, mine: int, target: int, theirs: int) -> bool:
    """SE12: a Misdiagnosis swap may not leave a duplicate on either Psyche."""
    if state.options.duplicate_disorders:
        return True
    cards = state.cards
    mine_name, theirs_name = cards[mine].name, cards[theirs].name
    if mine_name == theirs_name:
        return True
    return not _holds(state, seat, theirs_name) and not _holds(state, target, mine_name)


def _has_names(hand: list[int], cards: tuple[SECard, ...], want: tuple[str, ...]) -> bool:
    pool = [cards[c].name for c in hand]
    for name in want:
        if name not in pool:
            return False
        pool.remove(name)
    return True


def _pick_names(hand: list[int], cards: tuple[SECard, ...], want: tuple[str, ...]) -> tuple[int, ...]:
    """The lowest-id cards of ``hand`` answering ``want`` (all copies are alike)."""
    pool = sorted(hand)
    got: list[int] = []
    for name in want:
        for c in pool:
            if cards[c].name == name and c not in got:
                got.append(c)
                break
    return tuple(got)


def _hands_of(state: SEState, a: int, b: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    return tuple(sorted(state.hands[a])), tuple(sorted(state.hands[b]))


def _lapse_offers(state: SEState, events: list[Event]) -> None:
    """SE10: an offer lapses when either hand has changed since it was made."""
    for oid in list(state.offers):
        offer = state.offers[oid]
        if _hands_of(state, offer.seat, offer.to) != offer.hands_then:
            del state.offers[oid]
            events.append(TradeClosed(oid, offer.seat, offer.to, "lapsed"))


def _draw(state: SEState, seat: int, count: int, events: list[Event]) -> None:
    """SE4: an empty draw pile is replaced by the shuffled discard pile."""
    drawn: list[int] = []
    draw = state.draw
    for _ in range(count):
        if not draw:
            if not state.discard:
                break
            draw.extend(state.discard)
            state.discard.clear()
            state.rng.shuffle(draw)
            events.append(DeckReshuffled(len(draw)))
        drawn.append(draw.pop())
    state.hands[seat].extend(drawn)
    events.append(CardsDrawn(seat, tuple(drawn), len(drawn)))


RULES = SideEffects()
