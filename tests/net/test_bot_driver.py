"""The bot driver on its own: pacing, reactions, stand-ins, and bots that fail."""

from __future__ import annotations

import sys
import threading
import time

import pytest

from quackbox.core.bots import Bot
from quackbox.net import loops
from quackbox.net.bot_driver import BotDriver
from quackbox.net.seats import Seats
from quackbox.net.config import TableConfig
from tests.net import fakegame
from tests.net.fakegame import Draw, Drop, Play, Poke

RULES = fakegame.RULES


class Game:
    """A Shed game with a driver, the way the table runs one."""

    def __init__(self, *, bots: int, **config) -> None:
        config.setdefault("bot_kind", "random")
        config.setdefault("bot_delay", 1.0)
        self.seats = Seats(3, host_name=None, host_token=None, bots=bots)
        for conn in range(3 - bots):
            self.seats.take_open("", conn=conn)
        self.driver = BotDriver(TableConfig(game="shed", seats=3, **config), RULES)
        self.state = RULES.new_game(seats=3, seed=1)
        self.driver.deal(self.seats, seed=1)
        self.played: list[tuple[int, object]] = []
        self.changed(0.0, moved=None, before=())

    def changed(self, now, *, moved, before) -> None:
        self.now = now
        self.driver.changed(now, self.state, self.seats, moved=moved, before=before)

    def play(self, seat, move):
        before = RULES.waiting_for(self.state)
        RULES.apply(self.state, seat, move)
        self.played.append((seat, move))
        self.changed(self.now, moved=seat, before=before)
        return [("moved", seat)]

    def step(self, now):
        self.now = now
        return self.driver.step(now, self.state, self.seats, self.play)


class Scripted(Bot):
    """A bot that makes the moves it is given, or raises."""

    name = "scripted"

    def __init__(self, choice=None, reaction=None, reacts=True) -> None:
        self.choice, self.reaction, self.reacts = choice, reaction, reacts

    def choose(self, view):
        if isinstance(self.choice, Exception):
            raise self.choice
        return self.choice

    def react(self, view):
        if isinstance(self.reaction, Exception):
            raise self.reaction
        return self.reaction


def test_a_bot_waits_out_the_delay_after_a_change():
    game = Game(bots=3)
    assert game.step(0.9) == [] and game.played == []
    assert game.step(1.0) == [("moved", 0)]
    assert game.driver.wakeups(game.state, game.seats) == [2.0]  # paced from the last change


def test_bots_answer_a_countdown_at_once():
    """A countdown (a poke here; a response window or Tremors in the games) is there for
    people's reaction time: the bot it waits for answers in the same moment, unpaced,
    and the bots' pace comes back once it is answered."""
    game = Game(bots=3)
    game.driver.bots[2] = Scripted(reaction=Poke(1))
    game.step(1.0)
    assert game.played == [(2, Poke(1))] and RULES.deadline(game.state) is not None
    assert game.driver.wakeups(game.state, game.seats) == [1.0]  # not 2.0: at once
    dropped = game.state.hands[1][0]
    game.driver.bots[1] = Scripted(choice=Drop(dropped), reacts=False)
    assert game.step(1.0) == [("moved", 1)] and game.played[-1] == (1, Drop(dropped))
    assert game.driver.wakeups(game.state, game.seats) == [2.0]  # paced again


def test_a_reaction_goes_alone_and_before_the_seat_waited_for():
    game = Game(bots=3)
    game.driver.bots[2] = Scripted(reaction=Poke(1))
    game.step(1.0)
    assert game.played == [(2, Poke(1))]


def test_every_bot_waited_for_answers_in_one_step():
    game = Game(bots=3, bot_delay=0.0)
    hand = game.state.hands[0][0]
    game.driver.bots[0] = Scripted(choice=Play(hand), reacts=False)
    game.driver.bots[1] = Scripted(choice=Draw(), reacts=False)
    game.driver.bots[2] = Scripted(reacts=False)
    game.step(0.0)
    # Seat 0 moved, then it was seat 1's turn, but seat 1 was not waited for
    # when the step began: it waits for the next step.
    assert game.played == [(0, Play(hand))]
    game.step(0.0)
    assert game.played[-1] == (1, Draw())


def test_a_person_away_past_the_grace_gets_a_stand_in():
    game = Game(bots=2, away_grace=5.0)
    person = game.seats[0]
    game.seats.gone(person, person.conn, now=2.0)
    assert game.driver.stand_in_due(person) == 7.0  # from when they left, which was later
    assert game.step(6.9) == [] and game.played == []
    assert game.step(7.0) == [("moved", 0)]
    assert 0 in game.driver.stand_ins


def test_no_stand_in_while_the_person_is_here_or_without_a_grace():
    game = Game(bots=2, away_grace=None)
    assert game.driver.stand_in_due(game.seats[0]) is None
    game.seats.gone(game.seats[0], game.seats[0].conn, now=1.0)
    assert game.driver.stand_in_due(game.seats[0]) is None
    assert game.step(1000.0) == []


def test_the_turn_timer_names_the_seats_it_runs_out_on():
    game = Game(bots=2, turn_timer=10.0)
    assert game.driver.timed_out(9.9, game.state, game.seats) == []
    (seat,) = game.driver.timed_out(10.0, game.state, game.seats)
    assert seat is game.seats[0]
    seat.idle = True
    assert game.driver.stand_in_due(seat) == game.driver.last_change
    assert game.driver.timed_out(20.0, game.state, game.seats) == []


def test_a_bot_that_fails_plays_the_first_legal_move_or_lets_the_moment_pass(caplog):
    game = Game(bots=3, bot_delay=0.0)
    first = RULES.legal_moves(game.state, 0)[0]
    for seat in range(3):
        game.driver.bots[seat].bot = Scripted(choice=RuntimeError("bug"), reaction=RuntimeError("bug too"))
    game.step(0.0)
    assert game.played == [(0, first)]  # seats 1 and 2 failed to react: no reaction
    assert caplog.text.count("failed") == 3


def test_a_bot_offering_an_illegal_move_plays_the_first_legal_one_instead(caplog):
    game = Game(bots=3, bot_delay=0.0)
    first = RULES.legal_moves(game.state, 0)[0]
    game.driver.bots[0] = Scripted(choice=Play(999), reacts=False)
    game.driver.bots[1] = game.driver.bots[2] = Scripted(reacts=False)
    game.step(0.0)
    assert game.played == [(0, first)] and "illegal move" in caplog.text


def test_nobody_able_to_move_quiets_the_bots_for_a_second():
    game = Game(bots=3, bot_delay=0.0)
    for seat in range(3):
        game.driver.bots[seat] = Scripted(reacts=False)  # chooses None: nothing
    assert game.step(5.0) == []
    assert not game.driver.pending and game.driver.quiet_until == pytest.approx(6.0)


class Slow(Bot):
    """A slow bot (like the search bot) that notes each view it thinks about,
    and the thread it thinks in, and thinks until its ``gate`` opens."""

    name = "slow"
    reacts = False
    slow = True

    def __init__(self, seed: int = 0) -> None:
        self.threads: list[threading.Thread] = []
        self.views: list = []
        self.gate = threading.Event()

    def choose(self, view):
        self.threads.append(threading.current_thread())
        self.views.append(view)
        assert self.gate.wait(10), "the test never let the bot finish"
        return view.legal[0]

    def react(self, view):
        return None


@pytest.fixture
def slow_bots(monkeypatch) -> list[Slow]:
    """``bot_kind="slow"`` makes :class:`Slow` bots, listed as they are made."""
    from quackbox.core import bots as core_bots

    made: list[Slow] = []
    real_make = core_bots.make

    def make(game, kind, seed, **kw):
        if kind == "slow":
            made.append(Slow(seed))
            return made[-1]
        return real_make(game, kind, seed, **kw)

    monkeypatch.setattr(core_bots, "make", make)
    return made


def until(condition, timeout: float = 5.0) -> bool:
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            return False
        time.sleep(0.001)
    return True


def test_a_slow_bot_s_thread_makes_python_hand_over_quickly(slow_bots, monkeypatch):
    """Beside a thinking thread the loop would wait up to Python's 5 ms for the
    interpreter at every send: the thinker's pool lowers the switch interval."""
    monkeypatch.setattr(sys, "getswitchinterval", lambda: 0.005)  # Python's default, whatever ran before
    lowered: list[float] = []
    monkeypatch.setattr(sys, "setswitchinterval", lowered.append)
    game = Game(bots=3, bot_kind="slow", bot_delay=1.0)
    assert until(lambda: slow_bots[0].views)
    assert lowered == [loops.SWITCH_SECONDS]
    slow_bots[0].gate.set()


def test_a_slow_bot_thinks_off_the_loop_while_the_pace_runs(slow_bots):
    """The search bot must not freeze a table with people, nor make them wait
    for the pace and then for its thought: it starts thinking in a worker
    thread as soon as the game waits for it, and moves once the pace is over."""
    game = Game(bots=3, bot_kind="slow", bot_delay=1.0)  # the game waits for seat 0 from 0.0
    bot = slow_bots[0]
    assert until(lambda: bot.views), "seat 0's bot did not start thinking when the game began waiting for it"
    assert bot.threads[0] is not threading.main_thread()
    woken = threading.Event()
    game.driver.on_thought = woken.set
    bot.gate.set()
    assert woken.wait(5)
    assert game.step(0.5) == []  # the thought is ready, the pace is not over
    assert game.step(1.0) == [("moved", 0)]
    assert len(bot.views) == 1


def test_a_slow_bot_that_thinks_longer_than_the_pace_moves_when_it_is_done(slow_bots):
    game = Game(bots=3, bot_kind="slow", bot_delay=1.0)
    bot = slow_bots[0]
    assert game.step(1.0) == []  # the pace is over; the thought is not
    woken = threading.Event()
    game.driver.on_thought = woken.set
    bot.gate.set()
    assert woken.wait(5)
    assert game.step(1.3) == [("moved", 0)]
    assert len(bot.views) == 1, "the step at the pace started a second thought about the same view"


def test_only_the_seats_waited_for_think_ahead(slow_bots):
    game = Game(bots=3, bot_kind="slow", bot_delay=1.0)
    assert until(lambda: slow_bots[0].views)
    time.sleep(0.05)
    assert [len(b.views) for b in slow_bots] == [1, 0, 0]
    slow_bots[0].gate.set()


def test_a_view_that_changes_while_a_slow_bot_thinks_starts_a_new_thought():
    """The thought about the newest view is the one played; one about a view
    in between that had not begun is dropped, not thought through."""
    from concurrent.futures import ThreadPoolExecutor
    from types import SimpleNamespace

    from quackbox.net.bot_driver import _Thinking

    bot = Slow()
    pool = ThreadPoolExecutor(1)
    thinking = _Thinking(bot, pool, lambda: None)
    first, between, last = (SimpleNamespace(legal=(f"move {n}",)) for n in range(3))
    thinking.think(first)
    assert until(lambda: bot.views == [first])  # thinking about it now
    thinking.think(between)
    assert thinking.choose(last) is None
    bot.gate.set()
    end = time.monotonic() + 5
    move = None
    while move is None and time.monotonic() < end:
        move = thinking.choose(last)
        time.sleep(0.001)
    assert move == "move 2"
    assert bot.views == [first, last]
    pool.shutdown()
