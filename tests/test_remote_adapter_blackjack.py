"""A Blackjack table whose card reader's adapter runs as its own process.

Two tables play the same script side by side, one with every adapter in-process (BJ-01),
one with the card reader's adapter remote (BJ-02): a reader fault mid-round halts each
table and voids its round under 58 Pa. Code § 549.16(k), with the same record. Killing
the reader's adapter process halts the table.
"""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from e2e_support import (
    DEALER,
    DEALER_KEY,
    FP,
    FP_KEY,
    Collector,
    Process,
    collecting,
    command,
    new_decks_inspected,
    stack_cut,
)
from e2e_support import start_daemon as start_floord
from test_e2e_blackjack import CHECKLIST, start_card_sim

pytestmark = pytest.mark.system

TABLES = ("BJ-01", "BJ-02")
TS = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z")
# The shoe loads once the table is open, its decks changed and the stack cut: 15 s leaves
# room for a slow start (two daemons, an adapter process and four simulators on a loaded
# machine), before the reader's fault at 25 s.
SHOE_STEPS = [{"idle": 15}, {"load": {"side": "-"}}, {"draw": {"cards": ["2C"]}}, {"idle": 6000}]


def card_config(
    tmp: Path, url: str, table: str, reader: str | None, shoe: str, name: str = "floord"
) -> Path:
    """A one-table config; `reader=None` makes the reader `adapter: remote`."""
    (tmp / "fp.key").write_bytes(FP_KEY + b"\n")
    (tmp / "dealer.key").write_bytes(DEALER_KEY + b"\n")
    where = {"adapter": "remote"} if reader is None else {"port": reader}
    config = {
        "site": "test-casino",
        "broker": {"url": url, "topic_prefix": "floor/v1"},
        "journal": str(tmp / "journal.db"),
        "operators": [
            {"id": FP, "role": "floorperson", "key_file": "fp.key"},
            {"id": DEALER, "role": "dealer", "key_file": "dealer.key"},
        ],
        "tables": [
            {
                "id": table,
                "game": "blackjack",
                "rules": {"decks": 6},
                "devices": [
                    {"id": "reader", "profile": "ref-card-reader", **where},
                    {"id": "shoe", "profile": "ref-shoe-recognition", "port": shoe},
                ],
            }
        ],
    }
    path = tmp / f"{name}.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def start_reader_adapter(config: Path, table: str) -> Process:
    args = ["adapter", "-c", str(config), "--table", table, "--device", "reader"]
    return Process(args, stdout=subprocess.DEVNULL)


async def dealer(url: str, table: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return await command(url, name, args, by=DEALER, key=DEALER_KEY, table=table)


async def open_card_table(c: Collector, url: str, table: str) -> None:
    await c.event("reader.self_test", lambda b: b["data"]["passed"])
    await c.event("device.identified", lambda b: b["source"] == "shoe")
    reply = await command(url, "inspect", {"checklist": CHECKLIST, "note": "e2e"}, table=table)
    assert reply["ok"], reply
    for name in ("open", "change_decks"):
        reply = await command(url, name, {}, table=table)
        assert reply["ok"], (name, reply)
    await new_decks_inspected(url, table)  # the receipt (§ 549.5(a))
    await stack_cut(url, table)  # § 549.6(b)-(d), before the shoe


async def fault_mid_round(url: str, table: str) -> list[dict[str, Any]]:
    """Deal a round until the reader fails; the record from the fault to the round's
    suspension (§ 549.16(k))."""
    async with collecting(url, table) as c:
        await open_card_table(c, url, table)
        await c.event("shoe.card_drawn")  # the burn card after the shoe was loaded
        reply = await dealer(url, table, "round_start", {"boxes": [1, 2]})
        assert reply["ok"], reply
        started = await c.event("round.started")
        fault = await c.event("device.fault", lambda b: b["source"] == "reader", timeout=30)
        halted = await c.event("table.halted")
        assert halted["rule"] == "58 Pa. Code § 549.16(k)"
        suspended = await c.event(
            "table.warning", lambda b: b["data"].get("what") == "round_suspended"
        )
        assert suspended["round"] == started["round"]
        refused = await dealer(url, table, "round_start", {"boxes": [1]})
        assert not refused["ok"]
        events = c.events(c.table.events)
        assert [b["type"] for b in events].count("round.started") == 1
        return [b for b in events if fault["seq"] <= b["seq"] <= suspended["seq"]]


def same_table(events: list[dict[str, Any]], table: str) -> list[Any]:
    """Type, source, data, rule, round of each event, the table's id and times blanked."""
    out = []
    for body in events:
        text = json.dumps([body["type"], body["source"], body["data"], body["rule"]])
        text += json.dumps(body["round"])
        out.append(TS.sub("<ts>", text.replace(table, "<table>")))
    return out


def test_a_reader_fault_suspends_the_round_the_same_with_the_reader_remote(
    broker, tmp_path: Path
) -> None:
    # The fault 25 s in: after the opening, the deck receipt and the first round_start.
    reader_steps = [{"idle": 25}, {"fault": {"code": 11}}, {"idle": 6000}]
    procs: list[Process] = []
    dirs = {}
    for table in TABLES:
        dirs[table] = tmp_path / table
        dirs[table].mkdir()
    try:
        local_reader, local_reader_pty = start_card_sim(
            dirs["BJ-01"], "ref-card-reader", {"steps": reader_steps}
        )
        remote_reader, remote_reader_pty = start_card_sim(
            dirs["BJ-02"], "ref-card-reader", {"steps": reader_steps}
        )
        procs += [local_reader, remote_reader]
        shoes = {}
        for table in TABLES:
            shoe, shoes[table] = start_card_sim(
                dirs[table], "ref-shoe-recognition", {"steps": SHOE_STEPS}
            )
            procs.append(shoe)
        local_cfg = card_config(
            dirs["BJ-01"], broker.url, "BJ-01", local_reader_pty, shoes["BJ-01"]
        )
        adapter_cfg = card_config(
            dirs["BJ-02"], broker.url, "BJ-02", remote_reader_pty, shoes["BJ-02"], "adapter"
        )
        remote_cfg = card_config(dirs["BJ-02"], broker.url, "BJ-02", None, shoes["BJ-02"])
        procs.append(start_reader_adapter(adapter_cfg, "BJ-02"))
        daemons = [start_floord(local_cfg), start_floord(remote_cfg)]

        async def both() -> list[list[dict[str, Any]]]:
            return list(await asyncio.gather(*(fault_mid_round(broker.url, t) for t in TABLES)))

        try:
            local, remote = asyncio.run(both())
        finally:
            for daemon in daemons:
                assert daemon.terminate() == 0
    finally:
        for proc in procs:
            proc.terminate()
            proc.kill()
    assert remote[0]["source"] == "reader" and remote[0]["type"] == "device.fault"
    assert same_table(remote, "BJ-02") == same_table(local, "BJ-01")


def test_killing_the_reader_adapter_halts_the_table(broker, tmp_path: Path) -> None:
    table = TABLES[1]
    reader, reader_pty = start_card_sim(tmp_path, "ref-card-reader", {"steps": [{"idle": 6000}]})
    shoe, shoe_pty = start_card_sim(tmp_path, "ref-shoe-recognition", {"steps": SHOE_STEPS})
    adapter_cfg = card_config(tmp_path, broker.url, table, reader_pty, shoe_pty, "adapter")
    daemon_cfg = card_config(tmp_path, broker.url, table, None, shoe_pty)
    adapter = start_reader_adapter(adapter_cfg, table)
    daemon = start_floord(daemon_cfg)

    async def run() -> None:
        async with collecting(broker.url, table) as c:
            await open_card_table(c, broker.url, table)
            await c.event("table.opened")
            adapter.proc.kill()
            adapter.kill()
            offline = await c.event("device.offline", lambda b: b["source"] == "reader")
            assert offline["data"]["reason"] == "adapter offline: connection lost"
            halted = await c.event("table.halted")
            assert halted["data"]["code"] == "device_offline"
            assert halted["data"]["device"] == "reader"
            refused = await dealer(broker.url, table, "round_start", {"boxes": [1]})
            assert not refused["ok"]

    try:
        asyncio.run(run())
    finally:
        assert daemon.terminate() == 0
        adapter.kill()
        reader.kill()
        shoe.kill()
