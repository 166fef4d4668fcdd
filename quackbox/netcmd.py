"""``quackbox host`` and ``quackbox join``: argument parsing and wiring only.

The main command hooks these in with ``add_host_args(subparser)`` /
``host_main(args)`` and ``add_join_args(subparser)`` / ``join_main(args)``.
Each ``*_main`` returns the process exit status; this is the only place in
the network code that prints.
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import logging
import os
import re
import signal
import sys
from typing import Any

from quackbox.core import games
from quackbox.core import options as core_options
from quackbox.core.rules import BadOptions, Outcome, seat_label
from quackbox.door_child import join_program
from quackbox.net import journal, places
from quackbox.net.client import NetError, table_url
from quackbox.net.door_launch import HOST_KEY_ENV, ROOM_CODE_ENV, VIA_ENV
from quackbox.net.host import Host, HostConfig, HostError, farewell, is_loopback, lan_address
from quackbox.net.local import open_door, ssh_command
from quackbox.net.network_bot import run_network_bot
from quackbox.net.program import ProgramError, parse_command, run_program_seat
from quackbox.net.protocol import DEFAULT_PORT, DEFAULT_SSH_PORT, DEFAULT_WEB_PORT
from quackbox.net.resources import quiet_loop_errors, raise_descriptor_limit
from quackbox.net.room import new_room_code
from quackbox.net.tokens import TokenStore

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


def _seconds_or_off(text: str) -> float | None:
    if text.strip().lower() in ("off", "none", "never"):
        return None
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds or 'off', not {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError("seconds cannot be negative")
    return value


def _option(text: str) -> tuple[str, str]:
    """``KEY=VALUE``, the value as typed: the game's own parser reads it (core.options)."""
    try:
        return core_options.read_text(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_host_args(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``quackbox host``."""
    parser.add_argument("--game", default="side-effects", help="the game: " + ", ".join(sorted(games.GAMES)))
    parser.add_argument("--seats", type=int, default=4, help="players at the table, bots included (default 4)")
    parser.add_argument(
        "--bots", type=int, default=0, help="seats kept for bots; open seats also get bots at the start"
    )
    parser.add_argument(
        "--bind",
        default="0.0.0.0",
        help="address to listen on (default every address; 127.0.0.1 for this machine only)",
    )
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port to listen on (default {DEFAULT_PORT})")
    parser.add_argument(
        "--code", help="the room code players must give (default: a random one unless listening on loopback only)"
    )
    parser.add_argument("--name", default=None, help="your name at the table (default: the name used last, else Host)")
    parser.add_argument("--headless", action="store_true", help="no seat for you: the first to join starts the game")
    after = parser.add_mutually_exclusive_group()
    after.add_argument("--once", action="store_true", help="exit after one game, printing the result (the default)")
    after.add_argument("--again", action="store_true", help="after a game, return to the lobby instead of stopping")
    parser.add_argument("--autostart", action="store_true", help="start as soon as every seat is taken")
    parser.add_argument(
        "--option",
        "-o",
        action="append",
        type=_option,
        default=[],
        metavar="KEY=VALUE",
        help="a game option (repeat for more)",
    )
    parser.add_argument("--seed", type=int, help="seed the deck (the seed never leaves the host)")
    parser.add_argument(
        "--bot-kind", default="normal", help="which bot plays bot seats: easy, normal or hard (default normal)"
    )
    parser.add_argument(
        "--bot-delay", type=float, default=0.8, help="seconds between bot moves (default 0.8; 0 for simulations)"
    )
    parser.add_argument(
        "--away-grace",
        type=_seconds_or_off,
        default=15.0,
        help="seconds before a bot plays an away seat's turn, or 'off' (default 15)",
    )
    parser.add_argument(
        "--turn-timer",
        type=_seconds_or_off,
        default=None,
        help="seconds a person has per move before a bot plays for them (default off)",
    )
    parser.add_argument(
        "--resume",
        metavar="FILE",
        help="carry on the saved game in FILE (see 'quackbox games'); its game, seats and options are the journal's",
    )
    parser.add_argument(
        "--journal-dir",
        metavar="DIR",
        default=None,
        help="where games are saved (default: the user data directory; see 'quackbox games')",
    )
    parser.add_argument("--no-journal", action="store_true", help="keep no journal of this game")
    parser.add_argument(
        "--ssh",
        type=_port,
        nargs="?",
        const=DEFAULT_SSH_PORT,
        default=None,
        metavar="PORT",
        help=f"also let players in with plain ssh on PORT (default {DEFAULT_SSH_PORT}), "
        "nothing installed; their key is their seat (see docs/SSH.md)",
    )
    parser.add_argument(
        "--ssh-allow",
        metavar="FILE",
        default=None,
        help="only the keys in FILE (authorized_keys format) may come in over ssh",
    )
    parser.add_argument(
        "--web",
        type=_port,
        nargs="?",
        const=DEFAULT_WEB_PORT,
        default=None,
        metavar="PORT",
        help=f"also let players in with a link in their browser, served on PORT (default "
        f"{DEFAULT_WEB_PORT}), nothing installed (see docs/WEB.md)",
    )
    parser.add_argument(
        "--bot-cmd",
        action="append",
        default=[],
        metavar="COMMAND",
        help="a program that plays one of the open seats, speaking JSON lines on its standard "
        "input and output (repeat for more; see docs/BOTS.md)",
    )
    parser.add_argument(
        "--web-name",
        action="append",
        type=_web_name,
        default=[],
        metavar="NAME",
        help="a DNS name or another address friends reach this machine by (repeat for more); "
        "the first is the link's. Browsers asking for any other name are refused",
    )


RESUME_KEEPS = {
    "bind": "--bind",
    "port": "--port",
    "name": "--name",
    "headless": "--headless",
    "again": "--again",
    "bot_kind": "--bot-kind",
    "bot_delay": "--bot-delay",
    "away_grace": "--away-grace",
    "turn_timer": "--turn-timer",
    "journal_dir": "--journal-dir",
    "ssh": "--ssh",
    "ssh_allow": "--ssh-allow",
    "web": "--web",
    "web_name": "--web-name",
}
"""What ``host --resume`` needs told again, and its flag: where the table listens, its doors
and how it is run (the game, its seats, options and seed come back from the journal)."""


def resume_flags(args: argparse.Namespace) -> list[str]:
    """The flags of ``args`` among :data:`RESUME_KEEPS` that differ from their defaults, as
    they are typed: what resuming this table takes besides ``--resume FILE``."""
    defaults = argparse.ArgumentParser(add_help=False)
    add_host_args(defaults)
    default = vars(defaults.parse_args([]))
    flags: list[str] = []
    for dest, flag in RESUME_KEEPS.items():
        value = getattr(args, dest, None)
        if value == default.get(dest):
            continue
        if value is None:
            flags += [flag, "off"]  # a time switched off (--away-grace off)
        elif value is True:
            flags.append(flag)
        elif isinstance(value, list):
            for item in value:
                flags += [flag, str(item)]
        else:
            flags += [flag, f"{value:g}" if isinstance(value, float) else str(value)]
    return flags


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number, not {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"ports are 0 to 65535, not {value}")
    return value


_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_HOST_NAME = re.compile(rf"(?=.{{1,253}}$){_LABEL}(?:\.{_LABEL})*\.?")


def _web_name(text: str) -> str:
    """``--web-name``: a DNS name (lower case, no final dot) or an IP address."""
    name = text.strip().strip("[]")
    try:
        return str(ipaddress.ip_address(name))
    except ValueError:
        pass
    if not _HOST_NAME.fullmatch(name):
        raise argparse.ArgumentTypeError(f"expected a host name such as quack.example.org or an address, not {text!r}")
    return name.rstrip(".").lower()


def add_join_args(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``quackbox join``."""
    parser.add_argument("host", help="the host's address: 10.0.0.5, 10.0.0.5:7117 or ws://...")
    parser.add_argument(
        "--port", type=int, default=None, help=f"the host's port if HOST does not say (default {DEFAULT_PORT})"
    )
    parser.add_argument("--code", help="the room code the host shows")
    parser.add_argument("--name", default=None, help="your name at the table")
    parser.add_argument("--spectate", action="store_true", help="watch without a seat")
    parser.add_argument("--bot", action="store_true", help="play this seat with a bot")
    parser.add_argument(
        "--bot-kind", default="normal", help="which bot (with --bot): easy, normal or hard (default normal)"
    )
    parser.add_argument("--think", type=float, default=0.0, help="seconds the bot waits before each move (with --bot)")
    parser.add_argument("--seed", type=int, default=None, help="the bot's seed (with --bot or --bot-cmd)")
    parser.add_argument(
        "--bot-cmd",
        metavar="COMMAND",
        default=None,
        help="play this seat with a program of your own, which speaks JSON lines on its standard "
        "input and output (see docs/BOTS.md)",
    )
    parser.add_argument(
        "--plain",
        action="store_true",
        help="play line by line: no screen drawn, numbered choices, short commands "
        "(screen readers, braille displays, pipes; see docs/PLAIN.md)",
    )


def describe_outcome(outcome: Outcome | None, names: tuple[str, ...]) -> str:
    """What ``quackbox host`` prints when its table closes: who won and why, each winner
    named as :func:`seat_name` names them (as ``quackbox join`` does)."""
    if outcome is None:
        return "The table closed before the game ended."
    winners = ", ".join(seat_name(s, list(names)) for s in outcome.winners)
    return f"Game over. Won by {winners or 'nobody'}. {outcome.reason}"


def host_main(args: argparse.Namespace) -> int:
    """``quackbox host``: run a table until its game ends (or Ctrl-C); without
    --headless the person at this terminal plays seat 0 in the table screen."""
    # An unknown game: ValueError, which the command line says in the words of `quackbox play`'s.
    games.get(args.game)
    # Every connection and session holds descriptors: the table's and the doors' own budgets
    # keep a crowd back, not the 1024 a login session usually starts a process with.
    raise_descriptor_limit()
    journal_dir = None if args.no_journal else (args.journal_dir or str(places.games_dir()))
    saved = None
    if args.resume:
        try:
            saved = journal.read(args.resume)
        except journal.JournalError as exc:
            print(f"quackbox host: {exc}", file=sys.stderr)
            return EXIT_FAILED
        if saved.finished:
            print(f"quackbox host: {args.resume}: that game is over; 'quackbox replay' shows it.", file=sys.stderr)
            return EXIT_USAGE
        if saved.dropped:
            print(f"Resuming {args.resume}: {saved.dropped}; the game goes on from the last whole move.")
        args.game, args.seats = saved.header.game, saved.header.seats
    programs: list[tuple[str, ...]] = []
    try:
        programs = [tuple(parse_command(command)) for command in args.bot_cmd]
    except ProgramError as exc:
        print(f"quackbox host: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if programs and args.resume:
        print(
            "quackbox host: --bot-cmd seats a program at a new game; a resumed game's seats come back as they were.",
            file=sys.stderr,
        )
        return EXIT_USAGE
    open_seats = args.seats - args.bots - (0 if args.headless else 1)
    if len(programs) > max(0, open_seats):
        print(
            f"quackbox host: each --bot-cmd program takes an open seat, and this table has "
            f"{max(0, open_seats)} for {len(programs)} (its seats, less --bots, less your own).",
            file=sys.stderr,
        )
        return EXIT_USAGE
    config = HostConfig(
        game=args.game,
        seats=args.seats,
        bots=args.bots,
        headless=args.headless,
        host_name=args.name or "Host",
        code=args.code,
        options=dict(args.option),
        seed=args.seed,
        bot_kind=args.bot_kind,
        bot_delay=args.bot_delay,
        away_grace=args.away_grace,
        turn_timer=args.turn_timer,
        autostart=args.autostart,
        bind=args.bind,
        port=args.port,
        once=not args.again,
        journal_dir=journal_dir,
        resume=args.resume,
        resume_record=saved,
        programs=tuple(programs),
    )
    ssh_config = None
    if args.ssh is not None:
        from quackbox.net.ssh import SshConfig

        ssh_config = SshConfig(port=args.ssh, bind=args.bind, allow=args.ssh_allow, program=join_program())
    elif args.ssh_allow:
        print("quackbox host: --ssh-allow goes with --ssh.", file=sys.stderr)
        return EXIT_USAGE
    address = "127.0.0.1" if is_loopback(config.bind) else lan_address()
    web_config = None
    if args.web is not None:
        from quackbox.net.web import WebConfig

        # The link carries the room code, so opening a table to browsers costs nobody any typing:
        # it always has one, even on loopback, where a table may otherwise go without.
        config.code = config.code or new_room_code()
        names = tuple(dict.fromkeys([*args.web_name, *([address] if address else [])]))
        web_config = WebConfig(port=args.web, bind=args.bind, names=names, program=join_program())
    elif args.web_name:
        print("quackbox host: --web-name goes with --web.", file=sys.stderr)
        return EXIT_USAGE
    if not args.headless:
        from quackbox.tui.app import run_hosted

        # The table screen shows the address, room code and doors; without --name, the
        # name remembered on the home screen.
        def opened(host: Host, ssh: Any, web: Any) -> None:
            # Before the table takes the screen; the terminal keeps it when the app is gone.
            print("\n".join(table_lines(host, ssh, web, address, config)), flush=True)

        return run_hosted(
            config, name=args.name, ssh=ssh_config, web=web_config, resume_flags=resume_flags(args), on_open=opened
        )
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    logging.getLogger("websockets").setLevel(logging.WARNING)
    logging.getLogger("asyncssh").setLevel(logging.WARNING)
    host_ref: list[Host] = []

    def announce(host: Host, ssh: Any, web: Any) -> None:
        host_ref.append(host)
        print("\n".join(table_lines(host, ssh, web, address, config)))
        print("Press Ctrl-C to close the table.", flush=True)

    try:
        outcome, stopped_by = asyncio.run(_serve_headless(config, ssh_config, web_config, announce))
    except HostError as exc:
        print(f"quackbox host: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except (BadOptions, ValueError) as exc:
        print(f"quackbox host: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        stopped_by = signal.SIGINT
    saved = host_ref[0].saved_game if host_ref else None
    if stopped_by is not None:
        print("\nTable closed; everyone was told.", flush=True)
        if config.journal_dir is not None or config.resume:
            print("\n".join(farewell(saved, resume_flags(args))), flush=True)
        return 128 + stopped_by
    names = (host_ref[0].table.outcome_names or host_ref[0].table.names) if host_ref else ()
    print(describe_outcome(outcome, names))
    if saved is not None:
        print("\n".join(farewell(saved, resume_flags(args))))
    return EXIT_OK


def table_lines(host: Host, ssh: Any, web: Any, address: str | None, config: HostConfig) -> list[str]:
    """What a host prints as its table opens, fresh or resumed alike: the address, the room
    code, how to come in through each door, and where the game is saved."""
    rules = host.table.rules
    lines = [f"Hosting {rules.title} for {host.table.config.seats} players on port {host.port}."]
    shown = address or "THIS-MACHINE"
    join = f"quackbox join {shown}" + (f":{host.port}" if host.port != DEFAULT_PORT else "")
    if host.code:
        lines.append(f"Room code: {host.code}")
        join += f" --code {host.code}"
    lines.append(f"Players join with:  {join}")
    if ssh is not None:
        door = ssh_command(shown, ssh.port)
        lines.append(f"Or, nothing installed:  {door}   (watch: ssh -t -p {ssh.port} {shown} spectate)")
        lines.append(f"SSH host key: {ssh.fingerprint}  (players check it against what ssh shows)")
    if web is not None:
        lines.append(f"Or in a browser: {web.link()}")
    if config.resume:
        lines.append(
            f"Resumed {config.resume} at move {host.table.seq}; everyone takes their seat back the way they came in."
        )
    elif config.journal_dir is not None:
        lines.append(f"The game will be saved in {config.journal_dir}")
    return lines


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


async def _serve_headless(
    config: HostConfig, ssh_config: Any, web_config: Any, announce: Any
) -> tuple[Outcome | None, int | None]:
    """Run a headless table (and its doors) until its game ends, or until
    SIGINT or SIGTERM: the outcome, or the signal that stopped it.

    The signals are caught whatever this process was started with: a shell
    starts a background job (``&``, ``nohup``) with SIGINT ignored, and such
    a host could otherwise only be killed, mid-write. Stopping here says
    goodbye to everyone and closes the journal whole.
    """
    loop = asyncio.get_running_loop()
    quiet_loop_errors(loop)  # a flood's repeated errors: a line a minute, not a traceback each
    stop: asyncio.Future[int] = loop.create_future()
    for signum in STOP_SIGNALS:
        # Each signal bound by the default; `or` sets the result once (mypy infers no such lambda).
        loop.add_signal_handler(signum, lambda s=signum: stop.done() or stop.set_result(s))  # type: ignore[misc, func-returns-value]
    try:
        async with Host(config) as host:
            ssh = web = None
            try:
                ssh = await open_door(ssh_config, host) if ssh_config is not None else None
                web = await open_door(web_config, host) if web_config is not None else None
                announce(host, ssh, web)
                waits: list[asyncio.Future[Any]] = [stop]
                if config.once:
                    waits.append(asyncio.ensure_future(host.game_over()))
                await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
                for extra in waits[1:]:
                    extra.cancel()
                if stop.done():
                    return None, stop.result()
                return waits[1].result(), None
            finally:
                await asyncio.gather(*(door.stop() for door in (ssh, web) if door is not None))
    finally:
        for signum in STOP_SIGNALS:
            loop.remove_signal_handler(signum)


def join_main(args: argparse.Namespace) -> int:
    """``quackbox join``: the table screen for a person (``--plain``: line by line), or with
    --bot a bot seat, or with --bot-cmd a seat a program plays."""
    if sum(map(bool, (args.bot, args.bot_cmd, args.plain))) > 1:
        print("quackbox join: choose one of --bot, --bot-cmd and --plain.", file=sys.stderr)
        return EXIT_USAGE
    if args.bot:
        return join_bot_main(args)
    if args.bot_cmd:
        return join_program_main(args)
    code = args.code or os.environ.get(ROOM_CODE_ENV) or None
    if args.plain:
        from quackbox.tui.plain import run_plain_join

        return run_plain_join(args.host, port=args.port, code=code, name=args.name, spectate=args.spectate)
    from quackbox.tui.app import run_join

    # The SSH door gives the room code in the environment (another local user can read argv),
    # with how the player came in and the host key to show them.
    return run_join(
        args.host,
        port=args.port,
        code=code,
        name=args.name,
        spectate=args.spectate,
        shown_as=os.environ.get(VIA_ENV) or None,
        host_key=os.environ.get(HOST_KEY_ENV) or None,
    )


def join_bot_main(args: argparse.Namespace) -> int:
    """``quackbox join HOST --bot``: play one seat with a bot until the game ends."""
    url = table_url(args.host, args.port)
    name = args.name or f"{args.bot_kind.title()} Bot"
    names: list[str] = []
    try:
        outcome = asyncio.run(
            run_network_bot(
                url, name, args.code, args.bot_kind, seed=args.seed, think=args.think, tokens=TokenStore(), names=names
            )
        )
    except NetError as exc:
        print(f"quackbox join: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except ValueError as exc:  # an unknown bot kind names the choices
        print(f"quackbox join: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("\nLeft the table.")
        return EXIT_INTERRUPTED
    if outcome is None:
        print("The host closed the table before the game ended.")
        return EXIT_OK
    won = ", ".join(seat_name(w, names) for w in outcome.winners) or "nobody"
    print(f"Game over: {won} won. {outcome.reason}")
    return EXIT_OK


def join_program_main(args: argparse.Namespace) -> int:
    """``quackbox join HOST --bot-cmd COMMAND``: a program plays one seat until the game ends;
    its standard error, and what becomes of it, are logged here."""
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    logging.getLogger("websockets").setLevel(logging.WARNING)
    url = table_url(args.host, args.port)
    names: list[str] = []
    try:
        argv = parse_command(args.bot_cmd)
        outcome = asyncio.run(
            run_program_seat(
                url, argv, name=args.name, code=args.code, seed=args.seed, tokens=TokenStore(), names=names
            )
        )
    except ProgramError as exc:
        print(f"quackbox join: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except NetError as exc:
        print(f"quackbox join: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        print("\nLeft the table.")
        return EXIT_INTERRUPTED
    if outcome is None:
        print("The host closed the table before the game ended.")
        return EXIT_OK
    won = ", ".join(seat_name(w, names) for w in outcome.winners) or "nobody"
    print(f"Game over: {won} won. {outcome.reason}")
    return EXIT_OK


def seat_name(seat: int, names: list[str]) -> str:
    """A seat as the command line names it at the end of a game: ``Ann (seat 3)``, or
    ``seat 3`` when its name is not known (seats count from 1 for people)."""
    name = names[seat] if seat < len(names) else ""
    return f"{name} ({seat_label(seat)})" if name else seat_label(seat)
