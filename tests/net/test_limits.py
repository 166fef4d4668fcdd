"""The rate limits on their own: token buckets, floods, and room-code guesses."""

from __future__ import annotations

import pytest

from quackbox.net.limits import (
    FLOOD_BURST,
    FREE_MOVES_PER_TURN,
    MESSAGE_BURST,
    MESSAGES_PER_SECOND,
    SLOW_ADDRESSES,
    MessageLimits,
    Rate,
    SlowDown,
    TokenBucket,
    TurnBudget,
)


def test_a_bucket_gives_its_burst_then_refills_at_its_rate():
    bucket = TokenBucket(3, 2.0, now=0.0)
    assert [bucket.take(0.0) for _ in range(4)] == [True, True, True, False]
    assert not bucket.take(0.4)  # 0.8 of a token
    assert bucket.take(0.5)  # one whole token again
    assert not bucket.take(0.5)


def test_a_bucket_never_holds_more_than_its_burst():
    bucket = TokenBucket(2, 10.0, now=0.0)
    assert [bucket.take(1000.0) for _ in range(3)] == [True, True, False]


def test_a_clock_going_backwards_adds_nothing():
    bucket = TokenBucket(1, 1.0, now=10.0)
    assert bucket.take(10.0)
    assert not bucket.take(5.0)


def test_messages_past_the_burst_are_refused_with_the_wait_until_the_next():
    limits = MessageLimits(now=0.0)
    assert all(limits.message(0.0).rate is Rate.OK for _ in range(MESSAGE_BURST))
    refused = limits.message(0.0)
    assert refused.rate is Rate.REFUSE and refused.retry_after == pytest.approx(1 / MESSAGES_PER_SECOND, abs=0.0011)
    assert limits.message(0.005).rate is Rate.REFUSE
    assert limits.message(refused.retry_after).rate is Rate.OK  # the wait it gave was enough
    assert limits.message(1.0).rate is Rate.OK  # a second refills plenty


def test_a_flood_is_called_a_flood_but_a_client_that_waits_never_is():
    limits = MessageLimits(now=0.0)
    verdicts = [limits.message(0.0).rate for _ in range(MESSAGE_BURST + FLOOD_BURST + 1)]
    assert verdicts.count(Rate.OK) == MESSAGE_BURST and verdicts.count(Rate.REFUSE) == FLOOD_BURST
    assert verdicts[-1] is Rate.FLOOD
    patient = MessageLimits(now=0.0)
    now = 0.0
    for _ in range(10 * (MESSAGE_BURST + FLOOD_BURST)):  # always over the limit, always waiting as told
        verdict = patient.message(now)
        assert verdict.rate is not Rate.FLOOD
        now += verdict.retry_after
    assert now > 1.0


def test_a_turn_budget_runs_out_and_comes_back_with_the_next_turn():
    budget = TurnBudget()
    for _ in range(FREE_MOVES_PER_TURN):
        assert not budget.spent(2)
        budget.use(2)
    assert budget.spent(2) and not budget.spent(1)  # each seat has its own
    budget.new_turn()
    assert not budget.spent(2)


def test_wrong_tries_are_free_at_first_then_slower_up_to_a_cap():
    slow = SlowDown(free=2, step=1.0, most=5.0, window=60.0)
    delays = [slow.failed("10.0.0.9", float(t)) for t in range(10)]
    assert delays == [0, 0, 1.0, 2.0, 3.0, 4.0, 5.0, 5.0, 5.0, 5.0]
    assert slow.failed("10.0.0.10", 10.0) == 0  # another address is not held to it
    assert slow.failed("10.0.0.9", 200.0) == 0  # the window passed


@pytest.mark.parametrize("extra", [1, 50])
def test_wrong_tries_are_remembered_for_a_bounded_number_of_addresses(extra):
    slow = SlowDown(free=0)
    for n in range(SLOW_ADDRESSES + extra):
        slow.failed(f"a{n}", 0.0)
    assert slow.addresses <= SLOW_ADDRESSES
    for _ in range(1000):
        slow.failed("one", 1.0)
    assert slow.tries("one") <= slow.free + slow.most / slow.step + 1  # bounded per address too


def test_a_bucket_gives_what_it_has_and_says_how_long_the_rest_takes():
    bucket = TokenBucket(100, 10.0, 0.0)
    assert bucket.take_up_to(150, 0.0) == 100
    assert bucket.take_up_to(5, 0.0) == 0 and bucket.wait_for(5) == pytest.approx(0.5)
    assert bucket.wait_for(1000) == pytest.approx(10.0)  # at most a burst is ever waited for
    assert bucket.take_up_to(5, 0.5) == 5 and bucket.take_up_to(1, 0.5) == 0
