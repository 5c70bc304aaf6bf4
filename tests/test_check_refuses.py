"""`floord check` refuses every config `floord run` refuses (issue 12, item 7).

Each case below is a box whose `run` stops at start; `check` must say so first, in its
one-line `FILE: KEY.PATH: expected, found` form and without a traceback. Some need the
journal: a table whose wheel or game was changed while the journal holds the old state
(under systemd, `run` refusing it is a restart loop of the whole box). That state is
retired deliberately with `floord journal retire`, on the record, tested here too.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

from floord.cli.main import main
from floord.config.load import load_config
from floord.journal.audit import verify_journal
from floord.processes.daemon import Daemon
from floord.profiles import PROFILES_DIR

pytestmark = pytest.mark.system

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
    daemon.restore()
    if halted:
        runner = daemon.tables["RL-01"].runner
        runner.record_output(runner.engine.halt("operator_test", "a test halt", NOW), NOW)
    daemon.journal.close()


def _table(body: dict[str, Any]) -> dict[str, Any]:
    table: dict[str, Any] = body["tables"][0]
    return table


# Each case: (what it does to the box, the KEY.PATH `check` names, words its line holds).
def _misspelled_tag(tmp: Path, body: dict[str, Any]) -> None:
    _table(body)["gmae"] = _table(body).pop("game")


def _unknown_game(tmp: Path, body: dict[str, Any]) -> None:
    _table(body)["game"] = "roulete"


def _unknown_key(tmp: Path, body: dict[str, Any]) -> None:
    _table(body)["rules"]["colour"] = "red"


def _no_port_number(tmp: Path, body: dict[str, Any]) -> None:
    _table(body)["devices"][0]["port"] = "socket://127.0.0.1"


def _broker_port(tmp: Path, body: dict[str, Any]) -> None:
    body["broker"]["url"] = "mqtt://127.0.0.1:99999"


def _journal_under_a_file(tmp: Path, body: dict[str, Any]) -> None:
    (tmp / "state").write_text("a regular file\n")
    body["journal"] = "state/journal.db"


def _key_missing(tmp: Path, body: dict[str, Any]) -> None:
    (tmp / "fp.key").unlink()


def _custom_profile(tmp: Path, body: dict[str, Any], old: str, new: str) -> None:
    text = (PROFILES_DIR / "cammegh-ss2.yaml").read_text()
    assert old in text
    (tmp / "my-ss2.yaml").write_text(text.replace(old, new))
    _table(body)["devices"][0]["profile"] = str(tmp / "my-ss2.yaml")


def _mistyped_quirk(tmp: Path, body: dict[str, Any]) -> None:
    _custom_profile(tmp, body, "failed_launch_grace_s:", "failed_lanch_grace_s:")


def _no_such_driver(tmp: Path, body: dict[str, Any]) -> None:
    _custom_profile(tmp, body, "driver: cammegh_ss2.driver", "driver: cammegh_ss3.driver")


def _wheel_changed(tmp: Path, body: dict[str, Any]) -> None:
    _played(tmp)
    _table(body)["rules"]["wheel"] = "double_zero"


def _game_changed(tmp: Path, body: dict[str, Any]) -> None:
    _played(tmp)
    _table(body).update(
        game="big_six",
        rules={},
        devices=[{"id": "wheel", "profile": "ref-big-six", "port": "socket://127.0.0.1:1"}],
    )


def _newer_journal(tmp: Path, body: dict[str, Any]) -> None:
    _played(tmp)
    with sqlite3.connect(tmp / "journal.db") as db:
        db.execute("UPDATE meta SET value = '9' WHERE key = 'schema_version'")
    db.close()


def _not_a_journal(tmp: Path, body: dict[str, Any]) -> None:
    (tmp / "journal.db").write_bytes(b"not a database, whatever it is " * 200)


REFUSALS: list[tuple[Callable[[Path, dict[str, Any]], None], str, tuple[str, ...]]] = [
    (_misspelled_tag, "tables.0.game", ("one of roulette, blackjack", "'gmae'")),
    (_unknown_game, "tables.0.game", ("one of roulette, blackjack", "found 'roulete'")),
    (_unknown_key, "tables.0.rules.colour", ("unknown key", "allowed keys: wheel")),
    (_no_port_number, "tables.0.devices.0.port", ("port",)),
    (_broker_port, "broker.url", ("99999",)),
    (_journal_under_a_file, "journal", ("a path under a folder expected",)),
    (_key_missing, "operators.0.key_file", ("fp.key",)),
    (_mistyped_quirk, "tables.0.devices.0.profile", ("quirks.failed_launch_grace_s",)),
    (_no_such_driver, "tables.0.devices.0.profile", ("cammegh_ss3",)),
    (_wheel_changed, "tables.0", ("wheel 'single_zero'", "floord journal retire")),
    (_game_changed, "tables.0", ("big_six", "floord journal retire")),
    (_newer_journal, "journal", ("schema version 3 or older", "'9'")),
    (_not_a_journal, "journal", ("a floord journal (SQLite) expected",)),
]


@pytest.mark.parametrize(
    ("change", "key", "words"), REFUSALS, ids=[c.__name__.strip("_") for c, _, _ in REFUSALS]
)
def test_check_refuses_what_run_refuses(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    change: Callable[[Path, dict[str, Any]], None],
    key: str,
    words: tuple[str, ...],
) -> None:
    body = _body(tmp_path)
    change(tmp_path, body)
    path = _write(tmp_path, body)
    ran = subprocess.run(
        [sys.executable, "-m", "floord", "run", "-c", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert ran.returncode != 0, ("run started", ran.stdout, ran.stderr)
    assert main(["check", "-c", str(path)]) == 1
    out = capsys.readouterr()
    [line] = out.out.strip().splitlines()
    assert line.startswith(f"{path}: {key}: "), line
    for word in words:
        assert word in line, (word, line)
    assert "Traceback" not in out.out + out.err
    assert "{" not in line.split(": ", 2)[2] or "retire" in line  # no table dumped


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
    daemon.restore()
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
