"""A bench's children end with it, however it ends (`bench.proc_stats.dies_with_bench`):
a daemon left behind keeps reopening its pty's path and shares the line of whatever is
given that pty next."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.system  # processes

REPO = Path(__file__).resolve().parent.parent
# A bench in miniature: it starts a child that would sleep for a minute, says its pid,
# and waits to be killed.
BENCH = """
import subprocess, sys, time
from bench.proc_stats import dies_with_bench
kwargs = {"preexec_fn": dies_with_bench()} if sys.argv[1] == "tied" else {}
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], **kwargs)
print(child.pid, flush=True)
time.sleep(60)
"""


def _running(pid: int) -> bool:
    """`pid` exists and is not a zombie (an orphan's zombie is reaped by init)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def _child_after_the_bench_is_killed(how: str) -> int:
    bench = subprocess.Popen(
        [sys.executable, "-c", BENCH, how], cwd=REPO, stdout=subprocess.PIPE, text=True
    )
    assert bench.stdout is not None
    child = int(bench.stdout.readline())
    assert _running(child)
    bench.send_signal(signal.SIGKILL)  # no finally, no atexit: the bench just goes
    bench.wait(10)
    bench.stdout.close()
    return child


def test_a_child_started_with_it_ends_when_the_bench_is_killed() -> None:
    child = _child_after_the_bench_is_killed("tied")
    deadline = time.monotonic() + 10
    while _running(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _running(child)


def test_without_it_the_child_outlives_the_killed_bench() -> None:
    """What the above guards against, so that it is shown to guard."""
    child = _child_after_the_bench_is_killed("free")
    try:
        time.sleep(0.5)
        assert _running(child)
    finally:
        os.kill(child, signal.SIGKILL)
