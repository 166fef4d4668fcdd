"""The keys of the SSH door: the host's own key, who may come in, and where players' folders go.

- The host key is made once (ed25519) in the user data directory, written
  readable by its owner only, and its SHA256 fingerprint is what players
  compare with what their ``ssh`` shows on first connecting.
- An allow file (``--ssh-allow``, in ``authorized_keys`` format, options
  such as ``from=`` included) limits a private table to known keys; it is
  read again when it changes, so a friend can be added while the table runs.
- A player's key fingerprint is their identity: each key's folder (settings,
  seat token; see :class:`quackbox.net.player_folders.PlayerFolders`) is under
  ``ssh-players`` in the user data directory.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from quackbox.net import places
from quackbox.net.errors import DoorError
from quackbox.net.sshlib import asyncssh

__all__ = ["AllowList", "SshKeyError", "load_host_key", "players_dir"]

HOST_KEY_FILE = "ssh_host_ed25519_key"
PLAYERS_DIR = "ssh-players"
PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600


class SshKeyError(DoorError):
    """A key or allow file cannot be used; the message is a sentence for the person who started the host."""


def load_host_key(path: os.PathLike[str] | str | None = None) -> asyncssh.SSHKey:
    """The host's key at ``path`` (default: in the user data directory), made the first time.

    Raises:
        SshKeyError: the file is readable by others, not ours, or not a key.
    """
    path = Path(path) if path is not None else places.data_dir() / HOST_KEY_FILE
    if not path.exists():
        _private_dir(path.parent)
        key = asyncssh.generate_private_key("ssh-ed25519", comment="quackbox host key")
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE)
        with os.fdopen(fd, "wb") as handle:
            handle.write(key.export_private_key())
        return key
    info = path.stat()
    if info.st_uid != os.getuid() or info.st_mode & 0o077:
        raise SshKeyError(
            f"The SSH host key {path} may be read or changed by other users; "
            f"run 'chmod 600 {path}' (or delete it to make a new key)."
        )
    try:
        return asyncssh.read_private_key(path)
    except (OSError, ValueError, asyncssh.KeyImportError) as exc:
        raise SshKeyError(f"The SSH host key {path} cannot be read ({exc}); delete it to make a new key.") from None


def players_dir(path: os.PathLike[str] | str | None = None) -> Path:
    """Where each key's folder goes (default: in the user data directory)."""
    return Path(path) if path is not None else places.data_dir() / PLAYERS_DIR


def _private_dir(path: Path) -> None:
    path.mkdir(parents=True, exist_ok=True)
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode != PRIVATE_DIR:
        os.chmod(path, PRIVATE_DIR)


class AllowList:
    """The keys allowed in, from an ``authorized_keys`` file, read again whenever it changes.

    Raises:
        SshKeyError: at start, when the file cannot be read or holds no key.
    """

    def __init__(self, path: os.PathLike[str] | str) -> None:
        self.path = Path(path)
        self._stamp: tuple[float, int] | None = None
        self._keys = self._read()

    def _read(self) -> asyncssh.SSHAuthorizedKeys:
        try:
            info = self.path.stat()
            text = self.path.read_text(encoding="utf-8")
            keys = asyncssh.import_authorized_keys(text)
        except (OSError, UnicodeDecodeError) as exc:
            raise SshKeyError(f"Cannot read the allowed keys in {self.path}: {exc}.") from None
        except ValueError as exc:
            raise SshKeyError(f"{self.path} is not in authorized_keys format: {exc}.") from None
        self._stamp = (info.st_mtime, info.st_size)
        return keys

    def allows(self, key: asyncssh.SSHKey, host: str, address: str) -> bool:
        """Whether ``key`` may come in from ``address`` (a file now broken keeps the last good list)."""
        try:
            info = self.path.stat()
            if (info.st_mtime, info.st_size) != self._stamp:
                self._keys = self._read()
        except (OSError, SshKeyError):
            pass
        return self._keys.validate(key, host, address) is not None
