"""A door's child: the command that starts it and the environment it starts in.

The host's own Python in safe-path mode (``-P``: neither the folder the host
was started in nor the child's own is on its import path), started in a
folder of the door's own that nobody else may write to, with an environment
made from scratch. It imports quackbox only from where it is installed
(:func:`child_import_path` says when that takes a PYTHONPATH, and refuses one
that others could plant modules in). What the child runs is the command's to
say (:class:`ChildProgram`, given by the wiring layer,
``quackbox.door_child``). :meth:`quackbox.net.door.Door.launch` is the one
way a door starts one.
"""

from __future__ import annotations

import importlib.machinery
import logging
import os
import site
import stat
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

from quackbox.net.errors import DoorError

log = logging.getLogger("quackbox.door")

ROOM_CODE_ENV = "QUACKBOX_ROOM_CODE"
"""The room code for ``quackbox join`` when no --code is given: not on the
command line, which any local user can read."""
VIA_ENV = "QUACKBOX_DOOR_VIA"
"""How the player reached the table (``ssh -p 2222 HOST``, ``http://HOST:7118``): what their screen calls it."""
HOST_KEY_ENV = "QUACKBOX_SSH_HOST_KEY"
"""The SSH host key's fingerprint, shown in the lobby so players can check it."""
DRIVER_ENV = "TEXTUAL_DRIVER"
"""Textual's own setting for the terminal driver: a door's child reads its keys
through its program's driver (:attr:`ChildProgram.driver`), which drops what no
person could type."""
PASSED_ENV = ("COLORTERM", "NO_COLOR", "UNICODE_VERSION")
"""What a client may send (SSH's SendEnv/SetEnv) that reaches the child. UNICODE_VERSION
is Rich's: the Unicode version whose character widths the child counts by, for a
terminal that counts by an older one (the browser door's page says its own)."""
SESSION_ENV = frozenset(
    {
        "HOME",
        "TERM",
        "QUACKBOX_CONFIG_DIR",
        "QUACKBOX_STATE_DIR",
        "QUACKBOX_DATA_DIR",
        ROOM_CODE_ENV,
        VIA_ENV,
        HOST_KEY_ENV,
        *PASSED_ENV,
    }
)
"""What of a child's environment is its session's own; the rest (:func:`interpreter_environment`)
is every child's, and its zygote's. Nothing here may be read as a warm module is imported."""
_SAFE_VALUE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._+-")


# --- the child ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Launch:
    """What a session's child is started with."""

    url: str
    """The table over loopback."""
    name: str
    spectate: bool
    folder: Path
    """The key's own folder: the child's settings and seat tokens (made by the child when it saves)."""
    workdir: Path
    """The child's working folder: the door's own, which nobody else may write to."""
    term: str = "xterm"
    """TERM, from the terminal request."""
    code: str | None = None
    """The table's room code."""
    client_env: Mapping[str, str] = field(default_factory=dict)
    """What the client sent of :data:`PASSED_ENV`."""
    via: str = ""
    """How the player reached the table: ``ssh -p 2222 HOST``."""
    host_key: str = ""
    """The SSH host key's SHA256 fingerprint."""


def safe_value(text: str) -> bool:
    """Whether ``text`` may go into a child's environment (a terminal type, COLORTERM...)."""
    return 0 < len(text) <= 64 and all(ch in _SAFE_VALUE for ch in text)


@dataclass(frozen=True)
class ChildProgram:
    """What a door's child runs, as the layer above says (net/ names nothing above it):
    ``python -P -m MODULE WORKDIR join ...``, its terminal driver, and what a warm
    start imports before its first fork."""

    module: str
    """The module run with ``-m``: it makes its files private, moves to WORKDIR and runs
    ``quackbox`` with the rest of the command line."""
    driver: str
    """Textual's terminal driver for the child (``module:Class``)."""
    warm: tuple[str, ...] = ()
    """What the zygote imports (or, ``module:function``, calls) before its first fork."""


def child_command(launch: Launch, program: ChildProgram) -> list[str]:
    """``python -P -m MODULE WORKDIR join URL --name=NAME [--spectate]`` with the host's own Python.

    ``-P``: the folder the child starts in is not on its import path. The
    name goes in the same argument as its flag: an SSH user name such as
    ``--spectate`` or ``-x`` is a name, never an option.
    """
    argv = [
        sys.executable,
        "-P",
        "-m",
        program.module,
        str(launch.workdir),
        "join",
        launch.url,
        f"--name={launch.name}",
    ]
    return argv + ["--spectate"] if launch.spectate else argv


def interpreter_environment(import_path: Sequence[str] = (), program: ChildProgram | None = None) -> dict[str, str]:
    """What every child's environment holds, whatever its session: how to run Python
    (``import_path``: what :func:`child_import_path` found it needs) and its program's driver.
    A zygote's environment too (with a HOME of its own): what is read as Python starts
    and as the warm modules are imported must be what a child would have read."""
    env = {
        "PATH": os.environ.get("PATH", os.defpath),
        "LANG": "C.UTF-8",
        "LC_CTYPE": "C.UTF-8",
        "PYTHONIOENCODING": "utf-8",
        "PYTHONSAFEPATH": "1",
    }
    if program is not None:
        env[DRIVER_ENV] = program.driver
    if import_path:
        env["PYTHONPATH"] = os.pathsep.join(import_path)
    if site.ENABLE_USER_SITE and site.USER_BASE:
        # HOME is the key's folder: a user install of the host's is found through its base.
        env["PYTHONUSERBASE"] = site.USER_BASE
    return env


def child_environment(
    launch: Launch, import_path: Sequence[str] = (), program: ChildProgram | None = None
) -> dict[str, str]:
    """The child's whole environment: nothing of the host's but how to run Python
    (:func:`interpreter_environment`), then what is its session's own (:data:`SESSION_ENV`)."""
    folder = launch.folder
    env = interpreter_environment(import_path, program)
    env.update(
        {
            "HOME": str(folder),
            "TERM": launch.term,
            "QUACKBOX_CONFIG_DIR": str(folder / "config"),
            "QUACKBOX_STATE_DIR": str(folder / "state"),
            "QUACKBOX_DATA_DIR": str(folder / "data"),
        }
    )
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


def child_import_path() -> list[str]:
    """The folders a child needs on PYTHONPATH to import quackbox from where the host did.

    None when quackbox is installed (the child's Python finds it by itself,
    in safe-path mode). A host run from a checkout that is not installed
    imported it from the checkout: that folder is passed on, and so are the
    host's own PYTHONPATH entries, but never the folder the host was started
    in and never one that other users can write to (they could plant a
    module there, and it would run as the host's user).

    Raises:
        DoorError: quackbox itself lives in such a folder.
    """
    import quackbox

    package = Path(quackbox.__file__).resolve()
    cwd = Path.cwd().resolve()
    given = [] if sys.flags.ignore_environment else [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    start = sys.path[:1] if not sys.flags.safe_path else []
    own = [p for p in sys.path if p and p not in given and p not in start and Path(p).resolve() != cwd]
    path: list[str] = []
    if _find_quackbox(own) != package:
        root = package.parent.parent
        refusal = _unsafe_folder(root, cwd)
        if refusal:
            raise DoorError(
                f"quackbox runs from {root}, which {refusal}: each session would import what is put there. "
                "Install quackbox (pip install .) or run it from a folder only you can write to."
            )
        path.append(str(root))
    for entry in given:
        folder = Path(entry).resolve()
        refusal = _unsafe_folder(folder, cwd)
        if refusal:
            log.warning("PYTHONPATH %s is not passed to sessions: it %s", entry, refusal)
        elif str(folder) not in path:
            path.append(str(folder))
    return path


def _find_quackbox(path: list[str]) -> Path | None:
    """Where a Python with import path ``path`` (and this one's import hooks) finds quackbox."""
    for finder in sys.meta_path:
        find = getattr(finder, "find_spec", None)
        if find is None:
            continue
        try:
            spec = find("quackbox", path) if finder is importlib.machinery.PathFinder else find("quackbox", None)
        except (ImportError, ValueError, TypeError):
            continue
        if spec is not None and spec.origin:
            return Path(spec.origin).resolve()
    return None


def _unsafe_folder(folder: Path, cwd: Path) -> str:
    """Why modules in ``folder`` could be someone else's (a phrase), or ""."""
    if folder == cwd:
        return "is the folder the host was started in"
    try:
        info = folder.stat()
    except OSError:
        return "cannot be read"
    if info.st_uid not in (0, os.getuid()):
        return "belongs to another user"
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return "other users can write to"
    return ""
