"""The benches' terminals (bench.ssh.Drawn, drawn in a process of their own by bench.ssh.Drawer):
a line awaited on screen is seen as the output that draws it arrives, wherever on the screen and
however the output is cut up; and the benches' other helpers."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from bench.ssh import Drawer, Drawn


def test_a_line_cut_across_pieces_of_output_is_seen_once_with_the_piece_that_completes_it() -> None:
    drawn = Drawn(80, 24)
    seen: list[float] = []
    drawn.want("ann (you)", seen.append)
    drawn.feed(b"\x1b[2J\x1b[10;5Hseats: ann (y")
    assert seen == []
    before = time.monotonic()
    drawn.feed(b"ou)\x1b[1;1Hcode KQXZ")
    assert len(seen) == 1 and before <= seen[0] <= time.monotonic()
    drawn.feed(b"\x1b[12;1Hann (you) again")
    assert len(seen) == 1  # told once
    assert drawn.shows("ann (you)")


def test_what_was_drawn_before_the_wait_began_is_seen_at_once() -> None:
    drawn = Drawn(80, 24)
    drawn.feed(b"\x1b[24;1Hbob (you)")
    drawn.feed(b"\x1b[1;1Hsomething else")  # the row that holds it is no longer the one last changed
    seen: list[float] = []
    before = time.monotonic()
    drawn.want("bob (you)", seen.append)
    assert len(seen) == 1 and before <= seen[0] <= time.monotonic()


async def test_terminals_drawn_in_a_process_of_their_own_say_when_a_line_was_drawn_there() -> None:
    """Two terminals at once: each line is seen with the piece that completes it, at a moment
    (the drawing process's own clock, the same monotonic clock) between that piece's sending and
    the answer's arrival, and what was drawn before the wait began counts."""
    async with Drawer() as drawer:
        ann, bob = drawer.terminal(80, 24), drawer.terminal(40, 10)
        bob.feed(b"\x1b[10;1Hbob (you)\x1b[1;1Hsomething else")
        waiting = asyncio.create_task(ann.wait_for("ann (you)", 10))
        before = time.monotonic()
        # Seen at once, though drawn before the wait began (meanwhile ann's wait was sent).
        assert before <= await bob.wait_for("bob (you)", 10) <= time.monotonic()
        ann.feed(b"\x1b[2J\x1b[10;5Hseats: ann (y")
        # The drawing process answers in the order it was asked: by the answer to a wait sent
        # after the half line, an answer for ann's would have come, had the half line counted.
        await bob.wait_for("something else", 10)
        assert not waiting.done()
        before = time.monotonic()
        ann.feed(b"ou)\x1b[1;1Hcode KQXZ")
        seen = await waiting
        assert before <= seen <= time.monotonic()
        assert not ann.drawing


async def test_a_line_never_drawn_is_a_timeout_that_shows_the_screen() -> None:
    async with Drawer() as drawer:
        ann = drawer.terminal(80, 24)
        ann.feed(b"a table for four")
        with pytest.raises(TimeoutError, match="a table for four"):
            await ann.wait_for("ann (you)", 0.5)


def test_the_codec_bench_times_frames_as_the_table_builds_them(capsys) -> None:
    """bench.codec builds each view as net.table does; a frame the seats' decoder would refuse
    (as once, when log lines became LogLine) fails here, not when someone runs the bench."""
    import json

    from bench import codec

    for game in ("side-effects", "quack"):
        codec.main(["--game", game, "--games", "1", "--rounds", "1"])
        report = json.loads(capsys.readouterr().out)
        assert report["game"] == game and report["views_per_round"] > 0 and report["decodes_per_s"] > 0


async def test_the_tui_bench_plays_cards_through_the_board_as_a_person_would(tmp_path: Path) -> None:
    """bench.tui picks a playable card through the board's own API; when that API was renamed the
    bench broke unseen, so here it must still time key presses and whole moves."""
    from bench import tui

    figures = await tui.key_presses(2, str(tmp_path))
    assert figures["presses"] == 2 and figures["pick_next_card_ms"]["best"] > 0
    assert figures["moves"] == 2 and figures["play_a_card_on_local_host_ms"]["best"] > 0


def test_the_bots_bench_plays_the_same_games_for_the_same_seeds(capsys) -> None:
    """bench.bots: one bot against three, seats turned; the same seeds give the same games and
    figures (but the seconds), each share of a win within its Wilson interval."""
    import json

    from bench import bots

    def run() -> dict:
        bots.main(
            [
                "--game",
                "side-effects",
                "--games",
                "8",
                "--seeds",
                "4,5",
                "--matchup",
                "normal:easy",
                "--per-game",
                "--no-costs",
            ]
        )
        figures = json.loads(capsys.readouterr().out)["side-effects"]["normal:easy"]
        figures.pop("seconds_per_decision")
        return figures

    first = run()
    assert first == run()
    assert first["games"] == 16 and len(first["per_game"]) == 16
    assert sorted(seat for _, seat, _ in first["per_game"]) == [0] * 4 + [1] * 4 + [2] * 4 + [3] * 4
    low, high = first["interval_95"]
    assert low <= first["win_pct"] <= high and first["wins"] == sum(share for _, _, share in first["per_game"])


def test_wilson_intervals() -> None:
    from bench.bots import wilson

    low, high = wilson(5, 10)
    assert round(low, 4) == 0.2366 and round(high, 4) == 0.7634
    assert wilson(0, 10)[0] == 0.0 and 0.0 < wilson(0, 10)[1] < 0.35
    low, high = wilson(150, 600)
    assert 0.2165 < low < 0.2175 and 0.2855 < high < 0.2865
