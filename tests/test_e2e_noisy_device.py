"""End to end: garbage poured into a card shoe's pty costs the journal a bounded record.

A simulated card-recognition shoe on a real pty writes bursts of broken FLF/1 frames (each
one a protocol error, whatever the read boundaries) into the daemon's line; the real
daemon, the real journal, a real Mosquitto. The record must hold the first error of the
kind and counts of the rest (`device.protocol_errors`), a `device.fault` only once a burst
passes the profile's `protocol_errors.fault_after` (which halts the table), and the shoe's
next good frame read right.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

import pytest
from e2e_support import (
    bad_frame,
    collecting,
    noisy_profile,
    start_daemon,
    start_device_sim,
    write_tables_config,
)

pytestmark = pytest.mark.system

INTERVAL_S = 1.0
KINDS = 3
FAULT_AFTER = 200
QUIET_BURST = 20  # below FAULT_AFTER: counted, no fault
LOUD_STEPS, PER_STEP = 50, 18  # 900 errors in one burst: a fault
ERROR_TYPES = ("device.protocol_error", "device.protocol_errors", "device.fault")


def rows(journal: Path, stream: str) -> list[tuple[int, str]]:
    with sqlite3.connect(f"file:{journal}?mode=ro", uri=True) as db:
        return db.execute(
            "SELECT seq, body FROM events WHERE stream = ? ORDER BY seq", (stream,)
        ).fetchall()


def test_garbage_on_a_shoe_line_is_bounded_counted_and_a_burst_is_a_fault(
    broker, tmp_path: Path
) -> None:
    quiet = "".join(bad_frame(i) for i in range(QUIET_BURST))
    steps = [
        {"idle": 8},
        {"raw": quiet[: len(quiet) // 2]},
        {"raw": quiet[len(quiet) // 2 :]},
        {"idle": 4},  # the window closes (a count), then a whole quiet one ends the spell
        *(
            {"raw": "".join(bad_frame(s * PER_STEP + i) for i in range(PER_STEP))}
            for s in range(LOUD_STEPS)
        ),
        {"idle": 2},
        {"load": {"side": "-"}},
        {"draw": {"cards": ["KH"]}},
        {"idle": 6000},
    ]
    shoe_sim, shoe_pty = start_device_sim(tmp_path, "ref-shoe-recognition", {"steps": steps})
    reader_sim, reader_pty = start_device_sim(
        tmp_path, "ref-card-reader", {"steps": [{"idle": 6000}]}
    )
    shoe_profile = noisy_profile(
        tmp_path,
        "ref-shoe-recognition",
        interval_s=INTERVAL_S,
        kinds=KINDS,
        fault_after=FAULT_AFTER,
    )
    config = write_tables_config(
        tmp_path,
        broker.url,
        [
            {
                "id": "BJ-01",
                "game": "blackjack",
                "rules": {"decks": 6},
                "devices": [
                    {"id": "reader", "profile": "ref-card-reader", "port": reader_pty},
                    {"id": "shoe", "profile": str(shoe_profile), "port": shoe_pty},
                ],
            }
        ],
    )
    daemon = start_daemon(config)

    async def watch() -> None:
        async with collecting(broker.url, "BJ-01") as c:
            identified = await c.event("device.identified", lambda b: b["source"] == "shoe")
            halted = await c.event("table.halted", timeout=60)
            assert (halted["data"]["code"], halted["data"]["device"]) == ("device_fault", "shoe")
            assert "protocol errors within 1 s" in halted["data"]["detail"]
            drawn = await c.event("shoe.card_drawn", timeout=30)
            assert drawn["data"]["card"] == "KH"  # the next good frame reads right
            assert drawn["seq"] > halted["seq"] > identified["seq"]
            # The last window's count comes when its timer fires, with no error after it.
            await c.event("device.protocol_errors", lambda b: b["seq"] > halted["seq"])

    try:
        asyncio.run(watch())
    finally:
        assert daemon.terminate() == 0
        shoe_sim.kill()
        reader_sim.kill()

    journal = tmp_path / "journal.db"
    device = [json.loads(body) for _, body in rows(journal, "BJ-01/devices/shoe")]
    table = [json.loads(body) for _, body in rows(journal, "BJ-01")]
    # A shoe that powered on before the daemon opened its line may have given up its
    # power-on frame (FLT 90, docs/protocols/framing.md): that error is the start's, not
    # the garbage's, so the garbage is counted from the shoe's identification on.
    identified_at = next(e["seq"] for e in device if e["type"] == "device.identified")
    all_errors = [e for e in device if e["type"] in ERROR_TYPES]
    errors = [e for e in all_errors if e["seq"] > identified_at]
    assert all("FLT 90" in e["data"]["reason"] for e in all_errors if e not in errors)
    singles = [e for e in errors if e["type"] == "device.protocol_error"]
    counts = [e for e in errors if e["type"] == "device.protocol_errors"]
    faults = [e for e in errors if e["type"] == "device.fault"]
    total = QUIET_BURST + LOUD_STEPS * PER_STEP
    # Every error is accounted for: recorded as it is, or counted.
    assert len(singles) + sum(e["data"]["count"] for e in counts) == total
    assert all(e["data"]["reason"].startswith("checksum mismatch") for e in singles)
    assert all(e["data"]["sample"]["reason"].startswith("checksum mismatch") for e in counts)
    # One kind: the first error of each of the two spells is recorded as it is.
    assert len(singles) == 2
    # The fault comes with the loud burst only, once.
    assert len(faults) == 1 and faults[0]["data"]["origin"] == "protocol_errors"
    assert faults[0]["seq"] > singles[1]["seq"]
    quiet_counts = [e for e in counts if e["seq"] < singles[1]["seq"]]
    assert [e["data"]["count"] for e in quiet_counts] == [QUIET_BURST - 1]
    # Bounded: some 920 errors cost a handful of rows on each stream, not 1,840.
    assert len(errors) <= 10
    assert sum(len(json.dumps(e)) for e in errors) < 10_000
    on_table = [e for e in table if e["type"] in ERROR_TYPES and e["source"] == "shoe"]
    assert len(on_table) == len(all_errors)
