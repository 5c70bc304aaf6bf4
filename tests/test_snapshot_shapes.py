"""A table's state in the journal edited into a shape the engine or its watcher cannot
take: `check` and `run` refuse it in one line naming the table and the journal, where
either printed a traceback (`floord.processes.table_units.build_engine`)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from test_check_refuses import _body, _played, _write

from floord.cli.main import main
from floord.config.load import load_config
from floord.engine.core.snapshots import SnapshotError
from floord.journal.store import Journal
from floord.processes.daemon import Daemon

pytestmark = pytest.mark.unit


def edited(tmp: Path, key: str, value: Any) -> None:
    """The snapshot's `key` set to `value` (its hash left as it was: an edit)."""
    db = sqlite3.connect(tmp / "journal.db")
    try:
        (text,) = db.execute("SELECT state FROM snapshots WHERE table_id = 'RL-01'").fetchone()
        state = json.loads(text)
        state[key] = value
        db.execute("UPDATE snapshots SET state = ? WHERE table_id = 'RL-01'", (json.dumps(state),))
        db.commit()
    finally:
        db.close()


CASES = [
    ("devices", -1),
    ("devices", {"wheel": 1}),
    ("round_counter", -1),
    ("inspection", -1),
    ("inspection", "x"),
    ("surveillance", -1),
    ("surveillance", {"alerts": [1], "raised": 1}),
    ("surveillance", {"alerts": [], "raised": 1e308}),
    ("surveillance", {"alerts": [], "raised": "x"}),
]


@pytest.mark.parametrize(("key", "value"), CASES)
def test_check_and_the_start_refuse_a_state_of_the_wrong_shape_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], key: str, value: Any
) -> None:
    _played(tmp_path)
    edited(tmp_path, key, value)
    config = _write(tmp_path, _body(tmp_path))

    assert main(["check", "-c", str(config)]) == 1
    out = capsys.readouterr()
    said = out.out + out.err
    assert "Traceback" not in said
    assert f"RL-01's state in {tmp_path / 'journal.db'}" in said
    assert "journal retire" in said

    # The daemon's build of its tables, as `run` opens it: one SnapshotError, its line
    # printed by `floord run: cannot start:` (a ValueError).
    with pytest.raises(SnapshotError) as refused:
        Daemon(load_config(config))
    assert str(refused.value).startswith(f"RL-01's state in {tmp_path / 'journal.db'}: ")
    assert Journal(tmp_path / "journal.db").close() is None  # the failed start let it go
