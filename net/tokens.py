"""Seat tokens kept on the player's machine, so a seat is found again.

When a host is restarted with ``--resume`` (or the player's own terminal
died), ``quackbox join`` offers the token it was last given at that table
address and gets its seat and hand back without anyone typing anything.
The file is ``tokens.json`` in the user state directory, readable only by
its owner; a token the host no longer knows is simply forgotten.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from quackbox.net import places

FILENAME = "tokens.json"
KEEP = 50
"""Tables remembered; the oldest are forgotten first."""


def _key(url: str, name: str) -> str:
    # Keyed by name too: two people sharing one login (an SSH box) each
    # reclaim their own seat, never each other's.
    return f"{url} {name.strip().casefold()}" if name.strip() else url


class TokenStore:
    """Seat tokens by table address and player name. Never raises for a missing or broken file."""

    def __init__(self, path: os.PathLike[str] | str | None = None) -> None:
        self.path = Path(path) if path is not None else places.state_dir() / FILENAME

    def _load(self) -> dict[str, Any]:
        if places.exposed(self.path):
            return {}  # tokens another user could have read or planted are no tokens
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def recall(self, url: str, name: str = "") -> str | None:
        entry = self._load().get(_key(url, name))
        token = entry.get("token") if isinstance(entry, dict) else None
        return token if isinstance(token, str) and token else None

    def remember(self, url: str, token: str, *, name: str = "", game: str = "") -> None:
        data = self._load()
        data[_key(url, name)] = {"token": token, "game": game, "saved": time.time()}
        if len(data) > KEEP:
            newest = sorted(data.items(), key=lambda kv: kv[1].get("saved", 0) if isinstance(kv[1], dict) else 0)
            data = dict(newest[-KEEP:])
        self._save(data)

    def forget(self, url: str, name: str = "") -> None:
        data = self._load()
        if data.pop(_key(url, name), None) is not None:
            self._save(data)

    def _save(self, data: dict[str, Any]) -> None:
        try:
            # Tokens are secrets: only their owner may read them.
            places.private_dir(self.path.parent)
            temp = self.path.with_suffix(".tmp")
            fd = places.open_private(temp, os.O_WRONLY | os.O_TRUNC)
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(data, handle)
            os.replace(temp, self.path)
        except OSError:
            pass  # forgetting a token only means joining as a newcomer next time
