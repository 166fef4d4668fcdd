"""Fixtures for the TUI tests: an app factory pointed at a temporary config directory."""

from __future__ import annotations

from typing import Any, Callable

import pytest

from quackbox.tui.app import QuackboxApp, make_app
from quackbox.tui.config import ENV_DIR
from tests.tui.fakes import FakeSession, opener_for

SIZE = (80, 24)


@pytest.fixture(autouse=True)
def _config_dir(tmp_path, monkeypatch) -> None:
    """Nothing a test does may touch the real user's settings."""
    monkeypatch.setenv(ENV_DIR, str(tmp_path / "config"))


@pytest.fixture
def app_for(tmp_path) -> Callable[..., QuackboxApp]:
    """``app_for(session)``: an app that opens ``session`` at once, with no cursor blinking."""

    def build(session: FakeSession | None = None, *, home: bool = False, **kwargs: Any) -> QuackboxApp:
        return make_app(
            config_dir=tmp_path / "config",
            opener=opener_for(session) if session else None,
            home=home,
            cursor_blink=False,
            **kwargs,
        )

    return build
