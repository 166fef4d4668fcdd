"""One name when installed: the wheel holds the package quackbox and nothing else at the top level."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


# Both tests share one wheel, so one worker builds it.
pytestmark = pytest.mark.xdist_group("wheel")

# What a build must not see or copy: the checkout's environments and what earlier builds left.
_NOT_SOURCE = shutil.ignore_patterns(
    ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache"
)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel, built from a copy of the checkout in a temporary folder (a build writes
    build/ and *.egg-info beside the sources, which must not land in the checkout)."""
    source = tmp_path_factory.mktemp("source") / "quackbox"
    shutil.copytree(ROOT, source, ignore=_NOT_SOURCE)
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "--quiet", "--wheel-dir", str(out)],
        check=True,
        capture_output=True,
        cwd=out,
    )
    (built,) = out.glob("quackbox-*.whl")
    return built


def test_the_wheel_installs_one_top_level_package(wheel: Path) -> None:
    """core, net, tui and cards install inside quackbox; bench and tests stay out; the data files go
    along, and so does py.typed (the package ships its annotations, PEP 561)."""
    names = zipfile.ZipFile(wheel).namelist()
    top = {name.split("/")[0] for name in names}
    assert top == {"quackbox", next(t for t in top if t.endswith(".dist-info"))}
    assert {
        "quackbox/core/rules.py",
        "quackbox/net/host.py",
        "quackbox/tui/app.py",
        "quackbox/cards/quack.toml",
        "quackbox/cards/side_effects.toml",
        "quackbox/tui/quackbox.tcss",
        "quackbox/py.typed",
    } <= set(names)
    assert not [n for n in names if "/bench/" in n or "/tests/" in n]


def test_the_installed_package_imports_nothing_from_the_checkout(wheel: Path, tmp_path: Path) -> None:
    """Installed apart from this folder, every layer imports (no module still names a bare `core` or `net`)."""
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--quiet", "--target", str(target), str(wheel)],
        check=True,
        capture_output=True,
    )
    code = (
        "import quackbox.__main__, quackbox.tui.app, quackbox.tui.se_game, quackbox.tui.quack_game, "
        "quackbox.net.host, quackbox.net.ssh, quackbox.core.games as g\n"
        "g.get('side-effects'); g.get('quack')\n"
        "import sys; print(sorted(m for m in sys.modules if m.split('.')[0] in ('core', 'net', 'tui', 'cards', 'bench')))\n"
        "print(quackbox.__file__)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(target)}
    out = subprocess.run(
        [sys.executable, "-P", "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, check=True
    )
    stray, where = out.stdout.splitlines()
    assert stray == "[]"
    assert where.startswith(str(target))


def test_the_ssh_door_imports_without_a_librarys_notice() -> None:
    """Newer cryptography warns of DSA when asyncssh is imported: a player would see it above the table."""
    done = subprocess.run(
        [sys.executable, "-W", "error", "-c", "import quackbox.net.ssh, quackbox.net.ssh_keys"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
