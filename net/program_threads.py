"""Programs playing seats in ``quackbox sim``, which has no event loop: threads move their lines.

``quackbox sim --bots cmd:./mine.py,normal,...`` runs ``./mine.py`` once for its
place in the lineup, for every game of the run (with ``--rotate`` it changes
seats, not process). Each game it is a :class:`ProgramBot`: a
:class:`quackbox.core.bots.Bot` like any other to the sim, which asks the
program through :mod:`quackbox.net.program_lines` whenever the seat may act
(the sim asks a seat only then, and keeps no clock for the game's own
countdowns: every answer has :data:`~quackbox.net.program_lines.ANSWER_SECONDS`).
The events and log lines in between come with the next line.

A thread writes to the program and one reads each of its outputs, so a
program that stops reading or writing costs the sim its time limit, never
a hang. A program that fails is told why and ended; the normal bot plays its
place for the rest of the run, and :attr:`LineupProgram.failure` says so.
"""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import shlex
import signal
import subprocess
import threading
import time
from typing import IO, Any, Sequence

from quackbox.core import bots as core_bots
from quackbox.core.bots import Bot
from quackbox.core.rules import AnyRules, Event, GameView, Move
from quackbox.net.limits import TokenBucket
from quackbox.net.program import EXIT_GRACE, STDERR_BURST, STDERR_PER_SECOND, STDERR_SHOWN, ProgramError, program_name
from quackbox.net.program_lines import (
    ANSWER_SECONDS,
    MAX_LINE,
    ProgramFault,
    SeatLines,
    read_answer,
    replaced_line,
)
from quackbox.net.protocol import Wire
from quackbox.net.text import clean_text

__all__ = ["LineupProgram", "ProgramBot", "ThreadedProgram"]

log = logging.getLogger("quackbox.net")

_TOO_LONG = object()
"""Put in the answers in place of a line longer than any answer."""


class ThreadedProgram:
    """A program run as a child with no event loop: :meth:`ask` sends a line and waits
    for the answer, at most a given time; its standard error goes to the log.

    Raises:
        ProgramError: it cannot be started.
    """

    def __init__(self, argv: Sequence[str], *, label: str) -> None:
        self.label = label
        try:
            self.process = subprocess.Popen(
                list(argv),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as exc:
            raise ProgramError(f"Cannot start {shlex.join(argv)}: {exc.strerror or exc}.") from None
        self._lines: queue.Queue[bytes | None] = queue.Queue()
        self._answers: queue.Queue[bytes | object | None] = queue.Queue()
        self._closed = False
        self._threads = [
            threading.Thread(target=self._write, name=f"{label} stdin", daemon=True),
            threading.Thread(target=self._read, name=f"{label} stdout", daemon=True),
            threading.Thread(target=self._read_errors, name=f"{label} stderr", daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def ask(self, line: str, seconds: float) -> str:
        """Send ``line``; the line the program answers within ``seconds``.

        Raises:
            ProgramFault: it exited, wrote a line too long to be an answer, or did not
                answer in time.
        """
        if self._closed:
            raise ProgramFault("It is no longer running.")
        self._lines.put(line.encode() + b"\n")
        try:
            answer = self._answers.get(timeout=seconds)
        except queue.Empty:
            raise ProgramFault(f"It did not answer within {seconds:g} seconds.") from None
        if answer is None:
            try:
                status = self.process.wait(timeout=EXIT_GRACE)
            except subprocess.TimeoutExpired:
                raise ProgramFault("It closed its standard output.") from None
            raise ProgramFault(f"It exited (status {status})." if status >= 0 else f"It was ended by signal {-status}.")
        if answer is _TOO_LONG or not isinstance(answer, bytes):
            raise ProgramFault(f"It wrote a line of over {MAX_LINE} bytes, which is no answer.")
        return answer.decode("utf-8", "replace")

    def close(self, told: str | None = None) -> None:
        """Send ``told`` (its last line) if it still reads, close its standard input, and
        wait for it to exit; past :data:`EXIT_GRACE`, kill it and what it started."""
        if self._closed:
            return
        self._closed = True
        if told is not None:
            self._lines.put(told.encode() + b"\n")
        self._lines.put(None)
        try:
            self.process.wait(timeout=EXIT_GRACE)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        for thread in self._threads:
            thread.join(timeout=EXIT_GRACE)

    def _write(self) -> None:
        stdin = self.process.stdin
        if stdin is None:
            return
        try:
            while (line := self._lines.get()) is not None:
                stdin.write(line)
                stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            pass  # it stopped reading: its answers say what became of it
        finally:
            with contextlib.suppress(OSError, ValueError):
                stdin.close()

    def _read(self) -> None:
        stdout = self.process.stdout
        if stdout is None:
            return
        with contextlib.suppress(OSError, ValueError):
            while raw := stdout.readline(MAX_LINE + 1):
                self._answers.put(_TOO_LONG if len(raw) > MAX_LINE else raw)
        self._answers.put(None)

    def _read_errors(self) -> None:
        stderr: IO[bytes] | None = self.process.stderr
        if stderr is None:
            return
        budget = TokenBucket(STDERR_BURST, STDERR_PER_SECOND, time.monotonic())
        dropped = 0
        with contextlib.suppress(OSError, ValueError):
            while raw := stderr.readline(MAX_LINE):
                text = clean_text(raw.decode("utf-8", "replace"))
                if not text:
                    continue
                if not budget.take(time.monotonic()):
                    dropped += 1
                    continue
                if dropped:
                    log.info("%s: (%d lines of its standard error not shown)", self.label, dropped)
                    dropped = 0
                log.info("%s: %s", self.label, text[:STDERR_SHOWN])
        if dropped:
            log.info("%s: (%d lines of its standard error not shown)", self.label, dropped)


class LineupProgram:
    """The program of one place in a sim's lineup: started once, at its first game,
    and a :class:`ProgramBot` for each game (:meth:`bot`, the sim's ``OutsideBot``).

    Args:
        game: the game's name.
        argv: the program and its arguments.
        place: its place in the lineup (from 0), for the log.
        answer_seconds: the time it has for each line.
    """

    def __init__(
        self, rules: AnyRules, argv: Sequence[str], *, place: int, answer_seconds: float = ANSWER_SECONDS
    ) -> None:
        self.rules = rules
        self.argv = tuple(argv)
        self.place = place
        self.answer_seconds = answer_seconds
        self.label = f"{program_name(argv)} (lineup place {place + 1})"
        self.wire = Wire(rules)
        self.program: ThreadedProgram | None = None
        self.games = 0
        self.failure: str | None = None
        """Why the program lost its place, and in which game; None while it plays."""

    def start(self) -> None:
        """Start the program now (rather than at its first game).

        Raises:
            ProgramError: it cannot be started.
        """
        if self.program is None and self.failure is None:
            self.program = ThreadedProgram(self.argv, label=self.label)

    def bot(self, place: int, seed: int) -> ProgramBot:
        """The bot of this place for the next game."""
        self.start()
        self.games += 1
        return ProgramBot(self, seed=seed, number=self.games)

    def ask(self, lines: SeatLines, view: GameView, events: Sequence[Event], log_lines: Sequence[str]) -> Move | None:
        """The program's move at ``view``, or None for none.

        Raises:
            ProgramFault: it failed now or before (the seat is the normal bot's).
        """
        if self.program is None or self.failure is not None:
            raise ProgramFault(self.failure or "It is not running.")
        line, asked = lines.view_line(view, events=events, log=log_lines, deadline=None)
        try:
            return read_answer(self.program.ask(line, self.answer_seconds), asked)
        except ProgramFault as fault:
            self.fail(str(fault))
            raise

    def fail(self, reason: str) -> None:
        """The program loses its place: it is told why and ended, and the log says so."""
        self.failure = f"{reason} (game {self.games})"
        log.warning(
            "%s lost its seat in game %d: %s The normal bot plays its place for the rest of the run.",
            self.label,
            self.games,
            reason,
        )
        if self.program is not None:
            self.program.close(replaced_line(reason, self.wire))

    def close(self) -> None:
        """The run is over: the program's standard input closes, and it is ended."""
        if self.program is not None:
            self.program.close()


class ProgramBot(Bot[GameView]):
    """A program's seat for one game of a sim: the program chooses while it can, the
    normal bot once it has failed."""

    name = "program"
    reacts = True
    remembers = True

    def __init__(self, program: LineupProgram, *, seed: int, number: int) -> None:
        self.program = program
        self.number = number
        self.fallback: Bot[Any] = core_bots.make(program.rules.name, core_bots.NORMAL, seed)
        self.lines: SeatLines | None = None
        self.events: list[Event] = []
        self.log: list[str] = []

    def observe(self, events: Sequence[Event], seat: int) -> None:
        if self.program.failure is not None:
            return
        rules = self.program.rules
        self.events += events
        # The sim's seats have no names: the log calls them "Seat 2", as the lines' names do.
        self.log += [text for event in events if (text := rules.describe(event, (), seat))]

    def _ask(self, view: GameView) -> Move | None:
        if view.seat is None:
            return None
        if self.lines is None:
            names = tuple(f"Seat {i + 1}" for i in range(len(view.players)))
            self.lines = SeatLines(
                self.program.rules, seat=view.seat, names=names, number=self.number, wire=self.program.wire
            )
        events, self.events = self.events, []
        told, self.log = self.log, []
        return self.program.ask(self.lines, view, events, told)

    def choose(self, view: GameView) -> Move:
        if self.program.failure is None:
            try:
                move = self._ask(view)
            except ProgramFault:
                pass
            else:
                if move is not None:
                    return move
        return self.fallback.choose(view)

    def react(self, view: GameView) -> Move | None:
        if self.program.failure is None:
            try:
                return self._ask(view)
            except ProgramFault:
                pass
        return self.fallback.react(view) if self.fallback.reacts else None
