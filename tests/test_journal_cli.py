"""`floord journal verify | export | copy` on a journal another connection keeps writing."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from itertools import pairwise
from pathlib import Path

import pytest

from floord.cli.main import main
from floord.contract import Envelope, format_ts
from floord.journal.chain import event_hash
from floord.journal.store import Journal

pytestmark = pytest.mark.unit

T0 = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
STREAMS = ("RL-01", "RL-01/devices/wheel")


def build(stream: str, minute: int):
    def make(seq: int) -> Envelope:
        return Envelope(
            site="casino-1",
            table="RL-01",
            seq=seq,
            ts=format_ts(T0 + timedelta(minutes=minute)),
            type="wheel.number",
            source="wheel" if "/" in stream else "engine",
            data={"minute": minute},
        )

    return make


class Writer:
    """A daemon stand-in: its own connection appends to both streams until stopped."""

    def __init__(self, path: Path, first: int) -> None:
        self.path = path
        self.minute = first
        self.done = threading.Event()
        self.errors: list[BaseException] = []
        self.thread = threading.Thread(target=self._run)

    def _run(self) -> None:
        journal = Journal(self.path)
        try:
            while not self.done.is_set():
                for stream in STREAMS:
                    journal.append(stream, build(stream, self.minute))
                self.minute += 1
        except BaseException as exc:  # reported by the test, not lost in the thread
            self.errors.append(exc)
        finally:
            journal.close()


@pytest.fixture
def live(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "journal.db"
    journal = Journal(path)
    for minute in range(20):
        for stream in STREAMS:
            journal.append(stream, build(stream, minute))
    journal.close()
    writer = Writer(path, 20)
    writer.thread.start()
    try:
        for _ in range(1000):  # the writer is really writing before the test reads
            if writer.minute > 25 or writer.errors:
                break
            time.sleep(0.01)
        yield path
    finally:
        writer.done.set()
        writer.thread.join(timeout=30)
    assert not writer.thread.is_alive()
    assert writer.errors == []


def test_verify_a_live_journal(live: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for _ in range(3):
        assert main(["journal", "verify", "--db", str(live)]) == 0
        assert "whole:" in capsys.readouterr().out
    assert main(["journal", "verify", "--db", str(live), "--stream", "RL-01"]) == 0
    assert "in 1 streams" in capsys.readouterr().out


def test_copy_is_consistent_self_contained_and_verifies(
    live: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "audit" / "copy.db"
    copy.parent.mkdir()
    assert main(["journal", "copy", "--db", str(live), "--out", str(copy)]) == 0
    assert "copied" in capsys.readouterr().out
    db = sqlite3.connect(f"{copy.as_uri()}?mode=ro", uri=True)
    try:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
        heads = dict(db.execute("SELECT stream, last_seq FROM streams").fetchall())
        counts = dict(db.execute("SELECT stream, COUNT(*) FROM events GROUP BY stream").fetchall())
    finally:
        db.close()
    assert heads == counts and heads["RL-01"] >= 20
    assert sorted(p.name for p in copy.parent.iterdir()) == ["copy.db"]
    assert main(["journal", "verify", "--db", str(copy)]) == 0
    # The copy never overwrites.
    assert main(["journal", "copy", "--db", str(live), "--out", str(copy)]) == 2
    assert "already exists" in capsys.readouterr().err


def test_export_writes_the_stored_bodies_of_a_window(
    live: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "export.jsonl"
    args = ["journal", "export", "--db", str(live), "--out", str(out)]
    window = ["--from", "2024-05-01T12:05:00Z", "--to", "2024-05-01T08:15:00-04:00"]
    assert main([*args, *window]) == 0
    assert "exported 20 events" in capsys.readouterr().err
    lines = out.read_text(encoding="utf-8").splitlines()
    bodies = [json.loads(line) for line in lines]
    keys = [(b["source"], b["seq"]) for b in bodies]
    assert keys == [("engine", s) for s in range(6, 16)] + [("wheel", s) for s in range(6, 16)]
    assert all(b["hash"] == event_hash(b) for b in bodies)
    assert all(a["hash"] == b["prev"] for a, b in pairwise(bodies[:10]))
    db = sqlite3.connect(f"{live.as_uri()}?mode=ro", uri=True)
    try:
        stored = db.execute("SELECT body FROM events WHERE stream = 'RL-01' AND seq = 6").fetchone()
    finally:
        db.close()
    assert lines[0] == stored[0], "bodies go out byte for byte"

    assert main(["journal", "export", "--db", str(live), *window, "--stream", "RL-01"]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed == lines[:10]


def test_a_tampered_copy_fails_verify_with_the_broken_link(
    live: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "copy.db"
    assert main(["journal", "copy", "--db", str(live), "--out", str(copy)]) == 0
    db = sqlite3.connect(copy, isolation_level=None)
    try:
        db.execute("DELETE FROM events WHERE stream = 'RL-01/devices/wheel' AND seq = 7")
    finally:
        db.close()
    capsys.readouterr()
    assert main(["journal", "verify", "--db", str(copy)]) == 1
    out = capsys.readouterr().out
    assert "BROKEN" in out and "'RL-01/devices/wheel' seq 8: deleted" in out
    assert main(["journal", "verify", "--db", str(copy), "--stream", "RL-01"]) == 0


def test_bad_requests_exit_2_with_a_reason(
    live: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["journal", "verify", "--db", str(tmp_path / "none.db")]) == 2
    assert "no journal" in capsys.readouterr().err
    out = tmp_path / "x.jsonl"
    bad = ["--from", "2024-05-01 12:00", "--to", "2024-05-02T00:00:00Z", "--out", str(out)]
    assert main(["journal", "export", "--db", str(live), *bad]) == 2
    assert "ISO 8601" in capsys.readouterr().err and not out.exists()
    backwards = ["--from", "2024-05-02T00:00:00Z", "--to", "2024-05-01T00:00:00Z"]
    assert main(["journal", "export", "--db", str(live), *backwards]) == 2
    assert "later than" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["journal", "export", "--db", str(live)])


@pytest.fixture
def closed(tmp_path: Path) -> Path:
    """A journal of three minutes of one stream, closed: a file a test may damage."""
    path = tmp_path / "journal.db"
    journal = Journal(path)
    for minute in range(3):
        journal.append("RL-01", build("RL-01", minute))
    journal.close()
    return path


def test_an_export_of_a_body_not_stored_as_text_is_refused_and_leaves_no_file(
    closed: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A body stored as bytes (the file edited; floord stores text) cannot go out byte
    for byte as a line: the export names the row and writes nothing."""
    path = closed
    db = sqlite3.connect(path)
    try:
        body = db.execute("SELECT body FROM events WHERE seq = 2").fetchone()[0]
        db.execute("UPDATE events SET body = ? WHERE seq = 2", (body.encode(),))
        db.commit()
    finally:
        db.close()
    out = tmp_path / "export.jsonl"
    window = ["--from", "2024-05-01T12:00:00Z", "--to", "2024-05-01T13:00:00Z"]
    assert main(["journal", "export", "--db", str(path), *window, "--out", str(out)]) == 2
    assert "'RL-01' seq 2: its body is not text" in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize(("up_to_seq", "last_hash"), [("x", "ab"), (0, "ab"), (3, b"ab")])
def test_verify_of_an_unreadable_pruning_record_says_so(
    closed: Path, capsys: pytest.CaptureFixture[str], up_to_seq: object, last_hash: object
) -> None:
    path = closed
    db = sqlite3.connect(path)
    try:
        db.execute(
            "INSERT INTO pruned (stream, up_to_seq, last_hash, pruned_before) "
            "VALUES ('RL-01', ?, ?, '2024-05-01T00:00:00Z')",
            (up_to_seq, last_hash),
        )
        db.commit()
    finally:
        db.close()
    assert main(["journal", "verify", "--db", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"the pruning record of 'RL-01' is unreadable (up_to_seq {up_to_seq!r})" in err
    assert "Traceback" not in err
