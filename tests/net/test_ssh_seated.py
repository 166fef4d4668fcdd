"""The SSH door beside a host with a seat: the person at the terminal plays seat 1, friends come in over ssh.

``quackbox host --ssh`` without ``--headless``: :func:`quackbox.net.local.open_table`
starts the door beside the in-process host, and closing the table (or the
host's app) closes every SSH session with it. Players are asyncssh's own
client on 127.0.0.1 port 0, each session running the real ``quackbox join``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import re
import signal
from pathlib import Path
from typing import Any

import pytest

from quackbox.core.side_effects.moves import EndTurn
from quackbox.net.host import HostConfig
from quackbox.net.local import open_table
from quackbox.net.ssh import SshConfig
from quackbox.net.sshlib import asyncssh
from tests.net.test_ssh import (  # noqa: F401 (keys: a fixture)
    ROOT,
    _descendants_of,
    door_config,
    gone,
    keys,
    login,
    session,
    stub,
    until,
)
from tests.terminal_host import seated_host


def seated(tmp_path: Path, **host: Any) -> tuple[HostConfig, SshConfig]:
    config = HostConfig(
        **{
            "game": "side-effects",
            "seats": 2,
            "bots": 0,
            "headless": False,
            "host_name": "Hana",
            "bind": "127.0.0.1",
            "port": 0,
            "once": False,
            "bot_delay": 0.0,
            "away_grace": None,
            "seed": 3,
            **host,
        }
    )
    ssh = door_config(tmp_path)
    return config, ssh


async def test_the_hosts_own_seat_is_not_an_ssh_session(tmp_path: Path, keys: list) -> None:
    """The seat the host plays at its own terminal is not the door's to give: at two seats, one
    newcomer comes in over SSH and the next one waits for that seat."""
    config, ssh = seated(tmp_path)
    ssh.command, ssh.limits = stub(), dataclasses.replace(ssh.limits, spectators=0)
    client, local = await open_table(config, name="Hana", ssh=ssh)
    try:
        door = local.ssh
        assert door is not None
        await (await session(await login(door, keys[0]))).wait_for("ready", raw=True)
        second = await session(await login(door, keys[1]))
        await asyncio.wait_for(second.closed.wait(), 20)
        assert second.status == 1 and "Someone is taking the last open seat right now" in second.said
        assert len(door.sessions) == 1
    finally:
        await local.close()


def seat_line(text: str, number: int) -> str:
    """The lobby's line for seat ``number`` (counting from 1), as the screen shows it."""
    return next((line for line in text.splitlines() if re.match(rf"^\s+{number}\s\s", line)), "")


async def test_a_seated_hosts_table_over_ssh_has_the_host_in_seat_1_and_the_ssh_player_in_seat_2(
    tmp_path: Path, keys: list
) -> None:
    """Over plain ssh, bob sees the host's person in seat 1 and himself in seat 2; both play moves
    (each sees the other's); the host's seat is no SSH seat, so a second key finds the table full;
    closing the table tells bob and leaves no child."""
    config, ssh = seated(tmp_path)
    client, local = await open_table(config, name="Hana", ssh=ssh)
    try:
        door = local.ssh
        assert door is not None and door.port != 0 and door.fingerprint.startswith("SHA256:")
        bob = await login(door, keys[0], "bob")
        screen = await session(bob)
        await screen.wait_for("bob (you)")
        assert "Hana" in seat_line(screen.text, 1) and "host" in seat_line(screen.text, 1)
        assert "bob (you)" in seat_line(screen.text, 2)
        assert f"SSH host key {door.fingerprint}" in screen.text
        [pid] = door.children

        # Both seats are people: a second key is told so in a sentence (the host's seat is not its to take).
        carol = await login(door, keys[1], "carol")
        refused = await session(carol)
        await asyncio.wait_for(refused.closed.wait(), 20)
        assert refused.status == 1 and "This table is full: every seat is taken." in refused.said
        carol.close()

        screen.press("\x12")  # Ctrl+R: ready
        await until(lambda: local.host.table.seats[1].ready, what="bob to be ready")
        await client.start()
        table = local.host.table
        rules = table.rules
        await until(lambda: table.phase == "playing", what="the game to start")
        moved: set[int] = set()
        while moved != {0, 1}:
            up = await until(lambda: rules.waiting_for(table.state), what="a seat to be up")
            if 0 in up:
                await until(lambda: client.view is not None and client.view.seq == table.seq, what="the host's view")
                await client.move(EndTurn())
                await until(lambda: 0 not in rules.waiting_for(table.state), what="the host's move")
                moved.add(0)
            else:
                await screen.wait_for("your turn")
                screen.press("e")
                await until(lambda: 1 not in rules.waiting_for(table.state), what="bob's move")
                moved.add(1)
        assert {seat for seat, move in table.recent_moves if isinstance(move, EndTurn)} == {0, 1}
        await screen.wait_for("Hana ended the turn.")
    finally:
        await local.close()
    await screen.closed.wait()
    assert "The table has closed." in screen.said
    await until(lambda: gone(pid), timeout=10, what="bob's child to end")
    assert door.children == []


@pytest.mark.parametrize("close", ["q", "SIGTERM"])
async def test_closing_the_hosts_app_closes_the_ssh_sessions_and_leaves_no_child(
    tmp_path: Path, keys: list, close: str
) -> None:
    """The real ``quackbox host --ssh`` with a seat, on a terminal: its lobby shows the ssh command,
    bob comes in with it, and leaving the host's lobby (or a kill) tells bob the table closed and ends his child."""
    async with seated_host(tmp_path, "--ssh", "0") as host:
        bob: Any = None
        try:
            shown = await until(
                lambda: re.search(r"nothing installed: ssh -p (\d+) 127\.0\.0\.1", host.text),
                what="the host's lobby",
            )
            port = int(shown.group(1))
            assert "SSH host key SHA256:" in host.text
            bob = await asyncssh.connect(
                "127.0.0.1", port, username="bob", client_keys=[keys[2]], known_hosts=None, agent_path=None, config=None
            )
            screen = await session(bob)
            await screen.wait_for("bob (you)")
            assert "Hana" in seat_line(screen.text, 1)
            # Bob's child and, once it is warm, the zygote (bob's child may be forked from it).
            children = await until(lambda: _descendants_of(host.proc.pid), timeout=10, what="bob's child")
            if close == "q":
                host.type(b"\x1b")  # Esc leaves the host's lobby, once asked
                await until(lambda: "Close the table?" in host.text, what="the question")
                host.type(b"y")
            else:
                host.proc.send_signal(signal.SIGTERM)
            await asyncio.wait_for(screen.closed.wait(), 20)
            assert "The table has closed." in screen.said
            assert await asyncio.to_thread(host.proc.wait, 20) == (0 if close == "q" else 128 + signal.SIGTERM)
            for child in children:
                await until(lambda child=child: gone(child), timeout=10, what=f"process {child} to end")
        finally:
            if bob is not None:
                bob.close()
