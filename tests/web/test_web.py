"""The browser door (net.web) over real sockets, without a browser: the page, who may open the
terminal socket, the room code, the session's child and the door's limits.

A host and its browser door run in the test's loop on 127.0.0.1 port 0. A
page is played by a websockets client speaking the page's protocol (see
net/web.py), its screen read through pyte as xterm.js would draw it. Tests
that need the real table run the real ``quackbox join`` child; the rest run
the SSH tests' small stand-in (``tests/net/ssh_stub.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import gc
import gzip
import hashlib
import json
import re
import secrets
import socket
import sys
import weakref
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, AsyncIterator, Callable

import pyte
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from quackbox.door_child import join_program
from quackbox.net import web
from quackbox.net.door_launch import Launch, child_environment
from quackbox.net.door_policy import COMING_IN, CROWDED, TOO_FAST, DoorLimits, no_session_sentence
from quackbox.net.host import Host, HostConfig
from quackbox.net.limits import SLOW_FREE
from quackbox.net.protocol import HUMAN
from quackbox.net.web import WebConfig, WebError, WebServer, browser_key
from quackbox.net.web_http import CSP
from tests.net.test_ssh import CHILD_START, _descendants_of, gone, until
from tests.net.test_ssh_hostile import hold_seat
from tests.terminal_host import seated_host
from tests.waiting import Changes, Clock

ROOT = Path(__file__).resolve().parents[2]
STUB = str(ROOT / "tests" / "net" / "ssh_stub.py")
CODE = "KQXZ-BDFG"


def stub(mode: str = "hold") -> Callable[[Launch], list[str]]:
    return lambda launch: [sys.executable, STUB, mode]


def new_id() -> str:
    return secrets.token_hex(32)


@contextlib.asynccontextmanager
async def table(
    tmp_path: Path, *, door: dict[str, Any] | None = None, **host: Any
) -> AsyncIterator[tuple[Host, WebServer]]:
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
            "code": CODE,
            **host,
        }
    )
    config_of_door = web_config(tmp_path, **(door or {}))
    async with Host(config) as running, WebServer(config_of_door, running) as server:
        if config_of_door.warm:  # the children are forked warm from the first session on
            assert await asyncio.wait_for(server.door.wait_warm(), 60)
        yield running, server


def web_config(tmp_path: Path, **options: Any) -> WebConfig:
    """A browser door on 127.0.0.1 port 0 with its folders under ``tmp_path``; ``options`` are
    WebConfig's fields or the door's limits (a hang-up grace of 1 s unless given). Children start
    fresh unless ``warm=True`` (see tests/net/test_ssh.py's door_config)."""
    names = {f.name for f in dataclasses.fields(DoorLimits)}
    limits = DoorLimits(**{"hangup_grace": 1.0, **{k: v for k, v in options.items() if k in names}})
    rest = {k: v for k, v in options.items() if k not in names}
    return WebConfig(
        **{
            "port": 0,
            "bind": "127.0.0.1",
            "players_dir": str(tmp_path / "players"),
            "limits": limits,
            "warm": False,
            "program": join_program(),
            **rest,
        }
    )


class Tab:
    """A browser tab with the table's page, as the page's script talks to the door."""

    def __init__(self, ws: ClientConnection, cols: int, rows: int) -> None:
        self.ws = ws
        self.screen = pyte.Screen(cols, rows)
        self.stream = pyte.ByteStream(self.screen)
        self.raw = bytearray()
        self.closed = asyncio.Event()
        self.changes = Changes()
        """Told of each message the door sends, and of the socket's close."""
        self._reader = asyncio.get_running_loop().create_task(self._read())

    @classmethod
    async def open(
        cls,
        server: WebServer,
        *,
        code: str = CODE,
        page_id: str | None = None,
        name: str = "ann",
        watch: bool = False,
        cols: int = 80,
        rows: int = 24,
        local: str = "127.0.0.1",
    ) -> Tab:
        ws = await connect(
            f"ws://127.0.0.1:{server.port}/term",
            origin=f"http://127.0.0.1:{server.port}",
            max_size=None,
            compression=None,
            local_addr=(local, 0),
        )
        await ws.send(
            json.dumps(
                {
                    "hello": 1,
                    "code": code,
                    "id": page_id or new_id(),
                    "name": name,
                    "watch": watch,
                    "cols": cols,
                    "rows": rows,
                }
            )
        )
        return cls(ws, cols, rows)

    async def _read(self) -> None:
        try:
            async for message in self.ws:
                if isinstance(message, bytes):
                    self.raw += message
                    self.stream.feed(message)
                    self.changes.changed()
        except ConnectionClosed:
            pass
        self.closed.set()
        self.changes.changed()

    @property
    def text(self) -> str:
        return "\n".join(self.screen.display)

    @property
    def said(self) -> str:
        return self.raw.decode("utf-8", "replace")

    @property
    def close(self) -> tuple[int | None, str | None]:
        """The close code and reason the door gave."""
        return self.ws.close_code, self.ws.close_reason

    async def wait_for(self, needle: str, timeout: float = CHILD_START, *, raw: bool = False) -> None:
        try:
            await self.changes.until(lambda: needle in (self.said if raw else self.text), timeout)
        except AssertionError:
            shown = self.said[-2000:] if raw else self.text
            raise AssertionError(f"{needle!r} never appeared; the screen:\n{shown}") from None

    async def ended(self, timeout: float = 10) -> tuple[int | None, str | None]:
        await asyncio.wait_for(self.closed.wait(), timeout)
        return self.close

    async def press(self, keys: str) -> None:
        await self.ws.send(keys.encode())

    async def resize(self, cols: int, rows: int) -> None:
        self.screen.resize(rows, cols)
        await self.ws.send(json.dumps({"resize": [cols, rows]}))


async def http_get(
    port: int, path: str, host: str | None = None, method: str = "GET", **headers: str
) -> tuple[int, dict[str, str], bytes]:
    """One request over a plain socket, as a browser sends it: the status, headers (lower case) and body."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host or f'127.0.0.1:{port}'}"]
    lines += [f"{k.replace('_', '-')}: {v}" for k, v in headers.items()]
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
    data = await asyncio.wait_for(reader.read(), 10)
    writer.close()
    head, _, body = data.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    found = {}
    for line in header_lines:
        name, _, value = line.partition(":")
        found[name.strip().lower()] = value.strip()
    return int(status_line.split()[1]), found, body


# --- the page ---------------------------------------------------------------------------------


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.links += [value for name, value in attrs if name in ("src", "href") and value is not None]


async def test_the_page_and_everything_it_names_come_from_the_host_with_the_policy(tmp_path: Path) -> None:
    async with table(tmp_path, door={"command": stub()}) as (host, server):
        status, headers, body = await http_get(server.port, "/", accept_encoding="gzip")
        assert status == 200 and headers["content-encoding"] == "gzip"
        assert headers["content-security-policy"] == CSP and CSP.startswith("default-src 'self';")
        html = gzip.decompress(body).decode()
        parser = _Links()
        parser.feed(html)
        assert parser.links and all(not re.match(r"^([a-z]+:|//|/)", link) for link in parser.links), parser.links
        for link in parser.links:
            status, headers, body = await http_get(server.port, "/" + link)
            assert status == 200, link
            assert headers["content-security-policy"] == CSP and headers["x-content-type-options"] == "nosniff"
            assert int(headers["content-length"]) == len(body) > 0
        assert "server" not in headers  # no version to fingerprint


async def test_head_gets_the_headers_alone_and_other_methods_405(tmp_path: Path) -> None:
    async with table(tmp_path, door={"command": stub()}) as (host, server):
        status, headers, body = await http_get(server.port, "/", method="HEAD")
        assert status == 200 and body == b"" and int(headers["content-length"]) > 0
        assert headers["x-frame-options"] == "DENY" and "camera=()" in headers["permissions-policy"]
        for method in ("POST", "OPTIONS", "DELETE"):
            status, headers, body = await http_get(server.port, "/", method=method, content_length="0")
            assert status == 405 and headers["allow"] == "GET, HEAD" and int(headers["content-length"]) == len(body)
        assert server.door.keeper.strangers() == [] and server.children == []


async def test_a_host_name_the_table_never_announced_is_refused(tmp_path: Path) -> None:
    """DNS rebinding: a page of another site whose name was pointed at this machine asks with that
    name, for the page and for the socket; both are refused before anything else."""
    async with table(tmp_path, door={"command": stub()}) as (host, server):
        for path in ("/", "/term"):
            status, _, body = await http_get(
                server.port, path, host=f"evil.example:{server.port}", origin=f"http://evil.example:{server.port}"
            )
            assert status == 421 and b"address it gave" in body
        for name in (f"localhost:{server.port}", f"[::1]:{server.port}"):
            assert (await http_get(server.port, "/", host=name))[0] == 200
        assert server.door.keeper.strangers() == []


async def test_another_sites_page_cannot_open_the_terminal_socket(tmp_path: Path) -> None:
    async with table(tmp_path, door={"command": stub()}) as (host, server):
        for origin in ("http://evil.example", f"http://127.0.0.1:{server.port + 1}", "null"):
            with pytest.raises(InvalidStatus) as refused:
                await connect(f"ws://127.0.0.1:{server.port}/term", origin=origin)
            assert refused.value.response.status_code == 403
        with pytest.raises(InvalidStatus):
            await connect(f"ws://127.0.0.1:{server.port}/term")  # no Origin at all: no browser's page
        assert server.door.keeper.strangers() == [] and server.children == []


# --- the room code ----------------------------------------------------------------------------


async def test_a_wrong_code_is_closed_with_a_sentence_and_starts_nothing(tmp_path: Path) -> None:
    async with table(tmp_path, door={"command": stub()}) as (host, server):
        for code, sentence in (("ZZZZ-ZZZZ", web.BAD_CODE), ("", web.NO_CODE)):
            tab = await Tab.open(server, code=code)
            assert await tab.ended() == (web.WRONG_CODE, sentence)
        assert server.sessions == [] and server.children == []
        assert list((tmp_path / "players").iterdir()) == []
        # The code is read as the table reads it: any case, spaces and dashes as they come.
        tab = await Tab.open(server, code=" kqxz bdfg ")
        await tab.wait_for("ready", raw=True, timeout=10)


async def test_wrong_codes_from_one_address_are_answered_ever_later(tmp_path: Path) -> None:
    """As the table answers wrong codes: a few at once, then each a second later than the last.
    Told by order: the first few are each answered before the next is sent; the one after them
    is still unanswered when a wrong code from another address, sent after it, has its answer."""
    async with table(tmp_path, door={"command": stub(), "connection_burst": 100}) as (host, server):
        for _ in range(SLOW_FREE):
            tab = await Tab.open(server, code="WRONG", local="127.0.0.9")
            assert (await tab.ended(15))[0] == web.WRONG_CODE
        held = await Tab.open(server, code="WRONG", local="127.0.0.9")
        await until(lambda: server.wrong_tries.tries("127.0.0.9") > SLOW_FREE, timeout=10, what="its code judged")
        other = await Tab.open(server, code="WRONG", local="127.0.0.10")  # another address: not held
        assert (await other.ended(15))[0] == web.WRONG_CODE
        assert not held.closed.is_set()  # held back (a second)
        assert (await held.ended(15))[0] == web.WRONG_CODE


@pytest.mark.parametrize(
    "hello",
    [
        b"binary first",
        "not json",
        json.dumps({"hello": 2}),
        json.dumps({"hello": 1, "code": CODE, "id": "short", "name": "x"}),
        json.dumps({"hello": 1, "code": CODE, "id": "ab" * 32, "watch": "yes"}),
    ],
)
async def test_a_first_message_that_is_no_hello_is_refused(tmp_path: Path, hello: Any) -> None:
    async with table(tmp_path, door={"command": stub()}) as (host, server):
        async with connect(f"ws://127.0.0.1:{server.port}/term", origin=f"http://127.0.0.1:{server.port}") as ws:
            await ws.send(hello)
            await ws.wait_closed()
            assert (ws.close_code, ws.close_reason) == (web.REFUSED, web.BAD_HELLO)
        assert server.children == []


# --- the real table in a browser's terminal ---------------------------------------------------


async def test_the_right_code_shows_the_lobby_and_keys_play_a_move(tmp_path: Path) -> None:
    """The child forked warm, as a host's are."""
    async with table(tmp_path, door={"warm": True}) as (host, server):
        tab = await Tab.open(server, name="ann")
        await tab.wait_for("ann (you)")
        [child] = server.children
        assert server.door.zygote is not None
        assert Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()[1] == str(server.door.zygote.pid)
        assert f"at http://127.0.0.1:{server.port}" in tab.text and "Seats" in tab.text
        await tab.press("\x13")  # Ctrl+S starts: the open seat gets a bot
        rules = host.table.rules
        await until(
            lambda: host.table.phase == "playing" and 0 in rules.waiting_for(host.table.state), what="ann's turn"
        )
        await tab.wait_for("your turn")
        await tab.press("e")  # end the turn
        await until(lambda: any(seat == 0 for seat, _ in host.table.recent_moves), what="ann's move")
        assert type(next(m for s, m in host.table.recent_moves if s == 0)).__name__ == "EndTurn"
        [pid] = server.children
        await tab.ws.close()
        await until(lambda: gone(pid), timeout=10, what="the child reaped")
        assert server.children == [] and server.sessions == []


async def test_the_same_browser_gets_its_seat_and_hand_back_and_its_id_is_never_written(tmp_path: Path) -> None:
    """The socket drops mid-game; the same page id (another name typed, even) reclaims the seat and
    hand. The folder is named by the id's hash, and the id itself is nowhere on disk."""
    page_id = new_id()
    async with table(tmp_path) as (host, server):
        tab = await Tab.open(server, page_id=page_id, name="ann")
        await tab.wait_for("ann (you)")
        await tab.press("\x13")  # Ctrl+S: start
        rules = host.table.rules
        await until(lambda: host.table.phase == "playing" and 0 in rules.waiting_for(host.table.state))
        hand = rules.view(host.table.state, 0).hand
        await tab.wait_for("your turn")
        [pid] = server.children
        tab.ws.transport.abort()  # no goodbye: as a dropped network would
        await until(lambda: gone(pid), timeout=10, what="the old child to end")
        back = await Tab.open(server, page_id=page_id, name="someone else")
        await back.wait_for("your turn")
        assert [s.index for s in host.table.seats if s.kind == HUMAN and s.name == "ann"] == [0]
        assert rules.view(host.table.state, 0).hand == hand
        folder = server.door.folders.of(browser_key(page_id))
        assert folder.name == hashlib.sha256(page_id.encode()).hexdigest() and folder.is_dir()
        for path in (tmp_path / "players").rglob("*"):
            assert path.is_dir() or page_id.encode() not in path.read_bytes(), path
        await back.ws.close()


# --- the session's child ----------------------------------------------------------------------


async def test_the_child_gets_a_terminal_its_size_and_the_keys(tmp_path: Path) -> None:
    launches: list[Launch] = []

    def command(launch: Launch) -> list[str]:
        launches.append(launch)
        return [sys.executable, STUB, "hold"]

    async with table(tmp_path, door={"command": command}) as (host, server):
        tab = await Tab.open(server, name="Ann   of  Green Gables Farmhouse", cols=91, rows=27)
        await tab.wait_for("ready 91x27 TERM=xterm-256color LANG=C.UTF-8 hup=default ctty=yes", raw=True)
        await tab.resize(100, 31)
        await tab.wait_for("size 100x31", raw=True)
        await tab.press("hello\r")
        await tab.wait_for("got hello", raw=True)
        [launch] = launches
        assert launch.name == "Ann of Green Gables Farm" and launch.url == host.url and not launch.spectate
        assert launch.via == f"http://127.0.0.1:{server.port}"
        # xterm.js, counting the widths of characters as its width addon does.
        env = child_environment(launch)
        assert env["COLORTERM"] == "truecolor" and env["UNICODE_VERSION"] == web.UNICODE_WIDTHS
        assert launch.workdir == tmp_path / "players" and not launch.folder.exists()


async def test_the_child_is_reaped_when_the_socket_closes_and_the_door_says_goodbye_when_it_stops(
    tmp_path: Path,
) -> None:
    async with table(tmp_path, seats=3, bots=0, door={"command": stub()}) as (host, server):
        leaving = await Tab.open(server, name="ann")
        staying = await Tab.open(server, name="bob")
        for tab in (leaving, staying):
            await tab.wait_for("ready", raw=True, timeout=10)
        pids = dict(zip(("ann", "bob"), (s.child.pid for s in server.sessions)))
        await leaving.ws.close()
        await until(lambda: gone(pids["ann"]), timeout=10, what="ann's child reaped")
        await server.stop()
        assert await staying.ended() == (1000, "The table has closed.")
        assert gone(pids["bob"]) and server.children == []


async def test_a_child_that_leaves_closes_the_socket_as_asked(tmp_path: Path) -> None:
    """The player quits the table (the child exits 0): the page is told it left, and does not retry."""
    async with table(tmp_path, door={"command": lambda launch: [sys.executable, "-c", "print('bye')"]}) as (
        host,
        server,
    ):
        tab = await Tab.open(server)
        assert await tab.ended() == (1000, web.LEFT_SENTENCE)
        assert "bye" in tab.said


async def test_a_browser_that_stops_reading_stops_the_child_not_the_host(tmp_path: Path) -> None:
    """Output flow control: what the host holds for a page that reads nothing stays bounded
    (the child is no longer read), and flows again when the page reads."""
    async with table(tmp_path, door={"command": stub("flood")}) as (host, server):
        tab = await Tab.open(server)
        await until(lambda: len(tab.raw) > 100_000, timeout=20, what="the flood")
        tab.ws.transport.pause_reading()
        [served] = server.sessions
        sock = served.terminal
        # Past its mark the door stops reading the child: what the host holds stays bounded.
        await until(lambda: sock.output_paused, timeout=20, what="the host to hold the child back")
        held = sock.backlog + sock.ws.transport.get_write_buffer_size()
        assert held < 512 * 1024, held
        tab.ws.transport.resume_reading()
        grown = len(tab.raw)
        await until(lambda: len(tab.raw) > grown + 100_000, timeout=20, what="the flood to resume")


async def test_a_page_that_reads_nothing_is_cut_off_when_the_table_closes(tmp_path: Path) -> None:
    """Its goodbye cannot reach it: the socket is cut after a few seconds, and the door stops."""
    async with table(tmp_path, door={"command": stub("flood")}) as (host, server):
        tab = await Tab.open(server)
        await until(lambda: len(tab.raw) > 100_000, timeout=20, what="the flood")
        tab.ws.transport.pause_reading()
        [served] = server.sessions
        await until(lambda: served.terminal.output_paused, timeout=20, what="the host to hold the child back")
        [pid] = server.children
        await asyncio.wait_for(server.stop(), 4 * web.GOODBYE_WAIT + 5)
        assert gone(pid) and server.door.keeper.strangers() == []
        tab.ws.transport.abort()


# --- the door's limits ------------------------------------------------------------------------


async def test_keys_reach_the_child_no_faster_than_a_person_types_and_none_is_lost(tmp_path: Path) -> None:
    """The door's clock is moved by hand: held still, it lets through what the typing budget
    holds and no more; each half second of it, a thousand keys more, until all have arrived."""
    clock = Clock()
    door = {"command": stub("count"), "input_burst": 1000, "input_per_second": 2000, "clock": clock}
    async with table(tmp_path, door=door) as (host, server):
        tab = await Tab.open(server)
        await tab.wait_for("ready", raw=True, timeout=10)
        for _ in range(7):
            await tab.press("k" * 1000)

        def counted() -> int:
            found = re.findall(r"count (\d+)", tab.said)
            return int(found[-1]) if found else 0

        for granted in range(1000, 7001, 1000):  # the burst, then 1000 keys each half a second
            await tab.changes.until(lambda n=granted: counted() >= n, timeout=20, what=f"{granted} keys")
            assert counted() == granted
            clock.now += 0.5


async def test_a_flood_of_messages_is_read_at_a_persons_pace(tmp_path: Path) -> None:
    """Thousands of one-key messages: the door reads a burst, then so many a second, and leaves the
    rest in the network; a person's typing never comes near it. The door's clock is moved by
    hand: held still, it lets through the burst and no more; a second of it, so many more."""
    clock = Clock()
    async with table(tmp_path, door={"command": stub("count"), "clock": clock}) as (host, server):
        tab = await Tab.open(server)
        await tab.wait_for("ready", raw=True, timeout=10)
        for _ in range(3000):
            await tab.ws.send(b"k")

        def counted() -> int:
            found = re.findall(r"count (\d+)", tab.said)
            return int(found[-1]) if found else 0

        burst = web.MESSAGE_BURST
        await tab.changes.until(lambda: counted() >= burst, timeout=20, what="the burst")
        assert counted() == burst
        clock.now += 1.0
        more = burst + int(web.MESSAGES_PER_SECOND)
        await tab.changes.until(lambda: counted() >= more, timeout=20, what="a second's messages")
        assert counted() == more


async def test_sizes_are_clamped_and_a_flood_of_them_reaches_the_child_as_a_few(tmp_path: Path) -> None:
    """The door's clock is held still through the flood: one size goes at once (the latest asked
    for by then), the rest wait for the clock's next quarter second, and then the last alone goes."""
    clock = Clock()
    async with table(tmp_path, door={"command": stub(), "clock": clock}) as (host, server):
        tab = await Tab.open(server, cols=1000, rows=1000)
        await tab.wait_for("ready 300x100", raw=True, timeout=10)
        for i in range(150):
            await tab.ws.send(json.dumps({"resize": [81 + i % 100, 25 + i % 30]}))
        await tab.press("q")  # after the sizes: its echo says the door has had them all
        await tab.wait_for("q", raw=True, timeout=10)
        await tab.wait_for("size ", raw=True, timeout=10)
        clock.now += 0.25
        last = f"{81 + 149 % 100}x{25 + 149 % 30}"
        await tab.wait_for(f"size {last}", raw=True, timeout=10)
        sizes = re.findall(r"size (\d+x\d+)", tab.said)
        assert len(sizes) <= 2 and sizes[-1] == last, sizes


async def test_a_socket_that_never_says_hello_is_closed_at_its_deadline(tmp_path: Path) -> None:
    async with table(tmp_path, door={"command": stub(), "connection_deadline": 0.5}) as (host, server):
        async with connect(f"ws://127.0.0.1:{server.port}/term", origin=f"http://127.0.0.1:{server.port}") as ws:
            await asyncio.wait_for(ws.wait_closed(), 10)
            assert (ws.close_code, ws.close_reason) == (web.REFUSED, no_session_sentence(0.5))


async def test_silent_sockets_never_keep_a_newcomer_out(tmp_path: Path) -> None:
    """Sockets that never say hello fill the strangers' budget; the next one closes the one that
    waited longest, with a sentence, and a newcomer comes in."""
    limits = {"command": stub(), "stranger_connections": 3, "connection_deadline": 60.0}
    async with table(tmp_path, seats=3, bots=0, door=limits) as (host, server):
        origin = f"http://127.0.0.1:{server.port}"
        silent = [await connect(f"ws://127.0.0.1:{server.port}/term", origin=origin) for _ in range(3)]
        tab = await Tab.open(server)
        await tab.wait_for("ready", raw=True, timeout=10)
        await asyncio.wait_for(silent[0].wait_closed(), 10)
        assert (silent[0].close_code, silent[0].close_reason) == (web.REFUSED, CROWDED)
        for ws in silent[1:]:
            await ws.close()


async def test_a_neighbour_on_the_same_address_never_keeps_a_seated_browser_out(tmp_path: Path) -> None:
    """On a shared box everyone is 127.0.0.1. A neighbour there leaves sockets open that never say
    hello and opens pages whose id holds no seat faster than strangers may (refused, with the
    sentence); ann's browser, which holds a seat, comes back from the same address every time."""
    limits = {
        "command": stub(),
        "connection_burst": 2,
        "connections_per_second": 0.01,
        "stranger_connections": 4,
        "stranger_connections_per_address": 4,
        "connection_deadline": 60.0,
    }
    async with table(tmp_path, seats=2, bots=1, door=limits) as (host, server):
        ann = new_id()
        await hold_seat(host, server, browser_key(ann), "ann")
        origin = f"http://127.0.0.1:{server.port}"
        silent = [await connect(f"ws://127.0.0.1:{server.port}/term", origin=origin) for _ in range(6)]
        answers = []
        for _ in range(3):
            tab = await Tab.open(server, watch=True)
            with contextlib.suppress(AssertionError):
                await tab.wait_for("ready", raw=True, timeout=10)
            answers.append("in" if "ready" in tab.said else (await tab.ended())[1])
            await tab.ws.close()
        assert answers == ["in", "in", TOO_FAST]
        for _ in range(3):
            tab = await Tab.open(server, page_id=ann, name="ann")
            await tab.wait_for("ready", raw=True, timeout=10)
            await tab.ws.close()
            await tab.ended()
        assert 0 < len(server.door.keeper.strangers()) <= 4
        for ws in silent:
            await ws.close()


async def half_sent(port: int, local: str = "127.0.0.1") -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A connection that sent part of a request's head, and no more yet."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(local, 0))
    writer.write(f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: te".encode())
    await writer.drain()
    return reader, writer


async def test_half_sent_requests_hold_only_their_budget_and_never_keep_a_friend_out(tmp_path: Path) -> None:
    """A neighbour leaves requests half sent from the friends' own address: past that address's
    budget the oldest are closed, another address's request is never pushed out, and the page
    and a hello still come through at once."""
    door = {"command": stub(), "http_connections": 8, "http_connections_per_address": 4}
    async with table(tmp_path, door=door) as (host, server):
        other = await half_sent(server.port, "127.0.0.2")
        flood = [await half_sent(server.port) for _ in range(10)]
        for reader, _ in flood[:6]:  # each pushed out by a newer one of its address
            assert await asyncio.wait_for(reader.read(), 10) == b""
        status, _, body = await http_get(server.port, "/")
        assert status == 200 and body
        tab = await Tab.open(server)
        await tab.wait_for("ready", raw=True, timeout=10)
        # The other address's request was kept: finished now, it is answered.
        reader, writer = other
        writer.write(b"xt/html\r\n\r\n")
        assert (await asyncio.wait_for(reader.read(), 10)).startswith(b"HTTP/1.1 200 ")
        for _, writer in flood:
            writer.close()


async def test_a_whole_request_taken_in_with_a_crowd_of_half_sent_ones_is_answered(tmp_path: Path) -> None:
    """A friend's browser sends its request as it connects; a crowd connects right behind it, from
    its address, before the host has taken any of them. The friend's request is answered: the
    crowd makes way, though the friend's connection is the oldest."""
    door = {"command": stub(), "http_connections": 8, "http_connections_per_address": 4}
    async with table(tmp_path, door=door) as (host, server):
        # Connected and sent while the host's loop does not run: all are taken in one go.
        friend = socket.create_connection(("127.0.0.1", server.port))
        friend.sendall(f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n\r\n".encode())
        crowd = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(10)]
        for sock in crowd:
            sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0")
        friend.setblocking(False)
        loop = asyncio.get_running_loop()
        answer = b""
        with contextlib.suppress(ConnectionResetError):
            while chunk := await asyncio.wait_for(loop.sock_recv(friend, 65536), 10):
                answer += chunk
        assert answer.startswith(b"HTTP/1.1 200 "), answer[:80]
        for sock in [friend, *crowd]:
            sock.close()


async def test_a_request_dribbled_a_byte_at_a_time_is_closed_at_its_deadline(tmp_path: Path) -> None:
    async with table(tmp_path, door={"command": stub(), "connection_deadline": 0.5}) as (host, server):
        reader, writer = await half_sent(server.port)

        async def dribble() -> None:
            with contextlib.suppress(OSError):
                while True:
                    writer.write(b"x")
                    await writer.drain()
                    await asyncio.sleep(0.05)  # the dribble is the attack: a byte every 50 ms

        dribbling = asyncio.get_running_loop().create_task(dribble())
        try:
            try:
                said = await asyncio.wait_for(reader.read(), 10)
            except ConnectionResetError:  # cut with a byte of ours unread: closed all the same
                said = b""
            assert said == b""
        finally:
            dribbling.cancel()
            writer.close()


async def test_a_stranger_is_refused_with_a_sentence_that_says_how_to_watch(tmp_path: Path) -> None:
    async with table(tmp_path, seats=2, bots=2, door={"command": stub()}) as (host, server):
        tab = await Tab.open(server)
        code, reason = await tab.ended()
        link = f"http://127.0.0.1:{server.port}/?watch=1#{CODE}"
        assert code == web.REFUSED and reason == f"This table is full: every seat is taken. Watch with '{link}'."
        assert reason in tab.said  # and on the terminal
        watcher = await Tab.open(server, watch=True)
        await watcher.wait_for("ready", raw=True, timeout=10)
        assert list((tmp_path / "players").iterdir()) == []


async def test_sessions_that_closed_leave_nothing_in_the_door(tmp_path: Path) -> None:
    """Sessions let in and sessions refused, each a new browser from an address of its own, all
    closed: the door keeps no name, connection or socket of theirs, and nothing of a session
    (its socket, with what it buffered) outlives it, so a churn of strangers costs nothing after."""
    async with table(tmp_path, door={"command": stub()}) as (host, server):
        door = server.door
        made: list[weakref.ref[Any]] = []
        session_of = door.session

        def session(request: Any, terminal: Any) -> Any:
            made.append(weakref.ref(terminal))
            made.append(weakref.ref(made_session := session_of(request, terminal)))
            return made_session

        door.session = session  # type: ignore[method-assign]
        # One open seat (the other is a bot's): one newcomer plays, the next is refused for it.
        tabs = [await Tab.open(server, name=f"p{i}", watch=i >= 2, local=f"127.0.3.{i + 1}") for i in range(5)]
        await until(lambda: len(server.sessions) == 4, timeout=10, what="four sessions in")
        assert await tabs[1].ended() == (web.REFUSED, COMING_IN)
        assert len(made) == 10
        pids = list(server.children)
        for tab in tabs:
            await tab.ws.close()
        await until(
            lambda: not server.sessions and server.connections == 0 and all(gone(p) for p in pids),
            timeout=10,
            what="every session ended and its child gone",
        )
        assert door.names_remembered == 0 and len(door.keeper) == 0
        gc.collect()
        assert [ref() for ref in made if ref() is not None] == []


def test_close_reasons_fit_in_a_close_frame() -> None:
    long = "Watch with 'http://" + "a" * 200 + "'."
    assert len(web.close_reason(long).encode()) <= web.MAX_REASON and web.close_reason(long).endswith("…")
    assert web.close_reason("The table has closed.") == "The table has closed."


async def test_a_taken_port_and_a_table_without_a_code_are_sentences(tmp_path: Path) -> None:
    async with table(tmp_path, door={"command": stub()}) as (host, server):
        taken = WebServer(web_config(tmp_path, port=server.port), host)
        with pytest.raises(WebError, match="already in use; pick another with --web PORT"):
            await taken.start()
    config = HostConfig(game="side-effects", seats=2, headless=True, bind="127.0.0.1", port=0)
    async with Host(config) as open_host:
        with pytest.raises(WebError, match="needs a room code"):
            await WebServer(web_config(tmp_path), open_host).start()


# --- beside a host with a seat ----------------------------------------------------------------


async def test_a_seated_hosts_lobby_shows_the_link_and_leaving_closes_the_browsers_too(tmp_path: Path) -> None:
    """The real ``quackbox host --web`` with a seat, on an 80x24 terminal: its lobby shows the
    link, a browser comes in with it to seat 2, and q at the host's lobby tells the browser the
    table closed and ends its child. (A four-letter code: a long one's big letters fill 80 columns.)"""
    async with seated_host(tmp_path, "--web", "0", "--code", "KQXZ") as host:
        shown = await until(
            lambda: re.search(r"or in a browser: http://127\.0\.0\.1:(\d+)/#([A-Z-]+)", host.text),
            what="the host's lobby",
        )
        port, code = int(shown.group(1)), shown.group(2)
        ws = await connect(f"ws://127.0.0.1:{port}/term", origin=f"http://127.0.0.1:{port}")
        await ws.send(json.dumps({"hello": 1, "code": code, "id": new_id(), "name": "bob", "cols": 80, "rows": 24}))
        tab = Tab(ws, 80, 24)
        await tab.wait_for("bob (you)")
        assert "Hana" in next(line for line in tab.text.splitlines() if re.match(r"^\s+1\s\s", line))
        # Bob's child and, once it is warm, the zygote (bob's child may be forked from it).
        children = await until(lambda: _descendants_of(host.proc.pid), timeout=10, what="bob's child")
        host.type(b"\x1b")  # Esc leaves the host's lobby, once the question is answered
        await until(lambda: "Close the table?" in host.text, timeout=10, what="the question")
        host.type(b"y")
        assert await tab.ended(20) == (1000, "The table has closed.")
        assert await asyncio.to_thread(host.proc.wait, 20) == 0
        for child in children:
            await until(lambda child=child: gone(child), timeout=10, what=f"process {child} to end")
