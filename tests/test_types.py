"""The type checker holds the whole installed package to its annotations (``mypy --strict``):
core/, cards/, net/, tui/ and the modules of quackbox/ (the command line).

The rules interface is a ``typing.Protocol`` (:class:`quackbox.core.rules.Rules`)
and each game's rules object is checked against it where it is made, so what a
game offers is known before anything runs; so is each game's ``MOVES`` table,
whose entries bind a move class to its own verifier, ``do_*`` and plan type; and
each game's TUI (:class:`quackbox.tui.games.GameUI`). Libraries that ship no type
hints (msgpack, confusable_homoglyphs) are named in pyproject.toml's mypy
overrides, with why.

The folders install as ``quackbox.core``, ``quackbox.net``, ``quackbox.cards`` and
``quackbox.tui`` through setuptools' package-dir, which an editable install maps
with an import hook mypy cannot follow: so mypy reads them from a tree of links
that spells the installed names (kept, with mypy's cache, in ``.mypy_cache``).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / ".mypy_cache"
FLAGS = ("--strict", "--warn-unreachable")
LAYERS = ("core", "net", "cards", "tui")
"""The folders that install inside quackbox (pyproject's package-dir)."""


def _tree() -> Path:
    """``.mypy_cache/tree/quackbox/``: the modules of quackbox/ and links to core, net, cards and tui."""
    package = CACHE / "tree" / "quackbox"
    package.mkdir(parents=True, exist_ok=True)
    own = {path.name: path for path in (ROOT / "quackbox").iterdir() if path.suffix == ".py" or path.name == "py.typed"}
    layers = {name: ROOT / name for name in LAYERS}
    for link in package.iterdir():
        if link.name not in own and link.name not in layers:  # a module since removed
            link.unlink()
    for name, target in {**own, **layers}.items():
        link = package / name
        if not link.is_symlink() or link.resolve() != target:
            link.unlink(missing_ok=True)
            link.symlink_to(target)
    return package.parent


def mypy(*args: str) -> subprocess.CompletedProcess[str]:
    config = ("--config-file", str(ROOT / "pyproject.toml"))  # its overrides: libraries with no type hints
    return subprocess.run(
        [sys.executable, "-m", "mypy", *FLAGS, *config, "--cache-dir", str(CACHE), *args],
        cwd=_tree(),
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_the_whole_package_passes_mypy_strict() -> None:
    """Every module of the installed package type-checks under --strict: the rules, the
    cards, the network, the TUI and the command line (``-p quackbox`` takes them all)."""
    result = mypy("-p", "quackbox")
    assert result.returncode == 0, result.stdout + result.stderr
    checked = (CACHE / "tree" / "quackbox").iterdir()
    assert {path.name for path in checked} >= {"__main__.py", "netcmd.py", *LAYERS}


def test_core_passes_mypy_strict() -> None:
    """Every module of core/ (and of cards/, which it imports) type-checks under --strict."""
    result = mypy("-p", "quackbox.core")
    assert result.returncode == 0, result.stdout + result.stderr


def test_net_passes_mypy_strict() -> None:
    """Every module of net/ type-checks under --strict (core/ and cards/, which it imports, too)."""
    result = mypy("-p", "quackbox.net")
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_rules_object_missing_part_of_the_interface_is_refused(tmp_path: Path) -> None:
    """The check can fail: a rules object without ``sample`` and with a
    ``legal_moves`` of the wrong type is not a Rules, and mypy says which."""
    bad = tmp_path / "half_a_game.py"
    bad.write_text(
        "from quackbox.core.rules import Rules\n"
        "from quackbox.core.side_effects.rules import SideEffects\n"
        "from quackbox.core.side_effects.state import SEState\n"
        "from quackbox.core.side_effects.view import SEView\n"
        "from quackbox.core.side_effects.moves import SEMove\n"
        "class HalfAGame(SideEffects):\n"
        "    sample = None\n"
        "    def legal_moves(self, state: SEState, seat: int) -> list[str]:  # type: ignore[override]\n"
        "        return []\n"
        "RULES: Rules[SEState, SEView, SEMove] = HalfAGame()\n"
    )
    result = mypy(str(bad))
    assert result.returncode == 1
    assert '"HalfAGame"' in result.stdout and "legal_moves" in result.stdout and "sample" in result.stdout, (
        result.stdout
    )


_PAIRS = """\
from quackbox.core.quack import legal as quack_legal
from quackbox.core.quack.moves import Pass
from quackbox.core.quack.rules import do_discard, do_pass
from quackbox.core.rules import Event, move_kind, move_table
from quackbox.core.side_effects import legal
from quackbox.core.side_effects.legal import TherapyPlan
from quackbox.core.side_effects.moves import Treat
from quackbox.core.side_effects.rules import a_play, do_misdiagnosis, do_treat
from quackbox.core.side_effects.state import SEState


def do_treat_from_a_therapy_plan(state: SEState, seat: int, move: Treat, plan: TherapyPlan,
                                 events: list[Event]) -> None:
    pass


SE_MOVES = move_table(move_kind(Treat, legal.verify_treat, a_play({treat})))
QUACK_MOVES = move_table(move_kind(Pass, quack_legal.verify_pass, {passing}))
"""


def test_a_move_paired_with_another_moves_do_is_refused(tmp_path: Path) -> None:
    """Each MOVES entry binds its move class, verifier and ``do_*`` to one move type and
    one plan type: Treat's verifier paired with Misdiagnosis's ``do_*`` (or with a
    ``do_*`` that wants Therapy's plan), or Quack's Pass with the Discard's, is a type
    error where the entry is made; the same tables with each move's own pair pass."""
    files = {
        "own_pairs.py": _PAIRS.format(treat="do_treat", passing="do_pass"),
        "another_move.py": _PAIRS.format(treat="do_misdiagnosis", passing="do_discard"),
        "another_plan.py": _PAIRS.format(treat="do_treat_from_a_therapy_plan", passing="do_pass"),
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    result = mypy(*(str(tmp_path / name) for name in files))
    lines = _PAIRS.splitlines()
    se_line = next(n for n, line in enumerate(lines, 1) if line.startswith("SE_MOVES"))
    quack_line = next(n for n, line in enumerate(lines, 1) if line.startswith("QUACK_MOVES"))
    refused = {
        (Path(line.split(":")[0]).name, int(line.split(":")[1]))
        for line in result.stdout.splitlines()
        if ": error:" in line
    }
    assert refused == {("another_move.py", se_line), ("another_move.py", quack_line), ("another_plan.py", se_line)}, (
        result.stdout
    )
