"""`floord capture` on a real pty: bytes, times and sends recorded; a capture made golden.

The device's side of the pty writes SS2 lines in pieces with pauses; `floord capture`
(a real subprocess) records them; the converted golden case is read back with the SS2
golden reader the driver tests use, and gives back exactly the lines written.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
import tty
from pathlib import Path

import pytest

from floord.tools.capture import read_capture

pytestmark = pytest.mark.system


LINES = [b"*X;6;010;23;0;000;0\r\n", b"*X;1;011;23;0;154;0\r\n", b"17\r\n"]


def _floord(*args: str, **kwargs) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen([sys.executable, "-m", "floord", *args], env=env, **kwargs)


def _capture_on_a_pty(tmp_path: Path, *extra: str) -> tuple[Path, bytes]:
    """Run a 3 s capture on a new pty while its device side writes LINES in pieces."""
    master, slave = os.openpty()
    tty.setraw(slave)
    out = tmp_path / "capture.jsonl"
    proc = _floord("capture", "--port", os.ttyname(slave), "--baud", "9600", "--seconds", "3",
                   "--out", str(out), *extra, stderr=subprocess.PIPE)  # fmt: skip
    heard = b""
    try:
        deadline = time.monotonic() + 20
        while not out.exists() or not out.read_text():  # the header: the port is open
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.05)
        os.set_blocking(master, False)
        for line in LINES:
            os.write(master, line[:5])
            time.sleep(0.15)
            os.write(master, line[5:])
            time.sleep(0.15)
            with contextlib.suppress(BlockingIOError):
                heard += os.read(master, 4096)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
        os.close(slave)
    assert proc.returncode == 0, err
    assert b"reads from" in err
    return out, heard


def test_capture_records_bytes_times_and_sends(tmp_path: Path) -> None:
    out, heard = _capture_on_a_pty(tmp_path, "--send", "*V\\r\\n", "--profile", "cammegh-ss2")
    head, chunks = read_capture(out)
    assert head["capture"] == 1 and head["baud"] == 9600 and head["profile"] == "cammegh-ss2"
    assert head["started"].endswith("Z")
    sent = [c for c in chunks if c.direction == "out"]
    assert [c.data for c in sent] == [b"*V\r\n"]
    assert heard == b"*V\r\n"  # the send really went down the line
    received = [c for c in chunks if c.direction == "in"]
    assert b"".join(c.data for c in received) == b"".join(LINES)
    assert len(received) >= len(LINES)  # the pieces came as separate reads
    times = [c.t for c in chunks]
    assert times == sorted(times) and times[0] >= 0
    # the pauses show (0.3 s slept from one line to the next; a margin for the reads)
    assert received[-1].t - received[0].t >= 0.25 * (len(LINES) - 1)
    first = json.loads(out.read_text().splitlines()[1])
    assert set(first) == {"t", "dir", "hex"}


def test_a_capture_becomes_a_golden_case_the_driver_tests_can_read(tmp_path: Path) -> None:
    out, _ = _capture_on_a_pty(tmp_path)
    golden = tmp_path / "captured.txt"
    done = subprocess.run(
        [sys.executable, "-m", "floord", "capture", "--to-golden", str(out),
         "--case", "field_capture pockets=37", "--out", str(golden)],
        capture_output=True, timeout=30,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    from test_driver_ss2 import load_cases

    (case,) = load_cases(golden)
    assert case.name == "field_capture" and case.pockets == 37
    assert [step.data for step in case.steps] == LINES
    assert case.steps[0].now == 0.0
    assert all(a.now <= b.now for a, b in zip(case.steps, case.steps[1:], strict=False))
    assert all(not step.expected for step in case.steps)  # `<` lines are for a person


def test_capture_cli_refuses_missing_port_and_a_port_that_is_not_there(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "floord", "capture", "--out", "x.jsonl"],
                          capture_output=True, timeout=30, cwd=tmp_path)  # fmt: skip
    assert done.returncode == 2 and b"needs --port and --out" in done.stderr
    done = subprocess.run(
        [sys.executable, "-m", "floord", "capture", "--port", str(tmp_path / "nope"),
         "--seconds", "1", "--out", str(tmp_path / "x.jsonl")],
        capture_output=True, timeout=30,
    )  # fmt: skip
    assert done.returncode == 1 and b"nope: No such file or directory" in done.stderr
