"""Shared pieces of the card loaders: the error type and field readers."""

from __future__ import annotations

import tomllib
from importlib import resources
from typing import Any


class CardDataError(ValueError):
    """Card data that cannot be used. The message names the file and the card."""

    def __init__(self, source: str, card: str | None, problem: str) -> None:
        self.source = source
        self.card = card
        self.problem = problem
        where = f"{source}: card {card!r}" if card else source
        super().__init__(f"{where}: {problem}")


def read_packaged(filename: str) -> str:
    """The text of a data file shipped inside this package."""
    return resources.files(__package__).joinpath(filename).read_text(encoding="utf-8")


def parse_toml(text: str, source: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise CardDataError(source, None, f"not valid TOML ({exc})") from None


class Fields:
    """Reads the fields of one card table, raising CardDataError on bad ones.

    Every field read is remembered, so :meth:`done` can refuse unknown keys
    (a typo such as ``copys`` would otherwise be silently ignored).
    """

    def __init__(self, source: str, section: str, table: Any, index: int, allowed: tuple[str, ...] = ()) -> None:
        self.source = source
        if not isinstance(table, dict):
            raise CardDataError(source, None, f"entry {index + 1} of [[{section}]] is not a table")
        self.table = table
        name = table.get("name")
        if not isinstance(name, str) or not name.strip():
            raise CardDataError(source, None, f"entry {index + 1} of [[{section}]] has no name")
        self.name = name.strip()
        self.seen = {"name"}
        if allowed:
            # Name a misspelt key before complaining that the right one is missing.
            unknown = sorted(set(table) - set(allowed) - {"name"})
            if unknown:
                raise self.fail(f"has unknown field(s): {', '.join(unknown)}; expected {', '.join(allowed)}")

    def fail(self, problem: str) -> CardDataError:
        return CardDataError(self.source, self.name, problem)

    def _get(self, key: str, default: Any, kind: type | tuple[type, ...], what: str) -> Any:
        self.seen.add(key)
        if key not in self.table:
            if default is _REQUIRED:
                raise self.fail(f"is missing {key!r}")
            return default
        value = self.table[key]
        if isinstance(value, bool) and kind is not bool:
            raise self.fail(f"{key!r} must be {what}, not {value!r}")
        if not isinstance(value, kind):
            raise self.fail(f"{key!r} must be {what}, not {value!r}")
        return value

    def text(self, key: str, default: Any = None) -> str:
        value: str = self._get(key, _REQUIRED if default is None else default, str, "text")
        return value.strip()

    def integer(self, key: str, low: int, high: int, default: Any = None) -> int:
        value: int = self._get(key, _REQUIRED if default is None else default, int, "a whole number")
        if not low <= value <= high:
            raise self.fail(f"{key!r} must be from {low} to {high}, not {value}")
        return value

    def boolean(self, key: str, default: bool = False) -> bool:
        value: bool = self._get(key, default, bool, "true or false")
        return value

    def names(self, key: str, default: Any = None) -> tuple[str, ...]:
        value = self._get(key, _REQUIRED if default is None else default, (list, tuple), "a list of names")
        out = []
        for item in value:
            if not isinstance(item, str) or not item.strip():
                raise self.fail(f"{key!r} must list names, but holds {item!r}")
            out.append(item.strip())
        return tuple(out)

    def table_of_ints(self, key: str, low: int, high: int) -> dict[str, int]:
        value = self._get(key, {}, dict, "a table of name = number")
        out = {}
        for k, v in value.items():
            if isinstance(v, bool) or not isinstance(v, int) or not low <= v <= high:
                raise self.fail(f"{key!r}.{k} must be a whole number from {low} to {high}, not {v!r}")
            out[k] = v
        return out

    def done(self) -> None:
        unknown = sorted(set(self.table) - self.seen)
        if unknown:
            raise self.fail(f"has unknown field(s): {', '.join(unknown)}")


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


_REQUIRED = _Required()


def sections(doc: dict[str, Any], source: str, allowed: tuple[str, ...]) -> None:
    """Refuse top-level keys other than the card sections ``allowed``."""
    unknown = sorted(set(doc) - set(allowed))
    if unknown:
        raise CardDataError(source, None, f"unknown section(s): {', '.join(unknown)}; expected {', '.join(allowed)}")
    for key in allowed:
        if key in doc and not isinstance(doc[key], list):
            raise CardDataError(source, None, f"{key!r} must be written as [[{key}]] tables")
