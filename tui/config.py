"""What the home screen remembers between runs: your name and last choices.

A small JSON file in the user's config directory
(``platformdirs.user_config_dir("quackbox")/settings.json``). The
``QUACKBOX_CONFIG_DIR`` environment variable points it elsewhere (tests use a
temporary directory). A missing, unreadable or garbled file gives the
defaults; a file that cannot be written is skipped quietly: forgetting a
preference is never worth an error on screen.
"""

from __future__ import annotations

import getpass
import json
import os
import pathlib
import tempfile
from dataclasses import asdict, dataclass, field, fields
from typing import Any

ENV_DIR = "QUACKBOX_CONFIG_DIR"
FILENAME = "settings.json"
MAX_NAME = 24

BOT_SPEEDS: tuple[tuple[str, float], ...] = (
    ("slow", 1.6),
    ("normal", 0.8),
    ("fast", 0.3),
    ("instant", 0.0),
)
"""Bot pacing choices on the home screen: seconds between bot moves."""
MAX_BOT_DELAY = 10.0


def config_dir(override: str | os.PathLike[str] | None = None) -> pathlib.Path:
    """Where settings live: ``override``, else $QUACKBOX_CONFIG_DIR, else the platform's place."""
    if override is not None:
        return pathlib.Path(override)
    env = os.environ.get(ENV_DIR)
    if env:
        return pathlib.Path(env)
    from platformdirs import user_config_dir

    return pathlib.Path(user_config_dir("quackbox"))


def default_name() -> str:
    try:
        name = getpass.getuser()
    except Exception:  # no login name in some containers
        name = ""
    name = "".join(ch for ch in name if ch.isprintable()).strip()
    # As its owner wrote it: a name is never re-cased on any screen.
    return name[:MAX_NAME] if name else "Player"


@dataclass
class Settings:
    """The remembered choices. Unknown or mistyped fields in the file are ignored."""

    name: str = field(default_factory=default_name)
    game: str = "side-effects"
    players: int = 4
    bot_delay: float = 0.8
    """Seconds between bot moves (see BOT_SPEEDS)."""
    bot_level: str = "normal"
    """The bots' level: easy, normal or hard (core.bots.LEVELS)."""
    options: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Game options by game name, as plain values (``{"quack": {"deathmatch": true}}``)."""
    join_address: str = ""
    join_code: str = ""
    host_port: int = 7117
    host_bind: str = "0.0.0.0"
    theme: str = ""
    """The Textual theme last chosen (command palette); empty: chosen for the terminal's colours."""
    auto_pass: int = 1
    """Quack: 1 to pass a response window by itself after a few seconds unless a card is picked."""
    bell: int = 1
    """1 to ring the terminal bell when a prompt with a short countdown opens for you (Tremors)."""
    ascii: int = 0
    """1 to draw the table without box drawing, check marks and other glyphs a plain terminal may lack."""
    played: dict[str, int] = field(default_factory=dict)
    """Games against bots dealt to the person, by game: the first few they sit first (tui.first_games)."""
    introduced: dict[str, int] = field(default_factory=dict)
    """1 for each game whose how-to-play card the person has seen (it opens once)."""

    @classmethod
    def from_dict(cls, data: Any) -> Settings:
        out = cls()
        if not isinstance(data, dict):
            return out
        for f in fields(cls):
            if f.name not in data:
                continue
            value = data[f.name]
            current = getattr(out, f.name)
            if isinstance(current, bool) or isinstance(value, bool):
                continue
            if isinstance(current, float) and isinstance(value, (int, float)):
                setattr(out, f.name, float(value))
            elif isinstance(current, int) and isinstance(value, int):
                setattr(out, f.name, value)
            elif isinstance(current, str) and isinstance(value, str):
                setattr(out, f.name, value[:200])
            elif isinstance(current, dict) and isinstance(value, dict):
                setattr(out, f.name, {str(k): v for k, v in value.items()})
        out.name = out.name.strip()[:MAX_NAME] or default_name()
        if not 2 <= out.players <= 8:
            out.players = 4
        if not 0 <= out.bot_delay <= MAX_BOT_DELAY:
            out.bot_delay = 0.8
        out.options = {k: v for k, v in out.options.items() if isinstance(v, dict)}
        out.played = {k: v for k, v in out.played.items() if type(v) is int and v >= 0}
        out.introduced = {k: v for k, v in out.introduced.items() if type(v) is int}
        return out


class SettingsStore:
    """Loads and saves :class:`Settings` in one directory."""

    def __init__(self, directory: str | os.PathLike[str] | None = None) -> None:
        self.directory = config_dir(directory)

    @property
    def path(self) -> pathlib.Path:
        return self.directory / FILENAME

    def load(self) -> Settings:
        try:
            text = self.path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return Settings()
        try:
            return Settings.from_dict(json.loads(text))
        except ValueError:
            return Settings()

    def save(self, settings: Settings) -> bool:
        """Write ``settings``; False (and nothing said) if it cannot be written."""
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            data = json.dumps(asdict(settings), indent=2, sort_keys=True)
            fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=".settings-", suffix=".json")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as out:
                    out.write(data + "\n")
                os.replace(tmp, self.path)
            except BaseException:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
                raise
        except (OSError, TypeError, ValueError):
            return False
        return True
