"""`floord journal retire` sets a stale table state aside on the record and refuses a state
that fits; the unchanged box passes `check` with its journal. The cases `check` must
refuse, each through `floord check` as a process, are in `test_check_refuses_system.py`.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml
from table_turns import restore

from floord.cli.main import main
from floord.config.load import load_config
from floord.journal.audit import verify_journal
from floord.processes.daemon import Daemon

pytestmark = pytest.mark.unit

NOW = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)


def _body(tmp: Path) -> dict[str, Any]:
    (tmp / "fp.key").write_text("floorperson secret\n")
    (tmp / "dl.key").write_text("dealer secret\n")
    return {
        "site": "casino-1",
        "broker": {"url": "mqtt://127.0.0.1:1"},
        "journal": "journal.db",
        "operators": [
            {"id": "FP-1001", "role": "floorperson", "key_file": "fp.key"},
            {"id": "DL-2001", "role": "dealer", "key_file": "dl.key"},
        ],
        "tables": [
            {
                "id": "RL-01",
                "game": "roulette",
                "rules": {"wheel": "single_zero"},
                "devices": [
                    {"id": "wheel", "profile": "cammegh-ss2", "port": "socket://127.0.0.1:1"}
                ],
            }
        ],
    }


def _write(tmp: Path, body: dict[str, Any]) -> Path:
    path = tmp / "floord.yaml"
    path.write_text(yaml.safe_dump(body, sort_keys=False))
    return path


def _played(tmp: Path, halted: bool = False) -> None:
    """A journal as `run` leaves it: the table restored and snapshotted (and halted)."""
    daemon = Daemon(load_config(_write(tmp, _body(tmp))), clock=lambda: NOW)
    restore(daemon)
    if halted:
        runner = daemon.tables["RL-01"].runner
        halt = runner.engine.halt("operator_test", "a test halt", NOW)
        asyncio.run(runner.record_output(halt, NOW))
    daemon.journal.close()


def _table(body: dict[str, Any]) -> dict[str, Any]:
    table: dict[str, Any] = body["tables"][0]
    return table


def test_the_unchanged_box_passes_check_with_its_journal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _played(tmp_path)
    assert main(["check", "-c", str(_write(tmp_path, _body(tmp_path)))]) == 0
    assert ": ok: site casino-1" in capsys.readouterr().out


def _journal(tmp: Path) -> list[dict[str, Any]]:
    with sqlite3.connect(tmp / "journal.db") as db:
        rows = db.execute("SELECT body FROM events WHERE stream = 'RL-01' ORDER BY seq").fetchall()
    db.close()
    return [json.loads(r[0]) for r in rows]


def _retire(path: Path, *extra: str) -> list[str]:
    return ["journal", "retire", "-c", str(path), "--table", "RL-01", *extra]


def test_retire_sets_a_stale_state_aside_on_the_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _played(tmp_path, halted=True)
    body = _body(tmp_path)
    _table(body)["rules"]["wheel"] = "double_zero"
    path = _write(tmp_path, body)
    before = _journal(tmp_path)
    capsys.readouterr()  # the daemon's log lines
    # Refused: no reason; a dealer; an operator not in the config. Nothing written.
    for extra, said in (
        (("--as", "FP-1001", "--reason", " "), "a reason is required"),
        (("--as", "DL-2001", "--reason", "new wheel"), "DL-2001 is a dealer"),
        (("--as", "FP-9", "--reason", "new wheel"), "no operator 'FP-9'"),
    ):
        assert main(_retire(path, *extra)) == 1
        [line] = capsys.readouterr().err.strip().splitlines()
        assert line.startswith("floord journal retire: ") and said in line, line
    assert _journal(tmp_path) == before

    assert main(_retire(path, "--as", "FP-1001", "--reason", "wheel replaced by a 00 wheel")) == 0
    assert "state retired on the record" in capsys.readouterr().out
    retired = _journal(tmp_path)[-1]
    assert retired["type"] == "table.retired" and retired["seq"] == before[-1]["seq"] + 1
    data = retired["data"]
    assert (data["by"], data["role"], data["game"]) == ("FP-1001", "floorperson", "roulette")
    assert data["reason"] == "wheel replaced by a 00 wheel"
    assert "single_zero" in data["mismatch"] and data["snapshot"]["wheel"] == "single_zero"
    assert [r["code"] for r in data["snapshot"]["halt_reasons"]] == ["operator_test"]
    assert retired["source"] == "operator:FP-1001" and retired["rule"] is None
    # The halt it latched is on the record and in no snapshot now: `verify` says so
    # until the next start halts the table again (below).
    broken = verify_journal(tmp_path / "journal.db").broken
    assert broken is not None and broken.kind == "halt_unsupported"

    # Now check passes; a second retire finds nothing to retire.
    assert main(["check", "-c", str(path)]) == 0
    capsys.readouterr()
    assert main(_retire(path, "--as", "FP-1001", "--reason", "again")) == 1
    assert "no state" in capsys.readouterr().err

    # The retire lifted nothing: the table was halted, so it starts halted again.
    daemon = Daemon(load_config(path), clock=lambda: NOW)
    restore(daemon)
    state = daemon.tables["RL-01"].runner.state()
    daemon.journal.close()
    assert state["state"] == "halted"
    assert "journal_integrity" in json.dumps(state)
    assert verify_journal(tmp_path / "journal.db").broken is None


def test_retire_refuses_a_state_that_fits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _played(tmp_path)
    path = _write(tmp_path, _body(tmp_path))
    before = _journal(tmp_path)
    assert main(_retire(path, "--as", "FP-1001", "--reason", "just because")) == 1
    assert "fits its config" in capsys.readouterr().err
    assert _journal(tmp_path) == before
