"""`floord run` never answers a config or environment problem with a traceback (issue
10, failure 5): `floord check` refuses each one first (run checks the config too), and
what can only show at start (the journal's folder gone since the check, a key file
removed) is one line on stderr and exit code 1."""

from __future__ import annotations

import gc
import shutil
from pathlib import Path

import pytest
import yaml

from floord.cli.main import main, run_loaded
from floord.config.load import load_config

pytestmark = pytest.mark.unit


def _body(tmp: Path, **top: object) -> dict:
    (tmp / "fp.key").write_text("secret\n")
    body = {
        "site": "casino-1",
        "broker": {"url": "mqtt://127.0.0.1:1"},
        "journal": "journal.db",
        "operators": [{"id": "FP-1001", "role": "floorperson", "key_file": "fp.key"}],
        "tables": [
            {
                "id": "RL-01",
                "game": "roulette",
                "rules": {"wheel": "single_zero"},
                "devices": [{"id": "wheel", "profile": "cammegh-ss2", "port": "/dev/null"}],
            }
        ],
    }
    body.update(top)
    return body


def _write(tmp: Path, body: dict) -> Path:
    path = tmp / "floord.yaml"
    path.write_text(yaml.safe_dump(body))
    return path


@pytest.mark.parametrize(
    ("text", "found"),
    [
        (b"site: caf\xe9\n", "(file): UTF-8 text expected, found byte 0xe9 at offset 9"),
        (b"site: " + b"[" * 5000 + b"]" * 5000 + b"\n", "(file): YAML of a usable depth"),
        (b'site: "a\\x1b[2J"\n', "site: text without control characters expected"),
        (b'site: "\\ud800"\n', "site: text without control characters expected, found a lone"),
    ],
)
def test_check_and_run_refuse_unreadable_config_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: bytes, found: str
) -> None:
    path = tmp_path / "floord.yaml"
    path.write_bytes(text)
    assert main(["check", "-c", str(path)]) == 1
    [line] = capsys.readouterr().out.strip().splitlines()
    assert line.startswith(f"{path}: {found}")
    # A future an earlier test left for the collector would log into this test's stderr.
    gc.collect()
    capsys.readouterr()
    assert main(["run", "-c", str(path)]) == 1
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"{path}: {found}")


def test_a_nul_in_a_path_is_refused_by_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = _body(tmp_path, journal="jour\x00nal.db")
    body["operators"][0]["key_file"] = "fp\x00.key"
    assert main(["check", "-c", str(_write(tmp_path, body))]) == 1
    lines = capsys.readouterr().out.strip().splitlines()
    assert [line.split(": ")[1] for line in lines] == ["journal", "operators.0.key_file"]


def test_what_changed_since_the_check_is_one_line_at_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    loaded = load_config(_write(tmp_path, _body(tmp_path, journal="var/journal.db")))
    # The journal's folder became a regular file after the check.
    (tmp_path / "var").write_text("not a folder any more\n")
    assert run_loaded(loaded) == 1
    err = capsys.readouterr().err
    [line] = err.strip().splitlines()
    assert line.startswith(f"floord run: cannot start: journal {tmp_path / 'var' / 'journal.db'}")
    assert "Traceback" not in err
    # An operator's key file removed after the check.
    (tmp_path / "var").unlink()
    (tmp_path / "fp.key").unlink()
    assert run_loaded(loaded) == 1
    err = capsys.readouterr().err
    [line] = err.strip().splitlines()
    assert line.startswith("floord run: cannot start: ") and "fp.key" in line
    shutil.rmtree(tmp_path / "var", ignore_errors=True)
