"""A headless Chromium driven over its DevTools protocol, with the websockets package.

Enough of the protocol to use a page as a person would: open a link, read
what the page shows, type, resize the window, reload, and list every request
the page made. Chromium comes from the system (Debian's ``chromium``);
nothing is downloaded.

    async with Browser.launch() as browser:
        page = await browser.new_page()
        await page.open("http://127.0.0.1:7118/#KQXZ")
        await page.wait_for("document.title.includes('quackbox')")
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import re
import shutil
import signal
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from tests.waiting import until

__all__ = ["Browser", "BrowserError", "Page", "Request", "find_chromium"]

# Chromium reaches for Google's services at start unless told not to; on a
# closed network those attempts only slow it down and muddy the request log.
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--mute-audio",
    "--disable-dev-shm-usage",
    "--remote-debugging-port=0",
)
_LISTENING = re.compile(rb"DevTools listening on (ws://\S+)")
START_TIMEOUT = 30.0


class BrowserError(Exception):
    """The browser could not be started or answered with an error."""


def find_chromium() -> str | None:
    """The path of a Chromium on this machine (``QUACKBOX_CHROMIUM`` first), or None."""
    given = os.environ.get("QUACKBOX_CHROMIUM")
    if given:
        return given
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


@dataclass(frozen=True)
class Request:
    """One request a page made: its URL and the kind of resource."""

    url: str
    kind: str


class Browser:
    """One Chromium process and the DevTools connection to it."""

    def __init__(self, process: asyncio.subprocess.Process, ws: ClientConnection, profile: str) -> None:
        self._process = process
        self._ws = ws
        self.profile = profile
        """The folder of its profile (thrown away when it closes)."""
        self._ids = 0
        self._waiting: dict[int, asyncio.Future[Any]] = {}
        self._pages: dict[str, Page] = {}
        self._reader = asyncio.get_running_loop().create_task(self._read())

    @classmethod
    @contextlib.asynccontextmanager
    async def launch(cls, path: str | None = None):  # type: ignore[no-untyped-def]
        """Start a headless Chromium with an empty profile; close it on leaving."""
        path = path or find_chromium()
        if path is None:
            raise BrowserError("No Chromium found: install Debian's 'chromium' or set QUACKBOX_CHROMIUM.")
        profile = tempfile.mkdtemp(prefix="quackbox-chromium-")
        process = await asyncio.create_subprocess_exec(
            path,
            *FLAGS,
            f"--user-data-dir={profile}",
            "about:blank",
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
        )
        browser = None
        try:
            url = await asyncio.wait_for(_devtools_url(process), START_TIMEOUT)
            ws = await connect(url, max_size=None, ping_interval=None)
            browser = cls(process, ws, profile)
            yield browser
        finally:
            if browser is not None:
                await browser.close()
            _kill(process)
            with contextlib.suppress(ProcessLookupError, ChildProcessError):
                await asyncio.wait_for(process.wait(), 10)
            _remove_profile(profile)

    async def send(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> Any:
        """Send one command; its result (BrowserError if the browser answered with an error)."""
        self._ids += 1
        message: dict[str, Any] = {"id": self._ids, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiting[self._ids] = future
        await self._ws.send(json.dumps(message))
        return await future

    async def new_page(self, width: int = 1000, height: int = 700, *, apart: bool = True) -> Page:
        """A new tab of ``width`` x ``height`` CSS pixels, with its requests recorded.

        ``apart``: in a browser context of its own (its own storage and cookies, as another
        person's browser); else in the browser's default one, shared with other such tabs.
        """
        params: dict[str, Any] = {"url": "about:blank", "newWindow": True, "width": width, "height": height}
        if apart:
            params["browserContextId"] = (await self.send("Target.createBrowserContext"))["browserContextId"]
        target = await self.send("Target.createTarget", params)
        attached = await self.send("Target.attachToTarget", {"targetId": target["targetId"], "flatten": True})
        page = Page(self, target["targetId"], attached["sessionId"])
        self._pages[page.session] = page
        await page.send("Page.enable")
        await page.send("Network.enable")
        await page.send("Runtime.enable")
        await page.resize(width, height)
        return page

    async def _read(self) -> None:
        try:
            async for raw in self._ws:
                message = json.loads(raw)
                if "id" in message:
                    future = self._waiting.pop(message["id"], None)
                    if future is None or future.done():
                        continue
                    if "error" in message:
                        future.set_exception(BrowserError(f"{message['error'].get('message')}"))
                    else:
                        future.set_result(message.get("result", {}))
                elif (page := self._pages.get(message.get("sessionId", ""))) is not None:
                    page.event(message["method"], message.get("params", {}))
        except Exception:  # noqa: BLE001 - the connection is gone: every waiter hears so below
            pass
        for future in self._waiting.values():
            if not future.done():
                future.set_exception(BrowserError("The browser went away."))

    async def close(self) -> None:
        """Close the browser's window and the connection to it."""
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.send("Browser.close"), 5)
        await self._ws.close()
        self._reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._reader


class Page:
    """One tab."""

    def __init__(self, browser: Browser, target: str, session: str) -> None:
        self.browser = browser
        self.target = target
        self.session = session
        self.requests: list[Request] = []
        """Every request the page made, in order (the page, its assets, its websockets)."""
        self.console: list[str] = []
        """What the page wrote to its console, and uncaught errors."""
        self.received = bytearray()
        """Every binary message the page's websockets received, one after another."""
        self._loaded = asyncio.Event()

    async def send(self, method: str, params: dict[str, Any] | None = None) -> Any:
        return await self.browser.send(method, params, self.session)

    async def open(self, url: str) -> None:
        """Go to ``url`` and wait until it has loaded."""
        self._loaded.clear()
        await self.send("Page.navigate", {"url": url})
        await asyncio.wait_for(self._loaded.wait(), 20)

    async def before_each_load(self, script: str) -> None:
        """Run ``script`` in the page before its own scripts, at every load from now on."""
        await self.send("Page.addScriptToEvaluateOnNewDocument", {"source": script})

    async def screenshot(self) -> bytes:
        """What the tab shows, as PNG."""
        shot = await self.send("Page.captureScreenshot", {"format": "png"})
        return base64.b64decode(shot["data"])

    async def reload(self) -> None:
        self._loaded.clear()
        await self.send("Page.reload", {"ignoreCache": True})
        await asyncio.wait_for(self._loaded.wait(), 20)

    async def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (awaited if it is a promise)."""
        reply = await self.send(
            "Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True}
        )
        if "exceptionDetails" in reply:
            details = reply["exceptionDetails"]
            raise BrowserError(details.get("exception", {}).get("description") or details.get("text", "error"))
        return reply["result"].get("value")

    async def wait_for(self, expression: str, timeout: float = 15.0) -> Any:
        """Wait until ``expression`` is truthy in the page; its value."""
        return await until(lambda: self.evaluate(expression), timeout, expression)

    async def text(self) -> str:
        """What the terminal shows: the rows of xterm.js's DOM renderer, one line each."""
        return await self.evaluate(
            "Array.from(document.querySelectorAll('.xterm-rows > div')).map(r => r.textContent).join('\\n')"
        )

    async def type(self, text: str) -> None:
        """Type ``text`` as key presses into whatever has the focus."""
        for char in text:
            await self.press(char)

    async def press(self, key: str, ctrl: bool = False) -> None:
        """Press one key: a character, or a name such as ``Enter``, ``Escape``, ``ArrowDown``;
        with ``ctrl``, the key with Control held (no text: the terminal makes the control code)."""
        code, text, keycode = _KEYS.get(key, (f"Key{key.upper()}" if key.isalpha() else "", key, ord(key.upper()[0])))
        base = {"key": key, "code": code, "windowsVirtualKeyCode": keycode, "nativeVirtualKeyCode": keycode}
        if ctrl:
            base["modifiers"] = 2  # Control, in the protocol's bit field
            text = ""
        await self.send("Input.dispatchKeyEvent", {"type": "keyDown", **base, **({"text": text} if text else {})})
        await self.send("Input.dispatchKeyEvent", {"type": "keyUp", **base})

    async def resize(self, width: int, height: int) -> None:
        """Make the window ``width`` x ``height`` CSS pixels (the page sees a resize)."""
        window = await self.browser.send("Browser.getWindowForTarget", {"targetId": self.target})
        await self.browser.send(
            "Browser.setWindowBounds",
            {"windowId": window["windowId"], "bounds": {"width": width, "height": height, "windowState": "normal"}},
        )
        await self.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
        )

    def event(self, method: str, params: dict[str, Any]) -> None:
        """An event of the page's session: what the page loaded, sent, received and logged."""
        if method == "Page.loadEventFired":
            self._loaded.set()
        elif method == "Network.requestWillBeSent":
            self.requests.append(Request(params["request"]["url"], params.get("type", "")))
        elif method == "Network.webSocketCreated":
            self.requests.append(Request(params["url"], "WebSocket"))
        elif method == "Network.webSocketFrameReceived" and params["response"]["opcode"] == 2:
            self.received += base64.b64decode(params["response"]["payloadData"])
        elif method == "Runtime.consoleAPICalled":
            self.console.append(" ".join(str(a.get("value", a.get("description", ""))) for a in params["args"]))
        elif method == "Runtime.exceptionThrown":
            self.console.append(params["exceptionDetails"].get("text", "exception"))


# key name -> (code, text, Windows virtual key code)
_KEYS: dict[str, tuple[str, str, int]] = {
    "Enter": ("Enter", "\r", 13),
    "Escape": ("Escape", "", 27),
    "Tab": ("Tab", "\t", 9),
    "Backspace": ("Backspace", "", 8),
    "ArrowUp": ("ArrowUp", "", 38),
    "ArrowDown": ("ArrowDown", "", 40),
    "ArrowLeft": ("ArrowLeft", "", 37),
    "ArrowRight": ("ArrowRight", "", 39),
    " ": ("Space", " ", 32),
    **{str(d): (f"Digit{d}", str(d), 48 + d) for d in range(10)},
}


async def _devtools_url(process: asyncio.subprocess.Process) -> str:
    assert process.stderr is not None  # created with a pipe above
    seen = b""
    while True:
        line = await process.stderr.readline()
        if not line:
            raise BrowserError(f"Chromium exited before it listened: {seen[-500:].decode(errors='replace')}")
        seen += line
        match = _LISTENING.search(line)
        if match:
            # Keep reading stderr so Chromium never blocks on a full pipe.
            asyncio.get_running_loop().create_task(_drain(process.stderr))
            return match.group(1).decode()


async def _drain(stream: asyncio.StreamReader) -> None:
    while await stream.read(65536):
        pass


def _remove_profile(profile: str) -> None:
    """The profile, and the folder Chromium keeps its singleton socket in, beside the profile
    in the temporary folder: a browser killed before it has shut down leaves that behind."""
    with contextlib.suppress(OSError):
        socket_folder = Path(os.readlink(Path(profile, "SingletonSocket"))).parent
        if socket_folder.name.startswith("org.chromium.") and socket_folder.parent == Path(tempfile.gettempdir()):
            shutil.rmtree(socket_folder, ignore_errors=True)
    shutil.rmtree(profile, ignore_errors=True)


def _kill(process: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
