"""A door's child: what runs ``quackbox join`` for a session that came in through a door.

``python -P -m quackbox.door_child WORKDIR join ...``: before anything else,
what the child writes is made private (umask 077) and it moves to its
working folder (the door's own); then it runs ``quackbox`` with the rest of
its command line. A zygote (:mod:`quackbox.net.zygote`) never imports this
module: a warm child runs it as ``python -m`` would, fresh, as its
``__main__``.

:func:`join_program` is what a door is given to start such children: this
module, the table's terminal driver for doors, and what a warm start imports
first. It lives here, in the command's layer, because it names the layers
above the network (the TUI, the command itself); net/ knows none of them.
"""

from __future__ import annotations

import os
import sys
from typing import Sequence

from quackbox.core import games
from quackbox.net.door_launch import ChildProgram

DRIVER = "quackbox.tui.driver:DoorDriver"
"""The terminal driver a door's child reads keys through: it drops what no person could type."""


def warm_modules() -> tuple[str, ...]:
    """What ``quackbox join`` loads up to a table's lobby and first game screen, for every game
    (from the games' registries), and the wire's first decoding: what a warm start does first."""
    from quackbox.tui.games import ui_modules

    rules_and_bots = tuple(module for game in games.GAMES for module in games.modules(game))
    return (
        "quackbox.__main__",
        "quackbox.netcmd",
        "quackbox.savecmd",
        "quackbox.tui.app",
        "quackbox.tui.lobby",
        DRIVER.split(":")[0],
        *ui_modules(),
        *rules_and_bots,
        "textual.layouts.factory",
        "textual.scrollbar",
        "textual.pilot",
        "textual.drivers.headless_driver",
        "quackbox.net.fork_server:read_the_wire",
    )


def join_program() -> ChildProgram:
    """What a door's child runs: this module, with the door's driver, warmed as above."""
    return ChildProgram(
        module=__name__ if __name__ != "__main__" else "quackbox.door_child", driver=DRIVER, warm=warm_modules()
    )


def main(argv: Sequence[str]) -> int:
    if not argv:
        print("usage: python -P -m quackbox.door_child WORKDIR COMMAND ...", file=sys.stderr)
        return 2
    os.umask(0o077)
    os.chdir(argv[0])
    from quackbox.__main__ import main as quackbox

    return quackbox(list(argv[1:]))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
