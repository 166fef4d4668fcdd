"""Bots for tests that think in real worker processes: importable there by name."""

from __future__ import annotations

import os
import random

from quackbox.core.bots import Bot


class WorkerBot(Bot):
    """A slow bot that notes the process it chose in (``die``: the process dies instead)."""

    name = "worker"
    slow = True

    def __init__(self, die: bool = False) -> None:
        self.die = die
        self.pids: list[int] = []

    def choose(self, view):
        if self.die:
            os._exit(3)
        self.pids.append(os.getpid())
        return view.legal[0]


class NotingRandom(Bot):
    """A random bot that says it is slow, and writes the process each choice was made in to ``record``."""

    name = "noting"
    slow = True
    remembers = True

    def __init__(self, seed: int, record: str) -> None:
        self.rng = random.Random(seed)
        self.record = record
        self.seen = 0

    def choose(self, view):
        with open(self.record, "a") as out:
            out.write(f"{os.getpid()}\n")
        return self.rng.choice(view.legal)

    def observe(self, events, seat):
        self.seen += 1
