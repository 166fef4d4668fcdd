"""Each key's folder at a door: its settings and seat token, readable by the host's user only.

A key is a player's identity at a door (an SSH key's fingerprint, a browser's
random id). Its folder is made by its child when it first saves there (its
seat token, as the key takes a seat), so a stranger leaves nothing behind;
folders unseen for :data:`~quackbox.net.door_policy.FOLDER_MAX_AGE` go when a
door opens.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

from quackbox.net import places
from quackbox.net.door_policy import stale_folders
from quackbox.net.tokens import FILENAME as TOKENS_FILE
from quackbox.net.tokens import TokenStore

__all__ = ["Key", "PlayerFolders"]

log = logging.getLogger("quackbox.door")


@dataclass(frozen=True)
class Key:
    """A player's identity at a door: ``id`` (an SSH key's fingerprint, a
    browser's random id) and ``folder``, the name of its folder (a file name
    made from it, the same every time)."""

    id: str
    folder: str


class PlayerFolders:
    """Each key's folder under ``root`` (its settings and seat token), readable by the host's user only.

    The root is the door's own folder, and the children's working folder. A
    key's folder is not made here: its child makes it when it first saves
    there (its seat token, when the key takes a seat), so a stranger leaves
    nothing behind.
    """

    def __init__(self, root: Path) -> None:
        self.root = root

    def open(self, now: float) -> int:
        """Make the root (private), and remove the folders of keys unseen for
        :data:`~quackbox.net.door_policy.FOLDER_MAX_AGE`; how many were removed."""
        places.private_dir(self.root)
        seen = {}
        for entry in self.root.iterdir():
            with contextlib.suppress(OSError):
                info = entry.lstat()
                if stat.S_ISDIR(info.st_mode):
                    seen[entry.name] = info.st_mtime
        removed = 0
        for name in stale_folders(seen, now):
            try:
                shutil.rmtree(self.root / name)
                removed += 1
            except OSError as exc:
                log.warning("cannot remove the old player folder %s: %s", self.root / name, exc)
        return removed

    def of(self, key: Key) -> Path:
        return self.root / key.folder

    def seen(self, key: Key) -> None:
        """The key came in: its folder, if it has one, counts as seen now."""
        with contextlib.suppress(OSError):
            os.utime(self.of(key))

    def tokens(self, key: Key) -> TokenStore:
        return TokenStore(self.of(key) / "state" / TOKENS_FILE)
