"""The layers hold: core/ and cards/ do no IO and import nothing above them."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
FORBIDDEN = ("asyncio", "socket", "textual", "rich", "msgpack", "websockets", "net", "tui", "quackbox")


def _modules_after_import(modules: list[str]) -> set[str]:
    code = (
        "import json, sys\n"
        f"for name in {modules!r}:\n"
        "    __import__(name)\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    return set(json.loads(out.stdout))


def _package_modules(package: str) -> list[str]:
    return sorted(f"{package}.{p.stem}" for p in (ROOT / package).glob("*.py") if p.stem != "__main__")


@pytest.mark.parametrize("package", ["cards", "core"])
def test_pure_layers_import_no_io(package: str) -> None:
    """Importing every module of core/ or cards/ pulls in no IO or upper layer."""
    modules = _package_modules(package)
    assert modules, f"{package}/ has no modules"
    loaded = _modules_after_import(modules)
    bad = sorted(m for m in loaded if m.split(".")[0] in FORBIDDEN)
    assert not bad, f"{package}/ imports {bad}"


def test_the_check_can_fail() -> None:
    """The subprocess check sees an IO import when there is one."""
    loaded = _modules_after_import(["asyncio"])
    assert "asyncio" in loaded


@pytest.mark.parametrize("package", ["cards", "core"])
def test_pure_layers_do_not_print_or_read_clocks(package: str) -> None:
    """No print(), clocks or module-level random calls in the pure layers."""
    offenders = []
    for path in (ROOT / package).glob("*.py"):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#", 1)[0]
            for needle in ("print(", "time.time(", "time.monotonic(", "datetime.now(", "random.random(",
                           "random.shuffle(", "random.choice(", "random.randrange(", "import time"):
                if needle in code:
                    offenders.append(f"{path.name}:{number}: {line.strip()}")
    assert not offenders, "\n".join(offenders)
