"""The SSH door's costs: four people playing one game over plain ssh.

    python -m bench.ssh [--game side-effects] [--sessions 4] [--pace 0.3]

Prints one JSON object (progress goes to stderr). A headless host and its
SSH server run in this process on 127.0.0.1; players are asyncssh clients
with an 80x24 terminal (pyte draws what they receive), each behind its own
``quackbox join`` child, as a real session is.

- ``first_screen_s``: from opening the SSH connection to the lobby fully on
  the player's screen (their own seat shown), for one session alone and for
  ``--sessions`` opened at once (p50 and max).
- ``per_session``: while the game is played (each person's turn is played
  by the host's stand-in bot after ``--pace`` seconds, so the table moves at
  a steady pace), each child's RSS (mean and max over the sessions, at the
  end) and CPU time: per move, and as a share of one core at this pace.
  ``host`` gives the host process's own (the table, the SSH server, the
  encryption) beside it.
- ``bytes_per_move``: terminal output sent to one session per move (mean
  over the sessions), and to all of them; ``wire_*`` the same counted on the
  TCP connections themselves (a relay between the clients and the SSH
  server), SSH's framing, padding, MACs and keepalives included.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import asyncssh
import pyte

from quackbox.net.door import DoorLimits
from quackbox.net.host import Host, HostConfig
from quackbox.net.ssh import SshConfig, SshServer

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")


class Player(asyncssh.SSHClientSession):  # type: ignore[type-arg]
    """One player's terminal: bytes received, and the screen they draw."""

    def __init__(self) -> None:
        self.screen = pyte.Screen(80, 24)
        self.stream = pyte.ByteStream(self.screen)
        self.received = 0
        self.drawing = True
        """Draw the screen (until the first full screen: after it, only count bytes)."""

    def data_received(self, data: bytes, datatype: Any) -> None:
        self.received += len(data)
        if self.drawing:
            self.stream.feed(data)

    def shows(self, text: str) -> bool:
        return any(text in line for line in self.screen.display)


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def rss_mib(pid: int) -> float:
    return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE / 2**20


async def until(check: Any, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise TimeoutError("the bench waited too long")
        await asyncio.sleep(0.02)


class Wire:
    """A TCP relay in front of the SSH server that counts the bytes it passes to the clients."""

    def __init__(self, port: int) -> None:
        self.target = port
        self.to_clients = 0
        self.port = 0
        self._server: asyncio.Server | None = None

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._relay, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    def close(self) -> None:
        if self._server is not None:
            self._server.close()

    async def _relay(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        server_r, server_w = await asyncio.open_connection("127.0.0.1", self.target)
        await asyncio.gather(self._pipe(client_r, server_w, False), self._pipe(server_r, client_w, True),
                             return_exceptions=True)

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, counted: bool) -> None:
        try:
            while data := await reader.read(65536):
                if counted:
                    self.to_clients += len(data)
                writer.write(data)
                await writer.drain()
        finally:
            writer.close()


async def open_player(port: int, key: asyncssh.SSHKey, name: str) -> tuple[Any, Player, float]:
    """Connect to ``port`` as ``name``: the connection, the terminal, and seconds to the first full screen."""
    started = time.perf_counter()
    conn = await asyncssh.connect("127.0.0.1", port, username=name, client_keys=[key], known_hosts=None,
                                  agent_path=None)
    _, player = await conn.create_session(Player, term_type="xterm-256color", term_size=(80, 24), encoding=None)
    try:
        await until(lambda: player.shows(f"{name} (you)"), 120)
    except TimeoutError:
        raise TimeoutError(f"{name} never saw the lobby:\n" + "\n".join(player.screen.display)) from None
    player.drawing = False
    return conn, player, time.perf_counter() - started


async def measure(game: str, sessions: int, pace: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="bench-ssh-") as folder:
        return await _measure(Path(folder), game, sessions, pace)


async def _measure(work: Path, game: str, sessions: int, pace: float) -> dict[str, Any]:
    config = HostConfig(game=game, seats=sessions, bots=0, headless=True, bind="127.0.0.1", port=0, once=False,
                        bot_delay=pace, turn_timer=pace, away_grace=None, seed=7, autostart=True)
    ssh_config = SshConfig(port=0, bind="127.0.0.1", host_key=str(work / "host_key"),
                           players_dir=str(work / "players"), limits=DoorLimits(idle_timeout=None))
    keys = [asyncssh.generate_private_key("ssh-ed25519") for _ in range(sessions + 1)]
    out: dict[str, Any] = {"game": game, "sessions": sessions, "pace_s": pace, "terminal": "80x24"}
    print("one session alone...", file=sys.stderr)
    async with Host(config) as host, SshServer(ssh_config, host) as door:
        conn, _, alone = await open_player(door.port, keys[-1], "solo")
        conn.close()
    async with Host(config) as host, SshServer(ssh_config, host) as door:
        print(f"{sessions} sessions at once...", file=sys.stderr)
        wire = Wire(door.port)
        await wire.start()
        opened = await asyncio.gather(*(open_player(wire.port, keys[i], f"p{i + 1}") for i in range(sessions)))
        times = sorted(t for _, _, t in opened)
        out["first_screen_s"] = {
            "one_session": round(alone, 3),
            f"{sessions}_at_once_p50": round(statistics.median(times), 3),
            f"{sessions}_at_once_max": round(times[-1], 3),
        }
        players = [p for _, p, _ in opened]
        pids = list(door.children)
        print("playing...", file=sys.stderr)
        await until(lambda: host.table.phase == "playing", 30)
        cpu0 = {pid: cpu_seconds(pid) for pid in pids}
        host_cpu0 = cpu_seconds(os.getpid())
        bytes0 = [p.received for p in players]
        wire0 = wire.to_clients
        moves0, wall0 = host.table.seq, time.perf_counter()
        await until(lambda: host.table.outcome is not None, 1800)
        await asyncio.sleep(1.0)  # the last screens drawn
        wall = time.perf_counter() - wall0
        moves = host.table.seq - moves0
        cpu = [cpu_seconds(pid) - cpu0[pid] for pid in pids]
        host_cpu = cpu_seconds(os.getpid()) - host_cpu0
        rss = [rss_mib(pid) for pid in pids]
        sent = [p.received - b for p, b in zip(players, bytes0)]
        on_wire = wire.to_clients - wire0
        out["game_moves"] = moves
        out["game_seconds"] = round(wall, 1)
        out["per_session"] = {
            "child_rss_mib_mean": round(statistics.mean(rss), 1),
            "child_rss_mib_max": round(max(rss), 1),
            "child_cpu_ms_per_move_mean": round(1000 * statistics.mean(cpu) / moves, 2),
            "child_cpu_pct_of_a_core_mean": round(100 * statistics.mean(cpu) / wall, 1),
        }
        out["host"] = {
            "rss_mib": round(rss_mib(os.getpid()), 1),
            "cpu_ms_per_move": round(1000 * host_cpu / moves, 2),
            "cpu_pct_of_a_core": round(100 * host_cpu / wall, 1),
            "note": "the table and the SSH server with its encryption, plus this bench's own SSH clients",
        }
        out["bytes_per_move"] = {
            "per_session_mean": round(statistics.mean(sent) / moves),
            "all_sessions": round(sum(sent) / moves),
            "wire_per_session_mean": round(on_wire / sessions / moves),
            "wire_all_sessions": round(on_wire / moves),
        }
        for conn, _, _ in opened:
            conn.close()
        wire.close()
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.ssh", description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="side-effects")
    parser.add_argument("--sessions", type=int, default=4)
    parser.add_argument("--pace", type=float, default=0.3, help="seconds before each move (default 0.3)")
    args = parser.parse_args(argv)
    print(json.dumps(asyncio.run(measure(args.game, args.sessions, args.pace)), indent=2))


if __name__ == "__main__":
    main()
