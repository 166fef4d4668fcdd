"""One session at a door: its transport, its child, what passes between them, and its end.

:class:`DoorSession` carries a session's traffic once :class:`quackbox.net.door.Door`
has made it: keys pass on to the child at most as fast as a person could type,
the rest waiting in the player's own client by the transport's flow control;
window sizes are clamped and coalesced; a session whose terminal can no longer
be written ends, and an idle one is closed. What it asks of the door (admission,
the child's launch, being told it ended) goes through the door's methods alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field
from typing import Hashable, Mapping, Protocol

from quackbox.net.door_policy import (
    CANNOT_START,
    INPUT_CLOSED,
    TABLE_CLOSED,
    Admission,
    DoorLimits,
    WindowSize,
    idle_sentence,
)
from quackbox.net.limits import TokenBucket
from quackbox.net.player_folders import Key
from quackbox.net.pty_child import PtyChild

__all__ = ["DoorSession", "SessionDoor", "SessionRequest", "Terminal", "loop_now"]

log = logging.getLogger("quackbox.door")


class Terminal(Protocol):
    """A door's transport, as one session's child sees it (an SSH channel, a browser's socket)."""

    def write(self, data: bytes) -> None:
        """Send ``data`` to the player; OSError when it can no longer be written."""

    def pause_reading(self) -> None:
        """Stop taking the player's input (the transport's flow control holds it back)."""

    def resume_reading(self) -> None: ...

    def finish(self, status: int, sentence: str = "") -> None:
        """End the session with exit status ``status``. ``sentence``: why, when the door
        said so (already written to the terminal; a browser's page shows it beside it too)."""

    async def wait_closed(self) -> None:
        """Until the player's side has closed."""


GOODBYE_WAIT = 2.0
"""Seconds a session closed by the host waits for the player's side to close
before the connection is cut: OpenSSH drops what it has not yet shown when
the connection is cut, so the last sentence would never be seen."""
# Leave the alternate screen, show the cursor, stop mouse reports, reset colours:
# a child killed at a hangup cannot put the player's terminal back itself.
RESET_TERMINAL = b"\x1b[?1049l\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?2004l\x1b[?25h\x1b[0m"


@dataclass
class SessionRequest:
    """What a session asks for, once its transport knows."""

    conn: Hashable
    """Its connection (what :class:`Doorkeeper` counts)."""
    key: Key
    name: str
    """The name it comes in under."""
    watch: bool
    term: str = "xterm"
    size: tuple[int, int] = (80, 24)
    client_env: Mapping[str, str] = field(default_factory=dict)
    newline: str = "\r\n"
    """How its sentences end (``\\n`` without a terminal)."""


class SessionDoor(Protocol):
    """What a session asks of its door (:class:`quackbox.net.door.Door`): being let in, its
    child, and saying it ended. A protocol, so the door's module and this one import one way."""

    limits: DoorLimits

    @property
    def closed(self) -> bool: ...

    async def admit(self, session: DoorSession) -> Admission | str: ...

    def admitted(self, session: DoorSession, how: Admission) -> None: ...

    async def launch(self, session: DoorSession) -> PtyChild: ...

    def ended(self, session: DoorSession, task: asyncio.Task[None] | None) -> None: ...

    def track(self, task: asyncio.Task[None]) -> None: ...


def loop_now() -> float:
    """The event loop's clock: what the door's budgets and deadlines are timed by."""
    return asyncio.get_running_loop().time()


class DoorSession:
    """One session at a door: its terminal, its child, what passes between them, and its end.

    Made by :meth:`Door.session`; the transport calls :meth:`begin` once it
    may write, then hands on what happens: :meth:`typed`, :meth:`resized`,
    :meth:`input_closed`, :meth:`pause_output` / :meth:`resume_output`, and
    :meth:`lost` when the connection is gone.
    """

    def __init__(self, door: SessionDoor, request: SessionRequest, terminal: Terminal) -> None:
        self.door = door
        self.request = request
        self.terminal = terminal
        limits = door.limits
        self.window = WindowSize(
            *request.size, interval=limits.resize_interval, max_cols=limits.max_cols, max_rows=limits.max_rows
        )
        self.child: PtyChild | None = None
        self._clock = limits.clock or loop_now
        self._typing = TokenBucket(limits.input_burst, limits.input_per_second, self._clock())
        self._held = bytearray()
        """Input the child may not have yet (the transport is paused meanwhile)."""
        self._release: asyncio.TimerHandle | None = None
        self._paused: set[str] = set()
        """Why the transport's input is paused: "typing" (too fast), "child" (not read yet),
        "starting" (no child yet)."""
        self._resize: asyncio.TimerHandle | None = None
        self._resize_at = 0.0
        """When the window change waiting in :attr:`_resize` is due, by the door's clock."""
        self._idle: asyncio.TimerHandle | None = None
        self._last_key = 0.0
        self._done = False

    @property
    def name(self) -> str:
        return self.request.name

    async def begin(self) -> None:
        """Let the session in and start its child, or tell it why not and end it.

        Neither step holds up the event loop: what is read from files is read in a thread,
        and a child forked from the zygote is awaited. Meanwhile the session may end (its
        connection gone, the door closed): then nothing starts, or what started is ended.
        """
        door = self.door
        verdict = await door.admit(self)
        if self._gone():
            return
        if door.closed:
            verdict = TABLE_CLOSED
        if isinstance(verdict, str):
            self.refuse(verdict)
            return
        door.admitted(self, verdict)  # counted from now: nobody takes its place while it starts
        launched_at = self.window.size
        try:
            child = await door.launch(self)
        except OSError as exc:
            log.error("door: cannot start a session's child: %s", exc)
            door.ended(self, None)
            self.refuse(CANNOT_START)
            return
        if self._gone():
            # Gone while its child started: the child goes too.
            door.track(asyncio.get_running_loop().create_task(self._reap(child)))
            return
        self.child = child
        log.info("door: %s (%s) came in: child %d", self.name, self.request.key.id, child.pid)
        child.start(self._output, self._child_backlog)
        asyncio.get_running_loop().create_task(self._watch_child())
        if self.window.size != launched_at:
            child.resize(*self.window.size)
        self._key_pressed()
        self._unpause("starting")
        if self._held:
            self._pass_on()

    def _gone(self) -> bool:
        """Whether the session has ended (asked after an await: it may have, meanwhile)."""
        return self._done

    def refuse(self, sentence: str) -> None:
        """Tell the player ``sentence`` and end the session (exit status 1)."""
        self._done = True
        self.say(sentence)
        with contextlib.suppress(OSError):
            self.terminal.finish(1, sentence)

    def say(self, text: str) -> None:
        with contextlib.suppress(OSError):
            self.terminal.write(f"{text}{self.request.newline}".encode())

    # --- what the player does ---------------------------------------------------------

    def typed(self, data: bytes) -> None:
        """Keys typed: on to the child at most as fast as a person types; the
        rest waits, with the transport paused, until it may go (and all of it
        until the child has started)."""
        if self._done:
            return
        self._held += data
        if self.child is None:
            self._pause("starting")
            return
        self._key_pressed()
        self._pass_on()

    def _pass_on(self) -> None:
        self._release = None
        if self.child is None or self._done:
            return
        count = self._typing.take_up_to(len(self._held), self._clock())
        if count:
            self.child.write(bytes(self._held[:count]))
            del self._held[:count]
        if self._held:
            self._pause("typing")
            wait = self._typing.wait_for(len(self._held))
            self._release = asyncio.get_running_loop().call_later(wait, self._pass_on)
        else:
            self._unpause("typing")

    def resized(self, cols: int, rows: int) -> None:
        now = self._clock()
        at = self.window.ask(cols, rows, now)
        if at is not None and not self._done:
            self._resize_at = at
            self._resize = asyncio.get_running_loop().call_later(at - now, self._give_size)

    def _give_size(self) -> None:
        self._resize = None
        now = self._clock()
        if now < self._resize_at:  # not yet by the door's clock (one that is not the loop's)
            self._resize = asyncio.get_running_loop().call_later(self._resize_at - now, self._give_size)
            return
        size = self.window.due(now)
        if size is not None and self.child is not None:
            self.child.resize(*size)

    def input_closed(self) -> None:
        """The player's side will send nothing more (``ssh ... < /dev/null``): the session ends."""
        self.close(INPUT_CLOSED, status=0)

    def pause_output(self) -> None:
        """The player's side is not keeping up: stop reading the child, which
        then blocks on its terminal rather than the host buffering without end."""
        if self.child is not None:
            self.child.pause_output()

    def resume_output(self) -> None:
        if self.child is not None:
            self.child.resume_output()

    def lost(self) -> None:
        """The connection is gone."""
        self._end()

    # --- flow -------------------------------------------------------------------------

    def _output(self, data: bytes) -> None:
        try:
            self.terminal.write(data)
        except OSError:
            # The player's side can no longer be written (closed, half-closed): the session is over.
            log.info("door: %s's terminal closed; ending the session", self.name)
            self._end()

    def _child_backlog(self, full: bool) -> None:
        if full:
            self._pause("child")
        else:
            self._unpause("child")

    def _pause(self, why: str) -> None:
        if not self._paused:
            self.terminal.pause_reading()
        self._paused.add(why)

    def _unpause(self, why: str) -> None:
        if why in self._paused:
            self._paused.discard(why)
            if not self._paused and not self._done:
                self.terminal.resume_reading()

    # --- ending -----------------------------------------------------------------------

    def close(self, message: str, *, status: int) -> None:
        """End the session from the host's side, telling the player ``message``."""
        if self._done:
            return
        task = self._end()
        terminal = self.terminal

        async def then_say() -> None:
            if task is not None:
                await task
            try:
                terminal.write(RESET_TERMINAL)
                terminal.write(f"{message}{self.request.newline}".encode())
                terminal.finish(status, message)
            except OSError:
                return  # the player's side closed meanwhile: nobody to tell
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(terminal.wait_closed(), GOODBYE_WAIT)

        self.door.track(asyncio.get_running_loop().create_task(then_say()))

    def _end(self) -> asyncio.Task[None] | None:
        """Hang up the child (once); the task that reaps it."""
        if self._done:
            return None
        self._done = True
        for timer in (self._idle, self._release, self._resize):
            if timer is not None:
                timer.cancel()
        self._held.clear()
        task = None
        if self.child is not None:
            task = asyncio.get_running_loop().create_task(self._reap(self.child))
        self.door.ended(self, task)
        return task

    async def _reap(self, child: PtyChild) -> None:
        status = await child.end(self.door.limits.hangup_grace)
        log.info("door: %s left; child %d ended (%d)", self.name, child.pid, status)

    async def _watch_child(self) -> None:
        """The child exited by itself (the player left): pass on what it wrote last, and its status."""
        child = self.child
        if child is None:
            return
        status = await child.wait()
        if self._done:
            return
        child.flush_output()
        if not self._done:  # else its terminal closed while the last of it was passed on
            self._end()
            with contextlib.suppress(OSError):
                self.terminal.finish(status if status >= 0 else 1)  # killed by a signal: a plain failure

    def _key_pressed(self) -> None:
        idle = self.door.limits.idle_timeout
        if idle is None:
            return
        self._last_key = self._clock()
        if self._idle is None:
            self._idle = asyncio.get_running_loop().call_later(idle, self._check_idle)

    def _check_idle(self) -> None:
        self._idle = None
        idle = self.door.limits.idle_timeout
        if idle is None or self._done:
            return
        quiet = self._clock() - self._last_key
        if quiet < idle:
            self._idle = asyncio.get_running_loop().call_later(idle - quiet, self._check_idle)
            return
        self.close(idle_sentence(idle), status=1)
