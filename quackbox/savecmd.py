"""``quackbox games`` and ``quackbox replay``: saved games, and watching one again."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TypeVar

from quackbox.core import games as known_games
from quackbox.net import journal, places

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


ParserT = TypeVar("ParserT", bound=argparse.ArgumentParser)


def add_commands(sub: argparse._SubParsersAction[ParserT]) -> None:
    listing = sub.add_parser("games", help="list saved games (finished or not)")
    listing.add_argument("--dir", default=None, help="where games are saved (default: the user data directory)")
    listing.set_defaults(func=games_main)
    replay = sub.add_parser("replay", help="step through a saved game with every hand visible")
    replay.add_argument("file", help="a saved game (see 'quackbox games')")
    replay.add_argument("--text", action="store_true", help="print the game's log instead of opening the viewer")
    replay.set_defaults(func=replay_main)


def played_at(path: Path, record: journal.Journal) -> float:
    """When the game was played: its journal's ``created`` (a file's time changes when the
    file is copied or touched; the header's does not), else the file's time."""
    if record.header.created:
        return record.header.created
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def games_main(args: argparse.Namespace) -> int:
    """The games saved in this user's data folder (``--dir``: another), newest played first;
    after them, the files there quackbox will not use, and why."""
    folder = Path(args.dir) if args.dir else places.games_dir()
    found = journal.summaries(folder)
    if not found:
        print(f"No saved games in {folder}.")
        return EXIT_OK
    games = sorted(
        ((path, item) for path, item in found if not isinstance(item, journal.JournalError)),
        key=lambda found_game: played_at(*found_game),
        reverse=True,
    )
    unused = [(path, item) for path, item in found if isinstance(item, journal.JournalError)]
    print(f"Saved games in {folder}, newest first:\n" if games else f"No saved games in {folder}.")
    for path, item in games:
        header = item.header
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(header.created)) if header.created else "?"
        title = known_games.get(header.game).title
        if item.outcome is not None:  # finished
            winners = ", ".join(header.names[w] for w in item.outcome.winners) or "nobody"
            state = f"won by {winners}"
        elif not item.moves:
            state = "dealt; no move was made" + (" (torn last record)" if item.dropped else "")
        else:
            state = f"unfinished after {len(item.moves)} moves" + (" (torn last record)" if item.dropped else "")
        print(f"  {when}  {title}: {', '.join(header.names)}\n    {state}\n    {path}")
    if unused:
        print(f"\n{'Also there' if games else 'There'}, not used:\n")
    for path, problem in unused:
        print(f"  {problem.problem}\n    {path}")
    return EXIT_OK


def replay_main(args: argparse.Namespace) -> int:
    try:
        record = journal.read(args.file)
        # Replaying every move refuses a journal that does not replay before anything opens.
        log = _log_lines(record)
    except journal.JournalError as exc:
        print(f"quackbox replay: {exc}", file=sys.stderr)
        return EXIT_FAILED
    if record.dropped:
        print(f"quackbox replay: {args.file}: {record.dropped}", file=sys.stderr)
    if args.text or not sys.stdout.isatty():
        print("\n".join(log))
        return EXIT_OK
    from quackbox.tui.replay import run_replay

    return run_replay(record)


def _log_lines(record: journal.Journal) -> list[str]:
    """Every event of the game, as everyone would have read it afterwards."""
    rules = known_games.get(record.header.game)
    names = record.header.names
    return [
        line
        for _state, events in journal.replay(record)
        for event in events
        if (line := rules.describe(event, names, None))
    ]
