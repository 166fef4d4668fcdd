"""Quack in the Box: the complete rules, per the rulebook and rulings QB1-QB10.

Play: every doctor keeps one Patient at a time and a hand of six Doc cards.
Each turn has six phases (rulebook, "Sequence of Play"):

1. flee to Switzerland, or stay (a decision; none in Deathmatch);
2. draw up to six (in Switzerland: draw until one Anytime card, discard the rest);
3. admit a Patient if you have none, collect the $50 co-pay (face down under
   Diagnostic Dilemma until its first round of Treatments is done);
4. roll the required Treatments, 2-5 (a die rerolling 1s and 6s);
5. play them one at a time (QB4); short of Treatments, play them all, then
   play or discard one Anytime card; then payday (QB5);
6. the Angry Mob (QB6).

Anytime cards (QB8) may be played by any doctor still in the game, on anyone,
at any time: they are legal moves of every such seat in every state. To give
people a fair chance between any two Treatments, each Treatment opens a
response *window*: the doctors (other than the one treating) who could play an
Anytime card are waited for, each answering :class:`Pass` or
:class:`PlayAnytime`. The window has a :class:`~core.rules.Deadline`; when it
passes the host applies its :class:`Timeout`, which closes the window for
everyone who has not answered. ``window_seconds = 0`` turns windows off.

The State is mutable and owned by the caller; :data:`RULES` holds no game.
Piles are lists whose top is the *end* of the list.

Legal moves come in this order (bots, tests and the TUI rely on it):

- the phase's own moves, for the seat the game waits on: ``StayHome``,
  ``FleeToSwitzerland`` (phase 1); ``PlayTreatment`` by hand order, then by
  target seat (phase 5); ``Pass`` (in a window);
- then ``PlayAnytime`` by hand order, then target seat, then second seat, then
  the card to discard in hand order;
- then ``Discard`` of each Anytime card by hand order (short-hand rule only).

``Timeout`` is never listed: only the host applies it, from :meth:`deadline`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, fields, replace
from functools import partial
from itertools import repeat, starmap
from math import floor
from typing import Any, Iterable, Mapping, Sequence

from cards import quack as qc
from cards.quack import Anytime, Patient, Treatment
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
    Shared,
    record,
)

GAME = "quack"
HAND_SIZE = 6
CO_PAY = 50
DIE_SIDES = 6
DIE_LOW, DIE_HIGH = 2, 5  # phase 4: reroll anything outside this
NONE = -1  # "no seat" / "no card" in moves and events

# Phases (what the game is waiting for)
FLEE = "flee"  # phase 1: the doctor whose turn it is decides to stay or flee
TREAT = "treat"  # phase 5: the doctor plays Treatments
SHORT_HAND = "short_hand"  # phase 5, out of Treatments: play or discard an Anytime card
WINDOW = "window"  # after a Treatment: other doctors may play an Anytime card
OVER = "over"
_END = "end"  # internal: the turn is over, phase 6 and the next turn follow
_NEXT = "next"  # internal: the next turn is to start

# Doctor status
PRACTISING = "practising"
SWITZERLAND = "switzerland"
MOBBED = "mobbed"

# 2-player endgame trigger (QB3)
ONE_LEFT = "one_left"  # when one doctor is left practising, they take one more turn
IMMEDIATE = "immediate"  # when one doctor is left practising, the game ends with the turn
PLAY_ON = "play_on"  # the last doctor plays on until they flee or are mobbed (or the round limit)
TWO_PLAYER_ENDGAMES = (ONE_LEFT, IMMEDIATE, PLAY_ON)

_PATIENT, _TREATMENT, _ANYTIME = 0, 1, 2


# --- options ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class QuackOptions:
    """Table options (QB3). The defaults are the rulebook game."""

    infamy_threshold: int = 6
    """The Angry Mob comes for a doctor at or above this much Infamy (QB6)."""
    two_player_endgame: str = ONE_LEFT
    """With 2 seats: ``one_left``, ``immediate`` or ``play_on`` (QB3)."""
    turbo_infamy: bool = False
    """Variant: when a Patient dies, every practising doctor gains 1 Infamy."""
    group_practice: bool = False
    """Variant: Treatments may go on any Patient; the killer takes all the Infamy."""
    deathmatch: bool = False
    """Variant: nobody can flee the country."""
    round_limit: int = 30
    """After this many rounds the endgame starts, so every game ends (QB3)."""
    window_seconds: float = 10.0
    """How long other doctors have to answer with an Anytime card after each
    Treatment (QB8); 0 opens no windows."""
    first_seat: int = -1
    """The seat that starts; -1 draws it at random."""


_DEFAULT_OPTIONS = QuackOptions()
"""Options are frozen values, so every game without options shares this one
(building a QuackOptions cost as much as a tenth of new_game)."""

_OPTION_LIMITS: dict[str, tuple[float, float]] = {
    "infamy_threshold": (1, 50),
    "round_limit": (1, 500),
    "window_seconds": (0.0, 600.0),
    "first_seat": (-1, 7),
}
_OPTION_CHOICES = {"two_player_endgame": TWO_PLAYER_ENDGAMES}
_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")


def parse_options(values: Mapping[str, Any] | QuackOptions | None) -> QuackOptions:
    """Options from plain values (names with ``-`` or ``_``; the command line may
    give every value as text); BadOptions with a plain sentence if wrong."""
    if values is None:
        return _DEFAULT_OPTIONS
    if isinstance(values, QuackOptions):
        values = {f.name: getattr(values, f.name) for f in fields(QuackOptions)}
    if not isinstance(values, Mapping):
        raise BadOptions(f"Options must be a table of names and values, not {values!r}.")
    known = {f.name: f for f in fields(QuackOptions)}
    out: dict[str, Any] = {}
    for raw_key, value in values.items():
        key = str(raw_key).replace("-", "_")
        if key not in known:
            raise BadOptions(f"Quack in the Box has no option {raw_key!r}; options are {', '.join(known)}.")
        default = known[key].default
        if isinstance(default, bool):
            if isinstance(value, str) and value.strip().lower() in _TRUE + _FALSE:
                value = value.strip().lower() in _TRUE
            if not isinstance(value, bool):
                raise BadOptions(f"Option {key} must be true or false, not {value!r}.")
        elif isinstance(default, str):
            choices = _OPTION_CHOICES[key]
            if not isinstance(value, str) or value.strip().replace("-", "_") not in choices:
                raise BadOptions(f"Option {key} must be one of {', '.join(choices)}, not {value!r}.")
            value = value.strip().replace("-", "_")
        else:
            if isinstance(value, str):
                try:
                    value = float(value) if isinstance(default, float) else int(value.strip())
                except ValueError:
                    raise BadOptions(f"Option {key} must be a number, not {value!r}.") from None
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise BadOptions(f"Option {key} must be a number, not {value!r}.")
            if isinstance(default, int) and value != int(value):
                raise BadOptions(f"Option {key} must be a whole number, not {value!r}.")
            low, high = _OPTION_LIMITS[key]
            if not low <= value <= high:
                raise BadOptions(f"Option {key} must be from {low:g} to {high:g}, not {value!r}.")
            value = type(default)(value)
        out[key] = value
    return QuackOptions(**out)


# --- moves ------------------------------------------------------------------


@record
class StayHome(Move):
    """Phase 1: face another day at the office."""


@record
class FleeToSwitzerland(Move):
    """Phase 1: a one-way trip; Money and Infamy freeze for good (QB7)."""


@record
class PlayTreatment(Move):
    """Phase 5: play the Treatment ``card`` on your Patient, or (Group Practice)
    on the Patient of seat ``target``; -1 means your own."""

    card: int
    target: int = NONE


@record
class PlayAnytime(Move):
    """Play the Anytime ``card`` on seat ``target`` (a doctor, or the doctor
    whose Patient it aims at). ``other`` is the second seat for Wrong Chart
    (whose Patient receives the Treatment) and Patient Transfer; ``discard`` is
    the card Paper Shredder throws away. Unused fields stay -1."""

    card: int
    target: int
    other: int = NONE
    discard: int = NONE


@record
class Discard(Move):
    """Short-hand rule: out of Treatments, discard the Anytime ``card`` instead of playing it."""

    card: int


@record
class Pass(Move):
    """In a response window: let the moment pass without playing an Anytime card."""


@record
class Timeout(Move):
    """Applied by the host, never sent by a player: response window ``window``
    ran out of time. Every doctor who has not answered passes."""

    window: int


MOVE_TYPES = (StayHome, FleeToSwitzerland, PlayTreatment, PlayAnytime, Discard, Pass, Timeout)

_STAY = StayHome()
_FLEE = FleeToSwitzerland()
_PASS = Pass()


# --- events -----------------------------------------------------------------


@record
class TurnStarted(Event):
    seat: int
    round: int


@record
class DoctorFled(Event):
    """``seat`` left for Switzerland with this Money and Infamy, frozen for good."""

    seat: int
    money: int
    infamy: int


@record
class CardsDrawn(Event):
    """``cards`` is empty in every copy but the drawer's; ``count`` is public."""

    seat: int
    cards: tuple[int, ...]
    count: int


@record
class CardsDiscarded(Event):
    """Cards went face up to the discard pile. ``reason``: ``switzerland`` (the
    Switzerland draw), ``fled`` (Treatments dropped on fleeing), ``mobbed``,
    ``short_hand``, ``shred``."""

    seat: int
    cards: tuple[int, ...]
    reason: str


@record
class DeckReshuffled(Event):
    """The discard pile became the ``pile`` deck (``doc`` or ``patient``)."""

    pile: str
    count: int


@record
class PatientAdmitted(Event):
    """``patient`` is -1 in every copy while ``face_down`` (Diagnostic Dilemma)."""

    seat: int
    patient: int
    face_down: bool


@record
class PatientRevealed(Event):
    seat: int
    patient: int


@record
class MoneyPaid(Event):
    """``reason`` is ``co-pay`` or ``treatments``; ``cards`` are the Treatments paid for."""

    seat: int
    amount: int
    reason: str
    cards: tuple[int, ...]


@record
class MoneyLost(Event):
    seat: int
    amount: int
    reason: str


@record
class DieRolled(Event):
    """``rolls`` are every throw (1s and 6s rerolled); ``owed`` is the Treatments
    required after reminders (Teaching Hospital, Staff Shortage)."""

    seat: int
    rolls: tuple[int, ...]
    value: int
    owed: int


@record
class TreatmentPlayed(Event):
    """``seat`` played ``card`` on the Patient of ``target``. ``cure``/``harm``
    are the points it gave, ``total_cure``/``total_harm`` the Patient's totals;
    all four and ``patient`` are -1 in every copy while ``face_down``.
    ``note`` is ``nullified``, ``doubled`` or empty."""

    seat: int
    card: int
    target: int
    patient: int
    face_down: bool
    cure: int
    harm: int
    total_cure: int
    total_harm: int
    received: int
    redirected: bool
    note: str


@record
class PatientCured(Event):
    """The Patient of ``seat`` went home cured; ``by`` played the card that did it."""

    seat: int
    patient: int
    by: int


@record
class PatientDied(Event):
    """The Patient of ``seat`` died of ``cause`` (``harm`` or ``mortal``); ``by``
    played the card that did it."""

    seat: int
    patient: int
    cause: str
    by: int


@record
class PatientDischarged(Event):
    """The Patient left with no cure and no death: its doctor ``fled`` or was ``mobbed``."""

    seat: int
    patient: int
    reason: str


@record
class InfamyChanged(Event):
    """``change`` may be negative; ``reason``: ``death``, ``turbo``, ``anytime``."""

    seat: int
    change: int
    total: int
    reason: str


@record
class AnytimePlayed(Event):
    seat: int
    card: int
    target: int
    other: int
    discard: int


@record
class ReminderDiscarded(Event):
    """A reminder card next to ``seat`` (or their Patient) went to the discard
    pile: ``used`` (it acted) or ``fizzled`` (its target was gone)."""

    seat: int
    card: int
    reason: str


@record
class TreatmentsOwedChanged(Event):
    seat: int
    owed: int


@record
class WindowOpened(Event):
    """After a Treatment: ``seats`` may play an Anytime card before play goes on."""

    window: int
    seats: tuple[int, ...]


@record
class DoctorMobbed(Event):
    seat: int
    infamy: int


@record
class EndgameStarted(Event):
    """Each of ``seats`` takes one more turn, then the game ends (QB9)."""

    seats: tuple[int, ...]
    reason: str


@record
class GameEnded(Event):
    winners: tuple[int, ...]
    round: int
    reason: str


EVENT_TYPES = (
    TurnStarted,
    DoctorFled,
    CardsDrawn,
    CardsDiscarded,
    DeckReshuffled,
    PatientAdmitted,
    PatientRevealed,
    MoneyPaid,
    MoneyLost,
    DieRolled,
    TreatmentPlayed,
    PatientCured,
    PatientDied,
    PatientDischarged,
    InfamyChanged,
    AnytimePlayed,
    ReminderDiscarded,
    TreatmentsOwedChanged,
    WindowOpened,
    DoctorMobbed,
    EndgameStarted,
    GameEnded,
)


# --- views ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PatientView:
    """A Patient in an office. While ``face_down`` nobody (its doctor included)
    sees ``patient``, ``cure_points`` or ``harm_points``: they are None."""

    patient: Patient | None
    face_down: bool
    cure_points: int | None
    harm_points: int | None
    received: int
    """Treatment cards received so far (what Mortal counts)."""
    treatments: tuple[Treatment, ...]
    reminders: tuple[Anytime, ...]


@dataclass(frozen=True, slots=True)
class DoctorView:
    seat: int
    status: str
    """``practising``, ``switzerland`` or ``mobbed``."""
    money: int
    infamy: int
    hand_size: int
    patient: PatientView | None
    reminders: tuple[Anytime, ...]
    """Anytime cards waiting to act on this doctor (QB8)."""
    final_turn: bool
    """In the endgame: this doctor still has their one more turn to take."""


@dataclass(frozen=True, slots=True)
class QuackView:
    """Everything one seat may see, including its legal moves."""

    game: str
    seat: int | None
    round: int
    turn: int
    """The seat whose turn it is."""
    phase: str
    die: int
    """This turn's roll, 0 before it is rolled."""
    owed: int
    """Treatments the doctor whose turn it is must still play this round."""
    doctors: tuple[DoctorView, ...]
    hand: tuple[Treatment | Anytime, ...]
    doc_deck: int
    doc_discard: int
    patient_deck: int
    patient_discard: int
    window: tuple[int, ...]
    """Seats still to answer in the open response window."""
    endgame: bool
    threshold: int
    legal: tuple[Move, ...]
    waiting_for: tuple[int, ...]
    outcome: Outcome | None
    options: QuackOptions


# --- state ------------------------------------------------------------------


class Case:
    """A Patient in an office, with what it has been through."""

    __slots__ = ("card", "cure", "harm", "received", "face_down", "treatments", "reminders")

    def __init__(self, card: int, face_down: bool = False) -> None:
        self.card = card
        self.cure = 0
        self.harm = 0
        self.received = 0
        self.face_down = face_down
        self.treatments: list[int] = []
        """Treatment cards on the Patient (discarded when it leaves)."""
        self.reminders: list[int] = []
        """Anytime cards waiting beside the Patient."""


class Doctor:
    """One seat's doctor. ``reminders`` are Anytime cards waiting beside them."""

    __slots__ = ("money", "infamy", "status", "patient", "reminders", "redirect_card", "redirect_to")

    def __init__(self) -> None:
        self.money = 0
        self.infamy = 0
        self.status = PRACTISING
        self.patient: Case | None = None
        self.reminders: list[int] = []
        self.redirect_card = NONE
        """The pending Wrong Chart card, and the Patient card it sends the next Treatment to."""
        self.redirect_to = NONE


class QuackState:
    """One game of Quack in the Box, mutable. Card ids index ``cards``.

    Where each card is: ``patient_deck``, ``patient_discard``, ``doc_deck``,
    ``doc_discard`` (tops are list ends), ``hands[seat]``, a doctor's Patient
    (``doctors[seat].patient``: the card, its Treatments and reminders) or a
    doctor's ``reminders``.
    """

    __slots__ = (
        "seats",
        "options",
        "rng",
        "cards",
        "kinds",
        "anytime_ids",
        "effects",
        "groups",
        "easy_ids",
        "patient_seats",
        "practising_seats",
        "patient_deck",
        "patient_stacked",
        "patient_discard",
        "doc_deck",
        "doc_discard",
        "hands",
        "doctors",
        "first",
        "turn",
        "round",
        "phase",
        "die",
        "owed",
        "short_done",
        "plays",
        "dead",
        "window",
        "window_id",
        "endgame",
        "final_pending",
        "over",
        "result",
        "start_events",
        "version",
        "_public",
        "_offered",
        "_offered_seat",
        "_offered_version",
    )

    def __init__(
        self,
        seats: int,
        options: QuackOptions,
        rng: random.Random,
        cards: tuple,
        kinds: tuple,
        anytime_ids: frozenset[int],
        effects: tuple[str | None, ...],
        groups: tuple[int, ...],
        easy_ids: frozenset[int],
    ) -> None:
        self.seats = seats
        self.options = options
        self.rng = rng
        self.cards = cards
        self.kinds = kinds
        self.anytime_ids = anytime_ids
        """The Anytime card ids (from ``kinds``): ``not anytime_ids.isdisjoint(hand)``
        asks "holds an Anytime card?" in C."""
        self.effects = effects
        """Per card id, the Anytime card's effect; None for other cards."""
        self.groups = groups
        """Per card id, how an Anytime card finds its targets (``_ON_PATIENT``...); 0 for other cards."""
        self.easy_ids = easy_ids
        """The Anytime cards that target any seat with a Patient, or any
        practising seat: while there are both, their holders can always play."""
        self.patient_seats = 0
        """Bit ``s`` is set while seat ``s`` has a Patient (kept by _admit and _discharge)."""
        self.practising_seats = (1 << seats) - 1
        """Bit ``s`` is set while seat ``s`` practises (cleared by _flee and _mob)."""
        self.patient_deck: list[int] = []
        """In no order: each admission takes a Patient at random (see _admit)."""
        self.patient_stacked = 0
        """How many cards on top of the Patient deck are in a known order: a
        test that stacks the deck says so here. The game itself never does."""
        self.patient_discard: list[int] = []
        self.doc_deck: list[int] = []
        self.doc_discard: list[int] = []
        self.hands: list[list[int]] = []
        """Filled by new_game's deal."""
        self.doctors = []
        for _ in range(seats):
            self.doctors.append(Doctor())
        self.first = 0
        self.turn = 0
        self.round = 1
        self.phase = FLEE
        self.die = 0
        self.owed = 0
        self.short_done = False
        """The short-hand Anytime card has been played or discarded this turn."""
        self.plays: list[tuple[int, int]] = []
        """(Treatment card, Patient card) played this turn by the doctor whose turn it is."""
        self.dead: set[int] = set()
        """Patient cards that died this turn: Treatments on them pay nothing."""
        self.window: list[int] = []
        self.window_id = 0
        self.endgame = False
        self.final_pending: set[int] = set()
        """In the endgame: practising seats that have not yet started their last turn."""
        self.over = False
        self.result: Outcome | None = None
        self.start_events: tuple[Event, ...] = ()
        """What happened inside new_game (the first turn's start), for the log."""
        self.version = 0
        """Bumped by every applied move; views cache the public rows per version.
        Code that edits a State by hand (tests stacking a deck) calls :meth:`touch`."""
        self._public: tuple[int, tuple] | None = None
        self._offered: tuple[Move, ...] = ()
        """The last ``legal_moves`` answer, for ``_offered_seat`` at
        ``_offered_version``: ``apply`` accepts a move listed there without
        re-checking it."""
        self._offered_seat = self._offered_version = -1

    def touch(self) -> None:
        """Note a change made outside ``apply`` so cached view parts are rebuilt."""
        self.version += 1
        self._public = None
        self._offered, self._offered_seat, self._offered_version = (), -1, -1
        self.patient_seats = self.practising_seats = 0
        for s, doctor in enumerate(self.doctors):
            if doctor.patient is not None:
                self.patient_seats |= 1 << s
            if doctor.status == PRACTISING:
                self.practising_seats |= 1 << s


# --- the rules --------------------------------------------------------------


class Quack:
    """The Quack in the Box rules object (see core.rules.Rules)."""

    name = GAME
    title = "Quack in the Box"
    min_seats = 2
    max_seats = 8

    def __init__(self, deck: qc.Deck | None = None) -> None:
        self.deck = deck if deck is not None else qc.load()
        self.cards = self.deck.build()
        kinds = []
        for c in self.cards:
            kinds.append(_PATIENT if type(c) is Patient else _TREATMENT if type(c) is Treatment else _ANYTIME)
        self.kinds = tuple(kinds)
        # The two decks in id order, made once: new_game copies them and shuffles the Doc deck.
        self._patient_ids = tuple(c for c in range(len(kinds)) if kinds[c] == _PATIENT)
        self._doc_ids = tuple(c for c in range(len(kinds)) if kinds[c] != _PATIENT)
        self._anytime_ids = frozenset(c for c in range(len(kinds)) if kinds[c] == _ANYTIME)
        self._effects = tuple(card.effect if kinds[card.id] == _ANYTIME else None for card in self.cards)
        self._groups = tuple(_GROUPS.get(effect, _ON_OTHER) if effect else 0 for effect in self._effects)
        self._easy_ids = frozenset(c for c, group in enumerate(self._groups) if group in (_ON_PATIENT, _ON_PRACTISING))
        # The moves legal_moves hands out most, made up front so it can index them.
        self._own_treat_moves = tuple(
            _treat_move(c, NONE) if kinds[c] == _TREATMENT else None for c in range(len(kinds))
        )
        """PlayTreatment(card) on your own Patient, by card id (None for other cards)."""
        for c in self._anytime_ids:
            _single_moves(c)
            if self._effects[c] in (_REDIRECT, _TRANSFER):
                _pair_moves(c)
            _MASK_MOVES.setdefault(c, [None] * (1 << _MAX_SEATS))
        # (cure, harm) of each Treatment card on each Patient card: _points[treatment][patient].
        patient_ids = frozenset(self._patient_ids)
        self._points: list[list[tuple[int, int]] | None] = [
            [treatment_points(c, self.cards[p]) if p in patient_ids else (0, 0) for p in range(len(self.cards))]
            if type(c) is Treatment else None
            for c in self.cards
        ]

    def card_name(self, card_id: int) -> str:
        """The name of card ``card_id`` (for sentences; ids are public)."""
        return self.cards[card_id].name if 0 <= card_id < len(self.cards) else f"card {card_id}"

    # options ---------------------------------------------------------------

    def default_options(self) -> QuackOptions:
        return QuackOptions()

    def parse_options(self, values: Mapping[str, Any] | QuackOptions | None) -> QuackOptions:
        return parse_options(values)

    # setup -----------------------------------------------------------------

    def new_game(self, *, seats: int, options: Any = None, seed: int) -> QuackState:
        """Shuffle both decks, deal six Doc cards each (rulebook, Starting the Game)."""
        if isinstance(seats, bool) or not isinstance(seats, int) or not self.min_seats <= seats <= self.max_seats:
            raise BadOptions(f"Quack in the Box is for {self.min_seats} to {self.max_seats} players, not {seats!r}.")
        opts = parse_options(options)
        if opts.first_seat >= seats:
            raise BadOptions(f"first_seat must be a seat from 0 to {seats - 1}, not {opts.first_seat}.")
        rng = random.Random(seed)
        state = QuackState(
            seats, opts, rng, self.cards, self.kinds, self._anytime_ids, self._effects,
            self._groups, self._easy_ids,
        )
        state.patient_deck = list(self._patient_ids)  # in no order (see _admit)
        state.doc_deck = deck = list(self._doc_ids)
        _shuffle(rng, deck)
        # Deal six each, one at a time round the table from the top of the deck
        # (its end): the k-th card off the deck goes to seat k % seats.
        dealt = min(HAND_SIZE * seats, len(deck))
        top = deck[len(deck) - dealt:]
        del deck[len(deck) - dealt:]
        top.reverse()
        hands = state.hands
        for seat in range(seats):
            hands.append(top[seat::seats])
        state.first = opts.first_seat if opts.first_seat >= 0 else rng.randrange(seats)
        events: list[Event] = []
        self._start_turn(state, state.first, events)
        self._proceed(state, events)
        state.start_events = tuple(events)
        return state

    # queries ---------------------------------------------------------------

    def waiting_for(self, state: QuackState) -> tuple[int, ...]:
        phase = state.phase
        if phase == WINDOW:
            return tuple(state.window)
        if phase == OVER:
            return ()
        return _ONE_SEAT[state.turn]

    def deadline(self, state: QuackState) -> Deadline | None:
        """The response window's deadline. Its seat is the doctor whose turn it
        is; its Timeout closes the whole window (every seat not yet answered passes)."""
        if state.phase == WINDOW and state.options.window_seconds > 0:
            return Deadline(state.turn, state.options.window_seconds, WINDOW, Timeout(state.window_id))
        return None

    def outcome(self, state: QuackState) -> Outcome | None:
        return state.result

    def legal_moves(self, state: QuackState, seat: int) -> tuple[Move, ...]:
        # Two comparisons rather than a chained one: CPython 3.11 specialises only the former.
        if state.over or type(seat) is not int or seat < 0 or seat >= state.seats:
            return ()
        if state.doctors[seat].status == MOBBED:
            return ()
        phase = state.phase
        hand = state.hands[seat]
        groups = state.groups
        anytime = hand  # the cards to look at for Anytime moves
        if seat == state.turn and phase != WINDOW:
            if phase == FLEE:
                out: list[Move] = [_STAY] if state.options.deathmatch else [_STAY, _FLEE]
            elif phase == TREAT:
                if state.options.group_practice:
                    out = self._group_treatment_moves(state, seat, hand)
                else:
                    # One pass: the Treatments' moves now, the Anytime cards kept for below.
                    own = self._own_treat_moves
                    out = []
                    anytime = []
                    for c in hand:
                        if groups[c]:
                            anytime.append(c)
                        else:
                            out.append(own[c])
            else:
                out = []
        elif phase == WINDOW and seat in state.window:
            out = [_PASS]
        else:
            out = []
        for c in anytime:
            group = groups[c]
            if group:
                # The two commonest kinds of target are bitmasks kept in the State.
                if group == _ON_PATIENT:
                    mask = state.patient_seats
                elif group == _ON_PRACTISING:
                    mask = state.practising_seats
                else:
                    _anytime_moves(state, seat, c, state.effects[c], out)
                    continue
                moves = _MASK_MOVES[c][mask]
                out += moves if moves is not None else _mask_moves(c, mask)
        if phase == SHORT_HAND and seat == state.turn:
            for c in hand:
                if groups[c]:
                    out.append(_discard_move(c))
        moves = state._offered = tuple(out)
        state._offered_seat = seat
        state._offered_version = state.version
        return moves

    def _group_treatment_moves(self, state: QuackState, seat: int, hand: list[int]) -> list[Move]:
        kinds, doctors = state.kinds, state.doctors
        targets = [NONE] + [t for t in range(state.seats) if t != seat and doctors[t].patient is not None]
        return [_treat_move(c, t) for c in hand if kinds[c] == _TREATMENT for t in targets]

    # the legality gate -----------------------------------------------------

    def check(self, state: QuackState, seat: int, move: Move) -> None:
        """Raise a RulesError with a plain sentence if the move is not allowed."""
        self._check(state, seat, move)

    def _check(self, state: QuackState, seat: Any, move: Any) -> None:
        kind = type(move)
        if id(move) not in _KNOWN_MOVES:  # moves this module built are well formed
            spec = _MOVE_FIELDS.get(kind)
            if spec is None:
                raise MalformedMove(f"{move!r} is not a Quack in the Box move.")
            for name in spec:
                value = getattr(move, name)
                if type(value) is not int:
                    raise MalformedMove(f"{kind.__name__}.{name} must be a whole number, not {value!r}.")
        if type(seat) is not int or seat < 0 or seat >= state.seats:
            raise MalformedMove(f"There is no seat {seat!r} at this table of {state.seats}.")
        if state.over:
            raise GameOver("The game is over.")
        phase = state.phase
        if kind is Timeout:
            if phase != WINDOW or move.window != state.window_id:
                raise IllegalMove(f"Response window {move.window} is not open, so it cannot time out.")
            return
        if state.doctors[seat].status == MOBBED:
            raise NotYourTurn("The Angry Mob ran you out of town: you are out of the game.")
        if kind is PlayAnytime:
            _check_anytime(state, seat, move)
            return
        if phase == WINDOW:
            window = state.window
            if seat not in window:
                raise NotYourTurn(
                    f"The game is waiting for seat(s) {', '.join(map(str, window))} to play an Anytime card or pass."
                )
            if kind is Pass:
                return
            raise IllegalMove("A response window is open: play an Anytime card or pass.")
        if seat != state.turn:
            raise NotYourTurn(f"It is seat {state.turn}'s turn, not seat {seat}'s.")
        if kind is PlayTreatment:
            if phase != TREAT:
                if phase == FLEE:
                    raise IllegalMove("First decide whether to stay or flee to Switzerland.")
                raise IllegalMove("You have no Treatments left to play: play or discard one Anytime card.")
            card = move.card
            if card not in state.hands[seat] or state.kinds[card] != _TREATMENT:
                card = _in_hand(state, seat, card)
                raise IllegalMove(f"{card.name} is not a Treatment.")
            target = move.target
            if target != NONE and target != seat:
                if not state.options.group_practice:
                    raise IllegalMove("You may treat only your own Patient (Group Practice is off).")
                if not 0 <= target < state.seats:
                    raise IllegalMove(f"There is no seat {target} at this table.")
                if state.doctors[target].patient is None:
                    raise IllegalMove(f"Seat {target} has no Patient to treat.")
            return
        if kind is Pass:
            raise IllegalMove("There is no response window open to pass in.")
        if kind is StayHome or kind is FleeToSwitzerland:
            if kind is FleeToSwitzerland and state.options.deathmatch:
                raise IllegalMove("Deathmatch: nobody can flee the country.")
            if phase != FLEE:
                raise IllegalMove("The time to flee is before you draw, at the start of your turn.")
            return
        # Discard
        if phase != SHORT_HAND:
            raise IllegalMove("You may discard an Anytime card only when the short-hand rule asks for it.")
        card = _in_hand(state, seat, move.card)
        if state.kinds[move.card] != _ANYTIME:
            raise IllegalMove(f"{card.name} is not an Anytime card.")

    # applying --------------------------------------------------------------

    def apply(self, state: QuackState, seat: int, move: Move) -> list[Event]:
        """Check ``move``, then make it; return the events (unredacted).

        A move that ``legal_moves`` listed for this seat in this very state
        (same version) is legal by definition, so it is not checked twice:
        a bot's or player's usual path costs one move list, not a list and a
        check. Anything else goes through ``_check``.
        """
        # type(): True == 1, but a bool is no seat.
        if state._offered_version == state.version and state._offered_seat == seat and type(seat) is int:
            for listed in state._offered:
                if listed is move:  # identity: moves are compared by value only in _check
                    break
            else:
                self._check(state, seat, move)
        else:
            self._check(state, seat, move)
        state.version += 1
        events: list[Event] = []
        kind = type(move)
        if kind is PlayTreatment:
            self._play_treatment(state, seat, move.card, move.target, events)
        elif kind is PlayAnytime:
            if state.phase == WINDOW and seat in state.window:
                state.window.remove(seat)
            elif state.phase == SHORT_HAND and seat == state.turn:
                state.short_done = True
            self._play_anytime(state, seat, move, events)
        elif kind is Pass:
            state.window.remove(seat)
        elif kind is StayHome:
            self._practise(state, seat, events)
        elif kind is FleeToSwitzerland:
            self._flee(state, seat, events)
        elif kind is Discard:
            state.hands[seat].remove(move.card)
            state.doc_discard.append(move.card)
            state.short_done = True
            events.append(CardsDiscarded.make(seat, (move.card,), "short_hand"))
        else:  # Timeout
            state.window.clear()
        if state.phase != WINDOW or not state.window:  # else _proceed returns at once: the window waits
            self._proceed(state, events)
        return events

    # the turn --------------------------------------------------------------

    def _proceed(self, state: QuackState, events: list[Event]) -> None:
        """Run the automatic steps until a seat must decide (or the game ends)."""
        while True:
            phase = state.phase
            if phase == WINDOW:
                if state.window:
                    return
                phase = state.phase = TREAT
            if phase == TREAT or phase == SHORT_HAND:
                doctor = state.doctors[state.turn]
                if doctor.status != PRACTISING:
                    state.phase = _END
                    continue
                if doctor.patient is not None and state.owed > 0 and not state.short_done:
                    kinds = state.kinds
                    anytime = False
                    for c in state.hands[state.turn]:
                        kind = kinds[c]
                        if kind == _TREATMENT:
                            state.phase = TREAT
                            return
                        if kind == _ANYTIME:
                            anytime = True
                    if anytime:
                        state.phase = SHORT_HAND
                        return
                self._payday(state, events)
                state.phase = _END
                self._end_turn(state, events)
            elif phase == _NEXT:
                self._next_turn(state, events)
            elif phase == FLEE:
                if state.doctors[state.turn].status == PRACTISING:
                    return
                state.phase = _END
            elif phase == _END:
                self._end_turn(state, events)
            else:  # OVER
                return

    def _start_turn(self, state: QuackState, seat: int, events: list[Event]) -> None:
        state.turn = seat
        state.die = 0
        state.owed = 0
        state.short_done = False
        state.plays.clear()
        state.dead.clear()
        events.append(_TURNS_STARTED[seat, state.round])
        if state.endgame:
            state.final_pending.discard(seat)
        doctor = state.doctors[seat]
        if doctor.status == SWITZERLAND:
            self._swiss_draw(state, seat, events)
            state.phase = _END
        elif state.options.deathmatch:
            self._practise(state, seat, events)
        else:
            state.phase = FLEE

    def _practise(self, state: QuackState, seat: int, events: list[Event]) -> None:
        """Phases 2-4: draw up to six, admit a Patient, roll the Treatments owed."""
        hand = state.hands[seat]
        if len(hand) < HAND_SIZE:
            _draw(state, seat, HAND_SIZE - len(hand), events)
        doctor = state.doctors[seat]
        if doctor.patient is None:
            self._admit(state, seat, events)
        state.phase = TREAT
        if doctor.patient is None:
            return  # no Patient to be had: nothing to treat this round
        rolls = []
        rng = state.rng
        while True:
            value = floor(rng.random() * DIE_SIDES) + 1  # floor: the same value as int(), a third of the cost
            rolls.append(value)
            if DIE_LOW <= value <= DIE_HIGH:
                break
        owed = value
        if doctor.reminders:
            for r in list(doctor.reminders):
                card = state.cards[r]
                if card.effect == qc.EXTRA_TREATMENT or card.effect == qc.FEWER_TREATMENT:
                    owed += card.amount if card.effect == qc.EXTRA_TREATMENT else -card.amount
                    _drop_reminder(state, seat, doctor.reminders, r, "used", events)
        state.die = value
        state.owed = owed if owed > 0 else 0
        events.append(_DICE_ROLLED[seat, tuple(rolls), value, state.owed])

    def _admit(self, state: QuackState, seat: int, events: list[Event]) -> None:
        """Phase 3: a Patient from the Patient deck and the $50 co-pay (QB5)."""
        deck = state.patient_deck
        if not deck:
            if not state.patient_discard:
                return
            deck.extend(state.patient_discard)  # in no order: that is the shuffle
            state.patient_discard.clear()
            events.append(DeckReshuffled.make("patient", len(deck)))
        doctor = state.doctors[seat]
        # The Patient deck is kept in no order and each admission takes a card
        # at random: the same chances as the top of a shuffled deck, and a game
        # admits a handful of its forty Patients, so shuffling them all would
        # cost more than all its draws. Stacked cards come off the top.
        if state.patient_stacked:
            state.patient_stacked -= 1
            case = Case(deck.pop())
        else:
            case = Case(deck.pop(floor(state.rng.random() * len(deck))))
        for r in doctor.reminders:
            if state.cards[r].effect == qc.FACE_DOWN:
                # The Diagnostic Dilemma card moves beside the Patient until it is revealed.
                doctor.reminders.remove(r)
                case.reminders.append(r)
                case.face_down = True
                break
        doctor.patient = case
        state.patient_seats |= 1 << seat
        events.append(_ADMITTED[seat, case.card, case.face_down])
        doctor.money += CO_PAY
        events.append(_CO_PAID[seat])

    def _flee(self, state: QuackState, seat: int, events: list[Event]) -> None:
        """QB7: final. The Patient goes with no pay and no Infamy; the Treatments
        in hand are dropped (they can never be played); then the Switzerland draw."""
        doctor = state.doctors[seat]
        doctor.status = SWITZERLAND
        state.practising_seats &= ~(1 << seat)
        events.append(DoctorFled.make(seat, doctor.money, doctor.infamy))
        _leave_practice(state, seat, "fled", events)
        hand = state.hands[seat]
        kinds = state.kinds
        kept, dropped = [], []
        for c in hand:
            if kinds[c] == _TREATMENT:
                dropped.append(c)
            else:
                kept.append(c)
        if dropped:
            hand[:] = kept
            state.doc_discard.extend(dropped)
            events.append(CardsDiscarded.make(seat, tuple(dropped), "fled"))
        self._check_endgame(state, events)
        self._swiss_draw(state, seat, events)
        state.phase = _END

    def _swiss_draw(self, state: QuackState, seat: int, events: list[Event]) -> None:
        """QB7: draw until one Anytime card, discarding everything else. Stops
        when every card has been seen once, so a deck without Anytime cards
        cannot loop for ever."""
        deck, discard, kinds = state.doc_deck, state.doc_discard, state.kinds
        budget = len(deck) + len(discard)
        thrown: list[int] = []
        for _ in range(budget):
            if not deck:
                if thrown:
                    events.append(CardsDiscarded.make(seat, tuple(thrown), "switzerland"))
                    thrown = []
                if not discard:
                    break
                deck.extend(discard)
                discard.clear()
                _shuffle(state.rng, deck)
                events.append(DeckReshuffled.make("doc", len(deck)))
            card = deck.pop()
            if kinds[card] == _ANYTIME:
                if thrown:
                    events.append(CardsDiscarded.make(seat, tuple(thrown), "switzerland"))
                    thrown = []
                state.hands[seat].append(card)
                events.append(CardsDrawn.make(seat, (card,), 1))
                break
            discard.append(card)
            thrown.append(card)
        if thrown:
            events.append(CardsDiscarded.make(seat, tuple(thrown), "switzerland"))

    def _play_treatment(self, state: QuackState, seat: int, card: int, target: int, events: list[Event]) -> None:
        """Phase 5, one Treatment (QB4), then a response window."""
        state.hands[seat].remove(card)
        doctors = state.doctors
        doctor = doctors[seat]
        dest = seat if target == NONE else target
        redirected = False
        if doctor.redirect_card != NONE:
            reminder, pid = doctor.redirect_card, doctor.redirect_to
            doctor.redirect_card = doctor.redirect_to = NONE
            holder = _holder(state, pid)
            used = holder != NONE and holder != seat
            _drop_reminder(state, seat, doctor.reminders, reminder, "used" if used else "fizzled", events)
            if used:
                dest = holder
                redirected = True
        case = doctors[dest].patient
        cure, harm = self._points[card][case.card]
        note = ""
        if case.reminders:
            note, cure, harm = _type_reminders(state, dest, case, state.cards[card].treatment_type, cure, harm, events)
        case.treatments.append(card)
        case.received += 1
        case.cure += cure
        case.harm += harm
        state.plays.append((card, case.card))
        state.owed -= 1
        events.append(
            TreatmentPlayed.make(
                seat, card, dest, case.card, case.face_down, cure, harm, case.cure, case.harm, case.received,
                redirected, note,
            )
        )
        patient = state.cards[case.card]
        # Usually the Patient stays in bed: the cheap compares come before case_fate's call.
        if (
            case.harm >= patient.kill
            or case.cure >= patient.cure
            or (patient.mortal and case.received >= patient.mortal)
        ):
            fate = case_fate(patient, case.cure, case.harm, case.received)
            if fate == CURED:
                _cured(state, dest, seat, events)
            else:
                self._die(state, dest, fate, seat, redirected, False, events)
        self._open_window(state, events)

    def _open_window(self, state: QuackState, events: list[Event]) -> None:
        """After a Treatment: wait for the other doctors, in turn order, who
        hold an Anytime card with a valid target (as _anytime_moves would find).

        Whether an effect has a target does not depend on who plays it (Paper
        Shredder aside: it needs another card in the player's own hand), so
        ``playable`` remembers it per effect for the seats asked after.
        """
        if state.options.window_seconds <= 0.0 or state.over:  # a float: 0.0 keeps the compare specialised
            return
        hands, doctors, effects = state.hands, state.doctors, state.effects
        anytime = state.anytime_ids
        easy = state.easy_ids if state.patient_seats and state.practising_seats else _NO_CARDS
        playable: dict[str, bool] = {}
        seats = []
        for s in _AFTER[state.seats][state.turn]:
            hand = hands[s]
            # Set tests run in C: most hands hold no Anytime card, or an easy one.
            if anytime.isdisjoint(hand) or doctors[s].status == MOBBED:
                continue
            if not easy.isdisjoint(hand):
                seats.append(s)
                continue
            for c in hand:
                effect = effects[c]
                if effect is None:
                    continue
                if effect == _SHRED:
                    if len(hand) > 1:
                        seats.append(s)
                        break
                    continue
                ok = playable.get(effect)
                if ok is None:
                    ok = playable[effect] = _has_target(state, effect)
                if ok:
                    seats.append(s)
                    break
        if seats:
            state.window_id += 1
            state.window = seats
            state.phase = WINDOW
            events.append(_WINDOWS_OPENED[state.window_id, tuple(seats)])

    def _payday(self, state: QuackState, events: list[Event]) -> None:
        """End of phase 5 (QB5): each Treatment played this round pays if its
        Patient survived the round; then a face-down Patient is revealed."""
        seat = state.turn
        doctor = state.doctors[seat]
        if state.plays and doctor.status == PRACTISING:
            dead = state.dead
            cards = state.cards
            paid_cards = []
            amount = 0
            for c, p in state.plays:
                if p not in dead:
                    paid_cards.append(c)
                    amount += cards[c].price
            paid = tuple(paid_cards)
            for r in doctor.reminders:
                effect = cards[r].effect
                if effect == qc.NO_PAY or effect == qc.DOUBLE_PAY:
                    amount = 0 if effect == qc.NO_PAY else amount * 2
                    _drop_reminder(state, seat, doctor.reminders, r, "used", events)
                    break
            if amount:
                doctor.money += amount
                events.append(MoneyPaid.make(seat, amount, "treatments", paid))
        case = doctor.patient
        if case is not None and case.face_down:
            case.face_down = False
            events.append(PatientRevealed.make(seat, case.card))
            for r in list(case.reminders):
                if state.cards[r].effect == qc.FACE_DOWN:
                    _drop_reminder(state, seat, case.reminders, r, "used", events)

    def _end_turn(self, state: QuackState, events: list[Event]) -> None:
        """Phase 6, the Angry Mob (QB6), then the endgame check (QB9)."""
        threshold = state.options.infamy_threshold
        doctors = state.doctors
        for s in _SEATS_IN[state.practising_seats]:
            if doctors[s].infamy >= threshold:
                self._mob(state, s, events)
        if state.endgame and not state.final_pending:
            self._finish(state, events)
            return
        state.phase = _NEXT

    def _next_turn(self, state: QuackState, events: list[Event]) -> None:
        doctors = state.doctors
        for d in doctors:
            if d.status != MOBBED:
                break
        else:  # the Mob got everyone
            self._finish(state, events)
            return
        seat = state.turn
        while True:
            seat = (seat + 1) % state.seats
            if seat == state.first:
                state.round += 1
                if state.round > state.options.round_limit and not state.endgame:
                    self._start_endgame(state, f"round {state.options.round_limit} is over", events)
                    if not state.final_pending:
                        self._finish(state, events)
                        return
            if doctors[seat].status != MOBBED:
                break
        self._start_turn(state, seat, events)

    # Anytime cards ---------------------------------------------------------

    def _play_anytime(self, state: QuackState, seat: int, move: PlayAnytime, events: list[Event]) -> None:
        """QB8: resolve at once; a card acting later stays as a reminder."""
        c, t = move.card, move.target
        state.hands[seat].remove(c)
        events.append(_ANYTIME_PLAYED[seat, c, t, move.other, move.discard])
        card: Anytime = state.cards[c]
        effect = card.effect
        doctors = state.doctors
        target = doctors[t]
        case = target.patient
        keep = False
        # The commonest effects first (as dealt in random games).
        if effect in _UNIQUE_REMINDERS:
            target.reminders.append(c)
            keep = True
        elif effect in _TYPE_REMINDERS:
            case.reminders.append(c)
            keep = True
        elif effect == _SHRED:
            state.hands[seat].remove(move.discard)
            state.doc_discard.append(move.discard)
            events.append(CardsDiscarded.make(seat, (move.discard,), "shred"))
            state.doc_discard.append(c)
            keep = True  # already discarded, before the draw so a reshuffle may find it
            _draw(state, seat, 1, events)
        elif effect == _REDIRECT:
            target.reminders.append(c)
            target.redirect_card = c
            target.redirect_to = doctors[move.other].patient.card
            keep = True
        elif effect in _OWED_CHANGES:
            if t == state.turn and state.die and state.phase in (TREAT, SHORT_HAND, WINDOW):
                change = card.amount if effect == qc.EXTRA_TREATMENT else -card.amount
                state.owed = max(0, state.owed + change)
                events.append(TreatmentsOwedChanged.make(t, state.owed))
            else:
                target.reminders.append(c)
                keep = True
        elif effect == _INFAMY_UP or effect == _INFAMY_DOWN:
            change = card.amount if effect == _INFAMY_UP else -card.amount
            self._infamy(state, t, change, "anytime", events)
        elif effect == _FINE:
            lost = min(target.money, card.amount)
            target.money -= lost
            events.append(MoneyLost.make(t, lost, "fine"))
        elif effect == _HARM_POINTS:
            case.harm += card.amount
            if case.harm >= state.cards[case.card].kill:
                self._die(state, t, "harm", seat, False, True, events)
        elif effect == _CURE_POINTS:
            case.cure += card.amount
            if case.cure >= state.cards[case.card].cure:
                _cured(state, t, seat, events)
        elif effect == _RESET_HARM:
            case.harm = 0
        elif effect == _TRANSFER:
            other = doctors[move.other]
            target.patient, other.patient = other.patient, target.patient
        if not keep:
            state.doc_discard.append(c)

    def _die(
        self, state: QuackState, seat: int, cause: str, by: int, redirected: bool, anytime: bool, events: list[Event]
    ) -> None:
        """The Patient of ``seat`` dies: no pay this round for Treatments on it,
        and Infamy (QB5): to its doctor; split, each rounding up, with the player
        of a redirected Treatment; all to the killer in Group Practice."""
        case = state.doctors[seat].patient
        patient = state.cards[case.card]
        state.dead.add(case.card)
        events.append(PatientDied.make(seat, case.card, cause, by))
        _discharge(state, seat)
        infamy = patient.infamy
        if anytime:
            self._infamy(state, seat, infamy, "death", events)
        elif state.options.group_practice:
            self._infamy(state, by, infamy, "death", events)
        elif redirected and by != seat:
            half = (infamy + 1) // 2
            self._infamy(state, by, half, "death", events)
            self._infamy(state, seat, half, "death", events)
        else:
            self._infamy(state, seat, infamy, "death", events)
        if state.options.turbo_infamy:
            for s in range(state.seats):
                self._infamy(state, s, 1, "turbo", events)

    def _infamy(self, state: QuackState, seat: int, change: int, reason: str, events: list[Event]) -> None:
        """Infamy of a practising doctor changes (frozen in Switzerland); the Mob checks at once (QB6)."""
        doctor = state.doctors[seat]
        if doctor.status != PRACTISING or not change:
            return
        total = doctor.infamy + change
        if total < 0:
            total = 0
        if total == doctor.infamy:
            return
        events.append(InfamyChanged.make(seat, total - doctor.infamy, total, reason))
        doctor.infamy = total
        if total >= state.options.infamy_threshold:
            self._mob(state, seat, events)

    def _mob(self, state: QuackState, seat: int, events: list[Event]) -> None:
        """QB6: out of the game, unable to win; hand, Patient and reminders discarded."""
        doctor = state.doctors[seat]
        doctor.status = MOBBED
        state.practising_seats &= ~(1 << seat)
        events.append(DoctorMobbed.make(seat, doctor.infamy))
        hand = state.hands[seat]
        if hand:
            events.append(CardsDiscarded.make(seat, tuple(hand), "mobbed"))
            state.doc_discard.extend(hand)
            hand.clear()
        _leave_practice(state, seat, "mobbed", events)
        if seat in state.window:
            state.window.remove(seat)
        self._check_endgame(state, events)

    # the end ---------------------------------------------------------------

    def _check_endgame(self, state: QuackState, events: list[Event]) -> None:
        """QB9: with 3+ seats, the endgame starts when at most 2 doctors practise;
        with 2, per the ``two_player_endgame`` option."""
        if state.endgame:
            return
        practising = state.practising_seats.bit_count()
        if state.seats >= 3:
            trigger = 2
        else:
            trigger = 0 if state.options.two_player_endgame == PLAY_ON else 1
        if practising <= trigger:
            doctors = "nobody is" if not practising else f"only {practising} doctor{'s' if practising > 1 else ''}"
            self._start_endgame(state, f"{doctors} still practising", events)
            if state.seats == 2 and state.options.two_player_endgame == IMMEDIATE:
                state.final_pending.clear()

    def _start_endgame(self, state: QuackState, reason: str, events: list[Event]) -> None:
        state.endgame = True
        practising = _SEATS_IN[state.practising_seats]
        state.final_pending = set(practising)
        events.append(EndgameStarted.make(practising, reason))

    def _finish(self, state: QuackState, events: list[Event]) -> None:
        """QB9: most money among doctors not mobbed wins; ties go to lower
        Infamy, then share. Mobbed doctors rank after everyone else."""
        # Plain loops: a comprehension is a function call of its own, and this runs once a game.
        doctors = state.doctors
        ranks = []
        for d in doctors:
            ranks.append((d.status == MOBBED, -d.money, d.infamy))  # lower is better
        order = sorted(range(state.seats), key=ranks.__getitem__)
        places = [0] * state.seats
        firsts = []
        previous = None
        place = 0
        for i, s in enumerate(order):
            key = ranks[s]
            if key != previous:
                place = i + 1
                previous = key
            places[s] = place
            if place == 1 and not key[0]:  # key[0]: mobbed
                firsts.append(s)
        winners = tuple(firsts)
        if not winners:
            reason = "The Angry Mob got every doctor; nobody wins."
        elif len(winners) == 1:
            reason = "The most money of the doctors the Mob did not get."
        else:
            reason = "A shared win: the most money, and the least Infamy, of the doctors the Mob did not get."
        state.over = True
        state.phase = OVER
        state.window = []
        state.result = Outcome(winners=winners, places=tuple(places), reason=reason)
        events.append(GameEnded.make(winners, state.round, reason))

    # what each seat sees ---------------------------------------------------

    def view(self, state: QuackState, seat: int | None) -> QuackView:
        own = seat is not None and type(seat) is int and 0 <= seat < state.seats
        cards = state.cards
        return QuackView(
            game=GAME,
            seat=seat if own else None,
            round=state.round,
            turn=state.turn,
            phase=state.phase,
            die=state.die,
            owed=state.owed,
            doctors=self._doctor_views(state),
            hand=tuple(cards[c] for c in state.hands[seat]) if own else (),
            doc_deck=len(state.doc_deck),
            doc_discard=len(state.doc_discard),
            patient_deck=len(state.patient_deck),
            patient_discard=len(state.patient_discard),
            window=tuple(state.window),
            endgame=state.endgame,
            threshold=state.options.infamy_threshold,
            legal=self.legal_moves(state, seat) if own else (),
            waiting_for=self.waiting_for(state),
            outcome=state.result,
            options=state.options,
        )

    def _doctor_views(self, state: QuackState) -> tuple[DoctorView, ...]:
        """Every doctor's public row: the same for every seat, so cached per version."""
        cached = state._public
        if cached is not None and cached[0] == state.version:
            return cached[1]
        cards = state.cards
        pending = state.final_pending
        doctors = []
        for s, d in enumerate(state.doctors):
            case = d.patient
            pview = None
            if case is not None:
                hidden = case.face_down
                pview = PatientView(
                    patient=None if hidden else cards[case.card],
                    face_down=hidden,
                    cure_points=None if hidden else case.cure,
                    harm_points=None if hidden else case.harm,
                    received=case.received,
                    treatments=tuple(cards[c] for c in case.treatments),
                    reminders=tuple(cards[c] for c in case.reminders),
                )
            doctors.append(
                DoctorView(
                    seat=s,
                    status=d.status,
                    money=d.money,
                    infamy=d.infamy,
                    hand_size=len(state.hands[s]),
                    patient=pview,
                    reminders=tuple(cards[c] for c in d.reminders),
                    final_turn=state.endgame and s in pending,
                )
            )
        rows = tuple(doctors)
        state._public = (state.version, rows)
        return rows

    def redact(self, event: Event, seat: int | None) -> Event | None:
        """``event`` as ``seat`` may see it: drawn cards only for the drawer;
        a face-down Patient and its points for nobody (QB: Diagnostic Dilemma)."""
        kind = type(event)
        if kind is CardsDrawn:
            return event if seat == event.seat else replace(event, cards=())
        if kind is PatientAdmitted:
            return replace(event, patient=NONE) if event.face_down else event
        if kind is TreatmentPlayed and event.face_down:
            return replace(event, patient=NONE, cure=NONE, harm=NONE, total_cure=NONE, total_harm=NONE)
        return event

    def describe(self, event: Event, names: Sequence[str], seat: int | None = None) -> str:
        return _describe(self, event, names, seat)

    sim_needs_events = True
    """``quackbox sim`` keeps the events: the balance figures count them."""

    def sim_summary(self, records: Sequence[Any]) -> dict[str, Any]:
        """The QB10 balance figures and money figures for ``quackbox sim``."""
        report = balance_report(records)
        doctors = report["games"] * report["seats"]
        money = sorted(d.money for r in records for d in r.state.doctors)
        winning = sorted(
            r.state.doctors[w].money for r in records if r.outcome for w in r.outcome.winners[:1]
        )
        return {
            "patients": report["patients"],
            "patients_cured_pct": round(report["cured_pct"], 1),
            "patients_died_pct": round(report["died_pct"], 1),
            "rounds_median": report["median_rounds"],
            "fled_pct": round(100 * report["fled_per_game"] * report["games"] / doctors, 1),
            "mobbed_pct": round(100 * report["mobbed_per_game"] * report["games"] / doctors, 1),
            "no_winner_pct": round(report["no_winner_pct"], 1),
            "money_median": _median(money),
            "money_max": money[-1] if money else 0,
            "winning_money_median": _median(winning),
            "win_pct_by_turn_position": [round(p, 1) for p in report["win_pct_by_position"]],
            "max_seat_points_over_fair": round(report["max_over_fair"], 1),
        }

    def move_types(self) -> tuple[type, ...]:
        return MOVE_TYPES

    def wire_types(self) -> tuple[type, ...]:
        return (
            MOVE_TYPES
            + EVENT_TYPES
            + (Patient, Treatment, Anytime, PatientView, DoctorView, QuackView, QuackOptions, Outcome)
        )


# --- helpers ----------------------------------------------------------------


CURED = "cured"


def case_fate(patient: Patient, cure: int, harm: int, received: int) -> str | None:
    """QB4: what a Patient with these totals after ``received`` Treatments
    comes to: ``harm`` (dead of it: harm is checked first), CURED, ``mortal``
    (dead of too many Treatments), or None (still in the bed)."""
    if harm >= patient.kill:
        return "harm"
    if cure >= patient.cure:
        return CURED
    if patient.mortal and received >= patient.mortal:
        return "mortal"
    return None


def treatment_points(treatment: Treatment, patient: Patient) -> tuple[int, int]:
    """QB4: (Cure, Harm) of one Treatment on one Patient. Each is the largest
    value among the Patient's illness types the card lists; "All others" harms
    every illness type of the Patient the card does not name at all."""
    illnesses = patient.illnesses
    cure = 0
    harm = 0
    named = set()
    for ill, points in treatment.cures:
        named.add(ill)
        if ill in illnesses and points > cure:
            cure = points
    for ill, points in treatment.harms:
        named.add(ill)
        if ill in illnesses and points > harm:
            harm = points
    if treatment.harms_all_others and any(ill not in named for ill in illnesses):
        harm = max(harm, treatment.harms_all_others)
    return cure, harm


_MOVE_FIELDS = {cls: tuple(f.name for f in fields(cls)) for cls in MOVE_TYPES}

# Moves are immutable values: the legal-move lists hand out one shared object
# per distinct move, built once, so listing moves allocates nothing. The ids of
# these objects are recorded so ``check`` can skip re-validating their fields
# (the caches keep them alive, so an id is never reused by another object).
_KNOWN_MOVES: set[int] = {id(_STAY), id(_FLEE), id(_PASS)}
_TREAT_MOVES: dict[tuple[int, int], PlayTreatment] = {}
_OWN_TREAT_MOVES: dict[int, PlayTreatment] = {}
_SINGLE_MOVES: dict[int, tuple[PlayAnytime, ...]] = {}
_PAIR_MOVES: dict[int, tuple[tuple[PlayAnytime, ...], ...]] = {}
_ANY_MOVES: dict[tuple[int, int, int, int], PlayAnytime] = {}
_DISCARD_MOVES: dict[int, Discard] = {}
_MASK_MOVES: dict[int, list[tuple[PlayAnytime, ...] | None]] = {}
"""Per Anytime card, its moves for each bitmask of target seats (filled as met)."""
_SHRED_MOVES: dict[int, tuple[dict[int, PlayAnytime], ...]] = {}
"""Per Paper Shredder card and seat playing it, its moves by the card discarded."""
_MAX_SEATS = 8


def _known(move: Any) -> Any:
    _KNOWN_MOVES.add(id(move))
    return move


def _treat_move(card: int, target: int) -> PlayTreatment:
    if target == NONE:
        move = _OWN_TREAT_MOVES.get(card)
        if move is None:
            move = _OWN_TREAT_MOVES[card] = _known(PlayTreatment(card, NONE))
        return move
    key = (card, target)
    move = _TREAT_MOVES.get(key)
    if move is None:
        move = _TREAT_MOVES[key] = _known(PlayTreatment(card, target))
    return move


def _mask_moves(card: int, mask: int) -> tuple[PlayAnytime, ...]:
    """PlayAnytime(card, t) for each seat t whose bit is set in ``mask``, in seat order."""
    singles = _single_moves(card)
    moves = _MASK_MOVES.setdefault(card, [None] * (1 << _MAX_SEATS))[mask] = tuple(
        singles[t] for t in range(_MAX_SEATS) if mask >> t & 1
    )
    return moves


def _single_moves(card: int) -> tuple[PlayAnytime, ...]:
    """PlayAnytime(card, t) for every seat t, indexed by t."""
    moves = _SINGLE_MOVES.get(card)
    if moves is None:
        moves = _SINGLE_MOVES[card] = tuple(_known(PlayAnytime(card, t)) for t in range(_MAX_SEATS))
    return moves


def _pair_moves(card: int) -> tuple[tuple[PlayAnytime, ...], ...]:
    """PlayAnytime(card, t, o) for every pair of seats, indexed [t][o]."""
    moves = _PAIR_MOVES.get(card)
    if moves is None:
        moves = _PAIR_MOVES[card] = tuple(
            tuple(_known(PlayAnytime(card, t, o)) for o in range(_MAX_SEATS)) for t in range(_MAX_SEATS)
        )
    return moves


def _any_move(card: int, target: int, other: int = NONE, discard: int = NONE) -> PlayAnytime:
    key = (card, target, other, discard)
    move = _ANY_MOVES.get(key)
    if move is None:
        move = _ANY_MOVES[key] = _known(PlayAnytime(card, target, other, discard))
    return move


def _discard_move(card: int) -> Discard:
    move = _DISCARD_MOVES.get(card)
    if move is None:
        move = _DISCARD_MOVES[card] = _known(Discard(card))
    return move


def _has_reminder(state: QuackState, reminders: list[int], effect: str) -> bool:
    cards = state.cards
    for r in reminders:
        if cards[r].effect == effect:
            return True
    return False


def _anytime_moves(state: QuackState, seat: int, c: int, effect: str, out: list[Move]) -> None:
    """Every legal PlayAnytime of card ``c`` (whose effect is ``effect``) by
    ``seat``, in the documented order. (legal_moves lists the cards that aim
    at every seat with a Patient, or every practising seat, by itself.)"""
    if effect == _SHRED:
        shreds = _shred_moves(c)[seat]
        for d in state.hands[seat]:
            if d != c:
                move = shreds.get(d)
                if move is None:
                    move = shreds[d] = _any_move(c, seat, NONE, d)
                out.append(move)
    elif effect == _REDIRECT:
        # Someone practising without a Wrong Chart waiting, to another seat's Patient.
        pairs = _PAIR_MOVES[c]  # made in Quack.__init__
        patients = state.patient_seats
        doctors = state.doctors
        for t in _SEATS_IN[state.practising_seats]:
            if doctors[t].redirect_card == NONE:
                row = pairs[t]
                for o in _SEATS_IN[patients & ~(1 << t)]:
                    out.append(row[o])
    elif effect == _TRANSFER:
        pairs = _PAIR_MOVES[c]  # made in Quack.__init__
        patients = _SEATS_IN[state.patient_seats]
        for i, t in enumerate(patients):
            row = pairs[t]
            for o in patients[i + 1:]:
                out.append(row[o])
    else:
        mask = _target_mask(state, effect)
        moves = _MASK_MOVES[c][mask]
        out += moves if moves is not None else _mask_moves(c, mask)


def _target_mask(state: QuackState, effect: str) -> int:
    """The seats an Anytime effect with one target may aim at now, as a
    bitmask (every effect but Paper Shredder, Wrong Chart and Patient Transfer)."""
    if effect in _PATIENT_EFFECTS:
        return state.patient_seats
    mask = state.practising_seats
    if effect in _PRACTISING_EFFECTS:
        return mask
    doctors = state.doctors
    if effect in _UNIQUE_REMINDERS:  # not a second one waiting
        for t in _SEATS_IN[mask]:
            reminders = doctors[t].reminders
            if reminders and _has_reminder(state, reminders, effect):
                mask &= ~(1 << t)
    elif effect == _INFAMY_DOWN:  # some Infamy to lose
        for t in _SEATS_IN[mask]:
            if doctors[t].infamy <= 0:
                mask &= ~(1 << t)
    elif effect == _FINE:  # some money to lose
        for t in _SEATS_IN[mask]:
            if doctors[t].money <= 0:
                mask &= ~(1 << t)
    return mask


def _shred_moves(card: int) -> tuple[dict[int, PlayAnytime], ...]:
    """Paper Shredder ``card``'s moves, per seat playing it, by the card it discards (filled as met)."""
    moves = _SHRED_MOVES.get(card)
    if moves is None:
        moves = _SHRED_MOVES[card] = tuple({} for _ in range(_MAX_SEATS))
    return moves


_SHRED, _REDIRECT, _TRANSFER, _INFAMY_DOWN, _FINE = qc.SHRED, qc.REDIRECT, qc.TRANSFER, qc.INFAMY_DOWN, qc.FINE
_INFAMY_UP, _HARM_POINTS, _CURE_POINTS, _RESET_HARM = qc.INFAMY_UP, qc.HARM_POINTS, qc.CURE_POINTS, qc.RESET_HARM
_TYPE_REMINDERS = frozenset((qc.NULLIFY_TYPE, qc.BOOST_TYPE))
_OWED_CHANGES = frozenset((qc.EXTRA_TREATMENT, qc.FEWER_TREATMENT))
_SEATS_IN = tuple(tuple(t for t in range(_MAX_SEATS) if mask >> t & 1) for mask in range(1 << _MAX_SEATS))
"""_SEATS_IN[mask]: the seats whose bits are set in ``mask``, in order."""
# The events made once per distinct value and shared by every game (see
# core.rules.Shared): those whose fields are seats, cards and small numbers.
_TURNS_STARTED = Shared(TurnStarted)
_ANYTIME_PLAYED = Shared(AnytimePlayed)
_DICE_ROLLED = Shared(DieRolled)
_ADMITTED = Shared(PatientAdmitted)
_WINDOWS_OPENED = Shared(WindowOpened)
_CO_PAID = tuple(MoneyPaid(t, CO_PAY, "co-pay", ()) for t in range(_MAX_SEATS))
_ONE_SEAT = tuple((t,) for t in range(_MAX_SEATS))
"""_ONE_SEAT[seat] is ``(seat,)``, made once: waiting_for answers it on most decisions."""
_AFTER = tuple(tuple(tuple((t + i) % n for i in range(1, n)) for t in range(n)) for n in range(_MAX_SEATS + 1))
"""_AFTER[seats][seat]: the other seats in turn order, starting after ``seat``."""
_PATIENT_EFFECTS = frozenset((qc.CURE_POINTS, qc.HARM_POINTS, qc.RESET_HARM, qc.NULLIFY_TYPE, qc.BOOST_TYPE))
_UNIQUE_REMINDERS = frozenset((qc.FACE_DOWN, qc.NO_PAY, qc.DOUBLE_PAY))
_NO_CARDS: frozenset[int] = frozenset()
_PRACTISING_EFFECTS = frozenset((qc.INFAMY_UP, qc.EXTRA_TREATMENT, qc.FEWER_TREATMENT))
# How an Anytime card finds its targets: every seat with a Patient, every
# practising seat, or (the rest) by its own test in _anytime_moves.
_ON_PATIENT, _ON_PRACTISING, _ON_OTHER = 1, 2, 3
_GROUPS = {**dict.fromkeys(_PATIENT_EFFECTS, _ON_PATIENT), **dict.fromkeys(_PRACTISING_EFFECTS, _ON_PRACTISING)}


def _has_target(state: QuackState, effect: str) -> bool:
    """Whether an Anytime ``effect`` other than Paper Shredder has a legal target now."""
    if effect == _TRANSFER:
        return state.patient_seats.bit_count() >= 2
    if effect == _REDIRECT:
        # Someone who can be redirected, and a Patient of someone else to send to.
        patients = state.patient_seats
        doctors = state.doctors
        for t in _SEATS_IN[state.practising_seats]:
            if doctors[t].redirect_card == NONE and patients & ~(1 << t):
                return True
        return False
    return _target_mask(state, effect) != 0


def _shuffle(rng: random.Random, pile: list[int]) -> None:
    """Shuffle ``pile`` in place with ``rng``: a sort on random keys, uniform
    like ``rng.shuffle`` and about three times as fast.

    The sort asks for each card's key once, in pile order, and the key
    function is ``next(draws, card)`` over ``len(pile)`` calls of
    ``rng.random()``: the card is ignored, and no Python function runs per
    card (``starmap`` calls ``random`` straight from C).
    """
    pile.sort(key=partial(next, starmap(rng.random, repeat((), len(pile)))))


def _check_anytime(state: QuackState, seat: int, move: PlayAnytime) -> None:
    card = state.cards[move.card] if move.card in state.hands[seat] else _in_hand(state, seat, move.card)
    if state.kinds[move.card] != _ANYTIME:
        raise IllegalMove(f"{card.name} is not an Anytime card.")
    effect = card.effect
    t, o, d = move.target, move.other, move.discard
    n = state.seats
    if not 0 <= t < n:
        raise IllegalMove(f"There is no seat {t} at this table.")
    doctors = state.doctors
    uses_other = effect == qc.REDIRECT or effect == qc.TRANSFER
    if not uses_other and o != NONE:
        raise IllegalMove(f"{card.name} takes one target; leave the second seat empty (-1).")
    if effect != qc.SHRED and d != NONE:
        raise IllegalMove(f"{card.name} does not discard a card; leave discard empty (-1).")
    if uses_other and not 0 <= o < n:
        raise IllegalMove(f"{card.name} needs a second seat, and there is no seat {o}.")
    if effect == qc.SHRED:
        if t != seat:
            raise IllegalMove(f"{card.name} works only on your own hand.")
        if d == move.card:
            raise IllegalMove(f"{card.name} cannot discard itself; name another card from your hand.")
        _in_hand(state, seat, d)
        return
    if effect in _PATIENT_EFFECTS:
        if doctors[t].patient is None:
            raise IllegalMove(f"Seat {t} has no Patient for {card.name}.")
        return
    if effect == qc.TRANSFER:
        if o == t:
            raise IllegalMove(f"{card.name} needs two different doctors.")
        if doctors[t].patient is None or doctors[o].patient is None:
            raise IllegalMove(f"{card.name} needs two doctors who both have a Patient.")
        if o < t:
            raise IllegalMove(f"Name the lower seat first for {card.name}: target {o}, other {t}.")
        return
    if effect == qc.REDIRECT:
        if doctors[t].status != PRACTISING:
            raise IllegalMove(f"Seat {t} no longer practises, so has no Treatment to redirect.")
        if doctors[t].redirect_card != NONE:
            raise IllegalMove(f"Seat {t} already has a Wrong Chart waiting.")
        if o == t:
            raise IllegalMove(f"{card.name} must send the Treatment to another doctor's Patient.")
        if doctors[o].patient is None:
            raise IllegalMove(f"Seat {o} has no Patient to receive the Treatment.")
        return
    doctor = doctors[t]
    if not _target_mask(state, effect) >> t & 1:
        if doctor.status != PRACTISING:
            raise IllegalMove(f"Seat {t} no longer practises, so {card.name} has nothing to act on.")
        if effect in _UNIQUE_REMINDERS:
            raise IllegalMove(f"Seat {t} already has a {card.name} waiting.")
        if effect == qc.INFAMY_DOWN:
            raise IllegalMove(f"Seat {t} has no Infamy to lose.")
        raise IllegalMove(f"Seat {t} has no money to lose.")


def _in_hand(state: QuackState, seat: int, card: int) -> Any:
    if card not in state.hands[seat]:
        if 0 <= card < len(state.cards):
            raise IllegalMove(f"{state.cards[card].name} (card {card}) is not in your hand.")
        raise IllegalMove(f"There is no card {card} in this game.")
    return state.cards[card]


def _draw(state: QuackState, seat: int, count: int, events: list[Event]) -> None:
    """Draw from the Doc deck; an empty deck is replaced by the shuffled discard
    pile; with both empty the doctor draws what there is."""
    drawn: list[int] = []
    deck = state.doc_deck
    for _ in range(count):
        if not deck:
            if not state.doc_discard:
                break
            deck.extend(state.doc_discard)
            state.doc_discard.clear()
            _shuffle(state.rng, deck)
            events.append(DeckReshuffled.make("doc", len(deck)))
        drawn.append(deck.pop())
    if drawn:
        state.hands[seat].extend(drawn)
        events.append(CardsDrawn.make(seat, tuple(drawn), len(drawn)))


def _holder(state: QuackState, patient: int) -> int:
    for s, d in enumerate(state.doctors):
        if d.patient is not None and d.patient.card == patient:
            return s
    return NONE


def _drop_reminder(
    state: QuackState, seat: int, reminders: list[int], card: int, reason: str, events: list[Event]
) -> None:
    reminders.remove(card)
    state.doc_discard.append(card)
    events.append(ReminderDiscarded.make(seat, card, reason))


def _type_reminders(
    state: QuackState, seat: int, case: Case, treatment_type: str, cure: int, harm: int, events: list[Event]
) -> tuple[str, int, int]:
    """Lost Lab Results and friends: the first matching reminder acts, then goes."""
    cards = state.cards
    for effect in (qc.NULLIFY_TYPE, qc.BOOST_TYPE):
        for r in case.reminders:
            card = cards[r]
            if card.effect == effect and card.treatment_type == treatment_type:
                _drop_reminder(state, seat, case.reminders, r, "used", events)
                if effect == qc.NULLIFY_TYPE:
                    return "nullified", 0, 0
                return "doubled", cure * 2, harm * 2
    return "", cure, harm


def _discharge(state: QuackState, seat: int) -> None:
    """The Patient leaves the office: its card to the Patient discard, its
    Treatments and reminders to the Doc discard."""
    doctor = state.doctors[seat]
    case = doctor.patient
    doctor.patient = None
    state.patient_seats &= ~(1 << seat)
    state.patient_discard.append(case.card)
    state.doc_discard.extend(case.treatments)
    state.doc_discard.extend(case.reminders)


def _cured(state: QuackState, seat: int, by: int, events: list[Event]) -> None:
    events.append(PatientCured.make(seat, state.doctors[seat].patient.card, by))
    _discharge(state, seat)


def _leave_practice(state: QuackState, seat: int, reason: str, events: list[Event]) -> None:
    """A doctor flees or is mobbed: Patient and reminders go, no pay, no Infamy."""
    doctor = state.doctors[seat]
    if doctor.patient is not None:
        events.append(PatientDischarged.make(seat, doctor.patient.card, reason))
        _discharge(state, seat)
    if doctor.reminders:
        state.doc_discard.extend(doctor.reminders)
        doctor.reminders.clear()
    doctor.redirect_card = doctor.redirect_to = NONE
    state.final_pending.discard(seat)


# --- sentences --------------------------------------------------------------


def _describe(rules: Quack, event: Event, names: Sequence[str], reader: int | None) -> str:
    """``event`` as a plain sentence, told from ``reader``'s side ("You ...")."""

    def who(seat: int) -> str:
        if seat == reader:
            return "You"
        if 0 <= seat < len(names):
            return names[seat]
        return f"Seat {seat + 1}"

    def whose(seat: int) -> str:
        return "your" if seat == reader else f"{who(seat)}'s"

    def cap(text: str) -> str:
        return text[:1].upper() + text[1:]

    def card(c: int) -> str:
        return rules.card_name(c)

    def cards(cs: Iterable[int]) -> str:
        return ", ".join(card(c) for c in cs)

    def verb(seat: int, you: str, other: str) -> str:
        return you if seat == reader else other

    def whom(actor: int, seat: int) -> str:
        """``seat`` as the object of ``actor``'s action."""
        if seat == actor:
            return "yourself" if seat == reader else "themselves"
        return "you" if seat == reader else who(seat)

    def whose_of(actor: int, seat: int) -> str:
        if seat == actor:
            return "your" if seat == reader else "their"
        return whose(seat)

    def listed(seats: Sequence[int], start: bool = True) -> str:
        words = [who(s) if i == 0 and start else whom(NONE, s) for i, s in enumerate(seats)]
        return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]

    kind = type(event)
    e: Any = event
    if kind is TurnStarted:
        return f"Round {e.round}: {whose(e.seat)} turn."
    if kind is DoctorFled:
        return f"{who(e.seat)} fled to Switzerland with ${e.money} and {e.infamy} Infamy."
    if kind is CardsDrawn:
        if e.cards:
            return f"{who(e.seat)} drew {cards(e.cards)}."
        return f"{who(e.seat)} drew {e.count} card{'s' if e.count != 1 else ''}."
    if kind is CardsDiscarded:
        why = {
            "switzerland": " while looking for an Anytime card",
            "fled": ", Treatments they will never play again",
            "mobbed": " as the Mob dragged them off",
            "short_hand": " (out of Treatments)",
            "shred": " into the shredder",
        }.get(e.reason, "")
        return f"{who(e.seat)} discarded {cards(e.cards)}{why}."
    if kind is DeckReshuffled:
        pile = "Patient" if e.pile == "patient" else "Doc"
        return f"The {pile} discard pile was shuffled into a new deck of {e.count}."
    if kind is PatientAdmitted:
        if e.face_down or e.patient == NONE:
            return f"{who(e.seat)} admitted a Patient face down (Diagnostic Dilemma)."
        return f"{who(e.seat)} admitted {card(e.patient)}."
    if kind is PatientRevealed:
        return f"{cap(whose(e.seat))} face-down Patient is revealed: {card(e.patient)}."
    if kind is MoneyPaid:
        if e.reason == "co-pay":
            return f"{who(e.seat)} collected the ${e.amount} co-pay."
        return f"{who(e.seat)} {verb(e.seat, 'were', 'was')} paid ${e.amount} for {cards(e.cards)}."
    if kind is MoneyLost:
        return f"{who(e.seat)} lost ${e.amount} ({e.reason})."
    if kind is DieRolled:
        rerolls = f" after rerolling {', '.join(map(str, e.rolls[:-1]))}" if len(e.rolls) > 1 else ""
        return f"{who(e.seat)} rolled {e.value}{rerolls}: {e.owed} Treatment{'s' if e.owed != 1 else ''} owed."
    if kind is TreatmentPlayed:
        where = f"{whose_of(e.seat, e.target)} Patient"
        head = f"{who(e.seat)} played {card(e.card)} on {where}"
        if e.redirected:
            head += " (Wrong Chart)"
        if e.note == "nullified":
            return f"{head}: it did nothing at all."
        if e.cure == NONE:
            return f"{head}, face down: nobody can tell what it did."
        effect = []
        if e.cure:
            effect.append(f"+{e.cure} Cure")
        if e.harm:
            effect.append(f"+{e.harm} Harm")
        what = ", ".join(effect) if effect else "no effect"
        if e.note == "doubled":
            what += ", doubled"
        return f"{head}: {what} (now {e.total_cure} Cure, {e.total_harm} Harm)."
    if kind is PatientCured:
        return f"{card(e.patient)} went home cured from {whose(e.seat)} office."
    if kind is PatientDied:
        why = "too many Treatments (Mortal)" if e.cause == "mortal" else "the Harm"
        return f"{card(e.patient)} died in {whose(e.seat)} office of {why}."
    if kind is PatientDischarged:
        return f"{card(e.patient)} left {whose(e.seat)} office unpaid and untreated."
    if kind is InfamyChanged:
        change = f"gained {e.change}" if e.change > 0 else f"lost {-e.change}"
        return f"{who(e.seat)} {change} Infamy (now {e.total})."
    if kind is AnytimePlayed:
        name = card(e.card)
        if e.discard != NONE:
            return f"{who(e.seat)} played {name}."
        if e.other != NONE:
            return f"{who(e.seat)} played {name} on {whom(e.seat, e.target)} and {whom(e.seat, e.other)}."
        return f"{who(e.seat)} played {name} on {whom(e.seat, e.target)}."
    if kind is ReminderDiscarded:
        how = "did its work" if e.reason == "used" else "fizzled"
        return f"The {card(e.card)} beside {who(e.seat) if e.seat != reader else 'you'} {how}."
    if kind is TreatmentsOwedChanged:
        plural = "s" if e.owed != 1 else ""
        return f"{who(e.seat)} now {verb(e.seat, 'owe', 'owes')} {e.owed} Treatment{plural} this round."
    if kind is WindowOpened:
        return f"{listed(e.seats)} may play an Anytime card now."
    if kind is DoctorMobbed:
        return f"The Angry Mob ran {who(e.seat) if e.seat != reader else 'you'} out of town at {e.infamy} Infamy."
    if kind is EndgameStarted:
        if not e.seats:
            return f"The endgame: {e.reason}; the game ends with this turn."
        return f"The endgame: {e.reason}; {listed(e.seats, start=False)} each take one more turn."
    if kind is GameEnded:
        if not e.winners:
            return f"Game over after {e.round} rounds: the Mob got everyone, nobody wins."
        wins = verb(e.winners[0], "win", "wins") if len(e.winners) == 1 else "win"
        return f"Game over after {e.round} rounds: {listed(e.winners)} {wins}."
    return repr(event)


# --- balance (QB10) -----------------------------------------------------------


def balance_report(records: Sequence[Any]) -> dict[str, Any]:
    """The QB10 figures from finished :class:`core.play.GameRecord` s played
    with ``keep_events=True``: share of admitted Patients cured and died,
    median rounds, and each seat's share of wins (shared wins split), by seat
    and by position in the turn order (0 = the first doctor)."""
    if not records:
        raise ValueError("balance_report needs at least one game record")
    seats = records[0].state.seats
    admitted = cured = died = fled = mobbed = 0
    rounds: list[int] = []
    wins = [0.0] * seats
    by_position = [0.0] * seats
    for game in records:
        events = list(getattr(game.state, "start_events", ())) + list(game.events)
        for e in events:
            kind = type(e)
            if kind is PatientAdmitted:
                admitted += 1
            elif kind is PatientCured:
                cured += 1
            elif kind is PatientDied:
                died += 1
            elif kind is DoctorFled:
                fled += 1
            elif kind is DoctorMobbed:
                mobbed += 1
            elif kind is GameEnded:
                rounds.append(e.round)
        winners = game.outcome.winners if game.outcome else ()
        for s in winners:
            wins[s] += 1 / len(winners)
            by_position[(s - game.state.first) % seats] += 1 / len(winners)
    games = len(records)
    rounds.sort()
    mid = len(rounds) // 2
    median = (rounds[mid] if len(rounds) % 2 else (rounds[mid - 1] + rounds[mid]) / 2) if rounds else 0
    share = [100 * w / games for w in wins]
    return {
        "games": games,
        "seats": seats,
        "patients": admitted,
        "cured_pct": 100 * cured / admitted if admitted else 0.0,
        "died_pct": 100 * died / admitted if admitted else 0.0,
        "median_rounds": median,
        "fled_per_game": fled / games,
        "mobbed_per_game": mobbed / games,
        "no_winner_pct": 100 * sum(1 for r in records if not (r.outcome and r.outcome.winners)) / games,
        "win_pct_by_seat": share,
        "win_pct_by_position": [100 * w / games for w in by_position],
        "max_over_fair": max(share) - 100 / seats,
    }


def _median(values: Sequence[float]) -> float:
    if not values:
        return 0
    mid = len(values) // 2
    return values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2


RULES = Quack()
