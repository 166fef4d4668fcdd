"""The browser door's HTTP side: the page, its assets, and who may ask for them.

No socket here: :func:`answer` takes a request's method, path and headers and
says what to send back, so every rule is tested without a network.
:mod:`quackbox.net.web` calls it from websockets' ``process_request``.

The rules:

- Only the files of the page are served, from memory, each with a
  Content-Security-Policy of ``default-src 'self'`` (nothing is fetched from
  anywhere but the host: no web font, no script from elsewhere), and gzipped
  when the browser takes gzip. No other site may frame them (the policy's
  ``frame-ancestors 'none'``, and ``X-Frame-Options`` for browsers that
  know only that), and a Permissions-Policy denies them every device and
  power a page may ask for (camera, microphone, location...) but the
  clipboard.
- GET and HEAD are answered (HEAD as GET, without the body); any other
  method gets ``405``.
- The ``Host`` header must name an address or name the host announced:
  a page of another site whose name was made to point here (DNS rebinding)
  asks with that site's name and is refused. Its port may be any (a router
  forwarding another port, a proxy in front): rebinding changes the name.
- The terminal socket (``/term``) opens only for the page's own origin:
  another site's page cannot open it from a visitor's browser (403).
- The room code is never in a URL: it rides in the link's fragment, which the
  browser keeps to itself, and reaches the host in the socket's first message.
"""

from __future__ import annotations

import gzip
import hashlib
from dataclasses import dataclass
from importlib import resources
from typing import Iterable, Mapping

__all__ = ["CSP", "METHODS", "PERMISSIONS", "SOCKET_PATH", "Answer", "Page", "allowed_hosts", "answer", "host_name"]

SOCKET_PATH = "/term"
"""Where the page opens its terminal socket."""
CSP = "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
"""The page's Content-Security-Policy: everything from the host, nothing inline,
never framed by another site."""
PERMISSIONS = (
    ", ".join(
        f"{feature}=()"
        for feature in (
            "accelerometer",
            "autoplay",
            "camera",
            "display-capture",
            "encrypted-media",
            "fullscreen",
            "geolocation",
            "gyroscope",
            "hid",
            "idle-detection",
            "magnetometer",
            "microphone",
            "midi",
            "payment",
            "publickey-credentials-get",
            "screen-wake-lock",
            "serial",
            "usb",
            "xr-spatial-tracking",
        )
    )
    + ", clipboard-read=(self), clipboard-write=(self)"
)
"""The page's Permissions-Policy: no device or power a page may ask the browser for (a
terminal needs none), but the clipboard (xterm.js copies and pastes with it)."""
METHODS = ("GET", "HEAD")
"""The methods answered; HEAD is answered as GET, without the body."""

# The files of the page: URL path -> (file under web_page/, content type).
FILES: Mapping[str, tuple[str, str]] = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/door.js": ("door.js", "text/javascript; charset=utf-8"),
    "/door.css": ("door.css", "text/css; charset=utf-8"),
    "/favicon.svg": ("favicon.svg", "image/svg+xml"),
    "/favicon.ico": ("favicon.svg", "image/svg+xml"),
    "/vendor/xterm.js": ("vendor/xterm.js", "text/javascript; charset=utf-8"),
    "/vendor/xterm.css": ("vendor/xterm.css", "text/css; charset=utf-8"),
    "/vendor/addon-fit.js": ("vendor/addon-fit.js", "text/javascript; charset=utf-8"),
    "/vendor/addon-unicode11.js": ("vendor/addon-unicode11.js", "text/javascript; charset=utf-8"),
}
_COMMON_HEADERS = (
    ("Content-Security-Policy", CSP),
    ("X-Frame-Options", "DENY"),
    ("Permissions-Policy", PERMISSIONS),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
    ("Cross-Origin-Opener-Policy", "same-origin"),
    ("Cross-Origin-Resource-Policy", "same-origin"),
    # The page is small and the host may be upgraded between games: always
    # ask, and let the ETag make asking cheap.
    ("Cache-Control", "no-cache"),
)


@dataclass(frozen=True)
class Asset:
    """One file of the page, read once: its bytes, gzipped bytes and ETag."""

    body: bytes
    gzipped: bytes
    content_type: str
    etag: str


class Page:
    """Every file of the page, read from the installed package at start."""

    def __init__(self) -> None:
        root = resources.files(__package__).joinpath("web_page")
        self.assets: dict[str, Asset] = {}
        for path, (name, content_type) in FILES.items():
            body = root.joinpath(name).read_bytes()
            etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
            self.assets[path] = Asset(body, gzip.compress(body, 6, mtime=0), content_type, etag)


@dataclass(frozen=True)
class Answer:
    """What to send back: a status, headers (with the Content-Length the body has, or would
    have for a HEAD) and a body; or ``upgrade`` to open the socket."""

    status: int
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes = b""
    upgrade: bool = False


def allowed_hosts(names: Iterable[str]) -> frozenset[str]:
    """The names a ``Host`` header may give: each name or address announced,
    lower case (an IPv6 address in brackets, as a Host header writes it)."""
    hosts = set()
    for name in names:
        name = name.strip().lower()
        if ":" in name and not name.startswith("["):
            name = f"[{name}]"
        if name:
            hosts.add(name)
    return frozenset(hosts)


def host_name(host: str) -> str:
    """The name of a ``Host`` header's value (``10.0.0.5:7118`` -> ``10.0.0.5``), lower case;
    "" when it is no Host value at all."""
    host = host.strip().lower()
    name, colon, port = host.rpartition(":") if not host.endswith("]") else ("", "", "")
    if not colon:
        name = host
    elif not port.isdigit() or len(port) > 5 or (":" in name and not name.endswith("]")):
        return ""
    return name


def answer(page: Page, path: str, headers: Mapping[str, str], hosts: frozenset[str], *, method: str = "GET") -> Answer:
    """What the door answers a request of ``method`` for ``path`` with ``headers`` (names
    lower case), answering only for the names in ``hosts`` (:func:`allowed_hosts`)."""
    got = _answer_get(page, path, headers, hosts)
    if got.status != 421 and method not in METHODS:
        got = _text(
            405,
            "This table's page can only be read here: open the link the host shared.",
            extra=(("Allow", ", ".join(METHODS)),),
        )
    if got.upgrade:
        if method == "GET":
            return got
        got = _text(405, "The table's terminal opens only for its page.", extra=(("Allow", "GET"),))
    if got.status != 304:
        got = Answer(got.status, got.headers + (("Content-Length", str(len(got.body))),), got.body)
    return Answer(got.status, got.headers) if method == "HEAD" else got


def _answer_get(page: Page, path: str, headers: Mapping[str, str], hosts: frozenset[str]) -> Answer:
    host = headers.get("host", "").strip().lower()
    if host_name(host) not in hosts:
        return _text(421, "This table answers only at the address it gave: open the link the host shared.")
    if path == SOCKET_PATH:
        origin = headers.get("origin", "")
        if origin not in (f"http://{host}", f"https://{host}"):
            return _text(403, "Only the table's own page may open its terminal.")
        return Answer(101, upgrade=True)
    if "?" in path:
        path = path.partition("?")[0]
    asset = page.assets.get(path)
    if asset is None:
        return _text(404, "There is nothing here but the table: open the link the host shared.")
    common = _COMMON_HEADERS + (("ETag", asset.etag), ("Vary", "Accept-Encoding"))
    if asset.etag in headers.get("if-none-match", ""):
        return Answer(304, common)
    if "gzip" in headers.get("accept-encoding", ""):
        return Answer(200, common + (("Content-Type", asset.content_type), ("Content-Encoding", "gzip")), asset.gzipped)
    return Answer(200, common + (("Content-Type", asset.content_type),), asset.body)


def _text(status: int, sentence: str, *, extra: tuple[tuple[str, str], ...] = ()) -> Answer:
    return Answer(
        status,
        _COMMON_HEADERS + (("Content-Type", "text/plain; charset=utf-8"),) + extra,
        (sentence + "\n").encode("utf-8"),
    )
