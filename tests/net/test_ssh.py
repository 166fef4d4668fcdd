"""The SSH door (net.ssh): plain ssh reaches the table, the key is the seat, nothing is left behind.

A host and its SSH server run in the test's loop on 127.0.0.1 port 0;
players are asyncssh's own client, their screens read through pyte as a
terminal would show them. Tests that need the real table run the real
``quackbox join`` child; the rest run a small stand-in
(``tests/net/ssh_stub.py``) so they cost no Textual start-up.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import shutil
import signal
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any, AsyncIterator, Callable

import pyte
import pytest

from quackbox.door_child import join_program
from quackbox.net.door_launch import Launch
from quackbox.net.door_policy import DoorLimits
from quackbox.net.host import Host, HostConfig
from quackbox.net.protocol import HUMAN
from quackbox.net.ssh import SshConfig, SshError, SshServer
from quackbox.net.ssh_keys import load_host_key
from quackbox.net.sshlib import asyncssh
from tests.terminal_host import on_a_terminal
from tests.waiting import Changes, Clock, until

STUB = str(Path(__file__).with_name("ssh_stub.py"))
ROOT = Path(__file__).resolve().parents[2]
CHILD_START = 60.0
"""Seconds a real table child may take to show its first screen on a busy machine."""


def stub(mode: str = "hold") -> Callable[[Launch], list[str]]:
    return lambda launch: [sys.executable, STUB, mode]


def openssh(port: int, key_file: Path, user: str, *command: str, terminal: bool = False) -> list[str]:
    """OpenSSH's ``ssh`` to a door on 127.0.0.1 as ``user`` with ``key_file`` (and ``-tt``, a
    terminal forced, if ``terminal``), reading no configuration or known hosts of this machine's,
    asking nothing, saying only errors; then ``command``."""
    options = ["BatchMode=yes", "IdentitiesOnly=yes", "StrictHostKeyChecking=no", "UserKnownHostsFile=/dev/null"]
    argv = ["ssh", *(["-tt"] if terminal else []), "-F", "/dev/null", "-p", str(port), "-i", str(key_file)]
    argv += [word for option in [*options, "LogLevel=ERROR"] for word in ("-o", option)]
    return [*argv, f"{user}@127.0.0.1", *command]


@pytest.fixture(scope="module")
def keys() -> list[asyncssh.SSHKey]:
    return [asyncssh.generate_private_key("ssh-ed25519") for _ in range(4)]


class Screen(asyncssh.SSHClientSession):  # type: ignore[type-arg]
    """A player's terminal: what the session shows, as a terminal emulator draws it."""

    def __init__(self, cols: int = 80, rows: int = 24) -> None:
        self.screen = pyte.Screen(cols, rows)
        self.stream = pyte.ByteStream(self.screen)
        self.raw = bytearray()
        self.status: int | None = None
        self.closed = asyncio.Event()
        self.chan: Any = None
        self.changes = Changes()
        """Told of each write of the session's."""
        self.writable = asyncio.Event()
        """Set while the channel's send buffer is below its high-water mark."""
        self.writable.set()

    def connection_made(self, chan: Any) -> None:
        self.chan = chan

    def data_received(self, data: bytes, datatype: Any) -> None:
        self.raw += data
        self.stream.feed(data)
        self.changes.changed()

    def pause_writing(self) -> None:
        self.writable.clear()

    def resume_writing(self) -> None:
        self.writable.set()

    def exit_status_received(self, status: int) -> None:
        self.status = status

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed.set()

    @property
    def text(self) -> str:
        return "\n".join(self.screen.display)

    @property
    def said(self) -> str:
        return self.raw.decode("utf-8", "replace")

    async def wait_for(self, needle: str, timeout: float = CHILD_START, *, raw: bool = False) -> None:
        try:
            await self.changes.until(lambda: needle in (self.said if raw else self.text), timeout)
        except AssertionError:
            shown = self.said[-2000:] if raw else self.text
            raise AssertionError(f"{needle!r} never appeared; the screen:\n{shown}") from None

    def press(self, keys: str) -> None:
        self.chan.write(keys.encode())

    def resize(self, cols: int, rows: int) -> None:
        self.screen.resize(rows, cols)
        self.chan.change_terminal_size(cols, rows)


@contextlib.asynccontextmanager
async def table(
    tmp_path: Path, *, ssh: dict[str, Any] | None = None, **host: Any
) -> AsyncIterator[tuple[Host, SshServer]]:
    config = HostConfig(
        **{
            "game": "side-effects",
            "seats": 2,
            "bots": 1,
            "headless": True,
            "bind": "127.0.0.1",
            "port": 0,
            "once": False,
            "bot_delay": 0.0,
            "away_grace": None,
            "seed": 3,
            **host,
        }
    )
    ssh_config = door_config(tmp_path, **(ssh or {}))
    async with Host(config) as running, SshServer(ssh_config, running) as door:
        if ssh_config.warm:  # the children are forked warm from the first session on
            assert await asyncio.wait_for(door.door.wait_warm(), CHILD_START)
        yield running, door


def door_config(tmp_path: Path, **options: Any) -> SshConfig:
    """An SSH door on 127.0.0.1 port 0 with its files under ``tmp_path``; ``options`` are
    SshConfig's fields or the door's limits (a hang-up grace of 1 s unless given). Children
    start fresh unless ``warm=True``: a zygote costs a second of CPU to start, and most tests
    are about the door, not how its children start (tests/net/test_zygote.py is)."""
    names = {f.name for f in dataclasses.fields(DoorLimits)}
    limits = DoorLimits(**{"hangup_grace": 1.0, **{k: v for k, v in options.items() if k in names}})
    rest = {k: v for k, v in options.items() if k not in names}
    return SshConfig(
        **{
            "port": 0,
            "bind": "127.0.0.1",
            "host_key": str(tmp_path / "host_key"),
            "players_dir": str(tmp_path / "players"),
            "limits": limits,
            "warm": False,
            "program": join_program(),
            **rest,
        }
    )


def forked_warm(door: SshServer) -> bool:
    """Whether every session's child was forked from the door's zygote."""
    zygote = door.door.zygote
    return zygote is not None and all(_parent_of(pid) == zygote.pid for pid in door.children)


def _parent_of(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


WARM = pytest.mark.parametrize("warm", [False, True], ids=["fresh", "warm"])


async def login(door: SshServer, key: asyncssh.SSHKey | None, user: str = "alice", **kw: Any) -> Any:
    return await asyncssh.connect(
        "127.0.0.1",
        door.port,
        username=user,
        client_keys=[key] if key else None,
        known_hosts=None,
        agent_path=None,
        config=None,
        **kw,
    )


async def session(conn: Any, *, pty: bool = True, command: str | None = None, cols: int = 80, rows: int = 24) -> Screen:
    _, screen = await conn.create_session(
        lambda: Screen(cols, rows),
        command,
        term_type="xterm-256color" if pty else None,
        term_size=(cols, rows) if pty else None,
        encoding=None,
    )
    return screen


def reaped(pid: int) -> bool:
    """Whether process ``pid`` is gone, its zombie reaped too."""
    return not Path(f"/proc/{pid}").exists()


def gone(pid: int) -> bool:
    """Whether process ``pid`` has exited (a zombie left to init counts as gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True
    return "\nState:\tZ" in status


def seat_of(host: Host, name: str) -> int | None:
    for seat in host.table.seats:
        if seat.kind == HUMAN and seat.name == name and seat.conn is not None:
            return seat.index
    return None


# --- the real table behind ssh --------------------------------------------------------


@WARM
async def test_a_session_with_a_terminal_gets_the_lobby_and_plays_moves(tmp_path: Path, keys: list, warm: bool) -> None:
    """ssh with a PTY: the lobby on screen under the SSH user name, then keys play real moves;
    the same whether the child was started fresh or forked from the warm zygote."""
    async with table(tmp_path, ssh={"warm": warm}) as (host, door):
        conn = await login(door, keys[0], "alice")
        screen = await session(conn)
        await screen.wait_for("alice (you)")
        assert forked_warm(door) is warm
        assert "Seats" in screen.text
        # The lobby names the table as the player reached it, and shows the host key to check.
        assert f"at ssh -p {door.port} 127.0.0.1" in screen.text
        assert f"SSH host key {door.fingerprint}" in screen.text
        screen.press("\x13")  # Ctrl+S, start: the open seat gets a bot
        await until(lambda: host.table.phase == "playing", what="the game to start")
        rules = host.table.rules
        await until(lambda: 0 in rules.waiting_for(host.table.state), what="alice's turn")
        await screen.wait_for("your turn")
        screen.press("e")  # end the turn
        await until(lambda: any(seat == 0 for seat, _ in host.table.recent_moves), what="alice's move")
        assert type(next(m for s, m in host.table.recent_moves if s == 0)).__name__ == "EndTurn"
        conn.close()


async def test_two_key_holders_play_a_game_to_the_end(tmp_path: Path, keys: list) -> None:
    """Two keys, two seats, one game to its end on both screens (a short turn timer keeps it fast)."""
    async with table(tmp_path, bots=0, autostart=True, turn_timer=0.05) as (host, door):
        alice = await login(door, keys[0], "alice")
        bob = await login(door, keys[1], "bob")
        screens = [await session(alice), await session(bob)]
        await until(lambda: host.table.phase != "lobby", what="the game to start")
        assert {seat_of(host, "alice"), seat_of(host, "bob")} == {0, 1}
        outcome = await until(lambda: host.table.outcome, timeout=120, what="the game to end")
        names = host.table.outcome_names
        assert sorted(names) == ["alice", "bob"]
        winner = names[outcome.winners[0]]
        for screen, me in zip(screens, ("alice", "bob")):
            await screen.wait_for("Game over")
            await screen.wait_for("You win!" if me == winner else f"{winner} wins.")
            assert f"1. {winner}" in screen.text and f"{me} (you)" in screen.text
        alice.close()
        bob.close()


async def test_a_dropped_session_comes_back_with_the_same_key_to_the_same_seat_and_hand(
    tmp_path: Path, keys: list
) -> None:
    """The connection dies; the same key, even under another user name, gets the seat and hand
    back, and its old child is gone (the children forked warm, as a host's are)."""
    async with table(tmp_path, ssh={"warm": True}) as (host, door):
        first = await login(door, keys[0], "alice")
        screen = await session(first)
        await screen.wait_for("alice (you)")
        screen.press("\x13")  # Ctrl+S: start
        rules = host.table.rules
        await until(lambda: host.table.phase == "playing" and 0 in rules.waiting_for(host.table.state))
        seat = seat_of(host, "alice")
        hand_before = rules.view(host.table.state, seat).hand
        await screen.wait_for("your turn")
        [pid] = [s.child.pid for s in door.sessions if s.name == "alice"]

        first.abort()  # no goodbye: as a dropped network would
        await until(lambda: gone(pid), timeout=10, what="the old child to end")
        await until(lambda: host.table.seats[seat].conn is None, timeout=10, what="the seat to be away")

        again = await login(door, keys[0], "alice-laptop")
        back = await session(again)
        await back.wait_for("your turn")
        assert seat_of(host, "alice") == seat
        assert rules.view(host.table.state, seat).hand == hand_before
        for card in hand_before:  # and on the screen, as before the drop
            await back.wait_for(card.name[:8], timeout=20)
        again.close()


async def test_a_different_key_gets_a_different_seat(tmp_path: Path, keys: list) -> None:
    """Same user name, another key: another seat (the key is the identity, not the name)."""
    async with table(tmp_path, seats=3, bots=0) as (host, door):
        one = await session(await login(door, keys[0], "sam"))
        await one.wait_for("sam (you)")
        two = await session(await login(door, keys[1], "sam"))
        await until(lambda: sum(1 for s in host.table.seats if s.kind == HUMAN and s.conn is not None) == 2)
        taken = [s for s in host.table.seats if s.kind == HUMAN]
        assert len({s.index for s in taken}) == 2 and len({s.token for s in taken}) == 2
        await two.wait_for("(you)")


async def test_a_resize_reaches_the_child_and_it_redraws_at_the_new_size(tmp_path: Path, keys: list) -> None:
    """A warm child's terminal is its own: the window change reaches it as SIGWINCH."""
    async with table(tmp_path, ssh={"warm": True}) as (host, door):
        screen = await session(await login(door, keys[0], "alice"))
        await screen.wait_for("online")
        assert screen.text.splitlines()[0].rstrip().endswith("online")
        assert len(screen.text.splitlines()[0].rstrip()) <= 80
        screen.resize(110, 30)
        # The status line's right end moves to the new right edge.
        await until(lambda: len(screen.text.splitlines()[0].rstrip()) > 100, timeout=20, what="a redraw at 110")
        assert screen.text.splitlines()[0].rstrip().endswith("online")


async def test_spectate_watches_the_table_without_a_seat(tmp_path: Path, keys: list) -> None:
    """``ssh -t HOST spectate``: the lobby on screen, counted as watching, no seat taken. The
    room code (which the door gave both children) is in the seated player's lobby, never in
    the watcher's."""
    async with table(tmp_path, seats=3, bots=0, code="KQXZ") as (host, door):
        player = await session(await login(door, keys[0], "alice"))
        await player.wait_for("alice (you)")
        watcher = await session(await login(door, keys[1], "carol"), command="spectate")
        await watcher.wait_for("alice")
        await player.wait_for("and 1 watching")
        assert [s.name for s in host.table.seats if s.kind == HUMAN] == ["alice"]
        assert "carol" not in watcher.text
        assert "room code" in player.text and "room code" not in watcher.text


@WARM
async def test_a_real_child_of_a_host_under_nohup_ends_on_the_hangup(tmp_path: Path, keys: list, warm: bool) -> None:
    """The host ignores SIGHUP (nohup): the table's own child still hears the hangup and goes,
    long before it would be killed, and is reaped."""
    before = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        async with table(tmp_path, ssh={"hangup_grace": 15.0, "warm": warm}) as (host, door):
            conn = await login(door, keys[0])
            await (await session(conn)).wait_for("alice (you)")
            [child] = [s.child for s in door.sessions]
            conn.close()
            status = await asyncio.wait_for(child.wait(), 14.0)
            assert status != -signal.SIGKILL
            await until(lambda: reaped(child.pid), timeout=10, what="the child to be reaped")
            assert door.children == []
            with pytest.raises(ChildProcessError):
                os.waitpid(child.pid, os.WNOHANG)
    finally:
        signal.signal(signal.SIGHUP, before)


# --- refusals, each a sentence ------------------------------------------------------------


async def test_a_session_without_a_terminal_and_an_exec_get_the_explanation(tmp_path: Path, keys: list) -> None:
    async with table(tmp_path, ssh={"command": stub()}) as (host, door):
        conn = await login(door, keys[0])
        plain = await session(conn, pty=False)
        await plain.closed.wait()
        assert plain.status == 1
        assert f"connect with 'ssh -t -p {door.port} 127.0.0.1'" in plain.said
        listing = await session(conn, pty=False, command="ls -la")
        await listing.closed.wait()
        assert listing.status == 1 and "There is no command 'ls -la' here" in listing.said
        watch = await session(conn, pty=False, command="spectate")
        await watch.closed.wait()
        assert watch.status == 1 and f"ssh -t -p {door.port} 127.0.0.1 spectate" in watch.said
        assert door.sessions == []


async def test_a_stranger_key_has_at_most_two_sessions_and_addresses_are_not_counted(
    tmp_path: Path, keys: list
) -> None:
    """Limits count keys and strangers, not addresses: one key without a seat gets two sessions, and
    other keys from the same address come in beside it."""
    async with table(tmp_path, seats=8, bots=0, ssh={"command": stub()}) as (host, door):
        conn = await login(door, keys[0])
        held = [await session(conn), await session(conn)]
        for screen in held:
            await screen.wait_for("ready", raw=True)
        third = await session(conn)
        await third.closed.wait()
        assert third.status == 1 and "This key already has 2 sessions" in third.said
        for key, name in zip(keys[1:4], ("bob", "carol", "dan")):  # all from 127.0.0.1
            await (await session(await login(door, key, name))).wait_for("ready", raw=True)
        assert len(door.sessions) == 5


async def test_a_full_table_says_so(tmp_path: Path, keys: list) -> None:
    """No open seat, or no session left: accepted, told, closed; never a bare failure."""
    async with table(tmp_path, seats=2, bots=2, ssh={"command": stub()}) as (host, door):
        screen = await session(await login(door, keys[0]))
        await screen.closed.wait()
        assert screen.status == 1
        assert "This table is full: every seat is taken." in screen.said
        assert f"ssh -t -p {door.port} 127.0.0.1 spectate" in screen.said
    async with table(tmp_path, seats=2, bots=0, ssh={"command": stub(), "spectators": 0}) as (host, door):
        # Two newcomers are on their way to the two open seats (a stand-in never sits): a third waits.
        for key in keys[:2]:
            await (await session(await login(door, key))).wait_for("ready", raw=True)
        third = await session(await login(door, keys[2]))
        await third.closed.wait()
        assert third.status == 1 and "Someone is taking the last open seat right now" in third.said
        watcher = await session(await login(door, keys[3]), command="spectate")
        await watcher.closed.wait()
        assert watcher.status == 1 and "This table has all the watchers it can take" in watcher.said


async def test_passwords_and_unknown_keys_are_refused(tmp_path: Path, keys: list) -> None:
    allow = tmp_path / "allowed_keys"
    allow.write_text(keys[0].export_public_key().decode())
    async with table(tmp_path, seats=4, bots=0, ssh={"command": stub(), "allow": str(allow)}) as (host, door):
        with pytest.raises(asyncssh.PermissionDenied):
            await login(door, None, password="hunter2", preferred_auth="password,keyboard-interactive")
        with pytest.raises(asyncssh.PermissionDenied):
            await login(door, keys[1])
        await (await session(await login(door, keys[0]))).wait_for("ready", raw=True)
        # The file is read again when it changes: a friend added while the table runs.
        allow.write_text(keys[0].export_public_key().decode() + keys[1].export_public_key().decode())
        await (await session(await login(door, keys[1], "bob"))).wait_for("ready", raw=True)


# --- the child: its terminal, its environment, its end ------------------------------------


@WARM
async def test_the_child_has_its_own_terminal_term_locale_and_folder(tmp_path: Path, keys: list, warm: bool) -> None:
    launches: list[Launch] = []

    def command(launch: Launch) -> list[str]:
        launches.append(launch)
        return [sys.executable, STUB, "hold"]

    async with table(tmp_path, ssh={"command": command, "warm": warm}) as (host, door):
        screen = await session(await login(door, keys[0], "Ann   of  Green Gables Farmhouse"), cols=91, rows=27)
        await screen.wait_for("ready 91x27 TERM=xterm-256color LANG=C.UTF-8 hup=default ctty=yes", raw=True)
        assert forked_warm(door) is warm
        screen.resize(100, 31)
        await screen.wait_for("size 100x31", raw=True)
        screen.press("hello\r")
        await screen.wait_for("got hello", raw=True)
        [launch] = launches
        assert launch.name == "Ann of Green Gables Farm"  # cleaned like every name, at most 24
        assert launch.url == host.url and not launch.spectate
        # It runs in the door's own folder, which only the host's user may enter; the key's own
        # folder is named by its fingerprint, and made only when the key takes a seat.
        assert launch.workdir == tmp_path / "players" and stat.S_IMODE(launch.workdir.stat().st_mode) == 0o700
        assert launch.folder.parent == launch.workdir and not launch.folder.exists()
        assert keys[0].get_fingerprint("sha256").split(":")[1][:20].replace("/", "_").replace("+", "-") in str(
            launch.folder
        )


@WARM
async def test_closing_a_session_leaves_no_child_even_when_the_host_ignores_sighup(
    tmp_path: Path, keys: list, warm: bool
) -> None:
    """The host runs as under nohup (SIGHUP ignored); its child still hears the hangup and is reaped."""
    before = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        async with table(tmp_path, ssh={"command": stub(), "hangup_grace": 5.0, "warm": warm}) as (host, door):
            conn = await login(door, keys[0])
            screen = await session(conn)
            await screen.wait_for("hup=default", raw=True)
            [child] = [s.child for s in door.sessions]
            conn.close()
            status = await asyncio.wait_for(child.wait(), 4.0)  # well before the SIGKILL at 5 s
            assert status == -signal.SIGHUP
            await until(lambda: reaped(child.pid), timeout=10, what="the child to be reaped")
            with pytest.raises(ChildProcessError):
                os.waitpid(child.pid, os.WNOHANG)  # reaped already: no zombie left
            assert door.children == []
    finally:
        signal.signal(signal.SIGHUP, before)


@WARM
async def test_a_child_deaf_to_the_hangup_is_killed_after_the_grace(tmp_path: Path, keys: list, warm: bool) -> None:
    async with table(tmp_path, ssh={"command": stub("ignore-hup"), "hangup_grace": 0.5, "warm": warm}) as (host, door):
        conn = await login(door, keys[0])
        await (await session(conn)).wait_for("ready", raw=True)
        [child] = [s.child for s in door.sessions]
        conn.close()
        assert await asyncio.wait_for(child.wait(), 5.0) == -signal.SIGKILL
        assert gone(child.pid)


async def test_stopping_the_server_ends_every_session_with_a_sentence(tmp_path: Path, keys: list) -> None:
    async with table(tmp_path, seats=3, bots=0, ssh={"command": stub()}) as (host, door):
        screens = [await session(await login(door, key, f"p{i}")) for i, key in enumerate(keys[:2])]
        for screen in screens:
            await screen.wait_for("ready", raw=True)
        pids = door.children
        await door.stop()
        for screen in screens:
            await asyncio.wait_for(screen.closed.wait(), 5)
            assert "The table has closed." in screen.said and screen.status == 0
        assert all(gone(pid) for pid in pids)


@pytest.mark.skipif(shutil.which("ssh") is None, reason="needs the OpenSSH client")
async def test_openssh_shows_the_goodbye_before_the_connection_goes(tmp_path: Path, keys: list) -> None:
    """OpenSSH drops what it has not shown yet when the connection is cut: the host waits for
    the client to close the session, so the last sentence is on the player's screen."""
    key_file = tmp_path / "id_ed25519"
    key_file.write_bytes(keys[0].export_private_key())
    key_file.chmod(0o600)
    async with table(tmp_path, ssh={"command": stub()}) as (host, door):
        ssh, master = on_a_terminal(openssh(door.port, key_file, "alice"))  # the player's terminal
        said = bytearray()
        loop = asyncio.get_running_loop()

        def readable() -> None:
            try:
                said.extend(os.read(master, 65536))
            except OSError:  # EIO: ssh has closed the terminal
                loop.remove_reader(master)

        loop.add_reader(master, readable)
        try:
            await until(lambda: b"ready" in said, timeout=20, what="the session")
            await door.stop()
            await until(lambda: ssh.poll() is not None, timeout=10, what="ssh to exit")
            await until(lambda: b"The table has closed." in said, timeout=5, what="the table's closing sentence")
            assert ssh.returncode == 0
        finally:
            loop.remove_reader(master)
            os.close(master)
            if ssh.poll() is None:
                ssh.kill()
                ssh.wait()


async def test_an_idle_session_is_closed_with_a_sentence(tmp_path: Path, keys: list) -> None:
    """Idle time is told by the door's clock, moved here by hand: keys pressed within the idle
    timeout keep the session open however long it lasts; the timeout without one closes it."""
    clock = Clock()
    async with table(tmp_path, ssh={"command": stub(), "idle_timeout": 0.5, "clock": clock}) as (host, door):
        screen = await session(await login(door, keys[0]))
        await screen.wait_for("ctty=", raw=True)  # the ready line's last field: what is said then is all
        before = screen.said.count("x")
        for pressed in range(1, 5):  # keys keep it open
            clock.now += 0.25
            screen.press("x")
            await screen.changes.until(lambda n=pressed: screen.said.count("x") == before + n, what="the key's echo")
        [served] = door.sessions
        assert not screen.closed.is_set() and served.child.running  # 1 s on, the last key 0 s ago
        clock.now += 0.5
        await asyncio.wait_for(screen.closed.wait(), 5)
        assert "Closed after 0.5 seconds without a key press." in screen.said and screen.status == 1


async def test_a_silent_connection_is_dropped_by_the_keepalives(tmp_path: Path, keys: list) -> None:
    """The network goes quiet (a relay stops passing bytes): unanswered keepalives drop the
    connection, and the session's child goes with it."""
    frozen = asyncio.Event()

    async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError):
            while data := await reader.read(65536):
                if frozen.is_set():
                    await asyncio.Event().wait()  # swallowed: as a dead network would
                writer.write(data)
                await writer.drain()

    async def relay(client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        server_r, server_w = await asyncio.open_connection("127.0.0.1", door.port)
        await asyncio.gather(pipe(client_r, server_w), pipe(server_r, client_w), return_exceptions=True)

    async with table(tmp_path, ssh={"command": stub(), "keepalive_interval": 0.3, "keepalive_count": 2}) as (
        host,
        door,
    ):
        middle = await asyncio.start_server(relay, "127.0.0.1", 0)
        port = middle.sockets[0].getsockname()[1]
        conn = await asyncssh.connect(
            "127.0.0.1", port, username="alice", client_keys=[keys[0]], known_hosts=None, agent_path=None, config=None
        )
        await (await session(conn)).wait_for("ready", raw=True)
        [child] = [s.child for s in door.sessions]
        # Three keepalive intervals: asyncssh sends and answers them on real time.
        await asyncio.sleep(1.0)
        assert door.sessions and child.running  # answered keepalives keep it open
        frozen.set()
        await asyncio.wait_for(child.wait(), 10)
        await until(lambda: not door.sessions and door.connections == 0, timeout=5, what="the connection dropped")
        conn.abort()
        middle.close()


async def test_a_login_that_never_comes_is_dropped(tmp_path: Path, keys: list) -> None:
    async with table(tmp_path, ssh={"command": stub(), "connection_deadline": 0.5}) as (host, door):
        reader, writer = await asyncio.open_connection("127.0.0.1", door.port)
        banner = await asyncio.wait_for(reader.readline(), 5)
        assert banner.startswith(b"SSH-2.0-quackbox")
        assert await asyncio.wait_for(reader.read(), 5) == b""  # closed by the server
        writer.close()


async def test_a_player_who_stops_reading_stops_the_child_not_the_host(tmp_path: Path, keys: list) -> None:
    """Flow control: a paused client leaves the host's buffer for it bounded; the child blocks."""
    async with table(tmp_path, ssh={"command": stub("flood")}) as (host, door):
        screen = await session(await login(door, keys[0]))
        await until(lambda: len(screen.raw) > 100_000, timeout=20, what="the flood")
        screen.chan.pause_reading()
        [served] = door.sessions
        # The buffer fills until the SSH window and the host's high-water mark stop it: past
        # that mark the door stops reading the child, and what the host holds stays bounded.
        await until(lambda: served.child.output_paused, timeout=20, what="the host to hold the child back")
        held = served.terminal.chan.get_write_buffer_size()
        assert held < 1024 * 1024, held
        screen.chan.resume_reading()
        grown = len(screen.raw)
        await until(lambda: len(screen.raw) > grown + 100_000, timeout=20, what="the flood to resume")


# --- keys and the command line ------------------------------------------------------------


@pytest.mark.parametrize("user", ["ann", "--spectate", "-x", "--code=AAAA"])
def test_the_user_name_reaches_join_as_a_name_never_an_option(tmp_path: Path, user: str) -> None:
    from quackbox.__main__ import build_parser
    from quackbox.door_child import join_program
    from quackbox.net.door_launch import child_command

    argv = child_command(
        Launch(url="ws://127.0.0.1:1", name=user, spectate=False, folder=tmp_path / "k", workdir=tmp_path),
        join_program(),
    )
    assert argv[:6] == [sys.executable, "-P", "-m", "quackbox.door_child", str(tmp_path), "join"]
    args = build_parser().parse_args(argv[5:])
    assert args.name == user and not args.spectate and args.code is None


def test_the_host_key_is_made_once_readable_by_its_owner_only(tmp_path: Path) -> None:
    path = tmp_path / "data" / "ssh_host_ed25519_key"
    first = load_host_key(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load_host_key(path).get_fingerprint("sha256") == first.get_fingerprint("sha256")
    path.chmod(0o644)
    from quackbox.net.ssh_keys import SshKeyError

    with pytest.raises(SshKeyError, match="chmod 600"):
        load_host_key(path)


async def test_a_taken_port_is_a_sentence(tmp_path: Path, keys: list) -> None:
    async with table(tmp_path) as (host, door):
        taken = SshServer(
            SshConfig(
                port=door.port, bind="127.0.0.1", host_key=str(tmp_path / "k2"), players_dir=str(tmp_path / "p2")
            ),
            host,
        )
        with pytest.raises(SshError, match="already in use"):
            await taken.start()


def _start_host(tmp_path: Path, *extra: str) -> tuple[subprocess.Popen[str], int]:
    """A headless host with an SSH door, once its children are forked warm (it says so in its log)."""
    env = {
        **os.environ,
        "QUACKBOX_DATA_DIR": str(tmp_path / "data"),
        "QUACKBOX_STATE_DIR": str(tmp_path / "state"),
        "QUACKBOX_CONFIG_DIR": str(tmp_path / "config"),
    }
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "quackbox",
            "host",
            "--headless",
            "--seats",
            "2",
            "--bots",
            "1",
            "--port",
            "0",
            "--bind",
            "127.0.0.1",
            "--ssh",
            "0",
            "--no-journal",
            "--again",
            *extra,
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert proc.stdout is not None
    port, warm = None, False
    for line in proc.stdout:
        if line.startswith("Or, nothing installed:"):
            port = int(line.split("-p ")[1].split()[0])
        warm = warm or ("warm start process" in line and "ready" in line)
        if warm and port is not None:
            return proc, port
    raise AssertionError("the host never said where ssh goes, or never got warm")


@pytest.mark.parametrize("nohup", [False, True], ids=["plain", "under-nohup"])
async def test_killing_the_host_ends_every_child(tmp_path: Path, keys: list, nohup: bool) -> None:
    """SIGKILL to the host (no cleanup at all): the PTY's hangup still ends its children, and the
    zygote they were forked from hears its socket close and ends too; also when the host was
    started with SIGHUP ignored."""
    before = signal.signal(signal.SIGHUP, signal.SIG_IGN) if nohup else None
    try:
        proc, port = _start_host(tmp_path)
    finally:
        if nohup:
            signal.signal(signal.SIGHUP, before)
    try:
        conn = await asyncssh.connect(
            "127.0.0.1", port, username="alice", client_keys=[keys[0]], known_hosts=None, agent_path=None
        )
        screen = await session(conn)
        await screen.wait_for("alice (you)")
        [zygote] = _children_of(proc.pid)
        [child] = _children_of(zygote)  # the session's, forked warm
        proc.kill()
        proc.wait(10)
        for pid in (zygote, child):
            await until(lambda pid=pid: gone(pid), timeout=15, what=f"process {pid} to end")
        conn.close()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _descendants_of(pid: int) -> list[int]:
    """Process ``pid``'s children, theirs, and so on (a door's zygote and the children forked from it)."""
    found = []
    for child in _children_of(pid):
        found += [child, *_descendants_of(child)]
    return found


def _children_of(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except (FileNotFoundError, ProcessLookupError, IndexError):
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


async def test_a_key_the_host_removed_is_told_so_at_the_door_and_may_only_watch(tmp_path: Path, keys: list) -> None:
    """The host removed the person holding a seat: their key comes back and is told why at the
    door, before any child starts; it may still watch."""
    async with table(tmp_path, seats=3, bots=0) as (host, door):
        alice = await login(door, keys[0], "alice")
        screen = await session(alice)
        await screen.wait_for("alice (you)")
        seat = host.table.seats[seat_of(host, "alice")]
        alice.close()
        await until(lambda: seat.conn is None, timeout=10, what="the seat to be left")
        host.table.lobby.removed.add(seat.token_hash)  # as the host's remove does
        host.table.seats.free(seat)
        back = await session(await login(door, keys[0], "alice"))
        await back.closed.wait()
        assert back.status == 1 and "The host removed you from this table" in back.said
        assert not door.sessions
        watching = await session(await login(door, keys[0], "alice"), command="spectate")
        await watching.wait_for("Seats")
        assert door.sessions
