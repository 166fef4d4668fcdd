"""Side Effects: applying moves, the turn, and the rules object.

Play: each player has a Psyche of Disorders and a hidden hand. On your turn
you draw 2 and make up to 2 plays: Treat one of your Disorders with its Drug,
give another player a Disorder their Drugs make them vulnerable to, use
Therapy on one of your Disorders, or play an Episode to trigger the
punishment of another player's untreated Disorder. The first player with no
untreated Disorder wins (rulebook, rulings SE1-SE12 of DESIGN.md).

``apply`` always checks first (:func:`verify`, the gate: the verifier of the
move's kind in :data:`MOVES`) and then carries out the plan the check
returned with the kind's ``do_*``; nothing else changes a State.
"""

from __future__ import annotations

import random
import statistics
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence, SupportsIndex, TypeVar

from quackbox.cards import side_effects as se_cards
from quackbox.core import options as option_parser
from quackbox.core.rules import (
    NONE,
    AnyMoveKind,
    BadOptions,
    Deadline,
    Event,
    LineKind,
    Memory,
    Move,
    Outcome,
    Rules,
    Verified,
    move_kind,
    move_table,
)
from quackbox.core.side_effects import legal, sampling, text
from quackbox.core.side_effects import view as se_view
from quackbox.core.side_effects.cards import Punishment, punishment
from quackbox.core.side_effects.legal import (
    EpisodePlan,
    HighTolerancePlan,
    MisdiagnosisPlan,
    TherapyPlan,
    TreatPlan,
    holds,
)
from quackbox.core.side_effects.moves import (
    EVENT_TYPES,
    MOVE_TYPES,
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
    SEMove,
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
from quackbox.core.side_effects.state import (
    ANXIETY,
    DISCARD_DOWN,
    DRAW_PER_TURN,
    GAME,
    HAND_LIMIT,
    HAND_SIZE,
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
    PsycheSlot,
    SEOptions,
    SEState,
    clone,
    new_state,
)
from quackbox.core.side_effects.view import VIEW_TYPES, SEView

if TYPE_CHECKING:
    from quackbox.core.play import GameRecord


def episode_bites(punishment: str, *, drugs: int, hand: int, no_play: bool, no_draw: bool) -> bool:
    """SE7: whether an Episode's ``punishment`` does anything to a player with
    ``drugs`` Drugs on their Psyche, ``hand`` cards in hand and these pending
    effects (a second Impotence or Anorexia before that turn adds nothing).
    Public facts only, so a table can warn before the card is spent."""
    if punishment == Punishment.DISCARD_DRUGS:
        return drugs > 0
    if punishment in (Punishment.DISCARD_HAND, Punishment.TREMORS, Punishment.RANDOM_STEAL, Punishment.REVEAL_AND_TAKE):
        return hand > 0
    if punishment == Punishment.NO_PLAY:
        return not no_play
    if punishment == Punishment.NO_DRAW:
        return not no_draw
    return True  # SKIP_TURN: a skip always stacks


def parse_options(values: object) -> SEOptions:
    """Options from plain or text values (names with ``-`` or ``_``); BadOptions if wrong."""
    return option_parser.parse(SEOptions, values, title="Side Effects")


# --- setting up -------------------------------------------------------------


def deal(state: SEState, events: list[Event]) -> None:
    """Rulebook Setup, SE2 and SE3: the Psyches, the hands, the first player and their turn."""
    rng, cards, opts, seats = state.rng, state.cards, state.options, state.seats
    disorders = [c.id for c in cards if c.kind == se_cards.DISORDER]
    others = [c.id for c in cards if c.kind != se_cards.DISORDER]
    shuffle(rng, disorders)
    size = SMALL_TABLE_PSYCHE if seats >= SMALL_PSYCHE_FROM else PSYCHE_SIZE
    # The Disorder pile's top is the end of the list; a duplicate goes to the
    # bottom (index 0) and the next card is dealt.
    for _ in range(size):
        for seat in range(seats):
            for _attempt in range(len(disorders)):
                card = disorders.pop()
                if opts.duplicate_disorders or not holds(state, seat, cards[card].name):
                    state.psyche[seat].append(PsycheSlot(card))
                    break
                disorders.insert(0, card)
            else:
                raise BadOptions("The deck has too few different Disorders to deal every Psyche.")
    state.draw = disorders + others
    shuffle(rng, state.draw)
    for _ in range(HAND_SIZE):
        for seat in range(seats):
            if state.draw:
                state.hands[seat].append(state.draw.pop())
    state.current = opts.first_seat if opts.first_seat >= 0 else rng.randrange(seats)
    events.append(GameStarted(seats=seats, first=state.current))
    begin_turn(state, events)


# --- the turn ---------------------------------------------------------------


def begin_turn(state: SEState, events: list[Event]) -> None:
    """Rulebook Turns: skip the Depressed seats (SE7); the player draws 2
    (unless Anorexic) and may make up to 2 plays (unless Impotent)."""
    state.phase = PLAY
    seat = state.current
    while state.skips[seat] > 0:
        state.skips[seat] -= 1
        events.append(TurnSkipped(seat=seat, skips_left=state.skips[seat]))
        seat = state.current = next_seat(state, seat)
    state.turn += 1
    events.append(TurnStarted(seat=seat, turn=state.turn))
    if state.no_draw[seat]:
        state.no_draw[seat] = False
        events.append(DrawPrevented(seat=seat))
    else:
        draw(state, seat, DRAW_PER_TURN, events)
    state.impotent = state.no_play[seat]
    if state.impotent:
        state.no_play[seat] = False
        state.plays_left = 0
        events.append(PlaysPrevented(seat=seat))
    else:
        state.plays_left = PLAYS_PER_TURN


def shuffle(rng: random.Random, pile: list[int]) -> None:
    """Shuffle ``pile`` in place with ``rng`` (``random.Random.shuffle``): every
    shuffle of the game, so the order a seed deals is made here only. Quack in
    the Box shuffles another way (docs/ARCHITECTURE.md says why both stay)."""
    rng.shuffle(pile)


def draw(state: SEState, seat: int, count: int, events: list[Event]) -> None:
    """SE4: draw from the top; an empty draw pile is replaced by the shuffled
    discard pile; with both empty the player draws what there is."""
    drawn: list[int] = []
    for _ in range(count):
        if not state.draw:
            if not state.discard:
                break
            state.draw.extend(state.discard)
            state.discard.clear()
            shuffle(state.rng, state.draw)
            events.append(DeckReshuffled(count=len(state.draw)))
        drawn.append(state.draw.pop())
    state.hands[seat].extend(drawn)
    events.append(CardsDrawn(seat=seat, cards=tuple(drawn), count=len(drawn)))


def after_play(state: SEState, events: list[Event]) -> None:
    """A play (and any prompt it opened) is done: the turn ends after the last
    play, or at once if the player has just won and left."""
    if state.phase != PLAY:  # a prompt is open, or the game is over
        return
    if not state.active(state.current):
        next_turn(state, events)
    elif state.plays_left <= 0:
        end_turn(state, events)


def end_turn(state: SEState, events: list[Event]) -> None:
    """SE5: discard down to the hand limit by choice, then pass the turn."""
    if len(state.hands[state.current]) > HAND_LIMIT:
        state.phase = DISCARD_DOWN
        return
    next_turn(state, events)


def next_turn(state: SEState, events: list[Event]) -> None:
    seat = state.current
    if state.active(seat):
        events.append(TurnEnded(seat=seat))
    state.current = next_seat(state, seat)
    begin_turn(state, events)


def next_seat(state: SEState, seat: int) -> int:
    """The next seat still in the game, clockwise (SE9: winners leave the rotation)."""
    following = (seat + 1) % state.seats
    while not state.active(following):  # someone is always still in the game
        following = (following + 1) % state.seats
    return following


def check_win(state: SEState, seat: int, events: list[Event]) -> None:
    """SE9 Winning: a player with no untreated Disorder wins at once. The game
    ends, or with "until one loser" the winner leaves and play goes on."""
    if legal.untreated(state, seat):
        return
    place = len(state.finish_order) + 1
    state.finish_order.append(seat)
    state.places[seat] = place
    events.append(PlayerWon(seat=seat, place=place))
    left = [s for s in range(state.seats) if state.active(s)]
    if not state.options.until_one_loser or len(left) <= 1:
        # Everyone not placed shares the next place (the last, with one loser).
        for s in left:
            state.places[s] = place + 1
        state.phase = OVER
        state.outcome = outcome(state)
        for oid, offer in state.offers.items():
            events.append(TradeClosed(offer=oid, seat=offer.seat, to=offer.to, how=TradeEnd.LAPSED))
        state.offers.clear()
        winners = tuple(s for s in range(state.seats) if state.places[s] == 1)
        events.append(GameEnded(winners=winners, loser=left[0] if state.options.until_one_loser and left else NONE))
        return
    # The winner's hand goes back into circulation, and their offers lapse.
    hand = state.hands[seat]
    if hand:
        events.append(HandDiscarded(seat=seat, cards=tuple(hand), reason=HandDiscardReason.WON))
        discard_hand(state, seat)
    for oid in [oid for oid, offer in state.offers.items() if seat in (offer.seat, offer.to)]:
        offer = state.offers.pop(oid)
        events.append(TradeClosed(offer=oid, seat=offer.seat, to=offer.to, how=TradeEnd.LAPSED))


def outcome(state: SEState) -> Outcome:
    """How a game that has just ended ended: the places (SE9)."""
    winners = tuple(s for s in range(state.seats) if state.places[s] == 1)
    if state.options.until_one_loser:
        reason = "Everyone recovered but one player."
    else:
        reason = "A player treated every Disorder on their Psyche."
    return Outcome(winners=winners, places=tuple(state.places), reason=reason)


def discard_hand(state: SEState, seat: int) -> None:
    state.discard.extend(state.hands[seat])
    state.hands[seat].clear()


# --- doing each move, from its plan -----------------------------------------


def do_discard(state: SEState, seat: int, move: Discard, plan: None, events: list[Event]) -> None:
    """SE5: a free discard, or one towards the hand limit; SE7: one towards Tremors."""
    state.hands[seat].remove(move.card)
    state.discard.append(move.card)
    if state.phase == TREMORS:
        events.append(CardDiscarded(seat=seat, card=move.card, reason=DiscardReason.TREMORS))
        state.prompt_count -= 1
        if state.prompt_count <= 0 or not state.hands[seat]:
            close_tremors(state, events)
    elif state.phase == DISCARD_DOWN:
        events.append(CardDiscarded(seat=seat, card=move.card, reason=DiscardReason.HAND_LIMIT))
        if len(state.hands[seat]) <= HAND_LIMIT:
            next_turn(state, events)
    else:
        events.append(CardDiscarded(seat=seat, card=move.card, reason=DiscardReason.FREE))


def do_end_turn(state: SEState, seat: int, move: EndTurn, plan: None, events: list[Event]) -> None:
    end_turn(state, events)


def do_treat(state: SEState, seat: int, move: Treat, plan: TreatPlan, events: list[Event]) -> None:
    """Rulebook Treat a Disorder: the Drug goes on top of it (SE11: perhaps another's)."""
    state.hands[seat].remove(move.drug)
    state.psyche[plan.target][plan.slot].drug = move.drug
    events.append(DisorderTreated(seat=seat, drug=move.drug, disorder=move.disorder, target=plan.target))
    check_win(state, plan.target, events)


def do_give_disorder(state: SEState, seat: int, move: GiveDisorder, plan: None, events: list[Event]) -> None:
    """Rulebook Give a Disorder: it joins the target's Psyche, untreated."""
    state.hands[seat].remove(move.card)
    state.psyche[move.target].append(PsycheSlot(move.card))
    events.append(DisorderGiven(seat=seat, card=move.card, target=move.target))


def do_therapy(state: SEState, seat: int, move: PlayTherapy, plan: TherapyPlan, events: list[Event]) -> None:
    """SE8: the Disorder and the Therapy go to the discard pile."""
    state.hands[seat].remove(move.card)
    removed = state.psyche[seat].pop(plan.slot)
    state.discard.append(removed.disorder)
    state.discard.append(move.card)
    events.append(TherapyUsed(seat=seat, card=move.card, disorder=move.disorder))
    check_win(state, seat, events)


def do_episode(state: SEState, seat: int, move: PlayEpisode, plan: EpisodePlan, events: list[Event]) -> None:
    state.hands[seat].remove(move.card)
    state.discard.append(move.card)
    punish(state, seat, plan.target, move.card, move.disorder, events)


def do_misdiagnosis(
    state: SEState, seat: int, move: PlayMisdiagnosis, plan: MisdiagnosisPlan, events: list[Event]
) -> None:
    """SE12 Misdiagnosis: the two untreated Disorders change Psyches."""
    state.hands[seat].remove(move.card)
    state.discard.append(move.card)
    mine, theirs = state.psyche[seat][plan.mine], state.psyche[plan.target][plan.theirs]
    mine.disorder, theirs.disorder = theirs.disorder, mine.disorder
    events.append(MisdiagnosisPlayed(seat=seat, card=move.card, mine=move.mine, target=plan.target, theirs=move.theirs))


def do_high_tolerance(
    state: SEState, seat: int, move: PlayHighTolerance, plan: HighTolerancePlan, events: list[Event]
) -> None:
    """SE12 High Tolerance: the Drug is discarded; its Disorder is untreated again."""
    state.hands[seat].remove(move.card)
    state.discard.append(move.card)
    state.discard.append(move.drug)
    state.psyche[plan.target][plan.slot].drug = NONE
    events.append(HighTolerancePlayed(seat=seat, card=move.card, target=plan.target, drug=move.drug))


def do_take(state: SEState, seat: int, move: TakeCard | TakeNothing, plan: None, events: list[Event]) -> None:
    """SE7 Anxiety: the inflictor takes the card (or nothing); their turn goes on."""
    target = state.prompt_seat
    if type(move) is TakeCard:
        state.hands[target].remove(move.card)
        state.hands[seat].append(move.card)
        events.append(CardsTaken(seat=seat, target=target, cards=(move.card,), count=1, how=Taking.CHOSEN))
    state.phase = PLAY
    state.prompt_seat = NONE
    after_play(state, events)


def do_timeout(state: SEState, seat: int, move: Timeout, plan: None, events: list[Event]) -> None:
    """SE7 Tremors: time ran out, so the target discards their whole hand."""
    target = state.prompt_seat
    events.append(HandDiscarded(seat=target, cards=tuple(state.hands[target]), reason=HandDiscardReason.TREMORS))
    discard_hand(state, target)
    close_tremors(state, events)


def close_tremors(state: SEState, events: list[Event]) -> None:
    """SE7 Tremors is answered: the inflictor's turn goes on."""
    state.phase = PLAY
    state.prompt_seat = NONE
    state.prompt_count = 0
    after_play(state, events)


def do_offer(state: SEState, seat: int, move: OfferTrade, plan: None, events: list[Event]) -> None:
    oid = state.next_offer
    state.next_offer += 1
    state.offers[oid] = OpenOffer(
        seat=seat, to=move.to, give=move.give, want=move.want, hands_then=hands_of(state, seat, move.to)
    )
    events.append(TradeOffered(offer=oid, seat=seat, to=move.to, give=move.give, want=move.want))


def do_accept(state: SEState, seat: int, move: AcceptTrade, offer: OpenOffer, events: list[Event]) -> None:
    """SE10: the offered cards for the wanted ones; never a play, never into play."""
    del state.offers[move.offer]
    giver, taker = state.hands[offer.seat], state.hands[offer.to]
    got = pick_named(state, offer.to, offer.want)
    for card in offer.give:
        giver.remove(card)
        taker.append(card)
    for card in got:
        taker.remove(card)
        giver.append(card)
    events.append(
        TradeAccepted(
            offer=move.offer, seat=offer.seat, to=offer.to, gave=offer.give, got=got, count=len(offer.give) + len(got)
        )
    )


def do_close(
    state: SEState, seat: int, move: DeclineTrade | WithdrawTrade, offer: OpenOffer, events: list[Event]
) -> None:
    del state.offers[move.offer]
    how = TradeEnd.DECLINED if type(move) is DeclineTrade else TradeEnd.WITHDRAWN
    events.append(TradeClosed(offer=move.offer, seat=offer.seat, to=offer.to, how=how))


def punish(state: SEState, seat: int, target: int, card: int, disorder: int, events: list[Event]) -> None:
    """SE7: resolve an Episode played by ``seat`` on ``target``'s Disorder ``disorder``."""
    what = punishment(state.cards[disorder])
    hand = state.hands[target]
    drugs = tuple([slot.drug for slot in state.psyche[target] if slot.drug != NONE])
    effective = episode_bites(
        what, drugs=len(drugs), hand=len(hand), no_play=state.no_play[target], no_draw=state.no_draw[target]
    )
    events.append(
        EpisodePlayed(seat=seat, card=card, target=target, disorder=disorder, punishment=what, effective=effective)
    )
    if what == Punishment.DISCARD_DRUGS:
        for slot in state.psyche[target]:
            slot.drug = NONE
        state.discard.extend(drugs)
        if drugs:
            events.append(DrugsDiscarded(seat=target, cards=drugs))
    elif what == Punishment.DISCARD_HAND:
        if hand:
            events.append(HandDiscarded(seat=target, cards=tuple(hand), reason=HandDiscardReason.SUICIDAL_THOUGHTS))
            discard_hand(state, target)
    elif what == Punishment.SKIP_TURN:
        state.skips[target] += 1
        events.append(SkipAdded(seat=target, skips=state.skips[target]))
    elif what == Punishment.NO_PLAY:
        state.no_play[target] = True
        events.append(PlaysBlocked(seat=target))
    elif what == Punishment.NO_DRAW:
        state.no_draw[target] = True
        events.append(DrawBlocked(seat=target))
    elif what == Punishment.RANDOM_STEAL:
        if hand:
            taken = state.rng.sample(hand, min(STEAL_CARDS, len(hand)))
            for c in taken:
                hand.remove(c)
            state.hands[seat].extend(taken)
            events.append(CardsTaken(seat=seat, target=target, cards=tuple(taken), count=len(taken), how=Taking.RANDOM))
    elif what == Punishment.REVEAL_AND_TAKE:
        events.append(HandShown(seat=seat, target=target, cards=tuple(hand), count=len(hand)))
        if hand:
            state.phase = ANXIETY
            state.prompt_seat = target
    elif what == Punishment.TREMORS:
        if len(hand) > TREMORS_CARDS:
            state.phase = TREMORS
            state.prompt_seat = target
            state.prompt_count = TREMORS_CARDS
            events.append(
                TremorsStarted(seat=target, inflictor=seat, count=TREMORS_CARDS, seconds=state.options.tremors_seconds)
            )
        elif hand:
            events.append(HandDiscarded(seat=target, cards=tuple(hand), reason=HandDiscardReason.TREMORS))
            discard_hand(state, target)


# --- trades -----------------------------------------------------------------


def hands_of(state: SEState, a: int, b: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    return tuple(sorted(state.hands[a])), tuple(sorted(state.hands[b]))


def pick_named(state: SEState, seat: int, want: tuple[str, ...]) -> tuple[int, ...]:
    """The lowest-id cards of ``seat``'s hand answering ``want`` (all copies are alike)."""
    pool = sorted(state.hands[seat])
    got: list[int] = []
    for name in want:
        for card in pool:
            if state.cards[card].name == name and card not in got:
                got.append(card)
                break
    return tuple(got)


def lapse_offers(state: SEState, events: list[Event]) -> None:
    """SE10: an offer lapses when either hand has changed since it was made."""
    for oid in list(state.offers):
        offer = state.offers[oid]
        if hands_of(state, offer.seat, offer.to) != offer.hands_then:
            del state.offers[oid]
            events.append(TradeClosed(offer=oid, seat=offer.seat, to=offer.to, how=TradeEnd.LAPSED))


M = TypeVar("M", bound=Move)
P = TypeVar("P")


def a_play(do: Callable[[SEState, int, M, P, list[Event]], None]) -> Callable[[SEState, int, M, P, list[Event]], None]:
    """``do`` as one of the turn's plays (rulebook Turns): each uses up one of
    the turn's plays, and the turn ends after the last."""

    def play(state: SEState, seat: int, move: M, plan: P, events: list[Event]) -> None:
        state.plays_left -= 1
        do(state, seat, move, plan, events)
        after_play(state, events)

    return play


MOVES: Mapping[type[Move], AnyMoveKind[SEState]] = move_table(
    move_kind(Treat, legal.verify_treat, a_play(do_treat)),
    move_kind(GiveDisorder, legal.verify_give_disorder, a_play(do_give_disorder)),
    move_kind(PlayTherapy, legal.verify_therapy, a_play(do_therapy)),
    move_kind(PlayEpisode, legal.verify_episode, a_play(do_episode)),
    move_kind(PlayMisdiagnosis, legal.verify_misdiagnosis, a_play(do_misdiagnosis)),
    move_kind(PlayHighTolerance, legal.verify_high_tolerance, a_play(do_high_tolerance)),
    move_kind(Discard, legal.verify_discard, do_discard),
    move_kind(EndTurn, legal.verify_end_turn, do_end_turn),
    move_kind(TakeCard, legal.verify_take_card, do_take),
    move_kind(TakeNothing, legal.verify_take_nothing, do_take),
    move_kind(OfferTrade, legal.verify_offer, do_offer),
    move_kind(AcceptTrade, legal.verify_answer, do_accept),
    move_kind(DeclineTrade, legal.verify_answer, do_close),
    move_kind(WithdrawTrade, legal.verify_answer, do_close),
    move_kind(Timeout, legal.verify_timeout, do_timeout),
)
"""Every kind of move: its class, its verifier (core.side_effects.legal) and the function that makes it."""


def verify(state: SEState, seat: Any, move: Move) -> Verified[SEState]:
    """The legality gate: refuse ``move`` by ``seat`` with a RulesError, or
    return it with its plan (what applying it needs), ready to be made."""
    legal.verify_seat(state, seat, move)
    return MOVES[type(move)].check(state, seat, move)


# --- the rules object -------------------------------------------------------


class SideEffects:
    """The Side Effects rules object (see core.rules.Rules)."""

    name = GAME
    title = "Side Effects"
    min_seats = 2
    max_seats = 8
    options_type = SEOptions

    def __reduce_ex__(self, protocol: SupportsIndex) -> str | tuple[Any, ...]:
        """The game's own rules object pickles by name (a bot sent to think in another
        process carries its rules so, not its card tables); another one (a test's deck)
        pickles whole."""
        from quackbox.core.games import get

        if get(self.name) is self:
            return get, (self.name,)
        return super().__reduce_ex__(protocol)

    def __init__(self, deck: se_cards.Deck | None = None) -> None:
        self.deck = deck if deck is not None else se_cards.load()
        # Bonus cards come last in the data, so ids agree with or without them.
        self._decks = {bonus: self.deck.build(bonus=bonus) for bonus in (False, True)}
        self._names = tuple(c.name for c in self._decks[True])
        self._deck_views = {
            bonus: se_view.DeckViews(deck, legal.MoveTable(deck, self.max_seats)) for bonus, deck in self._decks.items()
        }

    def _deck_of(self, state: SEState) -> se_view.DeckViews:
        """The move table and view parts of the deck ``state`` is played with."""
        return self._deck_views[state.options.bonus_cards]

    def card_name(self, card_id: int) -> str:
        """The name of card ``card_id`` (for sentences; ids are public)."""
        return self._names[card_id] if 0 <= card_id < len(self._names) else f"card {card_id}"

    def default_options(self) -> SEOptions:
        return SEOptions()

    def parse_options(self, values: object) -> SEOptions:
        return parse_options(values)

    def new_game(self, *, seats: int, options: Any = None, seed: int) -> SEState:
        """Deal a new game (rulebook Setup, SE2, SE3)."""
        if isinstance(seats, bool) or not isinstance(seats, int) or not self.min_seats <= seats <= self.max_seats:
            raise BadOptions(f"Side Effects is for {self.min_seats} to {self.max_seats} players, not {seats!r}.")
        opts = parse_options(options)
        if opts.first_seat >= seats:
            raise BadOptions(f"Option first-seat must be a seat from 0 to {seats - 1}, not {opts.first_seat}.")
        state = new_state(seats, opts, random.Random(seed), self._decks[opts.bonus_cards])
        events: list[Event] = []
        deal(state, events)
        state.start_events = tuple(events)
        return state

    def clone(self, state: SEState) -> SEState:
        return clone(state)

    def deck_cards(self, options: SEOptions) -> tuple[se_cards.SECard, ...]:
        """The physical cards of a game with ``options`` (with or without the bonus cards)."""
        return self._decks[options.bonus_cards]

    def sample(self, view: SEView, rng: random.Random, memory: Memory | None = None) -> SEState:
        """A State consistent with ``view`` and ``memory`` (a Side Effects memory), the
        unseen cards dealt by ``rng`` (:func:`quackbox.core.side_effects.sampling.sample`)."""
        own = memory if isinstance(memory, sampling.Memory) else None
        return sampling.sample(view, rng, self.deck_cards(view.options), own)

    def memory(self, seat: int) -> sampling.Memory:
        """A new record of what ``seat`` sees over a game, for :meth:`sample`."""
        return sampling.Memory(seat, self)

    def legal_moves(self, state: SEState, seat: int) -> tuple[SEMove, ...]:
        """Every move ``seat`` may make now (order: :mod:`quackbox.core.side_effects.legal`)."""
        return legal.legal_moves(state, seat, self._deck_of(state).moves)

    def check(self, state: SEState, seat: int, move: Move) -> None:
        """Raise a RulesError with a plain sentence if the move is not allowed."""
        verify(state, seat, move)

    def apply(self, state: SEState, seat: int, move: Move) -> list[Event]:
        """Check ``move``, then make it from its plan; return the events (unredacted)."""
        verified = verify(state, seat, move)
        events: list[Event] = []
        verified.do(state, seat, events)
        if state.offers:
            lapse_offers(state, events)
        return events

    waiting_for = staticmethod(legal.waiting_for)

    def deadline(self, state: SEState) -> Deadline | None:
        """SE7 Tremors: the target's time to pick their discards, if the option sets one."""
        if state.phase == TREMORS and state.options.tremors_seconds > 0:
            return Deadline(state.prompt_seat, state.options.tremors_seconds, TREMORS, Timeout())
        return None

    def outcome(self, state: SEState) -> Outcome | None:
        return state.outcome

    def view(self, state: SEState, seat: int | None) -> SEView:
        return se_view.view(state, seat, self._deck_of(state))

    def views(self, state: SEState, seats: Sequence[int | None]) -> tuple[SEView, ...]:
        return se_view.views(state, seats, self._deck_of(state))

    redact = staticmethod(se_view.redact)

    def describe(self, event: Event, names: Sequence[str], seat: int | None = None) -> str:
        return text.describe(event, names, seat, self._decks[True])

    def line_kind(self, event: Event, seat: int | None = None) -> LineKind:
        return text.LOG.line_kind(event, seat)

    sim_needs_events = False
    """``quackbox sim``'s figures for this game read the final States only."""

    def sim_summary(self, records: Sequence[GameRecord]) -> dict[str, Any]:
        """Figures for ``quackbox sim``: how long games ran."""
        turns = sorted(r.state.turn for r in records)
        return {"turns_median": statistics.median(turns), "turns_min": turns[0], "turns_max": turns[-1]}

    def move_types(self) -> tuple[type[Move], ...]:
        return MOVE_TYPES

    def unlisted_moves(self) -> tuple[type[Move], ...]:
        """SE10: an OfferTrade is legal whenever ``trade_partners`` is not empty,
        but never listed: its space is every subset of a hand."""
        return (OfferTrade,)

    def timeout_moves(self) -> tuple[type[Move], ...]:
        """The Tremors Timeout (``deadline``)."""
        return (Timeout,)

    def wire_types(self) -> tuple[type, ...]:
        return MOVE_TYPES + EVENT_TYPES + VIEW_TYPES + (SEOptions, Outcome)

    def wire_refs(self) -> Mapping[type, Sequence[Any]]:
        """Cards travel by id: every card of the bonus deck, whose first cards
        are the base deck's, id for id (bonus cards come last in the data)."""
        return {se_cards.SECard: self._decks[True]}


RULES = SideEffects()
_CONFORMS: Rules[SEState, SEView, SEMove] = RULES
"""The type checker holds the rules object to the Rules interface here."""
