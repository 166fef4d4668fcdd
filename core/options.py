"""Game options: one parser for both games, the command line and the wire.

A game's options are a frozen dataclass whose fields carry their defaults
and, through :func:`option`, their limits (``low``/``high``) or ``choices``.
:func:`parse` reads them from whatever a caller has: another options value,
a mapping of typed values (the wire, a journal) or of text (``-o KEY=VALUE``
on the command line, the home screen's fields). Names may be written
``kebab-case`` or ``snake_case``; errors always use kebab-case, the way
people type them.
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING, Any, Mapping, TypeVar

from quackbox.core.rules import BadOptions

__all__ = ["option", "parse", "as_values", "names", "describe", "read_text"]

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

T = TypeVar("T", bound="DataclassInstance")

_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")


def option(default: Any, *, low: float | None = None, high: float | None = None, choices: tuple[str, ...] = ()) -> Any:
    """A field of an options dataclass: its default, and the values it allows."""
    return dataclasses.field(default=default, metadata={"low": low, "high": high, "choices": choices})


def kebab(name: str) -> str:
    return name.replace("_", "-")


def names(cls: type) -> tuple[str, ...]:
    """The option names of ``cls``, as people type them."""
    return tuple(kebab(f.name) for f in dataclasses.fields(cls))


def as_values(options: Any) -> dict[str, Any]:
    """``options`` as plain values (snake_case names) that :func:`parse` takes back."""
    return dataclasses.asdict(options)


def describe(options: Any) -> str:
    """``options`` as ``name=value`` pairs, the way the command line takes them."""
    return ", ".join(f"{kebab(name)}={_shown(value)}" for name, value in as_values(options).items())


def parse(cls: type[T], values: object, *, title: str) -> T:
    """Options of type ``cls`` from ``values``; BadOptions with a plain sentence
    naming the option (``title`` names the game) if any is unknown or wrong."""
    if values is None:
        return cls()
    if isinstance(values, cls):
        return values
    if not isinstance(values, Mapping):
        raise BadOptions(f"Options must be a table of names and values, not {values!r}.")
    known = {f.name: f for f in dataclasses.fields(cls)}
    out: dict[str, Any] = {}
    for raw_key, value in values.items():
        key = str(raw_key).strip().replace("-", "_")
        if key not in known:
            raise BadOptions(f"{title} has no option {kebab(str(raw_key))!r}; options are {', '.join(names(cls))}.")
        out[key] = _value(known[key], value)
    return cls(**out)


def read_text(text: str) -> tuple[str, str]:
    """``KEY=VALUE`` as (key, value text); ValueError with a sentence otherwise."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise ValueError(f"options are KEY=VALUE, not {text!r}")
    return key.strip(), value.strip()


def _value(field: dataclasses.Field[Any], value: Any) -> Any:
    """``value`` for ``field``, converted from text if need be, and checked."""
    name = kebab(field.name)
    default = field.default
    meta = field.metadata
    if isinstance(default, bool):
        if isinstance(value, str) and value.strip().lower() in _TRUE + _FALSE:
            value = value.strip().lower() in _TRUE
        if not isinstance(value, bool):
            raise BadOptions(f"Option {name} must be true or false, not {value!r}.")
        return value
    if isinstance(default, str):
        choices = meta.get("choices", ())
        text = value.strip().replace("-", "_") if isinstance(value, str) else None
        if text not in choices:
            shown = ", ".join(kebab(c) for c in choices)
            raise BadOptions(f"Option {name} must be one of {shown}, not {value!r}.")
        return text
    whole = isinstance(default, int)
    if isinstance(value, str):
        try:
            value = int(value.strip()) if whole else float(value.strip())
        except ValueError:
            kind = "a whole number" if whole else "a number"
            raise BadOptions(f"Option {name} must be {kind}, not {value!r}.") from None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        raise BadOptions(f"Option {name} must be a number, not {value!r}.")
    low, high = meta.get("low"), meta.get("high")
    if (low is not None and value < low) or (high is not None and value > high):
        raise BadOptions(f"Option {name} must be from {_shown(low)} to {_shown(high)}, not {value!r}.")
    if whole and value != int(value):
        raise BadOptions(f"Option {name} must be a whole number, not {value!r}.")
    return int(value) if whole else float(value)


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, str):
        return kebab(value)
    return str(value)
