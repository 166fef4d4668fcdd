"""Where quackbox keeps files: saved games and seat tokens.

The platform's places (``platformdirs``): saved games under the user data
directory, seat tokens under the user state directory. ``QUACKBOX_DATA_DIR``
and ``QUACKBOX_STATE_DIR`` point them elsewhere (tests use temporary
directories).

Both hold secrets (a journal holds a game's seed and every move; the token
file, seat tokens), so their folders are 0700 and their files 0600 whatever
the umask (:func:`private_dir`, :func:`open_private`), and a journal another
user could read or write is refused (:func:`exposed`).
"""

from __future__ import annotations

import os
import stat
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


PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600
_OTHERS = 0o077
"""Permission bits that let a user other than the owner in."""


def private_dir(path: os.PathLike[str] | str) -> Path:
    """``path`` as a folder only its owner may enter: made 0700 when new,
    tightened to 0700 when it is ours and looser (whatever the umask).

    Raises:
        PermissionError: the folder belongs to another user (a sentence naming it).
    """
    folder = Path(path)
    folder.mkdir(parents=True, exist_ok=True, mode=PRIVATE_DIR)
    if not _POSIX:
        return folder
    info = folder.stat()
    if info.st_uid != os.getuid():
        raise PermissionError(
            f"{folder} belongs to another user; quackbox keeps games and seat tokens only in a folder of yours."
        )
    if info.st_mode & _OTHERS:
        os.chmod(folder, PRIVATE_DIR)
    return folder


def open_private(path: os.PathLike[str] | str, flags: int) -> int:
    """A new file descriptor for ``path`` opened with ``flags`` (plus
    ``O_CREAT``), readable and writable by its owner alone whatever the umask."""
    fd = os.open(path, flags | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), PRIVATE_FILE)
    try:
        if _POSIX:
            os.fchmod(fd, PRIVATE_FILE)
    except OSError:
        os.close(fd)
        raise
    return fd


def exposed(path: os.PathLike[str] | str) -> str:
    """Why another user could read or change the file at ``path`` (a
    sentence), or "" when only its owner, who is us, can."""
    if not _POSIX:
        return ""
    file = Path(path)
    try:
        info = file.stat()
        folder = file.resolve().parent.stat()
    except OSError:
        return ""  # reading it says what is wrong
    if info.st_uid != os.getuid():
        return "belongs to another user, so it may have been written by someone else; quackbox will not use it"
    if info.st_mode & _OTHERS:
        return (
            f"can be read or changed by other users (mode {stat.S_IMODE(info.st_mode):04o}), so it may give the "
            f"game away or have been tampered with; if it is yours, make it private with: chmod 600 {file}"
        )
    if folder.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and not folder.st_mode & stat.S_ISVTX:
        return (
            "is in a folder other users can write to, so it may have been swapped for another; "
            f"move it to a folder of yours (chmod 700 {file.resolve().parent})"
        )
    return ""


_POSIX = hasattr(os, "getuid") and hasattr(os, "fchmod")
