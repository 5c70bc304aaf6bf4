"""`floord run`, as its own process, stops on each reported case with the lines
`floord check` gives, no traceback. The in-process cases are in
`test_run_start_errors.py`.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from test_run_start_errors import _body, _write

pytestmark = pytest.mark.system


def test_the_reported_cases_stop_run_with_the_check_lines(tmp_path: Path) -> None:
    """The issue's two reproductions, as an operator runs them: a broker port of 99999,
    a journal under a regular file."""
    (tmp_path / "state").write_text("a regular file\n")
    for top, where in (
        ({"broker": {"url": "mqtt://127.0.0.1:99999"}}, "broker.url: "),
        ({"journal": "state/journal.db"}, "journal: a path under a folder expected"),
    ):
        path = _write(tmp_path, _body(tmp_path, **top))
        for command in ("check", "run"):
            done = subprocess.run(
                [sys.executable, "-m", "floord", command, "-c", str(path)],
                capture_output=True,
                text=True,
                timeout=60,
            )
            assert done.returncode == 1, (command, done.stdout, done.stderr)
            out = (done.stdout + done.stderr).strip().splitlines()
            assert len(out) == 1 and out[0].startswith(f"{path}: {where}"), (command, out)
