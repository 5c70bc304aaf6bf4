"""Evidence bundles: `floord journal export --table ...` and `verify-bundle`, on journals
written by floord's own `Journal`, one of them held open (its writer's lock taken) while
the bundle is exported."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from bundle_support import (
    PROFILE,
    ROOT,
    T0,
    TABLE,
    WHEEL,
    append_minutes,
    box_config,
    export,
    flip_in_file,
    lines,
    read_members,
    rewrite,
    verify,
)

from floord.cli.main import main
from floord.contract import format_ts
from floord.journal.bundle_format import MANIFEST, SUMS
from floord.journal.lock import lock_path
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
    if member == "events/RL-01.jsonl":
        # The hash says that the event changed; the journal says where.
        argv = ["journal", "verify-bundle", str(bundle), "--db", str(journal.path)]
        assert main(argv) == 1
        assert (
            f"  stream 'RL-01' seq 26: differs from {journal.path} in data.second\n"
            in capsys.readouterr().out
        )


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


def set_in_central_directory(bundle: Path, member: str, offset: int, value: int) -> None:
    """Write a 2-byte field of `member`'s central directory entry (8: its flags, 10: its
    compression method), as a zip made by another tool, or damaged, would hold it."""
    raw = bytearray(bundle.read_bytes())
    at = raw.find(b"PK\x01\x02")
    while at != -1:
        name_len = int.from_bytes(raw[at + 28 : at + 30], "little")
        if raw[at + 46 : at + 46 + name_len] == member.encode():
            raw[at + offset : at + offset + 2] = value.to_bytes(2, "little")
            bundle.write_bytes(bytes(raw))
            return
        at = raw.find(b"PK\x01\x02", at + 4)
    raise AssertionError(f"{member} not in the central directory")


@pytest.mark.parametrize(("offset", "value"), [(8, 0x0001), (10, 99)])  # encrypted; method 99
def test_a_member_zipfile_cannot_read_is_named_damaged(
    journal: Journal,
    config: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    offset: int,
    value: int,
) -> None:
    bundle = tmp_path / "odd.zip"
    assert export(journal, config, bundle, "--round", "RL-01-2024-05-01-0002") == 0
    set_in_central_directory(bundle, "events/RL-01.jsonl", offset, value)
    code, out = verify(bundle, capsys)
    assert code == 1, out
    assert "events/RL-01.jsonl: damaged: the zip's own check of its bytes fails" in out


def test_a_manifest_whose_profiles_are_not_a_list_is_named(
    journal: Journal, config: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bundle = tmp_path / "profiles.zip"
    assert export(journal, config, bundle, "--round", "RL-01-2024-05-01-0002") == 0
    capsys.readouterr()

    def count_the_profiles(members: dict[str, bytes]) -> None:
        manifest = json.loads(members[MANIFEST])
        manifest["profiles"] = len(manifest["profiles"])
        members[MANIFEST] = json.dumps(manifest).encode()

    rewrite(bundle, count_the_profiles, rehash=True)
    code, out = verify(bundle, capsys)
    assert code == 1, out
    assert f"{MANIFEST}: format: `profiles` is not a list" in out


def test_a_round_ending_on_an_event_without_a_time_is_refused_by_name(
    journal: Journal, config: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = sqlite3.connect(journal.path)
    try:
        [last] = db.execute(
            "SELECT max(seq) FROM events WHERE stream = 'RL-01' "
            "AND json_extract(body, '$.round') = 'RL-01-2024-05-01-0002'"
        ).fetchone()
        db.execute(
            "UPDATE events SET body = json_remove(body, '$.ts') WHERE stream = 'RL-01' AND seq = ?",
            (last,),
        )
        db.commit()
    finally:
        db.close()
    bundle = tmp_path / "no-time.zip"
    assert export(journal, config, bundle, "--round", "RL-01-2024-05-01-0002") == 2
    err = capsys.readouterr().err
    assert "round 'RL-01-2024-05-01-0002' ends on an event whose ts ('None') is not a time" in err
    assert "Traceback" not in err and not bundle.exists()
