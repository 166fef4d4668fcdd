"""What a seat may do now: the legal moves, and the one check of every move.

:func:`legal_moves` lists a seat's moves in this order (bots, tests and the
TUI rely on it):

- Tremors (SE7): the target's Discard of each card, by hand order.
- Anxiety (SE7): the inflictor's TakeCard of each shown card, by the shown
  hand's order, then TakeNothing.
- Discarding down (SE5): the current seat's Discard of each card, by hand order.
- Play, for the current seat: its plays by hand order, each card's plays by
  target in seat order and then Psyche order (Treat, GiveDisorder,
  PlayTherapy, PlayEpisode, PlayMisdiagnosis or PlayHighTolerance, whichever
  the card allows); then Discard by hand order; then EndTurn; then its
  answers to trade offers.
- Play, for every other seat still in the game: its answers to trade offers.

Answers to trade offers come by offer id: AcceptTrade (while the seat holds
the cards wanted) and DeclineTrade for an offer made to it, WithdrawTrade for
its own. OfferTrade is legal whenever trading is open but is not listed: its
space is every subset of a hand (:func:`trade_partners` says to whom).

Each kind of move has one verifier (``verify_*``), run after
:func:`verify_seat`: it raises a RulesError with a plain sentence, or returns
the plan of the move, the frozen value ``apply`` consumes (what the check
found: the Disorder's place on a Psyche, the offer being answered), or None
when the move and the State say everything. ``core.side_effects.rules.MOVES``
pairs each verifier with the ``do_*`` function that makes the move.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Collection, Iterable, Sequence

from quackbox.cards import side_effects as se_cards
from quackbox.cards.side_effects import SECard
from quackbox.core.rules import NONE, GameOver, IllegalMove, MalformedMove, MoveForms, NotYourTurn, seat_text
from quackbox.core.side_effects.cards import therapy_works_on
from quackbox.core.side_effects.moves import (
    MOVE_TYPES,
    PLAY_TYPES,
    AcceptTrade,
    DeclineTrade,
    Discard,
    EndTurn,
    GiveDisorder,
    OfferTrade,
    PlayEpisode,
    PlayHighTolerance,
    PlayMisdiagnosis,
    PlayTherapy,
    SEMove,
    TakeCard,
    TakeNothing,
    Timeout,
    Treat,
    WithdrawTrade,
)
from quackbox.core.side_effects.state import (
    ANXIETY,
    DISCARD_DOWN,
    HAND_LIMIT,
    MAX_OPEN_OFFERS,
    OVER,
    PLAY,
    PLAYS_PER_TURN,
    TREMORS,
    OpenOffer,
    SEState,
)

# --- what a Psyche allows ---------------------------------------------------


def untreated(state: SEState, seat: int) -> list[int]:
    """The ids of ``seat``'s untreated Disorders, in Psyche order."""
    return [slot.disorder for slot in state.psyche[seat] if slot.drug == NONE]


def held(state: SEState, seat: int) -> set[str]:
    """The names of the Disorders on ``seat``'s Psyche, treated or not."""
    cards = state.cards
    return {cards[slot.disorder].name for slot in state.psyche[seat]}


def holds(state: SEState, seat: int, name: str) -> bool:
    """Whether a Disorder called ``name`` is on ``seat``'s Psyche, treated or not."""
    cards = state.cards
    for slot in state.psyche[seat]:
        if cards[slot.disorder].name == name:
            return True
    return False


def may_hold_another(state: SEState, seat: int, name: str) -> bool:
    """Rulebook Setup: a Psyche never holds the same Disorder twice (unless SE11's house rule)."""
    return state.options.duplicate_disorders or not holds(state, seat, name)


def vulnerability(side_effects: Iterable[Sequence[str]]) -> list[str]:
    """SE6 Vulnerability of a Psyche whose Drugs have these ``side_effects`` (one list
    per Drug): every side effect once, in the order the Drugs list them."""
    names: list[str] = []
    for listed in side_effects:
        for name in listed:
            if name not in names:
                names.append(name)
    return names


def open_to(vulnerable: Sequence[str], holding: Collection[str], *, duplicates: bool) -> tuple[str, ...]:
    """The Disorders a seat can be given: its vulnerability ``vulnerable``, less those on its
    Psyche (``holding``), which it may not hold twice unless SE11's duplicate Disorders."""
    if duplicates:
        return tuple(vulnerable)
    return tuple([name for name in vulnerable if name not in holding])


def side_effects_on(state: SEState, seat: int) -> list[str]:
    """SE6 Vulnerability: the side effects of the Drugs on ``seat``'s Psyche now,
    each once, in the order the Drugs list them."""
    cards = state.cards
    return vulnerability(cards[slot.drug].side_effects for slot in state.psyche[seat] if slot.drug != NONE)


def vulnerable_to(state: SEState, seat: int) -> tuple[str, ...]:
    """The Disorders ``seat`` can be given now: its vulnerability, less those
    it may not hold twice (:func:`may_hold_another`)."""
    names = side_effects_on(state, seat)
    if not names:
        return ()
    return open_to(names, held(state, seat), duplicates=state.options.duplicate_disorders)


def swap_allowed(state: SEState, seat: int, mine: int, target: int, theirs: int) -> bool:
    """SE12 Misdiagnosis: the swap may leave no duplicate on either Psyche."""
    mine_name, theirs_name = state.cards[mine].name, state.cards[theirs].name
    if mine_name == theirs_name:
        return True
    return may_hold_another(state, seat, theirs_name) and may_hold_another(state, target, mine_name)


def opponents(state: SEState, seat: int) -> list[int]:
    """The other seats still in the game (no place yet), in seat order: who a card may target."""
    return [t for t in range(state.seats) if t != seat and state.places[t] == 0]


def cards_lacking(hand: Sequence[str], want: Sequence[str]) -> tuple[str, ...]:
    """SE10: the names in ``want`` that a hand of cards called ``hand`` cannot give (copies
    counted: a second Lithium asked for needs a second in hand). An offer can be accepted
    only when none lack; a table may say which from its own hand, before anyone tries."""
    pool = list(hand)
    lacking: list[str] = []
    for name in want:
        if name in pool:
            pool.remove(name)
        else:
            lacking.append(name)
    return tuple(lacking)


def has_cards_named(state: SEState, seat: int, want: tuple[str, ...]) -> bool:
    """Whether ``seat``'s hand holds a card for every name in ``want`` (copies counted)."""
    return not cards_lacking([state.cards[c].name for c in state.hands[seat]], want)


def open_offers(state: SEState, seat: int) -> int:
    """How many offers ``seat`` has made that are still open."""
    return sum(1 for offer in state.offers.values() if offer.seat == seat)


def trade_partners(state: SEState, seat: int | None) -> tuple[int, ...]:
    """The seats ``seat`` may offer a trade to now (SE10; as :func:`verify_offer` judges)."""
    if seat is None or state.phase != PLAY or not state.active(seat):
        return ()
    if open_offers(state, seat) >= MAX_OPEN_OFFERS:
        return ()
    return tuple(opponents(state, seat))


# --- the legal moves --------------------------------------------------------


def waiting_for(state: SEState) -> tuple[int, ...]:
    """The seat the game needs a move from: the Tremors target, else the current seat."""
    if state.phase == OVER:
        return ()
    if state.phase == TREMORS:
        return (state.prompt_seat,)
    return (state.current,)


class MoveTable:
    """Every move :func:`legal_moves` can list for one deck but a Misdiagnosis
    and the answers to trade offers, made once.

    Moves are frozen values, so every game of the deck may be handed the same
    ones; and making a frozen dataclass costs about as much as the rest of
    listing it. So the Rules object makes them all when it is built (the deck
    and the most seats there can be are known then), and nothing writes the
    table afterwards (as :class:`quackbox.core.quack.legal.MoveTable`).
    """

    def __init__(self, cards: Sequence[SECard], max_seats: int) -> None:
        def of(kind: str) -> list[SECard]:
            return [c for c in cards if c.kind == kind]

        disorders, drugs = of(se_cards.DISORDER), of(se_cards.DRUG)
        self.end_turn = EndTurn()
        self.take_nothing = TakeNothing()
        self.discard = {c.id: Discard(c.id) for c in cards}
        self.take = {c.id: TakeCard(c.id) for c in cards}
        self.treat = {(d.id, x.id): Treat(d.id, x.id) for d in drugs for x in disorders if x.name == d.treats}
        """By (Drug, Disorder): only the pairs where the Drug treats the Disorder."""
        self.give = {(c.id, t): GiveDisorder(c.id, t) for c in disorders for t in range(max_seats)}
        """By (Disorder, target seat)."""
        self.therapy = {(c.id, x.id): PlayTherapy(c.id, x.id) for c in of(se_cards.THERAPY) for x in disorders}
        self.episode = {(c.id, x.id): PlayEpisode(c.id, x.id) for c in of(se_cards.EPISODE) for x in disorders}
        self.high_tolerance = {
            (c.id, d.id): PlayHighTolerance(c.id, d.id) for c in of(se_cards.HIGH_TOLERANCE) for d in drugs
        }


def legal_moves(
    state: SEState, seat: int, table: MoveTable, vulnerable: Sequence[tuple[str, ...]] | None = None
) -> tuple[SEMove, ...]:
    """Every move ``seat`` may make now, in the order of the module docstring, as ``table`` holds them.
    ``vulnerable`` is every seat's :func:`vulnerable_to`, if the caller has worked it out already."""
    if state.phase == OVER or not 0 <= seat < state.seats or not state.active(seat):
        return ()
    phase = state.phase
    hand = state.hands[seat]
    discard = table.discard
    if phase == TREMORS:
        return tuple([discard[c] for c in hand]) if seat == state.prompt_seat else ()
    if seat != state.current:
        return trade_answers(state, seat) if phase == PLAY else ()
    if phase == ANXIETY:
        return (*[table.take[c] for c in state.hands[state.prompt_seat]], table.take_nothing)
    if phase == DISCARD_DOWN:
        return tuple([discard[c] for c in hand])
    moves: list[SEMove] = []
    if state.plays_left > 0:
        others = opponents(state, seat)
        # SE6: what each opponent can be given, worked out once for all the Disorders in hand.
        cards = state.cards
        gives = any(cards[c].kind == se_cards.DISORDER for c in hand)
        if not gives:
            open_to = {}
        elif vulnerable is not None:
            open_to = {t: vulnerable[t] for t in others}
        else:
            open_to = {t: vulnerable_to(state, t) for t in others}
        for card in hand:
            moves += plays_of(state, seat, card, others, open_to, table)
    moves += [discard[c] for c in hand]
    moves.append(table.end_turn)
    if state.offers:
        moves += trade_answers(state, seat)
    return tuple(moves)


def plays_of(
    state: SEState, seat: int, card: int, others: list[int], open_to: dict[int, tuple[str, ...]], table: MoveTable
) -> list[SEMove]:
    """The plays of ``card`` in ``seat``'s hand; ``others`` are its opponents,
    ``open_to`` gives each one's :func:`vulnerable_to` if ``card`` is a Disorder.
    (A Disorder is untreated while no Drug is on it: ``slot.drug == NONE``.)"""
    cards = state.cards
    this = cards[card]
    kind = this.kind
    psyche = state.psyche
    if kind == se_cards.DRUG:
        # Rulebook Treat a Disorder: your own; SE11's house rule: anyone's still in the game.
        patients = [t for t in range(state.seats) if state.active(t)] if state.options.treat_others else (seat,)
        return [
            table.treat[card, slot.disorder]
            for t in patients
            for slot in psyche[t]
            if slot.drug == NONE and cards[slot.disorder].name == this.treats
        ]
    if kind == se_cards.DISORDER:
        # Rulebook Give a Disorder: to a player vulnerable to it (SE6) who may hold another.
        return [table.give[card, t] for t, names in open_to.items() if this.name in names]
    if kind == se_cards.THERAPY:
        return [
            table.therapy[card, slot.disorder]
            for slot in psyche[seat]
            if slot.drug == NONE and therapy_works_on(cards[slot.disorder])
        ]
    if kind == se_cards.EPISODE:
        return [table.episode[card, slot.disorder] for t in others for slot in psyche[t] if slot.drug == NONE]
    if kind == se_cards.MISDIAGNOSIS:
        return [
            PlayMisdiagnosis(card, mine, theirs)
            for mine in untreated(state, seat)
            for t in others
            for theirs in untreated(state, t)
            if swap_allowed(state, seat, mine, t, theirs)
        ]
    if kind == se_cards.HIGH_TOLERANCE:
        return [table.high_tolerance[card, slot.drug] for t in others for slot in psyche[t] if slot.drug != NONE]
    return []


def trade_answers(state: SEState, seat: int) -> tuple[SEMove, ...]:
    """``seat``'s answers to the open offers, by offer id."""
    moves: list[SEMove] = []
    for oid, offer in state.offers.items():
        if offer.to == seat:
            if has_cards_named(state, seat, offer.want):
                moves.append(AcceptTrade(oid))
            moves.append(DeclineTrade(oid))
        elif offer.seat == seat:
            moves.append(WithdrawTrade(oid))
    return tuple(moves)


# --- plans: what a check found, for applying the move -----------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class TreatPlan:
    """The Disorder treated is ``psyche[target][slot]``."""

    target: int
    slot: int


@dataclass(frozen=True, slots=True, kw_only=True)
class TherapyPlan:
    """The Disorder removed is ``psyche[seat][slot]`` of the player."""

    slot: int


@dataclass(frozen=True, slots=True, kw_only=True)
class EpisodePlan:
    """The Episode's Disorder is on ``target``'s Psyche."""

    target: int


@dataclass(frozen=True, slots=True, kw_only=True)
class MisdiagnosisPlan:
    """Swap ``psyche[seat][mine]`` with ``psyche[target][theirs]``."""

    target: int
    mine: int
    theirs: int


@dataclass(frozen=True, slots=True, kw_only=True)
class HighTolerancePlan:
    """The Drug discarded treats ``psyche[target][slot]``."""

    target: int
    slot: int


# --- the legality gate ------------------------------------------------------


FORMS = MoveForms(MOVE_TYPES, "Side Effects")
"""Each move's fields: ``int``, ``tuple[int, ...]`` (cards) or ``tuple[str, ...]`` (card names)."""


def verify_seat(state: SEState, seat: Any, move: Any) -> None:
    """What every move must pass before its own verifier: a move of this game
    with fields of the right types, from a seat still in a game not over, at
    its time (the turn's moves on the turn, a prompt's answers to the prompt)."""
    FORMS.check(move)
    if type(seat) is not int or not 0 <= seat < state.seats:
        raise MalformedMove(f"There is no {seat_text(seat)} at this table of {state.seats}.")
    if state.phase == OVER:
        raise GameOver("The game is over.")
    if not state.active(seat):
        raise NotYourTurn(f"{seat_text(seat).capitalize()} has already won and left the game.")
    kind = type(move)
    if kind not in _ANY_TIME:
        _verify_timing(state, seat, kind)


def _verify_timing(state: SEState, seat: int, kind: type) -> None:
    """Whether a move of ``kind`` is ``seat``'s to make in this phase: a play,
    a discard, EndTurn or an answer to a prompt (not trades, not the timeout)."""
    phase = state.phase
    if phase == TREMORS:
        if seat != state.prompt_seat:
            raise NotYourTurn(f"The game is waiting for {seat_text(state.prompt_seat)} to discard for Tremors.")
        if kind is not Discard:
            raise IllegalMove("Tremors: you must discard cards from your hand now.")
        return
    if seat != state.current:
        raise NotYourTurn(f"It is {seat_text(state.current)}'s turn, not {seat_text(seat)}'s.")
    if phase == ANXIETY:
        if kind is not TakeCard and kind is not TakeNothing:
            raise IllegalMove("Anxiety: take one card from the hand you were shown, or take nothing.")
        return
    if phase == DISCARD_DOWN:
        if kind is not Discard:
            raise IllegalMove(f"You hold more than {HAND_LIMIT} cards: discard down to {HAND_LIMIT} first.")
        return
    if kind is TakeCard or kind is TakeNothing:
        raise IllegalMove("There is no shown hand to take a card from.")
    if kind in PLAY_TYPES and state.plays_left <= 0:
        if state.impotent:
            raise IllegalMove("Impotence: you may not play cards this turn.")
        raise IllegalMove(f"You have made your {PLAYS_PER_TURN} plays this turn.")


# One verifier per kind of move (core.side_effects.rules.MOVES pairs each with
# the do_* function that makes the move): each runs after verify_seat and
# returns the move's plan.


def verify_discard(state: SEState, seat: int, move: Discard) -> None:
    _in_hand(state, seat, move.card)


def verify_end_turn(state: SEState, seat: int, move: EndTurn) -> None:
    return None


def verify_take_card(state: SEState, seat: int, move: TakeCard) -> None:
    if move.card not in state.hands[state.prompt_seat]:
        raise IllegalMove(f"Card {move.card} is not in the hand you were shown.")


def verify_take_nothing(state: SEState, seat: int, move: TakeNothing) -> None:
    return None


def verify_treat(state: SEState, seat: int, move: Treat) -> TreatPlan:
    drug = _in_hand(state, seat, move.drug)
    if drug.kind != se_cards.DRUG:
        raise IllegalMove(f"{drug.name} is not a Drug.")
    target, slot = _find_disorder(state, move.disorder)
    if target != seat and not state.options.treat_others:
        raise IllegalMove("You may only treat Disorders on your own Psyche (house rule off).")
    if not state.active(target):
        raise IllegalMove(f"{seat_text(target).capitalize()} has left the game.")
    disorder = state.cards[move.disorder]
    if state.psyche[target][slot].drug != NONE:
        raise IllegalMove(f"That {disorder.name} is already treated.")
    if disorder.name != drug.treats:
        raise IllegalMove(f"{drug.name} treats {drug.treats}, not {disorder.name}.")
    return TreatPlan(target=target, slot=slot)


def verify_give_disorder(state: SEState, seat: int, move: GiveDisorder) -> None:
    card = _in_hand(state, seat, move.card)
    if card.kind != se_cards.DISORDER:
        raise IllegalMove(f"{card.name} is not a Disorder.")
    target = move.target
    _opponent(state, seat, target)
    if card.name not in side_effects_on(state, target):
        raise IllegalMove(
            f"{seat_text(target).capitalize()} is not vulnerable to {card.name}: no Drug on their Psyche causes it."
        )
    if not may_hold_another(state, target, card.name):
        raise IllegalMove(f"{seat_text(target).capitalize()} already has {card.name}.")


def verify_therapy(state: SEState, seat: int, move: PlayTherapy) -> TherapyPlan:
    card = _in_hand(state, seat, move.card)
    if card.kind != se_cards.THERAPY:
        raise IllegalMove(f"{card.name} is not Therapy.")
    target, slot = _find_disorder(state, move.disorder)
    if target != seat:
        raise IllegalMove("Therapy works only on your own Psyche.")
    disorder = state.cards[move.disorder]
    if state.psyche[seat][slot].drug != NONE:
        raise IllegalMove(f"Your {disorder.name} is already treated.")
    if not therapy_works_on(disorder):
        raise IllegalMove(f"Therapy does not work on {disorder.name}.")
    return TherapyPlan(slot=slot)


def verify_episode(state: SEState, seat: int, move: PlayEpisode) -> EpisodePlan:
    card = _in_hand(state, seat, move.card)
    if card.kind != se_cards.EPISODE:
        raise IllegalMove(f"{card.name} is not an Episode.")
    target, slot = _find_disorder(state, move.disorder)
    _opponent(state, seat, target)
    if state.psyche[target][slot].drug != NONE:
        name = state.cards[move.disorder].name
        whose = seat_text(target).capitalize()
        raise IllegalMove(f"{whose}'s {name} is treated; an Episode needs an untreated Disorder.")
    return EpisodePlan(target=target)


def verify_misdiagnosis(state: SEState, seat: int, move: PlayMisdiagnosis) -> MisdiagnosisPlan:
    card = _in_hand(state, seat, move.card)
    if card.kind != se_cards.MISDIAGNOSIS:
        raise IllegalMove(f"{card.name} is not Misdiagnosis.")
    owner, mine = _find_disorder(state, move.mine)
    if owner != seat:
        raise IllegalMove("Misdiagnosis: the first Disorder must be your own.")
    target, theirs = _find_disorder(state, move.theirs)
    _opponent(state, seat, target)
    if state.psyche[seat][mine].drug != NONE or state.psyche[target][theirs].drug != NONE:
        raise IllegalMove("Misdiagnosis swaps untreated Disorders only.")
    if not swap_allowed(state, seat, move.mine, target, move.theirs):
        raise IllegalMove("That swap would put the same Disorder twice on one Psyche.")
    return MisdiagnosisPlan(target=target, mine=mine, theirs=theirs)


def verify_high_tolerance(state: SEState, seat: int, move: PlayHighTolerance) -> HighTolerancePlan:
    card = _in_hand(state, seat, move.card)
    if card.kind != se_cards.HIGH_TOLERANCE:
        raise IllegalMove(f"{card.name} is not High Tolerance.")
    for target in range(state.seats):
        for slot, placed in enumerate(state.psyche[target]):
            if placed.drug == move.drug:
                _opponent(state, seat, target)
                return HighTolerancePlan(target=target, slot=slot)
    raise IllegalMove(f"Card {move.drug} is not a Drug on anyone's Psyche.")


def verify_timeout(state: SEState, seat: int, move: Timeout) -> None:
    if state.phase != TREMORS or seat != state.prompt_seat or state.options.tremors_seconds <= 0:
        raise IllegalMove("There is no Tremors countdown for this seat to run out.")


def verify_offer(state: SEState, seat: int, move: OfferTrade) -> None:
    """SE10: any cards from your hand for cards of this deck, to a player still in the game."""
    if state.phase != PLAY:
        raise IllegalMove("Trading waits until the current prompt is answered.")
    _opponent(state, seat, move.to)
    if not move.give and not move.want:
        raise IllegalMove("A trade offer needs at least one card on one side.")
    if len(set(move.give)) != len(move.give):
        raise IllegalMove("A trade offer names the same card twice.")
    for card in move.give:
        _in_hand(state, seat, card)
    names = {card.name for card in state.cards}
    for name in move.want:
        if name not in names:
            raise IllegalMove(f"There is no card called {name!r} in this deck.")
    if len(move.want) > len(state.cards):
        raise IllegalMove("A trade offer asks for more cards than the deck holds.")
    if open_offers(state, seat) >= MAX_OPEN_OFFERS:
        raise IllegalMove(f"You already have {MAX_OPEN_OFFERS} open offers; withdraw one first.")


def verify_answer(state: SEState, seat: int, move: AcceptTrade | DeclineTrade | WithdrawTrade) -> OpenOffer:
    """SE10: the one asked accepts (holding what is wanted) or declines; the offerer may withdraw."""
    offer = state.offers.get(move.offer)
    if offer is None:
        raise IllegalMove(f"There is no open trade offer {move.offer}.")
    # Withdrawing waits too: legal_moves lists no trade answer during a prompt.
    if state.phase != PLAY:
        raise IllegalMove("Trading waits until the current prompt is answered.")
    if type(move) is WithdrawTrade:
        if offer.seat != seat:
            raise IllegalMove(f"Offer {move.offer} is not yours to withdraw.")
        return offer
    if offer.to != seat:
        raise IllegalMove(f"Offer {move.offer} was not made to you.")
    if type(move) is AcceptTrade and not has_cards_named(state, seat, offer.want):
        raise IllegalMove(f"You do not hold {', '.join(offer.want)}.")
    return offer


_ANY_TIME = frozenset({Timeout, OfferTrade, AcceptTrade, DeclineTrade, WithdrawTrade})
"""Moves not bound to the turn: trades (SE10) and the host's timeout."""


# --- finding what a move names ----------------------------------------------


def _in_hand(state: SEState, seat: int, card: int) -> SECard:
    """The card ``card`` in ``seat``'s hand, or IllegalMove naming it."""
    if card not in state.hands[seat]:
        if 0 <= card < len(state.cards):
            raise IllegalMove(f"{state.cards[card].name} (card {card}) is not in your hand.")
        raise IllegalMove(f"There is no card {card} in this game.")
    return state.cards[card]


def _find_disorder(state: SEState, card: int) -> tuple[int, int]:
    """(seat, slot) of the Disorder ``card`` on a Psyche, or IllegalMove."""
    for seat in range(state.seats):
        for slot, placed in enumerate(state.psyche[seat]):
            if placed.disorder == card:
                return seat, slot
    if 0 <= card < len(state.cards):
        raise IllegalMove(f"{state.cards[card].name} (card {card}) is not a Disorder on anyone's Psyche.")
    raise IllegalMove(f"There is no card {card} in this game.")


def _opponent(state: SEState, seat: int, target: int) -> None:
    """IllegalMove unless ``target`` is another seat still in the game."""
    if not 0 <= target < state.seats:
        raise IllegalMove(f"There is no {seat_text(target)} at this table.")
    if target == seat:
        raise IllegalMove("That needs another player, not yourself.")
    if not state.active(target):
        raise IllegalMove(f"{seat_text(target).capitalize()} has already won and left the game.")
