"""The golden-stream plugin in a pytest run of its own, and `floord demo` keeping its
journal when asked: both as subprocesses. The tools' pure checks are in
`test_golden_streams.py`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_golden_streams import (
    ROOT,
    _dump,
)

pytestmark = pytest.mark.system


def test_the_plugin_records_a_tests_journal(tmp_path: Path) -> None:
    """A real pytest run with `--record-streams`: the journal in tmp_path is dumped."""
    (tmp_path / "test_one.py").write_text(
        "from floord.contract import Envelope\n"
        "from floord.journal.store import Journal\n"
        "def test_writes(tmp_path):\n"
        "    j = Journal(tmp_path / 'sub' / 'j.db')\n"
        "    j.append('T', lambda s: Envelope(site='s', table='T', seq=s,\n"
        "             ts='2026-01-01T00:00:00.000000Z', type='x.y', source='engine'))\n"
        "    j.close()\n"
        "def test_nothing():\n"
        "    pass\n"
    )
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "golden_streams",
         "--record-streams", str(out), "test_one.py"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
        env={"PYTHONPATH": str(ROOT / "tests"), "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    lines = (out / "test_one.py_test_writes.jsonl").read_text().splitlines()
    header, event = json.loads(lines[0]), json.loads(lines[1])
    assert header == {
        "kind": "test",
        "nodeid": "test_one.py::test_writes",
        "outcome": "passed",
        "journals": ["sub/j.db"],
    }
    assert (event["journal"], event["stream"], event["seq"], event["type"]) == (
        "sub/j.db",
        "T",
        1,
        "x.y",
    )
    assert len((out / "test_one.py_test_nothing.jsonl").read_text().splitlines()) == 1


def test_the_demo_keeps_its_journal_when_asked_and_never_reuses_one(tmp_path: Path) -> None:
    """`floord demo --journal PATH`: the record is kept for a golden dump; an existing
    file is refused (a demo resuming an old journal would not be the demo)."""
    journal = tmp_path / "demo.db"
    demo = [sys.executable, "-m", "floord", "demo", "--seconds", "6", "--journal", str(journal)]
    done = subprocess.run(
        demo, capture_output=True, text=True, timeout=90, stdin=subprocess.DEVNULL
    )
    assert done.returncode == 0, done.stderr[-2000:]
    records = [json.loads(line) for line in _dump(journal)]
    started = [r["stream"] for r in records if r.get("type") == "daemon.started"]
    stopped = [r["stream"] for r in records if r.get("type") == "daemon.stopped"]
    assert "RL-01" in started and sorted(started) == sorted(stopped)
    again = subprocess.run(demo, capture_output=True, text=True, timeout=30)
    assert again.returncode == 2
    assert "exists" in again.stderr and "Traceback" not in again.stderr
