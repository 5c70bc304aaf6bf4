"""`floord check` refuses every config `floord run` refuses.

Each case below is a box whose `run` stops at start; `check` must say so first, in its
one-line `FILE: KEY.PATH: expected, found` form and without a traceback. Some need the
journal: a table whose wheel or game was changed while the journal holds the old state
(under systemd, `run` refusing it is a restart loop of the whole box). That state is
retired deliberately with `floord journal retire`, on the record: `test_check_refuses.py`.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_check_refuses import _body, _played, _table, _write

from floord.cli.main import main
from floord.profiles import PROFILES_DIR

pytestmark = pytest.mark.system


def _custom_profile(tmp: Path, body: dict[str, Any], old: str, new: str) -> None:
    text = (PROFILES_DIR / "cammegh-ss2.yaml").read_text()
    assert old in text
    (tmp / "my-ss2.yaml").write_text(text.replace(old, new))
    _table(body)["devices"][0]["profile"] = str(tmp / "my-ss2.yaml")


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


def _mistyped_quirk(tmp: Path, body: dict[str, Any]) -> None:
    _custom_profile(tmp, body, "failed_launch_grace_s:", "failed_lanch_grace_s:")


def _no_such_driver(tmp: Path, body: dict[str, Any]) -> None:
    _custom_profile(tmp, body, "driver: cammegh_ss2.driver", "driver: cammegh_ss3.driver")


def _shuffler_at_minibaccarat(tmp: Path, body: dict[str, Any]) -> None:
    _table(body).update(
        game="minibaccarat",
        rules={},
        devices=[
            {"id": "shoe", "profile": "ref-shoe-recognition", "port": "socket://127.0.0.1:1"},
            {"id": "csm", "profile": "ref-shuffler-csm", "port": "socket://127.0.0.1:2"},
        ],
    )


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


def _older_journal_claimed(tmp: Path, body: dict[str, Any]) -> None:
    _played(tmp)
    with sqlite3.connect(tmp / "journal.db") as db:
        db.execute("UPDATE meta SET value = '2' WHERE key = 'schema_version'")
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
    (
        _shuffler_at_minibaccarat,
        "tables.0.devices.1",
        (
            "a dealing shoe's profile on a minibaccarat table expected",
            "§ 541.4(d)",
            "§ 541.3(b)",
            "found device 'csm' of profile 'ref-shuffler-csm' (card_shuffler)",
        ),
    ),
    (_wheel_changed, "tables.0", ("wheel 'single_zero'", "floord journal retire")),
    (_game_changed, "tables.0", ("big_six", "floord journal retire")),
    (_newer_journal, "journal", ("schema version 3 or older", "'9'")),
    (
        _older_journal_claimed,
        "journal",
        ("schema version 2 is recorded", "snapshots.after_seq", "its version was edited"),
    ),
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
