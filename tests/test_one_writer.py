"""One writer per journal, with real processes: `floord run` twice on one journal, a
holder killed with SIGKILL, `floord adapter` twice for one device, `journal retire`
beside a running daemon, and the read-only tools beside it (which never take the lock).

Real parts: the SS2 simulator on a pty, `floord run` / `floord adapter` as subprocesses,
a real Mosquitto.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from e2e_support import FP, Process, start_daemon, start_sim, write_config
from test_remote_adapter import start_adapter

from floord.journal.lock import JournalLock, command_line

pytestmark = pytest.mark.system

IDLE = {"pockets": 37, "steps": [{"idle": 60000}]}
SINCE = r"since \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"
UP_S = 60.0


def wait_for(process: Process, text: str, timeout: float = UP_S) -> None:
    """Until `process` has logged `text` (it must not end first)."""
    deadline = time.monotonic() + timeout
    while text not in process.stderr_tail(200_000):
        assert process.proc.poll() is None, process.stderr_tail()
        assert time.monotonic() < deadline, f"no {text!r} in: {process.stderr_tail()}"
        time.sleep(0.1)


def finish(args: list[str], timeout: float = 60.0) -> tuple[int, str, str]:
    """`floord ARGS` run to its end: (exit code, stdout, stderr)."""
    process = Process(args)
    out, _ = process.proc.communicate(timeout=timeout)
    return process.proc.returncode, out.decode(), process.stderr_tail()


def refusal(prog: str, journal: Path, holder: Process, started: str) -> re.Pattern[str]:
    """The one line a second writer gets, naming the holder and how it was started."""
    return re.compile(
        rf"{re.escape(prog)}: journal {re.escape(str(journal))} is in use by pid "
        rf"{holder.proc.pid} \({re.escape(started)}, {SINCE}\); one writer per journal\n"
    )


def events(journal: Path, stream: str) -> list[dict[str, Any]]:
    db = sqlite3.connect(f"{journal.as_uri()}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT body FROM events WHERE stream = ? ORDER BY seq", (stream,))
        return [json.loads(body) for (body,) in rows.fetchall()]
    finally:
        db.close()


def types(journal: Path, stream: str = "RL-01") -> list[str]:
    return [e["type"] for e in events(journal, stream)]


def test_a_second_daemon_is_refused_and_the_tools_beside_the_first_work(
    broker: Any, tmp_path: Path
) -> None:
    sim, pty = start_sim(tmp_path, IDLE, 20.0)
    config = write_config(tmp_path, broker.url, pty)
    journal = tmp_path / "journal.db"
    first = start_daemon(config)
    try:
        wait_for(first, "floord ready")
        # The wheel's online and identify come in around readiness: the record is still
        # once it has identified (an idle wheel says nothing more).
        wait_for(first, "device identified")
        recorded = events(journal, "RL-01")

        second = start_daemon(config)
        assert second.proc.wait(UP_S) == 1
        said = second.stderr_tail()
        assert refusal("floord run", journal, first, f"floord run -c {config}").fullmatch(said)
        # It wrote nothing: the table's record is the first daemon's, unchanged.
        assert events(journal, "RL-01") == recorded

        # Retiring writes: refused the same way while the daemon runs.
        code, _, said = finish(
            ["journal", "retire", "-c", str(config), "--table", "RL-01", "--as", FP,
             "--reason", "a test"]
        )  # fmt: skip
        assert code == 1
        pattern = refusal("floord journal retire", journal, first, f"floord run -c {config}")
        assert pattern.fullmatch(said), said

        # The read-only tools work beside it and take no lock.
        code, out, said = finish(["journal", "verify", "--db", str(journal)])
        assert (code, said) == (0, "") and ": whole: " in out
        copy = tmp_path / "copy.db"
        code, out, said = finish(["journal", "copy", "--db", str(journal), "--out", str(copy)])
        assert (code, said) == (0, "") and copy.is_file()
        window = ["--from", "2000-01-01T00:00:00Z", "--to", "2100-01-01T00:00:00Z"]
        code, out, said = finish(["journal", "export", "--db", str(journal), *window])
        assert code == 0 and '"type":"daemon.started"' in out
        code, out, said = finish(["report", "wheel", "-c", str(config), "--table", "RL-01"])
        assert code == 0, said
        code, out, said = finish(["status", "-c", str(config), "--broker-timeout", "5"])
        assert code == 0 and "table RL-01 (roulette)" in out, out + said
        # `check` says the journal is in use, as information: its exit code is still 0.
        code, out, said = finish(["check", "-c", str(config)])
        assert code == 0, out + said
        assert f"{config}: ok: " in out
        note = (
            rf"{re.escape(str(config))}: note: journal {re.escape(str(journal))} is in use by "
            rf"pid {first.proc.pid} \(floord run -c {re.escape(str(config))}, {SINCE}\); a "
            r"second `floord run` on it is refused while that one runs"
        )
        assert re.search(note, out), out
        assert first.proc.poll() is None
    finally:
        assert first.terminate() == 0
        sim.kill()
    # One writer's record only: one start, one stop, and a whole chain.
    record = types(journal)
    assert record.count("daemon.started") == 1 and record[-1] == "daemon.stopped"
    assert record.count("daemon.stopped") == 1
    code, out, _ = finish(["journal", "verify", "--db", str(journal)])
    assert code == 0 and ": whole: " in out


def test_a_holder_killed_with_sigkill_never_blocks_the_next_start(
    broker: Any, tmp_path: Path
) -> None:
    sim, pty = start_sim(tmp_path, IDLE, 20.0)
    config = write_config(tmp_path, broker.url, pty)
    journal = tmp_path / "journal.db"
    first = start_daemon(config)
    second: Process | None = None
    try:
        wait_for(first, "floord ready")
        first.kill()  # SIGKILL: no clean stop, the lock file keeps its details
        assert f'"pid": {first.proc.pid}' in (tmp_path / "journal.db.lock").read_text()
        second = start_daemon(config)  # at once
        wait_for(second, "floord ready")
        assert second.terminate() == 0
    finally:
        first.kill()
        if second is not None:
            second.kill()
        sim.kill()
    assert types(journal).count("daemon.started") == 2
    code, out, _ = finish(["journal", "verify", "--db", str(journal)])
    assert code == 0 and ": whole: " in out


def test_a_second_adapter_for_one_device_is_refused(broker: Any, tmp_path: Path) -> None:
    sim, pty = start_sim(tmp_path, IDLE, 20.0)
    config = write_config(tmp_path, broker.url, pty)
    first = start_adapter(config)
    try:
        wait_for(first, "adapter ready")
        second = start_adapter(config)
        assert second.proc.wait(UP_S) == 1
        journal = tmp_path / "adapter-RL-01-wheel.db"
        started = f"floord adapter -c {config} --table RL-01 --device wheel"
        said = second.stderr_tail()
        assert refusal("floord adapter", journal, first, started).fullmatch(said), said
        assert first.proc.poll() is None
    finally:
        assert first.terminate() == 0
        sim.kill()


def test_a_demo_on_a_journal_in_use_is_refused(broker: Any, tmp_path: Path) -> None:
    journal = tmp_path / "demo.db"
    lock = JournalLock(journal)  # this test holds it, as a daemon would
    try:
        args = ["demo", "--seconds", "5", "--broker", broker.url, "--journal", str(journal)]
        code, _, said = finish(args)
    finally:
        lock.release()
    assert code == 1
    assert said == (
        f"floord demo: journal {journal} is in use by pid {os.getpid()} ({command_line()}, "
        f"since {read_since(journal)}); one writer per journal\n"
    )
    assert not journal.exists()  # refused before anything was written


def read_since(journal: Path) -> str:
    return str(json.loads(journal.with_name(journal.name + ".lock").read_text())["since"])
