"""Room codes: making one, and telling whether a code given is a table's.

A code is twelve letters in groups of four (``KQXZ-BDFG-HJKL``): no vowels,
so no words and no 0/O or 1/I mix-ups, about 52 bits (see "Room codes" in
docs/PROTOCOL.md for why that is enough). People may type it with or without
the dashes, with spaces, in any case: :func:`same_code` is the one place that
says which spellings are the same code, for every door.
"""

from __future__ import annotations

import hmac
import secrets

__all__ = ["ROOM_CODE_GROUP", "ROOM_CODE_LENGTH", "ROOM_CODE_LETTERS", "new_room_code", "same_code"]

ROOM_CODE_LETTERS = "BCDFGHJKLMNPQRSTVWXZ"
ROOM_CODE_LENGTH = 12
ROOM_CODE_GROUP = 4


def new_room_code() -> str:
    """A fresh room code such as ``KQXZ-BDFG-HJKL`` (from :mod:`secrets`); the dashes are for
    reading, a code may be given without them."""
    letters = "".join(secrets.choice(ROOM_CODE_LETTERS) for _ in range(ROOM_CODE_LENGTH))
    return "-".join(letters[i : i + ROOM_CODE_GROUP] for i in range(0, ROOM_CODE_LENGTH, ROOM_CODE_GROUP))


def _plain(text: str) -> bytes:
    return "".join(text.split()).replace("-", "").upper().encode("utf-8")


def same_code(given: str, code: str) -> bool:
    """Whether ``given`` is the room ``code`` (no spaces or dashes, any case), in constant time."""
    return hmac.compare_digest(_plain(given), _plain(code))
