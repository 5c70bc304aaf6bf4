"""End to end: a roulette table whose dealer's call is the second source of its numbers.

A simulated SS2 on a real pty, the real daemon (`floord run`), a real Mosquitto, the
dealer's `call_result` and the floorperson's `rule_result` signed and published as an
operator's client does. A call that agrees settles the spin (`result.confirmed`); one that
disagrees holds the round (`result.disputed`, a `surveillance.alert`), the wheel's next
spin opens no round, and the floorperson's ruling settles it on the record; a dealer who
says nothing is a `result.silent` that lets the number stand (`warn`) or holds the round
for a ruling (`hold`), as the table's setting says.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from e2e_support import (
    DEALER,
    DEALER_KEY,
    collecting,
    command,
    open_table,
    start_daemon,
    start_sim,
    topics,
    write_tables_config,
)

pytestmark = pytest.mark.system

SPEED = 5.0  # a spin lasts 3 s; its number comes 2.2 s after it starts


def _config(tmp: Path, url: str, pty: str, on_silence: str, window_s: float) -> Path:
    table = {
        "id": "RL-01",
        "game": "roulette",
        "rules": {"wheel": "single_zero"},
        "devices": [{"id": "wheel", "profile": "cammegh-ss2", "port": pty}],
        "second_source": {
            "command": "dealer_call",
            "window_s": window_s,
            "on_silence": on_silence,
        },
    }
    return write_tables_config(tmp, url, [table])


async def _call(url: str, value: str) -> dict[str, Any]:
    return await command(url, "call_result", {"value": value}, by=DEALER, key=DEALER_KEY)


def _held(state: dict[str, Any]) -> str | None:
    """The state of the result `P/state` shows awaited or held, None when none is."""
    public = (state.get("result_check") or {}).get("public") or {}
    return public.get("state")


def _number(value: str):
    return lambda b: b["data"].get("number") == value


def test_agreement_dispute_ruling_and_a_silence_that_warns(broker, tmp_path: Path) -> None:
    scenario = {
        "pockets": 37,
        "seed": 3,
        "steps": [
            {"idle": 40},  # 8 s: the daemon starts, the wheel identifies, the table opens
            {"spin": {"number": "17"}},
            {"idle": 40},
            {"spin": {"number": "5"}},
            {"spin": {"number": "9"}},  # while spin 5's result is held
            {"idle": 75},
            {"spin": {"number": "22"}},  # the dealer says nothing
            {"idle": 3000},
        ],
    }
    sim, pty = start_sim(tmp_path, scenario, SPEED)
    daemon = start_daemon(_config(tmp_path, broker.url, pty, "warn", 3.0))
    t = topics()

    async def run() -> None:
        async with collecting(broker.url) as c:
            await c.event("device.identified")
            await open_table(broker.url)
            # Both agree: the spin settles.
            await c.event("wheel.number", _number("17"), timeout=60)
            reply = await _call(broker.url, "17")
            assert reply["ok"], reply
            confirmed = await c.event("result.confirmed")
            assert confirmed["data"]["second"]["by"] == DEALER and confirmed["rule"] is None
            result = await c.event("roulette.result", _number("17"))
            assert result["round"] == confirmed["round"] and result["seq"] > confirmed["seq"]

            # They disagree: the round is held, surveillance is alerted.
            await c.event("wheel.number", _number("5"), timeout=60)
            assert (await _call(broker.url, "6"))["ok"]
            disputed = await c.event("result.disputed")
            held = disputed["round"]
            assert disputed["data"]["primary"]["value"] == "5"
            assert disputed["data"]["second"]["value"] == "6"
            alert = await c.event("surveillance.alert")
            assert alert["data"]["test"] == "result_disputed" and alert["round"] == held
            refused = await c.event(
                "procedure.violation", lambda b: b["data"]["what"] == "result_held", timeout=30
            )
            assert refused["data"]["held_round"] == held
            state = await c.wait_for(
                lambda tp, b: tp == t.state and _held(b) == "disputed",
                what="the held result in P/state",
            )
            assert state["result_check"]["public"]["round"] == held
            assert [a["id"] for a in state["alerts"]] == [alert["data"]["id"]]
            assert not (await _call(broker.url, "5"))["ok"], "only a ruling settles it"
            assert not [
                b
                for b in c.events(t.events)
                if b["type"] in ("roulette.result", "round.started") and b["seq"] > disputed["seq"]
            ], "no result and no new round while held"

            # The floorperson rules, on the record.
            ruling = {"round": held, "value": "5", "note": "video reviewed: 5"}
            reply = await command(broker.url, "rule_result", ruling)
            assert reply["ok"], reply
            ruled = await c.event("result.ruled")
            assert ruled["round"] == held and ruled["data"]["agrees_with"] == ["primary"]
            assert ruled["data"]["by"] == "FP-1001"
            settled = await c.event("roulette.result", _number("5"))
            assert settled["round"] == held

            # The dealer says nothing: with warn, the number stands after the window.
            # (Spin 9, launched once the ruling came, settles the same way.)
            stands = await c.event("roulette.result", _number("22"), timeout=90)
            silent = await c.event("result.silent", lambda b: b["round"] == stands["round"])
            assert silent["data"]["held"] is False and silent["data"]["on_silence"] == "warn"
            assert silent["seq"] < stands["seq"] and silent["data"]["primary"]["value"] == "22"
            alerts = [b for b in c.events(t.events) if b["type"] == "surveillance.alert"]
            assert len(alerts) == 1, "a warning is no alert"

    try:
        asyncio.run(run())
    finally:
        assert daemon.terminate() == 0
        sim.kill()


def test_a_silence_that_holds_waits_for_the_ruling(broker, tmp_path: Path) -> None:
    scenario = {
        "pockets": 37,
        "seed": 4,
        "steps": [{"idle": 40}, {"spin": {"number": "14"}}, {"idle": 3000}],
    }
    sim, pty = start_sim(tmp_path, scenario, SPEED)
    daemon = start_daemon(_config(tmp_path, broker.url, pty, "hold", 2.0))
    t = topics()

    async def run() -> None:
        async with collecting(broker.url) as c:
            await c.event("device.identified")
            await open_table(broker.url)
            number = await c.event("wheel.number", _number("14"), timeout=60)
            silent = await c.event("result.silent")
            assert silent["data"]["held"] is True
            assert silent["data"]["second_source"] == "dealer_call"
            alert = await c.event("surveillance.alert")
            assert alert["data"]["test"] == "result_silent"
            late = await _call(broker.url, "14")
            assert not late["ok"], late
            assert not [
                b
                for b in c.events(t.events)
                if b["type"] == "roulette.result" and b["seq"] > number["seq"]
            ]
            ruling = {"round": silent["round"], "value": "14", "note": "video: 14"}
            assert not (await command(broker.url, "rule_result", {**ruling, "round": "x"}))["ok"]
            reply = await command(broker.url, "rule_result", ruling)
            assert reply["ok"], reply
            ruled = await c.event("result.ruled")
            assert ruled["data"]["held"] == "silent"
            result = await c.event("roulette.result", _number("14"))
            assert result["round"] == silent["round"]

    try:
        asyncio.run(run())
    finally:
        assert daemon.terminate() == 0
        sim.kill()
