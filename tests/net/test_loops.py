"""A thread reaches its event loop through one helper, which lets go quietly once the loop has closed."""

from __future__ import annotations

import asyncio
import sys
import threading

import pytest

from quackbox.net.loops import SWITCH_SECONDS, call_soon_from_thread, quick_hand_over


def test_a_callback_from_a_thread_runs_on_the_loop() -> None:
    ran_in: list[int] = []

    async def main() -> None:
        loop = asyncio.get_running_loop()
        came = asyncio.Event()

        def callback(name: str) -> None:
            ran_in.append(threading.get_ident())
            assert name == "thought"
            came.set()

        thread = threading.Thread(target=call_soon_from_thread, args=(loop, callback, "thought"))
        thread.start()
        await asyncio.wait_for(came.wait(), 5)
        thread.join()
        assert ran_in == [threading.get_ident()]  # on the loop's thread, not the caller's

    asyncio.run(main())


def test_a_callback_for_a_closed_loop_is_let_go_without_raising() -> None:
    loop = asyncio.new_event_loop()
    loop.close()
    errors: list[BaseException] = []

    def late() -> None:
        try:
            call_soon_from_thread(loop, errors.append, RuntimeError("must never run"))
        except BaseException as exc:  # what the thread would have died of
            errors.append(exc)

    thread = threading.Thread(target=late)
    thread.start()
    thread.join()
    assert errors == []


def test_quick_hand_over_lowers_the_switch_interval_and_never_raises_it() -> None:
    before = sys.getswitchinterval()
    try:
        sys.setswitchinterval(0.005)
        quick_hand_over()
        assert sys.getswitchinterval() == pytest.approx(SWITCH_SECONDS)
        sys.setswitchinterval(0.0001)  # someone wanted it quicker still
        quick_hand_over()
        assert sys.getswitchinterval() == pytest.approx(0.0001)
    finally:
        sys.setswitchinterval(before)
