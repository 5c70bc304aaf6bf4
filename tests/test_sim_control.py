"""`floord sim --control`: steps injected live into a running simulator, as on a rig.

The simulator runs as a real `python -m floord sim` process. The SS2 wheel is faulted
mid-scenario with the real daemon attached (its `device.fault` events reach MQTT); a card
reader is faulted and tampered with a host that reads and acknowledges its frames on the
pty; a bad command gets one `error:` line and the device keeps running; stdin works as a
channel through a pipe.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from card_sim_support import PtyHost
from e2e_support import collecting, pty_alias, start_daemon, write_config

from simulators.control import ControlError, parse_control
from simulators.control_steps import read_command, step_fields
from simulators.scenario import Scenario

pytestmark = pytest.mark.system

HANG_S = 30.0  # a guard against a hung test, not a claim about speed
FAULT_LINES_MODE = 1158 | 256  # the field's mode plus `*F <code>` lines


class Sim:
    """`floord sim PROFILE --pty --control SPEC` as a child process, always reaped."""

    def __init__(self, tmp: Path, profile: str, control: str, scenario: dict[str, Any] | None,
                 speed: float = 10.0, stdin: int | None = subprocess.DEVNULL) -> None:  # fmt: skip
        args = [sys.executable, "-m", "floord", "sim", profile, "--pty", "--control", control]
        if scenario is not None:
            path = tmp / f"{profile}-scenario.yaml"
            path.write_text(yaml.safe_dump(scenario))
            args += ["--scenario", str(path)]
        args += ["--speed", str(speed)]
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(
            args, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
        )
        assert self.proc.stdout is not None
        self._alias = pty_alias(tmp, self._announced("pty: "))  # removed in close()
        self.pty = str(self._alias)
        self.control = self._announced("control: ")

    def _announced(self, prefix: str) -> str:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline().decode().strip()
        if not line.startswith(prefix):
            self.close()
            raise AssertionError(f"expected {prefix!r}, found {line!r}")
        return line[len(prefix) :]

    def close(self) -> None:
        if hasattr(self, "_alias"):
            self._alias.unlink(missing_ok=True)
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()


@contextlib.contextmanager
def running(*args: Any, **kwargs: Any) -> Any:
    sim = Sim(*args, **kwargs)
    try:
        yield sim
    finally:
        sim.close()


@contextlib.asynccontextmanager
async def control_socket(path: str) -> AsyncIterator[Any]:
    """Send one line, get its one reply line."""
    reader, writer = await asyncio.open_unix_connection(path)

    async def ask(line: str) -> str:
        writer.write(line.encode() + b"\n")
        await writer.drain()
        return (await asyncio.wait_for(reader.readline(), HANG_S)).decode().rstrip("\n")

    try:
        yield ask
    finally:
        writer.close()
        with contextlib.suppress(ConnectionError):
            await writer.wait_closed()


def test_ss2_fault_injected_mid_scenario_reaches_the_daemon(broker, tmp_path: Path) -> None:
    scenario = {"pockets": 37, "mode": FAULT_LINES_MODE, "loop": True, "steps": [{"spin": None}]}
    sock = str(tmp_path / "ss2.sock")
    with running(tmp_path, "cammegh-ss2", f"unix:{sock}", scenario) as sim:
        assert sim.control == f"unix:{sock}"
        daemon = start_daemon(write_config(tmp_path, broker.url, sim.pty))

        async def run() -> None:
            async with collecting(broker.url) as c, control_socket(sock) as ask:
                await c.event("device.identified")
                await c.event("wheel.game_started")
                reply = await ask("fault 5")
                assert reply.startswith("ok fault "), reply
                assert "interrupting spin" in reply or "next step" in reply, reply
                line = await c.event("device.fault", lambda b: b["data"]["origin"] == "fault_line")
                assert line["data"]["code"] == 5
                flag = await c.event("device.fault", lambda b: b["data"]["origin"] == "status_flag")
                assert flag["source"] == "wheel"
                refused = await ask("{jam: {code: 40}}")
                assert refused.startswith("error: unknown step 'jam'"), refused
                assert "fault" in refused and "spin" in refused
                # The scenario goes on after the fault: a new game starts.
                faulted_at = line["seq"]
                await c.event("wheel.game_started", lambda b: b["seq"] > faulted_at)
                status = await ask("status")
                assert status.startswith("ok cammegh-ss2: ") and "faults=[5]" in status
                assert sim.proc.poll() is None

        try:
            asyncio.run(asyncio.wait_for(run(), 90))
        finally:
            assert daemon.terminate() == 0
    assert not os.path.exists(sock)  # the simulator removed its socket on the way out


def test_card_reader_fault_and_tamper_frames_appear_on_the_pty(tmp_path: Path) -> None:
    sock = str(tmp_path / "reader.sock")
    with running(tmp_path, "ref-card-reader", f"unix:{sock}", None, speed=1.0) as sim:

        async def run() -> None:
            host = PtyHost(sim.pty, "crc16-ccitt", auto_ack=True)
            try:
                async with control_socket(sock) as ask:
                    await host.wait_kind("IDN")
                    assert (await ask("fault 11")).startswith('ok fault {"code": 11}')
                    await host.wait_for(
                        lambda f: f.kind == "FLT" and f.fields == ("11", "optical sensor failed")
                    )
                    reply = await ask('tamper code=2 text="cable cut at the shoe"')
                    assert reply.startswith("ok tamper"), reply
                    await host.wait_for(
                        lambda f: f.kind == "TMP" and f.fields == ("2", "cable cut at the shoe")
                    )
                    # Refused as the scenario file would refuse it: the profile's codes only.
                    bad = await ask("fault 99")
                    assert bad.startswith("error: fault: code: one of the profile's fault"), bad
                    assert (await ask("peek {blackjack: true, card: 9H}")).startswith(
                        "error: peek: card: none on a reader without exposes_value"
                    )
                    assert (await ask("shuffle {batch: red, cards: 52}")).startswith(
                        "error: unknown step 'shuffle'"
                    )
                    assert (await ask("{peek: {blackjack: true}}")).startswith("ok peek")
                    await host.wait_for(lambda f: f.kind == "PEK" and f.fields == ("Y",))
                    status = await ask("status")
                    assert '"11": "optical sensor failed"' in status, status
                    help_line = await ask("help")
                    assert "self_test {passed, code?, text?}" in help_line
                    assert "fault codes 10,11,12,13,20,90" in help_line
                    assert sim.proc.poll() is None
            finally:
                host.close()

        asyncio.run(asyncio.wait_for(run(), 60))


def test_stdin_control_through_a_pipe(tmp_path: Path) -> None:
    scenario = {"mode": FAULT_LINES_MODE, "loop": True, "steps": [{"idle": 30}]}
    with running(tmp_path, "cammegh-ss2", "stdin", scenario, stdin=subprocess.PIPE) as sim:
        assert sim.control == "stdin"
        fd = os.open(sim.pty, os.O_RDWR | os.O_NOCTTY)
        stdin, stdout = sim.proc.stdin, sim.proc.stdout
        assert stdin is not None and stdout is not None
        try:

            def ask(line: str) -> str:
                stdin.write(line.encode() + b"\n")
                stdin.flush()
                return stdout.readline().decode().rstrip("\n")

            assert ask("help").startswith("ok cammegh-ss2: steps: idle SECONDS | spin {")
            assert ask("spin number=00").startswith("error: spin.number: ")
            assert ask("fault {code: 9}").startswith("error: fault: code: one of 1, 2, 3")
            assert ask("{fault: {code: 7}}").startswith('ok fault {"code": 7, "permanent": false}')
            seen = b""
            while b"*F 7\r\n" not in seen:
                seen += os.read(fd, 4096)
            assert ask("raw 00;0").startswith('ok raw "00;0"')
            while b"00;0\r\n" not in seen:
                seen += os.read(fd, 4096)
            assert sim.proc.poll() is None
            stdin.close()  # the end of the channel is not the end of the device
            assert os.read(fd, 4096)
            assert sim.proc.poll() is None
        finally:
            os.close(fd)


def test_command_forms_read_as_scenario_steps() -> None:
    fields = step_fields(Scenario)
    assert read_command("fault 5", fields) == {"fault": {"code": 5}}
    assert read_command("fault: {code: 5, permanent: true}", fields) == {
        "fault": {"code": 5, "permanent": True}
    }
    assert read_command('spin number="17" direction=cw', fields) == {
        "spin": {"number": "17", "direction": "cw"}
    }
    assert read_command("cut", fields) == {"cut": True}
    assert read_command("silence 2.5", fields) == {"silence": 2.5}
    with pytest.raises(ControlError, match="unknown step 'jam'"):
        read_command("jam 40", fields)
    with pytest.raises(ControlError, match="one step"):
        read_command("{fault: {code: 5}, cut: true}", fields)


@pytest.mark.parametrize("line", ["{fault: \x01}", "silence \x07", "spin number=\x00"])
def test_a_control_character_is_refused_not_raised(line: str) -> None:
    """YAML's reader refuses control characters with a ReaderError, which has no
    `problem`: the line is refused as unreadable, and the channel keeps serving."""
    with pytest.raises(ControlError, match=r"readable YAML expected, found .*unacceptable"):
        read_command(line, step_fields(Scenario))


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        ("tcp:10.0.0.5:7000", "a loopback host"),
        ("tcp:127.0.0.1:http", "tcp:HOST:PORT expected"),
        ("serial:/dev/ttyS0", "stdin, unix:PATH or tcp:HOST:PORT expected"),
        ("unix:", "stdin, unix:PATH or tcp:HOST:PORT expected"),
    ],
)
def test_bad_control_addresses_are_refused(spec: str, problem: str) -> None:
    with pytest.raises(ControlError, match=problem):
        parse_control(spec)
    assert parse_control("tcp:127.0.0.1:0") == ("tcp", ("127.0.0.1", 0))


def test_cli_refuses_a_bad_control_address_before_starting() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "floord",
            "sim",
            "cammegh-ss2",
            "--pty",
            "--control",
            "tcp:0.0.0.0:1",
        ],
        capture_output=True,
        timeout=30,
    )
    assert done.returncode == 2
    assert b"loopback" in done.stderr
    assert done.stdout == b""


def test_tcp_control_on_a_loopback_port(tmp_path: Path) -> None:
    with running(tmp_path, "ref-shuffler-batch", "tcp:127.0.0.1:0", None, speed=1.0) as sim:
        host, _, port = sim.control.removeprefix("tcp:").rpartition(":")
        assert host == "127.0.0.1" and int(port) > 0

        async def run() -> None:
            reader, writer = await asyncio.open_connection(host, int(port))
            try:
                writer.write(b"jam 40\n\nmode continuous\nstatus\n")
                replies = [(await reader.readline()).decode() for _ in range(3)]
            finally:
                writer.close()
                await writer.wait_closed()
            assert replies[0].startswith('ok jam {"batch": "-", "code": 40}')
            assert replies[1].startswith("error: mode: one of ['batch'] expected")
            assert replies[2].startswith("ok ref-shuffler-batch: ")

        asyncio.run(asyncio.wait_for(run(), 30))
        assert sim.proc.poll() is None
