"""`floord check` as a process: exit code 0 for a good config, 1 and one FILE: line per
problem for a bad one. The validation itself is in `test_config.py`.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from test_config import _valid, _write

pytestmark = pytest.mark.system


def test_floord_check_cli(tmp_path: Path) -> None:
    good = _write(tmp_path, _valid(tmp_path))
    run = [sys.executable, "-m", "floord", "check", "-c"]
    ok = subprocess.run([*run, str(good)], capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    body = _valid(tmp_path)
    body["broker"]["url"] = "http://x"
    body["site"] = "bad site"
    bad = _write(tmp_path, body)
    failed = subprocess.run([*run, str(bad)], capture_output=True, text=True, timeout=60)
    assert failed.returncode == 1
    lines = failed.stdout.strip().splitlines()
    assert len(lines) == 2
    assert all(line.startswith(f"{bad}: ") for line in lines)
