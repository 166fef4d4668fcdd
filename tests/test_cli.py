"""The command line: arguments that need no table to check."""

from __future__ import annotations

import argparse

import pytest

from quackbox import netcmd


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
    assert netcmd._seat_label(2, ["Ann", "Bo", "Cy"]) == "Cy (seat 3)"
    assert netcmd._seat_label(2, []) == "seat 3"


def test_the_host_names_the_winners_as_join_does() -> None:
    from core.rules import Outcome

    outcome = Outcome(winners=(2,), places=(2, 2, 1), reason="A player treated every Disorder.")
    assert netcmd._describe_outcome(outcome, ("Ann", "Bo", "Cy")) == (
        "Game over. Won by Cy (seat 3). A player treated every Disorder.")
    assert "Won by seat 3." in netcmd._describe_outcome(outcome, ())
