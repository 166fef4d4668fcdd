"""The journal file: written move by move, read back exactly, damage handled."""

from __future__ import annotations

import random
import struct
import threading
import typing
import zlib
from pathlib import Path

import msgpack
import pytest

from quackbox.core import bots, games
from quackbox.core.play import next_move
from quackbox.net import journal as jn
from quackbox.net.journal_writer import JournalWriter


def _play(game: str, seats: int, seed: int, path: Path, *, stop_after: int | None = None):
    """Play a bot game, journalling each move as the host would; return (state, moves)."""
    rules = games.get(game)
    options = rules.parse_options({})
    state = rules.new_game(seats=seats, options=options, seed=seed)
    header = jn.Header(
        game=game,
        seed=seed,
        seats=seats,
        names=tuple(f"P{s}" for s in range(seats)),
        options={},
        created=1_700_000_000.0,
        token_hashes=tuple(jn.token_hash(f"t{s}") for s in range(seats)),
    )
    writer = JournalWriter.create(path, header, sync=False)
    table = [bots.make(game, "heuristic", seed * 10 + s) for s in range(seats)]
    moves = []
    while rules.outcome(state) is None and (stop_after is None or len(moves) < stop_after):
        seat, move = next_move(rules, state, table)
        rules.apply(state, seat, move)
        writer.append(seat, move)
        moves.append((seat, move))
    if rules.outcome(state) is not None:
        writer.finish(rules.outcome(state))
    writer.close()
    return state, moves


@pytest.mark.parametrize("game", ["side-effects", "quack"])
def test_journal_replays_to_the_live_final_state(tmp_path: Path, game: str) -> None:
    """Many seeded games: the journal rebuilds exactly the state the live game reached."""
    rules = games.get(game)
    for seed in range(12):
        seats = 2 + seed % 5
        path = tmp_path / f"{game}-{seed}.qbj"
        live, moves = _play(game, seats, seed, path)
        journal = jn.read(path)
        assert journal.moves == moves
        assert journal.finished and journal.outcome == rules.outcome(live)
        rebuilt = jn.rebuild(journal)
        for seat in range(seats):
            assert rules.view(rebuilt, seat) == rules.view(live, seat)
        assert rebuilt.rng.getstate() == live.rng.getstate()


def test_header_keeps_what_deals_the_game(tmp_path: Path) -> None:
    path = tmp_path / "g.qbj"
    _play("side-effects", 3, 5, path, stop_after=4)
    header = jn.read(path).header
    assert (header.game, header.seed, header.seats, header.names) == ("side-effects", 5, 3, ("P0", "P1", "P2"))
    assert header.token_hashes[1] == jn.token_hash("t1") and "t1" not in path.read_bytes().decode("latin-1")


def test_torn_last_record_is_dropped_and_reported(tmp_path: Path) -> None:
    """A host killed mid-write leaves half a record: drop it, keep every whole move."""
    path = tmp_path / "g.qbj"
    _, moves = _play("side-effects", 3, 7, path, stop_after=20)
    whole = path.read_bytes()
    path.write_bytes(whole[:-5])
    journal = jn.read(path)
    assert journal.moves == moves[:-1]
    assert "dropped" in journal.dropped and not journal.finished


def test_resuming_cuts_the_torn_tail_and_appends(tmp_path: Path) -> None:
    path = tmp_path / "g.qbj"
    _, moves = _play("side-effects", 3, 7, path, stop_after=20)
    path.write_bytes(path.read_bytes()[:-3])
    journal = jn.read(path)
    writer = JournalWriter.resume(journal, sync=False)
    state = jn.rebuild(journal)
    rules = games.get("side-effects")
    seat = rules.waiting_for(state)[0]
    move = rules.legal_moves(state, seat)[0]
    rules.apply(state, seat, move)
    writer.append(seat, move)
    writer.close()
    again = jn.read(path)
    assert again.dropped == "" and again.moves == moves[:-1] + [(seat, move)]


def test_damage_before_the_end_is_refused_by_name(tmp_path: Path) -> None:
    path = tmp_path / "broken.qbj"
    _play("side-effects", 3, 7, path, stop_after=20)
    data = bytearray(path.read_bytes())
    data[len(jn.MAGIC) + 40] ^= 0xFF  # inside an early record
    path.write_bytes(bytes(data))
    with pytest.raises(jn.JournalError, match="broken.qbj.*damaged at byte"):
        jn.read(path)


def test_newer_format_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "future.qbj"
    header = jn.Header(game="quack", seed=1, seats=2, names=("a", "b"), format=jn.FORMAT + 1)
    JournalWriter.create(path, header, sync=False).close()
    with pytest.raises(jn.JournalError, match="future.qbj.*newer than this quackbox"):
        jn.read(path)


def test_not_a_journal_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "notes.qbj"
    path.write_text("shopping list\n")
    with pytest.raises(jn.JournalError, match="notes.qbj.*not a quackbox journal"):
        jn.read(path)
    with pytest.raises(jn.JournalError, match="no such file"):
        jn.read(tmp_path / "missing.qbj")


def test_a_move_that_does_not_replay_is_refused(tmp_path: Path) -> None:
    """A journal edited by hand (a valid record, an illegal move) is named, not crashed on."""
    path = tmp_path / "edited.qbj"
    _play("side-effects", 3, 7, path, stop_after=3)
    from quackbox.core.side_effects import EndTurn

    with open(path, "ab") as handle:
        for _ in range(3):  # the same seat ending its turn three times cannot all be legal
            payload = msgpack.packb({"kind": "move", "seat": 0, "move": {"@": "EndTurn"}, "at": 0.0})
            handle.write(struct.pack(">II", len(payload), zlib.crc32(payload)) + payload)
    journal = jn.read(path)
    assert journal.moves[-1] == (0, EndTurn())
    with pytest.raises(jn.JournalError, match="edited.qbj: move \\d+ does not replay"):
        jn.rebuild(journal)


def test_garbage_after_the_magic_never_raises_anything_else(tmp_path: Path) -> None:
    """Fuzz: any bytes are read as a journal or refused with JournalError."""
    rng = random.Random(3)
    good = tmp_path / "good.qbj"
    _play("quack", 3, 2, good, stop_after=15)
    data = good.read_bytes()
    for i in range(300):
        blob = bytearray(data[: rng.randrange(len(jn.MAGIC), len(data) + 1)])
        for _ in range(rng.randrange(4)):
            if len(blob) > len(jn.MAGIC):
                blob[rng.randrange(len(jn.MAGIC), len(blob))] = rng.randrange(256)
        path = tmp_path / f"f{i}.qbj"
        path.write_bytes(bytes(blob))
        try:
            journal = jn.read(path)
        except jn.JournalError:
            continue
        try:
            jn.rebuild(journal)
        except jn.JournalError:
            pass


def test_games_begun_in_the_same_second_get_their_own_files(tmp_path: Path) -> None:
    """Hosts on one machine begin games at the same moment: each new journal
    takes a free name atomically, so none is refused or overwritten."""

    header = jn.Header(game="quack", seed=1, seats=2, names=("a", "b"))
    when = 1_800_000_000.0
    made: list[Path] = []
    failed: list[BaseException] = []
    start = threading.Barrier(8)

    def begin() -> None:
        start.wait()
        try:
            for _ in range(5):
                writer = JournalWriter.create_new(tmp_path, header, when, sync=False)
                made.append(writer.path)
                writer.close()
        except BaseException as exc:  # noqa: BLE001 - reported below
            failed.append(exc)

    threads = [threading.Thread(target=begin) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failed
    assert len(made) == len(set(made)) == 40
    assert all(jn.read(path).header.seed == 1 for path in made)
    last = JournalWriter.create_new(tmp_path, header, when, sync=False)
    last.close()
    assert last.path.name.endswith("-41.qbj")


def annotations_within(ann: typing.Any):
    """``ann`` and every annotation inside it (the arms of a union, the items of a tuple)."""
    yield ann
    for arg in typing.get_args(ann):
        yield from annotations_within(arg)


@pytest.mark.parametrize("game", sorted(games.GAMES))
def test_no_move_holds_a_card_so_cards_by_id_leave_journals_as_they_were(game):
    """A journal stores moves as the wire encodes them; cards travel by id
    (``wire_refs``), but moves name cards by plain int ids already, so a
    journal's records, and format 1, are the same as before cards did."""
    rules = games.get(game)
    cards = set(rules.wire_refs())
    assert cards
    for move in rules.move_types():
        for name, ann in typing.get_type_hints(move).items():
            assert not cards & set(annotations_within(ann)), f"{move.__name__}.{name} holds a card"


def test_a_format_1_journal_still_reads_and_a_format_2_one_keeps_the_host_s_notes(tmp_path: Path) -> None:
    """Journals written before the host's notes (format 1) read as ever; notes come back in order."""
    played = _play("side-effects", 3, 7, tmp_path / "new.qbj", stop_after=4)[1]
    old = tmp_path / "old.qbj"
    header = jn.Header(game="side-effects", seed=7, seats=3, names=("P0", "P1", "P2"), format=1)
    writer = JournalWriter.create(old, header, sync=False)
    for seat, move in played:
        writer.append(seat, move)
    writer.close()
    record = jn.read(old)
    assert record.header.format == 1 and record.moves == played and record.removed == [] and record.muted == {}
    noted = tmp_path / "noted.qbj"
    writer = JournalWriter.create(
        noted, jn.Header(game="side-effects", seed=7, seats=3, names=("P0", "P1", "P2")), sync=False
    )
    writer.append(*played[0])
    writer.add_note(jn.note_record("removed", 2, token_hash="ab" * 32))
    writer.add_note(jn.note_record("muted", 1, muted=True))
    writer.add_note(jn.note_record("muted", 1, muted=False))
    writer.add_note(jn.note_record("removed", None, token_hash="cd" * 32))
    writer.append(*played[1])
    writer.close()
    record = jn.read(noted)
    assert record.moves == played[:2]
    assert record.removed == [(2, "ab" * 32), (None, "cd" * 32)] and record.muted == {1: False}
