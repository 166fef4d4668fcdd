"""The journal file: written move by move, read back exactly, damage handled."""

from __future__ import annotations

import asyncio
import os
import random
import struct
import sys
import threading
import time
import typing
import zlib
from pathlib import Path

import msgpack
import pytest

from quackbox.core import bots, games
from quackbox.core.play import next_move
from quackbox.net import journal as jn


def _play(game: str, seats: int, seed: int, path: Path, *, stop_after: int | None = None):
    """Play a bot game, journalling each move as the host would; return (state, moves)."""
    rules = games.get(game)
    options = rules.parse_options({})
    state = rules.new_game(seats=seats, options=options, seed=seed)
    header = jn.Header(game=game, seed=seed, seats=seats, names=tuple(f"P{s}" for s in range(seats)),
                       options={}, created=1_700_000_000.0, token_hashes=tuple(jn.token_hash(f"t{s}") for s in range(seats)))
    writer = jn.JournalWriter.create(path, header, sync=False)
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
    writer = jn.JournalWriter.resume(journal, sync=False)
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
    jn.JournalWriter.create(path, header, sync=False).close()
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
            payload = jn.msgpack.packb({"kind": "move", "seat": 0, "move": {"@": "EndTurn"}, "at": 0.0})
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
    """Hosts in one process write journals from several threads: each new
    journal takes a free name atomically, so none is refused or overwritten."""
    import threading

    header = jn.Header(game="quack", seed=1, seats=2, names=("a", "b"))
    when = 1_800_000_000.0
    made: list[Path] = []
    failed: list[BaseException] = []
    start = threading.Barrier(8)

    def begin() -> None:
        start.wait()
        try:
            for _ in range(5):
                writer = jn.JournalWriter.create_new(tmp_path, header, when, sync=False)
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
    last = jn.JournalWriter.create_new(tmp_path, header, when, sync=False)
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


# --- group commit ---------------------------------------------------------------------------

HEADER = jn.Header(game="side-effects", seed=1, seats=2, names=("A", "B"))


def _moves(count: int) -> list[tuple[int, typing.Any]]:
    """``count`` different moves (the journal does not replay them here)."""
    rules = games.get("side-effects")
    state = rules.new_game(seats=2, seed=1)
    legal = rules.legal_moves(state, rules.waiting_for(state)[0])
    assert len(legal) >= count
    return [(i % 2, move) for i, move in enumerate(legal[:count])]


class Syncs:
    """A commit's sync that notes which journal it synced."""

    def __init__(self) -> None:
        self.synced: list[str] = []

    def __call__(self, journal: jn.JournalWriter) -> None:
        journal.sync()
        self.synced.append(journal.path.name)


class LogSyncs:
    """A commit log's sync that notes which journals each sync covered."""

    def __init__(self) -> None:
        self.covered: list[list[str]] = []

    def __call__(self, commit_log: jn.CommitLog) -> None:
        names = sorted(journal.path.name for journal in commit_log.pending)
        commit_log.sync()
        self.covered.append(names)


def _appender(journal: jn.JournalWriter, seat: int, move: typing.Any):
    def job() -> jn.JournalWriter:
        journal.append_record(journal.move_record(seat, move), later=True)
        return journal
    return job


async def test_whom_a_record_tells_hears_in_the_turn_it_is_on_disk_before_the_future_s_callbacks(
        tmp_path: Path) -> None:
    """``told`` runs in the same callback that settles the record's future, with the
    record on disk, and before anything waiting on the future itself (which asyncio
    runs a turn later); one that fails keeps no other from hearing (both records share
    one trip and one sync)."""
    commit = jn.GroupCommit()
    journal = jn.JournalWriter.create(tmp_path / "j.qbj", HEADER)
    heard: list[str] = []
    moves = _moves(2)

    def told() -> None:
        heard.append(f"told, done={second.done()}, on disk: {len(jn.read(journal.path).moves)}")

    def fails() -> None:
        raise RuntimeError("a waiter that breaks")

    first = commit.write(_appender(journal, *moves[0]), told=fails)
    second = commit.write(_appender(journal, *moves[1]), told=told)
    first.add_done_callback(lambda _: heard.append("callback"))
    await asyncio.gather(first, second)
    assert heard == ["told, done=True, on disk: 2", "callback"]
    journal.close()


async def test_a_commit_counts_the_syncs_that_held_up_its_loop_and_their_time(tmp_path: Path) -> None:
    """``syncs`` and ``sync_seconds``: a new journal's own sync, then the log's (slowed here)."""

    def slow_log(commit_log: jn.CommitLog) -> None:
        time.sleep(0.02)
        commit_log.sync()

    commit = jn.GroupCommit(sync_log=slow_log)
    journal = jn.JournalWriter.create(tmp_path / "0.qbj", HEADER)
    first, second = _moves(2)
    await commit.write(_appender(journal, *first))  # a new journal's first records: its own sync
    assert commit.syncs == 1 and commit.sync_seconds > 0
    alone = commit.sync_seconds
    await commit.write(_appender(journal, *second))  # then the log's
    assert commit.syncs == 2 and commit.sync_seconds - alone >= 0.02
    journal.close()


async def test_records_of_one_turn_share_one_trip_and_each_journal_one_sync(tmp_path: Path) -> None:
    syncs = Syncs()
    commit = jn.GroupCommit(sync=syncs)
    journals = [jn.JournalWriter.create(tmp_path / f"{n}.qbj", HEADER) for n in range(3)]
    moves = _moves(12)
    # Handed over in one turn of the loop, the records of three journals interleaved.
    written = [commit.write(_appender(journals[i % 3], *move)) for i, move in enumerate(moves)]
    await asyncio.gather(*written)
    assert (commit.trips, commit.records) == (1, 12)
    assert sorted(syncs.synced) == ["0.qbj", "1.qbj", "2.qbj"]
    for n, journal in enumerate(journals):
        journal.close()
        assert jn.read(journal.path).moves == moves[n::3]  # each journal in the order handed over


async def test_after_their_first_trip_the_records_of_every_journal_in_a_trip_go_on_disk_with_one_sync(
        tmp_path: Path) -> None:
    """New journals sync themselves once (their names must reach the disk too);
    after that a trip's records, of every journal, share one sync: the commit log's."""
    syncs, log_syncs = Syncs(), LogSyncs()
    commit = jn.GroupCommit(sync=syncs, sync_log=log_syncs)
    journals = [jn.JournalWriter.create(tmp_path / f"{n}.qbj", HEADER) for n in range(3)]
    moves = _moves(12)
    await asyncio.gather(*(commit.write(_appender(journals[i % 3], *move)) for i, move in enumerate(moves[:3])))
    assert sorted(syncs.synced) == ["0.qbj", "1.qbj", "2.qbj"] and log_syncs.covered == []
    await asyncio.gather(*(commit.write(_appender(journals[i % 3], *move)) for i, move in enumerate(moves[3:])))
    assert len(syncs.synced) == 3 and log_syncs.covered == [["0.qbj", "1.qbj", "2.qbj"]]
    assert commit.trips == 2
    for n, journal in enumerate(journals):
        assert jn.read(journal.path).moves == moves[n::3]  # in the file already, before any checkpoint
    await commit.write(commit.close_logs)
    assert list(tmp_path.glob("*.qbl")) == []  # emptied into the journals, and gone
    for journal in journals:
        journal.close()


async def _a_host_that_loses_its_page_cache(tmp_path: Path, count: int) -> tuple[list[jn.JournalWriter], list, list[int]]:
    """Journals written through a commit (two trips past their first), then the
    host dies: its log is let go unlocked, and each journal file is cut back to
    what its own syncs put on disk, as a power cut may leave it. The journals,
    their moves, and the sizes they were cut to."""
    commit = jn.GroupCommit()
    journals = [jn.JournalWriter.create(tmp_path / f"{n}.qbj", HEADER) for n in range(count)]
    moves = _moves(3 * count)
    for turn in range(3):
        await asyncio.gather(*(commit.write(_appender(journal, *moves[turn * count + n]))
                               for n, journal in enumerate(journals)))
        if turn == 0:
            synced = [journal.path.stat().st_size for journal in journals]  # by each journal's own sync
    (commit_log,) = commit._logs.values()
    commit_log.abandon()
    for journal, size in zip(journals, synced):
        journal._file.close()
        os.truncate(journal.path, size)
    return journals, moves, synced


async def test_a_journal_that_lost_told_records_in_a_power_cut_gets_them_back_from_the_commit_log(
        tmp_path: Path) -> None:
    journals, moves, _sizes = await _a_host_that_loses_its_page_cache(tmp_path, 2)
    with open(journals[1].path, "ab") as torn:
        torn.write(b"\x00\x00\x01")  # and half a record nobody was told of
    assert [len(jn.read(journal.path).moves) for journal in journals] == [1, 1]
    notes = jn.recover(tmp_path)
    assert len(notes) == 2 and all("record(s) a crash took" in note for note in notes)
    for n, journal in enumerate(journals):
        record = jn.read(journal.path)
        assert record.moves == moves[n::2] and not record.dropped
    assert list(tmp_path.glob("*.qbl")) == []
    assert jn.recover(tmp_path) == []  # nothing left to do


async def test_recovery_leaves_a_living_host_s_log_alone_and_ignores_a_torn_last_entry(tmp_path: Path) -> None:
    commit = jn.GroupCommit()
    journal = jn.JournalWriter.create(tmp_path / "live.qbj", HEADER)
    for move in _moves(3):
        await commit.write(_appender(journal, *move))
    (live,) = tmp_path.glob("*.qbl")
    assert jn.recover(tmp_path) == [] and live.exists()  # its host holds its lock
    (commit_log,) = commit._logs.values()
    commit_log.abandon()
    good = jn.read(journal.path).good_length
    journal._file.close()
    os.truncate(journal.path, good - 10)  # the last told record torn off
    with open(live, "ab") as log_file:
        log_file.write(jn._frame(b"\x81\xa7journal\xa8live.qbj")[:-3])  # the host died writing an entry
    notes = jn.recover(tmp_path)
    assert notes == [f"{journal.path}: put back 1 record(s) a crash took, from a commit log"]
    assert len(jn.read(journal.path).moves) == 3 and not live.exists()


async def test_a_log_damaged_before_its_last_entry_is_kept_and_named_not_thrown_away(tmp_path: Path) -> None:
    journals, _moves_written, _sizes = await _a_host_that_loses_its_page_cache(tmp_path, 1)
    (log_path,) = tmp_path.glob("*.qbl")
    data = bytearray(log_path.read_bytes())
    data[len(jn.LOG_MAGIC) + 12] ^= 0xFF  # inside the first of its two entries
    log_path.write_bytes(bytes(data))
    notes = jn.recover(tmp_path)
    assert notes == [f"{log_path}: kept: damaged at byte {len(jn.LOG_MAGIC)} (a record fails its checksum)"]
    assert log_path.exists() and len(jn.read(journals[0].path).moves) == 1  # nothing guessed at

    # A well-made record that is no entry of ours, at the end: kept too.
    log_path.write_bytes(bytes(data[:len(jn.LOG_MAGIC)]) + jn._frame(msgpack.packb({"journal": "../x.qbj", "at": 0, "data": b"x"})))
    assert jn.recover(tmp_path)[0].endswith("(not an entry quackbox writes)") and log_path.exists()


async def test_a_journal_that_moved_on_since_the_log_is_not_overwritten(tmp_path: Path) -> None:
    journals, _moves_written, sizes = await _a_host_that_loses_its_page_cache(tmp_path, 1)
    other = b"someone else's records" * 10
    with open(journals[0].path, "ab") as later:
        later.write(other)  # another game wrote where the log's entries go
    notes = jn.recover(tmp_path)
    assert len(notes) == 1 and "other records" in notes[0]
    assert journals[0].path.read_bytes()[sizes[0]:] == other


async def test_a_long_log_is_emptied_into_its_journals(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(jn, "LOG_LIMIT", 200)
    syncs = Syncs()
    commit = jn.GroupCommit(sync=syncs)
    journal = jn.JournalWriter.create(tmp_path / "j.qbj", HEADER)
    moves = _moves(8)
    for move in moves:
        await commit.write(_appender(journal, *move))
    (commit_log,) = commit._logs.values()
    assert commit_log.size <= 200 and len(syncs.synced) >= 2  # the first trip, and checkpoints since
    assert os.path.getsize(commit_log.path) == commit_log.size
    journal.close()
    assert jn.read(journal.path).moves == moves


async def test_a_failed_log_sync_reaches_its_trip_s_records_and_their_journals_take_no_more(
        tmp_path: Path) -> None:
    def broken(commit_log: jn.CommitLog) -> None:
        raise OSError(5, "Input/output error")

    commit = jn.GroupCommit(sync_log=broken)
    journal = jn.JournalWriter.create(tmp_path / "j.qbj", HEADER)
    moves = _moves(3)
    await commit.write(_appender(journal, *moves[0]))  # its first trip: its own sync
    with pytest.raises(OSError, match="Input/output"):
        await commit.write(_appender(journal, *moves[1]))
    with pytest.raises(jn.JournalError, match="could not be put on disk"):
        await commit.write(_appender(journal, *moves[2]))
    assert commit._logs == {}  # let go; the next trip that needs one makes another


async def test_a_trip_that_fails_by_a_bug_reaches_its_records_and_the_next_trip_still_runs(
        tmp_path: Path, monkeypatch) -> None:
    commit = jn.GroupCommit()
    journal = jn.JournalWriter.create(tmp_path / "j.qbj", HEADER)
    moves = _moves(3)
    await commit.write(_appender(journal, *moves[0]))
    real = jn.GroupCommit._sync_entries

    def broken(self, commit_log, entries):
        monkeypatch.setattr(jn.GroupCommit, "_sync_entries", real)
        raise RuntimeError("a bug in a trip")

    monkeypatch.setattr(jn.GroupCommit, "_sync_entries", broken)
    with pytest.raises(RuntimeError, match="a bug in a trip"):
        await asyncio.wait_for(commit.write(_appender(journal, *moves[1])), 10)
    await asyncio.wait_for(commit.write(_appender(journal, *moves[2])), 10)
    journal.close()
    assert len(jn.read(journal.path).moves) == 3


async def test_a_record_is_on_disk_once_the_turn_it_was_handed_over_in_is_over(tmp_path: Path) -> None:
    """Each turn's records make their own trip at the end of that turn: a
    record never waits for a later turn's, nor for anything off the loop."""
    syncs, log_syncs = Syncs(), LogSyncs()
    commit = jn.GroupCommit(sync=syncs, sync_log=log_syncs)
    journal = jn.JournalWriter.create(tmp_path / "j.qbj", HEADER)
    moves = _moves(4)
    for n, move in enumerate(moves, start=1):
        written = commit.write(_appender(journal, *move))
        assert not written.done() and journal.moves == n - 1  # nothing before the turn is over
        await asyncio.sleep(0)  # the turn ends: the trip runs before this task does again
        assert written.done() and written.exception() is None
        assert len(jn.read(journal.path).moves) == n
    # The new journal's first trip by its own sync; the others, each by a sync of the log.
    assert (commit.trips, commit.records) == (4, 4) and syncs.synced == ["j.qbj"]
    assert log_syncs.covered == [["j.qbj"]] * 3
    journal.close()
    assert jn.read(journal.path).moves == moves


async def test_a_journal_s_records_are_told_once_its_own_sync_returns_before_the_next_journal_s_sync(
        tmp_path: Path) -> None:
    """In one trip, the first journal's waiters hear (and so its frames go out)
    before the second journal is synced: a move waits for its own sync only."""
    heard: list[str] = []

    def sync(journal: jn.JournalWriter) -> None:
        journal.sync()
        heard.append(f"synced {journal.path.stem}")

    commit = jn.GroupCommit(sync=sync)
    journals = {name: jn.JournalWriter.create(tmp_path / f"{name}.qbj", HEADER) for name in ("first", "second")}
    seat, move = _moves(1)[0]
    written = [commit.write(_appender(journal, seat, move), told=lambda name=name: heard.append(f"told {name}"))
               for name, journal in journals.items()]
    await asyncio.gather(*written)
    assert heard == ["synced first", "told first", "synced second", "told second"]
    assert commit.trips == 1
    for journal in journals.values():
        journal.close()
        assert len(jn.read(journal.path).moves) == 1


async def test_a_commit_starts_no_thread_and_leaves_python_s_switch_interval_alone(tmp_path: Path) -> None:
    """The trips run on the loop: no hand-over to a thread, so nothing to
    tune for one either."""
    before = (threading.active_count(), sys.getswitchinterval())
    commit = jn.GroupCommit()
    journal = jn.JournalWriter.create(tmp_path / "j.qbj", HEADER)
    for move in _moves(3):
        await commit.write(_appender(journal, *move))
        assert (threading.active_count(), sys.getswitchinterval()) == before
    journal.close()
    assert len(jn.read(journal.path).moves) == 3


def test_records_written_for_later_go_to_the_file_in_one_call_at_the_sync(tmp_path: Path) -> None:
    writer = jn.JournalWriter.create(tmp_path / "j.qbj", HEADER)
    header_only = writer.path.stat().st_size
    assert header_only > 0  # a journal on disk always begins with its header
    calls: list[int] = []
    real_write = writer._file.write

    def counting(data: bytes) -> int:
        calls.append(len(data))
        return real_write(data)

    writer._file.write = counting  # type: ignore[method-assign]
    moves = _moves(5)
    for seat, move in moves:
        writer.append_record(writer.move_record(seat, move), later=True)
    assert writer.path.stat().st_size == header_only and calls == []
    writer.sync()
    assert len(calls) == 1 and writer.path.stat().st_size == header_only + calls[0] == writer.bytes
    writer.close()
    assert jn.read(writer.path).moves == moves


async def test_a_failed_record_or_sync_reaches_only_the_records_it_touched(tmp_path: Path) -> None:
    def sync(journal: jn.JournalWriter) -> None:
        if journal.path.name == "bad-disk.qbj":
            raise OSError(5, "Input/output error")
        journal.sync()

    commit = jn.GroupCommit(sync=sync)
    good = jn.JournalWriter.create(tmp_path / "good.qbj", HEADER)
    bad = jn.JournalWriter.create(tmp_path / "bad-disk.qbj", HEADER)
    seat, move = _moves(1)[0]

    def broken() -> jn.JournalWriter:
        raise jn.JournalError(tmp_path / "x.qbj", "cannot be written")

    written = [commit.write(_appender(good, seat, move)), commit.write(_appender(bad, seat, move)), commit.write(broken)]
    results = await asyncio.gather(*written, return_exceptions=True)
    assert results[0] is None
    assert isinstance(results[1], OSError) and isinstance(results[2], jn.JournalError)
    good.close()
    assert len(jn.read(good.path).moves) == 1


def test_a_writer_syncs_what_it_wrote_and_refuses_more_after_a_failed_sync(tmp_path: Path, monkeypatch) -> None:
    calls: list[int] = []
    monkeypatch.setattr(jn, "_datasync", calls.append)
    writer = jn.JournalWriter.create(tmp_path / "j.qbj", HEADER)
    seat, move = _moves(1)[0]
    writer.append_record(writer.move_record(seat, move), later=True)
    assert calls == []  # written, not yet synced
    writer.sync()
    writer.sync()  # nothing new: no second sync
    assert len(calls) == 1

    def broken(fd: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(jn, "_datasync", broken)
    writer.append_record(writer.move_record(seat, move), later=True)
    with pytest.raises(OSError):
        writer.sync()
    with pytest.raises(jn.JournalError, match="could not be put on disk"):
        writer.append(seat, move)
    writer.close()
