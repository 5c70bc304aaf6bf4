"""The golden-stream tools: the normaliser, the journal dump, the plugin and
the comparator, each on real journals and real recordings."""

from __future__ import annotations

import importlib.util
import json
import sys
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from golden_streams import file_name

from floord.contract import Envelope
from floord.journal.store import Journal

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

from golden_journal import Normaliser, dump_lines, find_journals  # noqa: E402

pytestmark = pytest.mark.unit


def _load_compare() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "compare_streams", ROOT / "scripts/compare-streams.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["compare_streams"] = module
    spec.loader.exec_module(module)
    return module


cmp = _load_compare()


def _builder(when: datetime, etype: str, data: dict[str, Any], rule: str | None) -> Any:
    ts = when.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return lambda seq: Envelope(
        site="s", table="T-1", seq=seq, ts=ts, type=etype, source="engine", data=data, rule=rule
    )


def _write_journal(path: Path, start: datetime, command_id: str, rule: str) -> None:
    """A small real journal: a command and the decision it caused, at `start`."""
    command = {"id": command_id, "ts": start.isoformat(), "sig": "ab"}
    opened = {"by": "FP-1", "command": command_id, "port": "/dev/pts/7"}
    journal = Journal(path)
    try:
        journal.append("T-1", _builder(start, "operator.command", command, None))
        later = start + timedelta(seconds=1)
        snapshot = ("T-1", {"state": "open", "at": later.isoformat()})
        journal.append("T-1", _builder(later, "table.opened", opened, rule), snapshot=snapshot)
    finally:
        journal.close()


def _dump(path: Path) -> list[str]:
    return dump_lines([(path, path.name)], [str(path.parent)])


def test_normaliser_replaces_run_specific_values_and_numbers_ids() -> None:
    norm = Normaliser(["/tmp/pytest-of-x/pytest-3/test_a0"])
    uid = "0f" * 16
    value = {
        "at": "2026-12-01T06:05:55.356725Z",
        "path": "/tmp/pytest-of-x/pytest-3/test_a0/journal.db",
        "other": "/dev/shm/floord-demo-abc/j.db is full",
        "tty": "/dev/pts/12",
        "url": "mqtt://127.0.0.1:41873",
        "hash": "a" * 64,
        "ids": [uid, uid, "12345678-1234-1234-1234-123456789abc"],
        "client": "floord-cmd-0123456789ab",
        "sig": "anything",
        "nonce": 7,
        "kept": {"rotor_rpm": 16.4, "number": "17", "rule": "58 Pa. Code § 531.7(a)"},
    }
    out = norm.value(value)
    assert out == {
        "at": "<ts>",
        "path": "<tmp>/journal.db",
        "other": "<tmp> is full",
        "tty": "/dev/pts/<n>",
        "url": "mqtt://127.0.0.1:<port>",
        "hash": "<hex64>",
        "ids": ["<id:1>", "<id:1>", "<id:2>"],
        "client": "floord-cmd-<id:3>",
        "sig": "<sig>",
        "nonce": "<nonce>",
        "kept": {"rotor_rpm": 16.4, "number": "17", "rule": "58 Pa. Code § 531.7(a)"},
    }
    assert Normaliser().value(out) == out  # idempotent: a dump can be normalised again


def test_same_decisions_at_other_times_dump_identically(tmp_path: Path) -> None:
    start = datetime(2026, 12, 1, 6, 0, tzinfo=UTC)
    _write_journal(tmp_path / "a" / "journal.db", start, "a1" * 16, "58 Pa. Code § 531.3(a)")
    _write_journal(
        tmp_path / "b" / "journal.db",
        start + timedelta(hours=3),
        "b2" * 16,
        "58 Pa. Code § 531.3(a)",
    )
    _write_journal(tmp_path / "c" / "journal.db", start, "a1" * 16, "58 Pa. Code § 531.3(b)")
    a, b, c = (_dump(tmp_path / x / "journal.db") for x in "abc")
    assert a == b
    assert a != c
    records = [json.loads(line) for line in a]
    assert [r["kind"] for r in records] == ["event", "event", "snapshot"]
    assert records[0]["data"] == {"id": "<id:1>", "ts": "<ts>", "sig": "<sig>"}
    assert records[1]["data"] == {"by": "FP-1", "command": "<id:1>", "port": "<port>"}
    assert not {"ts", "prev", "hash"} & set(records[1])
    assert find_journals(tmp_path) == [tmp_path / x / "journal.db" for x in "abc"]


def test_file_name_is_safe_and_long_ids_stay_distinct() -> None:
    assert file_name("tests/test_x.py::test_y[a/b c]") == "tests_test_x.py_test_y_a_b_c.jsonl"
    long_a, long_b = "t.py::" + "a" * 300 + "[1]", "t.py::" + "a" * 300 + "[2]"
    assert file_name(long_a) != file_name(long_b)
    assert len(file_name(long_a)) < 255


def _recording(folder: Path, nodeid: str, lines: list[str], outcome: str = "passed") -> None:
    folder.mkdir(exist_ok=True)
    header = json.dumps({"kind": "test", "nodeid": nodeid, "outcome": outcome})
    (folder / file_name(nodeid)).write_text("".join(f"{x}\n" for x in [header, *lines]))


def test_compare_reports_identical_differs_missing_and_new(tmp_path: Path, capsys) -> None:
    before, after = tmp_path / "before", tmp_path / "after"
    _recording(before, "t.py::same", ['{"a": 1}'])
    _recording(after, "t.py::same", ['{"a": 1}'])
    _recording(before, "t.py::changed", ['{"a": 1}', '{"b": 2}'])
    _recording(after, "t.py::changed", ['{"a": 1}', '{"b": 3}'])
    _recording(before, "t.py::gone", [])
    _recording(after, "t.py::added", [])
    _recording(before, "t.py::timed_out", ['{"a": 1}'], outcome="failed")
    _recording(after, "t.py::timed_out", ['{"a": 1}'], outcome="failed")
    result = cmp.compare(cmp.load_dir(before), cmp.load_dir(after))
    assert result == {
        "t.py::same": ("identical", None),
        "t.py::changed": ("differs", (3, '{"b": 2}', '{"b": 3}')),
        "t.py::gone": ("missing", None),
        "t.py::added": ("new", None),
        "t.py::timed_out": ("identical", None),
    }
    assert cmp.main([str(before), str(after)]) == 1
    known = tmp_path / "known.txt"
    known.write_text("# timing\nt.py::changed\nt.py::gone  # flaky\n")
    written = tmp_path / "written.txt"
    assert cmp.main([str(before), str(after), "--nondeterministic", str(known),
                     "--write-nondeterministic", str(written)]) == 0  # fmt: skip
    unsure = {"t.py::changed", "t.py::gone", "t.py::added", "t.py::timed_out"}
    assert cmp.read_list(written) == unsure  # differing, in one run only, or failed
    printed = capsys.readouterr().out
    assert "== nondeterministic tests: 0 identical, 1 differs, 1 missing, 0 new" in printed
    assert 'before: {"b": 2}' in printed


def test_compare_applies_renames_to_the_before_side(tmp_path: Path) -> None:
    before, after = tmp_path / "before", tmp_path / "after"
    _recording(before, "tests/test_journal_chain.py::t", ['{"a": 1}'])
    _recording(after, "tests/journal/test_chain.py::t", ['{"a": 1}'])
    renamed = cmp.load_dir(before, [("tests/test_journal_chain.py", "tests/journal/test_chain.py")])
    # The header line carries the node id, so it is rewritten with it.
    assert cmp.compare(renamed, cmp.load_dir(after)) == {
        "tests/journal/test_chain.py::t": ("identical", None)
    }


def _demo_dump(path: Path, events: list[tuple[str, str | None, str, str]]) -> Path:
    lines = [
        json.dumps({"kind": "event", "stream": stream, "type": t, "rule": r, "source": s})
        for t, r, s, stream in events
    ]
    path.write_text("".join(f"{x}\n" for x in lines))
    return path


def test_demo_summary_fails_on_a_new_or_always_seen_triple_only(tmp_path: Path) -> None:
    spin = ("roulette.result", "58 Pa. Code § 531.5(a)", "engine", "RL-01")
    rare = ("roulette.no_spin", "58 Pa. Code § 531.7(a)", "engine", "RL-01")
    one = _demo_dump(tmp_path / "1.jsonl", [spin] * 10 + [rare])
    two = _demo_dump(tmp_path / "2.jsonl", [spin] * 14)
    summary = cmp.summarise(one)
    assert summary.counts == {"RL-01": Counter({"roulette.result": 10, "roulette.no_spin": 1})}
    befores = [cmp.summarise(one), cmp.summarise(two)]
    same = cmp.compare_demo(
        befores, cmp.summarise(_demo_dump(tmp_path / "a.jsonl", [spin] * 12)), 0.5
    )
    assert not [x for x in same if x.startswith("FAIL")]
    assert any(x.startswith("note rare triple") for x in same)
    recited = ("roulette.result", "58 Pa. Code § 531.5(b)", "engine", "RL-01")
    moved = cmp.compare_demo(
        befores, cmp.summarise(_demo_dump(tmp_path / "b.jsonl", [recited] * 12)), 0.5
    )
    assert sum(x.startswith("FAIL") for x in moved) == 2  # a new triple, an always-seen one gone
    alone = cmp.compare_demo(befores[:1], cmp.summarise(tmp_path / "b.jsonl"), 0.5)
    assert sum(x.startswith("FAIL") for x in alone) == 1  # one run before: missing is a note
    few = cmp.compare_demo(befores, cmp.summarise(_demo_dump(tmp_path / "c.jsonl", [spin])), 0.5)
    assert "note RL-01 roulette.result: 1 after, 10..14 before" in few
    assert not [x for x in few if x.startswith("FAIL")]
