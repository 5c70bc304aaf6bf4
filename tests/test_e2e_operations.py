"""End to end, the operator's and the rig's paths: `floord cmd`, `socket://`, supervision.

- `floord cmd` signs and sends commands; it exits 0 only when the table accepted.
- A command from a role that may not give it, or with a bad signature, is refused with a
  reason on `P/cmd/result` and recorded as `operator.command_refused`.
- A wheel served over TCP by `floord sim --tcp` is reached through a `socket://` port.
- A wheel that goes silent past its profile's timeout is `device.offline` and halts the
  table; when it is back and identified, a floorperson's `resume` lifts the halt.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import aiomqtt
import pytest
from e2e_support import (
    CHECKLIST,
    DEALER,
    FP,
    FP_KEY,
    Process,
    collecting,
    start_daemon,
    start_sim,
    topics,
    write_config,
)
from support import free_port

from floord.operator.commands import build_command

pytestmark = pytest.mark.system


def floord_cmd(config: Path, operator: str, name: str, *args: str) -> tuple[int, dict]:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "floord",
            "cmd",
            "-c",
            str(config),
            "--table",
            "RL-01",
            "--as",
            operator,
            name,
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    return done.returncode, json.loads(done.stdout.strip().splitlines()[-1])


def checklist_args() -> list[str]:
    return [f"checklist.{key}={json.dumps(value)}" for key, value in CHECKLIST.items()]


def test_cmd_cli_socket_port_and_refusals(broker, tmp_path: Path) -> None:
    port = free_port()
    scenario = tmp_path / "wheel.yaml"
    scenario.write_text("pockets: 37\nsteps:\n  - idle: 60000\n")
    sim = Process(
        [
            "sim",
            "cammegh-ss2",
            "--tcp",
            f"127.0.0.1:{port}",
            "--scenario",
            str(scenario),
            "--speed",
            "10",
        ]
    )
    assert sim.proc.stdout is not None
    assert sim.proc.stdout.readline().decode().startswith("tcp: 127.0.0.1:")
    config = write_config(tmp_path, broker.url, f"socket://127.0.0.1:{port}")
    daemon = start_daemon(config)
    t = topics()

    async def run() -> None:
        async with collecting(broker.url) as c:
            identified = await c.event("device.identified")
            assert identified["data"]["pockets"] == 37
            # The dealer may not open a table: refused, with the reason, and recorded.
            code, reply = await asyncio.to_thread(floord_cmd, config, DEALER, "open")
            assert code == 1 and reply["ok"] is False
            assert "may be issued by floorperson" in reply["error"]
            refused = await c.event("operator.command_refused")
            assert refused["data"]["code"] == "role_not_allowed"
            assert refused["source"] == f"operator:{DEALER}"
            # Opening before the inspection is refused under § 531.3(a).
            code, reply = await asyncio.to_thread(floord_cmd, config, FP, "open")
            assert code == 1 and reply["ok"] is False
            code, reply = await asyncio.to_thread(
                floord_cmd, config, FP, "inspect", *checklist_args(), "note=morning check"
            )
            assert (code, reply["ok"]) == (0, True), reply
            code, reply = await asyncio.to_thread(floord_cmd, config, FP, "open")
            assert (code, reply["ok"]) == (0, True), reply
            opened = await c.event("table.opened")
            assert opened["rule"] == "58 Pa. Code § 531.3(a)"
            # A forged command (wrong signature) is refused and recorded, not obeyed.
            forged = {
                "id": "forged-1",
                "name": "close",
                "by": FP,
                "ts": opened["ts"],
                "args": {},
                "sig": "0" * 64,
            }
            host, port_ = broker.url.split("://", 1)[1].rsplit(":", 1)
            async with aiomqtt.Client(host, int(port_)) as client:
                await client.publish(t.cmd, json.dumps(forged), qos=1)
            bad = await c.event("operator.command_refused", lambda b: b["data"]["id"] == "forged-1")
            assert bad["data"]["code"] == "bad_signature"
            # A rightly signed command other than replay, on the replay request topic (the
            # one topic a surveillance login may publish to), is refused, not obeyed.
            sneaked = build_command("close", FP, {}, FP_KEY, datetime.now(UTC))
            async with aiomqtt.Client(host, int(port_)) as client:
                await client.publish(t.replay_request, json.dumps(sneaked), qos=1)
            wrong = await c.event(
                "operator.command_refused", lambda b: b["data"]["id"] == sneaked["id"]
            )
            assert wrong["data"]["code"] == "not_a_replay", wrong
            state = await c.wait_for(
                lambda tp, b: tp == t.state and b.get("state") == "open", what="still open"
            )
            assert state["state"] == "open"

    try:
        asyncio.run(run())
    finally:
        assert daemon.terminate() == 0
        sim.kill()


def test_silent_wheel_halts_the_table_until_resumed(broker, tmp_path: Path) -> None:
    # 10 s of wheel talk first: two `floord cmd` runs (inspect, open) fit before the
    # silence even on a loaded machine.
    scenario = {"pockets": 37, "steps": [{"idle": 100}, {"silence": 40}, {"idle": 60000}]}
    sim, pty = start_sim(tmp_path, scenario, 10.0)
    config = write_config(tmp_path, broker.url, pty)
    daemon = start_daemon(config)
    t = topics()

    async def run() -> None:
        async with collecting(broker.url) as c:
            await c.event("device.identified")
            code, reply = await asyncio.to_thread(
                floord_cmd, config, FP, "inspect", *checklist_args()
            )
            assert code == 0, reply
            code, reply = await asyncio.to_thread(floord_cmd, config, FP, "open")
            assert code == 0, reply
            offline = await c.event("device.offline")
            assert "silent" in offline["data"]["reason"]
            halted = await c.event("table.halted")
            assert halted["seq"] > offline["seq"]
            # The wheel speaks again, reconnects and identifies; only then may it resume.
            await c.event("device.identified", lambda b: b["seq"] > halted["seq"])
            code, reply = await asyncio.to_thread(
                floord_cmd, config, FP, "resume", "reason=wheel cable reseated"
            )
            assert (code, reply["ok"]) == (0, True), reply
            await c.event("table.resumed")
            await c.wait_for(
                lambda tp, b: tp == t.state and b.get("state") == "open", what="open again"
            )

    try:
        asyncio.run(run())
    finally:
        assert daemon.terminate() == 0
        sim.kill()
