"""Golden games: a hash of everything a seeded game does, to prove a rewrite
of the engines changes nothing.

Each game is played through the public rules interface only (``new_game``,
``legal_moves``, ``apply``, ``view``, ``redact``, ``outcome``, ``deadline``),
so the same driver runs against any version of the engines. The hash covers
every move, every event, every seat's view and the spectator's after each
move, every event as each seat and the spectator may see it, and the outcome.
Values are hashed by their class name (moves and events) and their field
values, so a module that moves or a field that is renamed changes nothing,
while any change of what the game does changes the hash.

The driver also makes the moves bots never make: trade offers with random
cards (Side Effects), and a deadline's timeout now and then instead of an
answer, so those paths are covered too.

    python -m tests.core.golden --write     # record tests/core/golden.json
    python -m tests.core.golden             # compare every game with it

``tests/core/test_golden.py`` compares a sample of the recorded games on
every ``make test``.
"""

from __future__ import annotations

import argparse
import dataclasses
import enum
import hashlib
import json
import random
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, Iterator

from quackbox.core import bots as bot_registry
from quackbox.core import games
from quackbox.core.rules import Event, Move

RECORD = Path(__file__).with_name("golden.json")
MAX_MOVES = 3_000
"""A game longer than this is cut off there (its hash still covers it all)."""
SEATS = (2, 4, 8)
BOTS = ("random", "heuristic")
GAMES_PER_CONFIG = 84
"""3 seat counts x 2 option sets x 2 bot kinds x 84 = 1,008 games per game."""

OPTIONS: dict[str, tuple[dict[str, Any], ...]] = {
    # Per game: the options of even seeds and of odd seeds when options are on.
    "side-effects": (
        {"until-one-loser": True, "duplicate-disorders": True, "treat-others": True, "bonus-cards": True},
        {"until-one-loser": True, "bonus-cards": True, "tremors-seconds": 0.0, "first-seat": 1},
    ),
    "quack": (
        {"turbo-infamy": True, "group-practice": True, "infamy-threshold": 10, "round-limit": 12},
        {"deathmatch": True, "window-seconds": 0.0, "two-player-endgame": "play_on", "first-seat": 1},
    ),
}


def canon(value: Any) -> Any:
    """``value`` as plain JSON data: what it is, not how a module spells it."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, enum.Enum):
        return canon(value.value)
    if isinstance(value, (tuple, list)):
        return [canon(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted(canon(v) for v in value)
    if isinstance(value, dict):
        return [[canon(k), canon(v)] for k, v in sorted(value.items())]
    if dataclasses.is_dataclass(value):
        name = type(value).__name__ if isinstance(value, (Move, Event)) else ""
        return [name, *(canon(getattr(value, f.name)) for f in dataclasses.fields(value))]
    raise TypeError(f"cannot hash a {type(value).__name__}: {value!r}")


def configs(game: str) -> Iterator[tuple[int, bool, str]]:
    for seats in SEATS:
        for options_on in (False, True):
            for bot in BOTS:
                yield seats, options_on, bot


def game_keys(game: str) -> list[str]:
    """Every golden game of ``game``, as ``seats/options/bot/seed``."""
    keys = []
    for n, (seats, options_on, bot) in enumerate(configs(game)):
        for i in range(GAMES_PER_CONFIG):
            seed = n * 1000 + i
            keys.append(f"{seats}/{'on' if options_on else 'off'}/{bot}/{seed}")
    return keys


def play(game: str, key: str) -> str:
    """Play golden game ``key`` of ``game``; the hex digest of all it did."""
    seats_text, options_text, bot, seed_text = key.split("/")
    seats, seed = int(seats_text), int(seed_text)
    options = OPTIONS[game][seed % 2] if options_text == "on" else None
    rules = games.get(game)
    digest = hashlib.sha256()

    def feed(item: Any) -> None:
        digest.update(json.dumps(canon(item), separators=(",", ":")).encode())
        digest.update(b"\n")

    state = rules.new_game(seats=seats, options=options, seed=seed)
    players = [bot_registry.make(game, bot, seed * 16 + s) for s in range(seats)]
    driver = random.Random(seed)
    feed_step(rules, state, seats, list(state.start_events), feed)
    for _ in range(MAX_MOVES):
        if rules.outcome(state) is not None:
            break
        seat, move = next_move(rules, state, players, driver)
        feed(["move", seat, move])
        events = rules.apply(state, seat, move)
        feed_step(rules, state, seats, events, feed)
    feed(["outcome", rules.outcome(state)])
    return digest.hexdigest()[:20]


def feed_step(rules: Any, state: Any, seats: int, events: list, feed: Any) -> None:
    feed(["events", events])
    for seat in [*range(seats), None]:
        feed(["seen", seat, [rules.redact(e, seat) for e in events]])
        feed(["view", seat, rules.view(state, seat)])
    for seat in range(seats):
        feed(["legal", seat, rules.legal_moves(state, seat)])
    feed(["deadline", rules.deadline(state)])


def next_move(rules: Any, state: Any, players: list, driver: random.Random) -> tuple[int, Move]:
    """The bots' move, as core.play plays it, with the driver's extras mixed in."""
    deadline = rules.deadline(state)
    if deadline is not None and driver.random() < 0.15:
        return deadline.seat, deadline.timeout
    waiting = rules.waiting_for(state)
    if rules.name == "side-effects" and driver.random() < 0.05:
        offer = _trade_offer(rules, state, waiting[0], driver)
        if offer is not None:
            return offer
    for seat, bot in enumerate(players):
        if seat in waiting or not bot.reacts:
            continue
        if not rules.legal_moves(state, seat):
            continue
        move = bot.react(rules.view(state, seat))
        if move is not None:
            return seat, move
    seat = waiting[0]
    return seat, players[seat].choose(rules.view(state, seat))


def _trade_offer(rules: Any, state: Any, seat: int, driver: random.Random) -> tuple[int, Move] | None:
    """A random Side Effects trade offer from ``seat``, if it may offer one."""
    view = rules.view(state, seat)
    if not view.trade_partners:
        return None
    to = driver.choice(view.trade_partners)
    give = tuple(c.id for c in view.hand if driver.random() < 0.3)
    names = sorted({c.name for c in view.hand} | {"Therapy", "Episode", "Lithium"})
    want = tuple(driver.choice(names) for _ in range(driver.randrange(0, 2)))
    if not give and not want:
        want = ("Therapy",)
    offer_trade = next(cls for cls in rules.move_types() if cls.__name__ == "OfferTrade")
    return seat, offer_trade(to=to, give=give, want=want)


def _play_all(args: tuple[str, list[str]]) -> dict[str, str]:
    game, keys = args
    return {key: play(game, key) for key in keys}


def compute(game: str, keys: list[str], workers: int = 2) -> dict[str, str]:
    chunks = [keys[i :: workers * 4] for i in range(workers * 4)]
    out: dict[str, str] = {}
    with ProcessPoolExecutor(workers) as pool:
        for part in pool.map(_play_all, [(game, chunk) for chunk in chunks]):
            out.update(part)
    return {key: out[key] for key in keys}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="record the hashes instead of comparing")
    parser.add_argument("--game", action="append", help="only this game (may repeat)")
    args = parser.parse_args(argv)
    names = args.game or ["side-effects", "quack"]
    recorded = json.loads(RECORD.read_text()) if RECORD.exists() else {}
    failed = 0
    for game in names:
        hashes = compute(game, game_keys(game))
        if args.write:
            recorded[game] = hashes
            print(f"{game}: recorded {len(hashes)} games")
            continue
        want = recorded.get(game, {})
        differ = [k for k, h in hashes.items() if want.get(k) != h]
        failed += len(differ)
        print(f"{game}: {len(hashes) - len(differ)} of {len(hashes)} games the same")
        for key in differ[:20]:
            print(f"  differs: {key}")
    if args.write:
        RECORD.write_text(json.dumps(recorded, indent=0, sort_keys=True) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
