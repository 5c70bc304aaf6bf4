"""Logs under systemd's journal (`floord.system.journald`, `floord.system.log_line`): every
line on stderr starts with its syslog priority `<N>`, so `journalctl -u floord -p warning`
shows warnings and worse only, and `systemctl status` shows one readable line per record;
`--log-format json` keeps JSON for shippers (prefixed too); off the journal nothing
changes (JSON off a terminal, columns on one).

A real `floord run` (a real Mosquitto, a wheel whose port does not exist, so it logs
warnings beside its info lines) with stderr a file that JOURNAL_STREAM names, as systemd
does for a unit; and, where this machine can run systemd-journald (as root), the same
daemon writing into a real journal (a namespace of its own) read back with
`journalctl -p warning`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

import pytest
from e2e_support import write_config

from floord.system.log_line import OneLineRenderer

pytestmark = pytest.mark.system

WAIT_S = 30.0
PREFIXED = re.compile(r"<([0-7])>(.*)")
WARNINGS = {"cannot open device", "device offline", "table halted"}  # this run's
INFOS = {"floord starting", "broker connected", "floord ready", "floord stopped"}
JOURNALD = Path("/lib/systemd/systemd-journald")


def _stream_id(fd: int) -> str:
    """JOURNAL_STREAM's value for the stream on `fd`, as systemd sets it."""
    st = os.fstat(fd)
    return f"{st.st_dev}:{st.st_ino}"


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("JOURNAL_STREAM", "FLOORD_LOG_FORMAT")}
    return {**env, "PYTHONUNBUFFERED": "1", **extra}


def _until(what: str, done: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WAIT_S
    while not done():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def _run_daemon(
    config: Path, stderr: IO[Any] | int, env: dict[str, str], ready: Callable[[], bool], *args: str
) -> None:
    """`floord [args] run -c config` until `ready()`, then SIGTERM: a clean stop (exit 0)."""
    daemon = subprocess.Popen(
        [sys.executable, "-m", "floord", *args, "run", "-c", str(config)],
        stdout=subprocess.DEVNULL,
        stderr=stderr,
        env=env,
    )
    try:
        _until("floord ready", ready)
        daemon.send_signal(signal.SIGTERM)
        assert daemon.wait(15) == 0
    finally:
        if daemon.poll() is None:
            daemon.kill()
            daemon.wait()


def _daemon_log(tmp: Path, broker_url: str, env: dict[str, str], *args: str) -> list[str]:
    """The stderr lines of a daemon run whose wheel's port does not exist; `env` may
    name the log file as the journal's stream (`{stream}` is replaced by its id)."""
    config = write_config(tmp, broker_url, str(tmp / "no-wheel-here"))
    log = tmp / "stderr.log"
    with log.open("wb") as err:
        env = {k: v.replace("{stream}", _stream_id(err.fileno())) for k, v in env.items()}
        _run_daemon(config, err, env, lambda: b"floord ready" in log.read_bytes(), *args)
    return log.read_text().splitlines()


def _priorities(lines: list[str]) -> list[tuple[int, str]]:
    parsed = []
    for line in lines:
        match = PREFIXED.fullmatch(line)
        assert match, f"a line without its priority: {line!r}"
        parsed.append((int(match[1]), match[2]))
    return parsed


def _event(text: str) -> str:
    """The event of a one-line record: the words before the first `key=`."""
    return re.split(r" [a-z_]+=", text, maxsplit=1)[0]


def test_under_the_journal_each_line_carries_its_priority_and_reads_as_one_line(
    broker: Any, tmp_path: Path
) -> None:
    lines = _daemon_log(tmp_path, broker.url, _env(JOURNAL_STREAM="{stream}"))
    parsed = _priorities(lines)
    by_event = {_event(text): level for level, text in parsed}
    assert {e: by_event.get(e) for e in WARNINGS} == dict.fromkeys(WARNINGS, 4)
    assert {e: by_event.get(e) for e in INFOS} == dict.fromkeys(INFOS, 6)
    # `journalctl -p warning`: what has priority 4 or less is the warnings, nothing else.
    assert {_event(text) for level, text in parsed if level <= 4} == WARNINGS
    # A line as `systemctl status` shows it (the journal adds the time and the unit).
    port = tmp_path / "no-wheel-here"
    assert (
        f"<4>cannot open device table=RL-01 device=wheel port={port} error="
        + ('"No such file or directory"')
        in lines
    )
    assert all(not text.startswith(("{", "20")) for _, text in parsed)  # no JSON, no time


def test_json_stays_available_under_the_journal_with_its_priority(
    broker: Any, tmp_path: Path
) -> None:
    lines = _daemon_log(
        tmp_path, broker.url, _env(JOURNAL_STREAM="{stream}"), "--log-format", "json"
    )
    levels = {"debug": 7, "info": 6, "warning": 4, "error": 3, "critical": 2}
    records = [(level, json.loads(text)) for level, text in _priorities(lines)]
    assert all(level == levels[r["level"]] for level, r in records)
    assert {r["event"] for level, r in records if level <= 4} >= WARNINGS


def test_off_the_journal_the_json_lines_are_unchanged(broker: Any, tmp_path: Path) -> None:
    """A JOURNAL_STREAM inherited from a unit names another stream than this stderr (a
    file here): plain JSON lines, as without it."""
    other = tmp_path / "elsewhere"
    other.write_bytes(b"")
    with other.open("rb") as f:
        stream = _stream_id(f.fileno())
    lines = _daemon_log(tmp_path, broker.url, _env(JOURNAL_STREAM=stream))
    records = [json.loads(line) for line in lines]
    assert {"event", "level", "logger", "timestamp"} <= set(records[0])
    assert {r["event"] for r in records} >= WARNINGS | INFOS


SCRIPT = """
import logging, sys
import structlog
from floord.system.logs import configure_logging
configure_logging("info", fmt=sys.argv[1])
log = structlog.get_logger("floord.test").bind(table="RL-01")
log.info("fine", note="a b")
try:
    1 / 0
except ZeroDivisionError as exc:
    log.error("device adapter failed", exc_info=exc)
logging.getLogger("asyncio").warning("Task was destroyed\\nbut it is pending")
print("floord run: cannot start: a line outside the log", file=sys.stderr)
raise RuntimeError("a crash: its traceback goes to stderr")
"""


def _script(fmt: str, stderr: IO[Any] | int, env: dict[str, str]) -> int:
    return subprocess.run(
        [sys.executable, "-c", SCRIPT, fmt], stderr=stderr, env=env, timeout=WAIT_S
    ).returncode


def test_no_line_of_a_traceback_or_a_stray_print_reaches_the_journal_unprefixed(
    tmp_path: Path,
) -> None:
    log = tmp_path / "stderr.log"
    with log.open("wb") as err:
        assert _script("auto", err, _env(JOURNAL_STREAM=_stream_id(err.fileno()))) == 1
    parsed = _priorities(log.read_text().splitlines())
    assert parsed[0] == (6, 'fine table=RL-01 note="a b"')
    failed = parsed.index((3, "device adapter failed table=RL-01"))
    assert parsed[failed + 1] == (3, "Traceback (most recent call last):")
    assert (3, "ZeroDivisionError: division by zero") in parsed
    assert (4, "Task was destroyed\\nbut it is pending logger=asyncio") in parsed
    assert (3, "floord run: cannot start: a line outside the log") in parsed
    assert parsed[-1] == (3, "RuntimeError: a crash: its traceback goes to stderr")
    assert [text for level, text in parsed if level > 4] == ['fine table=RL-01 note="a b"']


def test_on_a_terminal_the_columns_are_unchanged(tmp_path: Path) -> None:
    master, slave = os.openpty()
    try:
        other = tmp_path / "elsewhere"
        other.write_bytes(b"")
        with other.open("rb") as f:
            env = _env(JOURNAL_STREAM=_stream_id(f.fileno()))
        assert _script("auto", slave, env) == 1
        os.close(slave)
        slave = -1
        out = b""
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the writer is gone and all is read
                break
            if not chunk:
                break
            out += chunk
    finally:
        os.close(master)
        if slave >= 0:
            os.close(slave)
    text = re.sub(r"\x1b\[[0-9;]*m", "", out.decode())  # the colours
    assert "[info     ] fine" in text and "[error    ] device adapter failed" in text
    assert not re.search(r"(^|\n)<[0-7]>", text)


def test_a_wrong_log_format_is_one_line_and_exit_2() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "floord", "check", "-c", "x.yaml"],
        capture_output=True,
        env=_env(FLOORD_LOG_FORMAT="xml"),
        timeout=WAIT_S,
    )
    assert done.returncode == 2
    assert done.stderr.decode().splitlines() == [
        "floord: FLOORD_LOG_FORMAT: one of auto, console, json, journal expected, found 'xml'"
    ]


def test_a_one_line_record_keeps_each_value_whole() -> None:
    render = OneLineRenderer()
    line = render(
        None,
        "warning",
        {
            "table": "RL-01",
            "reason": 'silent for 5 s; "x"=y',
            "count": 3,
            "ok": False,
            "by": None,
            "tables": ["RL-01", "BJ-02"],
            "text": "two\nlines",
            "empty": "",
            "event": "device offline",
            "level": "warning",
            "logger": "floord.table",
            "timestamp": "2026-12-04T17:00:00Z",
        },
    )
    assert line == (
        'device offline table=RL-01 reason="silent for 5 s; \\"x\\"=y" count=3 ok=false '
        'by=null tables=["RL-01","BJ-02"] text="two\\nlines" empty=""'
    )


# ----- a real journal, where this machine can run one -------------------------------


class Journald:
    """systemd-journald in a namespace of its own (`systemd-journald NAMESPACE`), so the
    test writes nothing into the machine's own journal, and its files removed after."""

    def __init__(self) -> None:
        self.namespace = f"floord-test-{uuid.uuid4().hex[:12]}"
        self.proc = subprocess.Popen(
            [str(JOURNALD), self.namespace], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )

    def stream(self, identifier: str) -> socket.socket:
        """A stream to the journal, as systemd connects a unit's stderr (sd-journal's
        stdout protocol: identifier, unit, default priority 6, level prefixes on)."""
        path = f"/run/systemd/journal.{self.namespace}/stdout"
        deadline = time.monotonic() + WAIT_S
        while True:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.connect(path)
                break
            except OSError:
                sock.close()
                assert time.monotonic() < deadline, "journald never listened"
                time.sleep(0.05)
        sock.shutdown(socket.SHUT_RD)
        sock.sendall(f"{identifier}\n\n6\n1\n0\n0\n0\n".encode())
        return sock

    def read(self, identifier: str, *args: str) -> list[dict[str, Any]]:
        done = subprocess.run(
            ["journalctl", f"--namespace={self.namespace}", "-t", identifier, "-o", "json",
             "--no-pager", *args],
            capture_output=True, text=True, timeout=WAIT_S,
        )  # fmt: skip
        return [json.loads(line) for line in done.stdout.splitlines()]

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            machine = Path("/etc/machine-id").read_text().strip()
            for folder in (
                Path(f"/run/systemd/journal.{self.namespace}"),
                Path(f"/var/log/journal/{machine}.{self.namespace}"),
                Path(f"/run/log/journal/{machine}.{self.namespace}"),
            ):
                shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def journald() -> Iterator[Journald]:
    if os.geteuid() != 0 or not JOURNALD.exists() or not shutil.which("journalctl"):
        pytest.skip("needs root and systemd-journald to run a journal of its own")
    made = Journald()
    try:
        yield made
    finally:
        made.close()


def test_journalctl_p_warning_shows_the_warnings_only(
    broker: Any, journald: Journald, tmp_path: Path
) -> None:
    config = write_config(tmp_path, broker.url, str(tmp_path / "no-wheel-here"))
    sock = journald.stream("floord")
    try:
        env = _env(JOURNAL_STREAM=_stream_id(sock.fileno()))
        _run_daemon(
            config,
            sock.fileno(),
            env,
            lambda: any(e["MESSAGE"].startswith("floord ready") for e in journald.read("floord")),
        )
    finally:
        sock.close()
    _until(
        "floord stopped in the journal",
        lambda: any(e["MESSAGE"].startswith("floord stopped") for e in journald.read("floord")),
    )
    everything = journald.read("floord")
    warnings = journald.read("floord", "-p", "warning")
    assert {_event(e["MESSAGE"]) for e in warnings} == WARNINGS
    assert {e["PRIORITY"] for e in warnings} == {"4"}
    assert {_event(e["MESSAGE"]) for e in everything if e["PRIORITY"] == "6"} >= INFOS
    assert not [e for e in everything if e["MESSAGE"].startswith("<")]  # all prefixes taken
