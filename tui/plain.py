"""A seat played line by line: ``quackbox play GAME --plain`` and ``quackbox join ADDR --plain``.

For a screen reader or a braille display, and for a pipe: nothing is drawn.
Every log line is printed once, as a line, in order. When the game waits for
you, its question is printed: what it asks, then every legal move as a
numbered line in the words the table's previews use, then a line saying how
to answer. You answer with a number. Short commands answer what the table
shows at a glance (``hand``, ``table``, ``log``, ``rules CARD``, ``help``,
``quit``); docs/PLAIN.md lists them all.

No escape sequence is ever written: every line goes through
:func:`quackbox.net.text.clean_text`, which removes them and every control
character, whatever the host sent. This module imports no Textual or Rich
(``tests/tui/test_plain.py`` checks it in a fresh interpreter), so a plain
seat starts without them.

Input is read only when it is wanted: a thread reads standard input one line
at a time, when asked. A number typed when nothing is asked is held for the
next question (and nothing more is read meanwhile), so a program feeding
answers as fast as it can (``yes 1 |``) answers each question once and floods
nothing.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import os
import re
import sys
import threading
import unicodedata
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence, TextIO

from quackbox.core import games
from quackbox.core.rules import LineKind, Move
from quackbox.net.client import Disconnected, NetError, Reconnected
from quackbox.net.host import HostError
from quackbox.net.protocol import (
    BOT,
    HUMAN,
    OPEN,
    Bye,
    ChatLine,
    Error,
    ErrorCode,
    Lobby,
    Notice,
    Paused,
    Started,
    View,
    Welcome,
)
from quackbox.net.text import clean_text
from quackbox.tui import rules_text
from quackbox.tui.first_games import BotGame, dealt, introduce, needs_card
from quackbox.tui.names import name_of, seat_name
from quackbox.tui.plain_words import GameWords, plain_markdown, words_for
from quackbox.tui.session import LOCAL, Session, open_joined, open_local

__all__ = ["LineReader", "PlainSeat", "run_plain_join", "run_plain_play"]

WINDOW = "window"
"""The kind of countdown a response window runs (its deadline's ``kind``)."""
LOG_SHOWN = 10
"""Lines the ``log`` command prints again unless told how many."""
LOG_KEPT = 500
"""Lines kept for the ``log`` command."""

HELP = """\
Commands (a number answers the question asked):
  hand          your cards
  table         every seat: public cards, and money or Psyche
  log [N]       the last N lines of the log again (default 10)
  choices       the question again, if one is open
  rules [CARD]  the rules of a card by its name, or of the whole game
  say TEXT      say something to the table
  help          this list
  quit          leave the table"""

HELP_SE = """\
  trade         offer a trade: to whom, what you give, what you want
  offers        the trade offers open now, to answer"""

HELP_QUACK = """\
  anytime       the Anytime cards you may play now, though nobody waits for you
  pass          let a window go by without an Anytime card"""

HELP_LOBBY = """\
  ready         say you are ready to play (again: not ready)
  start         begin the game, if you are the starter and everyone is ready"""


class Output:
    """Lines to a text stream, each flushed as it is said, with no control character in
    them (so no escape sequence): text from elsewhere (the log, names, chat) is cleaned
    whole first (:meth:`theirs`)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.closed = False
        """The reader went away (a pipe closed): nothing more can be said."""

    def say(self, text: str = "") -> None:
        """Our own words: each line of ``text`` as a line."""
        for line in text.split("\n"):
            self._line("".join(ch for ch in line if unicodedata.category(ch) != "Cc").rstrip())

    def theirs(self, text: str) -> None:
        """Words from the host or a player, escape sequences and all removed, as one line."""
        self._line(clean_text(text))

    def _line(self, line: str) -> None:
        if self.closed:
            return
        try:
            self.stream.write(line + "\n")
            self.stream.flush()
        except (BrokenPipeError, ValueError):
            self.closed = True


class LineReader:
    """Lines from a file descriptor, read by a thread only when :meth:`next` asks for one.

    A thread of its own, reading the descriptor itself (not ``sys.stdin``, whose lock a
    thread still reading at exit would hold): the loop never waits on input.
    """

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._wanted = threading.Semaphore(0)
        self._lines: asyncio.Queue[str | None] = asyncio.Queue()
        self._loop = asyncio.get_running_loop()
        self._thread = threading.Thread(target=self._run, name="plain input", daemon=True)
        self._thread.start()

    async def next(self) -> str | None:
        """The next line (its end stripped), or None at the end of input."""
        self._wanted.release()
        return await self._lines.get()

    def _run(self) -> None:
        buffer = bytearray()
        ended = False
        while True:
            self._wanted.acquire()
            while not ended and b"\n" not in buffer:
                try:
                    chunk = os.read(self.fd, 4096)
                except InterruptedError:
                    continue
                except OSError:
                    chunk = b""
                if not chunk:
                    ended = True
                buffer += chunk
            if b"\n" in buffer:
                raw, _, rest = bytes(buffer).partition(b"\n")
                buffer[:] = rest
                line: str | None = raw.decode("utf-8", "replace").rstrip("\r")
            elif buffer:
                line, buffer[:] = buffer.decode("utf-8", "replace"), b""
            else:
                line = None
            try:
                self._loop.call_soon_threadsafe(self._lines.put_nowait, line)
            except RuntimeError:
                return  # the loop has closed: nobody waits for the line
            if line is None:
                return


@dataclass
class Question:
    """What the game asks now, and the moves its numbers stand for."""

    heading: str
    moves: tuple[Move, ...]
    seq: int
    waiting: bool
    """The game waits for this answer (else it is a chance to act, which passes by)."""
    key: object = None
    deadline: float | None = None
    """Seconds left to answer, when a countdown runs."""
    countdown: str = ""
    """The countdown's kind (``window``, ``tremors``)."""
    sentences: tuple[str, ...] = ()
    """Each move said in words, in the same order."""


@dataclass
class Dialogue:
    """A few questions in a row the person asked for (a trade offer), answered in words."""

    steps: list[str] = field(default_factory=list)
    """What has been answered so far."""
    to: int = -1
    give: tuple[int, ...] = ()
    want: tuple[str, ...] = ()


class PlainSeat:
    """One seat played line by line: the host's messages in, lines out, answers and
    commands in. ``leave_after_game``: a game against bots ends with its game."""

    def __init__(self, session: Session, out: Output, *, leave_after_game: bool) -> None:
        self.session = session
        self.out = out
        self.leave_after_game = leave_after_game
        self.words: GameWords = words_for(session.game)
        self.names: tuple[str, ...] = ()
        self.message: View | None = None
        self.question: Question | None = None
        self.pending: Move | None = None
        """The move sent and not yet seen made nor refused: until a view opens with a line of
        this seat's doing or the move is no longer legal, the game is not asked about again,
        so one question does not get two answers."""
        self.held: int | None = None
        self.dialogue: Dialogue | None = None
        self.said: set[object] = set()
        """The chances already told (offers), so each is told once."""
        self.log_seen = 0
        self.log: collections.deque[str] = collections.deque(maxlen=LOG_KEPT)
        self.lobby: Lobby | None = None
        self.lobby_said: str = ""
        self.told_starter = False
        self.over = asyncio.Event()
        """The seat is done: the game ended (a game against bots), the table closed, or the person left."""
        self.reading = asyncio.Event()
        """Set while input is wanted: cleared while a number typed ahead waits for its question."""
        self.reading.set()
        self._sending: set[asyncio.Task[None]] = set()
        self.status = 0

    # --- the host's messages --------------------------------------------------------------------

    @property
    def seat(self) -> int | None:
        return self.session.seat

    def receive(self, item: Any) -> None:
        kind = type(item)
        if kind is View:
            self._view(item)
        elif kind is Started:
            self.names = tuple(item.names)
            self.question, self.pending, self.said = None, None, set()
            self._game_begins()
        elif kind is Lobby:
            self._lobby(item)
        elif kind is ChatLine:
            self.out.theirs(f"{item.name or 'Someone'} says: {item.text}")
        elif kind is Notice:
            self.out.theirs(item.text)
        elif kind is Error:
            self._refused(item)
        elif kind is Paused:
            self.out.theirs(f"Paused: {item.reason}" if item.reason else "Play goes on.")
            if not item.reason:
                self._reopen()
        elif kind is Bye:
            self.out.theirs(item.message or f"The host closed the connection ({item.reason}).")
        elif kind is Disconnected:
            self.out.say("Lost the host; reconnecting.")
        elif kind is Reconnected:
            self.out.say("Back at the table.")
            self.pending = None  # the move may have been lost with the connection
        elif kind is Welcome:
            pass

    def _game_begins(self) -> None:
        title = games.title(self.session.game)
        me = self.seat
        who = ", ".join(name_of(self.names, s, me, capital=True) for s in range(len(self.names)))
        if me is None:
            self.out.say(f"{title} begins: {who}. You are watching.")
        else:
            self.out.say(f"{title} begins: {who}. You are seat {me + 1}. Type help for the commands.")

    def _lobby(self, lobby: Lobby) -> None:
        self.lobby = lobby
        if not self.names or not lobby.started:
            self.names = tuple(s.name for s in lobby.seats)
        if lobby.started or self.session.mode == LOCAL:
            return
        seats = []
        for s in lobby.seats:
            if s.kind == OPEN:
                seats.append(f"seat {s.seat + 1} open")
                continue
            marks = [
                m
                for m, on in (
                    ("you", s.seat == self.seat),
                    ("ready", s.ready and s.kind == HUMAN),
                    ("a bot", s.kind == BOT),
                    ("away", s.away),
                )
                if on
            ]
            seats.append(f"{s.name} ({', '.join(marks)})" if marks else s.name)
        said = "At the table: " + "; ".join(seats) + "."
        if said != self.lobby_said:
            self.lobby_said = said
            self.out.say(said)
            if lobby.starter == self.seat and self.seat is not None and not self.told_starter:
                self.told_starter = True
                self.out.say("You start the game: type start once everyone is ready.")

    def _refused(self, error: Error) -> None:
        if error.code == ErrorCode.PAUSED:
            return  # the pause was said; the answer is asked for again when play goes on
        self.out.theirs(f"The host says no: {error.message}")
        if error.refused == "move":
            self.pending = None
            self._reopen()

    def _view(self, message: View) -> None:
        first = message.log_from
        for i, line in enumerate(message.log):
            number = first + i if first else 0
            if number and number <= self.log_seen:
                continue  # said already (a reconnection sends the recent log again)
            self.log_seen = max(self.log_seen, number)
            self.log.append(line.text)
            self.out.theirs(line.text)
        self.message = message
        view = message.view
        if view.outcome is not None:
            self._game_over(view)
            return
        self._ask(message)

    def _game_over(self, view: Any) -> None:
        self.question = None
        self.dialogue = None
        outcome = view.outcome
        winners = _listed([name_of(self.names, s, view.seat, capital=True) for s in outcome.winners]) or "Nobody"
        self.out.say(f"Game over. {winners} won. {outcome.reason}")
        places = ", ".join(
            f"{outcome.places[s]}. {name_of(self.names, s, view.seat, capital=True)}" for s in outcome.ranking
        )
        self.out.say(f"Places: {places}.")
        if self.leave_after_game:
            self.over.set()

    # --- questions ------------------------------------------------------------------------------

    def _ask(self, message: View) -> None:
        """Open, keep or close the question after a new view."""
        view = message.view
        me = self.seat
        if me is None:
            return
        old = self.question
        if self.pending is not None:
            # A view made by this seat's move opens with a line of its own doing; a move may be
            # legal again once made (an EndTurn when the next seat sits its turn out).
            made = bool(message.log) and message.log[0].kind == LineKind.MINE
            if self.pending in view.legal and not made:
                return  # the host has not made it yet
            self.pending = None
        chances = [c for c in self.words.offered(view, self.names) if c.key not in self.said]
        self.said.update(c.key for c in chances)
        if me in view.waiting_for and view.legal:
            for chance in chances:
                self.out.say(chance.sentence)  # its answers are among the choices below
            deadline = message.deadline
            question = self._question(
                view,
                self.words.asked(view, self.names),
                view.legal,
                message.seq,
                True,
                deadline=deadline.seconds if deadline is not None else None,
                countdown=deadline.kind if deadline is not None else "",
            )
            if old is not None and old.waiting and old.moves == question.moves and not chances:
                old.seq = message.seq  # the same choices: the numbers said still stand
                return
            self._open(question)
            return
        if old is not None and old.waiting:
            self.question = None  # answered, or decided without us (a countdown ran out)
        if chances:
            heading = " ".join(c.sentence for c in chances)
            moves = [m for c in chances for m in c.moves]
            self._open(self._question(view, heading, moves, message.seq, False, key="chances"))
            return
        old = self.question
        if old is not None and not old.waiting:
            still = tuple(m for m in old.moves if m in view.legal)
            if not still:
                self.question = None
            elif still != old.moves:
                self._open(self._question(view, old.heading, still, message.seq, False, key=old.key))
            else:
                old.seq = message.seq

    def _question(
        self,
        view: Any,
        heading: str,
        moves: Sequence[Move],
        seq: int,
        waiting: bool,
        *,
        key: object = None,
        deadline: float | None = None,
        countdown: str = "",
    ) -> Question:
        """A question of ``moves``, each said as the table's preview says it; moves said in the
        same words (the same play of either of two Lithiums) are one choice, the first of them."""
        said: dict[str, Move] = {}
        for move in moves:
            said.setdefault(self.words.describe(view, move, self.names), move)
        return Question(
            heading,
            tuple(said.values()),
            seq,
            waiting,
            key=key,
            deadline=deadline,
            countdown=countdown,
            sentences=tuple(said),
        )

    def _open(self, question: Question) -> None:
        self.question = question
        if self.dialogue is not None:
            return  # said once the dialogue is done
        self._say_question()
        self._use_held()

    def _use_held(self) -> None:
        """A number typed before the question came answers it."""
        if self.held is not None and self.question is not None:
            held, self.held = self.held, None
            self.reading.set()
            self._choose(held)

    def _say_question(self) -> None:
        question = self.question
        message = self.message
        if question is None or message is None:
            return
        self.out.say(question.heading)
        if question.deadline is not None:
            if question.countdown == WINDOW:
                self.out.say(f"The window stays open {_seconds(question.deadline)}.")
            else:
                self.out.say(f"You have {_seconds(question.deadline)} to answer.")
        for i, sentence in enumerate(question.sentences, 1):
            self.out.say(f"{i}. {sentence}")
        count = len(question.moves)
        if question.waiting:
            self.out.say(f"Choose 1 to {count}." if count > 1 else "Choose 1.")
        else:
            self.out.say(f"Choose 1 to {count}, or let it pass." if count > 1 else "Choose 1, or let it pass.")

    def _reopen(self) -> None:
        """Ask again what the latest view asks (a move refused, play going on after a pause)."""
        if self.message is not None and self.message.view.outcome is None:
            self.question = None
            self._ask(self.message)

    def _choose(self, number: int) -> None:
        question = self.question
        if question is None:
            return
        if not 1 <= number <= len(question.moves):
            self.out.say(f"There is no choice {number}; choose 1 to {len(question.moves)}.")
            return
        move = question.moves[number - 1]
        self.out.say(f"You chose {number}: {question.sentences[number - 1]}")
        self.question = None
        self.pending = move
        self._send(self.session.move(move, question.seq))

    def _send(self, call: Any) -> None:
        task = asyncio.get_running_loop().create_task(self._sent(call))
        self._sending.add(task)
        task.add_done_callback(self._sending.discard)

    async def _sent(self, call: Any) -> None:
        try:
            await call
        except NetError as exc:
            self.out.say(str(exc))

    # --- what the person types ------------------------------------------------------------------

    def typed(self, text: str) -> None:
        """A line the person typed: an answer, a command, or a step of a dialogue."""
        text = text.strip()
        if self.dialogue is not None:
            self._dialogue(text)
        elif text.isdigit():
            number = int(text)
            if self.question is not None:
                self._choose(number)
            else:
                self.held = number
                self.reading.clear()
                self.out.say(f"Nothing is asked now: {number} will answer the next question.")
        elif text:
            self._command(text)

    def _command(self, text: str) -> None:
        word, _, rest = text.partition(" ")
        word, rest = word.lower(), rest.strip()
        view = self.message.view if self.message is not None else None
        commands: dict[str, Callable[[str], None]] = {
            "help": self._help,
            "?": self._help,
            "hand": self._hand,
            "h": self._hand,
            "table": self._table,
            "t": self._table,
            "log": self._log,
            "l": self._log,
            "choices": self._choices,
            "c": self._choices,
            "rules": self._rules,
            "r": self._rules,
            "card": self._rules,
            "say": self._say,
            "quit": self._quit,
            "q": self._quit,
            "exit": self._quit,
            "ready": self._ready,
            "start": self._start,
            "trade": self._trade,
            "offers": self._offers,
            "anytime": self._anytime,
            "a": self._anytime,
            "pass": self._pass,
        }
        command = commands.get(word)
        if command is None:
            self.out.say(f"{text!r} is not a command or a number. Type help for the commands.")
            return
        if view is None and word in (
            "hand",
            "h",
            "table",
            "t",
            "choices",
            "c",
            "trade",
            "offers",
            "anytime",
            "a",
            "pass",
        ):
            self.out.say("The game has not begun.")
            return
        command(rest)

    def _help(self, _rest: str) -> None:
        extra = {games.QUACK: HELP_QUACK}.get(self.session.game, HELP_SE)
        lobby = "" if self.session.mode == LOCAL else "\n" + HELP_LOBBY
        self.out.say(HELP + "\n" + extra + lobby)

    def _hand(self, _rest: str) -> None:
        message = self.message
        if message is None or self.seat is None:
            self.out.say("You hold no cards: you are watching.")
            return
        for line in self.words.hand(message.view, self.names):
            self.out.say(line)

    def _table(self, _rest: str) -> None:
        if self.message is not None:
            for line in self.words.table(self.message.view, self.names):
                self.out.say(line)

    def _log(self, rest: str) -> None:
        count = int(rest) if rest.isdigit() else LOG_SHOWN
        lines = list(self.log)[-count:] if count else []
        if not lines:
            self.out.say("The log is empty.")
        for line in lines:
            self.out.theirs(line)

    def _choices(self, _rest: str) -> None:
        if self.question is None:
            self.out.say("Nothing is asked now.")
        else:
            self._say_question()

    def _rules(self, rest: str) -> None:
        if not rest:
            for line in plain_markdown(self.words.rules()):
                self.out.say(line)
            return
        lines = self.words.card(rest)
        if lines is None:
            close = [n for n in self.words.card_names() if rest.lower() in n.lower()]
            hint = f" Did you mean {_listed(close[:5], 'or')}?" if close else ""
            self.out.say(f"No card is called {rest!r}.{hint}")
            return
        for line in lines:
            self.out.say(line)

    def _say(self, rest: str) -> None:
        if rest:
            self._send(self.session.chat(rest))

    def _quit(self, _rest: str) -> None:
        self.out.say("You left the table.")
        self.over.set()

    def _ready(self, _rest: str) -> None:
        lobby = self.lobby
        seat = self.seat
        if lobby is None or lobby.started or seat is None:
            self.out.say("There is nothing to be ready for now.")
            return
        ready = not any(s.ready for s in lobby.seats if s.seat == seat)
        self._send(self.session.ready(ready))

    def _start(self, _rest: str) -> None:
        self._send(self.session.start())

    def _pass(self, _rest: str) -> None:
        question = self.question
        passing = [i for i, m in enumerate(question.moves, 1) if self.words.passing(m)] if question else []
        if not passing:
            self.out.say("There is nothing to pass now.")
            return
        self._choose(passing[0])

    def _anytime(self, _rest: str) -> None:
        message = self.message
        if message is None:
            return
        if self.question is not None and self.question.waiting:
            self.out.say("The game waits for you: its choices include every card you may play.")
            self._say_question()
            return
        moves = self.words.anytime(message.view)
        if not moves:
            self.out.say("No Anytime card of yours can be played now.")
            return
        self._open(
            self._question(message.view, "Anytime cards you may play now:", moves, message.seq, False, key="anytime")
        )

    def _offers(self, _rest: str) -> None:
        message = self.message
        if message is None:
            return
        answers = self.words.trade_answers(message.view)
        if not answers:
            self.out.say("No trade offers are open for you to answer.")
            return
        self._open(self._question(message.view, "Trade offers open now:", answers, message.seq, False, key="offers"))

    # --- a trade, asked for in words (SE10) -----------------------------------------------------------

    def _trade(self, _rest: str) -> None:
        message = self.message
        if message is None:
            return
        seats = self.words.partners(message.view)
        if not seats:
            self.out.say("You may not offer a trade now.")
            return
        self.dialogue = Dialogue()
        self.out.say("Offer a trade to whom? (cancel stops)")
        for i, seat in enumerate(seats, 1):
            self.out.say(f"{i}. {seat_name(self.names, seat)}")

    def _dialogue(self, text: str) -> None:
        dialogue = self.dialogue
        message = self.message
        words = self.words
        if dialogue is None or message is None:
            return
        if text.lower() in ("cancel", "stop", "quit", "no"):
            self.out.say("No trade offered.")
            self._end_dialogue()
            return
        view = message.view
        if dialogue.to < 0:
            seats = words.partners(view)
            if not text.isdigit() or not 1 <= int(text) <= len(seats):
                self.out.say(f"Choose 1 to {len(seats)}, or cancel.")
                return
            dialogue.to = seats[int(text) - 1]
            self.out.say("What do you give? The numbers of your cards with spaces between, or 0 for nothing:")
            for i, card in enumerate(view.hand, 1):
                self.out.say(f"{i}. {card.name}")
            return
        if "give" not in dialogue.steps:
            numbers = text.replace(",", " ").split()
            if not numbers or not all(n.isdigit() and 0 <= int(n) <= len(view.hand) for n in numbers):
                self.out.say(f"Type numbers from 1 to {len(view.hand)} with spaces between, or 0 for nothing.")
                return
            picked = sorted({int(n) for n in numbers if int(n)})
            dialogue.give = tuple(view.hand[n - 1].id for n in picked)
            dialogue.steps.append("give")
            self.out.say("What do you want for it? Card names with commas between, or nothing:")
            return
        if "want" not in dialogue.steps:
            wants = words.wants(view, "" if text.lower() == "nothing" else text)
            if isinstance(wants, str):
                self.out.say(f"{wants} Type card names with commas between, or nothing.")
                return
            if not wants and not dialogue.give:
                self.out.say("A trade gives or asks for something. No trade offered.")
                self._end_dialogue()
                return
            dialogue.want = wants
            dialogue.steps.append("want")
            sentence = words.offer_sentence(view, dialogue.to, dialogue.give, dialogue.want, self.names)
            self.out.say(f"{sentence}? Type yes or no.")
            return
        if text.lower() in ("yes", "y"):
            self._send(self.session.move(words.offer_move(dialogue.to, dialogue.give, dialogue.want)))
        else:
            self.out.say("No trade offered.")
        self._end_dialogue()

    def _end_dialogue(self) -> None:
        self.dialogue = None
        if self.question is not None:
            self._say_question()
            self._use_held()


def _listed(items: Sequence[str], last: str = "and") -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + f" {last} " + items[-1]


def _seconds(seconds: float) -> str:
    whole = max(0, round(seconds))
    return f"{whole} second" if whole == 1 else f"{whole} seconds"


# --- running a seat ----------------------------------------------------------------------------------


async def play_plain(
    session: Session, *, out: Output, fd: int, leave_after_game: bool, reader: LineReader | None = None
) -> int:
    """Play ``session``'s seat line by line until the seat is done; the exit status
    (``reader``: the lines of ``fd``, if something read from them already)."""
    seat = PlainSeat(session, out, leave_after_game=leave_after_game)
    reader = reader or LineReader(fd)

    async def listen() -> None:
        try:
            async for item in session.messages():
                seat.receive(item)
                if out.closed:
                    break
        except NetError as exc:
            out.say(str(exc))
            seat.status = 1

    async def answer() -> None:
        while not seat.over.is_set():
            await seat.reading.wait()  # nothing more is read while a number typed ahead waits
            line = await reader.next()
            if line is None:
                out.say("The input has ended: you left the table.")
                return
            seat.typed(line)
            if out.closed:
                return

    tasks = [asyncio.ensure_future(listen()), asyncio.ensure_future(answer()), asyncio.ensure_future(seat.over.wait())]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(session.close(), timeout=5)
    return seat.status


def how_to_play(game: str) -> str:
    """The how-to-play card as lines: how to win and what a turn is, then how a seat is
    played in words, and the key that deals the game."""
    words = re.sub(r"\[/?b\]", "", rules_text.HOW_TO_WIN[game])
    return (
        f"How to play {games.title(game)}\n\n{words}\n\n"
        "When the game waits for you, your choices come as a numbered list: type a number and\n"
        "press Enter. hand lists your cards, table every seat's, help every command.\n\n"
        "Press Enter to deal your first game."
    )


def run_plain_play(
    game: str,
    *,
    players: int,
    options: dict[str, Any] | None,
    name: str | None,
    seed: int | None,
    pace: float | None,
    level: str | None,
) -> int:
    """``quackbox play GAME --plain``: a game against bots, line by line. As on the table, a
    person's first games of each game seat them first, and the very first opens with how
    it is played (tui.first_games)."""
    from quackbox.tui.config import SettingsStore
    from quackbox.tui.session import FIRST_MOVE_DELAY

    store = SettingsStore()
    settings = store.load()
    who = (name or settings.name).strip() or "Player"
    delay = settings.bot_delay if pace is None else pace
    out = Output(sys.stdout)
    asked = BotGame(game, players, dict(options or {}), who, seed, delay, level or settings.bot_level)

    async def main() -> int:
        reader = LineReader(sys.stdin.fileno())
        if needs_card(settings, game):
            out.say(how_to_play(game))
            if await reader.next() is None:
                out.say("The input has ended: no game was dealt.")
                return 0
            introduce(settings, game)
            store.save(settings)
        try:
            session = await open_local(
                game,
                players=players,
                options=asked.options_now(settings),
                name=who,
                seed=seed,
                bot_delay=delay,
                bot_kind=asked.level,
                first_move_delay=FIRST_MOVE_DELAY if delay > 0 else 0.0,
            )
        except (NetError, HostError, OSError) as exc:
            print(f"quackbox: {exc}", file=sys.stderr)
            return 1
        dealt(settings, game)
        store.save(settings)
        return await play_plain(session, out=out, fd=sys.stdin.fileno(), leave_after_game=True, reader=reader)

    return asyncio.run(main())


def run_plain_join(
    address: str, *, port: int | None, code: str | None, name: str | None, spectate: bool = False
) -> int:
    """``quackbox join ADDR --plain``: a seat at someone's table, line by line."""
    from quackbox.net.tokens import TokenStore
    from quackbox.tui.config import SettingsStore

    settings = SettingsStore().load()
    who = (name or settings.name).strip() or "Player"
    out = Output(sys.stdout)

    async def main() -> int:
        try:
            session = await open_joined(address, port=port, code=code, name=who, spectate=spectate, tokens=TokenStore())
        except (NetError, OSError) as exc:
            print(f"quackbox: {exc}", file=sys.stderr)
            return 1
        where = "as a spectator" if session.seat is None else f"in seat {session.seat + 1}"
        out.say(f"Joined {session.title} at {address} {where}. Type help for the commands.")
        if session.seat is not None:
            out.say("Type ready when you are ready to play.")
        return await play_plain(session, out=out, fd=sys.stdin.fileno(), leave_after_game=False)

    return asyncio.run(main())
