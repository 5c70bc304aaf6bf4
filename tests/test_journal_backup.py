"""`floord journal backup` and `restore`: what is lost, what is kept, what is refused.

A daemon stand-in (`test_journal_cli.Writer`) keeps writing while backups are taken;
the end to end run with a real daemon and a spinning wheel is
`test_journal_backup_system.py`.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from test_journal_cli import STREAMS, build, live  # noqa: F401 (the fixture)

from floord.cli.main import main
from floord.journal.backup import BackupError, Head, kept_backups, take_backup, to_remove
from floord.journal.restore import Loss, RestoreError, losses, restore_journal
from floord.journal.store import Journal, JournalInUse

pytestmark = pytest.mark.unit

NOW = datetime(2026, 12, 4, 3, 30, tzinfo=UTC)


def chain(*hashes: str) -> dict[int, str]:
    """A stream's events by seq: seq 1 holds the first hash given."""
    return dict(enumerate(hashes, start=1))


def lookup(streams: dict[str, dict[int, str]]):
    return lambda stream, seq: streams.get(stream, {}).get(seq)


def heads(streams: dict[str, dict[int, str]]) -> dict[str, Head]:
    return {s: Head(max(c), c[max(c)]) for s, c in streams.items()}


def test_nothing_is_lost_over_an_older_or_equal_journal() -> None:
    backup = {"RL-01": chain("a", "b", "c"), "RL-01/devices/wheel": chain("x", "y")}
    for current in (backup, {"RL-01": chain("a", "b"), "RL-01/devices/wheel": chain("x")}):
        assert losses(heads(current), heads(backup), lookup(current), lookup(backup)) == []


def test_a_journal_ahead_of_the_backup_loses_what_follows_its_head() -> None:
    backup = {"RL-01": chain("a", "b")}
    current = {"RL-01": chain("a", "b", "c", "d"), "RL-02": chain("p")}
    found = losses(heads(current), heads(backup), lookup(current), lookup(backup))
    assert found == [Loss("RL-01", 3, 4, False), Loss("RL-02", 1, 1, False)]
    assert found[0].describe() == "RL-01 seq 3..4 (2 events)"


def test_a_fork_is_found_where_it_starts() -> None:
    backup = {"RL-01": chain("a", "b", "c", "d", "e", "f")}
    same_seq = {"RL-01": chain("a", "b", "c", "d", "e", "F")}
    earlier = {"RL-01": chain("a", "b", "C", "D")}  # behind the backup, and forked at 3
    ahead = {"RL-01": chain("a", "B", "C", "D", "E", "F", "G", "H")}
    for current, first in ((same_seq, 6), (earlier, 3), (ahead, 2)):
        found = losses(heads(current), heads(backup), lookup(current), lookup(backup))
        assert found == [Loss("RL-01", first, max(current["RL-01"]), True)], found
    assert "a fork" in Loss("RL-01", 6, 6, True).describe()


def test_a_pruned_seq_counts_as_agreeing() -> None:
    backup = {"RL-01": chain("a", "b", "c")}
    current = {"RL-01": {3: "c", 4: "d"}}  # seqs 1..2 pruned under retention
    found = losses(heads(current), heads(backup), lookup(current), lookup(backup))
    assert found == [Loss("RL-01", 4, 4, False)]


def test_retention_keeps_the_newest_and_only_counts_its_own_names(tmp_path: Path) -> None:
    journal = tmp_path / "journal.db"
    _small_journal(journal)
    folder = tmp_path / "backups"
    folder.mkdir()
    other = [folder / "journal-notes.db", folder / "other-20261201T000000Z.db"]
    for path in other:
        path.write_text("not a backup of this journal")
    taken = []
    for day in range(4):
        done = take_backup(journal, f"{folder}/", keep=2, now=NOW + timedelta(days=day))
        taken.append(done.path)
    assert [p.name for p in kept_backups(folder, journal)] == [
        "journal-20261206T033000Z.db",
        "journal-20261207T033000Z.db",
    ]
    assert done.removed == [taken[1]]  # the first went when the third came
    assert all(p.exists() for p in other)
    assert to_remove(taken, 5) == [] and to_remove(taken, 1) == taken[:3]
    with pytest.raises(ValueError):
        to_remove(taken, 0)


def test_a_backup_of_a_live_journal_verifies_and_is_as_private_as_it(
    live: Path,  # noqa: F811 (the fixture)
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    os.chmod(live, 0o600)
    for n in range(3):
        out = tmp_path / f"backup-{n}.db"
        assert main(["journal", "backup", "--db", str(live), "--out", str(out)]) == 0
        line = capsys.readouterr().out.strip()
        assert line.startswith(f"{live} backed up to {out}: whole, ")
        assert "RL-01 seq " in line and "RL-01/devices/wheel seq " in line and "sha256 " in line
        assert out.stat().st_mode & 0o777 == 0o600
        assert main(["journal", "verify", "--db", str(out)]) == 0
        capsys.readouterr()
    assert [p.name for p in tmp_path.iterdir() if ".partial-" in p.name] == []
    assert main(["journal", "backup", "--db", str(live), "--out", str(out)]) == 2
    assert "never overwrites" in capsys.readouterr().err
    assert main(["journal", "backup", "--db", str(live), "--out", str(out), "--keep", "3"]) == 2
    assert "--keep needs a folder" in capsys.readouterr().err


def test_a_copy_that_does_not_verify_is_not_kept(tmp_path: Path) -> None:
    journal = tmp_path / "journal.db"
    _small_journal(journal)
    _edit_one_row(journal)
    with pytest.raises(BackupError, match="does not verify") as refused:
        take_backup(journal, tmp_path / "backup.db")
    assert "edited" in str(refused.value)
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == ["journal.db", "journal.db-shm", "journal.db-wal", "journal.db.lock"], left


def test_restore_into_a_new_place_goes_on_from_the_backups_heads(tmp_path: Path) -> None:
    journal, backup = tmp_path / "journal.db", tmp_path / "backup.db"
    _small_journal(journal)
    take_backup(journal, backup)
    target = tmp_path / "box2" / "journal.db"
    done = restore_journal(backup, target, now=NOW)
    assert done.set_aside is None and done.lost == []
    [event] = done.events
    assert (event.table, event.seq, event.type) == ("RL-01", 11, "journal.restored")
    assert event.data["head"] == {"seq": 10, "hash": done.heads["RL-01"].hash}
    assert event.prev == done.heads["RL-01"].hash
    assert event.data["streams"] == {
        "RL-01/devices/wheel": {"seq": 10, "hash": done.heads["RL-01/devices/wheel"].hash}
    }
    assert event.data["replaced"] is None and event.data["forced"] is False
    assert main(["journal", "verify", "--db", str(target)]) == 0
    opened = Journal(target)  # as the daemon opens it: the start check finds it whole
    try:
        assert opened.integrity_breaks("RL-01", list(STREAMS)) == []
        assert opened.last_seq("RL-01/devices/wheel") == 10
    finally:
        opened.close()


def test_restore_refuses_a_tampered_backup(tmp_path: Path) -> None:
    journal, backup = tmp_path / "journal.db", tmp_path / "backup.db"
    _small_journal(journal)
    take_backup(journal, backup)
    _edit_one_row(backup)
    target = tmp_path / "box2" / "journal.db"
    with pytest.raises(RestoreError, match=r"does not verify .*edited.*never restored"):
        restore_journal(backup, target)
    assert not target.exists()


def test_restore_over_a_newer_journal_needs_force_and_keeps_it_aside(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    journal, backup = tmp_path / "journal.db", tmp_path / "backup.db"
    _small_journal(journal)
    take_backup(journal, backup)
    _append(journal, range(10, 13))
    before = journal.read_bytes()
    argv = ["journal", "restore", str(backup), "--journal", str(journal)]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert f"{journal} is newer than {backup}: RL-01 seq 11..13 (3 events)" in err
    assert "--force restores anyway" in err and len(err.strip().splitlines()) == 1
    assert journal.read_bytes() == before
    assert main([*argv, "--force"]) == 0
    out = capsys.readouterr().out
    [aside] = [
        p for p in tmp_path.iterdir() if re.fullmatch(r"journal\.db\.replaced-\d{8}T\d{6}Z", p.name)
    ]
    assert f"kept as {aside}" in out and "RL-01 seq 11..13 (3 events)" in out
    assert main(["journal", "verify", "--db", str(aside)]) == 0  # the old record, whole
    capsys.readouterr()
    restored = _last(journal, "RL-01")
    assert restored["seq"] == 11 and restored["data"]["forced"] is True
    assert restored["data"]["replaced"] == str(aside)
    assert {"stream": "RL-01", "from_seq": 11, "to_seq": 13, "fork": False} in restored["data"][
        "lost"
    ]


def test_restore_is_refused_while_a_writer_holds_the_journal(tmp_path: Path) -> None:
    journal, backup = tmp_path / "journal.db", tmp_path / "backup.db"
    _small_journal(journal)
    take_backup(journal, backup)
    holder = Journal(journal)
    try:
        with pytest.raises(JournalInUse, match=f"in use by pid {os.getpid()}"):
            restore_journal(backup, journal, force=True)
    finally:
        holder.close()
    assert _last(journal, "RL-01")["seq"] == 10


def _small_journal(path: Path) -> None:
    _append(path, range(10))


def _append(path: Path, minutes: range) -> None:
    journal = Journal(path)
    try:
        for minute in minutes:
            for stream in STREAMS:
                journal.append(stream, build(stream, minute))
    finally:
        journal.close()


def _edit_one_row(path: Path) -> None:
    db = sqlite3.connect(path, isolation_level=None)
    try:
        body = json.loads(
            db.execute("SELECT body FROM events WHERE stream = 'RL-01' AND seq = 4").fetchone()[0]
        )
        body["data"]["minute"] = 99
        db.execute(
            "UPDATE events SET body = ? WHERE stream = 'RL-01' AND seq = 4", (json.dumps(body),)
        )
    finally:
        db.close()


def _last(path: Path, stream: str) -> dict:
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        row = db.execute(
            "SELECT body FROM events WHERE stream = ? ORDER BY seq DESC LIMIT 1", (stream,)
        ).fetchone()
    finally:
        db.close()
    return json.loads(row[0])
