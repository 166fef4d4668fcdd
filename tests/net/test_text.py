"""Text that players type, made safe to show (net.text): escapes, controls and what draws as
nothing removed, and names told apart by how they look (Unicode's confusables)."""

from __future__ import annotations

import re
import subprocess
import sys
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quackbox.net.text import clean_name, clean_text, ignorable, name_keys, skeleton


@pytest.mark.parametrize(
    "raw, clean",
    [
        ("Ana", "Ana"),
        ("\x1b[31mred\x1b[0m", "red"),
        ("\x1b]0;set title\x07name", "name"),
        ("\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\", "link"),
        ("\x1bP+q544e\x1b\\x", "x"),
        ("\x9b2Jwipe", "wipe"),
        ("a\x00b\x7fc\x85d", "abcd"),
        ("two\nlines\r\tand tabs", "two lines and tabs"),
        ("\u202eevil\u202c", "evil"),
        ("zero\u200bwidth", "zerowidth"),
        ("[bold]markup[/bold] stays", "[bold]markup[/bold] stays"),
        ("  spaced   out  ", "spaced out"),
        ("\x1b[", ""),
        ("\x1b", ""),
        ("日本語 ok 🦆", "日本語 ok 🦆"),
    ],
)
def test_clean_text(raw, clean):
    assert clean_text(raw) == clean


@given(st.text())
def test_clean_text_leaves_no_control_or_escape(text):
    cleaned = clean_text(text)
    assert not re.search(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]", cleaned)
    assert clean_text(cleaned) == cleaned


def test_clean_text_limit():
    assert clean_text("x" * 24, limit=24)
    with pytest.raises(ValueError):
        clean_text("x" * 25, limit=24)


@pytest.mark.parametrize(
    "invisible",
    [
        "\u17b4",
        "\u17b5",
        "\ufe0f",
        "\U000e0100",
        "\u180b",
        "\u180f",
        "\u115f",
        "\u3164",
        "\u034f",
        "\u2065",
        "\U000e0041",
        "\U000e0fff",
        "\u00ad",
        "\u2800",
        "\U0001d173",
    ],
)
def test_what_draws_as_nothing_is_dropped(invisible):
    """Default-ignorable code points (variation selectors, Khmer inherent vowels, fillers, tags...)
    and unassigned ones leave nothing behind, so ``alic`` + one of them + ``e`` is ``alice``."""
    assert ignorable(invisible)
    assert clean_text(f"alic{invisible}e") == "alice"
    assert name_keys(f"Alic{invisible}e") & name_keys("alice")


def test_every_default_ignorable_code_point_is_dropped():
    """Unicode's Default_Ignorable_Code_Point ranges (all 4,174 code points): none survives cleaning."""
    ranges = [
        (0xAD, 0xAD),
        (0x34F, 0x34F),
        (0x61C, 0x61C),
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
    ]
    survivors = [hex(c) for low, high in ranges for c in range(low, high + 1) if clean_name(f"a{chr(c)}b") != "ab"]
    assert survivors == []


def test_visible_marks_and_letters_stay():
    assert clean_name("Zoë Ñandú") == "Zoë Ñandú"
    assert (
        clean_text("e\u0301") == "e\u0301" and clean_text("\u0928\u093f") == "\u0928\u093f"
    )  # a Devanagari vowel sign
    assert clean_text("I ❤ tea ☕") == "I ❤ tea ☕"


@pytest.mark.parametrize(
    "twin",
    [
        "alice",
        "ALICE",
        "Alice",
        "Аlice",
        "AIice",
        "A1ice",
        "Alıce",
        "Al\u0456ce",
        "Ａｌｉｃｅ",
        "A l i c e",
        "Alíce",
        "alic\u17b4e",
        "Alic\ufe0fe",
        "Alice\u200b",
    ],
)
def test_names_that_look_alike_share_a_key(twin):
    assert name_keys(twin) & name_keys("Alice")


@pytest.mark.parametrize("other", ["Alicia", "Alec", "Ann", "Bob", "Alice 2", "Eve"])
def test_names_that_look_different_do_not(other):
    assert not name_keys(other) & name_keys("Alice")


def test_the_skeleton_is_unicodes():
    """A few of UTS #39's own examples: letters of other scripts, digits, and a letter that
    looks like two."""
    assert skeleton("раураl") == skeleton("paypal")  # Cyrillic р а у
    assert skeleton("0") == skeleton("O") and skeleton("1") == skeleton("l") == skeleton("I")
    assert skeleton("m") == skeleton("rn")
    assert skeleton("\u2f47\u672c") == skeleton("日本")  # a Kangxi radical for the CJK letter
    assert skeleton("x") == "x" and skeleton("Zoë") == unicodedata.normalize("NFD", "Zoë")


def test_the_confusables_table_is_not_kept():
    """Comparing names keeps only the prototypes, a dict of strings the collector does not
    track: not the package's whole table, which a host's every full collection would walk."""
    probe = (
        "import gc, sys\n"
        "from quackbox.net import text\n"
        "before = len(gc.get_objects())\n"
        "assert text.skeleton('раураl') == text.skeleton('paypal')\n"
        "print(len(gc.get_objects()) - before, gc.is_tracked(text._prototypes()),"
        " 'confusable_homoglyphs.confusables' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    added, tracked, module = out.split()
    assert int(added) < 1000, f"{added} objects left tracked after the first comparison"
    assert (tracked, module) == ("False", "False")


@given(st.text(max_size=40))
def test_cleaning_is_idempotent_and_keys_never_fail(text):
    cleaned = clean_name(text)
    assert clean_name(cleaned) == cleaned
    assert isinstance(name_keys(text), frozenset)


def test_the_confusables_data_is_checked_when_a_host_starts_not_at_the_first_hello(monkeypatch) -> None:
    """A broken data file is a sentence as the host starts (HostError), not a failure at a hello."""
    import asyncio

    from quackbox.net import text
    from quackbox.net.host import Host, HostConfig, HostError

    text.load_confusables()  # the real data reads and checks
    text._prototypes.cache_clear()
    monkeypatch.setattr(text, "_prototypes", lambda: {})
    config = HostConfig(game="side-effects", seats=2, headless=True, bind="127.0.0.1", port=0)

    async def start() -> None:
        async with Host(config):
            pass

    try:
        asyncio.run(start())
    except HostError as exc:
        assert "confusables data" in str(exc)
    else:
        raise AssertionError("a host started with broken confusables data")
