"""End to end: a Roulette table closed and reopened needs its own inspection (§ 531.3).

A simulated SS2 on a real pty, the real daemon (`floord run`) and a real Mosquitto: the
floorperson's signed commands go through the broker as on a floor.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from e2e_support import (
    CHECKLIST,
    collecting,
    command,
    open_table,
    start_daemon,
    start_sim,
    write_config,
)

pytestmark = pytest.mark.system

SPEED = 10.0


def test_a_roulette_table_reopened_the_same_day_needs_its_own_inspection(
    broker, tmp_path: Path
) -> None:
    """58 Pa. Code § 531.3(a): "Prior to opening a Roulette table for gaming activity, a
    floorperson or member of the Certificate Holder's security department shall:"
    inspect it; § 531.3(f): "When a Roulette table is not open for play, the Roulette
    wheel shall be secured by placing a cover over the entire wheel and securely locking
    the cover." § 531.3(d): a movable part may be replaced "provided that an inspection
    as required by subsection (a) must be completed prior to reopening"."""
    scenario = {"pockets": 37, "seed": 3, "steps": [{"idle": 600}]}
    sim, pty = start_sim(tmp_path, scenario, SPEED)
    daemon = start_daemon(write_config(tmp_path, broker.url, pty))

    async def scenario_run() -> None:
        async with collecting(broker.url) as c:
            await c.event("device.identified")
            await open_table(broker.url)
            assert (await command(broker.url, "close", {}))["ok"]
            closed = await c.event("table.closed")
            assert closed["rule"] == "58 Pa. Code § 531.3(f)"
            refused = await command(broker.url, "open", {})
            assert not refused["ok"] and "no longer counts" in str(refused)
            replaced = await command(
                broker.url,
                "wheel_part_replaced",
                {"part": "turret", "description": "new turret", "licence": "PGCB-1"},
            )
            assert replaced["ok"], replaced
            log = await c.event("roulette.wheel_service")
            assert log["rule"] == "58 Pa. Code § 531.3(d)"
            assert log["data"]["licence"] == "PGCB-1" and log["data"]["table"] == "RL-01"
            still = await command(broker.url, "open", {})
            assert not still["ok"] and "no longer counts" in str(still)
            inspected = await command(
                broker.url, "inspect", {"checklist": CHECKLIST, "note": "after the turret"}
            )
            assert inspected["ok"], inspected
            certified = await c.event("operator.inspection", lambda b: "answers" in b["data"])
            answers = certified["data"]["answers"]
            assert answers["rule"] == "58 Pa. Code § 531.3(a)"
            assert [a["rule"] for a in answers["also"]] == ["58 Pa. Code § 531.3(d)"]
            assert (await command(broker.url, "open", {}))["ok"]
            opened = await c.event("table.opened", lambda b: b["seq"] > certified["seq"])
            assert opened["data"]["inspection"]["at"] == certified["data"]["at"]

    try:
        asyncio.run(scenario_run())
    finally:
        assert daemon.terminate() == 0
        sim.kill()


def test_a_ball_replaced_is_on_the_record_and_the_table_plays_on(broker, tmp_path: Path) -> None:
    """58 Pa. Code § 531.2: "Balls used in Roulette must be made completely of a nonmetallic
    substance and not be less than 12/16 of an inch nor more than 14/16 of an inch in
    diameter." A ball put into play on an open table is certified through a signed
    command; a ball out of size is refused, on the record."""
    scenario = {"pockets": 37, "seed": 4, "steps": [{"idle": 600}]}
    sim, pty = start_sim(tmp_path, scenario, SPEED)
    daemon = start_daemon(write_config(tmp_path, broker.url, pty))
    ball = {"nonmetallic": True, "diameter_sixteenths": 12, "nonmagnetic": True}

    async def scenario_run() -> None:
        async with collecting(broker.url) as c:
            await c.event("device.identified")
            await open_table(broker.url)
            small = await command(
                broker.url, "ball_replaced", {**ball, "diameter_sixteenths": 10, "licence": "P-1"}
            )
            assert not small["ok"] and "found 10/16" in str(small), small
            refused = await c.event("operator.command_refused")
            assert refused["rule"] == "58 Pa. Code § 531.2", refused
            done = await command(broker.url, "ball_replaced", {**ball, "licence": "P-1"})
            assert done["ok"], done
            log = await c.event("roulette.ball_replaced")
            assert log["data"]["diameter_sixteenths"] == 12 and log["data"]["table_was"] == "open"
            assert (await command(broker.url, "close", {}))["ok"]

    try:
        asyncio.run(scenario_run())
    finally:
        assert daemon.terminate() == 0
        sim.kill()
