"""Text that people type, made safe to show on anyone's terminal, and names told apart by how they look.

Every text a player supplies (a name, a chat line, an SSH user name) passes
through :func:`clean_text` on the host; names also through
:func:`clean_name`. What is left may still *look* like Rich markup
(``[bold]hi[/]``): clients show it as plain text, never as markup.

Two names may not be in use at one table if they look alike
(:func:`name_keys`): ``alice`` and ``Alice``, ``Bot0`` and ``BotO``,
``paypal`` in Latin and in Cyrillic letters. Look-alike letters are told by
Unicode's own confusables data (UTS #39, as kept in the
``confusable-homoglyphs`` package), not by a table of our own.
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from importlib import resources

from quackbox.net.errors import HostError

__all__ = [
    "MAX_MARKS",
    "TextDataError",
    "clean_name",
    "clean_text",
    "ignorable",
    "load_confusables",
    "name_keys",
    "skeleton",
]

# Terminal escape sequences, in their 7-bit form (ESC + a letter) and their
# 8-bit form (one C1 control): CSI (ESC [ or 0x9b, parameters, a final
# byte), the string commands OSC/DCS/SOS/PM/APC (ESC ] P X ^ _ or 0x9d 0x90
# 0x98 0x9e 0x9f, up to BEL or ST), and two-character escapes. Whatever is
# left of a sequence cut short is caught by the control-character pass below.
_ESCAPES = re.compile(
    r"""
    (?:\x1b\[|\x9b) [0-?]* [ -/]* [@-~]?                         # CSI
  | (?:\x1b[\]PX^_]|[\x9d\x90\x98\x9e\x9f]) .*? (?:\x07|\x1b\\|\x9c|$)   # string commands
  | \x1b[ -/]* [0-~]?                                           # other escapes
    """,
    re.VERBOSE | re.DOTALL,
)
_DEFAULT_IGNORABLE = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
"""Unicode's Default_Ignorable_Code_Point ranges (DerivedCoreProperties.txt):
code points a terminal draws as nothing (variation selectors, the Khmer
inherent vowels, fillers, tags, joiners...). Python's unicodedata has no
such property, so here are its 17 ranges."""
_BLANK = frozenset("\u2800")
"""Braille's blank pattern: a letter that draws as a space but is not one."""
MAX_MARKS = 2
"""Combining marks kept on one character; more are dropped (no towers of
accents drawn over the neighbouring lines)."""
_SPACES = re.compile(r"\s+")


def ignorable(ch: str) -> bool:
    """Whether ``ch`` draws as nothing on a terminal: a default-ignorable code
    point, a format character (bidi overrides, zero-width joiners), or a code
    point Unicode has not assigned (what it draws is anyone's guess)."""
    point = ord(ch)
    if any(low <= point <= high for low, high in _DEFAULT_IGNORABLE) or ch in _BLANK:
        return True
    return unicodedata.category(ch) in ("Cf", "Cn", "Cs")


def clean_text(text: str, limit: int | None = None) -> str:
    """``text`` made safe to show on anyone's terminal.

    Removes terminal escape sequences, every control character (C0, DEL, C1;
    line breaks and tabs become spaces), everything that draws as nothing
    (:func:`ignorable`), keeps at most :data:`MAX_MARKS` combining marks on
    a character, collapses runs of whitespace and trims the ends. Rich markup
    such as ``[red]`` is deliberately left as literal characters: it is inert
    as long as clients show player text as plain text.

    Args:
        limit: if given, raise ValueError when the cleaned text is longer.
    """
    text = _ESCAPES.sub("", text)
    out = []
    marks = 0
    for ch in text:
        cat = unicodedata.category(ch)
        if cat == "Cc" or cat in ("Zl", "Zp"):
            marks = 0
            if ch in "\t\n\r\x0b\x0c" or cat != "Cc":
                out.append(" ")
            continue
        if ignorable(ch):  # a lone surrogate (Cs) could not even be encoded as UTF-8
            continue
        if cat in ("Mn", "Me"):
            marks += 1
            if marks <= MAX_MARKS and out:
                out.append(ch)
            continue
        marks = 0
        out.append(ch)
    cleaned = _SPACES.sub(" ", "".join(out)).strip()
    # Marks left at the start (they sat on a space that went) have nothing to sit on.
    while cleaned and (cleaned[0].isspace() or unicodedata.category(cleaned[0]) in ("Mn", "Me")):
        cleaned = cleaned[1:]
    if limit is not None and len(cleaned) > limit:
        raise ValueError(f"text longer than {limit} characters")
    return cleaned


def clean_name(text: str) -> str:
    """A player's name as the table shows it: :func:`clean_text` after NFKC
    normalisation (so full-width and styled letters become plain ones), its
    marks counted on the decomposed letters (so at most :data:`MAX_MARKS`
    accents however the name was composed)."""
    return unicodedata.normalize("NFC", clean_text(unicodedata.normalize("NFKD", text)))


class TextDataError(HostError):
    """The confusables data cannot be read or is not what it should be (a sentence)."""


def load_confusables() -> None:
    """Read and check the confusables data now (a host does, as it starts): a package that
    is broken or missing says so at once, not at the first person's hello."""
    try:
        prototypes = _prototypes()
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise TextDataError(
            f"Unicode's confusables data (package confusable-homoglyphs) cannot be read: {exc}."
        ) from None
    if prototypes.get("\u0430") != "a":  # CYRILLIC SMALL LETTER A looks like a Latin a
        raise TextDataError(
            "Unicode's confusables data (package confusable-homoglyphs) is not as expected; reinstall quackbox."
        )


@functools.cache
def _prototypes() -> dict[str, str]:
    """Each confusable character and the prototype it looks like (``а`` -> ``a``, ``m`` -> ``rn``).

    Read once, by a host as it starts (:func:`load_confusables`) or else when the
    first name is compared (so a process that never compares names, a
    ``quackbox join``, never pays it), from the package's data file, not through its modules: they keep the whole table
    (megabytes of lists and dicts) for the life of the process, where every
    full collection walks it, and import ``urllib.request``.
    What is kept is a dict of strings, which the collector does not track.

    The package keeps each pair of UTS #39's confusables.txt both ways round,
    so a character with one partner looks like that partner when the partner
    has others too (it is the prototype of a group), or is a sequence; two
    characters that only look like each other both map to the smaller.
    """
    table = json.loads(resources.files("confusable_homoglyphs").joinpath("confusables.json").read_text("utf-8"))

    def bare(text: str) -> str:  # the data wraps right-to-left letters in direction marks
        return text.replace("\u200e", "").replace("\u200f", "")

    pairs: dict[str, list[str]] = {}
    for source, partners in table.items():
        pairs.setdefault(bare(source), []).extend(bare(p["c"]) for p in partners)
    prototypes = {}
    for ch, partners in pairs.items():
        if len(ch) != 1 or len(partners) != 1:
            continue  # a sequence, or a prototype of several: itself
        other = partners[0]
        if len(other) > 1 or len(pairs.get(other, ())) > 1:
            prototypes[ch] = other
        elif other < ch:
            prototypes[ch] = other
    return prototypes


def skeleton(text: str) -> str:
    """What ``text`` looks like (UTS #39's skeleton): each character replaced
    by the prototype it may be taken for, in decomposed form."""
    prototypes = _prototypes()
    mapped = "".join(prototypes.get(ch, ch) for ch in unicodedata.normalize("NFD", text))
    return unicodedata.normalize("NFD", mapped)


def name_keys(name: str) -> frozenset[str]:
    """What two names must not share to be told apart at one table.

    The cleaned name without accents, spaces or anything invisible, case-folded
    and made its skeleton, and the same of its skeleton (so
    letters that look alike in one case only, ``I`` and ``l``, ``O`` and ``0``,
    count too): ``Bot0``, ``bot 0``, ``ВОТ0``, ``BotO`` and ``Bot0`` plus a
    zero-width space share a key, and so do ``alice``, ``ALICE`` and ``alic``
    plus an invisible Khmer vowel.
    """
    decomposed = unicodedata.normalize("NFKD", clean_name(name))
    bare = "".join(ch for ch in decomposed if not unicodedata.combining(ch) and not ch.isspace())
    return frozenset(skeleton(form.casefold()) for form in (bare, skeleton(bare)))
