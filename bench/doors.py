"""The doors against a hostile neighbour: each attack on a running ``quackbox host --ssh``, with figures.

    python -m bench.doors [ATTACK ...] [--flood-bytes 1048576]
    python bench/doors.py [ATTACK ...]     # the same, importing only the installed quackbox

Prints one JSON object, a key per attack (progress goes to stderr). Every
attack runs against a real host process (the ``quackbox`` command installed
beside this Python, headless, loopback only, its data in a fresh temporary
folder) as another user of the same machine would make it: asyncssh clients
from any 127.x address, raw sockets, OpenSSH's own client, browsers' sockets.
Run as a script from another folder, the bench imports quackbox only from
where this Python has it installed, so it can measure another version's host
with its own clients. The attacks:

- ``planted``: the host is started from a folder that holds a planted
  ``quackbox`` package; does the planted code run at the next login?
- ``keys``: one session is typed ``--flood-bytes`` keys (no bracketed
  paste) as fast as the door takes them: its child's memory (before, at its
  peak, after), CPU and how long it stays busy, and how long a newcomer then
  takes to appear on its screen (the table plays on).
- ``idle``: 64 logged-in connections with no session from 8 addresses, then
  64 raw sockets that never speak: does a newcomer get in, how fast? And a
  storm of logins from one address: logins a second, the host's CPU.
- ``squat``: three throwaway keys open a session each and leave; can a
  newcomer (ssh, websocket) sit at once, and 25 s later?
- ``addresses``: 7 keys from 7 addresses at an 8-seat table; a seated key
  coming back from an address with 2 other sessions.
- ``folders``: 150 keys refused at a full table: folders made.
- ``names``: ``alic\\u17b4e`` over ssh beside ``alice``, ``Alic\\ufe0fe``
  over websocket beside ``Alice``; and how many default-ignorable code points
  pass the table's name cleaning and duplicate check.
- ``halfclosed``: ``ssh -tt ... spectate < /dev/null`` for 30 s of a game:
  tracebacks in the host's log, whether the session is still there.
- ``resize``: 20,000 window changes in 10 s: the host's CPU and its longest
  stall (websocket ping round trips); and a 1000x1000 terminal's first screen.
- ``descriptors``: 1,100 HTTP requests left half sent on the browser door's
  port from 127.0.0.1, each dribbling a byte every 2 s and opened again as
  soon as it is closed, for 30 s, against a host started with a soft limit
  of 1024 descriptors (``soft_1024``) and with a hard limit of 1024 too
  (``soft_and_hard_1024``: the host cannot raise it): the host's descriptors
  at their most, how long a table hello with the right code takes to be
  welcomed and a fresh page to load (each tried three times during the
  flood, 10 s at most), whether a browser's session comes in, and how much
  the host's log grew (accept errors, tracebacks).
- ``neighbour``: a neighbour on 127.0.0.1 opens a connection every 0.5 s
  for 20 s to the SSH port (a socket that never speaks) and to the browser
  door (a terminal socket that never says hello); a friend holding a seat
  comes back three times over SSH and three times in a browser, from
  127.0.0.1 too, over the neighbour's last 10 s: how long each takes to be
  back at the table (its lobby on screen, 5 s at most), or what it was told.
- ``zygote``: the warm start process is stopped (SIGSTOP) and a new SSH
  session opens: the host's longest stall while it comes in (websocket ping
  round trips to the table, every 20 ms), how long the session took to its
  lobby, and whether its child started fresh.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import resource
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unicodedata
from pathlib import Path
from typing import Any

import pyte
import websockets

from quackbox.net.client import Client, NetError
from quackbox.net.protocol import PROTOCOL_VERSION, Hello, Wire
from quackbox.net.sshlib import asyncssh

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")
QUACKBOX = str(Path(sys.executable).with_name("quackbox"))
"""The installed command, as a person would run it (not ``python -m``, which imports from the folder)."""
ATTACKS = (
    "planted",
    "keys",
    "idle",
    "squat",
    "addresses",
    "folders",
    "names",
    "halfclosed",
    "resize",
    "descriptors",
    "neighbour",
    "zygote",
)


def log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def rss_mib(pid: int) -> float:
    return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE / 2**20


def children_of(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError):
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry.name))
    return found


class HostProcess:
    """``quackbox host --headless --ssh`` (and ``--web`` with ``web``) in a process of its own, its
    output in a log file; ``nofile``: the descriptor limits (soft, hard) it is started with."""

    def __init__(
        self, work: Path, *args: str, cwd: Path | None = None, web: bool = False, nofile: tuple[int, int] | None = None
    ) -> None:
        self.work = work
        self.args = args + (("--web", "0") if web else ())
        self.cwd = cwd or work
        self.log_path = work / "host.log"
        self.proc: subprocess.Popen[bytes] | None = None
        self.port = self.ssh_port = self.web_port = 0
        self.code = ""
        self.web = web
        self.nofile = nofile

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    @property
    def output(self) -> str:
        return self.log_path.read_text(errors="replace")

    @property
    def players(self) -> Path:
        return self.work / "data" / "ssh-players"

    async def __aenter__(self) -> HostProcess:
        env = {k: v for k, v in os.environ.items() if not k.startswith("QUACKBOX_")}
        env |= {
            "QUACKBOX_DATA_DIR": str(self.work / "data"),
            "QUACKBOX_STATE_DIR": str(self.work / "state"),
            "QUACKBOX_CONFIG_DIR": str(self.work / "config"),
            "PYTHONUNBUFFERED": "1",
        }
        nofile = self.nofile

        def limits() -> None:
            if nofile is not None:
                resource.setrlimit(resource.RLIMIT_NOFILE, nofile)

        with open(self.log_path, "wb") as out:
            self.proc = subprocess.Popen(
                [
                    QUACKBOX,
                    "host",
                    "--headless",
                    "--bind",
                    "127.0.0.1",
                    "--port",
                    "0",
                    "--ssh",
                    "0",
                    "--no-journal",
                    "--again",
                    *self.args,
                ],
                cwd=self.cwd,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=limits if nofile is not None else None,
            )
        deadline = time.monotonic() + 30
        while not self.ssh_port or (self.web and not self.web_port):
            text = self.output
            m, s = re.search(r"on port (\d+)\.", text), re.search(r"ssh -p (\d+) ", text)
            w = re.search(r"Or in a browser: http://127\.0\.0\.1:(\d+)/#(\S+)", text)
            if m and s and (w or not self.web):
                self.port, self.ssh_port = int(m.group(1)), int(s.group(1))
                if w:
                    self.web_port, self.code = int(w.group(1)), w.group(2)
            elif self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the host did not start:\n{text}")
            await asyncio.sleep(0.05)
        if not self.code and (c := re.search(r"Room code: (\S+)", self.output)):
            self.code = c.group(1)
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                await asyncio.to_thread(self.proc.wait, 15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def tracebacks(self) -> int:
        return self.output.count("Traceback (most recent call last)")


class Screen(asyncssh.SSHClientSession):  # type: ignore[type-arg]
    """A player's terminal, drawn by pyte."""

    def __init__(self, cols: int = 80, rows: int = 24, draw: bool = True) -> None:
        self.screen = pyte.Screen(cols, rows) if draw else None
        self.stream = pyte.ByteStream(self.screen) if draw else None
        self.raw = bytearray()
        self.received = 0
        self.closed = asyncio.Event()
        self.chan: Any = None

    def connection_made(self, chan: Any) -> None:
        self.chan = chan

    def data_received(self, data: bytes, datatype: Any) -> None:
        self.received += len(data)
        if len(self.raw) < 65536:
            self.raw += data[: 65536 - len(self.raw)]
        if self.stream is not None:
            self.stream.feed(data)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed.set()

    @property
    def text(self) -> str:
        return "\n".join(self.screen.display) if self.screen is not None else ""

    @property
    def said(self) -> str:
        return self.raw.decode("utf-8", "replace").replace("\r", "").strip()


async def until(check: Any, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.05)
    return True


async def login(port: int, key: asyncssh.SSHKey, user: str = "player", address: str = "127.0.0.1") -> Any:
    return await asyncssh.connect(
        "127.0.0.1",
        port,
        username=user,
        client_keys=[key],
        known_hosts=None,
        agent_path=None,
        config=None,
        local_addr=(address, 0),
    )


async def open_screen(
    conn: Any, *, cols: int = 80, rows: int = 24, command: str | None = None, draw: bool = True
) -> Screen:
    _, screen = await conn.create_session(
        lambda: Screen(cols, rows, draw), command, term_type="xterm-256color", term_size=(cols, rows), encoding=None
    )
    return screen


async def try_session(
    port: int, key: asyncssh.SSHKey, user: str, address: str = "127.0.0.1", wait: float = 60.0
) -> tuple[str, float, Any]:
    """Log in and open a session: ``in`` (its lobby shows it seated or watching), or what it was told."""
    started = time.monotonic()
    try:
        conn = await asyncio.wait_for(login(port, key, user, address), wait)
        screen = await open_screen(conn)
    except (TimeoutError, OSError, asyncssh.Error) as exc:
        return f"failed: {type(exc).__name__}: {exc}".strip(), time.monotonic() - started, None
    await until(lambda: "(you)" in screen.text or "watching" in screen.text or screen.closed.is_set(), wait)
    took = time.monotonic() - started
    if "(you)" in screen.text:
        return "in", took, conn
    conn.close()
    return f"refused: {screen.said[-200:]}", took, None


def keys(count: int) -> list[asyncssh.SSHKey]:
    return [asyncssh.generate_private_key("ssh-ed25519") for _ in range(count)]


# --- the attacks ----------------------------------------------------------------------------


async def planted(work: Path) -> dict[str, Any]:
    """A shared folder (others may write to it) holds a planted quackbox package; the host is started there."""
    shared = work / "shared"
    (shared / "quackbox").mkdir(parents=True)
    marker = work / "planted-ran"
    (shared / "quackbox" / "__init__.py").write_text("")
    (shared / "quackbox" / "__main__.py").write_text(
        "import os, pathlib\n"
        f"found = [str(p) for p in pathlib.Path({str(work / 'data')!r}).rglob('*') if p.is_file()]\n"
        f"pathlib.Path({str(marker)!r}).write_text('\\n'.join(found))\n"
        "raise SystemExit('planted code ran as ' + str(os.getuid()))\n"
    )
    for name in ("textual.py", "msgpack.py", "sitecustomize.py", "websockets.py"):
        (shared / name).write_text(f"open({str(work / ('planted-' + name))!r}, 'w').write('ran')\n")
    async with HostProcess(work, "--seats", "2", cwd=shared) as host:
        [key] = keys(1)
        conn = await login(host.ssh_port, key, "mallory")
        screen = await open_screen(conn)
        await until(lambda: "(you)" in screen.text or screen.closed.is_set(), 60)
        ran = marker.exists()
        others = sorted(p.name for p in work.glob("planted-*.py"))
        out = {
            "planted_quackbox_ran": ran,
            "files_it_could_read": len(marker.read_text().splitlines()) if ran else 0,
            "other_planted_modules_ran": others,
            "player_saw": "the lobby" if "(you)" in screen.text else screen.said[-300:],
            "host_tracebacks": host.tracebacks(),
        }
        conn.close()
    return out


async def key_flood(work: Path, size: int) -> dict[str, Any]:
    """One session typed ``size`` bytes of keys as fast as the door takes them."""
    async with HostProcess(work, "--seats", "3") as host:
        flooder, newcomer_key = keys(2)
        conn = await login(host.ssh_port, flooder, "flood")
        screen = await open_screen(conn)
        await until(lambda: "(you)" in screen.text, 60)
        [child] = children_of(host.pid)
        await asyncio.sleep(1.0)
        rss0, cpu0, host_rss0 = rss_mib(child), cpu_seconds(child), rss_mib(host.pid)
        peak = rss0
        started = time.monotonic()
        sent = 0
        chunk = b"x" * 4096
        while sent < size:
            if screen.closed.is_set():
                break
            if screen.chan.get_write_buffer_size() > 256 * 1024:
                await asyncio.sleep(0.01)
            else:
                screen.chan.write(chunk[: size - sent])
                sent += min(len(chunk), size - sent)
            if sent % (64 * 1024) == 0:
                peak = max(peak, rss_mib(child))
        await until(lambda: screen.chan.get_write_buffer_size() == 0 or screen.closed.is_set(), 600)
        written = time.monotonic() - started
        # Busy until its CPU stops climbing for 2 s (or 300 s have passed).
        last, quiet_since = cpu_seconds(child), time.monotonic()
        while time.monotonic() - quiet_since < 2.0 and time.monotonic() - started < 300:
            await asyncio.sleep(0.25)
            with contextlib.suppress(FileNotFoundError, ProcessLookupError):
                peak = max(peak, rss_mib(child))
                now = cpu_seconds(child)
                if now - last > 0.05:
                    quiet_since = time.monotonic()
                last = now
        busy = time.monotonic() - started - 2.0
        alive = Path(f"/proc/{child}").exists()
        out: dict[str, Any] = {
            "bytes_typed": sent,
            "seconds_to_send": round(written, 1),
            "child_busy_s": round(busy, 1),
            "child_rss_mib": {
                "before": round(rss0, 1),
                "peak": round(peak, 1),
                "after": round(rss_mib(child), 1) if alive else None,
            },
            "child_cpu_s": round(cpu_seconds(child) - cpu0, 1) if alive else None,
            "host_rss_mib_growth": round(rss_mib(host.pid) - host_rss0, 1),
        }
        # The table plays on: a newcomer sits down and shows on the flooded player's screen.
        t0 = time.monotonic()
        result, _, other = await try_session(host.ssh_port, newcomer_key, "zed")
        seen = await until(lambda: "zed" in screen.text, 60)
        out["newcomer"] = result
        out["newcomer_on_flooded_screen_s"] = round(time.monotonic() - t0, 1) if seen else "never (60 s)"
        out["session_still_open"] = not screen.closed.is_set()
        out["host_tracebacks"] = host.tracebacks()
        for c in (conn, other):
            if c is not None:
                c.close()
    return out


async def idle(work: Path) -> dict[str, Any]:
    async with HostProcess(work, "--seats", "3") as host:
        pool = keys(64)
        held: list[Any] = []
        for i in range(64):
            with contextlib.suppress(OSError, asyncssh.Error):
                held.append(await login(host.ssh_port, pool[i % 8], f"idle{i}", f"127.0.0.{2 + i % 8}"))
        result, took, conn = await try_session(host.ssh_port, pool[63], "newcomer", "127.0.0.100", wait=30)
        out: dict[str, Any] = {
            "held_logins": len(held),
            "newcomer_after_held_logins": result,
            "newcomer_s": round(took, 2),
        }
        # Idle connections past their deadline: are they still there?
        await asyncio.sleep(10)
        out["held_logins_still_open_after_10s"] = sum(1 for c in held if not c.is_closed())
        for c in held + ([conn] if conn else []):
            c.close()
        await asyncio.sleep(1)
        socks = []
        for i in range(64):
            with contextlib.suppress(OSError):
                socks.append(
                    await asyncio.open_connection("127.0.0.1", host.ssh_port, local_addr=(f"127.0.0.{2 + i % 8}", 0))
                )
        t0 = time.monotonic()
        verdict = "never (40 s)"
        while time.monotonic() - t0 < 40:
            result, _, conn = await try_session(host.ssh_port, pool[62], "newcomer2", "127.0.0.101", wait=10)
            if result == "in":
                verdict = f"in after {time.monotonic() - t0:.1f} s"
                conn.close()
                break
            await asyncio.sleep(1)
        out["raw_sockets"] = len(socks)
        out["newcomer_after_raw_sockets"] = verdict
        for _, writer in socks:
            writer.close()
        await asyncio.sleep(1)
        # A storm of logins from one address for 5 s, 16 at a time.
        done = refused = 0
        cpu0, t0 = cpu_seconds(host.pid), time.monotonic()

        async def storm() -> None:
            nonlocal done, refused
            while time.monotonic() - t0 < 5:
                try:
                    c = await login(host.ssh_port, pool[0], "storm")
                    done += 1
                    c.close()
                except (OSError, asyncssh.Error):
                    refused += 1

        await asyncio.gather(*(storm() for _ in range(16)))
        wall = time.monotonic() - t0
        out["storm"] = {
            "logins_per_s": round(done / wall),
            "refused_per_s": round(refused / wall),
            "host_cpu_pct": round(100 * (cpu_seconds(host.pid) - cpu0) / wall),
        }
        await asyncio.sleep(1)
        result, took, conn = await try_session(host.ssh_port, pool[61], "after-storm", "127.0.0.102", wait=30)
        out["newcomer_after_storm"] = result
        if conn:
            conn.close()
        out["host_tracebacks"] = host.tracebacks()
    return out


async def squat(work: Path) -> dict[str, Any]:
    async with HostProcess(work, "--seats", "3") as host:
        pool = keys(5)
        for i in range(3):
            result, _, conn = await try_session(host.ssh_port, pool[i], f"squat{i}")
            if conn:
                conn.close()
        await asyncio.sleep(1)
        out: dict[str, Any] = {}
        for when in ("at_once", "after_25s"):
            if when == "after_25s":
                await asyncio.sleep(25)
            result, _, conn = await try_session(host.ssh_port, pool[3 if when == "at_once" else 4], f"new-{when}")
            out[f"ssh_newcomer_{when}"] = result
            if conn:
                conn.close()
                await asyncio.sleep(1)
            try:
                client = await Client.connect(host.url, name=f"ws-{when}", reconnect=False)
                out[f"websocket_newcomer_{when}"] = f"in, seat {client.seat}"
                await client.close()
                await asyncio.sleep(0.5)
            except NetError as exc:
                out[f"websocket_newcomer_{when}"] = f"refused: {exc}"
        out["host_tracebacks"] = host.tracebacks()
    return out


async def addresses(work: Path) -> dict[str, Any]:
    out: dict[str, Any] = {}
    async with HostProcess(work, "--seats", "8") as host:
        pool = keys(7)
        results = await asyncio.gather(
            *(try_session(host.ssh_port, pool[i], f"addr{i}", f"127.0.0.{2 + i}", 120) for i in range(7))
        )
        out["seated_from_7_addresses"] = sum(1 for r, _, _ in results if r == "in")
        for _, _, conn in results:
            if conn:
                conn.close()
    (work / "again").mkdir()
    async with HostProcess(work / "again", "--seats", "3") as host:
        alice, bob, carol = keys(3)
        result, _, conn = await try_session(host.ssh_port, alice, "alice")
        watchers = []
        for key, name in ((bob, "bob"), (carol, "carol")):
            # Friends behind the same address watch: two sessions of the address besides alice's.
            c = await login(host.ssh_port, key, name)
            s = await open_screen(c, command="spectate")
            await until(lambda s=s: "alice" in s.text or s.closed.is_set(), 60)
            watchers.append(c)
            if conn is not None:
                conn.abort()  # alice's network drops
                conn = None
                await asyncio.sleep(2)
        out["friends_watching_from_that_address"] = sum(1 for c in watchers if not c.is_closed())
        result, _, conn = await try_session(host.ssh_port, alice, "alice")
        out["seated_key_back_beside_2_sessions_of_its_address"] = result
        for c in watchers + ([conn] if conn else []):
            c.close()
        out["host_tracebacks"] = host.tracebacks()
    return out


async def folders(work: Path) -> dict[str, Any]:
    async with HostProcess(work, "--seats", "2", "--bots", "2") as host:
        pool = keys(150)
        t0 = time.monotonic()
        told = set()

        async def one(i: int) -> None:
            result, _, conn = await try_session(host.ssh_port, pool[i], f"k{i}", f"127.0.1.{1 + i % 200}", 30)
            told.add(result.split(":")[0])
            if conn:
                conn.close()

        for start in range(0, 150, 10):
            await asyncio.gather(*(one(i) for i in range(start, min(start + 10, 150))))
        made = sum(1 for p in host.players.iterdir() if p.is_dir()) if host.players.exists() else 0
        return {
            "refused_keys": 150,
            "seconds": round(time.monotonic() - t0, 1),
            "folders_made": made,
            "answers": sorted(told),
            "host_tracebacks": host.tracebacks(),
        }


def _name_figures() -> dict[str, Any]:
    """Default-ignorable code points that pass the cleaning and the duplicate check beside "Alice"."""
    try:
        from quackbox.net import text as hygiene  # after: the text module

        keys_of = hygiene.name_keys
        clean_name = hygiene.clean_name
    except ImportError:
        from quackbox.net import protocol as hygiene

        def keys_of(name: str) -> frozenset[str]:
            return frozenset({hygiene.name_key(name)})

        clean_name = hygiene.clean_name
    ignorable = [
        (0xAD, 0xAD),
        (0x34F, 0x34F),
        (0x61C, 0x61C),
        (0x115F, 0x1160),
        (0x17B4, 0x17B5),
        (0x180B, 0x180F),
        (0x200B, 0x200F),
        (0x202A, 0x202E),
        (0x2060, 0x206F),
        (0x3164, 0x3164),
        (0xFE00, 0xFE0F),
        (0xFEFF, 0xFEFF),
        (0xFFA0, 0xFFA0),
        (0xFFF0, 0xFFF8),
        (0x1BCA0, 0x1BCA3),
        (0x1D173, 0x1D17A),
        (0xE0000, 0xE0FFF),
    ]
    base = keys_of("Alice")
    points = [chr(c) for a, b in ignorable for c in range(a, b + 1)]
    passing = [c for c in points if clean_name(f"Alic{c}e") != "Alice" and not keys_of(f"Alic{c}e") & base]
    assigned = [c for c in passing if unicodedata.category(c) != "Cn"]
    lookalikes = ["Аlice", "A1ice", "ALICE", "AIice", "Alıce", "Ａｌｉｃｅ", "Al\u0456ce", "Alice\u200b"]
    return {
        "default_ignorable_passing": len(passing),
        "of_them_assigned": len(assigned),
        "lookalikes_of_Alice_let_through": [n for n in lookalikes if not keys_of(n) & base],
    }


async def names(work: Path) -> dict[str, Any]:
    async with HostProcess(work, "--seats", "5") as host:
        alice, twin = keys(2)
        conns = []
        for key, user in ((alice, "alice"), (twin, "alic\u17b4e")):
            result, _, conn = await try_session(host.ssh_port, key, user)
            conns.append(conn)
        clients = []
        for name in ("Alice", "Alic\ufe0fe"):
            with contextlib.suppress(NetError):
                clients.append(await Client.connect(host.url, name=name, reconnect=False))
        watcher = await Client.connect(host.url, name="watcher", spectate=True, reconnect=False)
        await until(lambda: watcher.lobby is not None and sum(1 for s in watcher.lobby.seats if s.name) >= 4, 10)
        seated = [s.name for s in watcher.lobby.seats if s.name] if watcher.lobby else []
        for c in clients + [watcher]:
            await c.close()
        for c in conns:
            if c:
                c.close()
        return {
            "names_at_the_table": seated,
            "look_the_same_yet_accepted": [
                n
                for n in seated
                if n not in ("alice", "Alice")
                and unicodedata.normalize("NFKC", n).casefold().replace("\u17b4", "").replace("\ufe0f", "") == "alice"
            ],
            **_name_figures(),
            "host_tracebacks": host.tracebacks(),
        }


async def halfclosed(work: Path) -> dict[str, Any]:
    if shutil.which("ssh") is None:
        return {"skipped": "no OpenSSH client"}
    async with HostProcess(work, "--seats", "2", "--bots", "2", "--autostart", "--bot-delay", "0.3") as host:
        [key] = keys(1)
        key_file = work / "id_ed25519"
        key_file.write_bytes(key.export_private_key())
        key_file.chmod(0o600)
        proc = subprocess.Popen(
            [
                "ssh",
                "-tt",
                "-F",
                "/dev/null",
                "-p",
                str(host.ssh_port),
                "-i",
                str(key_file),
                "-o",
                "BatchMode=yes",
                "-o",
                "IdentitiesOnly=yes",
                "-o",
                "StrictHostKeyChecking=no",
                "-o",
                "UserKnownHostsFile=/dev/null",
                "-o",
                "LogLevel=ERROR",
                "eve@127.0.0.1",
                "spectate",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        t0 = time.monotonic()
        ended = await until(lambda: proc.poll() is not None, 30)
        out = {
            "session_ended_by_itself": ended,
            "after_s": round(time.monotonic() - t0, 1) if ended else None,
            "children_left": len(children_of(host.pid)),
            "host_tracebacks": host.tracebacks(),
            "broken_pipe_lines": host.output.count("BrokenPipeError"),
        }
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return out


async def resize(work: Path) -> dict[str, Any]:
    out: dict[str, Any] = {}
    async with HostProcess(work, "--seats", "3") as host:
        [key, big_key] = keys(2)
        conn = await login(host.ssh_port, key, "resizer")
        screen = await open_screen(conn, draw=False)
        await asyncio.sleep(3)
        [child] = children_of(host.pid)
        stalls: list[float] = []
        async with websockets.connect(host.url) as ws:
            await ws.send(Wire(None).encode(Hello(version=PROTOCOL_VERSION, name="pinger", spectate=True)))
            stop = asyncio.Event()

            async def drain() -> None:
                with contextlib.suppress(websockets.ConnectionClosed):
                    async for _ in ws:
                        pass

            drainer = asyncio.create_task(drain())

            async def ping() -> None:
                while not stop.is_set():
                    t = time.monotonic()
                    await (await ws.ping())
                    stalls.append(time.monotonic() - t)
                    await asyncio.sleep(0.05)

            pinger = asyncio.create_task(ping())
            await asyncio.sleep(1)
            quiet = max(stalls) if stalls else 0.0
            stalls.clear()
            cpu0, child0, t0 = cpu_seconds(host.pid), cpu_seconds(child), time.monotonic()
            for i in range(20000):
                screen.chan.change_terminal_size(80 + i % 40, 24 + i % 10)
                if i % 20 == 0:
                    await asyncio.sleep(0.01)
            await until(lambda: time.monotonic() - t0 >= 10, 30)
            wall = time.monotonic() - t0
            stop.set()
            await pinger
            drainer.cancel()
        out["window_changes"] = 20000
        out["seconds"] = round(wall, 1)
        out["host_cpu_pct"] = round(100 * (cpu_seconds(host.pid) - cpu0) / wall)
        out["child_cpu_pct"] = (
            round(100 * (cpu_seconds(child) - child0) / wall) if Path(f"/proc/{child}").exists() else None
        )
        out["host_longest_stall_s"] = round(max(stalls), 3) if stalls else None
        out["host_longest_stall_quiet_s"] = round(quiet, 3)
        conn.close()
        await asyncio.sleep(2)
        big = await login(host.ssh_port, big_key, "giant")
        huge = await open_screen(big, cols=1000, rows=1000, draw=False)
        await asyncio.sleep(8)
        children = children_of(host.pid)
        out["terminal_1000x1000"] = {
            "bytes_in_8s": huge.received,
            "child_rss_mib": round(rss_mib(children[0]), 1) if children else None,
        }
        big.close()
        out["host_tracebacks"] = host.tracebacks()
    return out


# --- descriptors, a neighbour on the same address, a stopped zygote ---------------------------


def open_fds(pid: int) -> int:
    with contextlib.suppress(OSError):
        return len(os.listdir(f"/proc/{pid}/fd"))
    return 0


def raise_own_limit() -> None:
    """The bench holds more connections than a soft limit of 1024 allows."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


async def table_hello(host: HostProcess, wait: float = 10.0) -> str | float:
    """Seconds until a spectator's hello with the right code is welcomed at the table's own port,
    or what went wrong."""
    started = time.monotonic()
    try:
        client = await asyncio.wait_for(
            Client.connect(host.url, name="friend", code=host.code or None, spectate=True, reconnect=False), wait
        )
    except TimeoutError:
        return f"no welcome within {wait:g} s"
    except (NetError, OSError) as exc:
        return f"refused: {exc}"
    took = time.monotonic() - started
    await client.close()
    return round(took, 3)


async def http_fetch(port: int, path: str, wait: float) -> bytes:
    reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), wait)
    try:
        writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept-Encoding: gzip\r\n\r\n".encode())
        return await asyncio.wait_for(reader.read(), wait)
    finally:
        writer.close()


async def page_load(port: int, wait: float = 10.0) -> str | float:
    """Seconds to fetch the page and every file it names, one connection each, as a browser
    does here (the door closes each after its answer); or what went wrong."""
    started = time.monotonic()
    try:
        for path in (
            "/",
            "/door.css",
            "/vendor/xterm.css",
            "/vendor/xterm.js",
            "/vendor/addon-fit.js",
            "/door.js",
            "/favicon.svg",
        ):
            left = wait - (time.monotonic() - started)
            answer = await http_fetch(port, path, max(left, 0.01))
            if not answer.startswith(b"HTTP/1.1 200 "):
                return f"{path}: {answer[:40]!r}"
    except TimeoutError:
        return f"not loaded within {wait:g} s"
    except OSError as exc:
        return f"failed: {exc}"
    return round(time.monotonic() - started, 3)


class Tab:
    """A browser's terminal socket at the door, its screen drawn by pyte."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.screen = pyte.Screen(80, 24)
        self.stream = pyte.ByteStream(self.screen)
        self.closed = asyncio.Event()
        self.reader = asyncio.get_running_loop().create_task(self._read())

    @classmethod
    async def open(cls, port: int, code: str, page_id: str, name: str, *, watch: bool = False) -> Tab:
        ws = await websockets.connect(f"ws://127.0.0.1:{port}/term", origin=f"http://127.0.0.1:{port}", max_size=None)
        with contextlib.suppress(websockets.ConnectionClosed):  # closed before the hello: said by its close
            await ws.send(
                json.dumps(
                    {"hello": 1, "code": code, "id": page_id, "name": name, "watch": watch, "cols": 80, "rows": 24}
                )
            )
        return cls(ws)

    async def _read(self) -> None:
        with contextlib.suppress(websockets.ConnectionClosed):
            async for message in self.ws:
                if isinstance(message, bytes):
                    self.stream.feed(message)
        self.closed.set()

    @property
    def text(self) -> str:
        return "\n".join(self.screen.display)

    async def close(self) -> None:
        await self.ws.close()
        self.reader.cancel()


async def tab_session(port: int, code: str, page_id: str, name: str, wait: float) -> tuple[str, float]:
    """Open a tab with ``page_id`` and wait for its lobby: ``in`` (its seat on screen), or what it was told."""
    started = time.monotonic()
    try:
        tab = await asyncio.wait_for(Tab.open(port, code, page_id, name), wait)
    except (TimeoutError, OSError, websockets.InvalidHandshake) as exc:
        return f"failed: {type(exc).__name__}: {exc}", time.monotonic() - started
    await until(lambda: "(you)" in tab.text or tab.closed.is_set(), wait)
    took = time.monotonic() - started
    if "(you)" in tab.text:
        await tab.close()
        return "in", took
    reason = (
        f"closed {tab.ws.close_code}: {tab.ws.close_reason}" if tab.closed.is_set() else f"not in within {wait:g} s"
    )
    await tab.close()
    return reason, took


async def descriptors(work: Path) -> dict[str, Any]:
    raise_own_limit()
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    out: dict[str, Any] = {}
    for label, nofile in (("soft_1024", (1024, hard)), ("soft_and_hard_1024", (1024, 1024))):
        folder = work / label
        folder.mkdir()
        log(f"  descriptors: {label}")
        out[label] = await _half_sent_flood(folder, nofile)
    return out


DRIBBLER = """
import asyncio, json, resource, sys, time
port, count, seconds = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
opened = closed_by_host = 0
async def dribbler(stop):
    global opened, closed_by_host
    while time.monotonic() < stop:
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port),
                                                    max(0.01, stop - time.monotonic()))
        except (OSError, asyncio.TimeoutError):
            await asyncio.sleep(0.5)
            continue
        opened += 1
        try:
            writer.write(b"GET / HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nX-Dribble: ")
            while time.monotonic() < stop:
                writer.write(b"x")
                await writer.drain()
                try:
                    if not await asyncio.wait_for(reader.read(1024), 2.0):
                        closed_by_host += 1
                        break
                except asyncio.TimeoutError:
                    continue
        except OSError:
            closed_by_host += 1
        finally:
            writer.close()
async def main():
    stop = time.monotonic() + seconds
    await asyncio.gather(*(dribbler(stop) for _ in range(count)))
asyncio.run(main())
print(json.dumps({"opened": opened, "closed_by_host": closed_by_host}))
"""
"""The neighbour's half-sent requests, in a process of its own (as a neighbour's would be): each
of ``count`` connections sends part of a request's head, then a byte every 2 s, and is opened
again as soon as the host closes it."""


async def _half_sent_flood(
    work: Path, nofile: tuple[int, int], count: int = 1100, seconds: float = 30.0
) -> dict[str, Any]:
    async with HostProcess(work, web=True, nofile=nofile) as host:
        await asyncio.sleep(2)  # the warm start process gets ready
        log_before = host.log_path.stat().st_size
        fds_before = open_fds(host.pid)
        started = time.monotonic()
        stop = started + seconds
        flood = await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            DRIBBLER,
            str(host.web_port),
            str(count),
            str(seconds),
            stdout=subprocess.PIPE,
            start_new_session=True,
        )
        peak = fds_before

        async def sample() -> None:
            nonlocal peak
            while time.monotonic() < stop:
                peak = max(peak, open_fds(host.pid))
                await asyncio.sleep(0.25)

        sampler = asyncio.create_task(sample())
        await asyncio.sleep(5)  # the flood is in place
        hellos, pages = [], []
        for _ in range(3):
            hellos.append(await table_hello(host))
            pages.append(await page_load(host.web_port))
            await asyncio.sleep(max(0.0, min(6.0, stop - time.monotonic() - 8)))
        session, took = await tab_session(host.web_port, host.code, secrets.token_hex(32), "wendy", 10)
        said, _ = await flood.communicate()
        await sampler
        await asyncio.sleep(1)
        text = host.output
        grown = host.log_path.stat().st_size - log_before
        dribbled = json.loads(said or b"{}")
        result = {
            "host_soft_limit_started_with": nofile[0],
            "host_soft_limit_running": _soft_limit(host.pid),
            "half_sent_requests_held": count,
            "connections_opened": dribbled.get("opened"),
            "closed_by_host": dribbled.get("closed_by_host"),
            "host_fds_before": fds_before,
            "host_fds_peak": peak,
            "table_hello_s": hellos,
            "page_load_s": pages,
            "browser_session": f"{session} after {took:.2f} s",
            "log_growth_bytes": grown,
            "log_errno_24_lines": text.count("[Errno 24]"),
            "host_tracebacks": host.tracebacks(),
        }
    return result


def _soft_limit(pid: int) -> int | None:
    with contextlib.suppress(OSError, StopIteration):
        line = next(
            line for line in Path(f"/proc/{pid}/limits").read_text().splitlines() if line.startswith("Max open files")
        )
        return int(line.split()[3])
    return None


async def neighbour(work: Path) -> dict[str, Any]:
    async with HostProcess(work, "--seats", "3", web=True) as host:
        [key] = keys(1)
        page_id = secrets.token_hex(32)
        # The friend takes a seat both ways, then leaves: the seats wait for them.
        result, _, conn = await try_session(host.ssh_port, key, "sam")
        out: dict[str, Any] = {"ssh_seat_taken": result}
        if conn:
            conn.close()
        result, _ = await tab_session(host.web_port, host.code, page_id, "wendy", 60)
        out["browser_seat_taken"] = result
        held: list[Any] = []
        opened = {"ssh": 0, "browser": 0}
        stop = time.monotonic() + 20.0

        async def neighbourly() -> None:
            while time.monotonic() < stop:
                with contextlib.suppress(OSError, asyncio.TimeoutError):
                    held.append((await asyncio.wait_for(asyncio.open_connection("127.0.0.1", host.ssh_port), 2))[1])
                    opened["ssh"] += 1
                with contextlib.suppress(OSError, asyncio.TimeoutError, websockets.InvalidHandshake):
                    held.append(
                        await asyncio.wait_for(
                            websockets.connect(
                                f"ws://127.0.0.1:{host.web_port}/term", origin=f"http://127.0.0.1:{host.web_port}"
                            ),
                            2,
                        )
                    )
                    opened["browser"] += 1
                await asyncio.sleep(0.5)

        noise = asyncio.create_task(neighbourly())
        await asyncio.sleep(10)
        ssh_tries, browser_tries = [], []
        for _ in range(3):
            result, took, conn = await try_session(host.ssh_port, key, "sam", wait=5)
            ssh_tries.append(f"{result} after {took:.2f} s")
            if conn:
                conn.close()
            result, took = await tab_session(host.web_port, host.code, page_id, "wendy", 5)
            browser_tries.append(f"{result} after {took:.2f} s")
            await asyncio.sleep(2.5)  # the tries spread over the neighbour's last 10 s
        await noise
        for item in held:
            with contextlib.suppress(Exception):
                if isinstance(item, asyncio.StreamWriter):
                    item.close()
                else:
                    await item.close()
        out |= {
            "neighbour_connections": opened,
            "friend_over_ssh": ssh_tries,
            "friend_in_browser": browser_tries,
            "ssh_back_within_5s": sum(1 for t in ssh_tries if t.startswith("in ")),
            "browser_back_within_5s": sum(1 for t in browser_tries if t.startswith("in ")),
            "host_tracebacks": host.tracebacks(),
        }
    return out


def cmdline(pid: int) -> str:
    with contextlib.suppress(OSError):
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    return ""


def parent_of(pid: int) -> int | None:
    with contextlib.suppress(OSError, IndexError, ValueError):
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    return None


async def zygote(work: Path) -> dict[str, Any]:
    async with HostProcess(work, "--seats", "3") as host:
        if not await until(lambda: re.search(r"warm start process \d+ ready", host.output), 60):
            return {"skipped": "no warm start process got ready"}
        [stuck] = [pid for pid in children_of(host.pid) if "quackbox.net.zygote" in cmdline(pid)]
        [key] = keys(1)
        stalls: list[float] = []
        async with websockets.connect(host.url) as ws:
            await ws.send(Wire(None).encode(Hello(version=PROTOCOL_VERSION, name="pinger", spectate=True)))
            done = asyncio.Event()

            async def drain() -> None:
                with contextlib.suppress(websockets.ConnectionClosed):
                    async for _ in ws:
                        pass

            async def ping() -> None:
                while not done.is_set():
                    t = time.monotonic()
                    await (await ws.ping())
                    stalls.append(time.monotonic() - t)
                    await asyncio.sleep(0.02)

            drainer, pinger = asyncio.create_task(drain()), asyncio.create_task(ping())
            await asyncio.sleep(1)
            quiet = max(stalls) if stalls else 0.0
            stalls.clear()
            os.kill(stuck, signal.SIGSTOP)
            result, took, conn = await try_session(host.ssh_port, key, "late", wait=30)
            await asyncio.sleep(0.5)
            done.set()
            await pinger
            drainer.cancel()
        children = [pid for pid in children_of(host.pid) if "quackbox.net.zygote" not in cmdline(pid)]
        grandchildren = children_of(stuck)
        started = "fresh" if children else ("warm (forked by the stopped process)" if grandchildren else "none")
        out = {
            "session": result,
            "session_in_s": round(took, 2),
            "child_started": started,
            "loop_longest_stall_s": round(max(stalls), 3) if stalls else None,
            "loop_longest_stall_quiet_s": round(quiet, 3),
            "stopped_process_given_up": not Path(f"/proc/{stuck}").exists() or parent_of(stuck) != host.pid,
            "host_tracebacks": host.tracebacks(),
        }
        with contextlib.suppress(ProcessLookupError):
            os.kill(stuck, signal.SIGCONT)
        if conn:
            conn.close()
    return out


async def run(attacks: list[str], flood_bytes: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for attack in attacks:
        log(f"{attack}...")
        with tempfile.TemporaryDirectory(prefix=f"bench-doors-{attack}-") as folder:
            work = Path(folder)
            if attack == "keys":
                out[attack] = await key_flood(work, flood_bytes)
            else:
                out[attack] = await globals()[attack](work)
        log(json.dumps(out[attack]))
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.doors", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "attacks", nargs="*", metavar="ATTACK", help="which attacks (default all): " + ", ".join(ATTACKS)
    )
    parser.add_argument("--flood-bytes", type=int, default=1024 * 1024, help="keys typed in 'keys' (default 1 MiB)")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.attacks) - set(ATTACKS))
    if unknown:
        parser.error(f"no attack {', '.join(unknown)}; choose from {', '.join(ATTACKS)}")
    print(json.dumps(asyncio.run(run(args.attacks or list(ATTACKS), args.flood_bytes)), indent=2))


if __name__ == "__main__":
    main()
