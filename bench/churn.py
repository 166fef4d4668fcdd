"""The browser door under churn: sessions opened and closed for a while, and the host's memory after.

    python -m bench.churn [--seconds 25] [--settle 10] [--parallel 12] [--hold 0.5] [--seats 4]

Prints one JSON object (progress goes to stderr). The host is a real
``quackbox host --headless --web`` process (the installed command beside
this Python, so the bench measures whichever quackbox that Python has
installed), on loopback only, its data in a fresh temporary folder. For
``--seconds``, ``--parallel`` pages at once each open a session with the
room code (a new browser id each time, from an address of their own among
127.1.0.1 onwards, so no one address's rate is what refuses them), read
what the door sends until their first screen or their refusal, stay
``--hold`` seconds and close; some ask to watch, the rest to play. Then
nothing happens for ``--settle`` seconds.

- ``rss_mib``: the host process's resident memory (its children, the
  sessions' and the warm start process, are not counted) before the churn,
  at its peak (sampled every 0.1 s), and ``--settle`` seconds after the
  churn stopped; ``growth_after_settle_mib`` the last less the first.
- ``sessions``: how many were tried, how many drew a screen, how the others
  were answered (close code and reason), failures of the bench's own.
- ``host_after_settle``: the host's children, open file descriptors and
  threads, then and before: what a closed session may have left.

This bench imports nothing of quackbox, so it runs unchanged with the
Python of another checkout (``OTHER/.venv/bin/python -m bench.churn``, from
this folder) to compare that checkout's host.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

PAGE = os.sysconf("SC_PAGE_SIZE")
QUACKBOX = str(Path(sys.executable).with_name("quackbox"))
"""The installed command, as a person would run it."""
FIRST_SCREEN = 10.0
"""Seconds a page waits for its first screen or its refusal before it gives up (counted as a failure)."""
SAMPLE_EVERY = 0.1


def log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


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


def process_state(pid: int) -> dict[str, int]:
    """What the host holds that a session could leave behind."""
    threads = int(re.search(r"^Threads:\s+(\d+)", Path(f"/proc/{pid}/status").read_text(), re.M).group(1))
    return {"children": len(children_of(pid)), "open_fds": len(os.listdir(f"/proc/{pid}/fd")), "threads": threads}


class WebHost:
    """``quackbox host --headless --web`` on 127.0.0.1 in a process of its own, its files under ``work``."""

    def __init__(self, work: Path, seats: int) -> None:
        self.work = work
        self.seats = seats
        self.proc: subprocess.Popen[bytes] | None = None
        self.web_port = 0
        self.code = ""

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    @property
    def output(self) -> str:
        return (self.work / "host.log").read_text(errors="replace")

    async def __aenter__(self) -> WebHost:
        env = {k: v for k, v in os.environ.items() if not k.startswith("QUACKBOX_")}
        env |= {
            "QUACKBOX_DATA_DIR": str(self.work / "data"),
            "QUACKBOX_STATE_DIR": str(self.work / "state"),
            "QUACKBOX_CONFIG_DIR": str(self.work / "config"),
            "PYTHONUNBUFFERED": "1",
        }
        with open(self.work / "host.log", "wb") as out:
            self.proc = subprocess.Popen(
                [
                    QUACKBOX,
                    "host",
                    "--headless",
                    "--bind",
                    "127.0.0.1",
                    "--port",
                    "0",
                    "--web",
                    "0",
                    "--no-journal",
                    "--again",
                    "--seats",
                    str(self.seats),
                ],
                cwd=self.work,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + 60
        # Ready once the link is printed and the warm start process is ready (as friends arrive a while after).
        while True:
            text = self.output
            link = re.search(r"http://127\.0\.0\.1:(\d+)/#(\S+)", text)
            if link and "ready after" in text:
                self.web_port, self.code = int(link.group(1)), link.group(2)
                return self
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the host did not start:\n{text}")
            await asyncio.sleep(0.05)

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


def addresses() -> Any:
    """127.1.0.1, 127.1.0.2, ...: an address of its own for each page, as from many machines."""
    for n in itertools.count():
        yield f"127.{1 + n // 62500 % 250}.{n // 250 % 250}.{1 + n % 250}"


async def one_session(host: WebHost, address: str, name: str, watch: bool, hold: float) -> str:
    """A page opens a session, reads until its first screen or its refusal, stays ``hold`` s, closes."""
    origin = f"http://127.0.0.1:{host.web_port}"
    try:
        async with asyncio.timeout(FIRST_SCREEN + hold + 5):
            # Compression offered, as every browser does.
            async with connect(
                f"ws://127.0.0.1:{host.web_port}/term",
                origin=origin,
                compression="deflate",
                local_addr=(address, 0),
                max_size=None,
                open_timeout=FIRST_SCREEN,
            ) as ws:
                await ws.send(
                    json.dumps(
                        {
                            "hello": 1,
                            "code": host.code,
                            "id": secrets.token_hex(32),
                            "name": name,
                            "watch": watch,
                            "cols": 80,
                            "rows": 24,
                        }
                    )
                )
                try:
                    async with asyncio.timeout(FIRST_SCREEN):
                        drawn = 0
                        async for message in ws:
                            if isinstance(message, bytes):
                                drawn += len(message)
                                if drawn > 2000:  # more than a sentence: the child's screen
                                    break
                except ConnectionClosed:
                    pass
                if ws.close_code is not None:
                    return f"closed {ws.close_code}: {ws.close_reason}"
                await asyncio.sleep(hold)
                return "drew a screen"
    except ConnectionClosed as exc:
        return f"closed {exc.rcvd.code if exc.rcvd else 'abnormally'}: {exc.rcvd.reason if exc.rcvd else ''}"
    except InvalidStatus as exc:
        return f"HTTP {exc.response.status_code}"
    except (OSError, TimeoutError) as exc:
        return f"failed: {type(exc).__name__}"


async def churn(host: WebHost, seconds: float, parallel: int, hold: float) -> Counter[str]:
    told: Counter[str] = Counter()
    where = addresses()
    count = itertools.count()
    stop = time.monotonic() + seconds

    async def page(lane: int) -> None:
        while time.monotonic() < stop:
            n = next(count)
            told[await one_session(host, next(where), f"churn{n}", watch=n % 3 == 0, hold=hold)] += 1

    await asyncio.gather(*(page(lane) for lane in range(parallel)))
    return told


async def measure(seconds: float, settle: float, parallel: int, hold: float, seats: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="bench-churn-") as folder:
        async with WebHost(Path(folder), seats) as host:
            pid = host.pid
            start = rss_mib(pid)
            before = process_state(pid)
            peak = start
            sampling = True

            async def sample() -> None:
                nonlocal peak
                while sampling:
                    peak = max(peak, rss_mib(pid))
                    await asyncio.sleep(SAMPLE_EVERY)

            sampler = asyncio.get_running_loop().create_task(sample())
            log(f"churn: {seconds:g} s of sessions, {parallel} at once...")
            started = time.monotonic()
            told = await churn(host, seconds, parallel, hold)
            took = time.monotonic() - started
            at_stop = rss_mib(pid)
            log(f"settle: {settle:g} s of nothing...")
            await asyncio.sleep(settle)
            sampling = False
            await sampler
            end = rss_mib(pid)
            after = process_state(pid)
            tracebacks = host.tracebacks()
    drew = told.pop("drew a screen", 0)
    return {
        "quackbox": QUACKBOX,
        "churn_s": round(took, 1),
        "settle_s": settle,
        "parallel": parallel,
        "seats": seats,
        "rss_mib": {
            "start": round(start, 1),
            "peak": round(peak, 1),
            "when_the_churn_stopped": round(at_stop, 1),
            "after_settle": round(end, 1),
        },
        "growth_after_settle_mib": round(end - start, 1),
        "sessions": {"tried": drew + sum(told.values()), "drew_a_screen": drew, "otherwise": dict(told.most_common())},
        "host_after_settle": after,
        "host_before": before,
        "host_tracebacks": tracebacks,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.churn", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=25.0, help="how long sessions churn (default 25)")
    parser.add_argument("--settle", type=float, default=10.0, help="seconds after the churn before the last figure")
    parser.add_argument("--parallel", type=int, default=12, help="pages opening sessions at once (default 12)")
    parser.add_argument("--hold", type=float, default=0.5, help="seconds a page stays after its first screen")
    parser.add_argument("--seats", type=int, default=4, help="seats at the table (default 4)")
    args = parser.parse_args(argv)
    if shutil.which(QUACKBOX) is None:
        parser.error(f"no quackbox command beside this Python ({QUACKBOX}): install the checkout first")
    print(json.dumps(asyncio.run(measure(args.seconds, args.settle, args.parallel, args.hold, args.seats)), indent=2))


if __name__ == "__main__":
    main()
