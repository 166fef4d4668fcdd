"""The SSH door's costs: four people playing one game over plain ssh, their children started fresh and warm.

    python -m bench.ssh [--game side-effects] [--sessions 4] [--pace 0.3] [--launch fresh,warm] [--tries 5]

Prints one JSON object (progress goes to stderr). A headless host and its
SSH server run in this process on 127.0.0.1; players are asyncssh clients
with an 80x24 terminal (pyte draws what they receive, in a process of its
own as a player's terminal draws in theirs: :class:`Drawer`), each behind
its own ``quackbox join`` child, as a real session is. Everything is measured for
each way of starting the children (``--launch``), one after the other in the
same run: ``fresh`` (a new Python for each session) and ``warm`` (forked from
the door's zygote, the default; the bench waits until it is warm, as friends
arrive a while after a host opens).

- ``load_average``: the machine's, before and after (the figures depend on it).
- ``zygote``: how long it took to warm, its own memory (RSS and USS) once
  the sessions are in.
- ``first_screen_s``: from opening the SSH connection to the lobby fully on
  the player's screen (their own seat shown): for one session alone
  (``--tries`` times, one after another: median, each; ``one_session_ssh_s``,
  the median of its SSH part: connected, logged in, the session open), and for
  ``--sessions`` opened at once, each from an address of its own
  (127.0.0.2, ...): p50 and max. ``host_longest_pause_ms``: the longest
  stall of the loop the host and this bench's SSH clients share, while those
  open; ``launch_ms``, how long of it each child's start took (a warm start
  waits for the zygote's fork). ``child_cpu_s_to_lobby``: the CPU time a
  child had used when its lobby was on screen, alone (median of the tries),
  and when opened at once (median of the sessions, read as the last of them
  shows its lobby): the work one more session costs, steadier than times on
  a shared machine (every thread's, as the scheduler counts it). Its own
  threads' time only: what ended before is not counted (a child's threads
  live as long as it does).
- ``lobby_memory``: each child's RSS and USS (memory no other process
  shares, so what one more session adds) with the sessions in the lobby;
  ``game_start_memory`` the same a second after the game's first screen.
  The table does not start by itself: once the lobby's figures are read,
  everyone gets ready (Ctrl+R) and the first seat starts (Ctrl+S), as
  people would. (A table that started as its last seat filled, as this
  bench's did, had every child at the game's first screen when its
  "lobby" was read: some 3 MiB more.)
- ``per_session``: while the game is played (each person's turn is played
  by the host's stand-in bot after ``--pace`` seconds, so the table moves at
  a steady pace), each child's RSS and USS (mean and max over the sessions,
  at the end) and CPU time: per move, and as a share of one core at this
  pace. ``host`` gives the host process's own (the table, the SSH server,
  the encryption) beside it.
- ``bytes_per_move``: terminal output sent to one session per move (mean
  over the sessions), and to all of them; ``wire_*`` the same counted on the
  TCP connections themselves (a relay between the clients and the SSH
  server), SSH's framing, padding, MACs and keepalives included.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import struct
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import pyte

from quackbox.door_child import join_program
from quackbox.net.door_policy import DoorLimits
from quackbox.net.host import Host, HostConfig
from quackbox.net.ssh import SshConfig, SshServer
from quackbox.net.sshlib import asyncssh

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")
LAUNCHES = ("fresh", "warm")


class Drawn:
    """A terminal's screen (pyte draws what it receives) and a line awaited on it, in the
    drawing process (:func:`draw_terminals`).

    The line is looked for as each piece of output is drawn, in the rows it
    changed, and the moment it appears is told. Looking on a timer instead
    (every row of the screen, every 10 ms, for each of the sessions opening
    at once) took a good part of a core, from the same two cores the
    children being measured start on, and added the timer's lag."""

    def __init__(self, cols: int = 80, rows: int = 24) -> None:
        self.screen = pyte.Screen(cols, rows)
        self.stream = pyte.ByteStream(self.screen)
        self._wanted: tuple[str, Callable[[float], None]] | None = None

    def feed(self, data: bytes) -> None:
        self.stream.feed(data)
        self._look()

    def shows(self, text: str) -> bool:
        return any(text in line for line in self.screen.display)

    def text(self) -> str:
        return "\n".join(self.screen.display)

    def want(self, text: str, on_seen: Callable[[float], None]) -> None:
        """Look for ``text`` from now on (and in what is drawn already); once it is on a row,
        ``on_seen(when)`` (``time.monotonic()``, one clock for every process here), once."""
        self._wanted = (text, on_seen)
        self.screen.dirty.update(range(self.screen.lines))
        self._look()

    def _look(self) -> None:
        if self._wanted is not None:
            text, on_seen = self._wanted
            buffer = self.screen.buffer
            for row in self.screen.dirty:
                line = buffer[row]
                if text in "".join(line[col].data for col in range(self.screen.columns)):
                    self._wanted = None
                    on_seen(time.monotonic())
                    break
        self.screen.dirty.clear()


_FRAME = struct.Struct("!cII")
"""A message to the drawing process: its kind, the terminal it is for, and its payload's length."""
_SIZE = struct.Struct("!HH")


class Drawer:
    """The players' terminals, drawn in a process of their own (:func:`draw_terminals`).

    pyte is pure Python: drawing a lobby's first screen takes it 10-30 ms. On
    the loop that also runs the host and its door, four lobbies opening at
    once held that loop some 100 ms, of which the door's own part was 15 ms,
    and each session's time included the drawing of those before it: the
    bench timed itself. A player's terminal or browser draws in a process of
    its own, and so do these: on the same cores, off the host's loop. The
    host's loop still receives each terminal's output, and passes it on.
    """

    def __init__(self) -> None:
        self._proc: asyncio.subprocess.Process | None = None
        self._reader: asyncio.Task[None] | None = None
        self._answers: dict[tuple[int, str], asyncio.Future[Any]] = {}
        self._terminals = 0

    async def __aenter__(self) -> Drawer:
        root = Path(__file__).resolve().parent.parent
        self._proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            "from bench.ssh import draw_terminals; draw_terminals()",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            cwd=root,
            env=dict(os.environ, PYTHONPATH=str(root)),
        )
        self._reader = asyncio.get_running_loop().create_task(self._read())
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        assert self._proc is not None and self._proc.stdin is not None and self._reader is not None
        self._proc.stdin.close()
        await self._proc.wait()
        self._reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._reader

    def terminal(self, cols: int = 80, rows: int = 24) -> DrawnElsewhere:
        """A new terminal of ``cols`` x ``rows``, drawn in the drawing process."""
        self._terminals += 1
        self.send(b"N", self._terminals, _SIZE.pack(cols, rows))
        return DrawnElsewhere(self, self._terminals)

    def send(self, kind: bytes, terminal: int, payload: bytes) -> None:
        assert self._proc is not None and self._proc.stdin is not None
        self._proc.stdin.write(_FRAME.pack(kind, terminal, len(payload)) + payload)

    def answer(self, terminal: int, what: str) -> asyncio.Future[Any]:
        """The drawing process's next answer of kind ``what`` for ``terminal``."""
        future = self._answers[terminal, what] = asyncio.get_running_loop().create_future()
        return future

    async def _read(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        async for line in self._proc.stdout:
            said = json.loads(line)
            future = self._answers.pop((said["terminal"], said["what"]), None)
            if future is not None and not future.done():
                future.set_result(said["value"])


class DrawnElsewhere:
    """A player's terminal, as the bench sees it: a :class:`Drawn` in the drawing process; its
    output goes there, and the moment an awaited line was drawn comes back."""

    def __init__(self, drawer: Drawer, terminal: int) -> None:
        self.drawer = drawer
        self.terminal = terminal
        self.drawing = True
        """Output goes to the drawing process until the awaited line is seen: after it, the owner
        only counts bytes."""

    def feed(self, data: bytes) -> None:
        if self.drawing:
            self.drawer.send(b"F", self.terminal, data)

    async def wait_for(self, text: str, timeout: float) -> float:
        """Until ``text`` is on a row of the screen: when it was drawn (``time.monotonic()``);
        TimeoutError showing the screen if it never is."""
        seen = self.drawer.answer(self.terminal, "seen")
        self.drawer.send(b"W", self.terminal, text.encode())
        try:
            when: float = await asyncio.wait_for(seen, timeout)
        except TimeoutError:
            screen = self.drawer.answer(self.terminal, "screen")
            self.drawer.send(b"D", self.terminal, b"")
            raise TimeoutError(f"{text!r} never came:\n{await asyncio.wait_for(screen, 5)}") from None
        self.drawing = False
        return when


def draw_terminals() -> None:
    """The drawing process: messages (:data:`_FRAME`) on standard input; on standard output a JSON
    line for each awaited line drawn (``seen``, when) and each screen asked for (``screen``)."""
    terminals: dict[int, Drawn] = {}
    stdin, stdout = sys.stdin.buffer, sys.stdout

    def say(terminal: int, what: str, value: Any) -> None:
        stdout.write(json.dumps({"terminal": terminal, "what": what, "value": value}) + "\n")
        stdout.flush()

    while len(header := stdin.read(_FRAME.size)) == _FRAME.size:
        kind, terminal, size = _FRAME.unpack(header)
        payload = stdin.read(size)
        if kind == b"N":
            terminals[terminal] = Drawn(*_SIZE.unpack(payload))
        elif kind == b"F":
            terminals[terminal].feed(payload)
        elif kind == b"W":
            terminals[terminal].want(payload.decode(), lambda when, t=terminal: say(t, "seen", when))
        elif kind == b"D":
            say(terminal, "screen", terminals[terminal].text())


class Player(asyncssh.SSHClientSession):  # type: ignore[type-arg]
    """One player's terminal: bytes received, and the screen they draw."""

    def __init__(self, drawn: DrawnElsewhere) -> None:
        self.drawn = drawn
        self.received = 0
        self.chan: Any = None
        self.session_open_s = 0.0
        """From connecting to the session's channel open: SSH's own part, before the child."""

    def connection_made(self, chan: Any) -> None:
        self.chan = chan

    async def type(self, keys: bytes) -> None:
        """Keys pressed at this terminal."""
        self.chan.write(keys)

    def data_received(self, data: bytes, datatype: Any) -> None:
        self.received += len(data)
        self.drawn.feed(data)


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def cpu_seconds_exact(pid: int) -> float:
    """CPU time of ``pid``'s live threads so far, to the nanosecond (the scheduler's own
    count): for a few tenths of a second, where ticks of 10 ms are too coarse."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except (OSError, IndexError, ValueError):
            continue  # a thread that ended meanwhile
    return total / 1e9


def rss_mib(pid: int) -> float:
    return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE / 2**20


def uss_mib(pid: int) -> float:
    """Memory only this process holds (its private pages): what another session adds."""
    private = 0
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith(("Private_Clean:", "Private_Dirty:")):
            private += int(line.split()[1])
    return private / 1024


def memory(pids: list[int]) -> dict[str, float]:
    rss = [rss_mib(pid) for pid in pids]
    uss = [uss_mib(pid) for pid in pids]
    return {
        "child_rss_mib_mean": round(statistics.mean(rss), 1),
        "child_rss_mib_max": round(max(rss), 1),
        "child_uss_mib_mean": round(statistics.mean(uss), 1),
        "child_uss_mib_max": round(max(uss), 1),
    }


def load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


async def until(check: Any, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise TimeoutError("the bench waited too long")
        await asyncio.sleep(0.01)


class Stalls:
    """The event loop's longest pause while it runs: a tick every 5 ms, and how late the latest came."""

    def __init__(self) -> None:
        self.longest = 0.0
        self._task: asyncio.Task[None] | None = None

    def __enter__(self) -> Stalls:
        self._task = asyncio.get_running_loop().create_task(self._tick())
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._task is not None:
            self._task.cancel()

    async def _tick(self) -> None:
        while True:
            before = time.perf_counter()
            await asyncio.sleep(0.005)
            self.longest = max(self.longest, time.perf_counter() - before - 0.005)


class Launches:
    """How long each session's child takes to start (``Door.launch``: a fresh start spawns a
    process, a warm one awaits the zygote's fork while the loop goes on)."""

    def __init__(self, door: Any) -> None:
        self.seconds: list[float] = []
        launch = door.launch

        async def timed(session: Any) -> Any:
            started = time.perf_counter()
            try:
                return await launch(session)
            finally:
                self.seconds.append(time.perf_counter() - started)

        door.launch = timed

    def figures(self) -> dict[str, float]:
        return {
            "launch_ms_mean": round(1000 * statistics.mean(self.seconds), 1),
            "launch_ms_max": round(1000 * max(self.seconds), 1),
        }


class Wire:
    """A TCP relay in front of a server that counts the bytes it passes to the clients. It
    connects to the server from the address each client came from (127.0.0.x), so the door
    sees the clients' own addresses."""

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
        address = client_w.get_extra_info("peername")[0]
        server_r, server_w = await asyncio.open_connection("127.0.0.1", self.target, local_addr=(address, 0))
        await asyncio.gather(
            self._pipe(client_r, server_w, False), self._pipe(server_r, client_w, True), return_exceptions=True
        )

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, counted: bool) -> None:
        try:
            while data := await reader.read(65536):
                if counted:
                    self.to_clients += len(data)
                writer.write(data)
                await writer.drain()
        finally:
            writer.close()


async def open_player(
    port: int, key: asyncssh.SSHKey, name: str, drawer: Drawer, address: str = "127.0.0.1"
) -> tuple[Any, Player, float]:
    """Connect to ``port`` from ``address`` as ``name``: the connection, the terminal (drawn by
    ``drawer``), and seconds to the first full screen."""
    started = time.monotonic()
    conn = await asyncssh.connect(
        "127.0.0.1", port, username=name, client_keys=[key], known_hosts=None, agent_path=None, local_addr=(address, 0)
    )
    _, player = await conn.create_session(
        lambda: Player(drawer.terminal(80, 24)), term_type="xterm-256color", term_size=(80, 24), encoding=None
    )
    player.session_open_s = time.monotonic() - started
    seen = await player.drawn.wait_for(f"{name} (you)", 120)
    return conn, player, seen - started


async def start_game(host: Host, players: dict[str, Any]) -> None:
    """Everyone at the table gets ready and the first seat starts the game, by their keys
    (``players``: by name, each with an ``async type(keys)``)."""
    for player in players.values():
        await player.type(b"\x12")  # Ctrl+R: ready
    seats = host.table.seats
    await until(lambda: seats.starter is not None and not seats.not_ready(besides=seats.starter), 30)
    assert seats.starter is not None
    await players[seats[seats.starter].name].type(b"\x13")  # Ctrl+S: start
    await until(lambda: host.table.phase == "playing", 30)


async def measure(game: str, sessions: int, pace: float, launches: list[str], tries: int) -> dict[str, Any]:
    out: dict[str, Any] = {
        "game": game,
        "sessions": sessions,
        "pace_s": pace,
        "terminal": "80x24",
        "load_average": {"before": load_average()},
    }
    with tempfile.TemporaryDirectory(prefix="bench-ssh-") as folder:
        for launch in launches:
            async with Drawer() as drawer:
                out[launch] = await _measure(
                    Path(folder) / launch, game, sessions, pace, launch == "warm", tries, drawer
                )
    out["load_average"]["after"] = load_average()
    return out


async def _measure(
    work: Path, game: str, sessions: int, pace: float, warm: bool, tries: int, drawer: Drawer
) -> dict[str, Any]:
    config = HostConfig(
        game=game,
        seats=sessions,
        bots=0,
        headless=True,
        bind="127.0.0.1",
        port=0,
        once=False,
        bot_delay=pace,
        turn_timer=pace,
        away_grace=None,
        seed=7,
    )
    ssh_config = SshConfig(
        port=0,
        bind="127.0.0.1",
        host_key=str(work / "host_key"),
        players_dir=str(work / "players"),
        limits=DoorLimits(idle_timeout=None),
        warm=warm,
        program=join_program(),
    )
    keys = [asyncssh.generate_private_key("ssh-ed25519") for _ in range(sessions + tries)]
    out: dict[str, Any] = {}
    launch = "warm" if warm else "fresh"
    print(f"{launch}: one session alone, {tries} times...", file=sys.stderr)
    alone, alone_ssh, alone_cpu = [], [], []
    for i in range(tries):  # each at a table of its own, as the first friend to come in
        async with Host(config) as host, SshServer(ssh_config, host) as door:
            if warm and not await door.door.wait_warm():
                raise RuntimeError("the zygote never got warm")
            conn, player, took = await open_player(door.port, keys[sessions + i], f"solo{i + 1}", drawer)
            alone.append(round(took, 3))
            alone_ssh.append(player.session_open_s)
            alone_cpu.append(sum(cpu_seconds_exact(pid) for pid in door.children))
            conn.close()
    async with Host(config) as host, SshServer(ssh_config, host) as door:
        if warm:
            await door.door.wait_warm()
            assert door.door.zygote is not None
            out["zygote"] = {"warm_s": door.door.zygote.warm_seconds}
        print(f"{launch}: {sessions} sessions at once...", file=sys.stderr)
        wire = Wire(door.port)
        await wire.start()
        launches = Launches(door.door)
        with Stalls() as stalls:
            opened = await asyncio.gather(
                *(open_player(wire.port, keys[i], f"p{i + 1}", drawer, f"127.0.0.{i + 2}") for i in range(sessions))
            )
        times = sorted(t for _, _, t in opened)
        at_once_cpu = [cpu_seconds_exact(pid) for pid in door.children]  # the last one's lobby just came
        out["first_screen_s"] = {
            "one_session": round(statistics.median(alone), 3),
            "one_session_each_try": alone,
            "one_session_ssh_s": round(statistics.median(alone_ssh), 3),
            f"{sessions}_at_once_p50": round(statistics.median(times), 3),
            f"{sessions}_at_once_max": round(times[-1], 3),
            "host_longest_pause_ms": round(stalls.longest * 1000, 1),
            **launches.figures(),
            "child_cpu_s_to_lobby": {
                "one_session": round(statistics.median(alone_cpu), 4),
                f"{sessions}_at_once": round(statistics.median(at_once_cpu), 4),
            },
        }
        players = [p for _, p, _ in opened]
        pids = list(door.children)
        await asyncio.sleep(1.0)  # the lobby drawn whole (its footer comes a little later)
        out["lobby_memory"] = memory(pids)
        if door.door.zygote is not None and door.door.zygote.pid is not None:
            zygote = door.door.zygote.pid
            out["zygote"] |= {"rss_mib": round(rss_mib(zygote), 1), "uss_mib": round(uss_mib(zygote), 1)}
        await start_game(host, {f"p{i + 1}": p for i, p in enumerate(players)})
        await asyncio.sleep(1.0)  # the game's first screen drawn
        out["game_start_memory"] = memory(pids)
        print(f"{launch}: playing...", file=sys.stderr)
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
        sent = [p.received - b for p, b in zip(players, bytes0)]
        on_wire = wire.to_clients - wire0
        out["game_moves"] = moves
        out["game_seconds"] = round(wall, 1)
        out["per_session"] = {
            **memory(pids),
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
    parser.add_argument(
        "--launch", default=",".join(LAUNCHES), help="how children start, measured in turn: fresh, warm (default both)"
    )
    parser.add_argument("--tries", type=int, default=5, help="times one session alone opens (default 5)")
    args = parser.parse_args(argv)
    launches = [x for x in args.launch.split(",") if x]
    if any(x not in LAUNCHES for x in launches):
        parser.error(f"--launch takes {', '.join(LAUNCHES)}")
    print(json.dumps(asyncio.run(measure(args.game, args.sessions, args.pace, launches, args.tries)), indent=2))


if __name__ == "__main__":
    main()
