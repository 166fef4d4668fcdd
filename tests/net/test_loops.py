"""A thread reaches its event loop through one helper, which lets go quietly once the loop has closed."""

from __future__ import annotations

import asyncio
import threading

from quackbox.net.loops import call_soon_from_thread


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
