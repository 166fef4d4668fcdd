"""Programs of any language playing a seat (docs/BOTS.md): the lines, and whole games.

A test program (``tests/net/program_bot.py``) plays a seat over a real host on
127.0.0.1 (``join --bot-cmd`` in-process and as the installed command, ``host
--bot-cmd``) and over ``sim``; the ones that crash, stall, write garbage or
answer out of range each lose their seat to the normal bot, with a line in
the log, and the game goes on to its end.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import shlex
import subprocess
import sys
from pathlib import Path

import msgpack
import pytest

from quackbox.core import games, sim
from quackbox.core.side_effects import AcceptTrade, EndTurn
from quackbox.net.host import Host, HostConfig, HostError
from quackbox.net.program import ProgramError, program_name, run_program_seat
from quackbox.net.program_lines import Asked, ProgramFault, SeatLines, read_answer
from quackbox.net.program_threads import LineupProgram
from quackbox.net.protocol import Wire

PROGRAM = Path(__file__).with_name("program_bot.py")
COMMAND = Path(sys.executable).with_name("quackbox")
FAULTS = {
    "crash": "It exited (status 3).",
    "garbage": "It answered '\\x1b[31mmove zero please', which is neither an index into legal nor -1.",
    "stall": "It did not answer within 0.5 seconds.",
    "range": "but legal",
}
"""What the log says of each way a program fails (the stall's time is the tests' own)."""
QUICK = 0.5
"""Seconds a test program has for a line (a stall is waited out this long)."""
FAST_OPTIONS = {"quack": {"round_limit": 3}}


def argv(manner: str, record: Path, after: int = 3) -> list[str]:
    return [sys.executable, str(PROGRAM), manner, str(record), str(after)]


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def host_config(game: str = "side-effects", **fields) -> HostConfig:
    fields.setdefault("seats", 3)
    fields.setdefault("bots", 2)
    return HostConfig(
        game=game,
        headless=True,
        bot_delay=0.0,
        bind="127.0.0.1",
        port=0,
        seed=5,
        options=FAST_OPTIONS.get(game, {}),
        **fields,
    )


# --- the lines -----------------------------------------------------------------------------------


def test_a_line_writes_moves_and_the_view_as_the_wire_does_and_its_first_carries_the_cards() -> None:
    rules = games.get("side-effects")
    wire = Wire(rules)
    state = rules.new_game(seats=3, options=rules.parse_options({}), seed=2)
    first = rules.waiting_for(state)[0]
    view = rules.view(state, first)
    lines = SeatLines(rules, seat=first, names=("Ann", "Bo", "Cy"), number=1, wire=wire)
    text, asked = lines.view_line(view, events=state.start_events, log=["A game for 3 begins."], deadline=None)
    line = json.loads(text)
    assert "\n" not in text and text.isascii()
    assert line["legal"] == msgpack.unpackb(wire.values.pack(view.legal))
    assert line["view"] == msgpack.unpackb(wire.values.pack(view))
    assert line["waiting"] is True and asked.waiting and asked.legal == view.legal
    assert line["names"] == ["Ann", "Bo", "Cy"] and line["log"] == ["A game for 3 begins."]
    hand = {card["id"]: card for card in line["cards"]}
    assert all(hand[c.id]["name"] == c.name for c in view.hand)
    second = json.loads(lines.view_line(rules.view(state, (first + 1) % 3), events=(), log=(), deadline=3.0)[0])
    assert "cards" not in second and second["deadline"] == 3.0 and second["waiting"] is False


def test_an_answer_is_an_index_into_legal_or_minus_one_when_nothing_is_waited_for() -> None:
    waiting = Asked((EndTurn(), AcceptTrade(1)), waiting=True)
    free = Asked((AcceptTrade(1),), waiting=False)
    assert read_answer("1\n", waiting) == AcceptTrade(1)
    assert read_answer(" 0 ", waiting) == EndTurn()
    assert read_answer("-1", free) is None
    for text, asked, said in [
        ("-1", waiting, "answered -1 (no move) while the game was waiting"),
        ("2", waiting, "legal held moves 0 to 1"),
        ("0", Asked((), waiting=False), "legal was empty"),
        ("1.0", waiting, "neither an index"),
        ("", waiting, "neither an index"),
        ("+1", waiting, "neither an index"),
    ]:
        with pytest.raises(ProgramFault, match=re.escape(said)):
            read_answer(text, asked)


def test_a_seat_is_named_for_the_script_not_its_interpreter() -> None:
    assert program_name(["python3", "-u", "bots/mine.py", "--level", "2"]) == "mine.py"
    assert program_name(["./mine"]) == "mine"
    assert program_name(["/usr/bin/node", "bot.js"]) == "bot.js"


# --- over a real host --------------------------------------------------------------------------------


@pytest.mark.parametrize("game", sorted(games.GAMES))
async def test_a_program_plays_a_seat_over_a_real_host_to_the_end(game: str, tmp_path: Path, caplog) -> None:
    caplog.set_level(logging.INFO, logger="quackbox.net")
    record = tmp_path / "record"
    async with Host(host_config(game)) as host:
        outcome = await asyncio.wait_for(run_program_seat(host.url, argv("first", record), answer_seconds=QUICK), 120)
    assert outcome is not None
    seen = records(record)
    assert seen[0]["cards"] > 0 and all(s["cards"] == 0 for s in seen[1:])
    assert any(s["waiting"] and s["answer"] == 0 for s in seen)
    assert seen[-1]["outcome"]  # it is told how the game ended
    assert sum(len(s["log"]) for s in seen) > 0
    messages = [r.getMessage() for r in caplog.records]
    assert "program_bot.py at seat 1: thinking hard" in messages  # its standard error, marked as its own
    assert not any("lost its seat" in m for m in messages)


@pytest.mark.parametrize("manner", sorted(FAULTS))
async def test_a_program_that_fails_is_told_why_and_the_normal_bot_finishes_its_game(
    manner: str, tmp_path: Path, caplog
) -> None:
    caplog.set_level(logging.INFO, logger="quackbox.net")
    record = tmp_path / "record"
    async with Host(host_config()) as host:
        outcome = await asyncio.wait_for(run_program_seat(host.url, argv(manner, record), answer_seconds=QUICK), 120)
    assert outcome is not None
    lost = [r.getMessage() for r in caplog.records if "lost its seat" in r.getMessage()]
    assert len(lost) == 1 and FAULTS[manner] in lost[0], lost
    assert "\x1b" not in lost[0]
    told = [s for s in records(record) if s["type"] == "replaced"]
    if manner in ("garbage", "range"):  # still reading: it is told why
        assert [s["reason"] for s in told] == [lost[0].split(": ", 1)[1].split(" The normal bot")[0]]


async def test_a_host_seats_its_own_programs_which_start_and_play_the_game(tmp_path: Path) -> None:
    record = tmp_path / "record"
    config = host_config(programs=(tuple(argv("first", record)),))
    async with Host(config) as host:
        outcome = await asyncio.wait_for(host.game_over(), 120)
    assert outcome is not None and records(record)[-1]["outcome"]
    assert {s["seat"] for s in records(record)} == {0}


async def test_a_host_whose_program_cannot_start_says_so() -> None:
    with pytest.raises(HostError, match="Cannot start /nonexistent/bot"):
        async with Host(host_config(programs=(("/nonexistent/bot",),))):
            pass
    with pytest.raises(ProgramError, match="Cannot start"):
        await run_program_seat("ws://127.0.0.1:9", ["/nonexistent/bot"])


async def test_join_bot_cmd_plays_a_seat_to_the_end(tmp_path: Path) -> None:
    """The installed command: ``quackbox join ADDR --bot-cmd "PROGRAM ARGS"``."""
    record = tmp_path / "record"
    async with Host(host_config()) as host:
        child = await asyncio.create_subprocess_exec(
            str(COMMAND),
            "join",
            host.url,
            "--bot-cmd",
            shlex.join(argv("first", record)),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(child.communicate(), 120)
        outcome = await asyncio.wait_for(host.game_over(), 10)
    assert child.returncode == 0, err.decode()
    assert outcome is not None and "Game over:" in out.decode()
    assert "thinking hard" in err.decode() and "lost its seat" not in err.decode()
    assert any(s["waiting"] for s in records(record))


# --- over sim ------------------------------------------------------------------------------------


def test_sim_runs_each_program_once_per_place_for_every_game_and_prints_its_figures(tmp_path: Path) -> None:
    record = tmp_path / "record"
    command = "cmd:" + shlex.join(argv("first", record))
    out = subprocess.run(
        [
            str(COMMAND),
            "sim",
            "--game",
            "side-effects",
            "--players",
            "3",
            "--games",
            "6",
            "--rotate",
            "--bots",
            f"{command},normal",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["bots"] == [command, "normal", command] and data["errors"] == 0
    assert data["program_failures"] == []
    assert sum(data["wins_by_bot"].values()) == pytest.approx(6)
    low, high = data["win_interval_pct_by_bot"][command]
    assert 0 <= low <= data["win_pct_by_bot"][command] <= high <= 100
    assert data["seconds_per_decision_by_bot"][command] > 0
    seen = records(record)
    pids = {s["pid"] for s in seen}
    assert len(pids) == 2  # two places in the lineup: two programs, each for all six games
    assert all(max(s["number"] for s in seen if s["pid"] == pid) == 6 for pid in pids)


@pytest.mark.parametrize("manner", sorted(FAULTS))
def test_sim_gives_a_failed_program_s_seat_to_the_normal_bot_and_finishes(manner: str, tmp_path: Path, caplog) -> None:
    caplog.set_level(logging.INFO, logger="quackbox.net")
    rules = games.get("side-effects")
    program = LineupProgram(rules, argv(manner, tmp_path / "record"), place=0, answer_seconds=QUICK)
    try:
        result = sim.run(
            "side-effects", players=2, games_count=2, seed=3, bots=["mine", "normal"], outside={"mine": program.bot}
        )
    finally:
        program.close()
    assert result.errors == [] and result.stalls == []
    assert sum(result.wins_by_bot.values()) == pytest.approx(2)
    assert program.failure is not None and FAULTS[manner] in program.failure
    lost = [r.getMessage() for r in caplog.records if "lost its seat" in r.getMessage()]
    assert len(lost) == 1 and FAULTS[manner] in lost[0]


def test_the_example_bot_of_the_docs_is_short_and_plays_both_games(tmp_path: Path) -> None:
    text = (Path(__file__).resolve().parents[2] / "docs" / "BOTS.md").read_text()
    example = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    assert len(example.splitlines()) < 30
    bot = tmp_path / "mybot.py"
    bot.write_text(example)
    for game in sorted(games.GAMES):
        program = LineupProgram(games.get(game), [sys.executable, str(bot)], place=0)
        try:
            result = sim.run(
                game,
                players=2,
                games_count=1,
                seed=1,
                bots=["mine", "normal"],
                outside={"mine": program.bot},
                options=FAST_OPTIONS.get(game),
            )
        finally:
            program.close()
        assert result.errors == [] and program.failure is None
        assert sum(result.wins_by_bot.values()) == pytest.approx(1)


def test_commands_that_cannot_seat_their_programs_say_why_before_anything_starts() -> None:
    for argv, said in [
        (
            ["sim", "--game", "quack", "--bots", "cmd:/nonexistent/bot,normal", "--games", "1"],
            "quackbox: Cannot start /nonexistent/bot: No such file or directory.",
        ),
        (["sim", "--game", "quack", "--bots", "cmd:python3 'unclosed,normal"], "Cannot read the command"),
        (
            ["host", "--headless", "--seats", "2", "--bots", "2", "--bot-cmd", "./mybot", "--port", "0"],
            "each --bot-cmd program takes an open seat, and this table has 0 for 1",
        ),
        (["join", "127.0.0.1:9", "--bot-cmd", "/nonexistent/bot"], "Cannot start /nonexistent/bot"),
    ]:
        out = subprocess.run([str(COMMAND), *argv], capture_output=True, text=True, timeout=60)
        assert out.returncode == 2 and said in out.stderr, (argv, out.stderr)
        assert "Traceback" not in out.stderr
