"""End to end on a Mississippi Stud table dealt from the hand with a counting shuffler:
the simulated shuffler on a real pty (`floord sim ref-shuffler-batch --pty`), the daemon
process, a real Mosquitto.

A counting shuffler that counts other than 52 cards after a shuffle takes the deck off
the table (58 Pa. Code § 571.5(b)): `cards.deck_removed` on the table's record.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import yaml
from e2e_support import DEALER, DEALER_KEY, FP, FP_KEY, Process, collecting, start_daemon

from floord.contract import cite

TABLE = "MS-01"


def start_shuffler(tmp: Path, steps: list[dict]) -> tuple[Process, str]:
    path = tmp / f"shuffler-{time.monotonic_ns()}.yaml"
    path.write_text(yaml.safe_dump({"steps": steps}))
    sim = Process(["sim", "ref-shuffler-batch", "--pty", "--scenario", str(path)])
    assert sim.proc.stdout is not None
    line = sim.proc.stdout.readline().decode().strip()
    if not line.startswith("pty: "):
        sim.kill()
        raise AssertionError(f"the shuffler did not announce its pty: {line!r}")
    return sim, line.split(": ", 1)[1]


def write_config(tmp: Path, broker_url: str, shuffler_port: str) -> Path:
    (tmp / "fp.key").write_bytes(FP_KEY + b"\n")
    (tmp / "dealer.key").write_bytes(DEALER_KEY + b"\n")
    config = {
        "site": "test-casino",
        "broker": {"url": broker_url, "topic_prefix": "floor/v1"},
        "journal": str(tmp / "journal.db"),
        "operators": [
            {"id": FP, "role": "floorperson", "key_file": "fp.key"},
            {"id": DEALER, "role": "dealer", "key_file": "dealer.key"},
        ],
        "tables": [
            {
                "id": TABLE,
                "game": "mississippi_stud",
                "rules": {"dealing": "hand", "shuffler": "counting", "decks": 1},
                "devices": [
                    {"id": "shuffler", "profile": "ref-shuffler-batch", "port": shuffler_port}
                ],
            }
        ],
    }
    path = tmp / "floord.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def test_a_shuffle_counting_51_cards_removes_the_deck_571_5_b(broker, tmp_path: Path) -> None:
    steps = [{"idle": 3}, {"shuffle": {"batch": "red", "cards": 51, "seconds": 1}}, {"idle": 600}]
    sim, pty = start_shuffler(tmp_path, steps)
    daemon = start_daemon(write_config(tmp_path, broker.url, pty))

    async def run() -> None:
        async with collecting(broker.url, TABLE) as c:
            await c.event("device.identified", lambda b: b["source"] == "shuffler")
            removed = await c.event("cards.deck_removed")
            assert removed["rule"] == cite("571.5(b)")
            assert removed["data"]["cards"] == 51
            assert removed["data"]["expected"] == 52
            assert removed["data"]["reason"] == "shuffler_count"
            assert removed["data"]["deck"] == "deck"  # the one deck of a one-deck table

    try:
        asyncio.run(run())
    finally:
        try:
            assert daemon.terminate() == 0
        finally:
            sim.kill()
