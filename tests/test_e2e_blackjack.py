"""End to end on a Blackjack table: simulated card reader and card-recognition shoe on
real ptys, the daemon process, a real Mosquitto.

A card reader fault mid-round halts the table and suspends the round (58 Pa. Code
§ 549.16(k)); no `round.started` is published until an authorised `resume`; the halt
survives a daemon restart (SIGKILL), the suspended round does not (the restart rule).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from e2e_support import (
    DEALER,
    DEALER_KEY,
    Process,
    collecting,
    command,
    new_decks_inspected,
    stack_cut,
    start_daemon,
    start_device_sim,
    topics,
    write_tables_config,
)

pytestmark = pytest.mark.system

SPEED = 1.0
CHECKLIST = {"card_reader_untampered": True, "card_reader_working": True, "cards_inspected": True}


def start_card_sim(tmp: Path, profile: str, scenario: dict) -> tuple[Process, str]:
    return start_device_sim(tmp, profile, scenario, SPEED)


def write_card_config(tmp: Path, broker_url: str, reader: str, shoe: str) -> Path:
    return write_tables_config(
        tmp,
        broker_url,
        [
            {
                "id": "BJ-01",
                "game": "blackjack",
                "rules": {"decks": 6},
                "devices": [
                    {"id": "reader", "profile": "ref-card-reader", "port": reader},
                    {"id": "shoe", "profile": "ref-shoe-recognition", "port": shoe},
                ],
            }
        ],
    )


async def dealer(url: str, name: str, args: dict) -> dict:
    return await command(url, name, args, by=DEALER, key=DEALER_KEY, table="BJ-01")


async def floorperson(url: str, name: str, args: dict) -> dict:
    return await command(url, name, args, table="BJ-01")


def test_reader_fault_mid_round_halts_until_resumed_and_survives_restart(
    broker, tmp_path: Path
) -> None:
    # The reader fails 20 s in, then is replaced (its line goes dead and comes back).
    reader_steps = [
        {"idle": 20},
        {"fault": {"code": 11}},
        {"idle": 8},  # the daemon is killed and restarted meanwhile, and reconnects
        {"disconnect": 5},
        {"idle": 6000},
    ]
    # The shoe loads once the table is open and its decks changed (10 s: room for a slow start).
    shoe_steps = [
        {"idle": 10},
        {"load": {"side": "-"}},
        {"draw": {"cards": ["2C"]}},
        {"idle": 6000},
    ]
    reader_sim, reader_pty = start_card_sim(tmp_path, "ref-card-reader", {"steps": reader_steps})
    shoe_sim, shoe_pty = start_card_sim(tmp_path, "ref-shoe-recognition", {"steps": shoe_steps})
    config = write_card_config(tmp_path, broker.url, reader_pty, shoe_pty)
    daemon = start_daemon(config)
    t = topics("BJ-01")

    async def first_run() -> None:
        async with collecting(broker.url, "BJ-01") as c:
            await c.event("reader.self_test", lambda b: b["data"]["passed"])
            await c.event("device.identified", lambda b: b["source"] == "shoe")
            reply = await floorperson(
                broker.url, "inspect", {"checklist": CHECKLIST, "note": "e2e"}
            )
            assert reply["ok"], reply
            for name in ("open", "change_decks"):
                reply = await floorperson(broker.url, name, {})
                assert reply["ok"], (name, reply)
            await new_decks_inspected(broker.url, "BJ-01")  # the receipt (§ 549.5(a))
            await stack_cut(broker.url, "BJ-01")  # § 549.6(b)-(d), before the shoe
            await c.event("shoe.card_drawn")  # the burn card after the shoe was loaded
            reply = await dealer(broker.url, "round_start", {"boxes": [1, 2]})
            assert reply["ok"], reply
            started = await c.event("round.started")
            halted = await c.event("table.halted", timeout=30)
            assert halted["rule"] == "58 Pa. Code § 549.16(k)"
            # § 549.16(k) stops the dealing; it voids nothing: the round waits.
            suspended = await c.event(
                "table.warning", lambda b: b["data"].get("what") == "round_suspended"
            )
            assert suspended["round"] == started["round"]
            assert suspended["rule"] == "58 Pa. Code § 549.16(k)"
            refused = await dealer(broker.url, "round_start", {"boxes": [1]})
            assert not refused["ok"]
            await asyncio.sleep(0.5)
            rounds = [b for b in c.events(t.events) if b["type"] == "round.started"]
            assert len(rounds) == 1

    try:
        asyncio.run(first_run())
    except BaseException:
        # The simulators are reaped whichever run fails (the second run's `finally`
        # does it when the first one passes).
        reader_sim.kill()
        shoe_sim.kill()
        raise
    finally:
        daemon.kill()
    restarted = start_daemon(config)

    async def second_run() -> None:
        async with collecting(broker.url, "BJ-01") as c:
            await c.event("daemon.started")
            # The suspended round did not survive the restart: floord's restart rule.
            voided = await c.event("round.voided")
            assert voided["rule"] is None and voided["data"]["reason"] == "daemon_restart"
            await c.wait_for(
                lambda tp, b: tp == t.state and b.get("state") == "halted", what="still halted"
            )
            # The reader is replaced: its line goes dead, then it reconnects and identifies.
            gone = await c.event("device.offline", lambda b: b["source"] == "reader", timeout=30)
            await c.event(
                "device.identified",
                lambda b: b["source"] == "reader" and b["seq"] > gone["seq"],
                timeout=30,
            )
            await c.event("device.identified", lambda b: b["source"] == "shoe")
            refused = await dealer(broker.url, "round_start", {"boxes": [1]})
            assert not refused["ok"], "no dealing while the halt stands"
            assert not [b for b in c.events(t.events) if b["type"] == "round.started"]
            reply = await floorperson(broker.url, "resume", {"reason": "reader replaced"})
            assert reply["ok"], reply
            await c.event("table.resumed")
            reply = await dealer(broker.url, "round_start", {"boxes": [1]})
            assert reply["ok"], reply
            await c.event("round.started")

    try:
        asyncio.run(second_run())
    finally:
        reader_sim.kill()
        shoe_sim.kill()
        assert restarted.terminate() == 0
