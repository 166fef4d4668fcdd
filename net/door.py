"""The doors of a table: a terminal of one's own at the table, with nothing installed.

A door (SSH, a browser's terminal) gives each session its own
``quackbox join`` child on a pseudo-terminal, pointed at the table over
loopback. What the doors share is here; each door brings only its transport
(a :class:`Terminal`) and its kind of key (a
:class:`~quackbox.net.player_folders.Key`: an SSH key's fingerprint, a
browser's random id). Around it, each job in a module of its own:

- **Who may come in, and what a door says** (:mod:`quackbox.net.door_policy`,
  pure: every call takes the time): a key that holds a seat always gets back
  to it; strangers (connections and sessions without a seat) have budgets
  and deadlines of their own. Nothing keyed by address ever refuses a person
  who holds a seat (on a shared box everyone is 127.0.0.1, and friends
  behind one router share an address).
- **The child** (:mod:`quackbox.net.door_launch`): the command and the
  environment a session's child starts with. :meth:`Door.launch` is the one
  way a door starts one: forked from the door's zygote once it is warm
  (:mod:`quackbox.net.zygote`: Python and the table imported once, for every
  session), else a fresh Python, with the same rules either way.
- **Player folders** (:mod:`quackbox.net.player_folders`): each key's
  settings and seat token, made when the key takes a seat, never for a
  stranger.

Here: the door itself (:class:`Door`: admission as connections say whose they
are, reading each key's seat token once, in a thread, never on the event
loop) and the servers' common end (:class:`DoorServer`). A session's traffic
is :class:`~quackbox.net.door_session.DoorSession`'s (:mod:`quackbox.net.door_session`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, Callable, Hashable, Iterable, Self

from quackbox.net.door_launch import (
    SESSION_ENV,
    ChildProgram,
    Launch,
    child_command,
    child_environment,
    child_import_path,
    interpreter_environment,
)
from quackbox.net.door_policy import (
    CROWDED,
    FOLDER_MAX_AGE,
    REMOVED,
    REPLACED,
    TABLE_CLOSED,
    Admission,
    Doorkeeper,
    DoorLimits,
    Present,
    admission,
    no_session_sentence,
)
from quackbox.net.door_session import DoorSession, SessionRequest, Terminal, loop_now
from quackbox.net.errors import DoorError
from quackbox.net.journal import token_hash
from quackbox.net.player_folders import Key, PlayerFolders
from quackbox.net.protocol import MAX_NAME, OPEN
from quackbox.net.pty_child import PtyChild
from quackbox.net.resources import QuietLog
from quackbox.net.text import clean_name
from quackbox.net.zygote import Zygote

__all__ = ["Door", "DoorServer", "DoorSession", "Key", "PlayerFolders", "SessionRequest", "Terminal"]

log = logging.getLogger("quackbox.door")

# --- a session ------------------------------------------------------------------------------


class Door:
    """What a door holds while it is open: its table, its limits, its folders, its sessions.

    A door's transport (:class:`quackbox.net.ssh.SshServer`,
    :class:`quackbox.net.web.WebServer`) tells it of
    connections (:meth:`arrived`, :meth:`left`) and sessions
    (:meth:`session`); the door answers with sentences, starts children and
    ends them.

    Args:
        host: the running table; its :attr:`~quackbox.net.host.Host.url` and room code
            are what each child is given, its seats say who may still sit.
        disconnect: closes one of the transport's connections with a sentence.
        watch_how: what a person types to watch this table through this door.
        via: how the table is named on the child's screen (``ssh -p 2222 HOST``).
        program: what a session's child runs (``quackbox join``, as the command says).
        command: what a session runs instead (tests).
        warm: fork the children from a zygote (:mod:`quackbox.net.zygote`), shared with
            the host's other door, once it is warm; False: every child is a fresh Python.
    """

    def __init__(
        self,
        host: Any,
        limits: DoorLimits,
        folders: PlayerFolders,
        *,
        disconnect: Callable[[Hashable, str], None],
        watch_how: Callable[[SessionRequest], str] = lambda request: "",
        via: Callable[[SessionRequest], str] = lambda request: "",
        host_key: str = "",
        program: ChildProgram | None = None,
        command: Callable[[Launch], list[str]] | None = None,
        warm: bool = True,
    ) -> None:
        self.host = host
        self.limits = limits
        self.folders = folders
        self.keeper = Doorkeeper(limits)
        self.sessions: list[DoorSession] = []
        """The sessions let in, each with its child."""
        self.host_key = host_key
        self._disconnect = disconnect
        self._watch_how = watch_how
        self._via = via
        self._program = program
        self._command = command
        self._warm = warm
        self.zygote: Zygote | None = None
        """Where the children are forked from, while the door is open (None: they start fresh)."""
        self._import_path: list[str] = []
        self._names: dict[str, tuple[Key, str]] = {}
        """The name each key came in under, kept while it has a session here or holds a seat
        (a stranger's is forgotten as its last session ends, so the map stays as small as the table)."""
        self._tokens: dict[str, str] = {}
        """The seat token each key was last found to hold (read from its folder in a thread)."""
        self._ending: set[asyncio.Task[None]] = set()
        self._timer: asyncio.TimerHandle | None = None
        self._closed = False
        self._quiet = QuietLog(log)
        """What a crowd repeats (connections pushed out, refused): a line a minute at most."""

    def open(self) -> None:
        """Ready the children's import path and the player folders.

        Raises:
            DoorError: a sentence (quackbox runs from a folder others may write to).
        """
        self._import_path = child_import_path() if self._command is None else []
        try:
            removed = self.folders.open(time.time())
        except OSError as exc:
            raise DoorError(f"Cannot use the player folder {self.folders.root}: {exc}.") from None
        if removed:
            log.info("door: removed %d player folders unseen for %g days", removed, FOLDER_MAX_AGE / 86400)
        if self._warm and Zygote.available():
            env = interpreter_environment(self._import_path, self._program) | {"HOME": str(self.folders.root)}
            warm = self._program.warm if self._program is not None else ()
            self.zygote = Zygote.shared(env, self.folders.root, session_env=SESSION_ENV, warm=warm)

    async def wait_warm(self) -> bool:
        """Until the children are forked warm (True), or will not be (False)."""
        return self.zygote is not None and await self.zygote.wait_warm()

    @property
    def closed(self) -> bool:
        """Whether the door has closed (or is closing): nobody more comes in."""
        return self._closed

    async def close(self) -> None:
        """End every session (its child hung up and reaped), telling each the table has closed."""
        self._closed = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        for session in list(self.sessions):
            session.close(TABLE_CLOSED, status=0)
        while self._ending:
            await asyncio.gather(*self._ending, return_exceptions=True)
        if self.zygote is not None:
            warm, self.zygote = self.zygote, None
            await warm.release()

    @property
    def children(self) -> list[int]:
        """The process ids of the sessions' children still running."""
        return [s.child.pid for s in self.sessions if s.child is not None and s.child.running]

    # --- connections ------------------------------------------------------------------

    def arrived(self, conn: Hashable, address: str) -> None:
        """A new connection: counted among the strangers (which may close others: never this one)."""
        self._make_way(self.keeper.arrived(conn, address, loop_now()))

    def progressed(self, conn: Hashable) -> None:
        """The connection's client is at work (its key exchange is done)."""
        self.keeper.progressed(conn)

    async def identify(self, conn: Hashable, key: Key, name: str) -> str | None:
        """Connection ``conn`` says it is ``key``'s, under ``name``: None if it may stay, else the
        sentence to close it with (a key that holds no seat, from an address opening such
        connections too fast). Its seat token is read in a thread, once."""
        await self._learn_seats([(key, name)])
        refusal = self.keeper.identified(conn, seated=self._holds_seat(key), now=loop_now())
        if refusal is not None:
            self._quiet.log(logging.INFO, f"door: refused a connection: {refusal}")
        return refusal

    def left(self, conn: Hashable) -> None:
        self.keeper.left(conn)
        self._watch_deadlines()

    def _make_way(self, evicted: Iterable[Hashable]) -> None:
        for old in evicted:
            self._quiet.log(logging.INFO, "door: closed a connection that waited longest without a session")
            self._disconnect(old, CROWDED)
        self._watch_deadlines()

    def _watch_deadlines(self) -> None:
        at = self.keeper.next_deadline()
        if self._timer is not None:
            if at is not None and self._timer.when() == at:
                return
            self._timer.cancel()
            self._timer = None
        if at is not None:
            self._timer = asyncio.get_running_loop().call_at(at, self._deadlines)

    def _deadlines(self) -> None:
        self._timer = None
        for conn in self.keeper.overdue(loop_now()):
            self._disconnect(conn, no_session_sentence(self.limits.connection_deadline))
        self._watch_deadlines()

    # --- sessions ---------------------------------------------------------------------

    def name_for(self, key: Key, wanted: str) -> str:
        """The player's name: ``wanted``, cleaned, unless the key came in under another name
        and still has a session here or holds a seat (its seat token is filed under that name).
        Nothing is remembered here: a key that only logs in (and may be refused) costs the door
        no memory; a session let in is remembered as it comes in."""
        known = self._names.get(key.id)
        if known is not None:
            return known[1]
        return clean_name(wanted)[:MAX_NAME].strip() or "Player"

    def remembers(self, key_id: str) -> bool:
        """Whether the door keeps a name for the key ``key_id`` (while it has a session here or
        holds a seat)."""
        return key_id in self._names

    @property
    def names_remembered(self) -> int:
        """How many keys' names the door keeps."""
        return len(self._names)

    def holds_seat(self, key: Key) -> bool:
        """Whether ``key`` holds a seat at the table now, as far as its token was read (no IO)."""
        return self._holds_seat(key)

    def _holds_seat(self, key: Key) -> bool:
        token = self._tokens.get(key.id)
        return token is not None and self.host.table.seats.by_token(token) is not None

    async def _learn_seats(self, keys: Iterable[tuple[Key, str]], *, seen: Key | None = None) -> None:
        """Read, in a thread, the seat tokens of ``keys`` (each with its name) not known to hold a
        seat now; and with ``seen``, count that key's folder as seen now."""
        unknown = {key.id: (key, name) for key, name in keys if not self._holds_seat(key)}
        if not unknown and seen is None:
            return
        url, folders = self.host.url, self.folders

        def read() -> dict[str, str | None]:
            if seen is not None:
                folders.seen(seen)
            return {key.id: folders.tokens(key).recall(url, name) for key, name in unknown.values()}

        for key_id, token in (await asyncio.to_thread(read)).items():
            if token is None:
                self._tokens.pop(key_id, None)
            else:
                self._tokens[key_id] = token

    def session(self, request: SessionRequest, terminal: Terminal) -> DoorSession:
        """A session asks to come in: a :class:`DoorSession` to hand the transport's events to;
        its :meth:`DoorSession.begin` lets it in (its child started) or tells it why not."""
        return DoorSession(self, request, terminal)

    async def admit(self, session: DoorSession) -> Admission | str:
        """Whether ``session`` may come in. What is read from files to know it (the seat tokens of
        its key and of the sessions in that may have sat since) is read in a thread."""
        request = session.request
        players = [(s.request.key, s.request.name) for s in self.sessions if not s.request.watch]
        await self._learn_seats([(request.key, request.name), *players], seen=request.key)
        if self._closed:
            return TABLE_CLOSED
        table = self.host.table
        token = self._tokens.get(request.key.id)
        if not request.watch and token is not None and token_hash(token) in table.lobby.removed:
            return REMOVED
        present = [Present(s.request.key.id, s.request.watch, self._holds_seat(s.request.key)) for s in self.sessions]
        return admission(
            key=request.key.id,
            watch=request.watch,
            seated=self._holds_seat(request.key),
            present=present,
            phase=table.phase,
            open_seats=sum(1 for seat in table.seats if seat.kind == OPEN),
            limits=self.limits,
            watch_how=self._watch_how(request),
        )

    async def launch(self, session: DoorSession) -> PtyChild:
        """Start the session's child: forked from the zygote when it is warm (the loop goes on
        while it forks), else a fresh Python, either way on a PTY of its own (OSError if it
        cannot be started)."""
        request = session.request
        launch = Launch(
            url=self.host.url,
            name=request.name,
            spectate=request.watch,
            folder=self.folders.of(request.key),
            workdir=self.folders.root,
            term=request.term,
            code=self.host.code,
            client_env=request.client_env,
            via=self._via(request),
            host_key=self.host_key,
        )
        if self._command is not None:
            argv = self._command(launch)
        elif self._program is not None:
            argv = child_command(launch, self._program)
        else:
            raise OSError("this door was given no program for its children")
        env = child_environment(launch, self._import_path, self._program)
        cols, rows = session.window.size
        if self.zygote is not None:
            child = await self.zygote.spawn(argv, env, cols=cols, rows=rows)
            if child is not None:
                return child
        return PtyChild.spawn(argv, env, cols=cols, rows=rows)

    def admitted(self, session: DoorSession, how: Admission) -> None:
        if how is Admission.REPLACING:
            mine = [s for s in self.sessions if s.request.key.id == session.request.key.id]
            if mine:
                mine[0].close(REPLACED, status=1)
        self.sessions.append(session)
        self._names.setdefault(session.request.key.id, (session.request.key, session.request.name))
        self.keeper.session_began(session.request.conn)
        self._watch_deadlines()

    def ended(self, session: DoorSession, task: asyncio.Task[None] | None) -> None:
        if session in self.sessions:
            self.sessions.remove(session)
            self._make_way(self.keeper.session_ended(session.request.conn, loop_now()))
            self.track(asyncio.get_running_loop().create_task(self._forget_names()))
        if task is not None:
            self.track(task)

    async def _forget_names(self) -> None:
        """Forget the names of keys with no session here that hold no seat (any more): their
        seat tokens are read again first, in a thread (one may have sat since it came in)."""
        present = {s.request.key.id for s in self.sessions}
        await self._learn_seats([entry for key_id, entry in self._names.items() if key_id not in present])
        present = {s.request.key.id for s in self.sessions}
        for key_id, (key, _name) in list(self._names.items()):
            if key_id not in present and not self.holds_seat(key):
                del self._names[key_id]

    def track(self, task: asyncio.Task[None]) -> None:
        """A session's beginning or ending, which :meth:`close` waits for."""
        self._ending.add(task)
        task.add_done_callback(self._ending.discard)


class DoorServer:
    """What the SSH door and the browser door share as servers: a :class:`Door`, started and
    stopped as an async context (``async with SshServer(...) as ssh:``), and its sessions."""

    door: Door

    async def start(self) -> None:
        raise NotImplementedError

    async def stop(self) -> None:
        raise NotImplementedError

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    @property
    def sessions(self) -> list[DoorSession]:
        """The sessions let in, each with its child."""
        return self.door.sessions

    @property
    def children(self) -> list[int]:
        """The process ids of the sessions' children still running."""
        return self.door.children
