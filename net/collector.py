"""The garbage collector of a process that hosts tables.

A host process keeps a large, steady set of objects: all it imported (a
``quackbox host`` with its doors holds some 70,000 objects before any game),
and then every connection and every table. Python's cyclic collector walks
every one of them in each full collection, with every table of the process
stopped meanwhile: about 90 ms for those 70,000 here, 80-120 ms for the
100,000 of a process with 200 tables (``bench.net``). With Python's default
thresholds a busy host runs one every few seconds, and each is a hitch in
every game and most of a move's p99.

:func:`settle` is called once a host has started (its imports done, its
doors open), before players come:

- what exists then is kept for the process's life (:func:`gc.freeze`), so no
  collection walks it again: the imports, the card tables, the host itself;
- a full collection waits for :data:`FULL_AFTER` collections of the middle
  generation instead of Python's 10 (and, as ever, for the objects that
  reached the oldest generation since the last one to number a quarter of
  it), so a busy host walks its connections and tables ten times less
  often: at 150 to 250 tables, ``bench.net`` saw none in its measuring
  windows (longest pause 4-14 ms), where the host before it ran one in
  half of them, of 91-121 ms.

The cost: a reference cycle among the objects frozen here is never freed,
so only what lasts as long as the process should exist when this is
called; and cyclic garbage that reached the oldest generation waits longer
to be freed. A host makes little: its tables' states are values that die
by reference count.
"""

from __future__ import annotations

import gc

__all__ = ["FULL_AFTER", "settle"]

FULL_AFTER = 100
"""Collections of the middle generation between two full ones (Python's default: 10)."""


def settle() -> None:
    """Keep what this process has made so far for its life, and collect the
    oldest generation less often (never more often than it is already set to)."""
    gc.collect()  # what is garbage now goes, and is not frozen with the rest
    gc.freeze()
    young, middle, full = gc.get_threshold()
    gc.set_threshold(young, middle, max(full, FULL_AFTER))
