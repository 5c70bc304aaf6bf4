"""An evidence bundle of a real round: a simulated SS2 on a pty, the real daemon, a real
Mosquitto. The round is exported while the daemon runs and holds its journal's lock
(the config found from the command line the lock file records), verified offline, and
an edited byte is named."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from bundle_support import lines, read_members, rewrite
from e2e_support import collecting, open_table, start_daemon, start_sim, write_config

from floord.cli.main import main
from floord.journal.bundle_format import MANIFEST
from floord.journal.chain import event_hash

pytestmark = pytest.mark.system

SPEED = 10.0


def test_a_round_exported_beside_the_daemon_verifies_and_an_edit_is_named(
    broker, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario = {
        "pockets": 37,
        "seed": 7,
        "steps": [
            {"idle": 60},
            {"spin": {"number": "17", "direction": "cw"}},
            {"spin": {"number": "5", "direction": "ccw"}},
            {"idle": 6000},
        ],
    }
    sim, pty = start_sim(tmp_path, scenario, SPEED)
    config = write_config(tmp_path, broker.url, pty)
    daemon = start_daemon(config)

    async def play() -> str:
        async with collecting(broker.url) as c:
            await c.event("device.identified")
            await open_table(broker.url)
            first = await c.event("roulette.result", lambda b: b["data"]["number"] == "17")
            await c.event("roulette.result", lambda b: b["data"]["number"] == "5")
            return str(first["round"])

    bundle = tmp_path / "evidence.zip"
    try:
        round_id = asyncio.run(play())
        argv = ["journal", "export", "--db", str(tmp_path / "journal.db"), "--table", "RL-01"]
        assert main([*argv, "--round", round_id, "--out", str(bundle)]) == 0, capsys.readouterr()
    finally:
        assert daemon.terminate() == 0
        sim.kill()
    capsys.readouterr()
    members = read_members(bundle)
    manifest = json.loads(members[MANIFEST])
    assert manifest["config"]["path"] == str(config)
    assert manifest["config"]["found"].startswith("named by the journal's lock file (floord run")
    table = lines(members, "events/RL-01.jsonl")
    assert {b["round"] for b in table} == {round_id}
    results = [b for b in table if b["type"] == "roulette.result"]
    assert [r["data"]["number"] for r in results] == ["17"]
    # The wheel's own events of the spin are on its stream's range, as the table saw them.
    wheel = lines(members, "events/RL-01/devices/wheel.jsonl")
    seen = {(b["type"], b["ts"]) for b in table if b["source"] == "wheel"}
    assert seen and seen <= {(b["type"], b["ts"]) for b in wheel}
    # The links run on to the next round: the second result is after the range.
    after = lines(members, "links/RL-01.jsonl")[1:]
    assert any(b["type"] == "roulette.result" for b in after)
    assert after[-1]["hash"] == manifest["streams"][0]["head"]["hash"]

    assert main(["journal", "verify-bundle", str(bundle)]) == 0
    out = capsys.readouterr().out
    assert "whole: table RL-01" in out
    # The profile file in the bundle is the one this run's start recorded, by its hash.
    assert manifest["started"]["profiles"]["wheel"]["sha256"] == manifest["profiles"][0]["sha256"]
    assert "profile of wheel: the file the daemon.started of seq" in out

    edited = results[0]

    def change_the_number(found: dict[str, bytes]) -> None:
        rows = found["events/RL-01.jsonl"].splitlines(keepends=True)
        at = [json.loads(r)["seq"] for r in rows].index(edited["seq"])
        assert b'"number":"17"' in rows[at]
        rows[at] = rows[at].replace(b'"number":"17"', b'"number":"18"', 1)
        found["events/RL-01.jsonl"] = b"".join(rows)

    assert event_hash(edited) == edited["hash"]
    rewrite(bundle, change_the_number)
    assert main(["journal", "verify-bundle", str(bundle)]) == 1
    out = capsys.readouterr().out
    assert f"events/RL-01.jsonl: stream 'RL-01' seq {edited['seq']} edited" in out
