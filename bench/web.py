"""The browser door's costs: opening the link, a session's memory, bytes per move; children started fresh and warm.

    python -m bench.web [--game side-effects] [--sessions 4] [--pace 0.3] [--sizes 80x24,120x40]
                        [--launch fresh,warm] [--tries 5] [--no-browser]

Prints one JSON object (progress goes to stderr). A headless host and its
browser door run in this process on 127.0.0.1, each session behind its own
``quackbox join`` child, as a real one is. Everything is measured for each
way of starting the children (``--launch``), one after the other in the same
run: ``fresh`` (a new Python for each session) and ``warm`` (forked from the
door's zygote, the default; the bench waits until it is warm, as friends
arrive a while after a host opens). Run from the checkout: the browser is
headless Chromium driven by ``tests/web/cdp.py``.

- ``load_average``: the machine's, before and after (the figures depend on it).
- ``zygote``: how long it took to warm, its own memory (RSS and USS).
- ``first_screen_s``: the door's part of opening the link: from a page's
  socket opening (the page loaded) to the lobby on its screen (the player's
  own seat shown, drawn by pyte from what the socket sends, in a process of
  its own as a browser draws in its own: ``bench.ssh.Drawer``): for one
  session alone (``--tries`` times, one after another: median, each) and for
  ``--sessions`` at once, each from an address of its own (127.0.0.2, ...):
  p50 and max. ``host_longest_pause_ms``: the longest stall of the loop the
  host and this bench's websocket clients share, while those open;
  ``launch_ms``, how long of it each child's start took (a warm start waits
  for the zygote's fork). ``lobby_memory``: each child's RSS and USS (memory no
  other process shares, so what one more session adds) in the lobby;
  ``game_start_memory`` the same a second after the game's first screen
  (the table waits in its lobby until everyone is ready and the first
  seat starts it, by their keys).
- ``browser``: the whole of it in a real browser, from opening the link in a
  tab to the lobby in xterm.js's rows, for one tab alone and for
  ``--sessions`` tabs at once (p50 and max). Each tab is a browser of its
  own that has been here before (its name is remembered, as after the first
  visit): page, scripts, socket, the child's start and its first screen;
  ``of_which_the_page_loading_s``, the part until the page's load event.
  ``page_bytes``: what the first load of the page transfers (gzipped), and
  in how many requests.
- ``per_session``: ``--sessions`` players at each of ``--sizes`` (websocket
  clients speaking the page's protocol; each person's turn is played by the
  host's stand-in after ``--pace`` seconds, so the table moves at a steady
  pace): each child's RSS and USS at the end of the game, its CPU per move
  and as a share of a core; ``host`` gives the host process's own (the table
  and the door, plus this bench's clients).
- ``bytes_per_move``: terminal output sent to one session per move (mean over
  the sessions), and to all of them; ``wire_per_session_mean`` the same
  counted on the TCP connections (a relay between the pages and the door),
  WebSocket framing and pings included.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect

from bench.doors import log
from bench.ssh import (
    LAUNCHES,
    Drawer,
    DrawnElsewhere,
    Launches,
    Stalls,
    Wire,
    cpu_seconds,
    load_average,
    memory,
    rss_mib,
    start_game,
    until,
    uss_mib,
)
from quackbox.door_child import join_program
from quackbox.net.door_policy import DoorLimits
from quackbox.net.host import Host, HostConfig
from quackbox.net.web import WebConfig, WebServer


class Table:
    """A headless host and its browser door in this process, its files in a temporary folder."""

    def __init__(self, work: Path, game: str, seats: int, pace: float, warm: bool, autostart: bool = False) -> None:
        self.config = HostConfig(
            game=game,
            seats=seats,
            bots=0,
            headless=True,
            bind="127.0.0.1",
            port=0,
            once=False,
            bot_delay=pace,
            turn_timer=pace,
            away_grace=None,
            seed=7,
            autostart=autostart,
            code="BNCH-WEBB",
        )
        self.web_config = WebConfig(
            port=0,
            bind="127.0.0.1",
            players_dir=str(work / "players"),
            limits=DoorLimits(idle_timeout=None),
            warm=warm,
            program=join_program(),
        )
        self.host = Host(self.config)
        self.web = WebServer(self.web_config, self.host)

    async def __aenter__(self) -> Table:
        await self.host.start()
        await self.web.start()
        if self.web_config.warm and not await self.web.door.wait_warm():
            raise RuntimeError("the zygote never got warm")
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.web.stop()
        await self.host.stop()

    def zygote(self) -> dict[str, Any]:
        zygote = self.web.door.zygote
        if zygote is None or zygote.pid is None:
            return {}
        return {
            "warm_s": zygote.warm_seconds,
            "rss_mib": round(rss_mib(zygote.pid), 1),
            "uss_mib": round(uss_mib(zygote.pid), 1),
        }


class Player:
    """A page as the door sees it: a websocket speaking the page's protocol, counting what it gets
    (and, given a terminal, drawing it there until the line awaited is seen)."""

    def __init__(self, drawn: DrawnElsewhere | None = None) -> None:
        self.payload = 0
        self.ws: Any = None
        self.task: asyncio.Task[None] | None = None
        self.drawn = drawn

    async def open(self, port: int, code: str, name: str, cols: int, rows: int, address: str = "127.0.0.1") -> None:
        # Compression offered, as every browser does.
        self.ws = await connect(
            f"ws://127.0.0.1:{port}/term",
            origin=f"http://127.0.0.1:{port}",
            max_size=None,
            compression="deflate",
            local_addr=(address, 0),
        )
        await self.ws.send(
            json.dumps(
                {
                    "hello": 1,
                    "code": code,
                    "id": secrets.token_hex(32),
                    "name": name,
                    "watch": False,
                    "cols": cols,
                    "rows": rows,
                }
            )
        )
        self.task = asyncio.get_running_loop().create_task(self._read())

    async def type(self, keys: bytes) -> None:
        """Keys pressed in the page's terminal."""
        await self.ws.send(keys)

    async def _read(self) -> None:
        async for message in self.ws:
            if isinstance(message, bytes):
                self.payload += len(message)
                if self.drawn is not None:
                    self.drawn.feed(message)


async def open_player(port: int, name: str, drawer: Drawer, address: str = "127.0.0.1") -> tuple[Player, float]:
    """A page's socket from ``address`` as ``name``: the player (drawn by ``drawer``), and seconds to
    the lobby on its screen."""
    terminal = drawer.terminal(80, 24)
    player = Player(terminal)
    started = time.monotonic()
    await player.open(port, "BNCH-WEBB", name, 80, 24, address)
    seen = await terminal.wait_for(f"{name} (you)", 120)
    return player, seen - started


# --- the door's part: from the socket to the lobby --------------------------------------------


async def door_first_screens(work: Path, game: str, sessions: int, warm: bool, tries: int) -> dict[str, Any]:
    async with Drawer() as drawer:
        return await _door_first_screens(work, game, sessions, warm, tries, drawer)


async def _door_first_screens(
    work: Path, game: str, sessions: int, warm: bool, tries: int, drawer: Drawer
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    alone = []
    for i in range(tries):  # each at a table of its own, as the first friend to come in
        async with Table(work / f"one{i}", game, sessions, 0.3, warm) as table:
            player, took = await open_player(table.web.port, f"solo{i + 1}", drawer)
            alone.append(round(took, 3))
            await player.ws.close()
    async with Table(work / "many", game, sessions, 0.3, warm) as table:
        launches = Launches(table.web.door)
        with Stalls() as stalls:
            opened = await asyncio.gather(
                *(open_player(table.web.port, f"p{i + 1}", drawer, f"127.0.0.{i + 2}") for i in range(sessions))
            )
        times = sorted(t for _, t in opened)
        out["first_screen_s"] = {
            "one_session": round(statistics.median(alone), 3),
            "one_session_each_try": alone,
            f"{sessions}_at_once_p50": round(statistics.median(times), 3),
            f"{sessions}_at_once_max": round(times[-1], 3),
            "host_longest_pause_ms": round(stalls.longest * 1000, 1),
            **launches.figures(),
        }
        await asyncio.sleep(1.0)  # the lobby drawn whole (its footer comes a little later)
        out["lobby_memory"] = memory(table.web.children)
        if warm:
            out["zygote"] = table.zygote()
        await start_game(table.host, {f"p{i + 1}": p for i, (p, _) in enumerate(opened)})
        await asyncio.sleep(1.0)  # the game's first screen drawn
        out["game_start_memory"] = memory(table.web.children)
        for player, _ in opened:
            await player.ws.close()
    return out


# --- the browser: from the link to the lobby ---------------------------------------------------


async def first_screens(work: Path, game: str, sessions: int, warm: bool) -> dict[str, Any]:
    from tests.web.cdp import Browser  # the bench runs from the checkout, beside the tests

    out: dict[str, Any] = {}
    async with Browser.launch() as browser:

        async def open_tab(table: Table, name: str) -> tuple[float, float, Any]:
            page = await browser.new_page(900, 600)
            # A browser that has been here before: its id and name are in its storage.
            await page.before_each_load(
                f"localStorage.setItem('quackbox-name', {json.dumps(name)});"
                f"localStorage.getItem('quackbox-id') || localStorage.setItem('quackbox-id', "
                f"{json.dumps(secrets.token_hex(32))});"
            )
            started = time.perf_counter()
            await page.send("Page.navigate", {"url": table.web.link()})
            await page.wait_for(
                f"Array.from(document.querySelectorAll('.xterm-rows > div'))"
                f".some(r => r.textContent.includes({json.dumps(name + ' (you)')}))",
                timeout=120,
            )
            took = time.perf_counter() - started
            loaded = await page.evaluate("performance.getEntriesByType('navigation')[0].loadEventEnd") / 1000
            return took, loaded, page

        log("the link in one tab...")
        async with Table(work / "tab", game, sessions, 0.3, warm) as table:
            alone, alone_loaded, page = await open_tab(table, "solo")
            sizes = await page.evaluate(
                "performance.getEntriesByType('resource').concat(performance.getEntriesByType('navigation'))"
                ".map(e => e.transferSize)"
            )
            out["page_bytes"] = {"first_load": sum(sizes), "requests": len(sizes)}
        log(f"the link in {sessions} tabs at once...")
        async with Table(work / "tabs", game, sessions + 1, 0.3, warm) as table:
            opened = await asyncio.gather(*(open_tab(table, f"p{i + 1}") for i in range(sessions)))
            times = sorted(t for t, _, _ in opened)
            loads = sorted(loaded for _, loaded, _ in opened)
            out["first_screen_s"] = {
                "one_session": round(alone, 3),
                f"{sessions}_at_once_p50": round(statistics.median(times), 3),
                f"{sessions}_at_once_max": round(times[-1], 3),
            }
            out["of_which_the_page_loading_s"] = {
                "one_session": round(alone_loaded, 3),
                f"{sessions}_at_once_p50": round(statistics.median(loads), 3),
                f"{sessions}_at_once_max": round(loads[-1], 3),
            }
    return out


# --- a game at a terminal size: memory, CPU and bytes --------------------------------------------


async def play(work: Path, game: str, sessions: int, pace: float, cols: int, rows: int, warm: bool) -> dict[str, Any]:
    async with Table(work / f"{cols}x{rows}", game, sessions, pace, warm, autostart=True) as table:
        # The pages reach the door through a relay that counts what the door sends them.
        wire = Wire(table.web.port)
        await wire.start()
        players = [Player() for _ in range(sessions)]  # only counted: nothing here waits for a line
        for i, player in enumerate(players):
            await player.open(wire.port, table.host.code or "", f"p{i + 1}", cols, rows)
        host = table.host
        await until(lambda: host.table.phase == "playing", 120)
        pids = list(table.web.children)
        cpu0 = {pid: cpu_seconds(pid) for pid in pids}
        host_cpu0 = cpu_seconds(os.getpid())
        bytes0 = [p.payload for p in players]
        wire0 = wire.to_clients
        moves0, wall0 = host.table.seq, time.perf_counter()
        await until(lambda: host.table.outcome is not None, 1800)
        await asyncio.sleep(1.0)  # the last screens drawn
        wall = time.perf_counter() - wall0
        moves = host.table.seq - moves0
        cpu = [cpu_seconds(pid) - cpu0[pid] for pid in pids]
        host_cpu = cpu_seconds(os.getpid()) - host_cpu0
        held = memory(pids)
        sent = [p.payload - b for p, b in zip(players, bytes0)]
        on_wire = wire.to_clients - wire0
        for player in players:
            await player.ws.close()
        wire.close()
        return {
            "game_moves": moves,
            "game_seconds": round(wall, 1),
            "per_session": {
                **held,
                "child_cpu_ms_per_move_mean": round(1000 * statistics.mean(cpu) / moves, 2),
                "child_cpu_pct_of_a_core_mean": round(100 * statistics.mean(cpu) / wall, 1),
            },
            "host": {
                "rss_mib": round(rss_mib(os.getpid()), 1),
                "cpu_ms_per_move": round(1000 * host_cpu / moves, 2),
                "cpu_pct_of_a_core": round(100 * host_cpu / wall, 1),
                "note": "the table and the door, plus this bench's websocket clients",
            },
            "bytes_per_move": {
                "per_session_mean": round(statistics.mean(sent) / moves),
                "all_sessions": round(sum(sent) / moves),
                "wire_per_session_mean": round(on_wire / sessions / moves),
            },
        }


async def measure(
    game: str, sessions: int, pace: float, sizes: list[tuple[int, int]], browser: bool, launches: list[str], tries: int
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "game": game,
        "sessions": sessions,
        "pace_s": pace,
        "load_average": {"before": load_average()},
    }
    with tempfile.TemporaryDirectory(prefix="bench-web-") as folder:
        for launch in launches:
            work, warm = Path(folder) / launch, launch == "warm"
            log(f"{launch}: the socket to the lobby...")
            figures = await door_first_screens(work, game, sessions, warm, tries)
            if browser:
                figures["browser"] = await first_screens(work, game, sessions, warm)
            for cols, rows in sizes:
                log(f"{launch}: a game at {cols}x{rows}...")
                figures[f"{cols}x{rows}"] = await play(work, game, sessions, pace, cols, rows, warm)
            out[launch] = figures
    out["load_average"]["after"] = load_average()
    return out


def _size(text: str) -> tuple[int, int]:
    cols, _, rows = text.partition("x")
    return int(cols), int(rows)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.web", description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="side-effects")
    parser.add_argument("--sessions", type=int, default=4)
    parser.add_argument("--pace", type=float, default=0.3, help="seconds before each move (default 0.3)")
    parser.add_argument("--sizes", default="80x24,120x40", help="terminal sizes to play a game at")
    parser.add_argument(
        "--launch", default=",".join(LAUNCHES), help="how children start, measured in turn: fresh, warm (default both)"
    )
    parser.add_argument("--tries", type=int, default=5, help="times one session alone opens (default 5)")
    parser.add_argument("--no-browser", action="store_true", help="skip the browser's figures")
    args = parser.parse_args(argv)
    sizes = [_size(s) for s in args.sizes.split(",") if s]
    launches = [x for x in args.launch.split(",") if x]
    if any(x not in LAUNCHES for x in launches):
        parser.error(f"--launch takes {', '.join(LAUNCHES)}")
    print(
        json.dumps(
            asyncio.run(measure(args.game, args.sessions, args.pace, sizes, not args.no_browser, launches, args.tries)),
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
