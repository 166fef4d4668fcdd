"""The layers hold: core/ and cards/ do no IO and import nothing above them."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
FORBIDDEN = ("asyncio", "socket", "textual", "rich", "msgpack", "websockets")
"""Top-level modules the pure layers never load."""
PURE = ("quackbox.core", "quackbox.cards")
"""The only parts of quackbox (besides the package itself) the pure layers may load."""


def _modules_after_import(modules: list[str]) -> set[str]:
    code = f"import json, sys\nfor name in {modules!r}:\n    __import__(name)\nprint(json.dumps(sorted(sys.modules)))\n"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    return set(json.loads(out.stdout))


def _package_modules(package: str) -> list[str]:
    """Every module of ``package``, its subpackages' included."""
    paths = (p.relative_to(ROOT).with_suffix("") for p in (ROOT / package).rglob("*.py") if p.stem != "__main__")
    return sorted(".".join(("quackbox",) + (p.parts[:-1] if p.name == "__init__" else p.parts)) for p in paths)


def _upper_layer(module: str) -> bool:
    """Whether ``module`` is a part of quackbox above core/ and cards/."""
    return module.startswith("quackbox.") and not any(module == p or module.startswith(p + ".") for p in PURE)


@pytest.mark.parametrize("package", ["cards", "core"])
def test_pure_layers_import_no_io(package: str) -> None:
    """Importing every module of core/ or cards/ pulls in no IO or upper layer."""
    modules = _package_modules(package)
    assert modules, f"{package}/ has no modules"
    loaded = _modules_after_import(modules)
    bad = sorted(m for m in loaded if m.split(".")[0] in FORBIDDEN or _upper_layer(m))
    assert not bad, f"{package}/ imports {bad}"


def test_the_check_can_fail() -> None:
    """The subprocess check sees an IO import when there is one."""
    loaded = _modules_after_import(["asyncio", "quackbox.net.limits"])
    assert "asyncio" in loaded
    assert _upper_layer("quackbox.net.limits") and not _upper_layer("quackbox.core.rules")


@pytest.mark.parametrize("package", ["cards", "core"])
def test_pure_layers_do_not_print_or_read_clocks(package: str) -> None:
    """No print(), clocks or module-level random calls in the pure layers."""
    offenders = []
    for path in (ROOT / package).rglob("*.py"):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#", 1)[0]
            for needle in (
                "print(",
                "time.time(",
                "time.monotonic(",
                "datetime.now(",
                "random.random(",
                "random.shuffle(",
                "random.choice(",
                "random.randrange(",
                "import time",
            ):
                if needle in code:
                    offenders.append(f"{path.name}:{number}: {line.strip()}")
    assert not offenders, "\n".join(offenders)


def test_playing_one_game_loads_only_that_game() -> None:
    """`quackbox play side-effects` reaches its table without importing Quack
    in the Box (start-up time): the command line, the app, the table screen
    and the host's table load a game only when it is asked for."""
    code = (
        "import json, sys\n"
        "from quackbox.__main__ import build_parser\n"
        "import quackbox.tui.app, quackbox.tui.table, quackbox.tui.home, quackbox.net.local, quackbox.net.table\n"
        "from quackbox.core import bots, games\n"
        "build_parser().parse_args(['play', 'side-effects'])\n"
        "games.get('side-effects'); bots.make('side-effects', 'heuristic', 1)\n"
        "assert 'quack' in games.GAMES and 'chess' not in games.GAMES\n"
        "quackbox.net.table.Table(quackbox.net.table.TableConfig(game='side-effects'))\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    loaded = set(json.loads(out.stdout))
    assert "quackbox.core.side_effects" in loaded and "quackbox.core.side_effects.bot" in loaded
    assert (
        not {"quackbox.core.quack", "quackbox.core.quack.bot", "quackbox.cards.quack", "quackbox.tui.quack_board"}
        & loaded
    )


def test_game_titles_are_known_without_loading_the_games() -> None:
    from quackbox.core import games

    assert sorted(games.TITLES) == sorted(games.GAMES)
    for name in games.GAMES:
        assert games.title(name) == games.get(name).title
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        games.title("chess")


LAYERS = {
    "quackbox.cards": (),
    "quackbox.core": ("quackbox.cards",),
    "quackbox.net": ("quackbox.core", "quackbox.cards"),
    "quackbox.tui": ("quackbox.net", "quackbox.core", "quackbox.cards"),
}
"""Each layer of docs/ARCHITECTURE.md and the layers it may import: only ever downwards.
The command (``quackbox`` itself, ``quackbox.__main__``, ``quackbox.netcmd``...) is the
wiring above them all."""


def _layer_of(module: str) -> str | None:
    for layer in LAYERS:
        if module == layer or module.startswith(layer + "."):
            return layer
    return None


def _imports_of(path: pathlib.Path) -> set[str]:
    """The quackbox modules a file imports (at any depth of its code, lazily too)."""
    import ast

    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
    return {name for name in found if name == "quackbox" or name.startswith("quackbox.")}


def _upward(layer: str, folder: str) -> list[str]:
    bad = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        for name in _imports_of(path):
            target = _layer_of(name)
            allowed = {layer, *LAYERS[layer]}
            if target is None and name not in ("quackbox",):
                bad.append(f"{path.relative_to(ROOT)} imports {name} (the command's layer)")
            elif target is not None and target not in allowed:
                bad.append(f"{path.relative_to(ROOT)} imports {name}")
    return bad


@pytest.mark.parametrize(
    ("layer", "folder"),
    [("quackbox.cards", "cards"), ("quackbox.core", "core"), ("quackbox.net", "net"), ("quackbox.tui", "tui")],
)
def test_every_layer_imports_only_the_layers_below_it(layer: str, folder: str) -> None:
    """Imports only go downwards: net/ never imports the TUI or the command, the TUI never the
    command; every import in the file counts, a lazy one inside a function too."""
    assert _upward(layer, folder) == []


def test_the_layer_contract_can_fail(tmp_path: pathlib.Path) -> None:
    sneaky = tmp_path / "sneaky.py"
    sneaky.write_text("def later():\n    from quackbox.tui.app import make_app\n    import quackbox.netcmd\n")
    names = _imports_of(sneaky)
    assert "quackbox.tui.app" in names and "quackbox.netcmd" in names
    assert _layer_of("quackbox.tui.app") == "quackbox.tui" and _layer_of("quackbox.netcmd") is None
