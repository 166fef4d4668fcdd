"""QB10: balance is measured, not guessed. The figures ``quackbox sim`` prints.

Both read finished :class:`quackbox.core.play.GameRecord` s played with
``keep_events=True`` (the rules object's ``sim_needs_events`` asks for them).
"""

from __future__ import annotations

from typing import Any, Sequence

from quackbox.core.quack.moves import DoctorFled, DoctorMobbed, GameEnded, PatientAdmitted, PatientCured, PatientDied

__all__ = ["balance_report", "sim_summary"]


def balance_report(records: Sequence[Any]) -> dict[str, Any]:
    """The QB10 figures: share of admitted Patients cured and died, median
    rounds, and each seat's share of wins (shared wins split), by seat and by
    position in the turn order (0 = the first doctor)."""
    if not records:
        raise ValueError("balance_report needs at least one game record")
    seats = records[0].state.seats
    admitted = cured = died = fled = mobbed = 0
    rounds: list[int] = []
    wins = [0.0] * seats
    by_position = [0.0] * seats
    for game in records:
        for e in (*game.state.start_events, *game.events):
            kind = type(e)
            if kind is PatientAdmitted:
                admitted += 1
            elif kind is PatientCured:
                cured += 1
            elif kind is PatientDied:
                died += 1
            elif kind is DoctorFled:
                fled += 1
            elif kind is DoctorMobbed:
                mobbed += 1
            elif kind is GameEnded:
                rounds.append(e.round)
        winners = game.outcome.winners if game.outcome else ()
        for s in winners:
            wins[s] += 1 / len(winners)
            by_position[(s - game.state.first) % seats] += 1 / len(winners)
    games = len(records)
    share = [100 * w / games for w in wins]
    return {
        "games": games,
        "seats": seats,
        "patients": admitted,
        "cured_pct": 100 * cured / admitted if admitted else 0.0,
        "died_pct": 100 * died / admitted if admitted else 0.0,
        "median_rounds": _median(sorted(rounds)),
        "fled_per_game": fled / games,
        "mobbed_per_game": mobbed / games,
        "no_winner_pct": 100 * sum(1 for r in records if not (r.outcome and r.outcome.winners)) / games,
        "win_pct_by_seat": share,
        "win_pct_by_position": [100 * w / games for w in by_position],
        "max_over_fair": max(share) - 100 / seats,
    }


def sim_summary(records: Sequence[Any]) -> dict[str, Any]:
    """The QB10 balance figures and the money figures for ``quackbox sim``."""
    report = balance_report(records)
    doctors = report["games"] * report["seats"]
    money = sorted(d.money for r in records for d in r.state.doctors)
    winning = sorted(r.state.doctors[r.outcome.winners[0]].money for r in records if r.outcome and r.outcome.winners)
    return {
        "patients": report["patients"],
        "patients_cured_pct": round(report["cured_pct"], 1),
        "patients_died_pct": round(report["died_pct"], 1),
        "rounds_median": report["median_rounds"],
        "fled_pct": round(100 * report["fled_per_game"] * report["games"] / doctors, 1),
        "mobbed_pct": round(100 * report["mobbed_per_game"] * report["games"] / doctors, 1),
        "no_winner_pct": round(report["no_winner_pct"], 1),
        "money_median": _median(money),
        "money_max": money[-1] if money else 0,
        "winning_money_median": _median(winning),
        "win_pct_by_turn_position": [round(p, 1) for p in report["win_pct_by_position"]],
        "max_seat_points_over_fair": round(report["max_over_fair"], 1),
    }


def _median(values: Sequence[float]) -> float:
    """The median of sorted ``values`` (0 for none)."""
    if not values:
        return 0
    mid = len(values) // 2
    return values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2
