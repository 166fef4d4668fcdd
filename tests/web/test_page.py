"""The browser door's page and its HTTP rules, without a socket (quackbox.net.web_http)."""

from __future__ import annotations

import gzip
import hashlib
import re
from html.parser import HTMLParser
from importlib import resources

import pytest

from quackbox.net import web_http
from quackbox.net.web_http import CSP, PERMISSIONS, SOCKET_PATH, Page, allowed_hosts, answer, host_name

HOSTS = allowed_hosts(["127.0.0.1", "localhost", "10.0.0.5", "::1"])


@pytest.fixture(scope="module")
def page() -> Page:
    return Page()


def _get(page: Page, path: str, method: str = "GET", **headers: str):
    return answer(
        page,
        path,
        {"host": "10.0.0.5:7118", **{k.replace("_", "-"): v for k, v in headers.items()}},
        HOSTS,
        method=method,
    )


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.inline: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("src", "href", "action") and value is not None:
                self.links.append(value)
            if name == "style" or name.startswith("on"):
                self.inline.append(f"{tag} {name}")
        if tag == "script" and not dict(attrs).get("src"):
            self.inline.append("script without src")
        if tag == "style":
            self.inline.append("style element")


def test_every_link_of_the_page_is_relative(page: Page) -> None:
    """The page names its files relative to itself, and nothing inline that the CSP would block."""
    html = page.assets["/"].body.decode()
    parser = _Links()
    parser.feed(html)
    assert sorted(parser.links) == [
        "door.css",
        "door.js",
        "favicon.svg",
        "vendor/addon-fit.js",
        "vendor/addon-unicode11.js",
        "vendor/xterm.css",
        "vendor/xterm.js",
    ]
    assert all("/" + link in page.assets for link in parser.links)
    assert parser.inline == []


def test_our_script_fetches_nothing_from_elsewhere(page: Page) -> None:
    """door.js opens its socket at the page's own host and names no other address."""
    script = page.assets["/door.js"].body.decode()
    assert "location.host}/term" in script
    assert not re.search(r"https?://", script)
    assert "@import" not in page.assets["/door.css"].body.decode()


def test_every_file_carries_the_policy(page: Page) -> None:
    for path in web_http.FILES:
        got = _get(page, path)
        headers = dict(got.headers)
        assert got.status == 200, path
        assert headers["Content-Security-Policy"] == CSP
        assert CSP.startswith("default-src 'self'")
        assert headers["X-Content-Type-Options"] == "nosniff"
        assert headers["Referrer-Policy"] == "no-referrer"
        assert got.body == page.assets[path].body


def test_no_other_site_may_frame_the_page_and_it_may_ask_for_no_device(page: Page) -> None:
    """Every answer, a refusal too: framing is refused both ways browsers know, and the page may
    use no camera, microphone, location... but the clipboard."""
    for path in ("/", "/door.js", "/nothing-here", SOCKET_PATH):
        headers = dict(_get(page, path).headers)
        assert "frame-ancestors 'none'" in headers["Content-Security-Policy"]
        assert headers["X-Frame-Options"] == "DENY"
        assert headers["Permissions-Policy"] == PERMISSIONS
    policy = dict(part.split("=") for part in PERMISSIONS.split(", "))
    assert policy["camera"] == policy["microphone"] == policy["geolocation"] == policy["payment"] == "()"
    assert policy["clipboard-write"] == "(self)"


def test_head_is_answered_as_get_without_the_body(page: Page) -> None:
    for path, headers in (("/", {}), ("/vendor/xterm.js", {"accept_encoding": "gzip"}), ("/nothing-here", {})):
        get, head = _get(page, path, **headers), _get(page, path, "HEAD", **headers)
        assert head.status == get.status and head.body == b"" and get.body
        assert head.headers == get.headers
        assert dict(head.headers)["Content-Length"] == str(len(get.body))
    etag = dict(_get(page, "/").headers)["ETag"]
    assert _get(page, "/", "HEAD", if_none_match=etag).status == 304


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "OPTIONS", "PATCH", "TRACE", "CONNECT", "get"])
def test_other_methods_are_not_allowed(page: Page, method: str) -> None:
    for path in ("/", "/door.js", "/nothing-here"):
        got = _get(page, path, method)
        assert got.status == 405 and dict(got.headers)["Allow"] == "GET, HEAD" and got.body.endswith(b".\n")
    # The terminal opens only for a GET; a name never announced is refused before the method is looked at.
    socket = answer(
        page, SOCKET_PATH, {"host": "10.0.0.5:7118", "origin": "http://10.0.0.5:7118"}, HOSTS, method=method
    )
    assert socket.status == 405 and not socket.upgrade
    assert answer(page, "/", {"host": "evil.example"}, HOSTS, method=method).status == 421


def test_the_terminal_is_not_opened_by_a_head(page: Page) -> None:
    got = answer(page, SOCKET_PATH, {"host": "10.0.0.5:7118", "origin": "http://10.0.0.5:7118"}, HOSTS, method="HEAD")
    assert got.status == 405 and not got.upgrade and got.body == b""


def test_a_browser_that_takes_gzip_gets_it_and_a_known_file_is_not_sent_again(page: Page) -> None:
    got = _get(page, "/vendor/xterm.js", accept_encoding="gzip, deflate")
    assert dict(got.headers)["Content-Encoding"] == "gzip"
    assert gzip.decompress(got.body) == page.assets["/vendor/xterm.js"].body
    assert len(got.body) < len(page.assets["/vendor/xterm.js"].body) / 2
    etag = dict(got.headers)["ETag"]
    again = _get(page, "/vendor/xterm.js", if_none_match=etag)
    assert (again.status, again.body) == (304, b"")


def test_the_vendored_files_are_the_published_ones() -> None:
    """xterm.js and its addons are byte for byte the versions VENDORED.md names, each beside its licence."""
    vendor = resources.files("quackbox.net").joinpath("web_page", "vendor")
    listed = re.findall(r"^\s+([0-9a-f]{64})\s+(\S+)$", vendor.joinpath("VENDORED.md").read_text(), re.M)
    assert {name for _, name in listed} == {"xterm.js", "xterm.css", "addon-fit.js", "addon-unicode11.js"}
    for digest, name in listed:
        assert hashlib.sha256(vendor.joinpath(name).read_bytes()).hexdigest() == digest, name
    for licence in ("LICENSE-xterm.txt", "LICENSE-addon-fit.txt", "LICENSE-addon-unicode11.txt"):
        # The MIT licence's grant (its name is not in the text the packages ship).
        assert "Permission is hereby granted, free of charge" in vendor.joinpath(licence).read_text(), licence


@pytest.mark.parametrize(
    "host",
    [
        "evil.example:7118",
        "evil.example",
        "",
        "127.0.0.2:7118",
        "10.0.0.5.evil.example",
        "10.0.0.5:x",
        "10.0.0.5:7118:7118",
        "::1:7118",
        "[::2]:7118",
        "10.0.0.5@evil:7118",
    ],
)
def test_a_host_header_the_table_never_announced_is_refused(page: Page, host: str) -> None:
    """DNS rebinding: another site's name pointed at this machine is not the table."""
    got = answer(page, "/", {"host": host}, HOSTS)
    assert got.status == 421
    assert b"address it gave" in got.body


@pytest.mark.parametrize(
    "host", ["127.0.0.1:7118", "LOCALHOST:7118", "[::1]:7118", "10.0.0.5:7118", "[::1]", "10.0.0.5", "10.0.0.5:8080"]
)
def test_the_announced_names_are_answered_at_any_port(page: Page, host: str) -> None:
    """A router forwarding port 80 or 8080 to the table, or a proxy in front of it, keeps the name."""
    assert answer(page, "/", {"host": host}, HOSTS).status == 200


@pytest.mark.parametrize(
    "origin", ["http://evil.example", "null", "", "http://10.0.0.5:7118.evil.example", "http://127.0.0.1:7118"]
)
def test_the_socket_refuses_another_origin(page: Page, origin: str) -> None:
    headers = {"host": "10.0.0.5:7118", "origin": origin} if origin else {"host": "10.0.0.5:7118"}
    got = answer(page, SOCKET_PATH, headers, HOSTS)
    assert got.status == 403 and not got.upgrade


def test_the_socket_opens_for_the_page_itself(page: Page) -> None:
    got = answer(page, SOCKET_PATH, {"host": "10.0.0.5:7118", "origin": "http://10.0.0.5:7118"}, HOSTS)
    assert got.upgrade


def test_anything_else_is_not_found(page: Page) -> None:
    for path in ("/index.html/..", "/../pyproject.toml", "/vendor/", "/door.js.map", "/KQXZ"):
        assert _get(page, path).status == 404


def test_a_query_does_not_change_the_page(page: Page) -> None:
    """`?reader=1` and `?watch=1` are for the page's script, not the host."""
    assert _get(page, "/?reader=1").body == page.assets["/"].body


def test_allowed_hosts_are_names_lower_case_ipv6_in_brackets() -> None:
    assert allowed_hosts(["Quack.local", "fe80::1", "", "[::1]"]) == {"quack.local", "[fe80::1]", "[::1]"}
    assert host_name("Quack.Local:7118") == "quack.local" and host_name("[fe80::1]:80") == "[fe80::1]"
