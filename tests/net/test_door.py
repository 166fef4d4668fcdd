"""The door's rules without a network: who comes in, strangers' budgets and deadlines, window
sizes, player folders, and the child's launcher and environment (net.door_policy, net.door_launch, net.player_folders). The clock is ours."""

from __future__ import annotations

import json
import os
import signal
import stat
import sys
import time
from pathlib import Path

import pytest
from textual import events

from quackbox.door_child import join_program
from quackbox.net import door_launch, door_policy
from quackbox.net.door_launch import Launch, child_command, child_environment, child_import_path
from quackbox.net.door_policy import (
    COMING_IN,
    CROWDED,
    TOO_FAST,
    WATCHERS_FULL,
    Admission,
    Doorkeeper,
    DoorLimits,
    Present,
    WindowSize,
    admission,
    clamp_size,
    stale_folders,
)
from quackbox.net.errors import DoorError
from quackbox.net.lobby import LOBBY, OVER, PLAYING
from quackbox.net.player_folders import Key, PlayerFolders
from quackbox.net.pty_child import PtyChild
from quackbox.tui.driver import InputBound
from tests.waiting import Changes

LIMITS = DoorLimits()
REPORT = str(Path(__file__).with_name("child_report.py"))


# --- connections --------------------------------------------------------------------------------


JOIN = join_program()
"""What a door's child runs, as the command gives it."""


def test_one_address_opens_a_burst_of_stranger_connections_then_so_many_a_second():
    """The rate counts connections whose key holds no seat, once they said whose they are."""
    keeper = Doorkeeper(LIMITS)
    answers = []
    for i in range(LIMITS.connection_burst + 1):
        assert keeper.arrived(("a", i), "127.0.0.2", 10.0) == ()  # nobody is refused for connecting
        answers.append(keeper.identified(("a", i), seated=False, now=10.0))
    assert answers[:-1] == [None] * LIMITS.connection_burst and answers[-1] == TOO_FAST
    keeper.arrived("other", "127.0.0.3", 10.0)
    assert keeper.identified("other", seated=False, now=10.0) is None  # other addresses are not held up
    keeper.arrived("later", "127.0.0.2", 11.0)
    assert keeper.identified("later", seated=False, now=10.0 + 1 / LIMITS.connections_per_second) is None


def test_a_seat_holder_is_never_refused_whatever_its_address_did():
    """On a shared box everyone is 127.0.0.1: a neighbour's connections, however many and however
    fast, never refuse the key that holds a seat, nor push its connection out."""
    keeper = Doorkeeper(DoorLimits(stranger_connections=4, stranger_connections_per_address=4))
    for i in range(100):
        keeper.arrived(("neighbour", i), "127.0.0.1", 1.0 + i / 100)
        keeper.identified(("neighbour", i), seated=False, now=1.0 + i / 100)
    keeper.arrived("friend", "127.0.0.1", 2.0)
    assert keeper.identified("friend", seated=True, now=2.0) is None
    for i in range(100, 200):
        evicted = keeper.arrived(("neighbour", i), "127.0.0.1", 2.0 + i / 100)
        assert "friend" not in evicted
    assert "friend" not in keeper.strangers() and len(keeper.strangers()) == 4
    keeper.session_began("friend")
    keeper.session_ended("friend", 5.0)  # its session ended: it waits for another, still no stranger
    assert keeper.arrived(("neighbour", 200), "127.0.0.1", 5.0) != () and "friend" not in keeper.strangers()
    assert "friend" not in keeper.overdue(14.9) and "friend" in keeper.overdue(15.0)  # the same deadline


def test_strangers_have_a_budget_of_their_own_the_oldest_make_way():
    """Connections without a session: one more than the budget closes the one that waited longest,
    never one with a session, so a crowd of silent connections never keeps a newcomer out."""
    limits = DoorLimits(stranger_connections=3, connection_burst=100)
    keeper = Doorkeeper(limits)
    for i in range(3):
        assert keeper.arrived(i, f"127.0.0.{i}", float(i)) == ()
    keeper.session_began(0)  # connection 0 is a player now
    assert keeper.arrived(3, "127.0.0.9", 5.0) == ()
    assert keeper.arrived(4, "127.0.0.9", 6.0) == (1,)
    assert keeper.strangers() == [2, 3, 4] and len(keeper) == 4


def test_one_address_crowds_out_only_itself_and_silent_connections_go_first():
    limits = DoorLimits(stranger_connections=32, stranger_connections_per_address=3)
    keeper = Doorkeeper(limits)
    keeper.arrived("friend", "127.0.0.5", 0.0)
    keeper.arrived("friend-logging-in", "127.0.0.1", 0.5)
    keeper.progressed("friend-logging-in")  # its key exchange is done
    for i in range(2):
        keeper.arrived(("silent", i), "127.0.0.1", 1.0 + i)
    assert keeper.arrived(("silent", 2), "127.0.0.1", 3.0) == (("silent", 0),)
    assert keeper.arrived(("silent", 3), "127.0.0.1", 4.0) == (("silent", 1),)
    assert "friend" in keeper.strangers() and "friend-logging-in" in keeper.strangers()


def test_a_connection_without_a_session_is_closed_at_its_deadline():
    limits = DoorLimits(connection_deadline=10.0)
    keeper = Doorkeeper(limits)
    keeper.arrived("idle", "127.0.0.2", 0.0)
    keeper.arrived("player", "127.0.0.3", 1.0)
    keeper.session_began("player")
    keeper.arrived("seated", "127.0.0.4", 2.0)
    keeper.identified("seated", seated=True, now=2.5)  # a seat holder's connection waits as long
    assert keeper.next_deadline() == 10.0
    assert keeper.overdue(9.9) == []
    assert keeper.overdue(10.0) == ["idle"] and keeper.next_deadline() == 12.5
    assert keeper.overdue(12.5) == ["seated"] and keeper.next_deadline() is None
    keeper.session_ended("player", 30.0)  # its last session ended: a stranger again, from now
    assert keeper.next_deadline() == 40.0 and keeper.overdue(39.0) == []
    assert keeper.overdue(40.0) == ["player"]


def test_the_addresses_remembered_are_bounded():
    keeper = Doorkeeper(DoorLimits(stranger_connections=1))
    for i in range(door_policy.ADDRESSES_REMEMBERED + 50):
        keeper.arrived(i, f"10.{i // 65536}.{i // 256 % 256}.{i % 256}", 0.0)
        keeper.identified(i, seated=False, now=0.0)
    assert keeper.addresses_remembered == door_policy.ADDRESSES_REMEMBERED and len(keeper) == 1


# --- sessions -----------------------------------------------------------------------------------


def ask(key="k", *, watch=False, seated=False, present=(), phase=LOBBY, open_seats=2, **limits):
    return admission(
        key=key,
        watch=watch,
        seated=seated,
        present=present,
        phase=phase,
        open_seats=open_seats,
        limits=DoorLimits(**limits),
        watch_how="ssh -t HOST spectate",
    )


def test_a_key_that_holds_a_seat_always_gets_back():
    """Whatever the strangers, the phase or its address: past its sessions its oldest makes way."""
    crowd = [Present(f"s{i}", watching=True, seated=False) for i in range(10)]
    assert ask(seated=True, present=crowd, phase=PLAYING, open_seats=0, spectators=0) is Admission.IN
    mine = [Present("k", watching=False, seated=True)] * 2
    assert ask(seated=True, present=mine + crowd) is Admission.REPLACING


def test_strangers_are_counted_not_addresses():
    watchers = [Present(f"w{i}", watching=True, seated=False) for i in range(4)]
    assert ask(watch=True, present=watchers, spectators=4) == WATCHERS_FULL
    assert ask(watch=True, present=watchers[:3], spectators=4) is Admission.IN
    # A seat holder's second window is no stranger.
    assert ask(watch=True, present=watchers[:3] + [Present("p", watching=True, seated=True)] * 2) is Admission.IN
    assert ask(present=[Present("k", watching=True, seated=False)] * 2) == door_policy.per_key_sentence(2)


def test_newcomers_come_in_while_seats_are_open_before_a_game():
    assert ask(open_seats=1) is Admission.IN
    coming = [Present("n", watching=False, seated=False)]
    assert ask(open_seats=1, present=coming) == COMING_IN
    assert ask(open_seats=2, present=coming) is Admission.IN
    assert ask(open_seats=0) == door_policy.full_sentence("ssh -t HOST spectate")
    assert ask(phase=PLAYING) == door_policy.started_sentence("ssh -t HOST spectate")
    assert ask(phase=OVER, open_seats=1) is Admission.IN  # between games, as in the lobby
    assert "ssh -t HOST spectate" in ask(open_seats=0)


# --- window sizes -------------------------------------------------------------------------------


def test_sizes_are_clamped():
    assert clamp_size(1000, 1000) == (door_policy.MAX_COLS, door_policy.MAX_ROWS)
    assert clamp_size(0, -3) == (1, 1) and clamp_size(80, 24) == (80, 24)
    assert WindowSize(5000, 2).size == (door_policy.MAX_COLS, 2)


def test_a_flood_of_window_changes_reaches_the_child_as_a_few_ending_with_the_last():
    size = WindowSize(80, 24, interval=0.25)
    given = []
    due = None
    now = 0.0
    for i in range(2000):  # 2000 changes in 1 s
        now = i / 2000
        at = size.ask(81 + i % 50, 25, now)
        if at is not None:
            due = at
        if due is not None and now >= due:
            given.append(size.due(now))
            due = None
    if due is not None:
        given.append(size.due(due))
    given = [g for g in given if g is not None]
    assert 3 <= len(given) <= 6, given
    assert given[-1] == (81 + 1999 % 50, 25)
    assert size.ask(81 + 1999 % 50, 25, 5.0) == 5.0 and size.due(5.0) is None  # the same size: nothing


def test_the_first_change_goes_at_once():
    size = WindowSize(80, 24, interval=0.25)
    assert size.ask(100, 30, 7.0) == 7.0 and size.due(7.0) == (100, 30)
    assert size.ask(110, 30, 7.1) == pytest.approx(7.25)
    assert size.ask(0, 30, 7.1) is None  # a size of nothing is no size


# --- the child's input --------------------------------------------------------------------------


def test_the_child_drops_input_events_past_a_persons_pace_and_lets_the_rest_through():
    bound = InputBound(0.0, burst=5, per_second=10)
    key = events.Key("x", "x")
    assert [bound.passes(key, 0.0) for _ in range(7)] == [True] * 5 + [False] * 2
    assert bound.passes(events.Paste("pasted"), 0.0) is False  # a paste is input too
    assert bound.passes(events.Resize(events.Size(80, 24), events.Size(80, 24)), 0.0)  # a size is not
    assert bound.passes(key, 0.1) and bound.dropped == 3


_DEAF_APP = """
import signal
signal.signal(signal.SIGHUP, signal.SIG_IGN)
from textual.app import App
from textual.widgets import Static
class Deaf(App):
    def compose(self):
        yield Static("deaf to the hangup")
Deaf().run()
"""


async def test_a_child_whose_terminal_hangs_up_ends_even_deaf_to_sighup() -> None:
    """SIGHUP ignored, so only the driver can notice: once the PTY's host side closes, the child
    ends as the hangup would have ended it, long before the grace runs out (Textual's own driver
    would read the hung-up terminal's end of input for ever, half a core)."""
    env = {
        "PATH": os.environ.get("PATH", os.defpath),
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        door_launch.DRIVER_ENV: JOIN.driver,
    }
    child = PtyChild.spawn([sys.executable, "-c", _DEAF_APP], env, cols=80, rows=24)
    shown, output = bytearray(), Changes()
    child.start(output.feeding(shown.extend))
    await output.until(lambda: b"deaf to the hangup" in shown, timeout=60, what="the app on its terminal")
    # Ended by the hangup the driver saw: a child still running at the end of the grace would
    # be killed, and say SIGKILL.
    assert await child.end(grace=20.0) == -signal.SIGHUP


# --- player folders -----------------------------------------------------------------------------


def test_folders_unseen_for_thirty_days_are_stale():
    day = 24 * 3600.0
    seen = {"old": 0.0, "fresh": 29 * day, "edge": 1 * day}
    assert stale_folders(seen, 31.5 * day) == ["edge", "old"]
    assert stale_folders(seen, 30 * day) == []


def test_opening_the_door_removes_old_folders_and_keeps_the_rest(tmp_path: Path):
    root = tmp_path / "players"
    (root / "old" / "state").mkdir(parents=True)
    (root / "fresh").mkdir()
    outside = tmp_path / "keep-me"
    outside.mkdir()
    (root / "link").symlink_to(outside)
    month_ago = time.time() - door_policy.FOLDER_MAX_AGE - 60
    os.utime(root / "old", (month_ago, month_ago))
    os.utime(root / "link", (month_ago, month_ago), follow_symlinks=False)
    folders = PlayerFolders(root)
    assert folders.open(time.time()) == 1
    assert sorted(p.name for p in root.iterdir()) == ["fresh", "link"] and outside.exists()
    assert stat.S_IMODE(root.stat().st_mode) == 0o700
    key = Key("SHA256:x", "fresh")
    os.utime(root / "fresh", (month_ago, month_ago))
    folders.seen(key)  # the key came in: its folder is fresh again
    assert folders.open(time.time()) == 0 and folders.of(key).exists()


# --- the child ----------------------------------------------------------------------------------


def launch(tmp_path: Path, **fields) -> Launch:
    return Launch(
        url="ws://127.0.0.1:1", name="ann", spectate=False, folder=tmp_path / "key", workdir=tmp_path, **fields
    )


def test_the_child_runs_in_safe_path_mode_in_the_doors_folder(tmp_path: Path):
    argv = child_command(launch(tmp_path), JOIN)
    assert argv[:5] == [sys.executable, "-P", "-m", "quackbox.door_child", str(tmp_path)]
    env = child_environment(
        launch(
            tmp_path, code="KQXZ", term="xterm-256color", client_env={"COLORTERM": "truecolor", "NO_COLOR": "$(reboot)"}
        ),
        program=JOIN,
    )
    assert env["PYTHONSAFEPATH"] == "1" and "PYTHONPATH" not in env
    assert env[door_launch.DRIVER_ENV] == "quackbox.tui.driver:DoorDriver" and env[door_launch.ROOM_CODE_ENV] == "KQXZ"
    assert env["HOME"] == str(tmp_path / "key") and env["QUACKBOX_STATE_DIR"] == str(tmp_path / "key" / "state")
    assert env["COLORTERM"] == "truecolor" and "NO_COLOR" not in env
    assert not any(
        k.startswith("QUACKBOX_") and k.endswith("_DIR") and tmp_path.as_posix() not in v for k, v in env.items()
    )


async def test_a_child_is_handed_no_descriptor_of_the_hosts(tmp_path: Path) -> None:
    """Not even one the host was itself handed, inheritable, by whoever started it."""
    read, write = os.pipe()
    os.set_inheritable(write, True)
    try:
        child = PtyChild.spawn(
            [sys.executable, REPORT, "report"], child_environment(launch(tmp_path)), cols=80, rows=24
        )
        shown, output = bytearray(), Changes()
        child.start(output.feeding(shown.extend))
        await output.until(lambda: b"}\r\n" in shown, timeout=60, what="the child's report")
        assert json.loads(shown.decode().split("\r\n")[0])["fds"] == [0, 1, 2]
        await child.end(1.0)
    finally:
        os.close(read)
        os.close(write)


def test_what_differs_between_sessions_is_named_the_rest_is_every_childs(tmp_path: Path) -> None:
    """A zygote is started with every child's part of the environment: each variable a session
    sets must be named in SESSION_ENV, or a child would be forked with the zygote's value."""
    full = launch(
        tmp_path,
        code="KQXZ",
        term="xterm-256color",
        via="ssh -p 2222 host",
        host_key="SHA256:x",
        client_env={"COLORTERM": "truecolor", "NO_COLOR": "1", "UNICODE_VERSION": "12.1.0"},
    )
    env = child_environment(full, ["/opt/qb"], JOIN)
    every = door_launch.interpreter_environment(["/opt/qb"], JOIN)
    assert {k: v for k, v in env.items() if k not in door_launch.SESSION_ENV} == every
    assert set(env) - set(every) == set(door_launch.SESSION_ENV)


def test_an_installed_quackbox_needs_no_import_path(monkeypatch, tmp_path: Path):
    """Installed (as here): nothing on the child's PYTHONPATH, wherever the host was started."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PYTHONPATH", raising=False)
    assert child_import_path() == []


def test_a_pythonpath_others_can_write_to_is_not_passed_on(monkeypatch, tmp_path: Path):
    shared, mine = tmp_path / "shared", tmp_path / "mine"
    shared.mkdir()
    mine.mkdir()
    shared.chmod(0o1777)
    mine.chmod(0o700)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(shared), str(mine), str(tmp_path)]))
    assert child_import_path() == [str(mine)]


def test_a_quackbox_run_from_a_folder_others_can_write_to_opens_no_door(monkeypatch, tmp_path: Path):
    """Not installed and run from a shared folder: the door says why it will not open."""
    import quackbox

    checkout = tmp_path / "checkout"
    (checkout / "quackbox").mkdir(parents=True)
    (checkout / "quackbox" / "__init__.py").write_text("")
    checkout.chmod(0o777)
    monkeypatch.setattr(quackbox, "__file__", str(checkout / "quackbox" / "__init__.py"))
    with pytest.raises(DoorError, match="other users can write to"):
        child_import_path()
    monkeypatch.chdir(checkout)
    with pytest.raises(DoorError, match="the folder the host was started in"):
        child_import_path()
    checkout.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    assert child_import_path() == [str(checkout)]


def test_the_sentences_are_sentences():
    for text in (
        COMING_IN,
        WATCHERS_FULL,
        TOO_FAST,
        CROWDED,
        door_policy.CANNOT_START,
        door_policy.INPUT_CLOSED,
        door_policy.REPLACED,
        door_policy.no_session_sentence(10),
        door_policy.idle_sentence(1800),
        door_policy.per_key_sentence(2),
    ):
        assert text[0].isupper() and text.endswith("."), text
    assert door_policy.idle_sentence(1800) == "Closed after 30 minutes without a key press."
