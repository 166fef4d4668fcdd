"""A full Side Effects State built from one seat's view: what a search bot plays on.

:func:`sample` deals a State consistent with everything the seat may know:
its own hand, every Psyche, the counts of the hidden hands and piles, the
prompt it is answering, a hand Anxiety showed it, the cards offered to it,
and what its :class:`Memory` recorded over the game. The cards it cannot
place are dealt at random, weighted by what the other seats' own moves said
of their hands. It is built from the View alone: nothing here takes a State,
so a sample cannot betray what the seat does not know.

:class:`Memory` is a per-seat record built from the events as redacted for
that seat (:meth:`Memory.observe`): the discard pile card by card (discards
are face up), the cards known to be in another hand (shown by Anxiety,
offered, given in a trade, taken from this seat), and, card by card, what
each other hand most likely does not hold. A player who ends a turn with
plays left would most likely have played a Drug for one of its own untreated
Disorders, Therapy on a Disorder only Therapy removes or on its last one, or
a Disorder another Psyche is open to; so every card then in its hand is
marked as most likely none of those. A card drawn later is not marked. When
a card of a known name leaves that hand, the oldest card whose marks allow
that name goes (the marks of a hand's cards are nested, the oldest marked
most: so what is left stays true); a card that leaves unseen takes the
oldest marks with it. The public Psyches these judgements need are kept from
the events, from the first view the seat is shown (:meth:`Memory.see`).
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any, Callable, Iterable

from quackbox.cards import side_effects as se_cards
from quackbox.cards.side_effects import SECard
from quackbox.core.rules import NONE, Event
from quackbox.core.side_effects.moves import (
    CardDiscarded,
    CardsDrawn,
    CardsTaken,
    DeckReshuffled,
    DisorderGiven,
    DisorderTreated,
    DrugsDiscarded,
    EpisodePlayed,
    GameStarted,
    HandDiscarded,
    HandShown,
    HighTolerancePlayed,
    MisdiagnosisPlayed,
    PlayerWon,
    PlaysPrevented,
    TherapyUsed,
    TradeAccepted,
    TradeOffered,
    TurnEnded,
    TurnStarted,
)
from quackbox.core.side_effects.state import (
    ANXIETY,
    HAND_SIZE,
    PLAYS_PER_TURN,
    TREMORS,
    OpenOffer,
    PsycheSlot,
    SEOptions,
    SEState,
    new_state,
)
from quackbox.core.side_effects.view import SEView

if TYPE_CHECKING:
    from quackbox.core.side_effects.rules import SideEffects

UNLIKELY = 0.1
"""How likely a card its holder's own moves marked as unlikely is dealt to a
place in that hand, against 1 for a card not marked: small, but not 0, as a
person may hold a card back."""

__all__ = ["Memory", "sample"]


class Memory:
    """What one seat has seen over a game, from its redacted events.

    It is complete only when it saw the game from its first event
    (:class:`~quackbox.core.side_effects.moves.GameStarted`); until then
    :func:`sample` ignores it.
    """

    def __init__(self, seat: int, rules: SideEffects | None = None) -> None:
        self.seat = seat
        self.complete = False
        self.discard: list[int] = []
        """The discard pile, bottom first, as the events built it."""
        self.known: dict[int, set[int]] = {}
        """Cards known to be in another seat's hand, by seat."""
        self.next_offer = 1
        self.offered: set[tuple[int, tuple[int, ...], tuple[str, ...]]] = set()
        """The offers this seat made this turn: (to, give, want)."""
        self.rules = rules
        """The game's rules (they pickle by name), for what the cards mean; None: no marks."""
        self.marks: dict[int, list[int]] = {}
        """Per other seat, one mask of card names (bits of :class:`_Names`) per card in its
        hand, oldest first: the names its own moves said it most likely does not hold."""
        self.psyches: list[list[list[int]]] | None = None
        """Every Psyche as [Disorder, Drug or NONE] pairs, once a view was seen (:meth:`see`)."""
        self.places: list[int] = []
        self.turn_seat = NONE
        self.turn_plays = 0
        """Plays made in the turn under way, by ``turn_seat``..."""
        self.turn_blocked = False
        """...and whether Impotence took its plays away."""
        self._names: _Names | None = None

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without the card tables, which are made again from the rules."""
        state = dict(self.__dict__)
        state["_names"] = None
        return state

    def observe(self, events: Iterable[Event]) -> None:
        """Record ``events`` (as redacted for this seat), in the order they happened."""
        for event in events:
            handler = _HANDLERS.get(type(event))
            if handler is not None:
                handler(self, event)

    def see(self, view: SEView) -> None:
        """Take the public Psyches from ``view`` (this seat's, now): the events
        keep them from here on, for judging what other seats' moves say."""
        if view.seat != self.seat:
            return
        self.psyches = [
            [[slot.disorder.id, slot.drug.id if slot.drug is not None else NONE] for slot in p.psyche]
            for p in view.players
        ]
        self.places = [p.place for p in view.players]

    def names(self) -> _Names | None:
        """What the cards' names mean to the marks (None without the rules)."""
        if self._names is None and self.rules is not None:
            self._names = _Names(self.rules.deck_cards(SEOptions(bonus_cards=True)))
        return self._names

    def holding_odds(self, seat: int, name: str) -> float:
        """How many cards of ``seat``'s hand could be a card called ``name``, as
        far as this memory knows: a card known to be one counts 1 and stops
        the count; a card marked as most likely not one counts UNLIKELY."""
        names = self.names()
        known = self.known.get(seat, ())
        if names is not None and any(names.cards[c].name == name for c in known if 0 <= c < len(names.cards)):
            return float(HAND_SIZE * 2)
        marks = self.marks.get(seat, [])
        bit = names.name_bit.get(name, 0) if names is not None else 0
        return sum(UNLIKELY if mask & bit else 1.0 for mask in marks)

    def _lose(self, seat: int, cards: Iterable[int]) -> None:
        cards = tuple(cards)
        known = self.known.get(seat)
        if known:
            known.difference_update(cards)
        marks = self.marks.get(seat)
        names = self.names()
        if marks is not None and names is not None:
            for card in cards:
                _take_mark(marks, names.bit(card))

    def _gain(self, seat: int, cards: Iterable[int]) -> None:
        if seat != self.seat:
            cards = tuple(cards)
            self.known.setdefault(seat, set()).update(cards)
            self._gain_unseen(seat, len(cards))

    def _gain_unseen(self, seat: int, count: int) -> None:
        if seat != self.seat and count > 0:
            self.marks.setdefault(seat, []).extend([0] * count)

    def _lose_unseen(self, seat: int, count: int) -> None:
        """``count`` cards left ``seat``'s hand unseen: the oldest marks go (what is left stays true)."""
        marks = self.marks.get(seat)
        if marks:
            del marks[:count]

    def _forget(self, seat: int) -> None:
        self.known.pop(seat, None)
        self.marks.pop(seat, None)

    def _discarded(self, seat: int, cards: Iterable[int]) -> None:
        cards = list(cards)
        self.discard.extend(cards)
        self._lose(seat, cards)

    def _slot(self, seat: int, disorder: int) -> list[int] | None:
        if self.psyches is None or not 0 <= seat < len(self.psyches):
            return None
        return next((slot for slot in self.psyches[seat] if slot[0] == disorder), None)

    def _played(self, seat: int) -> None:
        if seat == self.turn_seat:
            self.turn_plays += 1

    # one handler per event kind that moves a card this seat can follow

    def _started(self, event: GameStarted) -> None:
        self.complete = True
        self.discard.clear()
        self.known.clear()
        self.next_offer = 1
        self.marks = {s: [0] * HAND_SIZE for s in range(event.seats) if s != self.seat}

    def _reshuffled(self, event: DeckReshuffled) -> None:
        self.discard.clear()

    def _drawn(self, event: CardsDrawn) -> None:
        self._gain_unseen(event.seat, event.count)

    def _treated(self, event: DisorderTreated) -> None:
        self._lose(event.seat, (event.drug,))
        self._played(event.seat)
        slot = self._slot(event.target, event.disorder)
        if slot is not None:
            slot[1] = event.drug

    def _given(self, event: DisorderGiven) -> None:
        self._lose(event.seat, (event.card,))
        self._played(event.seat)
        if self.psyches is not None and 0 <= event.target < len(self.psyches):
            self.psyches[event.target].append([event.card, NONE])

    def _therapy(self, event: TherapyUsed) -> None:
        self.discard.append(event.disorder)
        self._discarded(event.seat, (event.card,))
        self._played(event.seat)
        slot = self._slot(event.seat, event.disorder)
        if slot is not None and self.psyches is not None:
            self.psyches[event.seat].remove(slot)

    def _episode(self, event: EpisodePlayed) -> None:
        self._discarded(event.seat, (event.card,))
        self._played(event.seat)

    def _drugs(self, event: DrugsDiscarded) -> None:
        self.discard.extend(event.cards)
        if self.psyches is not None and 0 <= event.seat < len(self.psyches):
            for slot in self.psyches[event.seat]:
                slot[1] = NONE

    def _hand(self, event: HandDiscarded) -> None:
        self.discard.extend(event.cards)
        self._forget(event.seat)

    def _card(self, event: CardDiscarded) -> None:
        self._discarded(event.seat, (event.card,))

    def _misdiagnosis(self, event: MisdiagnosisPlayed) -> None:
        self._discarded(event.seat, (event.card,))
        self._played(event.seat)
        mine, theirs = self._slot(event.seat, event.mine), self._slot(event.target, event.theirs)
        if mine is not None and theirs is not None:
            mine[0], theirs[0] = theirs[0], mine[0]

    def _high_tolerance(self, event: HighTolerancePlayed) -> None:
        self._discarded(event.seat, (event.card,))
        self.discard.append(event.drug)
        self._played(event.seat)
        if self.psyches is not None and 0 <= event.target < len(self.psyches):
            for slot in self.psyches[event.target]:
                if slot[1] == event.drug:
                    slot[1] = NONE

    def _taken(self, event: CardsTaken) -> None:
        if event.cards or event.count == 0:
            self._lose(event.target, event.cards)
            self._gain(event.seat, event.cards)
        else:  # taken at random out of sight: what we knew of the target may be gone
            self.known.pop(event.target, None)
            self._lose_unseen(event.target, event.count)
            self._gain_unseen(event.seat, event.count)

    def _shown(self, event: HandShown) -> None:
        if event.seat == self.seat:
            self.known[event.target] = set(event.cards)

    def _turn(self, event: TurnStarted) -> None:
        self.offered.clear()
        self.turn_seat, self.turn_plays, self.turn_blocked = event.seat, 0, False

    def _blocked(self, event: PlaysPrevented) -> None:
        if event.seat == self.turn_seat:
            self.turn_blocked = True

    def _won(self, event: PlayerWon) -> None:
        if 0 <= event.seat < len(self.places):
            self.places[event.seat] = event.place

    def _turn_ended(self, event: TurnEnded) -> None:
        """A seat that ends its turn with plays left says what its hand most likely lacks."""
        seat = event.seat
        marks = self.marks.get(seat)
        if (
            seat == self.seat
            or seat != self.turn_seat
            or self.turn_blocked
            or self.turn_plays >= PLAYS_PER_TURN
            or not marks
        ):
            return
        names = self.names()
        if names is None or self.psyches is None or len(self.psyches) != len(self.places):
            return
        mask = names.unplayed(seat, self.psyches, self.places)
        if mask:
            for i in range(len(marks)):
                marks[i] |= mask

    def _offered(self, event: TradeOffered) -> None:
        self.next_offer = max(self.next_offer, event.offer + 1)
        if event.seat == self.seat:
            self.offered.add((event.to, event.give, event.want))
        if event.to == self.seat:
            self.known.setdefault(event.seat, set()).update(event.give)

    def _accepted(self, event: TradeAccepted) -> None:
        if self.seat == event.seat:
            self._lose(event.to, event.got)
            self._gain(event.to, event.gave)
        elif self.seat == event.to:
            self._lose(event.seat, event.gave)
            self._gain(event.seat, event.got)
        else:
            self._forget(event.seat)
            self._forget(event.to)


class _Names:
    """The card names of a deck as bits, and which names a player's own moves
    would most likely have put into play (for :meth:`Memory._turn_ended`)."""

    def __init__(self, cards: tuple[SECard, ...]) -> None:
        names = list(dict.fromkeys(c.name for c in cards))
        self.bits = [1 << names.index(c.name) for c in cards]
        self.name_bit = {name: 1 << i for i, name in enumerate(names)}
        self.cards = cards
        drugs = {c.treats: c for c in cards if c.kind == se_cards.DRUG}
        self.drug_bit = {name: 1 << names.index(card.name) for name, card in drugs.items()}
        """The bit of the Drug that treats each Disorder (by the Disorder's name)."""
        self.side_effects = {c.id: c.side_effects for c in cards if c.kind == se_cards.DRUG}
        therapy = [c for c in cards if c.kind == se_cards.THERAPY]
        self.therapy_bit = 1 << names.index(therapy[0].name) if therapy else 0
        disorders = [c for c in cards if c.kind == se_cards.DISORDER]
        self.disorder_bit = {c.name: 1 << names.index(c.name) for c in disorders}

    def bit(self, card: int) -> int:
        return self.bits[card] if 0 <= card < len(self.bits) else 0

    def unplayed(self, seat: int, psyches: list[list[list[int]]], places: list[int]) -> int:
        """The names ``seat`` would most likely have played had it held them: a
        Drug for one of its untreated Disorders; Therapy, if a Disorder only
        Therapy removes is untreated or its last untreated Disorder would go;
        a Disorder another player still in the game is open to."""
        cards = self.cards
        untreated = [cards[d] for d, drug in psyches[seat] if drug == NONE]
        mask = 0
        for disorder in untreated:
            mask |= self.drug_bit.get(disorder.name, 0)
        removable = [d for d in untreated if not d.therapy_proof]
        if any(d.name not in self.drug_bit for d in removable) or (len(untreated) == 1 and removable):
            mask |= self.therapy_bit
        for other, psyche in enumerate(psyches):
            if other == seat or places[other] != 0:
                continue
            held = {cards[d].name for d, _drug in psyche}
            for _disorder, drug in psyche:
                if drug != NONE:
                    for name in self.side_effects.get(drug, ()):
                        if name not in held:
                            mask |= self.disorder_bit.get(name, 0)
        return mask


def _take_mark(marks: list[int], bit: int) -> None:
    """A card of name ``bit`` left the hand: the oldest card whose marks allow it
    goes (or the oldest of all, if every mark said otherwise)."""
    if not marks:
        return
    for i, mask in enumerate(marks):
        if not mask & bit:
            del marks[i]
            return
    del marks[0]


_HANDLERS: dict[type[Event], Callable[[Memory, Any], None]] = {
    GameStarted: Memory._started,
    DeckReshuffled: Memory._reshuffled,
    CardsDrawn: Memory._drawn,
    PlaysPrevented: Memory._blocked,
    PlayerWon: Memory._won,
    TurnEnded: Memory._turn_ended,
    DisorderTreated: Memory._treated,
    DisorderGiven: Memory._given,
    TherapyUsed: Memory._therapy,
    EpisodePlayed: Memory._episode,
    DrugsDiscarded: Memory._drugs,
    HandDiscarded: Memory._hand,
    CardDiscarded: Memory._card,
    MisdiagnosisPlayed: Memory._misdiagnosis,
    HighTolerancePlayed: Memory._high_tolerance,
    CardsTaken: Memory._taken,
    HandShown: Memory._shown,
    TradeOffered: Memory._offered,
    TurnStarted: Memory._turn,
    TradeAccepted: Memory._accepted,
}


def sample(view: SEView, rng: random.Random, cards: tuple[SECard, ...], memory: Memory | None = None) -> SEState:
    """A State that ``view`` could have come from, the unseen cards dealt by ``rng``.

    ``cards`` is the deck of the game (``RULES.deck_cards(view.options)``).
    ``view(sample(view), view.seat) == view`` always holds.
    """
    seats = len(view.players)
    me = view.seat
    state = new_state(seats, view.options, random.Random(rng.getrandbits(64)), cards)
    placed: set[int] = set()
    for player in view.players:
        psyche = []
        for slot in player.psyche:
            drug = slot.drug.id if slot.drug is not None else NONE
            psyche.append(PsycheSlot(slot.disorder.id, drug))
            placed.add(slot.disorder.id)
            if drug != NONE:
                placed.add(drug)
        state.psyche[player.seat] = psyche
        state.skips[player.seat] = player.skips
        state.no_play[player.seat] = player.no_play
        state.no_draw[player.seat] = player.no_draw
        state.places[player.seat] = player.place
    if me is not None:
        state.hands[me] = [c.id for c in view.hand]
        placed.update(state.hands[me])

    # Cards the seat knows to be in other hands.
    known: dict[int, list[int]] = {}

    def know(seat: int, ids: Iterable[int]) -> None:
        for card in ids:
            if card not in placed:
                placed.add(card)
                known.setdefault(seat, []).append(card)

    prompt = view.prompt
    if prompt is not None and prompt.kind == ANXIETY and prompt.revealed:
        know(prompt.target, (c.id for c in prompt.revealed))
    for offer in view.offers:
        if offer.seat != me:
            know(offer.seat, (c.id for c in offer.give))
    # What the seat remembers, if it saw the whole game so far (else nothing).
    seen = memory if memory is not None and memory.complete and memory.seat == me else None
    if seen is not None:
        for seat, ids in sorted(seen.known.items()):
            if seat != me and len(known.get(seat, ())) + len(ids - placed) <= view.players[seat].hand_size:
                know(seat, sorted(ids))

    # The discard pile: as memory built it, else its top and random cards.
    discard: list[int] = []
    if seen is not None and _discard_fits(seen.discard, view, placed):
        discard = list(seen.discard)
    elif view.discard_top is not None and view.discard_top.id not in placed:
        discard = [view.discard_top.id]
    placed.update(discard)
    unseen = [c.id for c in cards if c.id not in placed]
    rng.shuffle(unseen)

    def take(count: int) -> list[int]:
        taken = unseen[len(unseen) - count :] if count > 0 else []
        del unseen[len(unseen) - len(taken) :]
        return taken

    names = seen.names() if seen is not None else None
    for player in view.players:
        if player.seat != me:
            hand = known.get(player.seat, [])[: player.hand_size]
            marks = seen.marks.get(player.seat) if seen is not None else None
            if names is None or not marks or not any(marks):
                state.hands[player.seat] = hand + take(player.hand_size - len(hand))
            else:
                state.hands[player.seat] = hand + _deal_marked(
                    unseen, _marks_left(marks, hand, player.hand_size, names), names, rng
                )
    if view.discard_count > len(discard):
        discard = discard[:-1] + take(view.discard_count - len(discard)) + discard[-1:]
    state.discard = discard
    state.draw = unseen

    state.finish_order = sorted((s for s in range(seats) if state.places[s] > 0), key=lambda s: state.places[s])
    state.current = view.current
    state.turn = view.turn
    state.phase = view.phase
    state.outcome = view.outcome
    state.plays_left = view.plays_left
    state.impotent = view.impotent
    if prompt is not None and prompt.kind == TREMORS:
        state.prompt_seat, state.prompt_count = prompt.seat, prompt.count
    elif prompt is not None and prompt.kind == ANXIETY:
        state.prompt_seat = prompt.target
    for offer in view.offers:
        hands_then = (tuple(sorted(state.hands[offer.seat])), tuple(sorted(state.hands[offer.to])))
        state.offers[offer.id] = OpenOffer(
            seat=offer.seat, to=offer.to, give=tuple(c.id for c in offer.give), want=offer.want, hands_then=hands_then
        )
    next_offer = max(state.offers, default=0) + 1
    state.next_offer = max(next_offer, seen.next_offer) if seen is not None else next_offer
    return state


def _marks_left(marks: list[int], known: list[int], size: int, names: _Names) -> list[int]:
    """The marks of the cards of a hand of ``size`` that are not among ``known``:
    the hand's marks made to fit its size (the oldest go first; cards the
    memory never saw come unmarked), less those the known cards take."""
    left = marks[len(marks) - size :] if len(marks) > size else marks + [0] * (size - len(marks))
    for card in known:
        _take_mark(left, names.bit(card))
    return left[: max(0, size - len(known))]


def _deal_marked(unseen: list[int], marks: list[int], names: _Names, rng: random.Random) -> list[int]:
    """A card from the end of the shuffled ``unseen`` for each mark, the most
    marked first; a card whose name its mark holds is passed over but for
    the odds UNLIKELY (or if no other is left)."""
    dealt: list[int] = []
    for mask in sorted(marks, reverse=True):
        pick = len(unseen) - 1
        if mask:
            for i in range(len(unseen) - 1, -1, -1):
                if not mask & names.bit(unseen[i]) or rng.random() < UNLIKELY:
                    pick = i
                    break
        if pick < 0:
            break
        dealt.append(unseen[pick])
        unseen[pick] = unseen[-1]
        unseen.pop()
    return dealt


def _discard_fits(discard: list[int], view: SEView, placed: set[int]) -> bool:
    """Whether the remembered discard pile agrees with the view (a seat that
    joined late, or a memory fed the wrong events, is not trusted)."""
    if len(discard) != view.discard_count:
        return False
    if not discard:
        return view.discard_top is None
    top = view.discard_top
    return top is not None and discard[-1] == top.id and not placed.intersection(discard)
