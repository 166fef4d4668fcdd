"""What one seat may see: the view of a game, and events redacted for a seat.

A view holds card objects only for cards its seat may see: its own hand,
every Psyche (public), the top of the discard pile, a hand shown to it by
Anxiety and the cards offered to it. Other hands and the draw pile are
counts. A spectator (seat None) sees the public part only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from quackbox.cards import side_effects as se_cards
from quackbox.cards.side_effects import SECard
from quackbox.core.rules import NONE, Event, Move, Outcome, Seat, SeatOrNone, verify_view_seats
from quackbox.core.side_effects.legal import MoveTable, legal_moves, trade_partners, vulnerable_to, waiting_for
from quackbox.core.side_effects.moves import CardsDrawn, CardsTaken, HandShown, OfferId, TradeAccepted, TradeOffered
from quackbox.core.side_effects.state import (
    ANXIETY,
    DISCARD_DOWN,
    GAME,
    HAND_LIMIT,
    TREMORS,
    Phase,
    SEOptions,
    SEState,
)


@dataclass(frozen=True, slots=True)
class Slot:
    """One Disorder on a Psyche and the Drug treating it, if any."""

    disorder: SECard
    drug: SECard | None


@dataclass(frozen=True, slots=True)
class PlayerView:
    """What everyone may see of one player."""

    seat: Seat
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

    kind: Phase
    """TREMORS, ANXIETY or DISCARD_DOWN."""
    seat: Seat
    """Who must answer."""
    inflictor: SeatOrNone
    """Who played the Episode (NONE for DISCARD_DOWN)."""
    target: Seat
    """Whose hand it is about."""
    count: int
    """Cards still to discard (TREMORS, DISCARD_DOWN)."""
    seconds: float
    """The time allowed (TREMORS), 0 if untimed."""
    revealed: tuple[SECard, ...]
    """ANXIETY: the shown hand; only in the inflictor's view."""


@dataclass(frozen=True, slots=True)
class Offer:
    """An open trade offer, in the views of its two parties."""

    id: OfferId
    seat: Seat
    to: Seat
    give: tuple[SECard, ...]
    want: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class SEView:
    """Everything one seat may see, including its legal moves."""

    game: str
    seat: Seat | None
    turn: int
    current: Seat
    phase: Phase
    plays_left: int
    players: tuple[PlayerView, ...]
    hand: tuple[SECard, ...]
    draw_count: int
    discard_count: int
    discard_top: SECard | None
    prompt: Prompt | None
    offers: tuple[Offer, ...]
    legal: tuple[Move, ...]
    waiting_for: tuple[Seat, ...]
    outcome: Outcome | None
    options: SEOptions
    trade_partners: tuple[Seat, ...]
    """The seats this seat may offer a trade to now (SE10); empty when it may
    not trade. Offers are not listed in ``legal``: their card lists are free."""
    trade_wants: tuple[str, ...]
    """How to offer: an OfferTrade gives any cards of ``hand`` to a seat of
    ``trade_partners`` and may ask for cards by these names (every name in the
    deck); empty when the seat may not trade."""
    impotent: bool
    """Impotence blocks every play of the current player this turn (SE7)."""


VIEW_TYPES = (SECard, Slot, PlayerView, Prompt, Offer, SEView)


class DeckViews:
    """What views of games with one deck share, made once per deck: its move
    table, the Psyche slots and the card names.

    A Slot is a frozen value, and making one costs about as much as the rest
    of a player's view, so every Slot a Psyche can hold with the deck (a
    Disorder, and the Drug on it or none) is made here, like the moves.
    """

    def __init__(self, cards: Sequence[SECard], moves: MoveTable) -> None:
        self.moves = moves
        drugs = [None, *(c for c in cards if c.kind == se_cards.DRUG)]
        self.slots = {
            (d.id, g.id if g is not None else NONE): Slot(d, g)
            for d in cards
            if d.kind == se_cards.DISORDER
            for g in drugs
        }
        """By (Disorder id, Drug id or NONE)."""
        self.card_names = tuple(dict.fromkeys(card.name for card in cards))
        """Every card name of the deck, each once, in deck order: what a trade offer may ask for."""


def view(state: SEState, seat: int | None, deck: DeckViews) -> SEView:
    """What ``seat`` may see; None is a spectator (public information only).
    Its legal moves and slots are those ``deck`` holds."""
    return views(state, (seat,), deck)[0]


def views(state: SEState, seats: Sequence[int | None], deck: DeckViews) -> tuple[SEView, ...]:
    """The views of ``seats`` (None: a spectator), as :func:`view` gives each.

    The host needs every seat's view after each move; the public part (every
    player, the piles, who the game waits for) is made once and shared, as
    views are frozen values.
    """
    verify_view_seats(seats, state.seats)
    cards = state.cards
    players = tuple([player_view(state, s, deck) for s in range(state.seats)])
    discard_top = cards[state.discard[-1]] if state.discard else None
    waiting, ended = waiting_for(state), state.outcome
    partners_of = {seat: trade_partners(state, seat) for seat in seats}
    vulnerable = [p.vulnerable_to for p in players]
    return tuple(
        [
            SEView(
                game=GAME,
                seat=seat,
                turn=state.turn,
                current=state.current,
                phase=state.phase,
                plays_left=state.plays_left,
                players=players,
                hand=tuple([cards[c] for c in state.hands[seat]]) if seat is not None else (),
                draw_count=len(state.draw),
                discard_count=len(state.discard),
                discard_top=discard_top,
                prompt=prompt(state, seat),
                offers=offers_seen(state, seat),
                legal=legal_moves(state, seat, deck.moves, vulnerable) if seat is not None else (),
                waiting_for=waiting,
                outcome=ended,
                options=state.options,
                trade_partners=partners_of[seat],
                trade_wants=deck.card_names if partners_of[seat] else (),
                impotent=state.impotent,
            )
            for seat in seats
        ]
    )


def player_view(state: SEState, seat: int, deck: DeckViews) -> PlayerView:
    """The public view of one player."""
    slots = deck.slots
    return PlayerView(
        seat=seat,
        psyche=tuple([slots[slot.disorder, slot.drug] for slot in state.psyche[seat]]),
        hand_size=len(state.hands[seat]),
        vulnerable_to=vulnerable_to(state, seat),
        skips=state.skips[seat],
        no_play=state.no_play[seat],
        no_draw=state.no_draw[seat],
        place=state.places[seat],
    )


def prompt(state: SEState, seat: int | None) -> Prompt | None:
    """The prompt the game waits on, as ``seat`` may see it."""
    if state.phase == TREMORS:
        return Prompt(
            TREMORS,
            state.prompt_seat,
            state.current,
            state.prompt_seat,
            state.prompt_count,
            state.options.tremors_seconds,
            (),
        )
    if state.phase == ANXIETY:
        shown = state.hands[state.prompt_seat] if seat == state.current else []
        return Prompt(
            ANXIETY, state.current, state.current, state.prompt_seat, 0, 0.0, tuple([state.cards[c] for c in shown])
        )
    if state.phase == DISCARD_DOWN:
        extra = len(state.hands[state.current]) - HAND_LIMIT
        return Prompt(DISCARD_DOWN, state.current, NONE, state.current, extra, 0.0, ())
    return None


def offers_seen(state: SEState, seat: int | None) -> tuple[Offer, ...]:
    """The open offers ``seat`` is a party to (SE10: private to the two)."""
    if seat is None:
        return ()
    return tuple(
        Offer(oid, o.seat, o.to, tuple([state.cards[c] for c in o.give]), o.want)
        for oid, o in state.offers.items()
        if seat in (o.seat, o.to)
    )


def redact(event: Event, seat: int | None) -> Event:
    """``event`` with the cards ``seat`` may not see emptied (counts stay)."""
    if type(event) is CardsDrawn:
        return event if seat == event.seat else replace(event, cards=())
    if type(event) is CardsTaken or type(event) is HandShown:
        return event if seat in (event.seat, event.target) else replace(event, cards=())
    if type(event) is TradeOffered:
        return event if seat in (event.seat, event.to) else replace(event, give=(), want=())
    if type(event) is TradeAccepted:
        return event if seat in (event.seat, event.to) else replace(event, gave=(), got=())
    return event
