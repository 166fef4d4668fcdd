"""The command line: arguments that need no table to check."""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from quackbox import netcmd
from quackbox.net import journal
from tests.terminal_host import on_a_terminal, quackbox_env


def host_args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="quackbox host")
    netcmd.add_host_args(parser)
    return parser.parse_args(argv)


def test_host_stops_after_one_game_unless_again() -> None:
    assert not host_args().again
    assert host_args("--once").once and not host_args("--once").again
    assert host_args("--again").again


def test_host_refuses_once_and_again_together(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        host_args("--once", "--again")
    assert exit_info.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err


def test_join_bot_names_the_winning_seat_counting_from_one() -> None:
    assert netcmd.seat_name(2, ["Ann", "Bo", "Cy"]) == "Cy (seat 3)"
    assert netcmd.seat_name(2, []) == "seat 3"


def test_the_host_names_the_winners_as_join_does() -> None:
    from quackbox.core.rules import Outcome

    outcome = Outcome(winners=(2,), places=(2, 2, 1), reason="A player treated every Disorder.")
    assert netcmd.describe_outcome(outcome, ("Ann", "Bo", "Cy")) == (
        "Game over. Won by Cy (seat 3). A player treated every Disorder."
    )
    assert "Won by seat 3." in netcmd.describe_outcome(outcome, ())


# --- errors before the screen, and a headless host that stops on a signal ---------------


ROOT = Path(__file__).resolve().parent.parent
ALTERNATE_SCREEN = b"\x1b[?1049h"


def _on_a_terminal(argv: list[str], env: dict[str, str], timeout: float = 60) -> tuple[int, bytes]:
    """Run ``quackbox ARGV`` on a pseudo-terminal, as a person would: its exit status and all it wrote."""
    proc, master = on_a_terminal([sys.executable, "-m", "quackbox", *argv], env)
    out = bytearray()
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the program closed its terminal
                break
            if not chunk:
                break
            out += chunk
        return proc.wait(timeout=max(1.0, deadline - time.monotonic())), bytes(out)
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_too_many_players_is_a_line_not_a_flash_of_the_table(tmp_path: Path) -> None:
    status, out = _on_a_terminal(["play", "side-effects", "--players", "99"], quackbox_env(tmp_path))
    assert status == 2
    assert b"Side Effects is for 2 to 8 players, not 99." in out
    assert ALTERNATE_SCREEN not in out


def test_a_failed_join_is_a_line_not_a_flash_of_the_table(tmp_path: Path) -> None:
    import socket

    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    status, out = _on_a_terminal(["join", f"127.0.0.1:{port}"], quackbox_env(tmp_path))
    assert status == 1
    assert b"No quackbox host answered" in out
    assert ALTERNATE_SCREEN not in out


def _moves_in(games_dir: Path) -> int:
    """The moves of the journal in ``games_dir``; 0 before it is there (or before its header is)."""
    try:
        return len(journal.read(next(games_dir.glob("*.qbj"))).moves)
    except (FileNotFoundError, StopIteration, journal.JournalError):
        return 0


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_headless_host_in_the_background_stops_on_a_signal_with_its_journal_whole(
    tmp_path: Path, signum: int
) -> None:
    """Started as ``&`` would (SIGINT ignored), mid-game: it stops cleanly and its journal reads back whole."""
    games_dir = tmp_path / "games"
    argv = [
        sys.executable,
        "-m",
        "quackbox",
        "host",
        "--headless",
        "--game",
        "side-effects",
        "--seats",
        "3",
        "--bots",
        "3",
        "--autostart",
        "--bot-delay",
        "0.3",
        "--bind",
        "127.0.0.1",
        "--port",
        "0",
        "--journal-dir",
        str(games_dir),
        "--again",
    ]
    proc = subprocess.Popen(
        argv,
        cwd=ROOT,
        env=quackbox_env(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    try:
        deadline = time.monotonic() + 60
        # A few moves into a game that takes a minute: then the signal.
        while _moves_in(games_dir) < 3:
            assert time.monotonic() < deadline and proc.poll() is None, "the game never started"
            time.sleep(0.1)
        proc.send_signal(signum)
        out, _ = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 128 + signum, out
    assert b"Table closed; everyone was told." in out
    [path] = list(games_dir.iterdir())
    record = journal.read(path)
    assert record.moves and not record.dropped and not record.finished
    # Where the game went, and the very command that resumes it with the table's own flags.
    text = out.decode()
    assert f"The game is saved in {path}" in text
    command = (
        f"Resume it with: quackbox host --resume {path} --bind 127.0.0.1 --port 0 --headless --again "
        f"--bot-delay 0.3 --journal-dir {games_dir}"
    )
    assert command in text, text


# --- a host with a seat and an SSH door ----------------------------------------------------


def test_a_seated_host_whose_ssh_port_is_taken_says_so_in_a_line_before_the_screen(tmp_path: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        status, out = _on_a_terminal(
            [
                "host",
                "--game",
                "side-effects",
                "--bind",
                "127.0.0.1",
                "--port",
                "0",
                "--no-journal",
                "--ssh",
                str(port),
            ],
            quackbox_env(tmp_path),
        )
    assert status == 1
    assert f"quackbox host: Cannot serve SSH on 127.0.0.1 port {port}: the port is already in use".encode() in out
    assert ALTERNATE_SCREEN not in out and b"Traceback" not in out


def test_a_seated_host_with_an_unreadable_host_key_says_so_in_a_line_before_the_screen(tmp_path: Path) -> None:
    key = tmp_path / "data" / "ssh_host_ed25519_key"
    key.parent.mkdir(parents=True)
    key.write_text("not a key\n")
    key.chmod(0o600)
    status, out = _on_a_terminal(
        ["host", "--game", "side-effects", "--bind", "127.0.0.1", "--port", "0", "--no-journal", "--ssh", "0"],
        quackbox_env(tmp_path),
    )
    assert status == 1
    assert f"quackbox host: The SSH host key {key} cannot be read".encode() in out
    assert out.count(b"\n") <= 2, out  # one sentence (the terminal may wrap it)
    assert ALTERNATE_SCREEN not in out and b"Traceback" not in out


def test_ssh_allow_without_ssh_is_refused_with_or_without_a_seat(capsys: pytest.CaptureFixture[str]) -> None:
    for extra in ((), ("--headless",)):
        assert netcmd.host_main(host_args("--ssh-allow", "keys", *extra)) == netcmd.EXIT_USAGE
        assert "--ssh-allow goes with --ssh." in capsys.readouterr().err


# --- the browser door ----------------------------------------------------------------------


def test_a_seated_host_whose_web_port_is_taken_says_so_in_a_line_before_the_screen(tmp_path: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        status, out = _on_a_terminal(
            [
                "host",
                "--game",
                "side-effects",
                "--bind",
                "127.0.0.1",
                "--port",
                "0",
                "--no-journal",
                "--web",
                str(port),
            ],
            quackbox_env(tmp_path),
        )
    assert status == 1
    assert (
        f"quackbox host: Cannot serve the browser page on 127.0.0.1 port {port}: the port is already in use; "
        "pick another with --web PORT."
    ).encode() in out.replace(b"\r\n", b"")
    assert ALTERNATE_SCREEN not in out and b"Traceback" not in out


def test_a_headless_host_prints_the_link_and_serves_the_page_there(tmp_path: Path) -> None:
    """On loopback, where a table may go without a room code, --web makes one: the link carries it."""
    import re
    import urllib.request

    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "quackbox",
            "host",
            "--headless",
            "--seats",
            "2",
            "--bots",
            "1",
            "--port",
            "0",
            "--bind",
            "127.0.0.1",
            "--web",
            "0",
            "--no-journal",
            "--again",
        ],
        cwd=ROOT,
        env=quackbox_env(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert proc.stdout is not None
        said = []
        for line in proc.stdout:
            said.append(line)
            if line.startswith("Or in a browser:"):
                break
        match = re.fullmatch(r"Or in a browser: http://127\.0\.0\.1:(\d+)/#([A-Z]{4}(?:-[A-Z]{4})+)\n", said[-1])
        assert match, said
        assert f"Room code: {match.group(2)}\n" in said
        with urllib.request.urlopen(f"http://127.0.0.1:{match.group(1)}/", timeout=10) as reply:
            assert reply.status == 200 and b"door.js" in reply.read()
    finally:
        proc.terminate()
        proc.wait(20)


def test_web_names_go_with_web_and_are_host_names(capsys: pytest.CaptureFixture[str]) -> None:
    assert netcmd.host_main(host_args("--web-name", "quack.local", "--headless")) == netcmd.EXIT_USAGE
    assert "--web-name goes with --web." in capsys.readouterr().err
    assert host_args("--web", "--web-name", "Quack.Example.org.", "--web-name", "[fe80::1]").web_name == [
        "quack.example.org",
        "fe80::1",
    ]
    assert host_args("--web").web == 7118
    for bad in ("evil.example/x", "a b", "http://quack.local", "-x.example"):
        with pytest.raises(SystemExit):
            host_args("--web", "--web-name", bad)


def test_the_options_in_help_are_spelled_as_the_options_are_taken() -> None:
    """Issue 25, item 9: --help listed two-player-endgame=one_left where -o (and its errors)
    spell it one-left. Every pair the help lists is taken back as the game's default."""
    from quackbox.__main__ import options_help
    from quackbox.core import games

    listed = {line.split(":")[0].strip(): line.split(":", 1)[1] for line in options_help().splitlines()[1:]}
    assert "two-player-endgame=one-left" in listed["quack"] and "_" not in "".join(listed.values())
    for name, pairs in listed.items():
        rules = games.get(name)
        values = dict(pair.strip().split("=") for pair in pairs.split(","))
        assert rules.parse_options(values) == rules.default_options()


@pytest.mark.parametrize("argv, seated_as", [(["--name", "Host"], "Host"), (["--name", "Ann"], "Ann"), ([], None)])
def test_host_sits_under_the_name_given_even_host(monkeypatch, tmp_path, argv, seated_as) -> None:
    """Issue 25, item 9: `host --name Host` was taken for "no name given", and the seat read the
    remembered name ("Root"); only a missing --name falls back to it."""
    import quackbox.tui.app

    called = {}

    def run_hosted(config, *, name=None, ssh=None, web=None, resume_flags=(), on_open=None):
        called["name"] = name
        return 0

    monkeypatch.setattr(quackbox.tui.app, "run_hosted", run_hosted)
    args = host_args("--no-journal", *argv)
    assert netcmd.host_main(args) == 0
    assert called["name"] == seated_as


def test_games_says_how_far_each_saved_game_got(tmp_path, capsys) -> None:
    """Issue 25, item 9: "unfinished at move 0" for a game nobody moved in (the host no
    longer keeps those, but a killed one may); "unfinished after 6 moves" otherwise."""
    from quackbox import savecmd
    from tests.net.test_journal import _play

    _play("side-effects", 2, 5, tmp_path / "a.qbj", stop_after=0)
    _play("side-effects", 2, 5, tmp_path / "b.qbj", stop_after=6)
    assert savecmd.games_main(argparse.Namespace(dir=str(tmp_path))) == savecmd.EXIT_OK
    out = capsys.readouterr().out
    assert "dealt; no move was made" in out and "unfinished after 6 moves" in out and "at move" not in out


def test_games_lists_this_users_games_newest_played_first(tmp_path, capsys, monkeypatch) -> None:
    """Issue 41, item 8: newest first by when each game was played (its journal's `created`),
    not by the file's time (a copy or a touch moves that); only the games of this user's data
    folder, files it will not use after them."""
    import os

    from quackbox import savecmd
    from quackbox.net import journal as jn
    from quackbox.net import places
    from quackbox.net.journal_writer import JournalWriter

    monkeypatch.setenv("QUACKBOX_DATA_DIR", str(tmp_path / "data"))
    folder = places.private_dir(places.games_dir())

    def saved(name: str, created: float, names: tuple[str, ...], touched: float) -> None:
        header = jn.Header(game="side-effects", seed=1, seats=2, names=names, created=created)
        path = folder / f"{name}.qbj"
        JournalWriter.create(path, header, sync=False).close()
        os.utime(path, (touched, touched))

    saved("a", created=1_700_000_000.0, names=("old", "x"), touched=1_800_000_300.0)
    saved("b", created=1_700_000_200.0, names=("newest", "x"), touched=1_800_000_100.0)
    saved("c", created=1_700_000_100.0, names=("middle", "x"), touched=1_800_000_200.0)
    (folder / "d.qbj").write_bytes(b"not a journal")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    JournalWriter.create(
        elsewhere / "e.qbj",
        jn.Header(game="quack", seed=1, seats=2, names=("stranger", "x"), created=1_700_000_300.0),
        sync=False,
    ).close()
    assert savecmd.games_main(argparse.Namespace(dir=None)) == savecmd.EXIT_OK
    out = capsys.readouterr().out
    assert f"Saved games in {folder}" in out
    order = [out.index(name) for name in ("newest", "middle", "old", "is not a quackbox journal")]
    assert order == sorted(order), out
    assert "stranger" not in out


def test_an_unknown_game_is_refused_in_the_same_words_everywhere(capsys) -> None:
    """Issue 41, item 8: `host --game chess` and `play chess` refused in different words."""
    from quackbox.__main__ import main

    said = []
    for argv in (["host", "--game", "chess"], ["play", "chess"], ["sim", "--game", "chess"]):
        assert main(argv) == 2
        out = capsys.readouterr()
        said.append(out.err)
        assert out.out == ""
    assert said == ["quackbox: unknown game 'chess'; choose from quack, side-effects\n"] * 3


def test_sim_says_seconds_per_decision_readably() -> None:
    """Issue 41, item 8: "seconds per decision by bot heuristic 0": a fast bot's mean was
    rounded to four decimal places. The JSON keeps three significant figures, the table a unit."""
    from quackbox.__main__ import format_sim, seconds
    from quackbox.core import sim

    assert sim.significant(0.0000412345) == 0.0000412 and sim.significant(1.23456) == 1.23
    assert seconds(0.0000412) == "41 µs" and seconds(0.000274) == "274 µs" and seconds(0.0000027) == "2.7 µs"
    assert seconds(0.0013) == "1.3 ms" and seconds(0.85) == "0.85 s" and seconds(12.5) == "12.5 s"
    assert seconds(0.0) == "under 1 µs"
    data = sim.run("side-effects", players=2, games_count=2, seed=1, think_clock=__import__("time").process_time)
    data = data.as_json()
    assert 0 < data["seconds_per_decision_by_bot"]["heuristic"]
    shown = [line for line in format_sim(data).splitlines() if "per decision" in line]
    assert len(shown) == 3 and all(line.rstrip().endswith("s") for line in shown), shown


def test_sim_figures_read_as_figures() -> None:
    """Issue 25, item 9: "money median 12975.0" reads 12,975; fractions keep their digits."""
    from quackbox.__main__ import figure

    assert figure(12975.0) == "12,975" and figure(17030) == "17,030" and figure(11.5) == "11.5"
    assert figure(0.00058) == "0.00058" and figure(55.66) == "55.7" and figure(True) == "True"


def test_the_resume_command_keeps_the_table_s_addresses_doors_and_pace_and_nothing_else() -> None:
    args = host_args(
        "--game",
        "quack",
        "--seats",
        "5",
        "--ssh",
        "--web",
        "7200",
        "--web-name",
        "quack.example.org",
        "--port",
        "7200",
        "--away-grace",
        "off",
        "-o",
        "infamy-threshold=10",
        "--seed",
        "3",
    )
    assert netcmd.resume_flags(args) == [
        "--port",
        "7200",
        "--away-grace",
        "off",
        "--ssh",
        "2222",
        "--web",
        "7200",
        "--web-name",
        "quack.example.org",
    ]
    assert netcmd.resume_flags(host_args()) == []


def test_a_host_s_farewell_says_where_the_game_is_and_how_to_resume_it(tmp_path: Path) -> None:
    from quackbox.net.host import farewell

    path = tmp_path / "my games" / "g.qbj"
    assert farewell((path, False), ["--ssh", "2222"]) == [
        f"The game is saved in {path}",
        f"Resume it with: quackbox host --resume '{path}' --ssh 2222",
    ]
    assert farewell((path, True))[0] == f"The game is over; it is saved in {path}"
    assert farewell(None) == ["No move was made, so no game was saved."]


def test_the_docs_room_codes_look_like_real_ones() -> None:
    """Issue 41, item 8: README showed "--code KQXZ", which no table ever makes. Every room code
    the README and docs show (after --code, or a link's #) is one a table could make."""
    import re

    from quackbox.net.room import ROOM_CODE_GROUP, ROOM_CODE_LENGTH, ROOM_CODE_LETTERS

    root = Path(__file__).resolve().parents[1]
    shown = []
    for page in [root / "README.md", *sorted((root / "docs").glob("*.md"))]:
        for code in re.findall(r"(?:--code |/#)([A-Z][A-Z.-]*)", page.read_text()):
            shown.append((page.name, code))
    assert any(name == "README.md" for name, _code in shown)
    group = f"[{ROOM_CODE_LETTERS}]{{{ROOM_CODE_GROUP}}}"
    real = re.compile("-".join([group] * (ROOM_CODE_LENGTH // ROOM_CODE_GROUP)))
    assert [(name, code) for name, code in shown if not real.fullmatch(code)] == []


def test_a_broken_import_is_an_error_not_a_missing_command() -> None:
    """An import that fails is never swallowed: `quackbox` with the TUI broken does not quietly
    print its help instead of the home screen, and host, join and games never vanish."""
    code = (
        "import sys\nsys.modules['quackbox.tui.app'] = None\n"
        "from quackbox.__main__ import build_parser, main\n"
        "assert {'host', 'join', 'games', 'replay'} <= set(build_parser()._subparsers._group_actions[0].choices)\n"
        "main([])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.returncode != 0 and "quackbox.tui.app" in out.stderr and "usage:" not in out.stdout


def test_option_text_goes_through_the_one_parser_everywhere() -> None:
    """`-o bonus-cards=1` is taken by play, host and sim alike (the game's parser reads "1" as
    true), and a bad value is refused everywhere in the same words."""
    from quackbox.__main__ import build_parser, parse_option_values
    from quackbox.core import games

    rules = games.get("side-effects")
    for argv in (
        ["play", "side-effects", "-o", "bonus-cards=1"],
        ["host", "-o", "bonus-cards=1"],
        ["sim", "--game", "side-effects", "-o", "bonus-cards=1"],
    ):
        args = build_parser().parse_args(argv)
        values = dict(args.option) if argv[0] == "host" else parse_option_values(args.option)
        assert values == {"bonus-cards": "1"}
        assert rules.parse_options(values).bonus_cards is True
    said = []
    for values in (parse_option_values(["bonus-cards=maybe"]), dict(host_args("-o", "bonus-cards=maybe").option)):
        with pytest.raises(Exception) as refused:
            rules.parse_options(values)
        said.append(str(refused.value))
    assert said[0] == said[1] == "Option bonus-cards must be true or false, not 'maybe'."
