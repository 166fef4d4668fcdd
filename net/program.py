"""A program of any language playing a seat over the network: ``quackbox join ADDR --bot-cmd``.

The seat is ours: :func:`run_program_seat` holds it with a
:class:`quackbox.net.client.Client` as a bot over the network does, and asks
the program, a child process speaking JSON lines (:mod:`quackbox.net.program_lines`),
what to do each time the seat's view changes. The child's pipes are asyncio's,
so nothing it does (or fails to do) holds up the loop; while it thinks about one
line, the changes that come meanwhile are gathered into the next. A program
that exits, writes anything but an answer, or misses its time is told why
(if it still reads), and the normal bot plays the seat for the rest of the
game, with a line in the log. What the program writes to its standard error
is logged as its own lines, cleaned and within a budget.

``quackbox host --bot-cmd`` runs the same seat inside the host's process,
reaching its own table over loopback (:func:`start_program_seats`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import shlex
import signal
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from quackbox.core import bots as core_bots
from quackbox.core.rules import Event, GameView, Outcome
from quackbox.net.bot_driver import seated
from quackbox.net.client import Client, NotConnected, Reconnected
from quackbox.net.limits import TokenBucket
from quackbox.net.network_bot import should_start
from quackbox.net.program_lines import (
    ANSWER_SECONDS,
    MAX_LINE,
    REPLACED_BY,
    Asked,
    ProgramFault,
    SeatLines,
    read_answer,
    replaced_line,
)
from quackbox.net.protocol import Error, Lobby, Paused, Started, View, Wire
from quackbox.net.text import clean_name, clean_text
from quackbox.net.thinker import Thinkers
from quackbox.net.tokens import TokenStore

__all__ = [
    "Program",
    "ProgramError",
    "ProgramSeats",
    "parse_command",
    "program_name",
    "run_program_seat",
    "start_program_seats",
]

log = logging.getLogger("quackbox.net")

EXIT_GRACE = 1.0
"""Seconds a program has to exit once its standard input closes, before it is killed."""
STDERR_BURST = 50
STDERR_PER_SECOND = 5.0
"""Lines of a program's standard error logged at once, then each second: a program
that floods its standard error fills no log; the lines dropped are counted."""
STDERR_SHOWN = 300
"""Characters of one line of a program's standard error that the log shows."""


class ProgramError(Exception):
    """The program cannot be started; ``str()`` is a sentence for the person who named it."""


def parse_command(text: str) -> list[str]:
    """``"python3 mybot.py --level 2"`` as the program and its arguments, as a shell splits them.

    Raises:
        ProgramError: the text names no program, or its quotes do not close.
    """
    try:
        argv = shlex.split(text)
    except ValueError as exc:
        raise ProgramError(f"Cannot read the command {text!r}: {exc}.") from None
    if not argv:
        raise ProgramError("The command names no program to run.")
    return argv


def program_name(argv: Sequence[str]) -> str:
    """A seat's name for the program ``argv`` runs: its script's file name (``mybot.py``
    for ``python3 mybot.py``), else the program's."""
    first = Path(argv[0]).name
    script = next((a for a in argv[1:] if not a.startswith("-")), None)
    interpreters = ("python", "python3", "node", "ruby", "perl", "java", "lua", "sh", "bash", "deno", "bun")
    chosen = (
        Path(script).name if script is not None and first.split(".")[0].rstrip("0123456789.") in interpreters else first
    )
    return clean_name(chosen)[:24] or "Program"


class Program:
    """A program playing a seat, run as a child: JSON lines to its standard input,
    answers from its standard output, its standard error to the log.

    Make one with :meth:`start`; :meth:`close` ends it (and waits for it, killing it
    if it will not go).
    """

    def __init__(self, process: asyncio.subprocess.Process, label: str) -> None:
        self.process = process
        self.label = label
        """How the log names it: ``mybot.py at seat 2``."""
        self._stderr = asyncio.get_running_loop().create_task(self._pump_stderr())
        self._closed = False

    @classmethod
    async def start(cls, argv: Sequence[str], *, label: str) -> Program:
        """Start ``argv`` in a process group of its own (so it and its children can be ended).

        Raises:
            ProgramError: it cannot be started (no such file, not executable...).
        """
        try:
            process = await asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                limit=MAX_LINE,
                start_new_session=True,
            )
        except OSError as exc:
            raise ProgramError(f"Cannot start {shlex.join(argv)}: {exc.strerror or exc}.") from None
        return cls(process, label)

    @property
    def running(self) -> bool:
        return not self._closed and self.process.returncode is None

    async def ask(self, line: str, seconds: float) -> str:
        """Send ``line``; the line the program answers, within ``seconds``.

        Raises:
            ProgramFault: it exited (or closed its standard output), wrote a line
                too long to be an answer, or did not answer in time.
        """
        stdin, stdout = self.process.stdin, self.process.stdout
        if stdin is None or stdout is None or self._closed:
            raise ProgramFault("It is no longer running.")
        try:
            async with asyncio.timeout(seconds):
                stdin.write(line.encode() + b"\n")
                await stdin.drain()
                answer = await stdout.readline()
                if not answer:
                    status = await self.process.wait()
        except TimeoutError:
            raise ProgramFault(f"It did not answer within {seconds:g} seconds.") from None
        except (BrokenPipeError, ConnectionResetError):
            raise ProgramFault(await self._gone()) from None
        except ValueError:  # the StreamReader's limit: no answer is that long
            raise ProgramFault(f"It wrote a line of over {MAX_LINE} bytes, which is no answer.") from None
        if not answer:
            raise ProgramFault(_exited(status))
        return answer.decode("utf-8", "replace")

    async def _gone(self) -> str:
        """Why the program stopped reading: its exit, if it has exited by now."""
        try:
            status = await asyncio.wait_for(self.process.wait(), EXIT_GRACE)
        except TimeoutError:
            return "It closed its standard input."
        return _exited(status)

    async def close(self, told: str | None = None) -> None:
        """Send ``told`` (its last line) if it still reads, close its standard input, and
        wait for it to exit; past :data:`EXIT_GRACE`, kill it and what it started."""
        if self._closed:
            return
        self._closed = True
        stdin = self.process.stdin
        if stdin is not None and not stdin.is_closing():
            with contextlib.suppress(OSError):
                if told is not None:
                    stdin.write(told.encode() + b"\n")
                stdin.close()
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.process.wait(), EXIT_GRACE)
        finally:
            # Even when the caller gives up waiting: a program is never left behind.
            if self.process.returncode is None:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(self.process.pid, signal.SIGKILL)
        await self.process.wait()
        with contextlib.suppress(TimeoutError):
            # What it wrote to its standard error last is still logged.
            await asyncio.wait_for(asyncio.shield(self._stderr), EXIT_GRACE)
        self._stderr.cancel()

    async def _pump_stderr(self) -> None:
        stderr = self.process.stderr
        if stderr is None:
            return
        loop = asyncio.get_running_loop()
        budget = TokenBucket(STDERR_BURST, STDERR_PER_SECOND, loop.time())
        dropped = 0
        while True:
            try:
                raw = await stderr.readline()
            except ValueError:
                raw = b"(a line too long to show)\n"
            if not raw:
                break
            if not budget.take(loop.time()):
                dropped += 1
                continue
            if dropped:
                log.info("%s: (%d lines of its standard error not shown)", self.label, dropped)
                dropped = 0
            text = clean_text(raw.decode("utf-8", "replace"))
            if text:
                log.info("%s: %s", self.label, text[:STDERR_SHOWN])
        if dropped:
            log.info("%s: (%d lines of its standard error not shown)", self.label, dropped)


def _exited(status: int) -> str:
    if status < 0:
        return f"It was ended by signal {-status}."
    return f"It exited (status {status})."


# --- the seat over the network -----------------------------------------------------------


@dataclass
class _Seen:
    """What the seat was shown since the program's last line."""

    events: list[Event] = field(default_factory=list)
    log: list[str] = field(default_factory=list)


class _Seat:
    """One program playing one seat through ``client``; see :func:`run_program_seat`."""

    def __init__(self, client: Client, program: Program | None, *, seed: int, answer_seconds: float) -> None:
        self.client = client
        self.program = program
        self.seed = seed
        self.answer_seconds = answer_seconds
        self.wire = Wire(client.rules)
        self.latest: View | None = None
        self.received_at = 0.0
        self.seen = _Seen()
        self.changed = asyncio.Event()
        self.acted_on: int | None = None
        """The seq of the view last moved on: a view sent again asks for no second move."""
        self.names: tuple[str, ...] = ()
        self.number = 0
        self.lines: SeatLines | None = None
        self.fallback: Any = None
        """The normal bot, once the program has lost the seat."""
        self.closing: asyncio.Task[None] | None = None

    @property
    def seat(self) -> int:
        return self.client.seat if self.client.seat is not None else -1

    def started(self, names: tuple[str, ...]) -> None:
        """A new game: its own lines (the first carries the cards)."""
        self.names = names
        self.lines = None
        self.seen = _Seen()
        self.acted_on = None

    def again(self) -> None:
        """Ask about the latest view once more (play goes on after a pause)."""
        self.acted_on = None
        self.changed.set()

    def see(self, message: View) -> None:
        self.latest = message
        self.received_at = asyncio.get_running_loop().time()
        self.seen.events += message.events
        self.seen.log += [line.text for line in message.log]
        self.changed.set()

    async def play(self) -> None:
        """Answer the latest view each time it changes, until one with an outcome is answered."""
        while True:
            await self.changed.wait()
            self.changed.clear()
            message = self.latest
            if message is None:
                continue
            await self._answer(message)
            if message.view.outcome is not None:
                return

    async def _answer(self, message: View) -> None:
        view: GameView = message.view
        seen, self.seen = self.seen, _Seen()
        move = None
        if self.fallback is None and self.program is not None:
            if self.lines is None:
                self.number += 1
                lobby = self.client.lobby
                names = self.names or (tuple(s.name for s in lobby.seats) if lobby is not None else ())
                self.lines = SeatLines(
                    self.client.rules, seat=self.seat, names=names, number=self.number, wire=self.wire
                )
            line, asked = self.lines.view_line(view, events=seen.events, log=seen.log, deadline=self._deadline(message))
            try:
                move = read_answer(await self.program.ask(line, self._seconds(message, asked)), asked)
            except ProgramFault as fault:
                self._replace(str(fault))
        if self.fallback is not None:
            move = core_bots.decide(self.fallback, view)
        if move is None or message.seq == self.acted_on or view.outcome is not None:
            return
        self.acted_on = message.seq
        with contextlib.suppress(NotConnected):  # a fresh view follows the reconnection
            await self.client.move(move, message.seq)

    def _deadline(self, message: View) -> float | None:
        """Seconds left of a countdown the seat must answer, as the line says them."""
        deadline = message.deadline
        if deadline is None or self.seat not in message.view.waiting_for:
            return None
        spent = asyncio.get_running_loop().time() - self.received_at
        return round(max(0.0, deadline.seconds - spent), 3)

    def _seconds(self, message: View, asked: Asked) -> float:
        left = self._deadline(message) if asked.waiting else None
        return min(left, self.answer_seconds) if left is not None else self.answer_seconds

    def _replace(self, reason: str) -> None:
        """The program loses the seat: it is told why, and the normal bot plays on."""
        program = self.program
        label = program.label if program is not None else "the program"
        log.warning("%s lost its seat: %s %s", label, reason, REPLACED_BY)
        self.fallback = seated(
            core_bots.make(self.client.game, core_bots.NORMAL, self.seed),
            self.seat,
            lambda: Thinkers((self.client.game,)),
            lambda: None,
            fallback=lambda: core_bots.make(self.client.game, core_bots.NORMAL, self.seed),
        )
        if program is not None:
            self.closing = asyncio.get_running_loop().create_task(program.close(replaced_line(reason, self.wire)))
        self.program = None


async def run_program_seat(
    url: str,
    argv: Sequence[str] | None = None,
    *,
    program: Program | None = None,
    name: str | None = None,
    code: str | None = None,
    seed: int | None = None,
    token: str | None = None,
    tokens: TokenStore | None = None,
    names: list[str] | None = None,
    answer_seconds: float = ANSWER_SECONDS,
) -> Outcome | None:
    """Play one seat at the table at ``url`` with the program ``argv`` (or the started
    ``program``) until the game ends.

    Marks itself ready and, holding the starter seat, starts the game once every
    seat is taken and every person connected is ready, as a bot over the network does.

    Args:
        name: the seat's name (default: the program's, :func:`program_name`).
        seed: the seed of the normal bot that takes over if the program fails.
        names: if given, filled with the seats' names as the game ends.
        answer_seconds: the time a program has for a line with no countdown of its seat.

    Returns:
        The outcome, or None if the host closed the table before the end.

    Raises:
        ProgramError: the program cannot be started.
        NetError: could not join, or lost the host for good.
    """
    if program is None:
        if argv is None:
            raise ValueError("run_program_seat needs a command or a started program")
        program = await Program.start(argv, label=name or program_name(argv))
    seat_name = name or program.label
    try:
        client = await Client.connect(url, name=seat_name, code=code, token=token, tokens=tokens)
    except BaseException:
        await program.close()
        raise
    program.label = f"{seat_name} at seat {client.seat + 1}" if client.seat is not None else seat_name
    player = _Seat(
        client, program, seed=seed if seed is not None else secrets.randbits(32), answer_seconds=answer_seconds
    )
    playing = asyncio.get_running_loop().create_task(player.play())
    try:
        await client.ready()
        asked_to_start: Lobby | None = None
        async for message in client:
            kind = type(message)
            if kind is Lobby:
                if should_start(message, client.seat) and message != asked_to_start:
                    asked_to_start = message
                    with contextlib.suppress(NotConnected):
                        await client.start()
            elif kind is Started:
                player.started(tuple(message.names))
            elif kind is View:
                player.see(message)
                outcome: Outcome | None = message.view.outcome
                if outcome is not None:
                    # The program is told how the game ended, and answers that line too.
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(asyncio.shield(playing), answer_seconds + EXIT_GRACE)
                    if names is not None and client.lobby is not None:
                        names[:] = [s.name for s in client.lobby.seats]
                    return outcome
            elif kind is Paused and not message.reason and player.latest is not None:
                player.again()  # a move refused while paused is asked for again
            elif kind is Reconnected:
                player.acted_on = None  # the move may have been lost with the connection
            elif kind is Error and message.refused != "start":  # a start the lobby had already begun
                log.info("%s: the host refused: %s (%s)", program.label, message.message, message.code)
        return None
    finally:
        playing.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await playing
        await client.close()
        if player.program is not None:
            await player.program.close()
        if player.closing is not None:
            await player.closing


@dataclass
class ProgramSeats:
    """The program seats a host runs at its own table (``quackbox host --bot-cmd``)."""

    tasks: list[asyncio.Task[Outcome | None]] = field(default_factory=list)

    async def stop(self) -> None:
        """End them: the table has closed (each has heard the host's goodbye) or is closing."""
        if not self.tasks:
            return
        _done, pending = await asyncio.wait(self.tasks, timeout=3 * EXIT_GRACE)
        for task in pending:
            task.cancel()
        for task in self.tasks:
            with contextlib.suppress(BaseException):
                await task


async def start_program_seats(
    url: str, commands: Sequence[Sequence[str]], *, code: str | None, seed: int | None
) -> ProgramSeats:
    """Start each of ``commands`` and seat it at the table at ``url`` (a host's own, over
    loopback); each takes an open seat as it connects.

    Raises:
        ProgramError: a program cannot be started (those started are ended).
    """
    programs: list[Program] = []
    try:
        for argv in commands:
            programs.append(await Program.start(argv, label=program_name(argv)))
    except ProgramError:
        for started in programs:
            await started.close()
        raise
    seeds = [None if seed is None else seed + i for i in range(len(programs))]
    loop = asyncio.get_running_loop()
    tasks = [loop.create_task(_seat_quietly(url, program, code, seeds[i])) for i, program in enumerate(programs)]
    return ProgramSeats(tasks)


async def _seat_quietly(url: str, program: Program, code: str | None, seed: int | None) -> Outcome | None:
    """A host's program seat: whatever ends it is logged, never raised into the host."""
    try:
        return await run_program_seat(url, program=program, code=code, seed=seed, name=program.label)
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        log.error("%s could not play its seat: %s", program.label, exc)
        return None
