"""End to end: a protocol-error fault (a noisy line) clears when the device's line carries
it again, as docs/journal.md says, and only a floorperson's `resume` reopens the table.

For an SS2 wheel, an FLF/1 sensor kit wheel and an FLF/1 card reader, each a simulator
on a real pty with its control channel, the real daemon and a real Mosquitto: garbage
poured into the line (`raw` steps) passes the profile's `protocol_errors.fault_after`,
a `device.fault` (origin `protocol_errors`) halts the table and `resume` is refused.
Then either the line drops and comes back without a restart (`disconnect`: the adapter
sees the device silent, offline, online and identified again), or the daemon restarts
and the device identifies in the new run. Either way the fault clears on the record
(`table.fault_cleared`), a `resume` lifts the halt, and a line still noisy on the new
connection faults and halts the table again.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from e2e_support import (
    Collector,
    bad_frame,
    collecting,
    command,
    noisy_profile,
    open_table,
    start_daemon,
    start_device_sim,
    write_tables_config,
)
from test_sim_control import control_socket

pytestmark = pytest.mark.system

FAULT_AFTER = 6  # protocol errors in one window that are a fault (the profiles say 30)
WAIT_S = 60.0  # a reconnection under load: silence, back-off, power-on quiet, handshake
Ask = Callable[[str], Awaitable[str]]


async def ss2_noise(ask: Ask) -> None:
    """FAULT_AFTER lines that are neither a packet nor a number: one error each."""
    for i in range(FAULT_AFTER):
        reply = await ask(json.dumps({"raw": f"line noise {i}"}))
        assert reply.startswith("ok raw"), reply


async def flf1_noise(ask: Ask) -> None:
    """FAULT_AFTER whole frames with a wrong checksum, in one burst."""
    garbage = "".join(bad_frame(i) for i in range(FAULT_AFTER))
    reply = await ask(json.dumps({"raw": garbage}))
    assert reply.startswith("ok raw"), reply


@dataclass(frozen=True)
class Family:
    """One device family under test: its simulator, its table, how to make it noisy."""

    profile: str
    scenario: dict[str, Any]
    table: dict[str, Any]  # the config's table, the device's port and profile left out
    device: str
    noise: Callable[[Ask], Awaitable[None]]
    wheel: str | None  # a roulette table is opened (its wheel); a card table stays closed
    others: tuple[tuple[str, str], ...] = ()  # the table's other devices: (id, profile)


FAMILIES = {
    "ss2": Family(
        "cammegh-ss2",
        {"pockets": 37, "steps": [{"idle": 60000}]},
        {"id": "RL-01", "game": "roulette", "rules": {"wheel": "single_zero"}},
        "wheel",
        ss2_noise,
        "single_zero",
    ),
    "flf1-wheel-sensor": Family(
        "ref-wheel-sensor",
        {"pockets": 38, "steps": [{"idle": 60000}]},
        {"id": "RL-01", "game": "roulette", "rules": {"wheel": "double_zero"}},
        "wheel",
        flf1_noise,
        "double_zero",
    ),
    "flf1-card-reader": Family(
        "ref-card-reader",
        {"steps": [{"idle": 60000}]},
        {"id": "BJ-01", "game": "blackjack", "rules": {"decks": 6}},
        "reader",
        flf1_noise,
        None,
        (("shoe", "ref-shoe-recognition"),),
    ),
}


@dataclass
class Rig:
    """The running simulators, the daemon's config and the noisy device's control."""

    family: Family
    broker_url: str
    config: Path
    control: str
    sims: list[Any]

    @property
    def table(self) -> str:
        return str(self.family.table["id"])

    async def resume(self, reason: str) -> dict[str, Any]:
        return await command(self.broker_url, "resume", {"reason": reason}, table=self.table)


def build_rig(family: Family, broker_url: str, tmp: Path) -> Rig:
    sock = str(tmp / "dev.sock")
    sim, pty = start_device_sim(tmp, family.profile, family.scenario, control=f"unix:{sock}")
    sims = [sim]
    profile = noisy_profile(tmp, family.profile, fault_after=FAULT_AFTER)
    devices = [{"id": family.device, "profile": str(profile), "port": pty}]
    for device, other in family.others:
        other_sim, other_pty = start_device_sim(tmp, other, {"steps": [{"idle": 60000}]})
        sims.append(other_sim)
        devices.append({"id": device, "profile": other, "port": other_pty})
    config = write_tables_config(tmp, broker_url, [{**family.table, "devices": devices}])
    return Rig(family, broker_url, config, sock, sims)


async def fault_the_line(rig: Rig, c: Collector, after: int) -> dict[str, Any]:
    """Pour garbage into the line; the fault's halt (after seq `after`)."""
    device = rig.family.device
    async with control_socket(rig.control) as ask:
        await rig.family.noise(ask)
    fault = await c.event(
        "device.fault", lambda b: b["source"] == device and b["seq"] > after, WAIT_S
    )
    assert fault["data"]["origin"] == "protocol_errors"
    halted = await c.event(
        "table.halted",
        lambda b: b["data"]["device"] == device and b["seq"] > fault["seq"],
        WAIT_S,
    )
    assert halted["data"]["code"] == "device_fault"
    assert f"{FAULT_AFTER} protocol errors within" in halted["data"]["detail"]
    return halted


async def refused_while_faulted(rig: Rig) -> None:
    refused = await rig.resume("the line looks fine")
    assert not refused["ok"]
    assert f"device {rig.family.device} has an active fault" in refused["error"], refused


async def cleared_and_resumed(rig: Rig, c: Collector, after: int) -> dict[str, Any]:
    """Once the device identified anew (after seq `after`) `resume` lifts the halt, and
    the record says when and why the fault cleared; the `table.resumed`."""
    device = rig.family.device
    identified = await c.event(
        "device.identified", lambda b: b["source"] == device and b["seq"] > after, WAIT_S
    )
    reply = await rig.resume("line replaced")
    assert reply["ok"], reply
    resumed = await c.event("table.resumed", lambda b: b["seq"] > identified["seq"])
    assert "device_fault" in [r["code"] for r in resumed["data"]["cleared"]]
    cleared = await c.event(
        "table.fault_cleared", lambda b: b["data"]["device"] == device and b["seq"] > after
    )
    assert identified["seq"] < cleared["seq"] < resumed["seq"]
    assert cleared["data"]["fault"]["origin"] == "protocol_errors"
    assert cleared["data"]["cleared_by"] == "new_session"
    assert cleared["rule"] is None
    return resumed


def stop(rig: Rig, *daemons: Any) -> None:
    try:
        for daemon in daemons:
            assert daemon.terminate() == 0
    finally:
        for sim in rig.sims:
            sim.kill()


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_a_line_fault_clears_when_the_device_reconnects_without_a_restart(
    name: str, broker, tmp_path: Path
) -> None:
    family = FAMILIES[name]
    rig = build_rig(family, broker.url, tmp_path)
    daemon = start_daemon(rig.config)

    async def run() -> None:
        async with collecting(broker.url, rig.table) as c:
            first = await c.event("device.identified", lambda b: b["source"] == family.device)
            if family.wheel is not None:
                await open_table(broker.url, family.wheel)
            halted = await fault_the_line(rig, c, first["seq"])
            await refused_while_faulted(rig)
            async with control_socket(rig.control) as ask:
                reply = await ask("disconnect 5")
                assert reply.startswith("ok disconnect"), reply
            offline = await c.event(
                "device.offline",
                lambda b: b["source"] == family.device and b["seq"] > halted["seq"],
                WAIT_S,
            )
            resumed = await cleared_and_resumed(rig, c, offline["seq"])
            # The new connection's line is still noisy: it faults and halts again.
            await fault_the_line(rig, c, resumed["seq"])

    try:
        asyncio.run(run())
    finally:
        stop(rig, daemon)


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_a_line_fault_clears_when_the_device_identifies_after_a_restart(
    name: str, broker, tmp_path: Path
) -> None:
    family = FAMILIES[name]
    rig = build_rig(family, broker.url, tmp_path)
    daemon = start_daemon(rig.config)
    # One persistent session for both runs: the broker keeps what the restarted daemon
    # publishes before the second run's collector has subscribed.
    console = f"line-fault-{name}"

    async def first_run() -> int:
        async with collecting(broker.url, rig.table, client_id=console) as c:
            first = await c.event("device.identified", lambda b: b["source"] == family.device)
            if family.wheel is not None:
                await open_table(broker.url, family.wheel)
            halted = await fault_the_line(rig, c, first["seq"])
            await refused_while_faulted(rig)
            return int(halted["seq"])

    try:
        last = asyncio.run(first_run())
    finally:
        assert daemon.terminate() == 0
    restarted = start_daemon(rig.config)

    async def second_run() -> None:
        async with collecting(broker.url, rig.table, client_id=console) as c:
            started = await c.event("daemon.started", lambda b: b["seq"] > last)
            for other, _ in family.others:  # the table's other devices are back too
                await c.event(
                    "device.identified",
                    lambda b, d=other: b["source"] == d and b["seq"] > started["seq"],
                    WAIT_S,
                )
            resumed = await cleared_and_resumed(rig, c, started["seq"])
            await fault_the_line(rig, c, resumed["seq"])

    try:
        asyncio.run(second_run())
    finally:
        stop(rig, restarted)
