"""Every test runs with its own config, data and state directories."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _private_dirs(tmp_path_factory, monkeypatch) -> None:
    """Nothing a test does may touch the real user's settings, saved games or tokens."""
    base = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("QUACKBOX_CONFIG_DIR", str(base / "config"))
    monkeypatch.setenv("QUACKBOX_DATA_DIR", str(base / "data"))
    monkeypatch.setenv("QUACKBOX_STATE_DIR", str(base / "state"))
