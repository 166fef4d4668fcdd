"""quackbox sim: figures from many bot games, reproducible by seed."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from quackbox.core import sim


def test_same_seed_same_figures() -> None:
    a = sim.run("side-effects", players=3, games_count=20, seed=5).as_json()
    b = sim.run("side-effects", players=3, games_count=20, seed=5).as_json()
    c = sim.run("side-effects", players=3, games_count=20, seed=6).as_json()
    assert a == b
    assert a["wins_by_seat"] != c["wins_by_seat"] or a["turns_median"] != c["turns_median"]
    assert a["errors"] == 0 and sum(a["wins_by_seat"]) == pytest.approx(20)


def test_lineup_repeats_to_fill_the_table() -> None:
    assert sim.lineup_for("side-effects", 5, ["heuristic", "random"]) == (
        "heuristic",
        "random",
        "heuristic",
        "random",
        "heuristic",
    )


def test_unknown_bot_is_a_plain_error() -> None:
    with pytest.raises(ValueError, match="no bot called 'genius'"):
        sim.lineup_for("side-effects", 4, ["genius"])


def test_sim_command_prints_json() -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "quackbox",
            "sim",
            "--game",
            "side-effects",
            "--players",
            "4",
            "--games",
            "30",
            "--seed",
            "1",
            "--bots",
            "heuristic,random,random,random",
            "--json",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    data = json.loads(out.stdout)
    for key in ("games", "errors", "turns_median", "wins_by_seat", "wins_by_bot", "decisions_per_second"):
        assert key in data
    assert data["games"] == 30 and len(data["wins_by_seat"]) == 4
    assert data["wins_by_bot"]["heuristic"] > data["wins_by_bot"]["random"]


def test_sim_command_refuses_bad_options_plainly() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "quackbox", "sim", "--game", "side-effects", "--games", "1", "-o", "nonsense=1"],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 2
    assert "no option 'nonsense'" in out.stderr and "Traceback" not in out.stderr


@pytest.mark.parametrize(
    ("game", "options"),
    [("side-effects", None), ("side-effects", {"until_one_loser": True}), ("quack", None)],
)
def test_outcome_reason_names_no_seat(game: str, options: dict | None) -> None:
    """Seats are numbered from 0 inside and from 1 for people, so the reason
    sentence leaves seats out and callers name the winners themselves."""
    import re

    from quackbox.core import bots, games
    from quackbox.core.play import play_game

    rules = games.get(game)
    reasons = set()
    for seed in range(12):
        lineup = [bots.make(game, "random", seed * 10 + s) for s in range(3)]
        outcome = play_game(rules, lineup, seed=seed, options=options).outcome
        assert outcome is not None and outcome.reason
        reasons.add(outcome.reason)
    for reason in reasons:
        assert not re.search(r"\b[Ss]eats?\b|\d", reason), reason


def test_a_game_that_runs_too_long_is_reported_as_stalled() -> None:
    """sim counts a game that does not end within its move limit, with its seed, instead of hanging."""
    result = sim.run("side-effects", players=4, games_count=12, seed=3, max_moves=40).as_json()
    assert result["stalled"] > 0 and result["errors"] == 0
    assert len(result["stalled_seeds"]) == min(5, result["stalled"])
    assert sum(result["wins_by_seat"]) == pytest.approx(12 - result["stalled"])


def test_the_figures_do_not_depend_on_the_order_games_are_played_in() -> None:
    """Each game is a function of its own task: played last to first (as processes side by side
    may finish them), then answered in order, the figures are those of one process."""

    def backwards(play, tasks):
        done = {task.index: play(task) for task in reversed(list(tasks))}
        return iter([done[i] for i in sorted(done)])

    plain = sim.run("side-effects", players=4, games_count=12, seed=9, rotate=True, bots=["easy", "normal"]).as_json()
    shuffled = sim.run(
        "side-effects", players=4, games_count=12, seed=9, rotate=True, bots=["easy", "normal"], mapper=backwards
    ).as_json()
    assert plain == shuffled and sum(plain["wins_by_seat"]) == pytest.approx(12)


def test_sim_in_two_processes_says_what_one_says() -> None:
    def figures(jobs: str) -> dict:
        out = subprocess.run(
            [
                sys.executable,
                "-m",
                "quackbox",
                "sim",
                "--game",
                "quack",
                "--players",
                "4",
                "--games",
                "6",
                "--seed",
                "3",
                "--bots",
                "normal,easy",
                "--rotate",
                "--json",
                "--jobs",
                jobs,
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        data = json.loads(out.stdout)
        timed = [key for key in data if "per_second" in key or "per_decision" in key]
        assert "p95_seconds_per_decision_by_bot" in timed
        return {key: value for key, value in data.items() if key not in timed}

    assert figures("1") == figures("2")


def test_a_percentile_is_a_value_that_occurred() -> None:
    values = [float(v) for v in range(1, 21)]
    assert sim.percentile(values, 95) == 19.0 and sim.percentile(values, 100) == 20.0
    assert sim.percentile([0.5], 95) == 0.5 and sim.percentile(values[::-1], 50) == 10.0


def test_the_win_interval_is_wilson_s_and_stays_within_0_and_1() -> None:
    low, high = sim.win_interval(0, 10)
    assert low == 0.0 and high == pytest.approx(0.2775, abs=1e-4)
    low, high = sim.win_interval(50, 100)
    assert (low, high) == (pytest.approx(0.4038, abs=1e-4), pytest.approx(0.5962, abs=1e-4))
    assert sim.win_interval(10, 10)[1] == 1.0 and sim.win_interval(0, 0) == (0.0, 1.0)


def test_rotation_turns_the_lineup_one_seat_further_each_game() -> None:
    lineup = ("a", "b", "c", "d")
    for game in range(9):
        k = game % 4
        turned = lineup[-k:] + lineup[:-k] if k else lineup
        assert tuple(lineup[p] for p in sim.seat_places(4, game, True)) == turned
        assert sim.seat_places(4, game, False) == (0, 1, 2, 3)
