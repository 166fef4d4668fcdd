"""The browser door in a real browser: headless Chromium (Debian's ``chromium``) driven over its
DevTools protocol (tests/web/cdp.py), playing the real table through the page.

One Chromium serves the module; each page opens in a browser context of its
own (its own localStorage: another person's browser). These tests skip only
when no Chromium is found and ``QUACKBOX_REQUIRE_BROWSER`` is unset; CI sets
it (``.ci/run``), so there a missing browser fails them instead.
"""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import Any, AsyncIterator

import pytest
import pytest_asyncio

from quackbox.net.host import Host, HostConfig
from quackbox.net.protocol import HUMAN
from tests.web.cdp import Browser, Page, find_chromium
from tests.web.test_web import CODE, gone, until, web_config
from quackbox.net.web import WebServer

if find_chromium() is None and not os.environ.get("QUACKBOX_REQUIRE_BROWSER"):
    pytest.skip("no Chromium on this machine (CI installs one and sets QUACKBOX_REQUIRE_BROWSER)",
                allow_module_level=True)

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.xdist_group("browser")]

SCREEN = 60.0
"""Seconds a page may take to show the table on a busy machine (a child starts Python and Textual)."""
# Every CSP violation the page meets, kept where the test can read it.
LISTEN_FOR_CSP = """
window.cspViolations = [];
document.addEventListener("securitypolicyviolation",
  (e) => window.cspViolations.push(`${e.violatedDirective} ${e.blockedURI} ${e.sample}`));
"""


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browser() -> AsyncIterator[Browser]:
    async with Browser.launch() as running:
        yield running


async def open_table(tmp_path: Any, **host: Any) -> tuple[Host, WebServer]:
    config = HostConfig(**{"game": "side-effects", "seats": 2, "bots": 1, "headless": True, "bind": "127.0.0.1",
                           "port": 0, "once": False, "bot_delay": 0.0, "away_grace": None, "seed": 3, "code": CODE,
                           **host})
    running = Host(config)
    await running.start()
    server = WebServer(web_config(tmp_path), running)
    await server.start()
    return running, server


async def close_table(host: Host, server: WebServer) -> None:
    await server.stop()
    await host.stop()


async def open_page(browser: Browser, server: WebServer, name: str, width: int = 900, height: int = 600) -> Page:
    """A tab of its own with the link open and ``name`` typed where the page asks for it."""
    page = await browser.new_page(width, height)
    await page.before_each_load(LISTEN_FOR_CSP)
    await page.open(server.link())
    await page.wait_for("document.activeElement && document.activeElement.id === 'name'")
    await page.type(name)
    await page.press("Enter")
    return page


async def shows(page: Page, text: str, timeout: float = SCREEN) -> str:
    """Wait until the terminal shows ``text``; all it shows."""
    deadline = time.monotonic() + timeout
    while True:
        screen = await page.text()
        if text in screen:
            return screen
        if time.monotonic() > deadline:
            raise AssertionError(f"{text!r} never appeared; the page shows:\n{screen}")
        await asyncio.sleep(0.1)


def only_from(server: WebServer, page: Page) -> list[str]:
    """The requests of ``page`` that went anywhere but the host (none, it should be)."""
    own = (f"http://127.0.0.1:{server.port}/", f"ws://127.0.0.1:{server.port}/")
    return [r.url for r in page.requests if not r.url.startswith(own) and r.url != "about:blank"]


async def test_a_link_opens_the_table_keys_play_resize_follows_and_a_reload_gives_the_seat_back(
    browser: Browser, tmp_path: Any
) -> None:
    host, server = await open_table(tmp_path)
    try:
        page = await open_page(browser, server, "ann")
        screen = await shows(page, "ann (you)")
        assert f"at http://127.0.0.1:{server.port}" in screen
        assert await page.evaluate("document.getElementById('status').textContent") == "At the table."
        # The table is drawn in its colours (through the CSSOM: the policy allows no inline style).
        colours = await page.evaluate(
            "new Set(Array.from(document.querySelectorAll('.xterm-rows span'))"
            ".map(s => getComputedStyle(s).color)).size")
        assert colours >= 4

        await page.press("s", ctrl=True)  # Ctrl+S starts: the open seat gets a bot
        rules = host.table.rules
        await until(lambda: host.table.phase == "playing" and 0 in rules.waiting_for(host.table.state),
                    what="ann's turn")
        await shows(page, "your turn")
        hand = rules.view(host.table.state, 0).hand
        await page.press("e")  # end the turn
        await until(lambda: any(seat == 0 for seat, _ in host.table.recent_moves), what="ann's move")

        [session] = server.sessions
        small = await page.evaluate("[term.cols, term.rows]")
        assert tuple(small) == session.window.size
        await page.resize(1300, 850)
        bigger = await page.wait_for("term.cols > %d && [term.cols, term.rows]" % small[0])
        await until(lambda: session.window.size == tuple(bigger), timeout=10, what="the child's new size")
        first_line = await page.wait_for(
            "(document.querySelector('.xterm-rows > div').textContent.trimEnd().length > %d) && "
            "document.querySelector('.xterm-rows > div').textContent" % small[0], timeout=20)
        assert first_line.rstrip().endswith("online")

        [pid] = server.children
        await page.reload()  # the name is remembered: straight back to the table
        await until(lambda: gone(pid), timeout=10, what="the old child to end")
        await shows(page, "Your hand")
        assert [s.index for s in host.table.seats if s.kind == HUMAN and s.name == "ann"] == [0]
        assert rules.view(host.table.state, 0).hand == hand

        assert only_from(server, page) == []
        kinds = {r.kind for r in page.requests}
        assert {"Document", "Script", "Stylesheet", "WebSocket"} <= kinds
        assert await page.evaluate("window.cspViolations") == []
        assert page.console == []
        # The browser read the page's Permissions-Policy: no device, but the clipboard.
        assert await page.evaluate("['camera', 'microphone', 'geolocation', 'clipboard-write']"
                                   ".map(f => document.featurePolicy.allowsFeature(f))") == [False, False, False, True]
    finally:
        await close_table(host, server)


async def test_two_tabs_play_a_whole_game_against_a_bot(browser: Browser, tmp_path: Any) -> None:
    """Two people in two browsers and a bot, one game to its end on both screens (a short turn
    timer plays each person's turn, so the game runs by itself)."""
    host, server = await open_table(tmp_path, seats=3, bots=1, autostart=True, turn_timer=0.1)
    try:
        pages = [await open_page(browser, server, name) for name in ("ann", "bob")]
        outcome = await until(lambda: host.table.outcome, timeout=180, what="the game to end")
        names = host.table.outcome_names
        winner = names[outcome.winners[0]]
        for page, me in zip(pages, ("ann", "bob")):
            screen = await shows(page, "Game over", timeout=30)
            await shows(page, "You win!" if me == winner else f"{winner} wins", timeout=10)
            assert f"{me} (you)" in await page.text(), screen
            assert only_from(server, page) == []
            assert await page.evaluate("window.cspViolations") == []
    finally:
        await close_table(host, server)


async def test_the_browser_the_tests_drive_leaves_nothing_behind_in_the_temporary_folder() -> None:
    """Its profile, and the folder its singleton socket lives in beside the profile: one of
    these was left after every launch, as the browser is killed before it has shut down."""
    async with Browser.launch() as running:
        await running.new_page()
        profile = Path(running.profile)
        socket_folder = Path(os.readlink(profile / "SingletonSocket")).parent
        assert socket_folder.is_dir() and profile.is_dir()
    assert not socket_folder.exists() and not profile.exists()
