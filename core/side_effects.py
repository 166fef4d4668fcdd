"""Side Effects: the complete rules, per the rulebook and rulings SE1-SE12.

Play: each player has a Psyche of Disorders and a hidden hand. On your turn
you draw 2 and make up to 2 plays: Treat one of your Disorders with its Drug,
give another player a Disorder their Drugs make them vulnerable to, use
Therapy on one of your Disorders, or play an Episode to trigger the
punishment of another player's untreated Disorder. The first player with no
untreated Disorder wins.

The State is mutable and owned by the caller; :data:`RULES` holds no game.

Legal moves come in this order (documented because bots, tests and the TUI
rely on it): plays by hand order (Treat, GiveDisorder, PlayTherapy,
PlayEpisode, PlayMisdiagnosis, PlayHighTolerance, whichever the card allows),
each card's by target in seat and Psyche order; then Discard by hand order,
then EndTurn, then answers
to trade offers (AcceptTrade, DeclineTrade, WithdrawTrade by offer id). During
a prompt, only the prompt's answers. OfferTrade is legal whenever trading is
open but is not enumerated: its space is every subset of a hand.
"""

from __future__ import annotations

import random
import statistics
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
    Shared,
    record,
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


@record
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
            low, high = _OPTION_LIMITS[key]
            if not low <= value <= high:  # first: int() of NaN or infinity would raise
                raise BadOptions(f"Option {key} must be from {low} to {high}, not {value!r}.")
            if isinstance(default, int) and not isinstance(default, bool) and value != int(value):
                raise BadOptions(f"Option {key} must be a whole number, not {value!r}.")
            value = type(default)(value)
        out[key] = value
    return SEOptions(**out)


# --- moves ------------------------------------------------------------------


@record
class Treat(Move):
    """Put the Drug ``drug`` from your hand on the untreated Disorder ``disorder``."""

    drug: int
    disorder: int


@record
class GiveDisorder(Move):
    """Add the Disorder ``card`` from your hand to ``target``'s Psyche."""

    card: int
    target: int


@record
class PlayTherapy(Move):
    """Discard your untreated Disorder ``disorder`` together with Therapy ``card``."""

    card: int
    disorder: int


@record
class PlayEpisode(Move):
    """Trigger the punishment of another player's untreated Disorder ``disorder``."""

    card: int
    disorder: int


@record
class PlayMisdiagnosis(Move):
    """Swap your untreated Disorder ``mine`` with another's untreated ``theirs``."""

    card: int
    mine: int
    theirs: int


@record
class PlayHighTolerance(Move):
    """Discard the Drug ``drug`` from another player's Psyche."""

    card: int
    drug: int


@record
class Discard(Move):
    """Discard ``card`` from your hand: freely on your turn, to the hand limit, or for Tremors."""

    card: int


@record
class EndTurn(Move):
    """End your turn (you will discard down to six if you hold more)."""


@record
class TakeCard(Move):
    """Anxiety: take ``card`` from the hand you were shown."""

    card: int


@record
class TakeNothing(Move):
    """Anxiety: take nothing from the hand you were shown."""


@record
class OfferTrade(Move):
    """Offer ``to`` the cards ``give`` from your hand for cards named ``want`` from theirs."""

    to: int
    give: tuple[int, ...]
    want: tuple[str, ...]


@record
class AcceptTrade(Move):
    offer: int


@record
class DeclineTrade(Move):
    offer: int


@record
class WithdrawTrade(Move):
    offer: int


@record
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
_PLAY_KINDS = frozenset(PLAY_TYPES)  # for ``in``: a set tests a class by its hash, a tuple compares each
TRADE_ANSWERS = (AcceptTrade, DeclineTrade, WithdrawTrade)

_END_TURN = EndTurn()
_TAKE_NOTHING = TakeNothing()
_TIMEOUT = Timeout()  # (entered in _KNOWN_MOVES below, with the other shared moves)


# --- events -----------------------------------------------------------------


@record
class GameStarted(Event):
    seats: int
    first: int


@record
class TurnStarted(Event):
    seat: int
    turn: int


@record
class TurnSkipped(Event):
    """Depression: the seat sat this turn out; ``skips_left`` more are owed."""

    seat: int
    skips_left: int


@record
class CardsDrawn(Event):
    """``cards`` is empty in every copy but the drawer's; ``count`` is public."""

    seat: int
    cards: tuple[int, ...]
    count: int


@record
class DeckReshuffled(Event):
    count: int


@record
class DrawPrevented(Event):
    """Anorexia: the seat drew nothing this turn."""

    seat: int


@record
class PlaysPrevented(Event):
    """Impotence: the seat may play no card this turn."""

    seat: int


@record
class DisorderTreated(Event):
    seat: int
    drug: int
    disorder: int
    target: int


@record
class DisorderGiven(Event):
    seat: int
    card: int
    target: int


@record
class TherapyUsed(Event):
    seat: int
    card: int
    disorder: int


@record
class EpisodePlayed(Event):
    seat: int
    card: int
    target: int
    disorder: int
    punishment: str
    effective: bool
    """False when the punishment could do nothing (the card is spent anyway)."""


@record
class DrugsDiscarded(Event):
    """Madness: every Drug on ``seat``'s Psyche went to the discard pile."""

    seat: int
    cards: tuple[int, ...]


@record
class HandDiscarded(Event):
    """``seat`` discarded the whole hand (discards are face up, so public)."""

    seat: int
    cards: tuple[int, ...]
    reason: str


@record
class SkipAdded(Event):
    """Depression: ``seat`` will sit out ``skips`` turns."""

    seat: int
    skips: int


@record
class PlaysBlocked(Event):
    """Impotence: ``seat`` may not play cards on their next turn."""

    seat: int


@record
class DrawBlocked(Event):
    """Anorexia: ``seat`` will not draw on their next turn."""

    seat: int


@record
class TremorsStarted(Event):
    seat: int
    inflictor: int
    count: int
    seconds: float


@record
class CardDiscarded(Event):
    seat: int
    card: int
    reason: str
    """``free``, ``hand_limit`` or ``tremors``."""


@record
class CardsTaken(Event):
    """``seat`` took cards from ``target``: ``how`` is ``random`` (Gambling
    Addiction) or ``chosen`` (Anxiety). ``cards`` is seen by the two only."""

    seat: int
    target: int
    cards: tuple[int, ...]
    count: int
    how: str


@record
class HandShown(Event):
    """Anxiety: ``target``'s hand shown to ``seat`` only."""

    seat: int
    target: int
    cards: tuple[int, ...]
    count: int


@record
class MisdiagnosisPlayed(Event):
    seat: int
    card: int
    mine: int
    target: int
    theirs: int


@record
class HighTolerancePlayed(Event):
    seat: int
    card: int
    target: int
    drug: int


@record
class TradeOffered(Event):
    """``give`` and ``want`` are seen by the two parties only."""

    offer: int
    seat: int
    to: int
    give: tuple[int, ...]
    want: tuple[str, ...]


@record
class TradeAccepted(Event):
    """``gave`` went from ``seat`` to ``to``; ``got`` the other way. Private to the two."""

    offer: int
    seat: int
    to: int
    gave: tuple[int, ...]
    got: tuple[int, ...]
    count: int


@record
class TradeClosed(Event):
    """An offer ended unaccepted: ``declined``, ``withdrawn`` or ``lapsed``."""

    offer: int
    seat: int
    to: int
    how: str


@record
class TurnEnded(Event):
    seat: int


@record
class PlayerWon(Event):
    seat: int
    place: int


@record
class GameEnded(Event):
    winners: tuple[int, ...]
    loser: int
    """The last player left with ``until_one_loser``; else -1."""


# --- views ------------------------------------------------------------------


@record
class Slot:
    """One Disorder on a Psyche and the Drug treating it, if any."""

    disorder: SECard
    drug: SECard | None


@record
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


@record
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


@record
class Offer:
    id: int
    seat: int
    to: int
    give: tuple[SECard, ...]
    want: tuple[str, ...]


@record
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
    trade_partners: tuple[int, ...]
    """The seats this seat may offer a trade to now (SE10); empty when it may
    not trade. Offers are not listed in ``legal``: their card lists are free."""


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


# Events are values too. Building one costs several times a dict lookup (a
# type call, then one descriptor call per field), and about two are made per
# decision, so those whose fields range over seats and cards only (never a
# hand) are made once and shared (core.rules.Shared): one cache per class,
# keyed by the fields, none holding more than core.rules.SHARED_LIMIT.
_describe: Any = None
"""core.side_effects_text.describe, once SideEffects.describe has needed it."""


_DISCARDED = Shared(CardDiscarded)
_TURNS_ENDED = Shared(TurnEnded)
_TURNS_STARTED = Shared(TurnStarted)
_TURNS_SKIPPED = Shared(TurnSkipped)
_DRAWS_PREVENTED = Shared(DrawPrevented)
_PLAYS_PREVENTED = Shared(PlaysPrevented)
_TREATED = Shared(DisorderTreated)
_GIVEN = Shared(DisorderGiven)
_THERAPIES_USED = Shared(TherapyUsed)
_SKIPS_ADDED = Shared(SkipAdded)
_PLAYS_BLOCKED = Shared(PlaysBlocked)
_DRAWS_BLOCKED = Shared(DrawBlocked)


# --- state ------------------------------------------------------------------

_DISORDER, _DRUG, _EPISODE, _THERAPY, _MISDIAGNOSIS, _HIGH_TOLERANCE = range(6)
_KIND_CODE = {
    se_cards.DISORDER: _DISORDER,
    se_cards.DRUG: _DRUG,
    se_cards.EPISODE: _EPISODE,
    se_cards.THERAPY: _THERAPY,
    se_cards.MISDIAGNOSIS: _MISDIAGNOSIS,
    se_cards.HIGH_TOLERANCE: _HIGH_TOLERANCE,
}


class _DeckMeta:
    """Per-card facts as flat lists and bit masks, made once per deck.

    legal_moves runs for every decision of every simulated game; looking up
    ``meta.bit[c]`` and or-ing masks is several times cheaper than comparing
    names and scanning side-effect tuples (measured with bench/rules.py).
    Each Disorder name gets one bit; ``side[drug]`` is the mask of its side
    effects and ``treats[drug]`` the bit of the Disorder it treats.
    ``rows[card]`` holds the card's plays, made once, by what they target:
    a Drug's Treat, a Therapy's or an Episode's play by Disorder id, a
    Disorder's GiveDisorder by seat, a High Tolerance's play by Drug id.
    """

    __slots__ = ("kind", "bit", "side", "treats", "therapy_proof", "bit_of", "discard", "take", "rows")

    def __init__(self, cards: tuple[SECard, ...], max_seats: int) -> None:
        names = sorted({c.name for c in cards if c.kind == se_cards.DISORDER})
        self.bit_of = {name: 1 << i for i, name in enumerate(names)}
        self.kind = [_KIND_CODE[c.kind] for c in cards]
        self.bit = [self.bit_of.get(c.name, 0) if c.kind == se_cards.DISORDER else 0 for c in cards]
        self.side = [sum(self.bit_of[n] for n in c.side_effects) for c in cards]
        self.treats = [self.bit_of.get(c.treats, 0) for c in cards]
        self.therapy_proof = [c.therapy_proof for c in cards]
        self.discard = [_known(_DISCARDS, Discard, c.id) for c in cards]
        self.take = [_known(_TAKES, TakeCard, c.id) for c in cards]
        disorders = [c.id for c in cards if c.kind == se_cards.DISORDER]
        drugs = [c.id for c in cards if c.kind == se_cards.DRUG]
        self.rows: list[list[Move | None] | None] = [None] * len(cards)
        for c in cards:
            if c.kind == se_cards.DRUG:
                row = self._row(len(cards), _TREATS, Treat, c.id, [d for d in disorders if cards[d].name == c.treats])
            elif c.kind == se_cards.DISORDER:
                row = self._row(max_seats, _GIVES, GiveDisorder, c.id, range(max_seats))
            elif c.kind == se_cards.THERAPY:
                row = self._row(len(cards), _THERAPIES, PlayTherapy, c.id, disorders)
            elif c.kind == se_cards.EPISODE:
                row = self._row(len(cards), _EPISODES, PlayEpisode, c.id, disorders)
            elif c.kind == se_cards.HIGH_TOLERANCE:
                row = self._row(len(cards), _TOLERANCES, PlayHighTolerance, c.id, drugs)
            else:  # Misdiagnosis has two targets: its plays are made as needed
                continue
            self.rows[c.id] = row

    @staticmethod
    def _row(size: int, cache: dict[int, Move], cls: type, card: int, targets: Any) -> list[Move | None]:
        row: list[Move | None] = [None] * size
        for t in targets:
            row[t] = _move2(cache, cls, card, t)
        return row


# Moves are values: the ones legal_moves offers again and again are made once
# and reused (building frozen dataclasses dominated legal_moves in profiles).
# Each is also entered in _KNOWN_MOVES by id, so ``check`` can skip testing the
# types of its fields: the engine built it from ints. The dict keeps every
# such move alive, so its id is never reused by another object.
_KNOWN_MOVES: dict[int, Move] = {}
_TREATS: dict[int, Move] = {}
_GIVES: dict[int, Move] = {}
_THERAPIES: dict[int, Move] = {}
_EPISODES: dict[int, Move] = {}
_TOLERANCES: dict[int, Move] = {}
_DISCARDS: dict[int, Move] = {}
_TAKES: dict[int, Move] = {}


def _known(cache: dict[int, Move], cls: type, card: int) -> Move:
    """The engine's one ``cls(card)``, from ``cache``."""
    move = cache.get(card)
    if move is None:
        move = cache[card] = cls(card)
        _KNOWN_MOVES[id(move)] = move
    return move


def _move2(cache: dict[int, Move], cls: type, a: int, b: int) -> Move:
    """The engine's one ``cls(a, b)``, from ``cache``."""
    key = (a << 20) | b
    move = cache.get(key)
    if move is None:
        move = cache[key] = cls(a, b)
        _KNOWN_MOVES[id(move)] = move
    return move




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
        "meta",
        "psyche_info",
        "plays_cache",
        "view_cache",
        "epoch",
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
        "start_events",
    )

    def __init__(
        self, seats: int, options: SEOptions, rng: random.Random, cards: tuple[SECard, ...], meta: _DeckMeta
    ) -> None:
        self.seats = seats
        self.options = options
        self.rng = rng
        self.cards = cards
        self.meta = meta
        self.psyche_info: list[tuple[int, tuple[int, ...], int] | None] = [None] * seats
        """Per seat, a cache for legal_moves (see _seat_info); None when stale."""
        self.plays_cache: list[tuple[Any, ...] | None] = [None] * seats
        """Per seat, what legal_moves knows of its plays this epoch (see SideEffects._play_context)."""
        self.view_cache: list[tuple[Any, tuple[int, ...], PlayerView] | None] = [None] * seats
        """Per seat, the last PlayerView made and what it was made from."""
        self.epoch = 0
        """Counts changes to any Psyche or to who is still playing."""
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
        self.start_events: tuple[Event, ...] = ()
        """What happened inside new_game (the deal, the first draw), for the host to relay."""

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
        self._built = {bonus: self.deck.build(bonus=bonus) for bonus in (False, True)}
        self._meta = {bonus: _DeckMeta(cards, self.max_seats) for bonus, cards in self._built.items()}
        # Per deck, its Disorder ids and its other ids, in id order: new_game copies them.
        self._piles = {
            bonus: (
                tuple(c.id for c in cards if c.kind == se_cards.DISORDER),
                tuple(c.id for c in cards if c.kind != se_cards.DISORDER),
            )
            for bonus, cards in self._built.items()
        }

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
        cards = self._built[opts.bonus_cards]
        state = SEState(seats, opts, rng, cards, self._meta[opts.bonus_cards])

        disorder_ids, other_ids = self._piles[opts.bonus_cards]
        disorders = list(disorder_ids)
        others = list(other_ids)
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
        state.start_events = tuple(events)
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
            # Seat numbers mean nothing to people; callers name the seats.
            reason = "Everyone recovered but one player."
        else:
            reason = "A player treated every Disorder on their Psyche."
        return Outcome(winners=winners, places=places, reason=reason)

    def legal_moves(self, state: SEState, seat: int) -> tuple[Move, ...]:
        if seat == state.current and state.phase == PLAY and not state.over and not state.places[seat]:
            # The commonest case first (the tests below come to the same):
            # plays by hand order, then discards, then EndTurn.
            hand = state.hands[seat]
            moves: list[Move] = []
            if state.plays_left > 0:
                # What a card can do depends only on the Psyches and who is
                # still playing, which change on few decisions (``state.epoch``,
                # see _psyche_changed). So each seat keeps, per epoch, what its
                # cards need (see _play_context) and a table of each card's
                # plays, filled in as the cards turn up in its hand: most
                # decisions look each card up once. Most Drugs and Disorders
                # are ruled out by one bit test, made here rather than in a
                # call. (Plain loops: in profiles they beat map() and
                # comprehensions over hands this small.)
                ctx = state.plays_cache[seat]
                if ctx is None or ctx[0] != state.epoch:
                    ctx = state.plays_cache[seat] = self._play_context(state, seat)
                table = ctx[1]
                for c in hand:
                    plays = table[c]
                    if plays is None:
                        meta = state.meta
                        kind = meta.kind[c]
                        if kind == _DRUG and not meta.treats[c] & ctx[2]:
                            plays = ()  # no untreated Disorder it treats
                        elif kind == _DISORDER and not meta.bit[c] & ctx[3]:
                            plays = ()  # nobody can be given it
                        else:
                            plays = self._card_plays(state, seat, c, ctx)
                        table[c] = plays
                    moves += plays
            discards = state.meta.discard
            for c in hand:
                moves.append(discards[c])
            moves.append(_END_TURN)
            if state.offers:
                moves.extend(self._trade_answers(state, seat))
            return tuple(moves)
        if state.over or not 0 <= seat < state.seats or state.places[seat]:
            return ()
        phase = state.phase
        hand = state.hands[seat]
        if phase == TREMORS:
            return tuple(map(state.meta.discard.__getitem__, hand)) if seat == state.prompt_seat else ()
        if seat != state.current:
            return self._trade_answers(state, seat) if phase == PLAY else ()
        if phase == ANXIETY:
            take = state.meta.take
            return (*map(take.__getitem__, state.hands[state.prompt_seat]), _TAKE_NOTHING)
        # DISCARD_DOWN
        return tuple(map(state.meta.discard.__getitem__, hand))

    def _play_context(self, state: SEState, seat: int) -> tuple[Any, ...]:
        """What working out ``seat``'s plays needs this epoch: (epoch, card ->
        its plays or None until worked out, the Disorders its Drugs may treat,
        the Disorders it may give, the Disorders its Episodes may hit in
        order, the other seats playing)."""
        info = state.psyche_info
        places = state.places
        others = []
        give_mask = 0
        episode_targets: list[int] = []
        for t in range(state.seats):
            seat_info = info[t]
            if seat_info is None:
                seat_info = info[t] = _seat_info(state, t)
            if t != seat and places[t] == 0:
                others.append(t)
                give_mask |= seat_info[0]
                episode_targets += seat_info[1]
        treat_mask = info[seat][2]
        if state.options.treat_others:
            for t in others:
                treat_mask |= info[t][2]
        table: list[tuple[Move, ...] | None] = [None] * len(state.cards)
        return (state.epoch, table, treat_mask, give_mask, episode_targets, others)

    def _card_plays(self, state: SEState, seat: int, c: int, ctx: tuple[Any, ...]) -> tuple[Move, ...]:
        """Card ``c``'s plays for ``seat`` in the epoch of ``ctx`` (see _play_context)."""
        meta = state.meta
        kind = meta.kind[c]
        row = meta.rows[c]
        if kind == _EPISODE:
            return tuple([row[d] for d in ctx[4]])
        # legal_moves has ruled out the Drugs and Disorders with no target.
        others = ctx[5]
        info = state.psyche_info
        out: list[Move] = []
        if kind == _DRUG:
            treats = meta.treats[c]
            bits = meta.bit
            targets = range(state.seats) if state.options.treat_others else (seat,)
            for t in targets:
                if state.places[t] or not info[t][2] & treats:
                    continue
                for d in info[t][1]:
                    if bits[d] == treats:
                        out.append(row[d])
        elif kind == _DISORDER:
            bit = meta.bit[c]
            for t in others:
                if bit & info[t][0]:
                    out.append(row[t])
        elif kind == _THERAPY:
            for d in info[seat][1]:
                if not meta.therapy_proof[d]:
                    out.append(row[d])
        elif kind == _MISDIAGNOSIS:
            for mine in info[seat][1]:
                for t in others:
                    for theirs in info[t][1]:
                        if _swap_ok(state, seat, mine, t, theirs):
                            out.append(PlayMisdiagnosis(c, mine, theirs))
        elif kind == _HIGH_TOLERANCE:
            for t in others:
                for _d, drug in state.psyche[t]:
                    if drug != NO_CARD:
                        out.append(row[drug])
        return tuple(out)

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
        kind = type(move)
        if id(move) not in _KNOWN_MOVES:  # the engine's own moves are well formed
            checks = _MOVE_FIELDS.get(kind)
            if checks is None:
                raise MalformedMove(f"{move!r} is not a Side Effects move.")
            for name, ok in checks:
                value = getattr(move, name)
                # Most fields are ints: test those inline, call a checker for the rest.
                if ok is _is_int:
                    if type(value) is not int:
                        raise MalformedMove(f"{kind.__name__}.{name} has the wrong type: {value!r}.")
                elif not ok(value):
                    raise MalformedMove(f"{kind.__name__}.{name} has the wrong type: {value!r}.")
        if type(seat) is not int or not 0 <= seat < state.seats:
            raise MalformedMove(f"There is no seat {seat!r} at this table of {state.seats}.")
        if state.over:
            raise GameOver("The game is over.")
        if state.places[seat]:
            raise NotYourTurn(f"Seat {seat} has already won and left the game.")
        phase = state.phase
        if phase == PLAY and seat == state.current:
            # The commonest moves first: the tests below come to the same.
            if kind is Discard:
                if move.card not in state.hands[seat]:
                    _in_hand(state, seat, move.card)  # raises, naming the card
                return None
            if kind is EndTurn:
                return None
            if kind in _PLAY_KINDS and state.plays_left > 0:
                return self._check_play(state, seat, move)
        if kind is Timeout:
            if phase != TREMORS or seat != state.prompt_seat or state.options.tremors_seconds <= 0:
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
        # PLAY, the current seat: discards, EndTurn and plays with plays left
        # were taken at the top, so only refusals are left.
        if kind in (TakeCard, TakeNothing):
            raise IllegalMove("There is no shown hand to take a card from.")
        if state.impotent:
            raise IllegalMove("Impotence: you may not play cards this turn.")
        raise IllegalMove(f"You have made your {PLAYS_PER_TURN} plays this turn.")

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
        # Withdrawing too waits: legal_moves lists no trade answer during a prompt.
        if state.phase != PLAY:
            raise IllegalMove("Trading waits until the current prompt is answered.")
        if isinstance(move, WithdrawTrade):
            if offer.seat != seat:
                raise IllegalMove(f"Offer {move.offer} is not yours to withdraw.")
            return offer
        if offer.to != seat:
            raise IllegalMove(f"Offer {move.offer} was not made to you.")
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
            card = move.card
            if state.phase == PLAY:  # the commonest move: see _discard
                state.hands[seat].remove(card)
                state.discard.append(card)
                event = _DISCARDED.get((seat, card, "free"))
                events.append(event or _DISCARDED[seat, card, "free"])
            else:
                self._discard(state, seat, card, events)
        elif kind is EndTurn:
            self._end_turn(state, events)
        elif kind in _PLAY_KINDS:
            state.plays_left -= 1
            self._play(state, seat, move, found, events)
            self._after_play(state, events)
        elif kind is TakeCard or kind is TakeNothing:
            target = state.prompt_seat
            if kind is TakeCard:
                state.hands[target].remove(move.card)
                state.hands[seat].append(move.card)
                events.append(CardsTaken.make(seat, target, (move.card,), 1, "chosen"))
            state.phase = PLAY
            state.prompt_seat = NO_CARD
            self._after_play(state, events)
        elif kind is Timeout:
            target = state.prompt_seat
            hand = state.hands[target]
            events.append(HandDiscarded.make(target, tuple(hand), TREMORS))
            state.discard.extend(hand)
            hand.clear()
            self._close_tremors(state, events)
        elif kind is OfferTrade:
            oid = state.next_offer
            state.next_offer += 1
            state.offers[oid] = _OpenOffer(seat, move.to, move.give, move.want, _hands_of(state, seat, move.to))
            events.append(TradeOffered.make(oid, seat, move.to, move.give, move.want))
        elif kind is AcceptTrade:
            self._trade(state, move.offer, found, events)
        else:  # DeclineTrade, WithdrawTrade
            del state.offers[move.offer]
            how = "declined" if kind is DeclineTrade else "withdrawn"
            events.append(TradeClosed.make(move.offer, found.seat, found.to, how))
        if state.offers:
            _lapse_offers(state, events)
        return events

    def _discard(self, state: SEState, seat: int, card: int, events: list[Event]) -> None:
        state.hands[seat].remove(card)
        state.discard.append(card)
        phase = state.phase
        if phase == TREMORS:
            events.append(_DISCARDED[seat, card, TREMORS])
            state.prompt_count -= 1
            if state.prompt_count <= 0 or not state.hands[seat]:
                self._close_tremors(state, events)
        else:  # DISCARD_DOWN (a free discard in PLAY is made in apply)
            events.append(_DISCARDED[seat, card, "hand_limit"])
            if len(state.hands[seat]) <= HAND_LIMIT:
                self._next_turn(state, events)

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
            _psyche_changed(state, target)
            events.append(_TREATED[seat, move.drug, move.disorder, target])
            self._check_win(state, target, events)
        elif kind is GiveDisorder:
            hand.remove(move.card)
            state.psyche[move.target].append([move.card, NO_CARD])
            _psyche_changed(state, move.target)
            events.append(_GIVEN[seat, move.card, move.target])
        elif kind is PlayTherapy:
            slot = found
            hand.remove(move.card)
            state.psyche[seat].remove(slot)
            _psyche_changed(state, seat)
            state.discard.append(slot[0])
            state.discard.append(move.card)
            events.append(_THERAPIES_USED[seat, move.card, move.disorder])
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
            _psyche_changed(state, seat, target)
            events.append(MisdiagnosisPlayed.make(seat, move.card, move.mine, target, move.theirs))
        else:  # PlayHighTolerance
            target, slot = found
            hand.remove(move.card)
            state.discard.append(move.card)
            state.discard.append(slot[1])
            slot[1] = NO_CARD
            _psyche_changed(state, target)
            events.append(HighTolerancePlayed.make(seat, move.card, target, move.drug))

    def _punish(self, state: SEState, seat: int, target: int, card: int, disorder: int, events: list[Event]) -> None:
        """Resolve an Episode on ``target``'s Disorder (SE7)."""
        punishment = state.cards[disorder].punishment
        hand = state.hands[target]
        drugs = tuple(s[1] for s in state.psyche[target] if s[1] != NO_CARD) if punishment == "discard_drugs" else ()
        effective = episode_bites(
            punishment, drugs=len(drugs), hand=len(hand), no_play=state.no_play[target], no_draw=state.no_draw[target]
        )
        events.append(EpisodePlayed.make(seat, card, target, disorder, punishment, effective))
        if punishment == "discard_drugs":
            for slot in state.psyche[target]:
                if slot[1] != NO_CARD:
                    state.discard.append(slot[1])
                    slot[1] = NO_CARD
            _psyche_changed(state, target)
            if drugs:
                events.append(DrugsDiscarded.make(target, drugs))
        elif punishment == "discard_hand":
            if hand:
                events.append(HandDiscarded.make(target, tuple(hand), "suicidal_thoughts"))
                state.discard.extend(hand)
                hand.clear()
        elif punishment == "skip_turn":
            state.skips[target] += 1
            events.append(_SKIPS_ADDED[target, state.skips[target]])
        elif punishment == "no_play":
            state.no_play[target] = True
            events.append(_PLAYS_BLOCKED[target])
        elif punishment == "no_draw":
            state.no_draw[target] = True
            events.append(_DRAWS_BLOCKED[target])
        elif punishment == "random_steal":
            if hand:
                taken = state.rng.sample(hand, min(STEAL_CARDS, len(hand)))
                for c in taken:
                    hand.remove(c)
                state.hands[seat].extend(taken)
                events.append(CardsTaken.make(seat, target, tuple(taken), len(taken), "random"))
        elif punishment == "reveal_and_take":
            events.append(HandShown.make(seat, target, tuple(hand), len(hand)))
            if hand:
                state.phase = ANXIETY
                state.prompt_seat = target
        elif punishment == "tremors":
            if len(hand) <= TREMORS_CARDS:
                if hand:
                    events.append(HandDiscarded.make(target, tuple(hand), TREMORS))
                    state.discard.extend(hand)
                    hand.clear()
            else:
                state.phase = TREMORS
                state.prompt_seat = target
                state.prompt_count = TREMORS_CARDS
                events.append(TremorsStarted.make(target, seat, TREMORS_CARDS, state.options.tremors_seconds))
        else:  # pragma: no cover - the loader admits only known punishments
            raise RulesError(f"unknown punishment {punishment!r}")

    def _after_play(self, state: SEState, events: list[Event]) -> None:
        """A play (and any prompt it opened) is done: end the turn after the last one."""
        if state.over or state.phase != PLAY:
            return
        if state.places[state.current]:
            self._next_turn(state, events)
        elif state.plays_left <= 0:
            self._end_turn(state, events)

    def _check_win(self, state: SEState, seat: int, events: list[Event]) -> None:
        """SE9: a player with no untreated Disorder wins at once."""
        for _d, drug in state.psyche[seat]:
            if drug == NO_CARD:
                return
        place = len(state.finish_order) + 1
        state.finish_order.append(seat)
        state.places[seat] = place
        state.epoch += 1  # who may be targeted has changed
        events.append(PlayerWon.make(seat, place))
        left = [s for s in range(state.seats) if state.places[s] == 0]
        if not state.options.until_one_loser or len(left) <= 1:
            # Everyone not placed shares the next place (the last, with one loser).
            for s in left:
                state.places[s] = place + 1
            state.over = True
            state.phase = OVER
            for oid, off in state.offers.items():
                events.append(TradeClosed.make(oid, off.seat, off.to, "lapsed"))
            state.offers.clear()
            winners = tuple(s for s in range(state.seats) if state.places[s] == 1)
            events.append(GameEnded.make(winners, left[0] if state.options.until_one_loser and left else -1))
            return
        # The winner leaves the rotation; their hand goes back into circulation.
        hand = state.hands[seat]
        if hand:
            events.append(HandDiscarded.make(seat, tuple(hand), "won"))
            state.discard.extend(hand)
            hand.clear()
        for oid in [o for o, off in state.offers.items() if seat in (off.seat, off.to)]:
            off = state.offers.pop(oid)
            events.append(TradeClosed.make(oid, off.seat, off.to, "lapsed"))

    def _end_turn(self, state: SEState, events: list[Event]) -> None:
        """SE5: discard down to the hand limit by choice, then pass the turn."""
        if len(state.hands[state.current]) > HAND_LIMIT:
            state.phase = DISCARD_DOWN
            return
        self._next_turn(state, events)

    def _next_turn(self, state: SEState, events: list[Event]) -> None:
        seat = state.current
        if not state.places[seat]:
            events.append(_TURNS_ENDED[seat])
        state.current = self._next_seat(state, seat)
        self._begin_turn(state, events)

    def _next_seat(self, state: SEState, seat: int) -> int:
        if not state.finish_order:  # everyone still plays
            return (seat + 1) % state.seats
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
            events.append(_TURNS_SKIPPED[seat, state.skips[seat]])
            seat = state.current = self._next_seat(state, seat)
        turn = state.turn = state.turn + 1
        events.append(_TURNS_STARTED[seat, turn])
        if state.no_draw[seat]:
            state.no_draw[seat] = False
            events.append(_DRAWS_PREVENTED[seat])
        else:
            _draw(state, seat, DRAW_PER_TURN, events)
        state.impotent = state.no_play[seat]
        if state.impotent:
            state.no_play[seat] = False
            state.plays_left = 0
            events.append(_PLAYS_PREVENTED[seat])
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
        events.append(TradeAccepted.make(oid, offer.seat, offer.to, offer.give, got, len(offer.give) + len(got)))

    # seeing ----------------------------------------------------------------

    def view(self, state: SEState, seat: int | None) -> SEView:
        """What ``seat`` may see; None is a spectator (public information only)."""
        if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < state.seats):
            raise MalformedMove(f"There is no seat {seat!r} at this table.")
        cards = state.cards
        players = tuple([_player_view(state, s) for s in range(state.seats)])
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
            trade_partners=_trade_partners(state, seat),
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
        global _describe
        if _describe is None:
            # side_effects_text imports this module, so it is fetched on first
            # use; the host describes every event for every seat, so only once.
            from core.side_effects_text import describe as _describe
        return _describe(self, event, names, seat)

    def sim_summary(self, records: Sequence[Any]) -> dict[str, Any]:
        """Figures for ``quackbox sim``: how long games ran."""
        turns = sorted(r.state.turn for r in records)
        return {
            "turns_median": statistics.median(turns),
            "turns_min": turns[0],
            "turns_max": turns[-1],
        }

    def move_types(self) -> tuple[type, ...]:
        return MOVE_TYPES

    def wire_types(self) -> tuple[type, ...]:
        return MOVE_TYPES + EVENT_TYPES + (SECard, Slot, PlayerView, Prompt, Offer, SEView, SEOptions, Outcome)


# --- helpers ----------------------------------------------------------------


def episode_bites(punishment: str, *, drugs: int, hand: int, no_play: bool, no_draw: bool) -> bool:
    """SE7: whether an Episode's ``punishment`` does anything to a player with
    ``drugs`` Drugs on their Psyche, ``hand`` cards in hand and these pending
    effects (a second Impotence or Anorexia before that turn adds nothing).
    Public facts only, so a table can warn before the card is spent."""
    if punishment == "discard_drugs":
        return drugs > 0
    if punishment in ("discard_hand", "tremors", "random_steal", "reveal_and_take"):
        return hand > 0
    if punishment == "no_play":
        return not no_play
    if punishment == "no_draw":
        return not no_draw
    return True


def _is_int(value: Any) -> bool:
    return type(value) is int


def _is_ints(value: Any) -> bool:
    return type(value) is tuple and all(type(v) is int for v in value)


def _is_strs(value: Any) -> bool:
    return type(value) is tuple and all(type(v) is str for v in value)


# Field type checks per move class; bools are not ints (``type(x) is int``).
_FIELD_CHECKS = {"int": _is_int, "tuple[int, ...]": _is_ints, "tuple[str, ...]": _is_strs}
_MOVE_FIELDS = {cls: tuple((f.name, _FIELD_CHECKS[f.type]) for f in fields(cls)) for cls in MOVE_TYPES}
for _move in (_END_TURN, _TAKE_NOTHING, _TIMEOUT):
    _KNOWN_MOVES[id(_move)] = _move




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


def _trade_partners(state: SEState, seat: int | None) -> tuple[int, ...]:
    """The seats ``seat`` may offer a trade to now (as _check_offer judges)."""
    if seat is None or state.over or state.phase != PLAY or state.places[seat]:
        return ()
    if sum(1 for o in state.offers.values() if o.seat == seat) >= MAX_OPEN_OFFERS:
        return ()
    return tuple(s for s in range(state.seats) if s != seat and not state.places[s])


def _other_player(state: SEState, seat: int, target: Any) -> None:
    if isinstance(target, bool) or not isinstance(target, int) or not 0 <= target < state.seats:
        raise IllegalMove(f"There is no seat {target!r} at this table.")
    if target == seat:
        raise IllegalMove("That needs another player, not yourself.")
    if not state.active(target):
        raise IllegalMove(f"Seat {target} has already won and left the game.")


def _holds(state: SEState, seat: int, name: str) -> bool:
    cards = state.cards
    for d, _g in state.psyche[seat]:
        if cards[d].name == name:
            return True
    return False


def _vulnerable(state: SEState, seat: int, name: str) -> bool:
    """SE6: some Drug now on the Psyche lists ``name`` as a side effect."""
    cards = state.cards
    for _d, g in state.psyche[seat]:
        if g != NO_CARD and name in cards[g].side_effects:
            return True
    return False


def _receivable(state: SEState, seat: int) -> int:
    """The Disorders ``seat`` can be given now, as a bit mask (SE6, no duplicates)."""
    meta = state.meta
    bits, side = meta.bit, meta.side
    held = causes = 0
    for d, g in state.psyche[seat]:
        held |= bits[d]
        if g != NO_CARD:
            causes |= side[g]
    return causes if state.options.duplicate_disorders else causes & ~held


def _psyche_changed(state: SEState, *seats: int) -> None:
    """Forget what the legal-move and view caches knew of these Psyches."""
    state.epoch += 1
    for seat in seats:
        state.psyche_info[seat] = None


def _seat_info(state: SEState, seat: int) -> tuple[int, tuple[int, ...], int]:
    """(receivable mask, untreated Disorder ids, their bit mask) for ``seat``.

    legal_moves keeps these in ``state.psyche_info`` until a play touches the
    seat's Psyche. The receivable mask is :func:`_receivable`, inlined.
    """
    meta = state.meta
    bits, side = meta.bit, meta.side
    held = causes = mask = 0
    untreated = []
    for d, g in state.psyche[seat]:
        bit = bits[d]
        held |= bit
        if g == NO_CARD:
            untreated.append(d)
            mask |= bit
        else:
            causes |= side[g]
    receivable = causes if state.options.duplicate_disorders else causes & ~held
    return receivable, tuple(untreated), mask


def _player_view(state: SEState, seat: int) -> PlayerView:
    """The public view of one seat, rebuilt only when something in it changed.

    Views are made for every bot decision; a seat's Psyche summary in
    ``psyche_info`` is replaced whenever its Psyche changes, so its identity
    tells whether the cached view is still true.
    """
    info = state.psyche_info[seat]
    if info is None:
        info = state.psyche_info[seat] = _seat_info(state, seat)
    key = (len(state.hands[seat]), state.skips[seat], state.no_play[seat], state.no_draw[seat], state.places[seat])
    cached = state.view_cache[seat]
    if cached is not None and cached[0] is info and cached[1] == key:
        return cached[2]
    cards = state.cards
    view = PlayerView(
        seat=seat,
        psyche=tuple([Slot(cards[d], cards[g] if g != NO_CARD else None) for d, g in state.psyche[seat]]),
        hand_size=key[0],
        vulnerable_to=_vulnerable_list(state, seat),
        skips=key[1],
        no_play=key[2],
        no_draw=key[3],
        place=key[4],
    )
    state.view_cache[seat] = (info, key, view)
    return view


def _can_receive(state: SEState, seat: int, name: str) -> bool:
    return bool(_receivable(state, seat) & state.meta.bit_of.get(name, 0))


def _vulnerable_list(state: SEState, seat: int) -> tuple[str, ...]:
    """The names in :func:`_receivable`, in the order the Drugs list them."""
    mask = _receivable(state, seat)
    if not mask:
        return ()
    cards = state.cards
    bit_of = state.meta.bit_of
    names: list[str] = []
    for _d, g in state.psyche[seat]:
        if g != NO_CARD:
            for name in cards[g].side_effects:
                if bit_of[name] & mask and name not in names:
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
            events.append(TradeClosed.make(oid, offer.seat, offer.to, "lapsed"))


def _draw(state: SEState, seat: int, count: int, events: list[Event]) -> None:
    """SE4: an empty draw pile is replaced by the shuffled discard pile."""
    draw = state.draw
    if len(draw) >= count:
        # The top ``count`` cards, in the order they come off the pile (its end).
        drawn = draw[len(draw) - count:]
        del draw[len(draw) - count:]
        drawn.reverse()
    else:
        drawn = []
        for _ in range(count):
            if not draw:
                if not state.discard:
                    break
                draw.extend(state.discard)
                state.discard.clear()
                state.rng.shuffle(draw)
                events.append(DeckReshuffled.make(len(draw)))
            drawn.append(draw.pop())
    state.hands[seat].extend(drawn)
    events.append(CardsDrawn.make(seat, tuple(drawn), len(drawn)))


RULES = SideEffects()
