"""Hidden information never leaves the host: the leak property.

Every frame the host sends, decoded as a client decodes it, is checked
against the host's true state at the moment it is sent: it may not hold the
id of a card in another seat's hand or in a draw pile (nor a face-down
Patient), except where the rules show it to that seat (Anxiety's revealed
hand, a trade offer or trade between two seats, a card taken between two).
Spectators may see no hidden card at all.

Most games run through the Sans-IO table (the very bytes the sockets would
carry, and fast enough for hundreds of games); a few run over real loopback
sockets with the check hooked where the host hands frames to its sockets.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import random
from typing import Any

import pytest

from quackbox.cards.side_effects import SECard
from quackbox.core import bots as core_bots
from quackbox.core import games
from quackbox.core.bots import decide
from quackbox.core.rules import Event
from quackbox.net.config import TableConfig
from quackbox.net.host import Host, HostConfig
from quackbox.net.network_bot import run_network_bot
from quackbox.net.protocol import MoveMessage, Ready, Start, View, Wire
from quackbox.net.table import Send, Table
from tests.net.sansio import Driver

GAME_NAMES = sorted(games.GAMES)
CARD_FIELDS = {"card", "cards", "drug", "disorder", "mine", "theirs", "give", "gave", "got", "patient", "discard"}
PARTY_FIELDS = ("seat", "target", "to")
SCALARS = frozenset({int, str, float, bool, type(None)})
SANS_IO_GAMES = {"side-effects": 140, "quack": 60}
"""Games per game for the leak property (over 200 in all); Quack's are kept short by
a low round limit, since a whole game adds nothing over its first rounds here."""
SHORT_OPTIONS = {"quack": lambda rng: {"round_limit": rng.randint(2, 5)}}
SOCKET_GAMES = 3  # per game


def card_classes(game: str) -> tuple[type, ...]:
    if game == "quack":
        from quackbox.cards.quack import Anytime, Patient, Treatment

        return (Patient, Treatment, Anytime)
    return (SECard,)


def hidden(game: str, state: Any, seat: int | None) -> set[int]:
    """The card ids ``seat`` may not know the place of, in the true state."""
    others = [h for s, h in enumerate(state.hands) if s != seat]
    ids = {c for hand in others for c in hand}
    if game == "side-effects":
        ids |= set(state.draw)
    elif game == "quack":
        ids |= set(state.doc_deck) | set(state.patient_deck)
        ids |= {d.case.card for d in state.doctors if d.case is not None and d.case.face_down}
    else:  # pragma: no cover - a new game needs its own line here
        raise AssertionError(f"no leak rule for {game}")
    return ids


def shown_by_the_rules(game: str, state: Any, seat: int | None) -> set[int]:
    """Hidden ids the rules themselves show ``seat`` right now (SE7 Anxiety, SE10 offers)."""
    if game != "side-effects" or seat is None:
        return set()
    from quackbox.core import side_effects as se

    shown: set[int] = set()
    if state.phase == se.ANXIETY and seat == state.current:
        shown |= set(state.hands[state.prompt_seat])
    for offer in state.offers.values():
        if seat in (offer.seat, offer.to):
            shown |= set(offer.give)
    return shown


# Event fields that name cards only their parties may see: the rules empty
# them for everyone else (SE draws, takes, shown hands and trades; Quack draws).
# Other events name cards as they go face up (plays, discards), which is public.
PRIVATE_FIELDS = {
    "CardsDrawn": ("cards",),
    "CardsTaken": ("cards",),
    "HandShown": ("cards",),
    "TradeOffered": ("give", "want"),
    "TradeAccepted": ("gave", "got"),
}
# Event fields that name a face-down Patient: hidden from every seat.
FACE_DOWN_FIELDS = {
    "PatientAdmitted": ("patient",),
    "TreatmentPlayed": ("patient", "cure", "harm", "total_cure", "total_harm"),
}


class Found:
    """What one decoded frame shows, sorted by where it was found."""

    def __init__(self) -> None:
        self.view: set[int] = set()
        """Card ids outside any event: what the seat is shown of the state now."""
        self.private: list[str] = []
        """Private event fields that were not emptied for this seat."""


@functools.cache
def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))


def card_ids(value: Any, seat: int | None, classes: tuple[type, ...], found: Found, in_event: bool = False) -> None:
    """Collect the card ids a decoded value shows, and check its events."""
    kind_of = type(value)
    if kind_of is tuple:
        for item in value:
            if type(item) in SCALARS:
                break  # a tuple of plain values holds no card object
            card_ids(item, seat, classes, found, in_event)
        return
    if kind_of in SCALARS or not hasattr(kind_of, "__dataclass_fields__"):
        return
    if isinstance(value, classes):
        if not in_event:
            found.view.add(value.id)
        return
    kind = type(value).__name__
    if isinstance(value, Event):
        in_event = True
        party = seat is not None and any(getattr(value, f, None) == seat for f in PARTY_FIELDS)
        if not party:
            for name in PRIVATE_FIELDS.get(kind, ()):
                if getattr(value, name):
                    found.private.append(f"{kind}.{name}={getattr(value, name)!r}")
        if getattr(value, "face_down", False):
            for name in FACE_DOWN_FIELDS.get(kind, ()):
                if getattr(value, name) != -1:
                    found.private.append(f"face-down {kind}.{name}={getattr(value, name)!r}")
        return
    if kind == "Offer" and seat is not None and seat not in (value.seat, value.to):
        found.private.append(f"an offer between seats {value.seat} and {value.to}")
    for name in _field_names(type(value)):
        item = getattr(value, name)
        if name in CARD_FIELDS and isinstance(item, int) and not isinstance(item, bool):
            if item >= 0:
                found.view.add(item)
        elif name in CARD_FIELDS and isinstance(item, tuple) and all(type(i) is int for i in item):
            found.view.update(i for i in item if i >= 0)
        else:
            card_ids(item, seat, classes, found, in_event)


class NotingRules:
    """A game's rules that note, after the deal and after every move, which
    cards each seat may not see then.

    The table may make several moves in one step (bots answering one
    response window) and hand over all their frames at once, so by the time
    a View is checked, the state may have moved on: a reminder that View
    showed face up may since have been discarded and shuffled into the deck.
    The View numbered n is checked against the secrets noted after move n.
    """

    def __init__(self, rules: Any) -> None:
        self._rules = rules
        self.moves = 0
        self.secrets: dict[int, dict[int | None, set[int]]] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._rules, name)

    def new_game(self, **kwargs: Any) -> Any:
        state = self._rules.new_game(**kwargs)
        self.moves = 0
        self._note(state)
        return state

    def apply(self, state: Any, seat: int, move: Any) -> list:
        events = self._rules.apply(state, seat, move)
        self.moves += 1
        self._note(state)
        return events

    def _note(self, state: Any) -> None:
        game = self._rules.name
        self.secrets[self.moves] = {
            s: hidden(game, state, s) - shown_by_the_rules(game, state, s) for s in (None, *range(state.seats))
        }


class LeakChecker:
    """Checks every frame a table sends, at the moment it sends it.

    What a frame shows of the state (its view, its legal moves) is checked
    against the cards hidden from that seat in the true state (for a View,
    the state it was made from: see NotingRules). Events
    tell what happened during the move, when a card may have been public for
    a moment (discarded, then reshuffled and drawn), so they are checked by
    kind instead: the fields that name private cards must be empty for
    every seat that is not a party, and a face-down Patient named for nobody.
    """

    def __init__(self, table: Table, seat_of: dict[int, int | None]) -> None:
        self.table = table
        self.game = table.rules.name
        self.wire = Wire(table.rules)
        self.classes = card_classes(self.game)
        self.seat_of = seat_of
        self.frames = 0
        self.views = 0
        self.events = 0
        self.noted = 0
        """Views checked against the secrets noted for them (see NotingRules)."""

    def __call__(self, actions: list) -> None:
        """Check raw actions (as the asyncio host hands them to its sockets)."""
        for action in actions:
            if isinstance(action, Send) and action.conn in self.seat_of:
                self.check(action.conn, self.wire.decode_from_host(action.data))

    def check(self, conn: int, message: Any) -> None:
        """Check one decoded frame about to go to ``conn``, against the state now."""
        state = self.table.state
        if state is None or conn not in self.seat_of:
            return
        self.frames += 1
        if isinstance(message, View):
            self.views += 1
            self.events += len(message.events)
        seat = self.seat_of[conn]
        found = Found()
        card_ids(message, seat, self.classes, found)
        rules = self.table.rules
        if isinstance(message, View) and isinstance(rules, NotingRules):
            secret = rules.secrets[message.seq][seat]
            self.noted += 1
        else:
            secret = hidden(self.game, state, seat) - shown_by_the_rules(self.game, state, seat)
        leaked = found.view & secret
        assert not leaked, f"seat {seat} was sent hidden card(s) {sorted(leaked)} in {message!r}"[:3000]
        assert not found.private, f"seat {seat} was sent {found.private} in {message!r}"[:3000]


def play_sans_io(game: str, seed: int) -> LeakChecker:
    """One game at a headless table: some seats are people (driven by bots
    through their decoded views), the rest host bots, plus a spectator."""
    rng = random.Random(seed)
    rules = games.get(game)
    seats = rng.randint(rules.min_seats, min(rules.max_seats, 5))
    people = rng.randint(1, seats)
    options = SHORT_OPTIONS[game](rng) if game in SHORT_OPTIONS else {}
    table = Table(
        TableConfig(game=game, seats=seats, headless=True, bot_delay=0.0, seed=seed, options=options),
        rules=NotingRules(rules),
    )
    seat_of: dict[int, int | None] = {}
    checker = LeakChecker(table, seat_of)
    d = Driver(table, on_frame=checker.check)
    brains = {}
    for conn in range(1, people + 1):
        welcome = d.join(conn, f"P{conn}")
        seat_of[conn] = welcome.seat
        brains[conn] = core_bots.make(game, "heuristic", seed * 10 + conn)
        d.send(conn, Ready())
    d.join(99, "Watcher", spectate=True)
    seat_of[99] = None
    d.send(1, Start())
    handled: dict[int, int] = {}
    for _ in range(20_000):
        if table.phase != "playing":
            break
        moved = False
        for conn, brain in brains.items():
            latest = d.view(conn)
            if handled.get(conn) == latest.seq:
                continue
            handled[conn] = latest.seq
            move = decide(brain, latest.view)
            if move is not None:
                d.send(conn, MoveMessage(seq=latest.seq, move=move))
                moved = True
        # Let host bots act; if nobody could, let more time pass (a deadline, a stand-in).
        d.advance(0.01 if moved else 1.0)
    assert table.phase == "over", f"{game} seed {seed} did not finish"
    assert checker.views > 0 and checker.noted == checker.views
    return checker


@pytest.mark.parametrize("game", GAME_NAMES)
def test_no_hidden_card_reaches_the_wrong_seat(game):
    per_game = SANS_IO_GAMES.get(game, 60)
    frames = 0
    for seed in range(per_game):
        frames += play_sans_io(game, seed).frames
    assert frames > per_game * 10  # the check really looked at a lot of frames


def test_the_checker_catches_a_leak():
    """The property must be able to fail: a table that shows everyone seat 0's hand."""
    game = "side-effects"
    rules = games.get(game)

    class Leaky:
        def __getattr__(self, name):
            return getattr(rules, name)

        def view(self, state, seat):
            return rules.view(state, 0)  # every seat sees seat 0's view

        def views(self, state, seats):
            return tuple(self.view(state, seat) for seat in seats)

    table = Table(TableConfig(game=game, seats=2, headless=True, bot_delay=0, seed=3), rules=Leaky())
    seat_of: dict[int, int | None] = {}
    d = Driver(table, on_frame=LeakChecker(table, seat_of).check)
    seat_of[1] = d.join(1).seat
    seat_of[2] = d.join(2).seat
    d.send(2, Ready())
    with pytest.raises(AssertionError, match="hidden card"):
        d.send(1, Start())


class CheckedHost(Host):
    """A host that runs the leak check on every frame it hands to a socket."""

    def __init__(self, config: HostConfig) -> None:
        super().__init__(config, rules=NotingRules(games.get(config.game)))
        self.seat_of: dict[int, int | None] = {}
        self.checker = LeakChecker(self.table, self.seat_of)

    def _do(self, actions: list) -> None:
        for peer in self.table.lobby.peers.values():  # the test knows which connection holds which seat
            if peer.welcomed:
                self.seat_of[peer.conn] = peer.seat
        self.checker(actions)
        super()._do(actions)


@pytest.mark.parametrize("game", GAME_NAMES)
async def test_no_leak_over_loopback(game):
    for seed in range(SOCKET_GAMES):
        seats = 3 + seed % 2
        config = HostConfig(
            game=game,
            seats=seats,
            bots=1,
            headless=True,
            autostart=True,
            bot_delay=0,
            seed=seed,
            bind="127.0.0.1",
            port=0,
        )
        async with CheckedHost(config) as host:
            players = [
                asyncio.create_task(run_network_bot(host.url, f"B{i}", kind="heuristic", seed=seed * 7 + i))
                for i in range(seats - 1)
            ]
            outcomes = await asyncio.wait_for(asyncio.gather(*players), 60)
            assert all(o == host.table.outcome for o in outcomes)
        assert host.checker.views > 0 and host.checker.noted == host.checker.views
