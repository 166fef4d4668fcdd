"""The bot driver on its own: pacing, reactions, stand-ins, and bots that fail."""

from __future__ import annotations

import copy
import os
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool

import pytest

from quackbox.core.bots import Bot
from quackbox.net.bot_driver import THINK_DEADLINE, BotDriver
from quackbox.net.config import TableConfig
from quackbox.net.seats import Seats
from tests.net import fakegame
from tests.net.fakegame import Draw, Drop, Play, Poke
from tests.net.workers import WorkerBot

RULES = fakegame.RULES


class Game:
    """A Shed game with a driver, the way the table runs one."""

    def __init__(self, *, bots: int, pool=None, **config) -> None:
        config.setdefault("bot_kind", "random")
        config.setdefault("bot_delay", 1.0)
        self.seats = Seats(3, host_name=None, host_token=None, bots=bots)
        for conn in range(3 - bots):
            self.seats.take_open("", conn=conn)
        self.driver = BotDriver(TableConfig(game="shed", seats=3, **config), RULES)
        self.driver.pool = pool
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
    """A slow bot (like the search bot): it counts the choices it made, which a thought
    in a worker changes in the bot it sends back."""

    name = "slow"
    reacts = False
    remembers = True
    slow = True

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self.chosen = 0
        self.seen = 0

    def choose(self, view):
        self.chosen += 1
        return view.legal[0]

    def observe(self, events, seat):
        self.seen += 1


class Pool:
    """Thinkers that think nowhere: each decision is a future the test settles."""

    def __init__(self) -> None:
        self.asked: list[tuple[object, object, Future]] = []
        self.broke = 0

    def start(self) -> None:
        pass

    def think(self, bot, view) -> Future:
        future: Future = Future()
        self.asked.append((bot, view, future))
        return future

    def broken(self) -> None:
        self.broke += 1

    def answer(self, index: int = -1) -> None:
        """The worker's answer to decision ``index``: the move, and the bot after it."""
        bot, view, future = self.asked[index]
        after = copy.deepcopy(bot)
        move = after.choose(view)
        future.set_running_or_notify_cancel()
        future.set_result((move, after))


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


def slow_game(pool: Pool, **config) -> Game:
    return Game(bots=3, bot_kind="slow", bot_delay=1.0, pool=pool, **config)


def test_a_slow_bot_thinks_in_a_worker_while_the_pace_runs_and_keeps_the_bot_the_thought_left(slow_bots):
    """The search bot must not make people wait for the pace and then for its thought:
    it is sent to think as soon as the game waits for it, and moves once the pace is over;
    the bot its thought sent back is the bot from then on."""
    pool = Pool()
    game = slow_game(pool)
    assert [view.seat for _bot, view, _f in pool.asked] == [0]  # only the seat waited for
    woken = []
    game.driver.on_thought = lambda: woken.append(True)
    pool.answer()
    assert woken
    assert game.step(0.5) == []  # the thought is ready, the pace is not over
    assert game.step(1.0) == [("moved", 0)]
    assert game.driver.bots[0].bot.bot.chosen == 1 and slow_bots[0].chosen == 0
    assert len(pool.asked) == 2  # then seat 1, waited for next


def test_a_slow_bot_that_thinks_longer_than_the_pace_moves_when_it_is_done(slow_bots):
    pool = Pool()
    game = slow_game(pool)
    assert game.step(1.0) == []  # the pace is over; the thought is not
    pool.answer(0)
    assert game.step(1.3) == [("moved", 0)]
    assert [view.seat for _bot, view, _f in pool.asked] == [0, 1], "the step started a second thought"


def test_what_a_bot_is_shown_drops_its_thought_and_its_answer_is_never_taken(slow_bots):
    """A bot answers one question at a time: events it is shown while it thinks drop the
    thought (the bot it would have sent back never existed), and it thinks again."""
    pool = Pool()
    game = slow_game(pool)
    _bot, _view, first = pool.asked[0]
    thinking = game.driver.bots[0].thinking
    thinking.observe([], 0)
    assert first.cancelled() and thinking.bot.seen == 1
    game.driver.changed(0.1, game.state, game.seats, moved=None, before=RULES.waiting_for(game.state))
    assert len(pool.asked) == 2
    pool.answer(1)
    assert game.step(1.1) == [("moved", 0)]
    assert thinking.bot.seen == 1 and thinking.bot.chosen == 1  # the answer taken is the second's


def test_a_thought_past_its_deadline_is_made_by_the_normal_bot_instead(slow_bots, caplog):
    pool = Pool()
    game = slow_game(pool)
    assert THINK_DEADLINE in game.driver.wakeups(game.state, game.seats)
    assert game.step(THINK_DEADLINE - 0.1) == []
    assert game.step(THINK_DEADLINE) == [("moved", 0)]
    assert "normal bot decided instead" in caplog.text
    assert game.driver.bots[0].thinking.bot.chosen == 0  # the slow bot itself never chose


def test_a_worker_that_died_is_replaced_by_the_normal_bot_for_that_decision(slow_bots, caplog):
    pool = Pool()
    game = slow_game(pool)
    _bot, _view, future = pool.asked[0]
    future.set_running_or_notify_cancel()
    future.set_exception(BrokenProcessPool("a worker died"))
    assert game.step(1.0) == [("moved", 0)]
    assert pool.broke == 1 and "could not think (BrokenProcessPool)" in caplog.text


# --- real worker processes ------------------------------------------------------------------


def test_a_slow_bot_thinks_in_another_process_and_a_dead_worker_is_replaced(caplog):
    """Over the real pool: the decision is made in a worker (its pid, not ours), a worker
    that dies costs that decision to the normal bot, and the next decision has a new pool."""
    from quackbox.net.thinker import Thinkers

    pool = Thinkers(("side-effects",), workers=1)
    try:
        from quackbox.core import games

        rules = games.get("side-effects")
        state = rules.new_game(seats=2, seed=3)
        seat = rules.waiting_for(state)[0]
        view = rules.view(state, seat)
        move, after = pool.think(WorkerBot(), view).result(timeout=60)
        assert move in view.legal and after.pids and after.pids[0] != os.getpid()
        with pytest.raises(BrokenProcessPool):
            pool.think(WorkerBot(die=True), view).result(timeout=60)
        pool.broken()
        move, after = pool.think(WorkerBot(), view).result(timeout=60)
        assert move in view.legal and pool.restarts == 1
    finally:
        pool.close()


async def test_a_seeded_table_of_hard_bots_replays_exactly(tmp_path):
    """Same seed, same moves: twice over a real host, its hard bots thinking in worker
    processes, the journals agree move for move."""
    import asyncio

    from quackbox.net import journal as jn
    from quackbox.net.host import Host, HostConfig

    moves = 24
    played = []
    for run in range(2):
        folder = tmp_path / f"run-{run}"
        config = HostConfig(
            game="quack",
            seats=3,
            bots=3,
            headless=True,
            autostart=True,
            bot_kind="hard",
            bot_delay=0.0,
            seed=11,
            bind="127.0.0.1",
            port=0,
            journal_dir=str(folder),
        )
        async with asyncio.timeout(120):
            async with Host(config) as host:
                await host.until(lambda: host.table.seq >= moves)
        (path,) = folder.glob("*.qbj")
        played.append(jn.read(path).moves[:moves])
    assert len(played[0]) == moves and played[0] == played[1]
