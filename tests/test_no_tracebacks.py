"""Expected failures print a message, never a traceback.

Each test runs a real command as a user would (a child process, real Mosquitto, real
ptys) into an expected failure: a broker that is not there, Ctrl-C or SIGTERM, a reader
that closes the pipe. Each asserts the exit code, that no `Traceback` appears in what the
command printed, and the one line that says what happened.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import aiomqtt
import pytest
from dropping_broker_support import dropping_broker_in_a_thread
from e2e_support import FP, start_sim, topics, write_config

from floord_demo.broker import free_port

pytestmark = pytest.mark.system

HANG_S = 60.0  # a guard against a hung test, not a claim about speed
ENV = {**os.environ, "PYTHONUNBUFFERED": "1"}


def floord(*args: str) -> list[str]:
    return [sys.executable, "-m", "floord", *args]


def finished(proc: subprocess.Popen[bytes], timeout: float = HANG_S) -> tuple[int, str, str]:
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise
    return proc.returncode, (out or b"").decode(), (err or b"").decode()


def no_traceback(*texts: str) -> None:
    for text in texts:
        assert "Traceback" not in text, text
        assert "Exception ignored" not in text, text


def down_config(tmp_path: Path) -> Path:
    """A box whose broker is not there (a free port nobody listens on)."""
    return write_config(tmp_path, f"mqtt://127.0.0.1:{free_port()}", "socket://127.0.0.1:9")


# ----- the broker is not there ------------------------------------------------------


def test_cmd_with_the_broker_down_says_so_in_one_line(tmp_path: Path) -> None:
    config = down_config(tmp_path)
    proc = subprocess.run(
        floord("cmd", "-c", str(config), "--table", "RL-01", "--as", FP, "open"),
        capture_output=True, env=ENV, timeout=HANG_S,
    )  # fmt: skip
    out, err = proc.stdout.decode(), proc.stderr.decode()
    no_traceback(out, err)
    assert proc.returncode == 1 and out == ""
    [line] = err.splitlines()
    assert line.startswith("floord cmd: cannot use the broker mqtt://127.0.0.1:"), line
    assert "refused" in line.lower(), line


def test_cmd_whose_broker_drops_it_before_the_suback_says_so_in_one_line(
    tmp_path: Path,
) -> None:
    # aiomqtt keeps a lost connection's error for a reader of its messages: unread, asyncio
    # printed it with its exception when the client was collected, after the line.
    with dropping_broker_in_a_thread() as (broker, port):
        config = write_config(tmp_path, f"mqtt://127.0.0.1:{port}", "socket://127.0.0.1:9")
        command = floord("cmd", "-c", str(config), "--table", "RL-01", "--as", FP, "open")
        proc = subprocess.run([*command, "--timeout", "1"], capture_output=True, env=ENV)
    out, err = proc.stdout.decode(), proc.stderr.decode()
    no_traceback(out, err)
    assert proc.returncode == 1 and out == "" and broker.connections == 1
    [line] = err.splitlines()
    assert line.startswith(f"floord cmd: cannot use the broker mqtt://127.0.0.1:{port}"), line
    assert line.endswith("(the broker closed the connection)"), line


def test_status_with_the_broker_down_says_so(tmp_path: Path) -> None:
    config = down_config(tmp_path)
    proc = subprocess.run(
        floord("status", "-c", str(config), "--broker-timeout", "2"),
        capture_output=True, env=ENV, timeout=HANG_S,
    )  # fmt: skip
    out, err = proc.stdout.decode(), proc.stderr.decode()
    no_traceback(out, err)
    assert proc.returncode == 2  # neither the journal (none yet) nor the broker was read
    [broker_line] = [line for line in out.splitlines() if line.startswith("broker")]
    assert broker_line.startswith("broker: NOT READ: ") and "refused" in broker_line.lower()


def test_watch_json_with_the_broker_down_reports_each_attempt(tmp_path: Path) -> None:
    config = down_config(tmp_path)
    proc = subprocess.run(
        floord("watch", "-c", str(config), "--json", "--seconds", "1.5"),
        capture_output=True, env=ENV, timeout=HANG_S,
    )  # fmt: skip
    out, err = proc.stdout.decode(), proc.stderr.decode()
    no_traceback(out, err)
    assert proc.returncode == 0 and err == ""
    notices = [json.loads(line) for line in out.splitlines()]
    assert notices and all(n["kind"] == "connection" and not n["connected"] for n in notices)
    assert "refused" in notices[0]["detail"].lower()


def test_tail_with_the_broker_down_says_so_in_one_line() -> None:
    url = f"mqtt://127.0.0.1:{free_port()}"
    proc = subprocess.run(
        [sys.executable, "-m", "floord_demo.tail", url],
        capture_output=True, env=ENV, timeout=HANG_S,
    )  # fmt: skip
    out, err = proc.stdout.decode(), proc.stderr.decode()
    no_traceback(out, err)
    assert proc.returncode == 1 and out == ""
    [line] = err.splitlines()
    assert line.startswith(f"floord_demo.tail: cannot use the broker {url}: "), line


# ----- a closed pipe ------------------------------------------------------------------


async def _publish_until_done(url: str, proc: subprocess.Popen[bytes]) -> None:
    """Status messages on the floor's topics until `proc` ends (it has lost its reader)."""
    host, port = url.split("://", 1)[1].rsplit(":", 1)
    t = topics()
    async with aiomqtt.Client(host, int(port)) as client:
        n = 0
        deadline = time.monotonic() + HANG_S
        while proc.poll() is None and time.monotonic() < deadline:
            n += 1
            body = {"v": 1, "online": True, "site": t.site, "table": t.table,
                    "reason": f"test {n}", "ts": "2024-01-01T00:00:00.000Z"}  # fmt: skip
            await client.publish(t.status, json.dumps(body), qos=1, retain=True)
            await asyncio.sleep(0.02)


@pytest.mark.parametrize(
    "command",
    [
        pytest.param(["-m", "floord_demo.tail", "{url}"], id="tail"),
        pytest.param(["-m", "floord", "watch", "--broker", "{url}", "--json"], id="watch-json"),
    ],
)
def test_a_closed_pipe_ends_quietly(broker, command: list[str]) -> None:
    args = [sys.executable, *(a.format(url=broker.url) for a in command)]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
    try:
        assert proc.stdout is not None
        # What `| head -1` does: read a line, then close the pipe.
        reader = asyncio.run(_first_line_while_publishing(broker.url, proc))
        assert reader
        proc.stdout.close()
        asyncio.run(_publish_until_done(broker.url, proc))
        code, _, err = finished(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    no_traceback(err)
    assert err == ""
    assert code in (0, 141)  # 141: 128 + SIGPIPE, as a shell reports it


async def _first_line_while_publishing(url: str, proc: subprocess.Popen[bytes]) -> bytes:
    assert proc.stdout is not None
    reading = asyncio.get_running_loop().run_in_executor(None, proc.stdout.readline)
    publishing = asyncio.create_task(_publish_until(url, reading))
    try:
        return await asyncio.wait_for(reading, HANG_S)
    finally:
        await publishing


async def _publish_until(url: str, done: asyncio.Future[Any]) -> None:
    host, port = url.split("://", 1)[1].rsplit(":", 1)
    t = topics()
    async with aiomqtt.Client(host, int(port)) as client:
        while not done.done():
            body = {"v": 1, "online": True, "site": t.site, "table": t.table,
                    "reason": "first", "ts": "2024-01-01T00:00:00.000Z"}  # fmt: skip
            await client.publish(t.status, json.dumps(body), qos=1, retain=True)
            await asyncio.sleep(0.05)


# ----- Ctrl-C and SIGTERM -------------------------------------------------------------


def _wait_for_text(path: Path, text: str, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + HANG_S
    while text not in path.read_text(errors="replace"):
        assert proc.poll() is None, path.read_text(errors="replace")
        assert time.monotonic() < deadline, f"no {text!r} in {path.read_text()}"
        time.sleep(0.1)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_run_stops_on_a_signal_without_a_traceback(tmp_path: Path, sig: signal.Signals) -> None:
    scenario = {"pockets": 37, "seed": 2, "loop": True, "steps": [{"idle": 10}, {"spin": {}}]}
    sim, pty = start_sim(tmp_path, scenario, 20.0)
    config = write_config(tmp_path, f"mqtt://127.0.0.1:{free_port()}", pty)
    log = tmp_path / "run.log"
    try:
        with log.open("wb") as err:
            proc = subprocess.Popen(floord("run", "-c", str(config)), stdout=err, stderr=err,
                                    env=ENV)  # fmt: skip
        _wait_for_text(log, "floord ready", proc)
        proc.send_signal(sig)
        code, _, _ = finished(proc)
    finally:
        sim.kill()
    text = log.read_text()
    no_traceback(text)
    assert code == 0
    assert json.loads(text.splitlines()[-1])["event"] == "floord stopped"
    # The broker was never there: one warning, not one per attempt.
    assert text.count('"broker unreachable"') == 1


def test_sim_stops_on_ctrl_c_without_a_traceback() -> None:
    proc = subprocess.Popen(floord("sim", "cammegh-ss2", "--pty"), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=ENV)  # fmt: skip
    assert proc.stdout is not None
    assert proc.stdout.readline().decode().startswith("pty: ")
    proc.send_signal(signal.SIGINT)
    code, out, err = finished(proc)
    no_traceback(out, err)
    assert code == 0


def test_cmd_interrupted_while_waiting_says_so_in_one_line(broker, tmp_path: Path) -> None:
    config = write_config(tmp_path, broker.url, "socket://127.0.0.1:9")  # no daemon answers
    proc = subprocess.Popen(
        floord("cmd", "-c", str(config), "--table", "RL-01", "--as", FP, "--timeout", "60",
               "close"),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV,
    )  # fmt: skip
    try:
        asyncio.run(_command_seen(broker.url))  # it is waiting for the table's answer
        proc.send_signal(signal.SIGINT)
        code, out, err = finished(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    no_traceback(out, err)
    assert code == 130 and out == ""
    assert err.splitlines() == ["floord cmd: interrupted"]


async def _command_seen(url: str) -> None:
    host, port = url.split("://", 1)[1].rsplit(":", 1)
    async with aiomqtt.Client(host, int(port)) as client:
        await client.subscribe(topics().cmd, qos=1)
        async with asyncio.timeout(HANG_S):
            async for _ in client.messages:
                return


@pytest.mark.parametrize(
    "sig,group",
    [(signal.SIGINT, True), (signal.SIGTERM, False)],
    ids=["ctrl-c-on-the-terminal", "sigterm-to-the-demo"],
)
def test_demo_stops_in_order_without_a_traceback(
    tmp_path: Path, sig: signal.Signals, group: bool
) -> None:
    """Ctrl-C signals the terminal's whole process group; the demo's Mosquitto is in its
    own, so it outlives the daemon and stops last, and nothing dies before its time."""
    out = tmp_path / "demo.out"
    with out.open("wb") as sink:
        proc = subprocess.Popen(floord("--log-level", "info", "demo"), stdout=sink,
                                stderr=sink, env=ENV, start_new_session=True)  # fmt: skip
    try:
        _wait_for_text(out, "daemon.started", proc)
        header = next(line for line in out.read_text().splitlines() if "broker mqtt://" in line)
        port = int(header.split("broker mqtt://127.0.0.1:", 1)[1].split()[0])
        assert _listening(port), "the demo's own Mosquitto"
        if group:
            os.killpg(proc.pid, sig)
        else:
            proc.send_signal(sig)
        code, _, _ = finished(proc)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    text = out.read_text()
    no_traceback(text)
    assert code == 0
    assert "floord demo: stopped after" in text.splitlines()[-1]
    # The daemon stopped cleanly while its broker was still there; the broker went last.
    assert '"floord stopped"' in text
    assert '"broker connection lost"' not in text
    assert not _listening(port), "the demo's Mosquitto is stopped with it"


def _listening(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0
