"""What an SSH session runs: the command and the whole environment of its child.

Kept apart from :mod:`quackbox.net.ssh` (and asyncssh) so ``quackbox join`` can read
:data:`ROOM_CODE_ENV` without loading an SSH library.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

import quackbox

__all__ = ["HOST_KEY_ENV", "PASSED_ENV", "ROOM_CODE_ENV", "VIA_ENV", "Launch", "child_environment", "join_command", "safe_value"]

ROOM_CODE_ENV = "QUACKBOX_ROOM_CODE"
"""The room code for ``quackbox join`` when no --code is given: not on the
command line, which any local user can read."""
VIA_ENV = "QUACKBOX_SSH_VIA"
"""How the player reached the table (``ssh -p 2222 HOST``): what their screen calls it."""
HOST_KEY_ENV = "QUACKBOX_SSH_HOST_KEY"
"""The SSH host key's fingerprint, shown in the lobby so players can check it."""
PASSED_ENV = ("COLORTERM", "NO_COLOR")
"""What a client may send with SendEnv/SetEnv that reaches the child."""
_SAFE = re.compile(r"[A-Za-z0-9._+-]{1,64}")


def safe_value(text: str) -> bool:
    """Whether ``text`` may go into a child's environment (a terminal type, COLORTERM...)."""
    return bool(_SAFE.fullmatch(text))


@dataclass(frozen=True)
class Launch:
    """What a session's child is started with."""

    url: str
    """The table over loopback."""
    name: str
    spectate: bool
    folder: Path
    """The key's own folder: the child's settings and seat tokens."""
    term: str = "xterm"
    """TERM, from the PTY request."""
    code: str | None = None
    """The table's room code."""
    client_env: Mapping[str, str] = field(default_factory=dict)
    """What the client sent of :data:`PASSED_ENV`."""
    via: str = ""
    """How the player reached the table: ``ssh -p 2222 HOST``."""
    host_key: str = ""
    """The SSH host key's SHA256 fingerprint."""


def join_command(launch: Launch) -> list[str]:
    """``python -m quackbox join URL --name=NAME [--spectate]`` with the host's own Python.

    The name goes in the same argument as its flag: an SSH user name such as
    ``--spectate`` or ``-x`` is a name, never an option.
    """
    argv = [sys.executable, "-m", "quackbox", "join", launch.url, f"--name={launch.name}"]
    return argv + ["--spectate"] if launch.spectate else argv


def child_environment(launch: Launch) -> dict[str, str]:
    """The child's whole environment: nothing of the host's but how to run Python."""
    # The child runs the code the host runs, installed or not.
    code_root = str(Path(quackbox.__file__).resolve().parent.parent)
    paths = [code_root] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    folder = launch.folder
    env = {
        "PATH": os.environ.get("PATH", os.defpath),
        "PYTHONPATH": os.pathsep.join(paths),
        "HOME": str(folder),
        "TERM": launch.term,
        "LANG": "C.UTF-8",
        "LC_CTYPE": "C.UTF-8",
        "PYTHONIOENCODING": "utf-8",
        "QUACKBOX_CONFIG_DIR": str(folder / "config"),
        "QUACKBOX_STATE_DIR": str(folder / "state"),
        "QUACKBOX_DATA_DIR": str(folder / "data"),
    }
    if launch.code:
        env[ROOM_CODE_ENV] = launch.code
    if launch.via:
        env[VIA_ENV] = launch.via
    if launch.host_key:
        env[HOST_KEY_ENV] = launch.host_key
    for key in PASSED_ENV:
        value = launch.client_env.get(key)
        if value is not None and safe_value(value):
            env[key] = value
    return env
