"""The browser door's costs: opening the link, a session's memory, bytes per move.

    python -m bench.web [--game side-effects] [--sessions 4] [--pace 0.3] [--sizes 80x24,120x40]

Prints one JSON object (progress goes to stderr). A headless host and its
browser door run in this process on 127.0.0.1, each session behind its own
``quackbox join`` child, as a real one is. Run from the checkout: the
browser is headless Chromium driven by ``tests/web/cdp.py``.

- ``first_screen_s``: from opening the link in a tab to the lobby on its
  screen (the player's own seat shown in xterm.js's rows), for one tab
  alone and for ``--sessions`` tabs opened at once (p50 and max). Each tab
  is a browser of its own that has been here before (its name is
  remembered, as after the first visit): page, scripts, socket, the
  child's start and its first screen; ``of_which_the_page_loading_s``, the
  part until the page's load event (the rest is the socket and the child).
  ``page_bytes``: what the first load of the page transfers (gzipped), and
  in how many requests.
- ``per_session``: ``--sessions`` players at each of ``--sizes`` (websocket
  clients speaking the page's protocol; each person's turn is played by the
  host's stand-in after ``--pace`` seconds, so the table moves at a steady
  pace): each child's RSS and USS (memory no other process shares) at the
  end of the game, its CPU per move and as a share of a core; ``host`` gives
  the host process's own (the table and the door, plus this bench's
  clients).
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

from bench.doors import cpu_seconds, log, rss_mib
from bench.ssh import Wire, until
from quackbox.net.door import DoorLimits
from quackbox.net.host import Host, HostConfig
from quackbox.net.web import WebConfig, WebServer

def uss_mib(pid: int) -> float:
    """Memory only this process holds (its private pages): what another session adds."""
    private = 0
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith(("Private_Clean:", "Private_Dirty:")):
            private += int(line.split()[1])
    return private / 1024


class Table:
    """A headless host and its browser door in this process, its files in a temporary folder."""

    def __init__(self, work: Path, game: str, seats: int, pace: float) -> None:
        self.config = HostConfig(game=game, seats=seats, bots=0, headless=True, bind="127.0.0.1", port=0, once=False,
                                 bot_delay=pace, turn_timer=pace, away_grace=None, seed=7, autostart=True,
                                 code="BNCH-WEBB")
        self.web_config = WebConfig(port=0, bind="127.0.0.1", players_dir=str(work / "players"),
                                    limits=DoorLimits(idle_timeout=None))
        self.host = Host(self.config)
        self.web = WebServer(self.web_config, self.host)

    async def __aenter__(self) -> Table:
        await self.host.start()
        await self.web.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.web.stop()
        await self.host.stop()


# --- the browser: from the link to the lobby ---------------------------------------------------


async def first_screens(work: Path, game: str, sessions: int) -> dict[str, Any]:
    from tests.web.cdp import Browser  # the bench runs from the checkout, beside the tests

    out: dict[str, Any] = {}
    async with Browser.launch() as browser:

        async def open_tab(table: Table, name: str) -> tuple[float, float, Any]:
            page = await browser.new_page(900, 600)
            # A browser that has been here before: its id and name are in its storage.
            await page.before_each_load(
                f"localStorage.setItem('quackbox-name', {json.dumps(name)});"
                f"localStorage.getItem('quackbox-id') || localStorage.setItem('quackbox-id', "
                f"{json.dumps(secrets.token_hex(32))});")
            started = time.perf_counter()
            await page.send("Page.navigate", {"url": table.web.link()})
            await page.wait_for(f"Array.from(document.querySelectorAll('.xterm-rows > div'))"
                                f".some(r => r.textContent.includes({json.dumps(name + ' (you)')}))", timeout=120)
            took = time.perf_counter() - started
            loaded = await page.evaluate("performance.getEntriesByType('navigation')[0].loadEventEnd") / 1000
            return took, loaded, page

        log("the link in one tab...")
        async with Table(work / "one", game, sessions, 0.3) as table:
            alone, alone_loaded, page = await open_tab(table, "solo")
            sizes = await page.evaluate(
                "performance.getEntriesByType('resource').concat(performance.getEntriesByType('navigation'))"
                ".map(e => e.transferSize)")
            out["page_bytes"] = {"first_load": sum(sizes), "requests": len(sizes)}
            out["lobby_memory_one_session"] = _memory(table.web.children)
        log(f"the link in {sessions} tabs at once...")
        async with Table(work / "many", game, sessions + 1, 0.3) as table:
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
            out[f"lobby_memory_{sessions}_sessions"] = _memory(table.web.children)
    return out


def _memory(pids: list[int]) -> dict[str, float]:
    rss = [rss_mib(pid) for pid in pids]
    uss = [uss_mib(pid) for pid in pids]
    return {"child_rss_mib_mean": round(statistics.mean(rss), 1), "child_rss_mib_max": round(max(rss), 1),
            "child_uss_mib_mean": round(statistics.mean(uss), 1)}


# --- a game at a terminal size: memory, CPU and bytes --------------------------------------------


class Player:
    """A page as the door sees it: a websocket speaking the page's protocol, counting what it gets."""

    def __init__(self) -> None:
        self.payload = 0
        self.ws: Any = None
        self.task: asyncio.Task[None] | None = None

    async def open(self, port: int, code: str, name: str, cols: int, rows: int) -> None:
        # Compression offered, as every browser does.
        self.ws = await connect(f"ws://127.0.0.1:{port}/term", origin=f"http://127.0.0.1:{port}",
                                max_size=None, compression="deflate")
        await self.ws.send(json.dumps({"hello": 1, "code": code, "id": secrets.token_hex(32),
                                       "name": name, "watch": False, "cols": cols, "rows": rows}))
        self.task = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        async for message in self.ws:
            if isinstance(message, bytes):
                self.payload += len(message)


async def play(work: Path, game: str, sessions: int, pace: float, cols: int, rows: int) -> dict[str, Any]:
    async with Table(work / f"{cols}x{rows}", game, sessions, pace) as table:
        # The pages reach the door through a relay that counts what the door sends them.
        wire = Wire(table.web.port)
        await wire.start()
        players = [Player() for _ in range(sessions)]
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
        memory = _memory(pids)
        sent = [p.payload - b for p, b in zip(players, bytes0)]
        on_wire = wire.to_clients - wire0
        for player in players:
            await player.ws.close()
        wire.close()
        return {
            "game_moves": moves,
            "game_seconds": round(wall, 1),
            "per_session": {
                **memory,
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


async def measure(game: str, sessions: int, pace: float, sizes: list[tuple[int, int]], browser: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"game": game, "sessions": sessions, "pace_s": pace}
    with tempfile.TemporaryDirectory(prefix="bench-web-") as folder:
        work = Path(folder)
        if browser:
            out.update(await first_screens(work, game, sessions))
        for cols, rows in sizes:
            log(f"a game at {cols}x{rows}...")
            out[f"{cols}x{rows}"] = await play(work, game, sessions, pace, cols, rows)
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
    parser.add_argument("--no-browser", action="store_true", help="skip the browser's figures")
    args = parser.parse_args(argv)
    sizes = [_size(s) for s in args.sizes.split(",") if s]
    print(json.dumps(asyncio.run(measure(args.game, args.sessions, args.pace, sizes, not args.no_browser)), indent=2))


if __name__ == "__main__":
    main()
