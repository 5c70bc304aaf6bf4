"""A running `floord run` (and `floord adapter`) serves its metrics, and they move.

Real processes, a real pty, a real Mosquitto, real HTTP: a roulette table whose wheel is
a simulator that sends a garbage line, then dies, with the daemon's `metrics:` on a free
loopback port. The scrapes must show the device online and then offline, the table
closed and then halted (`device_offline`), the protocol error counted, events recorded
and published, commits timed, PUBACKs timed, the broker connected; `/healthz` ready, and
not ready once the broker is gone.
"""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from e2e_support import Process, collecting, start_daemon, start_sim, write_config
from metrics_support import health_until, scrape, scrape_until, value
from support import free_port

pytestmark = pytest.mark.system

TABLE = "RL-01"
GARBAGE = "#### not an SS2 line ####"


def with_metrics(config: Path, port: int) -> None:
    body: dict[str, Any] = yaml.safe_load(config.read_text())
    body["metrics"] = {"listen": f"127.0.0.1:{port}"}
    config.write_text(yaml.safe_dump(body))


def test_a_scrape_shows_the_daemon_and_its_values_move(broker, tmp_path: Path) -> None:
    steps = [{"idle": 3}, {"raw": GARBAGE}, {"idle": 6000}]
    sim, pty = start_sim(tmp_path, {"pockets": 37, "seed": 3, "steps": steps}, 1.0)
    config = write_config(tmp_path, broker.url, pty)
    port = free_port()
    with_metrics(config, port)
    daemon = start_daemon(config)

    async def watch() -> None:
        async with collecting(broker.url) as c:
            await c.event("device.identified")
            ready = await health_until(port, 200)
            assert ready == "ready\n"
            first = await scrape_until(
                port,
                lambda s: value(s, "floord_device_online", table=TABLE, device="wheel") == 1,
                "the wheel online",
            )
            assert value(first, "floord_table_state", table=TABLE, state="closed") == 1
            assert value(first, "floord_tables", state="halted") == 0
            assert value(first, "floord_broker_connected", table=TABLE) == 1
            assert value(first, "floord_journal_open") == 1
            assert value(first, "floord_journal_commit_seconds_count") > 0
            recorded = value(first, "floord_events_recorded_total", table=TABLE, stream=TABLE)
            assert recorded is not None and recorded > 0
            assert value(first, "process_resident_memory_bytes") > 0
            assert value(first, "process_cpu_seconds_total") is not None

            # A garbage line: a protocol error, counted from the event on its way in.
            await c.wait_for(
                lambda topic, body: body.get("type") == "device.protocol_error",
                what="the garbage line's protocol error",
            )
            errors = await scrape_until(
                port,
                lambda s: (
                    value(s, "floord_device_protocol_errors_total", table=TABLE, device="wheel")
                    == 1
                ),
                "the protocol error counted",
            )
            # Everything recorded goes out: published catches up with recorded, no backlog.
            published = await scrape_until(
                port,
                lambda s: (
                    value(s, "floord_outbox_backlog", table=TABLE) == 0
                    and value(s, "floord_events_published_total", table=TABLE, stream=TABLE)
                    == value(s, "floord_events_recorded_total", table=TABLE, stream=TABLE)
                ),
                "every event published",
            )
            assert value(published, "floord_mqtt_puback_seconds_count", table=TABLE) > 0
            before = value(errors, "floord_events_recorded_total", table=TABLE, stream=TABLE)

            # The wheel dies: offline, and the table halts (fail closed).
            sim.kill()
            await c.event("table.halted")
            halted = await scrape_until(
                port,
                lambda s: value(s, "floord_table_state", table=TABLE, state="halted") == 1,
                "the table halted",
            )
            assert value(halted, "floord_device_online", table=TABLE, device="wheel") == 0
            assert value(halted, "floord_table_state", table=TABLE, state="closed") is None
            assert value(halted, "floord_tables", state="halted") == 1
            assert value(halted, "floord_table_halt", table=TABLE, code="device_offline") == 1
            assert value(halted, "floord_halts", code="device_offline") == 1
            after = value(halted, "floord_events_recorded_total", table=TABLE, stream=TABLE)
            assert after > before

            # The broker goes: not ready, and says why.
            broker.kill()
            why = await health_until(port, 503)
            assert (
                why.startswith("not ready\n") and f"broker not connected for table {TABLE}" in why
            )
            down = await scrape(port)
            assert value(down, "floord_broker_connected", table=TABLE) == 0

    try:
        asyncio.run(watch())
    finally:
        assert daemon.terminate() == 0
        sim.kill()


def test_floord_adapter_serves_its_own_metrics(broker, tmp_path: Path) -> None:
    sim, pty = start_sim(tmp_path, {"pockets": 37, "seed": 4, "steps": [{"idle": 6000}]}, 1.0)
    config = write_config(tmp_path, broker.url, pty)
    body: dict[str, Any] = yaml.safe_load(config.read_text())
    body["tables"][0]["devices"][0]["adapter"] = "remote"
    config.write_text(yaml.safe_dump(body))
    port = free_port()
    args = ["adapter", "-c", str(config), "--table", TABLE, "--device", "wheel"]
    adapter = Process([*args, "--metrics-listen", f"127.0.0.1:{port}"], stdout=subprocess.DEVNULL)

    async def watch() -> None:
        online = await scrape_until(
            port,
            lambda s: value(s, "floord_device_online", table=TABLE, device="wheel") == 1,
            "the adapter's wheel online",
        )
        assert (
            value(
                online,
                "floord_info",
                site="test-casino",
                version=_version(online),
                process="adapter",
            )
            == 1
        )
        stream = f"{TABLE}/devices/wheel"
        recorded = value(online, "floord_events_recorded_total", table=TABLE, stream=stream)
        assert recorded is not None and recorded > 0
        assert await health_until(port, 200) == "ready\n"
        sim.kill()
        gone = await scrape_until(
            port,
            lambda s: value(s, "floord_device_online", table=TABLE, device="wheel") == 0,
            "the adapter's wheel offline",
        )
        later = value(gone, "floord_events_recorded_total", table=TABLE, stream=stream)
        assert later > recorded

    try:
        asyncio.run(watch())
    finally:
        assert adapter.terminate() == 0
        sim.kill()


def _version(samples: dict[tuple[str, frozenset[tuple[str, str]]], float]) -> str:
    [version] = [dict(labels)["version"] for name, labels in samples if name == "floord_info"]
    return version
