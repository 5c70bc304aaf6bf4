"""Evidence bundles: `floord journal export --table ...` and `verify-bundle`, on journals
written by floord's own `Journal`, one of them held open (its writer's lock taken) while
the bundle is exported."""

from __future__ import annotations

import json
import sqlite3
import zipfile
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from bundle_support import flip_in_file, lines, read_members, rewrite

from floord.cli.main import main
from floord.contract import Envelope, format_ts
from floord.journal.bundle_export import Attachment, Selection, export_bundle
from floord.journal.bundle_format import MANIFEST, SUMS
from floord.journal.lock import lock_path
from floord.journal.store import Journal

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parent.parent
T0 = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
TABLE, WHEEL = "RL-01", "RL-01/devices/wheel"
PROFILE = "profiles/wheel/cammegh-ss2.yaml"


def round_of(minute: int) -> str | None:
    """Minutes 1-4 are round 0000, 6-9 round 0001, ...; each fifth minute is between rounds."""
    return f"RL-01-2024-05-01-{minute // 5:04d}" if minute % 5 else None


def event(stream: str, minute: int, second: int = 0):
    def make(seq: int) -> Envelope:
        device = stream == WHEEL
        return Envelope(
            site="casino-1",
            table="RL-01",
            seq=seq,
            ts=format_ts(T0 + timedelta(minutes=minute, seconds=second)),
            type="wheel.number" if device or second == 0 else "roulette.result",
            source="wheel" if device or second == 0 else "engine",
            data={"minute": minute, "second": second},
            round=None if device else round_of(minute),
        )

    return make


def append_minutes(journal: Journal, minutes: range) -> None:
    """Each minute: the wheel's event on both streams, and the engine's decision on the table's."""
    for minute in minutes:
        journal.append(WHEEL, event(WHEEL, minute))
        journal.append(TABLE, event(TABLE, minute))
        journal.append(TABLE, event(TABLE, minute, 30))


@pytest.fixture
def config(tmp_path: Path) -> Path:
    """The example box's config: RL-01 with a Cammegh wheel."""
    path = tmp_path / "floord.yaml"
    path.write_bytes((ROOT / "examples" / "box.yaml").read_bytes())
    return path


@pytest.fixture
def journal(tmp_path: Path) -> Iterator[Journal]:
    """A journal of 30 minutes of play, held open for writing meanwhile (its lock taken)."""
    writer = Journal(tmp_path / "journal.db")
    try:
        append_minutes(writer, range(30))
        yield writer
    finally:
        writer.close()


def export(journal: Journal, config: Path, out: Path, *selection: str) -> int:
    argv = ["journal", "export", "--db", str(journal.path), "--table", TABLE, "-c", str(config)]
    return main([*argv, *selection, "--out", str(out)])


def stored(path: Path, stream: str, first: int, last: int) -> list[bytes]:
    db = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    try:
        rows = db.execute(
            "SELECT body FROM events WHERE stream = ? AND seq BETWEEN ? AND ? ORDER BY seq",
            (stream, first, last),
        ).fetchall()
    finally:
        db.close()
    return [row[0].encode() + b"\n" for row in rows]


def verify(bundle: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["journal", "verify-bundle", str(bundle)])
    out = capsys.readouterr()
    return code, out.out + out.err


def test_a_round_bundle_holds_the_round_and_links_to_the_heads(
    journal: Journal, config: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = tmp_path / "round.zip"
    assert export(journal, config, bundle, "--round", "RL-01-2024-05-01-0002") == 0
    printed = capsys.readouterr().out
    assert "table RL-01 (site casino-1), round RL-01-2024-05-01-0002: 12 events" in printed
    members = read_members(bundle)
    # Minutes 11-14 on the table stream are seq 23..30 (two events a minute from seq 1).
    assert members["events/RL-01.jsonl"] == b"".join(stored(journal.path, TABLE, 23, 30))
    assert members["links/RL-01.jsonl"] == b"".join(
        stored(journal.path, TABLE, 22, 22) + stored(journal.path, TABLE, 31, 60)
    )
    # The wheel's stream: the round's time, from its first event to its last (14:30).
    assert members["events/RL-01/devices/wheel.jsonl"] == b"".join(
        stored(journal.path, WHEEL, 12, 15)
    )
    manifest = json.loads(members[MANIFEST])
    table, wheel = manifest["streams"]
    assert table["head"] == {"seq": 60, "hash": journal.chain_head(TABLE)[1]}
    assert wheel["head"] == {"seq": 30, "hash": journal.chain_head(WHEEL)[1]}
    assert wheel["select"] == {
        "from": "2024-05-01T12:11:00.000000Z",
        "to": "2024-05-01T12:14:30.000001Z",
    }
    assert (table["before_seq"], table["links"]["after_first_seq"]) == (22, 31)
    assert manifest["config"]["sha256"] and manifest["profiles"][0]["member"] == PROFILE
    assert members[PROFILE] == (ROOT / "device_profiles" / "cammegh-ss2.yaml").read_bytes()
    assert sorted(members) == sorted([*manifest["members"], MANIFEST, SUMS])

    code, out = verify(bundle, capsys)
    assert code == 0, out
    assert "whole: table RL-01 (site casino-1), round RL-01-2024-05-01-0002" in out
    assert "RL-01: seq 23..30 (8 events), head seq 60" in out


def test_the_bundle_is_taken_while_the_journal_goes_on(
    journal: Journal, config: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = tmp_path / "first.zip"
    window = ["--from", "2024-05-01T12:03:00Z", "--to", "2024-05-01T08:07:00-04:00"]
    assert export(journal, config, first, *window) == 0
    append_minutes(journal, range(30, 40))
    second = tmp_path / "second.zip"
    assert export(journal, config, second, *window) == 0
    capsys.readouterr()
    one, two = read_members(first), read_members(second)
    # The same range, tied to a later head: the later links go on from the earlier head.
    assert one["events/RL-01.jsonl"] == two["events/RL-01.jsonl"]
    assert two["links/RL-01.jsonl"].startswith(one["links/RL-01.jsonl"])
    assert lines(two, "links/RL-01.jsonl")[-1]["seq"] == 80
    for bundle in (first, second):
        code, out = verify(bundle, capsys)
        assert code == 0, out


def test_empty_ranges_are_proved_empty(
    journal: Journal, config: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = tmp_path / "before.zip"
    assert (
        export(
            journal,
            config,
            before,
            "--from",
            "2024-04-30T00:00:00Z",
            "--to",
            "2024-05-01T12:00:00Z",
        )
        == 0
    )
    manifest = json.loads(read_members(before)[MANIFEST])
    assert [s["start"] for s in manifest["streams"]] == ["genesis", "genesis"]
    assert [s["events"]["count"] for s in manifest["streams"]] == [0, 0]
    after = tmp_path / "after.zip"
    assert (
        export(
            journal, config, after, "--from", "2024-05-02T00:00:00Z", "--to", "2024-05-03T00:00:00Z"
        )
        == 0
    )
    manifest = json.loads(read_members(after)[MANIFEST])
    assert [s["before_seq"] for s in manifest["streams"]] == [60, 30]
    assert [s["links"]["after_first_seq"] for s in manifest["streams"]] == [None, None]
    capsys.readouterr()
    for bundle in (before, after):
        code, out = verify(bundle, capsys)
        assert code == 0, out
        assert "no event in the range" in out


def test_a_pruned_stream_starts_on_its_anchor(
    journal: Journal, config: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    journal.mark_published(TABLE, list(range(1, 61)))
    journal.mark_published(WHEEL, list(range(1, 31)))
    assert journal.prune(format_ts(T0 + timedelta(minutes=5))) == 15
    bundle = tmp_path / "pruned.zip"
    assert (
        export(
            journal,
            config,
            bundle,
            "--from",
            "2024-05-01T11:00:00Z",
            "--to",
            "2024-05-01T12:08:00Z",
        )
        == 0
    )
    manifest = json.loads(read_members(bundle)[MANIFEST])
    table = manifest["streams"][0]
    assert table["start"] == "pruned" and table["anchor"]["seq"] == 10
    assert table["events"]["first_seq"] == 11
    code, out = verify(bundle, capsys)
    assert code == 0, out


@pytest.mark.parametrize(
    ("member", "old", "new", "named"),
    [
        (
            "events/RL-01.jsonl",
            b'"minute":12,"second":30',
            b'"minute":12,"second":31',
            "stream 'RL-01' seq 26 edited",
        ),
        (MANIFEST, b'"exported_at": "2', b'"exported_at": "3', "manifest.json: hash_mismatch"),
        (PROFILE, b"baudrate: 9600", b"baudrate: 9601", f"{PROFILE}: hash_mismatch"),
    ],
    ids=["event", "manifest", "profile"],
)
def test_verify_names_a_byte_changed_in_a_member(
    journal: Journal,
    config: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    member: str,
    old: bytes,
    new: bytes,
    named: str,
) -> None:
    bundle = tmp_path / "edited.zip"
    assert export(journal, config, bundle, "--round", "RL-01-2024-05-01-0002") == 0

    def edit(members: dict[str, bytes]) -> None:
        assert members[member].count(old) == 1 and len(old) == len(new)
        members[member] = members[member].replace(old, new)

    rewrite(bundle, edit)
    code, out = verify(bundle, capsys)
    assert code == 1, out
    assert "BROKEN" in out and named in out
    assert f"{member}:" in out


@pytest.mark.parametrize("member", ["events/RL-01.jsonl", MANIFEST, PROFILE])
def test_a_byte_flipped_in_the_file_names_its_member(
    journal: Journal, config: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], member: str
) -> None:
    bundle = tmp_path / "flipped.zip"
    assert export(journal, config, bundle, "--round", "RL-01-2024-05-01-0002") == 0
    flip_in_file(bundle, member)
    code, out = verify(bundle, capsys)
    assert code == 1, out
    assert f"{member}: damaged: the zip's own check of its bytes fails" in out


def test_a_tamperer_who_rehashes_the_members_is_still_caught(
    journal: Journal, config: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = tmp_path / "rehashed.zip"
    assert export(journal, config, bundle, "--round", "RL-01-2024-05-01-0002") == 0
    capsys.readouterr()

    def drop_an_event(members: dict[str, bytes]) -> None:
        rows = members["events/RL-01.jsonl"].splitlines(keepends=True)
        members["events/RL-01.jsonl"] = b"".join(rows[:3] + rows[4:])
        manifest = json.loads(members[MANIFEST])
        manifest["streams"][0]["events"]["count"] = 7
        members[MANIFEST] = json.dumps(manifest).encode()

    rewrite(bundle, drop_an_event, rehash=True)
    code, out = verify(bundle, capsys)
    assert code == 1, out
    assert "events/RL-01.jsonl: stream 'RL-01' seq 27 deleted: seq 26..26 missing" in out

    shorter = tmp_path / "shorter.zip"
    assert export(journal, config, shorter, "--round", "RL-01-2024-05-01-0002") == 0
    capsys.readouterr()

    def end_the_round_early(members: dict[str, bytes]) -> None:
        rows = members["events/RL-01.jsonl"].splitlines(keepends=True)
        links = members["links/RL-01.jsonl"].splitlines(keepends=True)
        members["events/RL-01.jsonl"] = b"".join(rows[:-1])
        members["links/RL-01.jsonl"] = b"".join(links[:1] + rows[-1:] + links[1:])
        manifest = json.loads(members[MANIFEST])
        manifest["streams"][0]["events"].update(count=7, last_seq=29)
        manifest["streams"][0]["links"]["after_first_seq"] = 30
        members[MANIFEST] = json.dumps(manifest).encode()

    rewrite(shorter, end_the_round_early, rehash=True)
    code, out = verify(shorter, capsys)
    assert code == 1, out
    assert "links/RL-01.jsonl: stream 'RL-01' seq 30 boundary: the event after the range" in out


def test_the_config_is_found_from_the_lock_file(
    journal: Journal, config: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["journal", "export", "--db", str(journal.path), "--table", TABLE, "--round"]
    bundle = tmp_path / "found.zip"
    # The lock file names the command line of this test's process: no config in it.
    assert main([*argv, "RL-01-2024-05-01-0001", "--out", str(bundle)]) == 2
    assert "give -c CONFIG" in capsys.readouterr().err
    assert not bundle.exists()
    holder = json.loads(lock_path(journal.path).read_text())
    holder["command"] = f"floord run -c {config}"
    lock_path(journal.path).write_text(json.dumps(holder))
    assert main([*argv, "RL-01-2024-05-01-0001", "--out", str(bundle)]) == 0
    manifest = json.loads(read_members(bundle)[MANIFEST])
    assert (
        manifest["config"]["found"] == f"named by the journal's lock file (floord run -c {config})"
    )


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--round", "RL-01-2024-05-01-0099"], "no event of round 'RL-01-2024-05-01-0099'"),
        (["--round", "R", "--from", "2024-05-01T12:00:00Z"], "--round or --from/--to, not both"),
        (["--from", "2024-05-01T12:00:00Z"], "needs --round R, or --from TS and --to TS"),
        (["--round", "RL-01-2024-05-01-0001", "--stream", "RL-01"], "--stream is for the JSON"),
    ],
)
def test_an_export_that_cannot_be_made_writes_nothing(
    journal: Journal,
    config: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    says: str,
) -> None:
    bundle = tmp_path / "refused.zip"
    assert export(journal, config, bundle, *args) == 2
    assert says in capsys.readouterr().err
    assert not bundle.exists()


def test_refusals_of_files_and_tables(
    journal: Journal, config: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    taken = tmp_path / "taken.zip"
    taken.write_bytes(b"someone's file")
    assert export(journal, config, taken, "--round", "RL-01-2024-05-01-0001") == 2
    assert "already exists; export never overwrites a file" in capsys.readouterr().err
    assert taken.read_bytes() == b"someone's file"
    argv = ["journal", "export", "--db", str(journal.path), "--table", "BJ-01", "-c", str(config)]
    assert main([*argv, "--round", "X", "--out", str(tmp_path / "bj.zip")]) == 2
    assert "no stream for table 'BJ-01'" in capsys.readouterr().err
    # Without --table, the JSON lines export is as it was: --from and --to required.
    for rest in (["--round", "X"], ["--from", "2024-05-01T12:00:00Z"]):
        with pytest.raises(SystemExit) as refused:
            main(["journal", "export", "--db", str(journal.path), *rest])
        assert refused.value.code == 2
    assert "the following arguments are required: --from, --to" in capsys.readouterr().err
    assert main(["journal", "verify-bundle", str(tmp_path / "none.zip")]) == 2
    assert "no bundle at" in capsys.readouterr().err
    code, out = verify(taken, capsys)
    assert code == 1 and "taken.zip: unreadable: not a zip file" in out


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


def test_a_journal_broken_in_the_range_gives_a_bundle_naming_the_break(
    journal: Journal, config: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "copy.db"
    assert main(["journal", "copy", "--db", str(journal.path), "--out", str(copy)]) == 0
    db = sqlite3.connect(copy, isolation_level=None)
    try:
        db.execute(
            "UPDATE events SET body = replace(body, '\"second\":30', '\"second\":31') "
            "WHERE stream = 'RL-01' AND seq = 26"
        )
    finally:
        db.close()
    capsys.readouterr()
    bundle = tmp_path / "broken.zip"
    argv = ["journal", "export", "--db", str(copy), "--table", TABLE, "-c", str(config)]
    assert main([*argv, "--round", "RL-01-2024-05-01-0002", "--out", str(bundle)]) == 1
    assert "events/RL-01.jsonl: stream 'RL-01' seq 26 edited" in capsys.readouterr().err
    assert bundle.exists(), "kept: the break is evidence too"


def test_a_device_stream_left_out_is_named(
    journal: Journal, config: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = tmp_path / "no-wheel.zip"
    assert export(journal, config, bundle, "--round", "RL-01-2024-05-01-0002") == 0
    capsys.readouterr()

    def leave_out_the_wheel(members: dict[str, bytes]) -> None:
        for name in ("events/RL-01/devices/wheel.jsonl", "links/RL-01/devices/wheel.jsonl"):
            del members[name]
        manifest = json.loads(members[MANIFEST])
        manifest["streams"] = manifest["streams"][:1]
        members[MANIFEST] = json.dumps(manifest).encode()

    rewrite(bundle, leave_out_the_wheel, rehash=True)
    code, out = verify(bundle, capsys)
    assert code == 1, out
    assert "manifest.json: missing_stream: the table's range has events of device 'wheel'" in out


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
