"""The plain seat (``--plain``): a game line by line, for screen readers and pipes. No Pilot.

Whole games through a pipe with the installed command answering "1" to every
question, as ``yes 1 |`` would; the commands a person types; the words of
questions the game asks unasked (a trade offer); and that nothing of it loads
Textual or Rich or writes an escape byte.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from quackbox.net.host import Host, HostConfig
from quackbox.tui.plain import Output, PlainSeat, play_plain
from quackbox.tui.session import open_local

COMMAND = Path(sys.executable).with_name("quackbox")
ROOT = Path(__file__).resolve().parents[2]


def through_a_pipe(argv: list[str], *, first: bytes = b"", timeout: float = 240) -> tuple[int, str, str]:
    """Run the installed ``quackbox ARGV`` with "1" fed to it without end, as ``yes 1 |`` feeds
    (after ``first``): its exit status, and what it wrote to its standard output and error."""
    child = subprocess.Popen(
        [str(COMMAND), *argv], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )

    def feed() -> None:
        try:
            child.stdin.write(first)
            while True:
                child.stdin.write(b"1\n" * 256)
                child.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            pass  # it has gone: it read all it wanted

    errors: list[bytes] = []
    feeder = threading.Thread(target=feed, daemon=True)
    reader = threading.Thread(target=lambda: errors.append(child.stderr.read()), daemon=True)
    watchdog = threading.Timer(timeout, child.kill)  # a hang fails the test rather than outlive it
    feeder.start()
    reader.start()
    watchdog.start()
    try:
        out = child.stdout.read()
        status = child.wait()
    finally:
        watchdog.cancel()
    reader.join(timeout=10)
    assert b"\x1b" not in out, "the plain output holds an escape byte"
    return status, out.decode(), b"".join(errors).decode()


@pytest.mark.parametrize("game", ["side-effects", "quack"])
def test_a_whole_game_plays_through_a_pipe_answering_1_to_everything(game: str) -> None:
    status, out, err = through_a_pipe(["play", game, "--plain", "--pace", "instant", "--seed", "3"])
    assert status == 0, err
    lines = out.splitlines()
    assert re.fullmatch(r"Game over\. .+ won\. .+", lines[-2]) and lines[-1].startswith("Places: 1. ")
    questions = sum(1 for line in lines if re.fullmatch(r"Choose 1( to \d+)?\.", line))
    answers = sum(1 for line in lines if line.startswith("You chose "))
    assert questions >= 5 and answers == questions  # each question is answered once
    # Numbers typed ahead are held, one at a time, not refused in a flood.
    held = sum(1 for line in lines if line.startswith("Nothing is asked now"))
    assert held <= answers + 1
    assert "1. " in out and "The host says no" not in out
    if game == "quack":
        assert "The window stays open 10 seconds." in out


def test_a_first_plain_game_says_how_to_play_once_and_seats_the_person_first() -> None:
    """As on the table (tui.first_games): the very first game of a game opens with how it is
    played, read before it is dealt, and the first three seat the person first; then the
    rules deal the seats."""
    from quackbox.tui.config import SettingsStore
    from quackbox.tui.first_games import FIRST_GAMES

    argv = ["play", "side-effects", "--plain", "--pace", "instant", "--seed", "1"]  # dealt alone, Bot 4 goes first
    status, first, err = through_a_pipe(argv)
    assert status == 0, err
    assert first.startswith("How to play Side Effects\n") and "Press Enter to deal your first game." in first
    assert "A game for 4 begins. You go first." in first
    status, second, err = through_a_pipe(argv)
    assert status == 0, err
    assert "How to play" not in second and "You go first." in second
    store = SettingsStore()
    settings = store.load()
    assert settings.played["side-effects"] == 2 and settings.introduced["side-effects"]
    settings.played["side-effects"] = FIRST_GAMES
    store.save(settings)
    status, fourth, err = through_a_pipe(argv)
    assert status == 0, err
    assert "A game for 4 begins. Bot 4 goes first." in fourth


def test_plain_mode_loads_no_textual_or_rich() -> None:
    code = (
        "import json, sys\n"
        "from quackbox.__main__ import build_parser\n"
        "import quackbox.tui.plain, quackbox.tui.plain_words\n"
        "from quackbox.tui.plain_words import words_for\n"
        "words_for('side-effects'); words_for('quack')\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    loaded = json.loads(out.stdout)
    assert "quackbox.tui.plain" in loaded
    assert not [m for m in loaded if m.split(".")[0] in ("textual", "rich")]


def test_output_writes_no_escape_or_control_byte_whoever_wrote_the_words() -> None:
    buffer = io.StringIO()
    out = Output(buffer)
    out.say("ours\x1b[2J and\x07 this\x9b1m")
    out.theirs("Ann\x1b]0;owned\x07 says: \x1b[31mred\x1b[0m")
    assert buffer.getvalue() == "ours[2J and this1m\nAnn says: red\n"


class Said(io.StringIO):
    """What a plain seat says, which tells when a question was asked (every question
    ends with its line "Choose 1...")."""

    def __init__(self) -> None:
        super().__init__()
        self.asked = asyncio.Event()

    def write(self, text: str) -> int:
        if text.startswith("Choose 1"):
            self.asked.set()
        return super().write(text)


async def seated(game: str, **kwargs) -> tuple[PlainSeat, Said, asyncio.Task]:
    session = await open_local(
        game, players=3, options={}, name="Ann", seed=3, bot_delay=0.0, first_move_delay=0.0, **kwargs
    )
    buffer = Said()
    seat = PlainSeat(session, Output(buffer), leave_after_game=True)

    async def listen() -> None:
        async for item in session.messages():
            seat.receive(item)

    return seat, buffer, asyncio.ensure_future(listen())


async def test_the_commands_say_what_the_table_shows_at_a_glance() -> None:
    seat, buffer, listening = await seated("side-effects")
    try:
        seat.typed("2")  # before anything is asked: held for the first question
        await asyncio.wait_for(buffer.asked.wait(), 30)
        said = buffer.getvalue()
        assert "Nothing is asked now: 2 will answer the next question." in said
        assert re.search(r"^Choose 1 to \d+\.\nYou chose 2: ", said, re.M)
        view = seat.message.view
        start = len(buffer.getvalue())
        for command in ("hand", "table", "rules Lithium", "rules lith", "log 2", "help", "choices", "dance"):
            seat.typed(command)
        said = buffer.getvalue()[start:]
        assert f"Your hand, {len(view.hand)} cards:" in said
        assert all(f". {card.name}: " in said for card in view.hand)
        assert said.count("in hand: ") == 3 and "Open to " in said
        assert "Lithium: a Drug that treats Gambling Addiction" in said
        assert "No card is called 'lith'. Did you mean Lithium?" in said
        assert "trade         offer a trade" in said
        assert "'dance' is not a command or a number." in said
    finally:
        listening.cancel()
        await seat.session.close()


async def test_quack_says_its_doctors_and_lists_anytime_cards_on_asking() -> None:
    seat, buffer, listening = await seated("quack")
    try:
        await asyncio.wait_for(buffer.asked.wait(), 30)
        start = len(buffer.getvalue())
        seat.typed("table")
        seat.typed("rules Placebo")
        said = buffer.getvalue()[start:]
        assert said.count("Infamy ") >= 3 and "Patient: " in said
        assert "Placebo, an Anytime card: " in said
    finally:
        listening.cancel()
        await seat.session.close()


async def test_a_trade_offered_to_you_is_asked_in_words() -> None:
    """Rule SE10: a rival's offer is accepted or declined; the plain seat asks which."""
    session = await open_local(
        "side-effects",
        players=3,
        options={},
        name="Ann",
        seed=4,
        bot_delay=0.0,
        bot_kind="trader",
        first_move_delay=0.0,
    )
    read, write = os.pipe()
    os.write(write, b"1\n" * 4000)
    os.close(write)
    buffer = io.StringIO()
    status = await asyncio.wait_for(play_plain(session, out=Output(buffer), fd=read, leave_after_game=True), 120)
    os.close(read)
    said = buffer.getvalue()
    assert status == 0
    offer = re.search(r"^(Bot \d) offers you (.+) for your (.+): accept or decline\?.*\n((?:\d+\. .+\n)+)", said, re.M)
    assert offer is not None, said[-2000:]
    choices = offer.group(4).splitlines()
    assert all(re.match(r"\d+\. (Accept|Decline): ", c) for c in choices)


async def test_join_plain_takes_a_seat_starts_and_plays_to_the_end() -> None:
    config = HostConfig(
        game="side-effects", seats=2, bots=1, headless=True, bot_delay=0.0, bind="127.0.0.1", port=0, seed=2
    )
    async with Host(config) as host:
        joined = asyncio.ensure_future(
            asyncio.to_thread(
                through_a_pipe, ["join", host.url, "--plain", "--name", "Ann"], first=b"ready\nstart\n", timeout=120
            )
        )
        await asyncio.wait_for(host.game_over(), 120)
    # The host has said goodbye: the seat is done.
    status, out, err = await asyncio.wait_for(joined, 120)
    assert status == 0, err
    assert "Type ready when you are ready to play." in out
    assert "You start the game: type start once everyone is ready." in out
    assert re.search(r"^Game over\. .+ won\. ", out, re.M)
