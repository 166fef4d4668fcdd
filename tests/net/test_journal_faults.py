"""The journal when the disk fails: nothing anyone saw is lost, the table pauses and says why,
and play goes on by itself once the disk takes the records.

Faults are injected at the journal's own seam (a :class:`Disk` whose calls fail with a
chosen errno), never by patching ``os``; one test runs a real host under a file-size limit.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import re
import resource
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from quackbox.core import bots as core_bots
from quackbox.core import games
from quackbox.core.bots import decide
from quackbox.core.side_effects import EndTurn
from quackbox.net import journal as jn
from quackbox.net.client import Client
from quackbox.net.host import Host, HostConfig
from quackbox.net.journal_writer import Disk, JournalWriter
from quackbox.net.protocol import Error, ErrorCode, Paused, View
from quackbox.net.saver import Record, Saver, Start, trouble_sentence
from tests.waiting import Changes, until

ERRNOS = [errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EACCES, errno.EPERM, errno.EROFS, errno.EIO]
HEADER = jn.Header(game="side-effects", seed=1, seats=2, names=("A", "B"))


class Faulty(Disk):
    """A disk whose ``where`` call (create, write, sync, ...) fails with ``code`` while it is
    failing; a failing write first writes half of what it was given (a torn write)."""

    def __init__(self) -> None:
        self.where = ""
        self.code = 0
        self.left = 0
        """Failures still to come (-1: until healed)."""
        self.failures = 0

    def fail(self, where: str, code: int, times: int = -1) -> None:
        self.where, self.code, self.left = where, code, times

    def heal(self) -> None:
        self.left = 0

    def _maybe_fail(self, where: str) -> None:
        if self.where == where and self.left != 0:
            self.left -= 1 if self.left > 0 else 0
            self.failures += 1
            raise OSError(self.code, os.strerror(self.code))

    def create(self, path: Path) -> int:
        self._maybe_fail("create")
        return super().create(path)

    def write(self, fd: int, data: bytes, offset: int) -> int:
        if self.where == "write" and self.left != 0 and len(data) > 1:
            return super().write(fd, data[: len(data) // 2], offset)  # torn: the rest fails next
        self._maybe_fail("write")
        return super().write(fd, data, offset)

    def sync(self, fd: int) -> None:
        self._maybe_fail("sync")
        super().sync(fd)


def moves(count: int) -> list[tuple[int, Any]]:
    """``count`` moves of a real game (so the journal replays)."""
    rules = games.get("side-effects")
    state = rules.new_game(seats=2, options=rules.parse_options({}), seed=1)
    brains = [core_bots.make("side-effects", "heuristic", s) for s in range(2)]
    out = []
    while len(out) < count:
        seat = rules.waiting_for(state)[0]
        move = decide(brains[seat], rules.view(state, seat))
        rules.apply(state, seat, move)
        out.append((seat, move))
    return out


@pytest.mark.parametrize("where", ["write", "sync"])
@pytest.mark.parametrize("code", ERRNOS, ids=[errno.errorcode[c] for c in ERRNOS])
def test_a_failed_write_or_sync_loses_nothing_and_the_next_commit_puts_all_on_disk(tmp_path, code, where):
    """A commit that fails raises the errno and counts nothing as on disk; the file holds only
    what is; once the disk takes records again one commit puts every record held there, once."""
    disk = Faulty()
    path = tmp_path / "game.qbj"
    played = moves(6)
    writer = JournalWriter.create(path, HEADER, disk=disk)
    for seat, move in played[:3]:
        writer.append(seat, move)
    durable = writer.durable
    disk.fail(where, code, times=2)
    codec = writer.codec
    for seat, move in played[3:5]:
        writer.add_move(jn.move_record(codec, seat, move))
        with pytest.raises(OSError) as caught:
            writer.commit()
        assert caught.value.errno == code
        assert writer.durable == durable
        assert jn.read(path).moves == played[:3]  # cut back to what is on disk: no torn tail
    writer.append(*played[5])  # the disk takes records again
    writer.close()
    record = jn.read(path)
    assert record.moves == played and record.dropped == ""
    assert disk.failures == 2


@pytest.mark.parametrize("code", [errno.EACCES, errno.EROFS, errno.ENOSPC])
def test_a_journal_that_cannot_be_made_is_made_by_the_next_commit(tmp_path, code):
    disk = Faulty()
    disk.fail("create", code, times=1)
    writer = JournalWriter.new(tmp_path, HEADER, 1_800_000_000.0, disk=disk)
    with pytest.raises(OSError):
        writer.commit()
    assert writer.path is None and list(tmp_path.iterdir()) == []
    writer.commit()
    writer.append(*moves(1)[0])
    writer.close()
    assert jn.read(writer.path).moves == moves(1)


@pytest.mark.parametrize(
    ("exc", "words"),
    [
        (OSError(errno.ENOSPC, "No space left on device"), "its disk is full"),
        (OSError(errno.EDQUOT, "Disk quota exceeded"), "quota"),
        (OSError(errno.EFBIG, "File too large"), "largest size"),
        (OSError(errno.EACCES, "Permission denied"), "may not write"),
        (OSError(errno.EROFS, "Read-only file system"), "read-only"),
        (OSError(errno.EIO, "Input/output error"), "input/output error"),
    ],
)
def test_each_fault_is_named_in_one_sentence(exc, words):
    sentence = trouble_sentence(exc)
    assert sentence.startswith("The host cannot save the game: ") and words in sentence
    assert sentence.endswith("Play waits until it can; nothing is lost.")


async def test_the_saver_says_once_why_it_cannot_save_tries_again_and_says_when_it_can(tmp_path, caplog):
    disk = Faulty()
    told: list[str | None] = []
    trouble = Changes()
    caplog.set_level(logging.WARNING, logger="quackbox.journal")
    saver = Saver(tmp_path, on_trouble=lambda said: (told.append(said), trouble.changed()), disk=disk, retry=0.01)
    saver.start()
    played = moves(3)
    codec = JournalWriter.new(tmp_path, HEADER, 0.0).codec
    async with asyncio.timeout(10):
        await saver.save(Start(HEADER, 1_800_000_000.0))
        await saver.save(Record(jn.move_record(codec, *played[0])))
        disk.fail("sync", errno.ENOSPC, times=5)
        waiting = saver.save(Record(jn.move_record(codec, *played[1])))
        await trouble.until(lambda: told, what="the trouble told")
        assert not waiting.done()  # not on disk: whoever waits for it waits on
        assert len(jn.read(saver.path).moves) == 1
        await waiting
        await saver.save(Record(jn.move_record(codec, *played[2])))
        await saver.close(5)
    assert told == [trouble_sentence(OSError(errno.ENOSPC, "")), None]  # said once, not at every try
    assert disk.failures == 5
    assert jn.read(tmp_path / next(p.name for p in tmp_path.iterdir())).moves == played
    lines = [r for r in caplog.records if r.name == "quackbox.journal"]
    assert [r.levelno for r in lines] == [logging.ERROR, logging.WARNING]  # the failure, then the recovery


class Hanging(Disk):
    """A disk whose syncs wait until ``answer`` is set."""

    def __init__(self) -> None:
        self.answer = threading.Event()

    def sync(self, fd: int) -> None:
        self.answer.wait(30)
        super().sync(fd)


async def test_a_disk_that_does_not_answer_is_trouble_until_it_does(tmp_path):
    disk = Hanging()
    told: list[str | None] = []
    trouble = Changes()
    saver = Saver(
        tmp_path, on_trouble=lambda said: (told.append(said), trouble.changed()), disk=disk, deadline=0.05, retry=0.01
    )
    saver.start()
    async with asyncio.timeout(10):
        started = saver.save(Start(HEADER, 1_800_000_000.0))
        await trouble.until(lambda: told, what="the trouble told")
        assert "not answering" in told[0] and not started.done()
        disk.answer.set()
        await started
        await saver.close(5)
    assert told[-1] is None


# --- a host whose disk fails ----------------------------------------------------------------


class Seat:
    """A client that keeps what it is told."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.views: list[View] = []
        self.paused: list[str] = []
        self.errors: list[Error] = []
        self.task = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for message in self.client:
            if isinstance(message, View):
                self.views.append(message)
            elif isinstance(message, Paused):
                self.paused.append(message.reason)
            elif isinstance(message, Error):
                self.errors.append(message)

    @property
    def seq(self) -> int:
        return self.views[-1].seq if self.views else -1


async def test_a_table_whose_disk_fails_pauses_tells_everyone_refuses_moves_and_goes_on(tmp_path, caplog):
    disk = Faulty()
    caplog.set_level(logging.ERROR, logger="quackbox.journal")
    config = HostConfig(
        game="side-effects",
        seats=2,
        headless=True,
        autostart=True,
        bot_delay=0.0,
        seed=5,
        bind="127.0.0.1",
        port=0,
        journal_dir=str(tmp_path),
    )
    brains = [core_bots.make("side-effects", "heuristic", s) for s in range(2)]
    async with asyncio.timeout(60):
        async with Host(config, disk=disk) as host:
            seats = [Seat(await Client.connect(host.url, name=f"P{i}")) for i in range(2)]
            watcher = Seat(await Client.connect(host.url, name="W", spectate=True))
            everyone = [*seats, watcher]

            async def step() -> Seat:
                """The seat the game waits for makes its move from its latest view."""
                await until(lambda: all(s.views for s in seats) and len({s.seq for s in seats}) == 1, what="views")
                for seat in seats:
                    view = seat.views[-1]
                    if view.view.seat in view.view.waiting_for and view.view.legal:
                        await seat.client.move(decide(brains[view.view.seat], view.view), view.seq)
                        return seat
                raise AssertionError("nobody to move")

            for n in range(3):
                await step()
                await until(lambda n=n: all(s.seq == n + 1 for s in everyone), what="the move told")
            disk.fail("write", errno.ENOSPC)
            mover = await step()
            await until(lambda: all(s.paused for s in everyone), what="everyone told of the pause")
            sentence = trouble_sentence(OSError(errno.ENOSPC, ""))
            assert all(s.paused == [sentence] for s in everyone)
            assert all(s.seq == 3 for s in everyone)  # the move is held: nobody hears of it
            assert len(jn.read(host.journal_path).moves) == 3
            # A move sent meanwhile is refused, saying why.
            other = next(s for s in seats if s is not mover)
            await other.client.move(EndTurn(), other.seq)
            await until(lambda: other.errors, what="the refusal")
            assert other.errors[-1].code == ErrorCode.PAUSED and other.errors[-1].message == sentence
            assert host.table.seq == 4
            disk.heal()
            await until(lambda: all(s.paused[-1:] == [""] and s.seq == 4 for s in everyone), what="play goes on")
            assert len(jn.read(host.journal_path).moves) == 4
            for n in range(4, 7):
                await step()
                await until(lambda n=n: all(s.seq == n + 1 for s in everyone), what="the move told")
            path = host.journal_path
            for seat in everyone:
                await seat.client.close()
    record = jn.read(path)
    assert len(record.moves) == host.table.seq == 7
    errors = [r for r in caplog.records if r.name == "quackbox.journal" and r.levelno >= logging.ERROR]
    assert len(errors) == 1  # once, however many tries


@pytest.mark.skipif(not hasattr(resource, "RLIMIT_FSIZE"), reason="no file-size limit on this system")
async def test_a_real_host_at_its_file_size_limit_pauses_and_a_kill_loses_nothing_seen(tmp_path):
    """A real host process under RLIMIT_FSIZE 4096: its journal stops growing, the table
    pauses and says why (the process lives on); killed then, its journal holds every move
    anyone saw."""
    folder = tmp_path / "games"
    env = dict(os.environ, QUACKBOX_STATE_DIR=str(tmp_path / "state"), QUACKBOX_DATA_DIR=str(tmp_path / "data"))
    limit = 4096

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "quackbox",
            "host",
            "--headless",
            "--bind",
            "127.0.0.1",
            "--game",
            "quack",
            "--seats",
            "4",
            "--bots",
            "4",
            "--autostart",
            "--bot-delay",
            "0.002",
            "--port",
            "0",
            "--seed",
            "4",
            "--journal-dir",
            str(folder),
            "-o",
            "round-limit=100",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
        preexec_fn=limited,
    )
    try:
        port = _port_of(proc)
        watcher = Seat(await Client.connect(f"ws://127.0.0.1:{port}", name="W", spectate=True, reconnect=False))
        await until(lambda: watcher.paused, what="the pause", timeout=60)
        assert "largest size" in watcher.paused[0]
        assert proc.poll() is None  # the host lives on, paused
        seen = watcher.seq
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        await watcher.client.close()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    (path,) = folder.glob("*.qbj")
    assert path.stat().st_size <= limit
    record = jn.read(path)
    assert record.dropped == "" and len(record.moves) >= seen > 0


def _port_of(proc: subprocess.Popen) -> int:
    assert proc.stdout is not None
    for line in proc.stdout:
        found = re.search(r"on port (\d+)", line)
        if found:
            threading.Thread(target=proc.stdout.read, daemon=True).start()
            return int(found.group(1))
    raise AssertionError(f"the host did not start: exit {proc.wait()}")
