"""The browser door in a real browser: headless Chromium (Debian's ``chromium``) driven over its
DevTools protocol (tests/web/cdp.py), playing the real table through the page.

One Chromium serves the module; each page opens in a browser context of its
own (its own localStorage: another person's browser). These tests skip only
when no Chromium is found and ``QUACKBOX_REQUIRE_BROWSER`` is unset; CI sets
it (``.ci/run``), so there a missing browser fails them instead.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any, AsyncIterator

import pyte
import pytest
import pytest_asyncio
from rich.cells import cell_len, get_character_cell_size

from quackbox.net import web
from quackbox.net.host import Host, HostConfig
from quackbox.net.protocol import HUMAN
from quackbox.net.text import clean_text
from quackbox.net.web import WebServer
from tests.web.cdp import Browser, Page, find_chromium
from tests.web.test_web import CODE, gone, until, web_config

if find_chromium() is None and not os.environ.get("QUACKBOX_REQUIRE_BROWSER"):
    pytest.skip(
        "no Chromium on this machine (CI installs one and sets QUACKBOX_REQUIRE_BROWSER)", allow_module_level=True
    )

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


async def open_table(tmp_path: Any, door: dict[str, Any] | None = None, **host: Any) -> tuple[Host, WebServer]:
    config = HostConfig(
        **{
            "game": "side-effects",
            "seats": 2,
            "bots": 1,
            "headless": True,
            "bind": "127.0.0.1",
            "port": 0,
            "once": False,
            "bot_delay": 0.0,
            "away_grace": None,
            "seed": 3,
            "code": CODE,
            **host,
        }
    )
    running = Host(config)
    await running.start()
    server = WebServer(web_config(tmp_path, **(door or {})), running)
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
    screen = ""

    async def has() -> bool:
        nonlocal screen
        screen = await page.text()
        return text in screen

    try:
        await until(has, timeout)
    except AssertionError:
        raise AssertionError(f"{text!r} never appeared; the page shows:\n{screen}") from None
    return screen


def table_now(host: Host) -> str:
    """Where a table stands, for a test that waited on it in vain: its phase and move, what
    holds it, and its seats."""
    table = host.table
    lobby = table.lobby.message(table.phase)
    seats = ", ".join(f"{s.name or '-'} {s.kind}{' ready' if s.ready else ''}" for s in lobby.seats)
    return (
        f"phase {table.phase}, move {table.seq}, paused {table.paused!r}, holding {table.holding}, "
        f"saver busy {host.saver.busy}, next wake-up {table.next_wakeup()}, seats: {seats}"
    )


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
            ".map(s => getComputedStyle(s).color)).size"
        )
        assert colours >= 4

        await page.press("s", ctrl=True)  # Ctrl+S starts: the open seat gets a bot
        rules = host.table.rules
        await until(
            lambda: host.table.phase == "playing" and 0 in rules.waiting_for(host.table.state), what="ann's turn"
        )
        await shows(page, "your turn")
        hand = rules.view(host.table.state, 0).hand
        await page.press("e")  # end the turn
        await until(lambda: any(seat == 0 for seat, _ in host.table.recent_moves), what="ann's move")

        [session] = server.sessions
        small = await page.evaluate("[term.cols, term.rows]")
        assert tuple(small) == session.window.size
        await page.resize(1300, 850)
        bigger = await page.wait_for(f"term.cols > {small[0]} && [term.cols, term.rows]")
        await until(lambda: session.window.size == tuple(bigger), timeout=10, what="the child's new size")
        first_line = await page.wait_for(
            f"(document.querySelector('.xterm-rows > div').textContent.trimEnd().length > {small[0]}) && "
            "document.querySelector('.xterm-rows > div').textContent",
            timeout=20,
        )
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
        assert await page.evaluate(
            "['camera', 'microphone', 'geolocation', 'clipboard-write']"
            ".map(f => document.featurePolicy.allowsFeature(f))"
        ) == [False, False, False, True]
    finally:
        await close_table(host, server)


async def test_two_tabs_play_a_whole_game_against_a_bot(browser: Browser, tmp_path: Any) -> None:
    """Two people in two browsers and a bot, one game to its end on both screens (a short turn
    timer plays each person's turn, so the game runs by itself)."""
    host, server = await open_table(tmp_path, seats=3, bots=1, autostart=True, turn_timer=0.1)
    try:
        pages = [await open_page(browser, server, name) for name in ("ann", "bob")]
        try:
            outcome = await until(lambda: host.table.outcome, timeout=180, what="the game to end")
        except AssertionError as failed:
            raise AssertionError(f"{failed}; the table: {table_now(host)}") from None
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


async def test_wide_characters_take_the_cells_the_child_gave_them(
    browser: Browser, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A name with emoji and a chat line in Chinese, one emoji (U+1F972) being one the newest
    Unicode makes wide and the page's width table does not. Every character the browser shows
    sits in the column a terminal that counts widths as the child does puts it (pyte, fed the
    same bytes, counting by Rich's table at the Unicode version the child was given): nothing
    after a wide character shifts and no stale text stays."""
    host, server = await open_table(tmp_path, door={"warm": True}, seats=3)
    try:
        assert await asyncio.wait_for(server.door.wait_warm(), SCREEN)
        zygote = server.door.zygote
        assert zygote is not None
        given: list[dict[str, str]] = []  # the child's environment, as the door forks it
        spawn = zygote.spawn

        def spawn_and_tell(argv: Any, env: Any, **size: int) -> Any:
            given.append(dict(env))
            return spawn(argv, env, **size)

        monkeypatch.setattr(zygote, "spawn", spawn_and_tell)
        newer = "\U0001f972"
        name, said = f"\U0001f986 Ann {newer}", f"\u4f60\u597d \u4e16\u754c ok {newer} fine"
        page = await browser.new_page(900, 600)
        await page.before_each_load(f"localStorage.setItem('quackbox-name', {json.dumps(name)});")
        await page.open(server.link())
        await shows(page, "(you)")
        await page.send("Input.insertText", {"text": said})  # into the lobby's chat, as a keyboard's IME would
        await page.press("Enter")
        await shows(page, "fine")
        cols, rows = await page.evaluate("[term.cols, term.rows]")
        [session] = server.sessions
        assert session.window.size == (cols, rows)
        [env] = given
        counts = env.get("UNICODE_VERSION", "latest")  # Rich's own default: the newest
        assert cell_len(newer, "latest") == 2  # the newest Unicode makes it wide

        def width(char: str) -> int:
            return get_character_cell_size(char, counts) if char else 0

        monkeypatch.setattr(pyte.screens, "wcwidth", width)

        def child_drew() -> list[list[tuple[int, str]]]:
            """Each row's characters but spaces, with the column each starts at."""
            screen = pyte.Screen(cols, rows)
            pyte.ByteStream(screen).feed(bytes(page.received))
            return [
                [(x, screen.buffer[y][x].data) for x in range(cols) if screen.buffer[y][x].data.strip()]
                for y in range(rows)
            ]

        async def browser_drew() -> list[list[tuple[int, str]]]:
            return [
                [(x, char) for x, char in row]
                for row in await page.evaluate("""
              Array.from({length: term.rows}, (_, y) => {
                const line = term.buffer.active.getLine(y), cells = [];
                for (let x = 0; x < term.cols; x++) {
                  const char = line.getCell(x).getChars();
                  if (char.trim()) cells.push([x, char]);
                }
                return cells;
              })""")
            ]

        def shown(row: list[tuple[int, str]]) -> str:
            line = [" "] * cols
            for x, char in row:
                line[x] = char
            return "".join(line).rstrip()

        drawn: list[list[tuple[int, str]]] = []
        meant: list[list[tuple[int, str]]] = []

        async def alike() -> bool:
            nonlocal drawn, meant
            drawn, meant = await browser_drew(), child_drew()
            return drawn == meant

        try:
            await until(alike, 20)
        except AssertionError:
            apart = [f"{y}: {shown(a)!r}\n{y}: {shown(b)!r}" for y, (a, b) in enumerate(zip(drawn, meant)) if a != b]
            raise AssertionError(
                f"the browser's rows differ from the child's (counting by {counts}):\n" + "\n".join(apart)
            ) from None

        def column(needle: str) -> int:
            """The column ``needle`` (no spaces in it) starts at in the browser."""
            for row in drawn:
                chars = [char for _, char in row]
                for i in range(len(chars)):
                    if "".join(chars[i : i + len(needle)]) == needle:
                        return row[i][0]
            raise AssertionError(f"{needle!r} is not shown")

        assert column("Ann") == column("\U0001f986") + cell_len("\U0001f986 ", counts)
        for after in ("ok", "fine"):
            assert column(after) == column("\u4f60\u597d") + cell_len(said[: said.index(after)], counts), after
    finally:
        await close_table(host, server)


async def test_the_page_counts_every_character_the_child_gives_cells_as_the_child_does(
    browser: Browser, tmp_path: Any
) -> None:
    """The width table the page draws with (its vendored addon's) against Rich's at the Unicode
    version a browser's child counts by, for every character a name or a chat line can hold:
    each one the child gives one or two cells takes as many in the browser. (The child gives
    none to marks that join the letter before them, and xterm.js gives some of those a cell:
    WEB.md says which.)"""
    host, server = await open_table(tmp_path)
    try:
        page = await browser.new_page()
        await page.open(server.link())
        # The addon hands its table to the terminal it is loaded in: here, a stand-in that keeps it.
        ranges = await page.evaluate("""(() => {
            let table = null;
            new Unicode11Addon.Unicode11Addon().activate({ unicode: { register: (t) => { table = t; } } });
            const ranges = [];
            for (let cp = 0; cp <= 0x10ffff; cp++) {
              const width = table.wcwidth(cp), last = ranges[ranges.length - 1];
              if (last && last[2] === width && last[1] === cp - 1) last[1] = cp;
              else ranges.push([cp, cp, width]);
            }
            return ranges;
          })()""")
        page_width = {}
        for first, last, width in ranges:
            page_width.update(dict.fromkeys(range(first, last + 1), width))
        kept = [
            chr(cp)
            for cp in range(0x20, 0x110000)
            if not 0xD800 <= cp <= 0xDFFF and clean_text(chr(cp) + "x") == chr(cp) + "x"
        ]
        apart = [
            f"U+{ord(ch):04X} {width} {page_width[ord(ch)]}"
            for ch in kept
            if (width := get_character_cell_size(ch, web.UNICODE_WIDTHS)) and width != page_width[ord(ch)]
        ]
        assert len(kept) > 100_000 and apart == []
        assert page_width[0x1F986] == 2 and page_width[0x4F60] == 2  # the duck and the Chinese: wide
    finally:
        await close_table(host, server)
