"""Issue 13: journals and seat tokens are the owner's alone, whatever the umask.

A journal holds the seed and every move, so another local user who can read
it rebuilds every hand mid-game; a seat token lets anyone play the seat.
"""

from __future__ import annotations

import argparse
import os
import stat
from pathlib import Path

import pytest

from quackbox import netcmd, savecmd
from quackbox.net import journal as jn
from quackbox.net import places
from quackbox.net.journal_writer import JournalWriter
from quackbox.net.tokens import TokenStore

pytestmark = pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX permissions")

HEADER = jn.Header(game="side-effects", seed=7, seats=2, names=("Ann", "Ben"))


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_fresh_games_folder_and_journal_are_private(tmp_path, umask_022):
    folder = tmp_path / "data" / "games"
    writer = JournalWriter.create_new(folder, HEADER, 1_700_000_000.0, sync=False)
    writer.close()
    assert mode(folder) == 0o700
    assert mode(writer.path) == 0o600
    assert jn.read(writer.path).header.seed == 7


def test_an_existing_loose_folder_is_tightened(tmp_path, umask_022):
    folder = tmp_path / "games"
    folder.mkdir(mode=0o755)
    os.chmod(folder, 0o777)
    writer = JournalWriter.create_new(folder, HEADER, 1_700_000_000.0, sync=False)
    writer.close()
    assert mode(folder) == 0o700 and mode(writer.path) == 0o600


def test_a_journal_others_can_read_or_write_is_refused_with_a_sentence(tmp_path, umask_022, capsys):
    writer = JournalWriter.create_new(tmp_path, HEADER, 1_700_000_000.0, sync=False)
    writer.close()
    for loose in (0o644, 0o640, 0o606, 0o620):
        os.chmod(writer.path, loose)
        with pytest.raises(jn.JournalError, match="other users.*chmod 600"):
            jn.read(writer.path)
    # quackbox games lists it with the sentence; --resume refuses it.
    assert savecmd.games_main(argparse.Namespace(dir=str(tmp_path))) == savecmd.EXIT_OK
    assert "can be read or changed by other users" in capsys.readouterr().out
    args = argparse.ArgumentParser()
    netcmd.add_host_args(args)
    status = netcmd.host_main(args.parse_args(["--headless", "--resume", str(writer.path)]))
    assert status == netcmd.EXIT_FAILED
    assert "other users" in capsys.readouterr().err
    os.chmod(writer.path, 0o600)
    assert jn.read(writer.path).header == jn.read(writer.path).header  # private again: used


def test_a_journal_in_a_folder_others_can_write_is_refused(tmp_path, umask_022):
    writer = JournalWriter.create_new(tmp_path / "g", HEADER, 1_700_000_000.0, sync=False)
    writer.close()
    os.chmod(tmp_path / "g", 0o777)
    with pytest.raises(jn.JournalError, match="folder other users can write to"):
        jn.read(writer.path)
    os.chmod(tmp_path / "g", 0o1777)  # sticky, like /tmp: nobody else may replace the file
    assert jn.read(writer.path).header.game == "side-effects"


def test_the_token_file_is_private(tmp_path, umask_022):
    folder = tmp_path / "state"
    folder.mkdir(mode=0o755)
    store = TokenStore(folder / "tokens.json")
    store.remember("ws://127.0.0.1:7117", "secret-token", name="Ann")
    assert mode(folder) == 0o700 and mode(folder / "tokens.json") == 0o600
    assert store.recall("ws://127.0.0.1:7117", "Ann") == "secret-token"
    os.chmod(folder / "tokens.json", 0o644)
    assert store.recall("ws://127.0.0.1:7117", "Ann") is None  # others could have read or planted it
    store.remember("ws://127.0.0.1:7117", "new-token", name="Ann")
    assert mode(folder / "tokens.json") == 0o600


def test_a_folder_of_another_user_is_not_used(tmp_path, monkeypatch):
    monkeypatch.setattr(os, "getuid", lambda: os.stat(tmp_path).st_uid + 1)
    with pytest.raises(PermissionError, match="belongs to another user"):
        places.private_dir(tmp_path)
    assert "another user" in places.exposed(tmp_path)
