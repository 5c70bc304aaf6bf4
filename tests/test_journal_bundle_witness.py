"""Evidence bundles against a journal: each head compared (`verify-bundle --db`), an
edited event's fields named, and the bundle's bytes the same for the same range."""

from __future__ import annotations

import hashlib
import json
import zipfile
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from bundle_support import (
    ROOT,
    T0,
    TABLE,
    WHEEL,
    append_minutes,
    box_config,
    event,
    export,
    rewrite,
)

from floord.cli.main import main
from floord.contract import Envelope, format_ts
from floord.journal.bundle_export import Attachment, Selection, export_bundle
from floord.journal.bundle_format import MANIFEST, SUMS
from floord.journal.bundle_witness import compare_heads, stored_bodies
from floord.journal.chain import event_hash
from floord.journal.store import Journal

pytestmark = pytest.mark.unit


@pytest.fixture
def config(tmp_path: Path) -> Path:
    return box_config(tmp_path)


@pytest.fixture
def journal(tmp_path: Path) -> Iterator[Journal]:
    """A journal of 30 minutes of play, held open for writing meanwhile (its lock taken)."""
    writer = Journal(tmp_path / "journal.db")
    try:
        append_minutes(writer, range(30))
        yield writer
    finally:
        writer.close()


def test_the_heads_are_compared_with_a_journal(
    journal: Journal, config: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = tmp_path / "heads.zip"
    assert export(journal, config, bundle, "--round", "RL-01-2024-05-01-0002") == 0
    append_minutes(journal, range(30, 32))  # the journal goes on: its old heads stay in it
    capsys.readouterr()
    assert main(["journal", "verify-bundle", str(bundle), "--db", str(journal.path)]) == 0
    assert "holds every head: the range is as this journal recorded it" in capsys.readouterr().out
    # Another journal, its chain rebuilt over an event of the range, holds other heads.
    other = Journal(tmp_path / "other" / "journal.db")
    try:
        append_minutes(other, range(12))
        other.append(WHEEL, event(WHEEL, 12))
        other.append(TABLE, event(TABLE, 12))
        other.append(TABLE, event(TABLE, 12, 31))
        append_minutes(other, range(13, 30))
    finally:
        other.close()
    assert main(["journal", "verify-bundle", str(bundle), "--db", str(other.path)]) == 1
    out = capsys.readouterr().out
    assert "does NOT hold the bundle's heads" in out
    assert "  RL-01: the journal's seq 60 has hash" in out
    assert "RL-01/devices/wheel" not in out.split("does NOT")[1]


def test_an_event_rehashed_is_caught_and_the_journal_names_its_field(
    journal: Journal, config: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = tmp_path / "rehashed-event.zip"
    assert export(journal, config, bundle, "--round", "RL-01-2024-05-01-0002") == 0
    capsys.readouterr()

    def rehash_an_event(members: dict[str, bytes]) -> None:
        rows = members["events/RL-01.jsonl"].splitlines(keepends=True)
        body = json.loads(rows[3])
        body["data"]["second"] = 31
        body["hash"] = event_hash(body)
        rows[3] = json.dumps(body, separators=(",", ":")).encode() + b"\n"
        members["events/RL-01.jsonl"] = b"".join(rows)

    rewrite(bundle, rehash_an_event, rehash=True)
    argv = ["journal", "verify-bundle", str(bundle), "--db", str(journal.path)]
    assert main(argv) == 1
    out = capsys.readouterr().out
    assert "events/RL-01.jsonl: stream 'RL-01' seq 27 prev_mismatch" in out
    assert f"  stream 'RL-01' seq 26: differs from {journal.path} in data.second, hash\n" in out
    assert f"  stream 'RL-01' seq 27: differs from {journal.path} in nothing\n" in out


def test_the_same_range_at_the_same_moment_is_the_same_bytes(
    journal: Journal, tmp_path: Path
) -> None:
    files = [Attachment("config/floord.yaml", b"site: casino-1\n")]
    made = []
    for name in ("one.zip", "two.zip"):
        with (tmp_path / name).open("xb") as out:
            export_bundle(
                journal.path,
                TABLE,
                Selection(round="RL-01-2024-05-01-0003"),
                out,
                now=T0 + timedelta(days=1),
                version="0.0.0",
                attachments=files,
                about={},
            )
        made.append((tmp_path / name).read_bytes())
    assert made[0] == made[1]
    with zipfile.ZipFile(tmp_path / "one.zip") as zf:
        assert {info.date_time for info in zf.infolist()} == {(1980, 1, 1, 0, 0, 0)}
        assert zf.namelist()[-2:] == [MANIFEST, SUMS]


def started(profiles: dict[str, dict[str, str]]):
    def make(seq: int) -> Envelope:
        when = format_ts(T0 + timedelta(hours=1, seconds=seq))
        data = {"version": "0.2.0", "devices": ["wheel"], "profiles": profiles}
        return Envelope(
            site="casino-1",
            table=TABLE,
            seq=seq,
            ts=when,
            type="daemon.started",
            source="daemon",
            data=data,
        )

    return make


def test_each_profile_is_compared_with_what_the_start_recorded(
    journal: Journal, config: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    packaged = (ROOT / "device_profiles" / "cammegh-ss2.yaml").read_bytes()
    journal.append(TABLE, started({"wheel": {"sha256": hashlib.sha256(packaged).hexdigest()}}))
    bundle = tmp_path / "started.zip"
    assert export(journal, config, bundle, "--round", "RL-01-2024-05-01-0002") == 0
    capsys.readouterr()
    assert main(["journal", "verify-bundle", str(bundle)]) == 0
    out = capsys.readouterr().out
    assert "profile of wheel: the file the daemon.started of seq 61 (in the bundle) recorded" in out

    def say_another_start(members: dict[str, bytes]) -> None:
        manifest = json.loads(members[MANIFEST])
        manifest["started"]["profiles"]["wheel"]["sha256"] = "0" * 64
        members[MANIFEST] = json.dumps(manifest).encode()

    rewrite(bundle, say_another_start, rehash=True)
    assert main(["journal", "verify-bundle", str(bundle)]) == 1
    assert "manifest.json: started_mismatch" in capsys.readouterr().out

    journal.append(TABLE, started({"wheel": {"sha256": "0" * 64}}))
    later = tmp_path / "later.zip"
    assert export(journal, config, later, "--round", "RL-01-2024-05-01-0002") == 0
    capsys.readouterr()
    assert main(["journal", "verify-bundle", str(later)]) == 0
    assert "profile of wheel: NOT the file the daemon.started of seq 62" in capsys.readouterr().out


def test_a_head_past_what_sqlite_holds_is_one_the_journal_does_not_hold(
    journal: Journal,
) -> None:
    """A bundle may name any seq; one past a 64-bit integer is in no journal."""
    huge = 2**70
    assert compare_heads(journal.path, {"RL-01": (huge, "ab" * 32)}) == [
        ("RL-01", f"the journal has no seq {huge} on this stream")
    ]
    assert stored_bodies(journal.path, [("RL-01", huge), ("RL-01", 1)]).keys() == {("RL-01", 1)}
