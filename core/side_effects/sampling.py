"""A full Side Effects State built from one seat's view: what a search bot plays on.

:func:`sample` deals a State consistent with everything the seat may know:
its own hand, every Psyche, the counts of the hidden hands and piles, the
prompt it is answering, a hand Anxiety showed it, the cards offered to it,
and what its :class:`Memory` recorded over the game. The cards it cannot
place are dealt at random. It is built from the View alone: nothing here
takes a State, so a sample cannot betray what the seat does not know.

:class:`Memory` is a per-seat record built from the events as redacted for
that seat (:meth:`Memory.observe`): the discard pile card by card (discards
are face up), and the cards known to be in another hand (shown by Anxiety,
offered, given in a trade, taken from this seat).
"""

from __future__ import annotations

import random
from typing import Any, Callable, Iterable

from quackbox.cards.side_effects import SECard
from quackbox.core.rules import NONE, Event
from quackbox.core.side_effects.moves import (
    CardDiscarded,
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
    TherapyUsed,
    TradeAccepted,
    TradeOffered,
    TurnStarted,
)
from quackbox.core.side_effects.state import ANXIETY, TREMORS, OpenOffer, PsycheSlot, SEState, new_state
from quackbox.core.side_effects.view import SEView

__all__ = ["Memory", "sample"]


class Memory:
    """What one seat has seen over a game, from its redacted events.

    It is complete only when it saw the game from its first event
    (:class:`~quackbox.core.side_effects.moves.GameStarted`); until then
    :func:`sample` ignores it.
    """

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.complete = False
        self.discard: list[int] = []
        """The discard pile, bottom first, as the events built it."""
        self.known: dict[int, set[int]] = {}
        """Cards known to be in another seat's hand, by seat."""
        self.next_offer = 1
        self.offered: set[tuple[int, tuple[int, ...], tuple[str, ...]]] = set()
        """The offers this seat made this turn: (to, give, want)."""

    def observe(self, events: Iterable[Event]) -> None:
        """Record ``events`` (as redacted for this seat), in the order they happened."""
        for event in events:
            handler = _HANDLERS.get(type(event))
            if handler is not None:
                handler(self, event)

    def _lose(self, seat: int, cards: Iterable[int]) -> None:
        known = self.known.get(seat)
        if known:
            known.difference_update(cards)

    def _gain(self, seat: int, cards: Iterable[int]) -> None:
        if seat != self.seat:
            self.known.setdefault(seat, set()).update(cards)

    def _forget(self, seat: int) -> None:
        self.known.pop(seat, None)

    def _discarded(self, seat: int, cards: Iterable[int]) -> None:
        cards = list(cards)
        self.discard.extend(cards)
        self._lose(seat, cards)

    # one handler per event kind that moves a card this seat can follow

    def _started(self, event: GameStarted) -> None:
        self.complete = True
        self.discard.clear()
        self.known.clear()
        self.next_offer = 1

    def _reshuffled(self, event: DeckReshuffled) -> None:
        self.discard.clear()

    def _treated(self, event: DisorderTreated) -> None:
        self._lose(event.seat, (event.drug,))

    def _given(self, event: DisorderGiven) -> None:
        self._lose(event.seat, (event.card,))

    def _therapy(self, event: TherapyUsed) -> None:
        self.discard.append(event.disorder)
        self._discarded(event.seat, (event.card,))

    def _episode(self, event: EpisodePlayed) -> None:
        self._discarded(event.seat, (event.card,))

    def _drugs(self, event: DrugsDiscarded) -> None:
        self.discard.extend(event.cards)

    def _hand(self, event: HandDiscarded) -> None:
        self.discard.extend(event.cards)
        self._forget(event.seat)

    def _card(self, event: CardDiscarded) -> None:
        self._discarded(event.seat, (event.card,))

    def _misdiagnosis(self, event: MisdiagnosisPlayed) -> None:
        self._discarded(event.seat, (event.card,))

    def _high_tolerance(self, event: HighTolerancePlayed) -> None:
        self._discarded(event.seat, (event.card,))
        self.discard.append(event.drug)

    def _taken(self, event: CardsTaken) -> None:
        if event.cards or event.count == 0:
            self._lose(event.target, event.cards)
            self._gain(event.seat, event.cards)
        else:  # taken at random out of sight: what we knew of the target may be gone
            self._forget(event.target)

    def _shown(self, event: HandShown) -> None:
        if event.seat == self.seat:
            self.known[event.target] = set(event.cards)

    def _turn(self, event: TurnStarted) -> None:
        self.offered.clear()

    def _offered(self, event: TradeOffered) -> None:
        self.next_offer = max(self.next_offer, event.offer + 1)
        if event.seat == self.seat:
            self.offered.add((event.to, event.give, event.want))
        if event.to == self.seat:
            self._gain(event.seat, event.give)

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


_HANDLERS: dict[type[Event], Callable[[Memory, Any], None]] = {
    GameStarted: Memory._started,
    DeckReshuffled: Memory._reshuffled,
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
        taken = unseen[len(unseen) - count:] if count > 0 else []
        del unseen[len(unseen) - len(taken):]
        return taken

    for player in view.players:
        if player.seat != me:
            hand = known.get(player.seat, [])[: player.hand_size]
            state.hands[player.seat] = hand + take(player.hand_size - len(hand))
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
        state.offers[offer.id] = OpenOffer(seat=offer.seat, to=offer.to, give=tuple(c.id for c in offer.give),
                                           want=offer.want, hands_then=hands_then)
    next_offer = max(state.offers, default=0) + 1
    state.next_offer = max(next_offer, seen.next_offer) if seen is not None else next_offer
    return state


def _discard_fits(discard: list[int], view: SEView, placed: set[int]) -> bool:
    """Whether the remembered discard pile agrees with the view (a seat that
    joined late, or a memory fed the wrong events, is not trusted)."""
    if len(discard) != view.discard_count:
        return False
    if not discard:
        return view.discard_top is None
    top = view.discard_top
    return top is not None and discard[-1] == top.id and not placed.intersection(discard)
