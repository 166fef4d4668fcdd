"""A host's collector (net.collector): what exists once the host has started is frozen, cyclic
garbage made before or after is still freed, and full collections come less often, never more.

Each case runs in a fresh interpreter: the collector's settings belong to the whole process."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from quackbox.net.collector import FULL_AFTER


def probe(code: str) -> list[str]:
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, check=True)
    return out.stdout.split()


def test_what_the_host_made_is_frozen_and_garbage_is_still_freed():
    assert probe("""
        import gc, weakref
        from quackbox.net import collector

        class Node:
            pass

        def cycle():
            node = Node()
            node.me = node
            return weakref.ref(node)

        kept = [[n] for n in range(1000)]
        dropped = cycle()  # garbage when the host settles: freed, not frozen for good
        collector.settle()
        made_after = cycle()
        gc.collect()
        print(dropped() is None, gc.get_freeze_count() >= 1000, made_after() is None)
    """) == ["True", "True", "True"]


def test_full_collections_come_less_often_never_more():
    assert probe("""
        import gc
        from quackbox.net import collector

        gc.set_threshold(700, 10, 10)
        collector.settle()
        first = gc.get_threshold()
        gc.set_threshold(700, 10, 100000)
        collector.settle()
        print(*first, *gc.get_threshold())
    """) == ["700", "10", str(FULL_AFTER), "700", "10", "100000"]
