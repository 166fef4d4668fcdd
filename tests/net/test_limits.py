"""The rate limits on their own: token buckets, floods, and room-code guesses."""

from __future__ import annotations

import pytest

from net.limits import (
    CHAT_BURST,
    CODE_ADDRESSES,
    FLOOD_LIMIT,
    MESSAGE_BURST,
    MESSAGES_PER_SECOND,
    CodeTries,
    MessageLimits,
    Rate,
    TokenBucket,
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


def test_messages_past_the_burst_are_warned_once_a_second_then_dropped_quietly():
    limits = MessageLimits(now=0.0)
    assert all(limits.message(0.0) is Rate.OK for _ in range(MESSAGE_BURST))
    assert limits.message(0.0) is Rate.WARN
    assert limits.message(0.001) is Rate.DROP
    assert limits.message(1.0) is Rate.OK  # a second refills plenty
    for _ in range(int(MESSAGES_PER_SECOND) - 1):
        limits.message(1.0)
    assert limits.message(1.0) is Rate.WARN  # a second after the last warning


def test_a_flood_is_called_a_flood():
    limits = MessageLimits(now=0.0)
    verdicts = [limits.message(0.0) for _ in range(MESSAGE_BURST + FLOOD_LIMIT)]
    assert verdicts.count(Rate.OK) == MESSAGE_BURST
    assert verdicts[-1] is Rate.FLOOD and Rate.FLOOD not in verdicts[:-1]


def test_chat_has_its_own_smaller_bucket():
    limits = MessageLimits(now=0.0)
    assert [limits.chat_line(0.0) for _ in range(CHAT_BURST + 1)] == [True] * CHAT_BURST + [False]
    assert limits.message(0.0) is Rate.OK  # other messages are not held up by chat
    assert limits.chat_line(1.0)


def test_wrong_codes_block_an_address_for_the_window():
    tries = CodeTries(tries=3, window=60.0)
    for t in range(3):
        assert not tries.blocked("10.0.0.9", float(t))
        tries.failed("10.0.0.9", float(t))
    assert tries.blocked("10.0.0.9", 3.0)
    assert not tries.blocked("10.0.0.10", 3.0)  # another address is not held to it
    assert tries.blocked("10.0.0.9", 60.0)
    assert not tries.blocked("10.0.0.9", 60.5)  # the first try is out of the window


@pytest.mark.parametrize("extra", [1, 50])
def test_wrong_codes_are_remembered_for_a_bounded_number_of_addresses(extra):
    tries = CodeTries(tries=1, window=60.0)
    for n in range(CODE_ADDRESSES + extra):
        tries.failed(f"a{n}", 0.0)
    assert len(tries._failures) <= CODE_ADDRESSES
    assert tries.blocked(f"a{CODE_ADDRESSES + extra - 1}", 1.0)  # the latest is still held
