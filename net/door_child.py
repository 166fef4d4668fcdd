"""The first step of a door's child: ``python -P -m quackbox.net.door_child WORKDIR join ...``.

Before anything else, what the child writes is made private (umask 077)
and it moves to its working folder (the door's own); then it runs
``quackbox`` with the rest of its command line. A module of its own, which
a zygote (:mod:`quackbox.net.zygote`) never imports: a warm child runs it
as ``python -m`` would, fresh, as its ``__main__``.
"""

from __future__ import annotations

import os
import sys
from typing import Sequence


def main(argv: Sequence[str]) -> int:
    if not argv:
        print("usage: python -P -m quackbox.net.door_child WORKDIR COMMAND ...", file=sys.stderr)
        return 2
    os.umask(0o077)
    os.chdir(argv[0])
    from quackbox.__main__ import main as quackbox

    status: int = quackbox(list(argv[1:]))  # __main__ is not type-checked: say what comes back
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
