"""Where quackbox keeps files: saved games and seat tokens.

The platform's places (``platformdirs``): saved games under the user data
directory, seat tokens under the user state directory. ``QUACKBOX_DATA_DIR``
and ``QUACKBOX_STATE_DIR`` point them elsewhere (tests use temporary
directories).
"""

from __future__ import annotations

import os
from pathlib import Path

APP = "quackbox"


def data_dir() -> Path:
    env = os.environ.get("QUACKBOX_DATA_DIR")
    if env:
        return Path(env)
    from platformdirs import user_data_dir

    return Path(user_data_dir(APP))


def games_dir() -> Path:
    """Where each game's journal is written."""
    return data_dir() / "games"


def state_dir() -> Path:
    env = os.environ.get("QUACKBOX_STATE_DIR")
    if env:
        return Path(env)
    from platformdirs import user_state_dir

    return Path(user_state_dir(APP))
