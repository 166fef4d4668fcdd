"""The ``quackbox`` command: argument parsing and wiring, nothing else.

quackbox                         the home screen (play, host, join, rules)
quackbox play side-effects       a game against bots (--plain: line by line)
quackbox host --game quack       open a table; friends join it
quackbox join 10.0.0.5           take a seat at a table
quackbox sim --game quack ...    many bot games, and what they add up to
quackbox games / replay FILE     saved games, and watching one again
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
from typing import Any, Callable, Iterator, Sequence

from quackbox import netcmd, savecmd
from quackbox.core import games
from quackbox.core import options as core_options
from quackbox.core.bots import LEVELS
from quackbox.core.rules import BadOptions


def parse_option_values(pairs: Sequence[str]) -> dict[str, str]:
    """``["until-one-loser=true", "bonus-cards=1"]`` -> {key: value text}: each game's own
    parser (core.options) reads the values, as it reads the home screen's and the wire's."""
    out: dict[str, str] = {}
    for pair in pairs:
        try:
            key, value = core_options.read_text(pair)
        except ValueError as exc:
            raise BadOptions(f"Options are written KEY=VALUE, not {pair!r}.") from exc
        out[key] = value
    return out


def options_help() -> str:
    lines = ["game options (-o KEY=VALUE, repeatable):"]
    for name, rules in sorted(games.GAMES.items()):
        defaults = rules.default_options()
        # Spelled as -o takes them and as its errors say them (two-player-endgame=one-left).
        lines.append(f"  {name}: {core_options.describe(defaults)}")
    return "\n".join(lines)


def add_game_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-o",
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a game option, e.g. -o until-one-loser=true (see the list below)",
    )


# --- sim --------------------------------------------------------------------


PROGRAM_KIND = "cmd:"
"""A lineup entry ``cmd:PROGRAM ARGS`` is a program playing the seat (docs/BOTS.md)."""


def cmd_sim(args: argparse.Namespace) -> int:

    rules = games.get(args.game)  # an unknown game: ValueError, said by main as every command says it
    options = parse_option_values(args.option)
    bots = args.bots.split(",") if args.bots else None
    commands = sorted({b.strip() for b in bots or () if b.strip().startswith(PROGRAM_KIND)})
    from quackbox.net.program import ProgramError

    try:
        programs = _lineup_programs(rules, args.players, bots, commands) if commands else {}
    except ProgramError as exc:
        print(f"quackbox: {exc}", file=sys.stderr)
        return 2
    try:
        return _run_sim(args, options, bots, programs)
    finally:
        for program in programs.values():
            program.close()


def _lineup_programs(rules: Any, players: int, bots: Sequence[str] | None, commands: Sequence[str]) -> dict[int, Any]:
    """The program of each place of the lineup that names one, each started once for the
    whole run (ProgramError, a ValueError, if one cannot be)."""
    import logging

    from quackbox.core import sim
    from quackbox.net.program import parse_command
    from quackbox.net.program_threads import LineupProgram

    # What programs write to their standard error, and what becomes of them, goes to ours.
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    lineup = sim.lineup_for(rules.name, players, bots, also=commands)
    programs: dict[int, Any] = {}
    try:
        for place, kind in enumerate(lineup):
            if kind in commands:
                programs[place] = LineupProgram(rules, parse_command(kind[len(PROGRAM_KIND) :]), place=place)
                programs[place].start()
    except BaseException:
        for program in programs.values():
            program.close()
        raise
    return programs


def _run_sim(
    args: argparse.Namespace, options: dict[str, str], bots: list[str] | None, programs: dict[int, Any]
) -> int:
    from quackbox.core import sim

    outside = {
        kind: (lambda place, seed: programs[place].bot(place, seed))
        for kind in {b.strip() for b in bots or ()}
        if kind.startswith(PROGRAM_KIND)
    }
    shown: list[float] = [0]

    def progress(done: int) -> None:
        if not args.json and sys.stderr.isatty() and (done == args.games or time.monotonic() - shown[0] > 0.2):
            shown[0] = time.monotonic()
            print(f"\r{done}/{args.games} games", end="", file=sys.stderr, flush=True)

    # A program plays in this process (its pipes are here), so a run with one plays its games one at a time.
    jobs = 1 if outside else max(1, min(args.jobs or cores(), args.games))
    with pool(jobs) as mapper:
        result = sim.run(
            args.game,
            players=args.players,
            games_count=args.games,
            seed=args.seed,
            bots=bots,
            options=options,
            clock=time.perf_counter,
            progress=progress,
            rotate=args.rotate,
            budget=args.budget,
            think_clock=time.process_time,
            mapper=mapper,
            outside=outside,
        )
    if not args.json and sys.stderr.isatty():
        print("\r", end="", file=sys.stderr)
    data = result.as_json()
    failures = [
        f"{program.label}: {program.failure} The normal bot played its seat from then on."
        for program in programs.values()
        if program.failure is not None
    ]
    if programs:
        data["program_failures"] = failures
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        print(format_sim(data))
    return 1 if data["errors"] or failures else 0


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on every platform
        return os.cpu_count() or 1


@contextlib.contextmanager
def pool(jobs: int) -> Iterator[Any]:
    """A mapper that plays games in ``jobs`` processes side by side (in this
    one for 1), answering them in order: sim's figures are the same either way."""
    if jobs <= 1:
        yield None
        return
    import multiprocessing

    with multiprocessing.Pool(jobs) as workers:
        yield lambda play, tasks: workers.imap(play, tasks)


def figure(value: Any) -> str:
    """A figure of the sim as a person reads it: 12,975 (not 12975.0), 43.2, 0.00058."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, float) and not value.is_integer():
        return f"{value:.2g}" if abs(value) < 1 else f"{value:,.1f}"
    return f"{int(value):,}"


def seconds(value: Any) -> str:
    """A time a person reads at a glance: 42 µs, 1.3 ms, 0.85 s (never a bare 0)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if value >= 1:
        return f"{value:,.1f} s"
    if value >= 0.1:
        return f"{value:.2f} s"
    for unit, scale in (("ms", 1_000), ("µs", 1_000_000)):
        amount = value * scale
        if amount >= 1:
            return f"{amount:.0f} {unit}" if amount >= 10 else f"{amount:.2g} {unit}"
    return "under 1 µs"


def format_sim(data: dict[str, Any]) -> str:
    """The sim figures as a readable table."""
    title = games.get(data["game"]).title
    rows = [
        f"{title}: {data['games']} games, {data['players']} players, seed {data['seed']}",
        f"bots by seat: {', '.join(data['bots'])}",
        "",
    ]
    skip = {
        "game",
        "players",
        "games",
        "seed",
        "bots",
        "error_messages",
        "wins_by_seat",
        "wins_by_bot",
        "win_pct_by_bot",
        "fair_share_pct_by_bot",
        "stalled_seeds",
        "win_interval_pct_by_bot",
        "program_failures",
    }
    width = max(len(k) for k in data)
    for key, value in data.items():
        if key in skip:
            continue
        shown_as = seconds if "seconds_per" in key else figure
        if isinstance(value, dict):
            shown = ", ".join(f"{k} {shown_as(v)}" for k, v in value.items())
        elif isinstance(value, list):
            shown = ", ".join(figure(v) for v in value)
        else:
            shown = figure(value)
        rows.append(f"  {key.replace('_', ' '):<{width}}  {shown}")
    rows.append("")
    rows.append("  wins by seat:  " + "  ".join(f"{i + 1}: {w:g}" for i, w in enumerate(data["wins_by_seat"])))
    rows.append("  wins by bot:")
    named = max([12, *(len(kind) for kind in data["wins_by_bot"])])
    intervals = data.get("win_interval_pct_by_bot", {})
    thinking = data.get("seconds_per_decision_by_bot", {})
    for kind, wins in data["wins_by_bot"].items():
        pct = data["win_pct_by_bot"][kind]
        fair = data["fair_share_pct_by_bot"][kind]
        low, high = intervals.get(kind, (0.0, 100.0))
        pace = f", {seconds(thinking[kind])} a decision" if kind in thinking else ""
        rows.append(
            f"    {kind:<{named}} {wins:>8g} wins   {pct:5.1f}% per seat (95%: {low:.1f}-{high:.1f}%; "
            f"fair share {100 / data['players']:.1f}%, {fair:.0f}% of seats){pace}"
        )
    for message in data["error_messages"]:
        rows.append(f"  error: {message}")
    for message in data.get("program_failures", ()):
        rows.append(f"  program lost its seat: {message}")
    return "\n".join(rows)


# --- play -------------------------------------------------------------------


def parse_pace(text: str) -> float:
    """``--pace``: a pace's name (as the home screen offers them) or seconds between bot moves."""
    from quackbox.tui.config import BOT_SPEEDS
    from quackbox.tui.config import MAX_BOT_DELAY as MAX_PACE

    paces = dict(BOT_SPEEDS)
    if text.strip().lower() in paces:
        return paces[text.strip().lower()]
    try:
        seconds = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"a pace is {', '.join(paces)} or seconds between bot moves, not {text!r}"
        ) from None
    if not 0 <= seconds <= MAX_PACE:
        raise argparse.ArgumentTypeError(f"a pace is 0 to {MAX_PACE:g} seconds between bot moves, not {text}")
    return seconds


def cmd_play(args: argparse.Namespace) -> int:
    rules = games.get(args.game)  # an unknown game: ValueError, said by main as every command says it
    options = parse_option_values(args.option)
    # Refuse bad options or a seat count before the table takes the screen:
    # dealing once asks the rules themselves, in their own words.
    rules.new_game(seats=args.players, options=rules.parse_options(options), seed=0)
    if args.plain:
        from quackbox.tui.plain import run_plain_play

        return run_plain_play(
            args.game,
            players=args.players,
            options=options,
            name=args.name,
            seed=args.seed,
            pace=args.pace,
            level=args.level,
        )
    from quackbox.tui.app import run_local_game

    return run_local_game(
        args.game,
        players=args.players,
        options=options,
        name=args.name,
        seed=args.seed,
        bot_delay=args.pace,
        level=args.level,
    )


# --- entry ------------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    """An argument parser whose epilog may be a function, called only when
    help is printed: the options list loads every game, which a command
    that plays one game should not wait for. Subcommands are made alike."""

    # The lazy epilog is not argparse's (its stubs say a str): the checker takes the
    # callable branch as unreachable, and each epilog=options_help below as a wrong type.
    def format_help(self) -> str:
        if callable(self.epilog):
            self.epilog = self.epilog()  # type: ignore[unreachable]
        return super().format_help()


def build_parser() -> argparse.ArgumentParser:
    game_names = sorted(games.GAMES)
    parser = _Parser(
        prog="quackbox",
        description="A terminal tabletop for Side Effects and Quack in the Box.",
        epilog=options_help,  # type: ignore[arg-type]
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--ascii",
        action="store_true",
        help="draw the table without box drawing, check marks and other glyphs a plain "
        "terminal may lack (vt100, a Linux console)",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    play = sub.add_parser(
        "play",
        help="play a game against bots",
        epilog=options_help,  # type: ignore[arg-type]
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    # No argparse choices: an unknown game is refused in the one sentence every command uses
    # (core.games, printed by main), not in argparse's own words beside host's.
    play.add_argument("game", metavar="GAME", help="which game: " + " or ".join(game_names))
    play.add_argument("-p", "--players", type=int, default=4, help="seats at the table, you included (default 4)")
    play.add_argument("--name", default=None, help="your name at the table")
    play.add_argument("--seed", type=int, default=None, help="deal a particular game")
    play.add_argument(
        "--pace",
        type=parse_pace,
        default=None,
        metavar="PACE",
        help="time between bot moves: slow, normal, fast, instant or seconds "
        "(default: as last chosen on the home screen)",
    )
    play.add_argument(
        "--ascii",
        action="store_true",
        default=argparse.SUPPRESS,
        help="draw without box drawing, check marks and other glyphs a plain terminal may lack",
    )
    play.add_argument(
        "--plain",
        action="store_true",
        help="play line by line: no screen drawn, numbered choices, short commands "
        "(screen readers, braille displays, pipes; see docs/PLAIN.md)",
    )
    play.add_argument(
        "--level",
        choices=LEVELS,
        default=None,
        help="how well the bots play: easy, normal or hard (default: as last chosen, normal)",
    )
    add_game_options(play)
    play.set_defaults(func=cmd_play)

    sim = sub.add_parser(
        "sim",
        help="play many bot games headless and print the figures",
        epilog=options_help,  # type: ignore[arg-type]
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sim.add_argument("--game", required=True, metavar="GAME", help="which game: " + " or ".join(game_names))
    sim.add_argument("--players", type=int, default=4)
    sim.add_argument("--games", type=int, default=100)
    sim.add_argument("--seed", type=int, default=1)
    sim.add_argument(
        "--bots",
        default=None,
        help="bot kinds by seat, repeated to fill the table "
        "(default heuristic): the levels easy, normal, hard, or heuristic, random, ...; "
        "cmd:PROGRAM plays a seat with a program of your own (docs/BOTS.md)",
    )
    sim.add_argument("--rotate", action="store_true", help="turn the lineup one seat further each game")
    sim.add_argument(
        "--budget",
        type=int,
        default=None,
        metavar="N",
        help="the hard bot's simulated games per decision (default: about a second each)",
    )
    sim.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="games played side by side, one process each (default: one per core; one with a program in the lineup)",
    )
    sim.add_argument("--json", action="store_true", help="print one JSON object")
    add_game_options(sim)
    sim.set_defaults(func=cmd_sim)

    host = sub.add_parser(
        "host",
        help="open a table others can join",
        epilog=options_help,  # type: ignore[arg-type]
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    netcmd.add_host_args(host)
    host.set_defaults(func=netcmd.host_main)
    join = sub.add_parser("join", help="take a seat at a table")
    netcmd.add_join_args(join)
    join.set_defaults(func=netcmd.join_main)
    savecmd.add_commands(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "ascii", False):
        from quackbox.tui.looks import ASCII_ENV

        os.environ[ASCII_ENV] = "1"
    if args.command is None:
        from quackbox.tui.app import run_home

        return run_home()
    try:
        command: Callable[[argparse.Namespace], int] = args.func
        return command(args)
    except (BadOptions, ValueError) as exc:
        print(f"quackbox: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # e.g. piped into head: the reader has all it wanted
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())
