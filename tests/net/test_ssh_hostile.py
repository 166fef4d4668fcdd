"""The SSH door against a hostile neighbour: another user of the same box, or a stranger with any key.

Each test makes one attack on a door on 127.0.0.1 port 0 (from any 127.x
address, as a local user can) and checks that it fails as it should: planted
code never runs, a key flood costs the child little, idle connections and
raw sockets never keep a newcomer out, a seat holder always gets back in,
strangers leave nothing on disk, look-alike names are told apart, a
half-closed session ends quietly, window changes are coalesced and clamped.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import shutil
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest
import websockets

from quackbox.net.client import Client
from quackbox.net.door_policy import CROWDED, INPUT_CLOSED, REPLACED, TOO_FAST, no_session_sentence
from quackbox.net.protocol import HUMAN, PROTOCOL_VERSION, Hello, Wire
from quackbox.net.ssh import ssh_key
from quackbox.net.sshlib import asyncssh
from quackbox.net.tokens import TokenStore
from tests.net.test_ssh import CHILD_START, WARM, forked_warm, keys, login, openssh, session, stub, table, until  # noqa: F401 (keys: a fixture)
from tests.waiting import Clock

PAGE = os.sysconf("SC_PAGE_SIZE")


def rss(pid: int) -> int:
    return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE


class Watcher(asyncssh.SSHClient):
    """A client that keeps why its connection ended."""

    def __init__(self) -> None:
        self.lost: asyncio.Future[Exception | None] = asyncio.get_running_loop().create_future()

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.lost.done():
            self.lost.set_result(exc)


async def watched_login(door: Any, key: asyncssh.SSHKey, address: str = "127.0.0.1") -> tuple[Any, Watcher]:
    conn, client = await asyncssh.create_connection(
        Watcher,
        "127.0.0.1",
        door.port,
        username="x",
        client_keys=[key],
        known_hosts=None,
        agent_path=None,
        config=None,
        local_addr=(address, 0),
    )
    return conn, client


def reason(exc: Exception | None) -> str:
    return getattr(exc, "reason", "") or str(exc or "")


# --- 1. planted code -----------------------------------------------------------------------------


@WARM
async def test_a_module_planted_in_the_hosts_folder_never_runs(
    tmp_path: Path, keys: list, monkeypatch, warm: bool
) -> None:
    """The host was started in a folder anyone may write to, holding a planted quackbox package and
    modules named like its dependencies: the session's child imports none of them, nor does the
    zygote it is forked from (started in that folder too), and the key that took a seat has a
    folder of its own only the host's user may enter."""
    shared = tmp_path / "shared"
    (shared / "quackbox").mkdir(parents=True)
    planted = {
        "quackbox/__init__.py",
        "quackbox/__main__.py",
        "textual.py",
        "msgpack.py",
        "websockets.py",
        "sitecustomize.py",
        "usercustomize.py",
    }
    for name in planted:
        marker = tmp_path / f"ran-{name.replace('/', '-')}"
        (shared / name).write_text(f"open({str(marker)!r}, 'w').write('planted code ran')\n")
    shared.chmod(0o1777)
    monkeypatch.chdir(shared)
    async with table(tmp_path, ssh={"warm": warm}) as (host, door):
        screen = await session(await login(door, keys[0], "mallory"))
        await screen.wait_for("mallory (you)")
        assert forked_warm(door) is warm
        folder = door.door.folders.of(ssh_key(keys[0].get_fingerprint("sha256")))
        await until(lambda: (folder / "state" / "tokens.json").exists(), timeout=10, what="the seat token")
    assert sorted(p.name for p in tmp_path.glob("ran-*")) == []
    assert oct(folder.stat().st_mode & 0o777) == oct(0o700)


# --- 2. typing floods ----------------------------------------------------------------------------


async def test_a_session_fed_a_mebibyte_of_keys_stays_within_its_memory_bound(tmp_path: Path, keys: list) -> None:
    """1 MiB of typed keys (no bracketed paste) let through the door at once reaches the real child,
    which turns no more of it into events than a person could type: it grows by less than 20 MB
    (its size looked at with each chunk sent and each change of its screen until a newcomer
    shows), and the table plays on."""
    fast = {"input_burst": 64 * 1024, "input_per_second": 4 * 1024 * 1024}
    async with table(tmp_path, seats=3, bots=0, ssh=fast) as (host, door):
        screen = await session(await login(door, keys[0], "flood"))
        await screen.wait_for("flood (you)")
        [pid] = door.children
        before = peak = rss(pid)

        def looked() -> int:
            nonlocal peak
            peak = max(peak, rss(pid))
            return peak

        sent = 0
        chunk = b"x" * 4096
        while sent < 1024 * 1024:
            await asyncio.wait_for(screen.writable.wait(), 60)  # the channel's flow control
            screen.chan.write(chunk)
            sent += len(chunk)
            looked()
        await until(
            lambda: looked() and screen.chan.get_write_buffer_size() == 0, timeout=60, what="the keys to be sent"
        )
        newcomer = await Client.connect(host.url, name="zed", reconnect=False)
        try:
            await screen.changes.until(lambda: looked() and "zed" in screen.text, timeout=20, what="the newcomer")
        finally:
            await newcomer.close()
        assert peak - before < 20 * 1024 * 1024, f"the child grew by {(peak - before) / 2**20:.1f} MiB"
        assert not screen.closed.is_set()


async def test_typing_reaches_the_child_no_faster_than_a_person_types_and_none_is_lost(
    tmp_path: Path, keys: list
) -> None:
    """The door passes keys on at its rate (after a burst); what is typed faster waits in the
    player's own client, and every byte arrives in the end. The door's clock is moved by hand:
    with it held still, what reaches the child is what the budget holds, and no more."""
    clock = Clock()
    slow = {"command": stub("count"), "input_burst": 1000, "input_per_second": 2000, "clock": clock}
    async with table(tmp_path, ssh=slow) as (host, door):
        screen = await session(await login(door, keys[0]))
        await screen.wait_for("ready", raw=True)
        screen.chan.write(b"k" * 7000)

        def counted() -> int:
            found = re.findall(r"count (\d+)", screen.said)
            return int(found[-1]) if found else 0

        for granted in range(1000, 7001, 1000):  # the burst, then 1000 keys each half a second
            await screen.changes.until(lambda n=granted: counted() >= n, timeout=20, what=f"{granted} keys")
            assert counted() == granted
            clock.now += 0.5


# --- 3. connections without a session ------------------------------------------------------------


async def test_held_connections_and_raw_sockets_do_not_keep_a_newcomer_out(tmp_path: Path, keys: list) -> None:
    """Logged-in connections that never ask for a session and raw sockets that never speak fill the
    strangers' budget; a newcomer still comes in at once, and those that waited longest are told why
    they were closed."""
    limits = {"command": stub(), "stranger_connections": 6, "connection_deadline": 60.0}
    async with table(tmp_path, seats=3, bots=0, ssh=limits) as (host, door):
        held = [await watched_login(door, keys[i % 2], f"127.0.0.{2 + i}") for i in range(3)]
        raw = [
            await asyncio.open_connection("127.0.0.1", door.port, local_addr=(f"127.0.1.{i + 1}", 0)) for i in range(3)
        ]
        newcomer = await session(await login(door, keys[2], "newcomer"))
        await newcomer.wait_for("ready", raw=True, timeout=10)
        # The oldest waiting connection made way for the newcomer's, and was told why.
        lost = await asyncio.wait_for(held[0][1].lost, 10)
        assert CROWDED in reason(lost)
        for _reader, writer in raw:
            writer.close()
        for conn, _ in held:
            conn.close()


async def test_a_connection_without_a_session_is_closed_with_a_sentence(tmp_path: Path, keys: list) -> None:
    async with table(tmp_path, ssh={"command": stub(), "connection_deadline": 1.0}) as (host, door):
        conn, watcher = await watched_login(door, keys[0])
        assert no_session_sentence(1.0) in reason(await asyncio.wait_for(watcher.lost, 10))
        reader, writer = await asyncio.open_connection("127.0.0.1", door.port)
        await asyncio.wait_for(reader.read(), 10)  # a socket that never speaks is closed too
        writer.close()


async def test_one_address_opening_connections_too_fast_is_refused_with_a_sentence(tmp_path: Path, keys: list) -> None:
    limits = {"command": stub(), "connection_burst": 3, "connections_per_second": 0.1}
    async with table(tmp_path, ssh=limits) as (host, door):
        for _ in range(3):
            (await watched_login(door, keys[0], "127.0.0.5"))[0].close()
        with pytest.raises(asyncssh.DisconnectError) as refused:
            await watched_login(door, keys[0], "127.0.0.5")
        assert TOO_FAST in reason(refused.value)
        (await watched_login(door, keys[0], "127.0.0.6"))[0].close()  # another address: in


# --- 5. a seat holder always gets back -----------------------------------------------------------


async def hold_seat(host: Any, door: Any, key: Any, name: str) -> None:
    """``key`` holds seat 1 of ``host``'s table, away: its child took the seat and saved its token
    in the key's folder, then its connection dropped, so the seat waits for it."""
    async with websockets.connect(host.url) as ws:
        wire = Wire(host.table.rules)
        await ws.send(wire.encode(Hello(version=PROTOCOL_VERSION, name=name, code=host.code)))
        welcome = wire.decode_from_host(await ws.recv())
        door.door.folders.tokens(key).remember(host.url, welcome.token, name=name)
        ws.transport.abort()
    await until(lambda: host.table.seats[0].conn is None and host.table.seats[0].kind == HUMAN)


async def test_a_seated_key_comes_back_whatever_other_sessions_its_address_has(tmp_path: Path, keys: list) -> None:
    """Alice holds a seat at a table with no open seat; friends watch from her address. Her key
    comes back beside them, and past its two sessions its oldest makes way; a stranger is refused."""
    async with table(tmp_path, seats=2, bots=1, ssh={"command": stub()}) as (host, door):
        alice = ssh_key(keys[0].get_fingerprint("sha256"))
        await hold_seat(host, door, alice, "alice")
        for key, name in ((keys[1], "bob"), (keys[2], "carol")):
            await (await session(await login(door, key, name), command="spectate")).wait_for("ready", raw=True)
        stranger = await session(await login(door, keys[3], "dan"))
        await stranger.closed.wait()
        assert stranger.status == 1 and "This table is full: every seat is taken." in stranger.said
        conn = await login(door, keys[0], "alice")
        first, second = await session(conn), await session(conn)
        for screen in (first, second):
            await screen.wait_for("ready", raw=True)
        third = await session(conn)
        await third.wait_for("ready", raw=True)
        await asyncio.wait_for(first.closed.wait(), CHILD_START)  # a bound, not a figure: a busy machine is slow
        assert REPLACED in first.said
        assert sum(1 for s in door.sessions if s.request.key == alice) == 2


async def test_a_neighbour_on_the_same_address_never_keeps_a_seat_holder_out(tmp_path: Path, keys: list) -> None:
    """On a shared box everyone is 127.0.0.1. A neighbour there leaves sockets open that never speak
    and logs in with a key that holds no seat faster than strangers may (refused, with the
    sentence); alice, who holds a seat, comes back from the same address every time."""
    limits = {
        "command": stub(),
        "connection_burst": 2,
        "connections_per_second": 0.01,
        "stranger_connections": 4,
        "stranger_connections_per_address": 4,
        "connection_deadline": 60.0,
    }
    async with table(tmp_path, seats=2, bots=1, ssh=limits) as (host, door):
        alice = ssh_key(keys[0].get_fingerprint("sha256"))
        await hold_seat(host, door, alice, "alice")
        silent = [await asyncio.open_connection("127.0.0.1", door.port) for _ in range(6)]
        answers = []
        for _ in range(3):
            try:
                conn, _ = await watched_login(door, keys[1])
                conn.close()
                answers.append("in")
            except asyncssh.DisconnectError as exc:
                answers.append(reason(exc))
        assert answers[:2] == ["in", "in"] and TOO_FAST in answers[2]
        # Logins that opened no session leave nothing in the door's memory (a storm of keys costs none).
        assert not door.door.remembers(ssh_key(keys[1].get_fingerprint("sha256")).id)
        for _ in range(3):
            conn = await login(door, keys[0], "alice")
            screen = await session(conn)
            await screen.wait_for("ready", raw=True, timeout=10)
            conn.close()
            await screen.closed.wait()
        assert door.door.keeper.strangers() and len(door.door.keeper.strangers()) <= 4
        for _, writer in silent:
            writer.close()


async def test_who_holds_a_seat_is_read_in_a_thread_once_per_key(tmp_path: Path, keys: list, monkeypatch) -> None:
    """Admission reads no file on the event loop: a key's seat token is read in a thread as it comes
    in, and the token of a session already in whose key holds a seat is not read again for
    each newcomer."""
    loop_thread = threading.get_ident()
    reads: list[tuple[str, bool]] = []
    recall = TokenStore.recall

    def counted(store: TokenStore, url: str, name: str = "") -> str | None:
        reads.append((store.path.parent.parent.name, threading.get_ident() == loop_thread))
        return recall(store, url, name)

    monkeypatch.setattr(TokenStore, "recall", counted)
    async with table(tmp_path, seats=2, bots=1, ssh={"command": stub()}) as (host, door):
        alice = ssh_key(keys[0].get_fingerprint("sha256"))
        await hold_seat(host, door, alice, "alice")
        conn = await login(door, keys[0], "alice")
        await (await session(conn)).wait_for("ready", raw=True)
        for key, name in ((keys[1], "bob"), (keys[2], "carol"), (keys[3], "dan")):
            await (await session(await login(door, key, name), command="spectate")).wait_for("ready", raw=True)
        assert len(door.sessions) == 4 and reads
        assert not [folder for folder, on_loop in reads if on_loop], "a token was read on the event loop"
        assert sum(1 for folder, _ in reads if folder == alice.folder) == 1


# --- 6. nothing on disk for strangers ------------------------------------------------------------


async def test_refused_keys_and_watchers_leave_no_folder(tmp_path: Path, keys: list) -> None:
    many = [asyncssh.generate_private_key("ssh-ed25519") for _ in range(12)]
    async with table(tmp_path, seats=2, bots=2, ssh={"command": stub(), "connection_burst": 100}) as (host, door):
        for i, key in enumerate(many):
            screen = await session(await login(door, key, f"k{i}"))
            await screen.closed.wait()
            assert "This table is full" in screen.said
        watching = await session(await login(door, keys[0]), command="spectate")
        await watching.wait_for("ready", raw=True)
        assert list((tmp_path / "players").iterdir()) == []


# --- 7. look-alike names -------------------------------------------------------------------------


async def test_a_name_with_an_invisible_mark_is_told_apart(tmp_path: Path, keys: list) -> None:
    """``alic`` + an invisible Khmer vowel + ``e`` over SSH beside ``alice``, and ``Alic`` + a
    variation selector + ``e`` over websocket: each is made unique, visibly."""
    async with table(tmp_path, seats=4, bots=0) as (host, door):
        for key, user in ((keys[0], "alice"), (keys[1], "alic\u17b4e")):
            await (await session(await login(door, key, user))).wait_for("(you)")
        twin = await Client.connect(host.url, name="Alic\ufe0fe", reconnect=False)
        try:
            await until(lambda: sum(1 for s in host.table.seats if s.kind == HUMAN) == 3)
            assert sorted(s.name for s in host.table.seats if s.kind == HUMAN) == ["Alice 3", "alice", "alice 2"]
        finally:
            await twin.close()


# --- 8. a half-closed session --------------------------------------------------------------------


async def test_a_half_closed_session_ends_without_a_traceback(tmp_path: Path, keys: list, caplog) -> None:
    """The client closes its input (``ssh ... < /dev/null``) while its child writes without end:
    the session says why and ends, its child is reaped, and the host logs no error."""
    caplog.set_level(logging.INFO)
    async with table(tmp_path, ssh={"command": stub("flood")}) as (host, door):
        screen = await session(await login(door, keys[0]))
        await until(lambda: len(screen.raw) > 10_000, timeout=20, what="the child's output")
        [pid] = door.children
        screen.chan.write_eof()
        await asyncio.wait_for(screen.closed.wait(), 10)
        assert INPUT_CLOSED in screen.said and screen.status == 0
        await until(lambda: door.children == [] and not door.sessions, timeout=10, what="the child reaped")
    bad = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert not bad, [r.getMessage() for r in bad]


@pytest.mark.skipif(shutil.which("ssh") is None, reason="needs the OpenSSH client")
async def test_openssh_with_its_input_closed_ends_quietly(tmp_path: Path, keys: list, caplog) -> None:
    caplog.set_level(logging.INFO)
    key_file = tmp_path / "id_ed25519"
    key_file.write_bytes(keys[0].export_private_key())
    key_file.chmod(0o600)
    async with table(tmp_path, ssh={"command": stub("flood")}) as (host, door):
        ssh = await asyncio.create_subprocess_exec(
            *openssh(door.port, key_file, "eve", "spectate", terminal=True),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            assert await asyncio.wait_for(ssh.wait(), 20) == 0
        finally:
            if ssh.returncode is None:
                ssh.kill()
                await ssh.wait()
        await until(lambda: door.children == [], timeout=10, what="the child reaped")
    bad = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert not bad, [r.getMessage() for r in bad]


# --- 9. window changes ---------------------------------------------------------------------------


async def test_window_changes_are_clamped_and_coalesced(tmp_path: Path, keys: list) -> None:
    """A 1000x1000 terminal gets a 300x100 child; a burst of 400 window changes reaches it as a few
    (at most four a second), the last one last. The door's clock is held still through the burst:
    one size goes at once (the latest asked for by then), the rest wait for the clock's next
    quarter second, and then the last one alone goes."""
    clock = Clock()
    async with table(tmp_path, ssh={"command": stub(), "clock": clock}) as (host, door):
        screen = await session(await login(door, keys[0]), cols=1000, rows=1000)
        await screen.wait_for("ready 300x100", raw=True)
        for i in range(400):
            screen.chan.change_terminal_size(81 + i % 100, 25 + i % 30)
        screen.press("q")  # after the window changes: its echo says the door has had them all
        await screen.wait_for("q", raw=True, timeout=10)
        await screen.wait_for("size ", raw=True, timeout=10)
        clock.now += 0.25
        last = f"{81 + 399 % 100}x{25 + 399 % 30}"
        await screen.wait_for(f"size {last}", raw=True, timeout=10)
        sizes = re.findall(r"size (\d+x\d+)", screen.said)
        assert len(sizes) <= 2 and sizes[-1] == last, sizes
