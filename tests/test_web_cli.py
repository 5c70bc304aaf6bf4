"""`floord web` on the command line: a bad config or a taken port is one line, never a
traceback; `passwd` writes the file `--check` then accepts; SIGTERM stops it cleanly."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
import yaml
from web_history_support import at, floor_archive

from floord_demo.broker import free_port

pytestmark = pytest.mark.system

ENV = {**os.environ, "PYTHONUNBUFFERED": "1"}


def floord(
    *args: str, stdin: str | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "floord", *args],
        input=stdin if stdin is not None else "",
        capture_output=True,
        text=True,
        timeout=timeout,
        env=ENV,
    )


def config(tmp_path: Path, **settings: object) -> Path:
    path = tmp_path / "web.yaml"
    body = {"broker": {"url": f"mqtt://127.0.0.1:{free_port()}"}, **settings}
    path.write_text(yaml.safe_dump(body))
    return path


def test_a_bad_config_is_named_in_one_line_each(tmp_path: Path) -> None:
    path = config(tmp_path, listen="0.0.0.0:8443", anonymous=True)
    done = floord("web", "--config", str(path), "--check")
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 3 and all(line.startswith(f"{path}: ") for line in lines), lines
    done = floord("web", "--config", str(tmp_path / "missing.yaml"))
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.strip().startswith(str(tmp_path / "missing.yaml")), done.stderr
    done = floord("web")
    assert done.returncode == 1 and "--config FILE expected" in done.stderr


def test_passwd_writes_a_file_check_accepts(tmp_path: Path) -> None:
    passwords = tmp_path / "web.passwd"
    done = floord("web", "passwd", str(passwords), "ops-desk-1", stdin="a long desk secret\n")
    assert done.returncode == 0, done.stderr
    assert "ops-desk-1 added to" in done.stdout
    assert "a long desk secret" not in passwords.read_text()
    done = floord("web", "passwd", str(passwords), "ops-desk-1", stdin="short\n")
    assert done.returncode == 1 and "8 to 1024 characters" in done.stderr
    path = config(tmp_path, passwords="web.passwd")
    done = floord("web", "--config", str(path), "--check")
    assert done.returncode == 0, done.stderr
    assert "for a password file" in done.stdout


def test_a_taken_port_is_one_line_and_sigterm_stops_it_cleanly(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        path = config(tmp_path, listen=f"127.0.0.1:{port}", anonymous=True)
        done = floord("web", "--config", str(path))
        assert done.returncode == 1 and "Traceback" not in done.stdout + done.stderr
        assert f"cannot listen on 127.0.0.1:{port}" in done.stdout + done.stderr
    port = free_port()
    path = config(tmp_path, listen=f"127.0.0.1:{port}", anonymous=True)
    proc = subprocess.Popen(
        [sys.executable, "-m", "floord", "web", "--config", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=ENV,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/whoami", timeout=2) as r:
                    assert r.status == 200
                    break
            except OSError:
                assert time.monotonic() < deadline and proc.poll() is None, proc.stderr
                time.sleep(0.1)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err
    assert f"the console is at http://127.0.0.1:{port}/" in out
    assert "Traceback" not in out + err


def test_check_reads_the_archive_setting_as_run_does(tmp_path: Path) -> None:
    floor_archive(tmp_path)
    path = config(tmp_path, anonymous=True, archive="archive.db")
    done = floord("web", "--config", str(path), "--check")
    assert done.returncode == 0, done.stderr
    assert f"{path}: archive readable, newest event {at(32)}" in done.stdout, done.stdout
    # An archive that is down is said, not refused: the live floor is served without it.
    path = config(tmp_path, anonymous=True, archive="down.db")
    done = floord("web", "--config", str(path), "--check")
    assert done.returncode == 0 and "archive not readable now" in done.stdout, done.stdout
    # A URL of the wrong form is refused by both, in one line naming the key.
    path = config(tmp_path, anonymous=True, archive="sqlite:archive.db")
    for args in (("--check",), ()):
        done = floord("web", "--config", str(path), *args)
        assert done.returncode == 1 and "Traceback" not in done.stderr
        [line] = done.stderr.strip().splitlines()
        assert line.startswith(f"{path}: archive: ") and "sqlite:///<absolute path>" in line
