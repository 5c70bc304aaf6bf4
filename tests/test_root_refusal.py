"""Root is refused where another user owns the journal's folder (a table box's
/var/lib/floord belongs to `floord`): every command that writes a journal says whose it
is and what to type instead, and writes nothing; a rig running as root in a folder root
owns runs. The commands run as separate processes, as an engineer types them (the suite
runs as root here; elsewhere the process tests are skipped, the unit tests still run)."""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import re
import shlex
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from e2e_support import start_daemon
from support import Broker

from floord.system.ownership import owner_name, root_refusal

pytestmark = pytest.mark.system

OTHER_UID = 65534  # `nobody` on Debian: a user that is not root
AS_ROOT = pytest.mark.skipif(os.geteuid() != 0, reason="the refusal is of root: run as root")


def _config(tmp: Path, broker_url: str, state: Path) -> Path:
    (tmp / "fp.key").write_text("a-floorperson-secret\n")
    body = {
        "site": "casino-1",
        "broker": {"url": broker_url},
        "journal": str(state / "journal.db"),
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
    path = tmp / "floord.yaml"
    path.write_text(yaml.safe_dump(body))
    return path


def _state(tmp: Path, uid: int) -> Path:
    state = tmp / "state"
    state.mkdir(mode=0o700)
    os.chown(state, uid, uid)
    return state


def _floord(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "floord", *args], capture_output=True, text=True, timeout=60
    )


def _journaled(journal: Path) -> list[str]:
    if not journal.exists():
        return []
    try:
        with contextlib.closing(sqlite3.connect(f"file:{journal}?mode=ro", uri=True)) as db:
            rows = db.execute("SELECT body FROM events ORDER BY stream, seq").fetchall()
    except sqlite3.OperationalError:  # being created
        return []
    return [json.loads(body)["type"] for (body,) in rows]


@AS_ROOT
@pytest.mark.parametrize(
    ("args", "prog"),
    [
        (["run"], "floord run"),
        (["adapter", "--table", "RL-01", "--device", "wheel"], "floord adapter"),
        (
            ["journal", "retire", "--table", "RL-01", "--as", "FP-1001", "--reason", "new wheel"],
            "floord journal retire",
        ),
    ],
)
def test_root_is_refused_where_the_service_user_owns_the_state(
    tmp_path: Path, args: list[str], prog: str
) -> None:
    state = _state(tmp_path, OTHER_UID)
    config = _config(tmp_path, "mqtt://127.0.0.1:1", state)
    where = args.index("--table") if "--table" in args else len(args)
    argv = [*args[:where], "-c", str(config), *args[where:]]
    done = _floord(*argv)
    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    owner = pwd.getpwuid(OTHER_UID).pw_name
    assert lines[0].startswith(f"{prog}: refused as root: {state} belongs to {owner}")
    assert lines[0].endswith(shlex.join(["sudo", "-u", owner, "floord", *argv])), lines[0]
    assert list(state.iterdir()) == []  # nothing written, no root-owned file left behind


@AS_ROOT
def test_root_is_refused_a_demo_journal_in_the_service_users_folder(tmp_path: Path) -> None:
    state = _state(tmp_path, OTHER_UID)
    done = _floord("demo", "--journal", str(state / "demo.db"), "--seconds", "5")
    assert done.returncode == 2
    [line] = done.stderr.strip().splitlines()
    assert line.startswith(f"floord demo: refused as root: {state} belongs to ")
    assert list(state.iterdir()) == []


@AS_ROOT
def test_a_journal_file_another_user_owns_is_named_in_a_root_folder(tmp_path: Path) -> None:
    """The owner is read from the journal's files too: a journal left by someone else."""
    state = _state(tmp_path, 0)
    (state / "journal.db").write_bytes(b"")
    os.chown(state / "journal.db", OTHER_UID, OTHER_UID)
    config = _config(tmp_path, "mqtt://127.0.0.1:1", state)
    done = _floord("run", "-c", str(config))
    assert done.returncode == 1
    assert f"{state / 'journal.db'} belongs to" in done.stderr


@AS_ROOT
def test_root_runs_a_rig_in_a_folder_root_owns(tmp_path: Path, broker: Broker) -> None:
    state = _state(tmp_path, 0)
    daemon = start_daemon(_config(tmp_path, broker.url, state))
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and daemon.proc.poll() is None:
            if "daemon.started" in _journaled(state / "journal.db"):
                break
            time.sleep(0.2)
        assert "daemon.started" in _journaled(state / "journal.db"), daemon.stderr_tail()
    finally:
        assert daemon.terminate() == 0, daemon.stderr_tail()


def test_only_root_is_refused(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    assert root_refusal(state / "journal.db", ["run"], euid=1000) is None


@AS_ROOT
def test_a_journal_folder_not_made_yet_is_judged_by_the_nearest_existing_one(
    tmp_path: Path,
) -> None:
    """`tables/` would be made by root inside the service user's folder: refused too."""
    state = _state(tmp_path, OTHER_UID)
    refusal = root_refusal(state / "tables" / "journal.db", ["run", "-c", "x.yaml"], euid=0)
    assert refusal is not None and f"{state} belongs to" in refusal
    assert root_refusal(tmp_path / "new" / "journal.db", ["run"], euid=0) is None


def test_a_uid_without_a_name_is_given_in_sudos_form() -> None:
    unnamed = next(uid for uid in range(54321, 60000) if not _has_name(uid))
    assert owner_name(unnamed) == f"#{unnamed}"


def _has_name(uid: int) -> bool:
    try:
        pwd.getpwuid(uid)
    except KeyError:
        return False
    return True


def test_the_readme_runs_the_box_daemons_as_floord() -> None:
    """Every README command that runs a daemon (or writes a journal) on a box's paths
    shows `sudo -u floord`, as the units run them."""
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    writers = re.compile(r"floord (run|adapter|journal retire) .*-c /etc/floord/")
    lines = [line.strip() for line in readme.splitlines() if writers.search(line)]
    assert lines, "the README shows how to run the daemon on a box"
    for line in lines:
        assert line.startswith("sudo -u floord floord "), line
