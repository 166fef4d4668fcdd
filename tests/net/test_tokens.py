"""Seat tokens remembered on the player's machine find the seat again."""

from __future__ import annotations

from pathlib import Path

from quackbox.net.client import Client
from quackbox.net.host import Host, HostConfig
from quackbox.net.protocol import View
from quackbox.net.tokens import TokenStore


async def _first_view(client: Client) -> View:
    async for message in client:
        if isinstance(message, View):
            return message
    raise AssertionError("no view")


async def test_a_remembered_token_reclaims_the_seat_and_hand(tmp_path: Path) -> None:
    store = TokenStore(tmp_path / "tokens.json")
    config = HostConfig(
        game="side-effects", seats=2, headless=True, port=0, bot_delay=0.0, seed=3, away_grace=None, autostart=True
    )
    async with Host(config) as host:
        first = await Client.connect(host.url, name="Ana", tokens=store, reconnect=False)
        assert store.recall(host.url, "Ana") == first.token and store.recall(host.url, "Ben") is None
        second = await Client.connect(host.url, name="Ben", reconnect=False)
        view = await _first_view(first)
        await first.close()
        again = await Client.connect(host.url, name="Ana", tokens=store, reconnect=False)
        assert again.seat == first.seat
        view_again = await _first_view(again)
        assert view_again.view.hand == view.view.hand
        await again.close()
        await second.close()


async def test_a_token_the_host_does_not_know_is_forgotten(tmp_path: Path) -> None:
    store = TokenStore(tmp_path / "tokens.json")
    config = HostConfig(game="side-effects", seats=2, headless=True, port=0, bot_delay=0.0)
    async with Host(config) as host:
        store.remember(host.url, "not-a-real-token", name="Ana")
        client = await Client.connect(host.url, name="Ana", tokens=store, reconnect=False)
        assert client.seat == 0 and client.token != "not-a-real-token"
        assert store.recall(host.url, "Ana") == client.token
        await client.close()


def test_a_broken_token_file_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / "tokens.json"
    path.write_text("{not json")
    store = TokenStore(path)
    assert store.recall("ws://x:1") is None
    store.remember("ws://x:1", "abc")
    assert store.recall("ws://x:1") == "abc"
    assert (path.stat().st_mode & 0o777) == 0o600
