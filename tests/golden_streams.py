"""`--record-streams DIR`: the journals each test wrote, dumped as golden event streams.

Off unless asked. With it, after each test (fixtures torn down, daemons stopped) every
floord journal under the test's `tmp_path` is dumped, normalised by
`scripts/golden_journal.py`, to `DIR/<sanitised node id>.jsonl`; its first line names the
test and its outcome. Journals are found by scanning the directory, not by hooking
floord's `Journal` class, so daemons run as subprocesses are covered too and the plugin
does not depend on where that class lives. `scripts/compare-streams.py` compares two
such directories (before and after a refactor).

Not covered: journals a test writes outside its `tmp_path` (`tempfile.mkdtemp`, a
module-scoped `tmp_path_factory` folder), and MQTT traffic (the journal is the record;
what is published is the same bytes).
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))

from golden_journal import dump_lines, find_journals

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")
_MAX_NAME = 180
_RANK = {"passed": 0, "skipped": 1, "failed": 2}


def file_name(nodeid: str) -> str:
    """A file name for a node id: unsafe runs become `_`; a long one keeps a hash suffix."""
    name = _UNSAFE.sub("_", nodeid).strip("_") or "_"
    if len(name) > _MAX_NAME:
        digest = hashlib.sha256(nodeid.encode()).hexdigest()[:12]
        name = f"{name[:_MAX_NAME]}-{digest}"
    return name + ".jsonl"


class Recorder:
    """Per-test state: the test's tmp_path and its worst phase outcome."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.tmp: dict[str, Path] = {}
        self.outcome: dict[str, str] = {}

    def note_report(self, report: pytest.TestReport) -> None:
        outcome = "skipped" if report.skipped else "failed" if report.failed else "passed"
        old = self.outcome.get(report.nodeid, "passed")
        self.outcome[report.nodeid] = max(old, outcome, key=_RANK.__getitem__)

    def dump(self, nodeid: str) -> None:
        tmp = self.tmp.pop(nodeid, None)
        journals = find_journals(tmp) if tmp is not None else []
        roots = [str(tmp), str(tmp.resolve())] if tmp is not None else []
        named = [(p, str(p.relative_to(tmp))) for p in journals] if tmp is not None else []
        header: dict[str, Any] = {
            "kind": "test",
            "nodeid": nodeid,
            "outcome": self.outcome.pop(nodeid, "unknown"),
            "journals": [name for _, name in named],
        }
        try:
            lines = dump_lines(named, roots)
        except Exception as exc:  # a half-written file must not stop the recording
            lines = [json.dumps({"kind": "dump_error", "error": type(exc).__name__})]
        text = json.dumps(header) + "\n" + "".join(line + "\n" for line in lines)
        (self.out / file_name(nodeid)).write_text(text, encoding="utf-8")


_KEY = pytest.StashKey[Recorder]()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--record-streams",
        metavar="DIR",
        default=None,
        help="dump each test's floord journals, normalised, to DIR/<test>.jsonl",
    )


def pytest_configure(config: pytest.Config) -> None:
    where = config.getoption("--record-streams", default=None)
    if where:
        out = Path(where).resolve()
        out.mkdir(parents=True, exist_ok=True)
        config.stash[_KEY] = Recorder(out)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, None, None]:
    result = yield
    recorder = item.config.stash.get(_KEY, None)
    funcargs = getattr(item, "funcargs", {})
    if recorder is not None and isinstance(funcargs.get("tmp_path"), Path):
        recorder.tmp[item.nodeid] = funcargs["tmp_path"]
    return result


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    recorder = item.config.stash.get(_KEY, None)
    if recorder is not None:
        recorder.note_report(report)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, object, object]:
    try:
        return (yield)
    finally:
        recorder = item.config.stash.get(_KEY, None)
        if recorder is not None:
            recorder.dump(item.nodeid)
