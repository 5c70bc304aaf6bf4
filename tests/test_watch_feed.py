"""The console's feed on a real Mosquitto: 200 tables at once, one of them a real daemon.

199 simulated tables publish contract-shaped retained states, statuses and events from a
few clients at the same time; one skips a `seq` (a small responder answers its replay the
way floord does: a verified, signed command, events on `P/replay`, a `P/cmd/result`), one
says offline the way a last will does. Table RL-01 is a real floord daemon on a simulated
wheel: the console loses one of its events, asks for a replay, and the daemon's journal
fills the gap.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import aiomqtt
import pytest
from e2e_support import (
    CHECKLIST,
    FP,
    FP_KEY,
    PREFIX,
    SITE,
    command,
    start_daemon,
    start_sim,
    topics,
    write_config,
)

from floord.contract import Envelope, Topics, format_ts
from floord.engine.core.types import VerifiedCommand
from floord.operator.commands import verify_command
from floord.watch.feed import ReplaySigner, WatchFeed
from floord.watch.model import FloorModel, Notice

pytestmark = pytest.mark.system

SIMULATED = [f"SIM-{i:03d}" for i in range(199)]
SKIPPER = "SIM-007"
SKIPPED_SEQ = 3
OFFLINE = "SIM-013"


def sim_envelope(table: str, seq: int, kind: str = "wheel.idle") -> str:
    when = format_ts(datetime.now(UTC))
    return Envelope(SITE, table, seq, when, kind, "engine", {"spin": seq}).to_json()


def sim_state(table: str) -> str:
    body = {
        "table": table,
        "game": "roulette",
        "wheel": "single_zero",
        "state": "open",
        "underlying": "open",
        "halt_reasons": [],
        "devices": {"wheel": {"online": True}},
        "round": None,
        "alerts": [],
    }
    return json.dumps(body)


def status(table: str, online: bool, reason: str) -> str:
    body = {"v": 1, "online": online, "site": SITE, "table": table, "reason": reason}
    return json.dumps({**body, "ts": format_ts(datetime.now(UTC))})


def host_port(url: str) -> tuple[str, int]:
    host, port = url.split("://", 1)[1].rsplit(":", 1)
    return host, int(port)


async def publish_tables(url: str, tables: list[str]) -> None:
    """One publisher client: each table's retained state and status, then its events."""
    host, port = host_port(url)
    async with aiomqtt.Client(host, port) as client:
        for table in tables:
            t = Topics(PREFIX, SITE, table)
            await client.publish(t.state, sim_state(table), qos=1, retain=True)
            await client.publish(t.status, status(table, True, "connected"), qos=1, retain=True)
        for seq in (1, 2, 3, 4):
            for table in tables:
                t = Topics(PREFIX, SITE, table)
                if not (table == SKIPPER and seq == SKIPPED_SEQ):
                    await client.publish(t.events, sim_envelope(table, seq), qos=1)
                if seq <= 2:
                    await client.publish(t.device_events("wheel"), sim_envelope(table, seq), qos=1)
        if OFFLINE in tables:
            t = Topics(PREFIX, SITE, OFFLINE)
            will = status(OFFLINE, False, "connection lost")
            await client.publish(t.status, will, qos=1, retain=True)


async def responder(url: str, table: str, ready: asyncio.Event, answered: list[str]) -> None:
    """Answers `table`'s replay requests (`P/replay/request`) as floord's runner does."""
    host, port = host_port(url)
    t = Topics(PREFIX, SITE, table)
    journal = {seq: sim_envelope(table, seq) for seq in range(1, 5)}
    async with aiomqtt.Client(host, port) as client:
        await client.subscribe(t.replay_request, qos=1)
        ready.set()
        async for message in client.messages:
            verified = verify_command(
                bytes(message.payload),
                operators={FP: ("floorperson", FP_KEY)},
                now=datetime.now(UTC),
                id_used=lambda _id: False,
            )
            assert isinstance(verified, VerifiedCommand), verified
            assert verified.name == "replay"
            first, last = verified.args["from_seq"], verified.args["to_seq"]
            for seq in range(first, last + 1):
                await client.publish(t.replay, journal[seq], qos=1)
            answered.append(verified.id)
            reply = {"id": verified.id, "ok": True, "error": None}
            await client.publish(t.cmd_result, json.dumps(reply), qos=1)


class LossyModel(FloorModel):
    """A model that loses one chosen message once, as a console's network might."""

    def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        self.lose: Callable[[str, dict], bool] | None = None
        self.lost: dict | None = None

    def on_message(self, topic: str, payload: bytes) -> list[Notice]:
        if self.lose is not None and self.lost is None and payload:
            body = json.loads(payload)
            if self.lose(topic, body):
                self.lost = body
                return []
        return super().on_message(topic, payload)


async def until(check: Callable[[], bool], what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)


async def watch_the_floor(url: str) -> None:
    model = LossyModel(PREFIX, can_replay=True, retry_s=3.0)
    notices: list[Notice] = []
    feed = WatchFeed(model, url=url, signer=ReplaySigner(FP, FP_KEY), on_notices=notices.extend)
    answered: list[str] = []
    ready = asyncio.Event()
    helper = asyncio.create_task(responder(url, SKIPPER, ready, answered))
    watcher = asyncio.create_task(feed.run())
    try:
        await asyncio.wait_for(ready.wait(), 10)
        await until(lambda: model.connected, "the console to connect")
        chunks = [SIMULATED[i::4] for i in range(4)]
        await asyncio.gather(*(publish_tables(url, chunk) for chunk in chunks))

        # The real table: a first command sets the console's baseline on its record. The
        # daemon may not be subscribed to its commands yet: ask until it answers.
        real = (SITE, "RL-01")
        await until(lambda: model.tables.get(real) and model.tables[real].online, "RL-01 up")
        result = {"ok": False, "error": "RL-01 never answered"}
        for _ in range(20):
            with contextlib.suppress(TimeoutError):
                inspect = {"checklist": CHECKLIST, "note": "watch"}
                result = await command(url, "inspect", inspect, timeout=2.0)
                break
        assert result["ok"], result
        await until(
            lambda: real in model.tables and model.tables[real].tracker("events").high is not None,
            "RL-01's record",
        )

        # The daemon says online once it is subscribed to its commands, which may be
        # before its wheel is identified: `open` needs the wheel, so the test waits, as a
        # floorperson would, for its retained `P/devices/wheel` to name its firmware.
        def identified() -> bool:
            return any(
                n.kind == "device" and n.table == "RL-01" and n.data["body"].get("firmware")
                for n in notices
            )

        await until(identified, "RL-01's wheel identified")
        # ... then the console loses the next event of RL-01's record.
        events_topic = topics().events
        model.lose = lambda topic, body: topic == events_topic
        result = await command(url, "open", {})
        assert result["ok"], result

        await until(lambda: model.lost is not None, "an RL-01 event to be lost")
        lost_seq = model.lost["seq"]
        await until(
            lambda: (
                model.tables[real].tracker("events").complete
                and model.tables[real].tracker("events").high > lost_seq
                and not model.tables[real].is_stale
            ),
            "the real daemon's replay to fill RL-01's gap",
        )
        skipper = (SITE, SKIPPER)
        await until(
            lambda: skipper in model.tables and model.tables[skipper].tracker("events").high == 4,
            "the skipping table's events",
        )
        await until(lambda: not model.tables[skipper].is_stale, "SIM-007's gap to be filled")
        await until(lambda: model.tables.get((SITE, OFFLINE)) is not None, "the offline table")
        await until(lambda: model.tables[(SITE, OFFLINE)].is_stale, "the offline table stale")
        await until(lambda: len(model.tables) == 200, "all 200 tables")
        await until(
            lambda: all(model.tables[(SITE, t)].tracker("events").high == 4 for t in SIMULATED),
            "every simulated table's events",
        )
        stale = sorted(v.table for v in model.tables.values() if v.is_stale)
        assert stale == [OFFLINE] and model.totals().stale == 1
    finally:
        feed.stop()
        await asyncio.wait_for(watcher, 10)
        helper.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await helper

    # What the console saw and did, from its notices.
    def of(kind: str, table: str) -> list[Notice]:
        return [n for n in notices if n.kind == kind and n.table == table]

    gap = of("gap", SKIPPER)
    assert [(g.data["from_seq"], g.data["to_seq"]) for g in gap] == [(3, 3)]
    assert of("replay_requested", SKIPPER) and answered
    filled = [n for n in of("event", SKIPPER) if n.data["filled"]]
    assert [n.data["seq"] for n in filled] == [SKIPPED_SEQ]
    assert of("gap_filled", SKIPPER) and of("fresh", SKIPPER)
    assert [(g.data["from_seq"], g.data["to_seq"]) for g in of("gap", "RL-01")] == [
        (lost_seq, lost_seq)
    ]
    assert [r.data["from_seq"] for r in of("replay_requested", "RL-01")][:1] == [lost_seq]
    assert of("replay_accepted", "RL-01")
    refilled = [n.data for n in of("event", "RL-01") if n.data["filled"]]
    assert [(e["seq"], e["type"]) for e in refilled] == [(lost_seq, model.lost["type"])]
    offline = model.tables[(SITE, OFFLINE)]
    assert "table offline: connection lost" in offline.stale_text()
    assert model.totals().tables == 200
    # Once stopped, the console says every table's data may be out of date.
    assert not model.connected and model.totals().stale == 200


def test_the_feed_watches_200_tables_fills_gaps_and_sees_a_last_will(
    broker, tmp_path: Path
) -> None:
    scenario = {"pockets": 37, "seed": 5, "steps": [{"idle": 600}]}
    sim, pty = start_sim(tmp_path, scenario, 10.0)
    daemon = start_daemon(write_config(tmp_path, broker.url, pty))
    try:
        asyncio.run(watch_the_floor(broker.url))
    finally:
        assert daemon.terminate() == 0
        sim.kill()


def test_the_feed_reconnects_after_the_broker_comes_back(broker) -> None:
    async def main() -> None:
        model = FloorModel(PREFIX)
        feed = WatchFeed(model, url=broker.url)
        watcher = asyncio.create_task(feed.run())
        try:
            await until(lambda: model.connected, "the first connection")
            await asyncio.to_thread(broker.kill)
            await until(lambda: not model.connected, "the console to see the broker gone")
            await asyncio.to_thread(broker.start)
            await until(lambda: model.connected, "the console to reconnect")
            host, port = host_port(broker.url)
            async with aiomqtt.Client(host, port) as client:
                t = Topics(PREFIX, SITE, "RL-09")
                await client.publish(t.events, sim_envelope("RL-09", 1), qos=1)
            await until(lambda: (SITE, "RL-09") in model.tables, "an event after reconnecting")
        finally:
            feed.stop()
            await asyncio.wait_for(watcher, 10)

    asyncio.run(main())


def test_json_mode_prints_one_line_per_notice(broker) -> None:
    async def main() -> None:
        host, port = host_port(broker.url)
        t = Topics(PREFIX, SITE, "RL-05")
        async with aiomqtt.Client(host, port) as client:
            await client.publish(t.state, sim_state("RL-05"), qos=1, retain=True)
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "floord", "watch", "--broker", broker.url, "--json",
            "--seconds", "60", stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
        )  # fmt: skip
        assert proc.stdout is not None
        lines: list[dict] = []

        async def line_of(kind: str) -> dict:
            while True:
                raw = await asyncio.wait_for(proc.stdout.readline(), 30)
                assert raw, f"watch ended before a {kind!r} line; saw {lines}"
                lines.append(json.loads(raw))
                if lines[-1]["kind"] == kind:
                    return lines[-1]

        try:
            state = await line_of("state")  # the retained state: the console is subscribed
            assert (state["site"], state["table"]) == (SITE, "RL-05")
            assert state["summary"]["state"] == "open"
            async with aiomqtt.Client(host, port) as client:
                for seq in (1, 4):
                    await client.publish(t.events, sim_envelope("RL-05", seq), qos=1)
            event = await line_of("event")
            assert (event["seq"], event["type"], event["stream"]) == (1, "wheel.idle", "events")
            gap = await line_of("gap")
            assert (gap["from_seq"], gap["to_seq"], gap["fillable"]) == (2, 3, False)
            stale = await line_of("stale")
            assert "unfilled" in stale["reasons"]["gap"]
        finally:
            if proc.returncode is None:
                proc.terminate()
            assert await asyncio.wait_for(proc.wait(), 15) == 0
        assert lines[0]["kind"] == "connection" and lines[0]["connected"] is True

    asyncio.run(main())
