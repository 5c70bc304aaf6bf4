"""`floord check`, run as its own process, refuses a Stud limit above the ceiling
(§ 571.12(b)). The other rulings are checked in `test_config_rulings.py`.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from test_config_rulings import _body, _stud_table, _write

pytestmark = pytest.mark.system


def test_floord_check_refuses_a_stud_limit_above_the_ceiling_571_12_b(tmp_path) -> None:
    """§ 571.12(b) through the command line: "may not exceed $50,000 or the maximum amount
    that one patron could win per round when betting the minimum wager, whichever is
    greater"; `floord check` says so and exits 1."""
    run = [sys.executable, "-m", "floord", "check", "-c"]
    good = _write(tmp_path, _body(tmp_path, _stud_table(aggregate_payout_limit=25_000)))
    ok = subprocess.run([*run, str(good)], capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    bad = _write(tmp_path, _body(tmp_path, _stud_table(aggregate_payout_limit=1_000_000)))
    failed = subprocess.run([*run, str(bad)], capture_output=True, text=True, timeout=60)
    assert failed.returncode == 1
    assert "§ 571.12(b)'s ceiling of $50,000" in failed.stdout
