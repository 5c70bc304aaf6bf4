"""`floord archive`'s config and `--check`: every problem one line naming the file and
the key; the check opens the database read-only and writes nothing; PostgreSQL without
its extra is one line naming the extra."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest
import yaml

from floord.archive import postgres
from floord.archive.settings import load_archive_config
from floord.archive.sqlite_store import SqliteStore
from floord.cli.main import main
from floord.config.load import ConfigError
from floord.system.extras import MissingExtra

pytestmark = pytest.mark.unit

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _config(tmp_path: Path, **changes: object) -> Path:
    (tmp_path / "a.key").write_text("archive-secret\n")
    body = {
        "broker": {"url": "mqtt://127.0.0.1:1883"},
        "operator": {"id": "ARCHIVE-1", "key_file": "a.key"},
        "sqlite": "archive.db",
        **changes,
    }
    path = tmp_path / "archive.yaml"
    path.write_text(yaml.safe_dump({k: v for k, v in body.items() if v is not None}))
    return path


def test_the_example_config_loads() -> None:
    loaded = load_archive_config(EXAMPLES / "archive.yaml")
    assert loaded.config.database is None
    assert loaded.sqlite_path == Path("/var/lib/floord-archive/archive.db")
    assert "floor/v1/+/+/devices/+/events" in loaded.topics()


@pytest.mark.parametrize(
    ("changes", "line"),
    [
        ({"databse": "x"}, "databse"),
        ({"database": "mysql://db/x"}, "database: a postgresql://"),
        ({"operator": None}, "operator: "),
        ({"sites": ["a/b"]}, "sites: site names without"),
        ({"database_password_file": "pw"}, "database_password_file: a readable file"),
        ({"client_id": "has space"}, "client_id: "),
        ({"batch": {"events": 0}}, "batch.events: a number of at least 1"),
    ],
)
def test_a_bad_config_is_one_line_naming_its_key(
    tmp_path: Path, changes: dict[str, object], line: str
) -> None:
    path = _config(tmp_path, **changes)
    with pytest.raises(ConfigError) as refused:
        load_archive_config(path)
    assert any(p.startswith(f"{path}: ") and line in p for p in refused.value.problems), (
        refused.value.problems
    )


def test_check_says_what_it_found_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _config(tmp_path)
    assert main(["archive", "-c", str(path), "--check"]) == 0
    assert "a new SQLite archive" in capsys.readouterr().out
    assert not (tmp_path / "archive.db").exists()
    store = SqliteStore(tmp_path / "archive.db")
    store.migrate()
    store.close()
    assert main(["archive", "-c", str(path), "--check"]) == 0
    assert "at schema version 1 (this floord's: 1), 0 events held" in capsys.readouterr().out
    store = SqliteStore(tmp_path / "archive.db")
    store._execute("INSERT INTO archive_schema (version) VALUES (99)")
    store._commit()
    store.close()
    assert main(["archive", "-c", str(path), "--check"]) == 1
    err = capsys.readouterr().err
    assert "schema version 99, newer than this floord's 1" in err and "Traceback" not in err


@pytest.mark.parametrize("kind", ["fifo", "folder"])
def test_an_archive_file_that_is_not_a_regular_file_is_refused_at_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    """A FIFO at the archive's path would block SQLite's open, and the check, forever."""
    path = _config(tmp_path)
    if kind == "fifo":
        os.mkfifo(tmp_path / "archive.db")
    else:
        (tmp_path / "archive.db").mkdir()
    assert main(["archive", "-c", str(path), "--check"]) == 1
    err = capsys.readouterr().err
    assert f"the archive file {tmp_path / 'archive.db'} is not a regular file" in err


def test_postgresql_without_the_extra_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "psycopg" else real(name)
    )
    with pytest.raises(MissingExtra, match=r"'archive' extra .*pip install 'floord\[archive\]'"):
        postgres.require_psycopg()
    assert postgres.redacted("postgresql://u:pw@h:5/d") == "postgresql://u:***@h:5/d"
