"""A clean stop: once the daemon's stop begins no command is taken and no
round starts, and `daemon.stopped` is the table's last event.

In one of three piped demo runs BA-01 recorded `operator.command` and `round.started`
after `daemon.stopped`: the broker kept delivering commands while the daemon flushed its
backlog, and the runner kept taking them. Both tests act at fixed moments of the stop
(never on timing luck): the first queues everything on the table's bus before the runner
reads it; the second holds the daemon's stop open at its two moments (while the adapters
end, and after `daemon.stopped` while the links flush) and sends real signed commands
through Mosquitto then.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from e2e_support import (
    DEALER,
    DEALER_KEY,
    FP,
    FP_KEY,
    command,
    daemon_running,
    open_table,
    start_sim,
    write_config,
)
from table_turns import take
from test_engine_support import WHEEL
from test_journal_disk_full import make_runner, table_events
from test_journal_full_round import open_table as open_runner_table
from test_journal_full_round import wheel_cycle

from floord.adapters.local import Received
from floord.config.load import load_config
from floord.contract import EventType
from floord.events import DeviceEvent
from floord.journal.readers import saved_watch
from floord.journal.store import Journal
from floord.journal.watch_states import SavedWatch
from floord.operator.commands import build_command
from floord.processes.daemon import Daemon
from floord.table.bus import CommandArrived, Finish, Tick
from floord.table.stopping import STOPPED_REASON, STOPPING, STOPPING_REASON, StopGate

pytestmark = pytest.mark.system

WAIT_S = 20.0


def _types(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


def _after(events: list[dict[str, Any]], index: int) -> list[dict[str, Any]]:
    return events[index:]


def test_a_stopping_runner_refuses_commands_starts_no_round_and_ends_the_record(
    tmp_path: Path,
) -> None:
    path = tmp_path / "journal.db"
    runner, journal, clock, link = make_runner(path)
    try:
        open_runner_table(runner, clock)
        for etype, data in wheel_cycle(1, "7"):  # a whole round before the stop
            take(runner, Received(WHEEL, DeviceEvent(EventType(etype), data), clock.step(), 0))
        spin2 = wheel_cycle(2, "17")
        take(runner, Received(WHEEL, DeviceEvent(EventType(spin2[0][0]), spin2[0][1]),
                                  clock.step(), 0))  # fmt: skip
        assert runner.engine.current_round is not None, "spin 2's round is in play"
        before = len(table_events(path, runner.table))

        runner.stop.begin()
        bus = runner.bus

        def cmd(name: str, by: str, args: dict[str, Any]) -> str:
            body = build_command(name, by, args, {"fp1": b"fp1-secret", "dl1": b"dl1-secret"}[by],
                                 clock.step())  # fmt: skip
            bus.put(CommandArrived(json.dumps(body).encode()))
            return str(body["id"])

        def device(etype: str, data: dict[str, Any], seq: int) -> None:
            bus.put(Received(WHEEL, DeviceEvent(EventType(etype), data), clock.step(), seq))

        for etype, data in spin2[1:]:  # the round in play still gets its number
            device(etype, data, 0)
        spin3 = wheel_cycle(3, "32")
        device(*spin3[0], 41)  # a new game: would start a round
        device(*spin3[1], 42)  # a launch with no round open: would start one too
        bus.put(Tick(clock.step()))
        refused = [cmd("dealer_in", "dl1", {}), cmd("close", "fp1", {})]
        refused.append(cmd("replay", "fp1", {"from_seq": 1, "to_seq": 2}))
        clock.step()
        bus.put(Finish())
        late = cmd("close", "fp1", {})  # after daemon.stopped: answered, not recorded

        async def drain() -> None:
            task = asyncio.create_task(runner.run())
            await asyncio.wait_for(runner.stop.finished.wait(), WAIT_S)
            while bus.pending():
                await asyncio.sleep(0.01)
            await asyncio.gather(*list(runner.effects.tasks))
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

        asyncio.run(drain())
    finally:
        journal.close()

    events = table_events(path, runner.table)
    stopping = _after(events, before)
    assert events[-1]["type"] == EventType.DAEMON_STOPPED
    assert EventType.ROUND_STARTED not in _types(stopping)
    assert EventType.OPERATOR_COMMAND not in _types(stopping)
    refusals = [e for e in stopping if e["type"] == EventType.OPERATOR_COMMAND_REFUSED]
    assert [r["data"]["id"] for r in refusals] == refused
    assert {(r["data"]["code"], r["data"]["reason"]) for r in refusals} == {
        (STOPPING, STOPPING_REASON)
    }
    assert refusals[0]["source"] == "operator:dl1" and refusals[1]["source"] == "operator:fp1"
    # The number of the round in play settled it; the next spin opened nothing.
    assert [e["data"]["number"] for e in stopping if e["type"] == EventType.ROULETTE_RESULT] == [
        "17"
    ]
    assert EventType.ROUND_ENDED in _types(stopping)
    stopped = events[-1]["data"]
    assert stopped["reason"] == "clean stop"
    assert [(n["type"], n["device_seq"]) for n in stopped["not_acted_on"]] == [
        (EventType.WHEEL_GAME_STARTED, 41),
        (EventType.WHEEL_BALL_LAUNCHED, 42),
    ]
    replies = {r["id"]: r for r in link.results}
    assert all(replies[i] == {"id": i, "ok": False, "error": STOPPING_REASON} for i in refused)
    assert replies[late] == {"id": late, "ok": False, "error": STOPPED_REASON}
    assert late not in json.dumps(events)


def test_the_daemon_refuses_commands_during_its_stop_and_records_nothing_after_it(
    broker, tmp_path: Path
) -> None:
    """A real daemon (in this process), a simulated wheel on a pty, a real Mosquitto."""
    sim, pty = start_sim(tmp_path, {"pockets": 37, "steps": [{"idle": 60000}]}, 20.0)
    daemon = Daemon(load_config(write_config(tmp_path, broker.url, pty)))
    unit = daemon.tables["RL-01"]
    replies: dict[str, dict[str, Any]] = {}

    def record() -> list[dict[str, Any]]:
        return [json.loads(e) for e in daemon.journal.read_range("RL-01", 1, 10_000)]

    async def until(what: str, done: Callable[[], bool]) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + WAIT_S
        while not done():
            assert loop.time() < deadline, f"timed out waiting for {what}"
            await asyncio.sleep(0.05)

    async def while_the_adapters_end() -> None:
        """Held by the stop like an adapter task: the stop has begun, `daemon.stopped`
        is not yet recorded, the link is up."""
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            replies["close"] = await command(broker.url, "close", {}, by=FP, key=FP_KEY)
            replies["dealer_in"] = await command(
                broker.url, "dealer_in", {}, by=DEALER, key=DEALER_KEY
            )
            game = DeviceEvent(EventType.WHEEL_GAME_STARTED, {"spin": 9, "state": 2})
            unit.bus.put(Received("wheel", game, daemon.clock(), 77))

    link_stop = unit.link.stop

    async def after_the_record_closed() -> None:
        """The links flushed; before they say offline, one more command arrives."""
        replies["late"] = await command(broker.url, "close", {}, by=FP, key=FP_KEY)
        await link_stop()

    async def scenario() -> None:
        async with daemon_running(daemon, 3 * WAIT_S):
            await until("the wheel identified", lambda: EventType.DEVICE_IDENTIFIED in
                        _types(record()))  # fmt: skip
            await open_table(broker.url)
            unit.device_tasks.append(asyncio.create_task(while_the_adapters_end()))
            unit.link.stop = after_the_record_closed  # type: ignore[method-assign]

    try:
        asyncio.run(scenario())
    finally:
        sim.kill()
    journal = Journal.open_readonly(tmp_path / "journal.db")
    try:
        events = [json.loads(e) for e in journal.read_range("RL-01", 1, 10_000)]
    finally:
        journal.close()
    assert events[-1]["type"] == EventType.DAEMON_STOPPED
    assert events[-1]["data"]["not_acted_on"][0]["device_seq"] == 77
    # The live tests kept at the record's end: the next start replays no result.
    kept = saved_watch(tmp_path / "journal.db", "RL-01")
    assert isinstance(kept, SavedWatch) and kept.after_seq == events[-1]["seq"], kept
    opened = max(i for i, e in enumerate(events) if e["type"] == EventType.TABLE_OPENED)
    stop = _after(events, opened + 1)
    assert EventType.ROUND_STARTED not in _types(stop)
    assert EventType.OPERATOR_COMMAND not in _types(stop)
    refusals = [e["data"] for e in stop if e["type"] == EventType.OPERATOR_COMMAND_REFUSED]
    assert [(r["name"], r["code"]) for r in refusals] == [
        ("close", STOPPING),
        ("dealer_in", STOPPING),
    ]
    assert replies["close"]["error"] == STOPPING_REASON and not replies["close"]["ok"]
    assert replies["dealer_in"]["error"] == STOPPING_REASON
    assert replies["late"] == {"id": replies["late"]["id"], "ok": False, "error": STOPPED_REASON}
    assert replies["late"]["id"] not in json.dumps(events)


def test_a_stop_names_twenty_inputs_it_did_not_act_on_and_counts_the_rest() -> None:
    gate = StopGate()
    assert gate.refusal("c1", "open", "fp1") is None, "not stopping yet"
    gate.begin()
    for seq in range(1, 24):
        gate.held_back({"source": WHEEL, "type": "wheel.game_started", "device_seq": seq})
    stopped = gate.stopped("clean stop")
    assert stopped.type == EventType.DAEMON_STOPPED and stopped.rule is None
    assert [n["device_seq"] for n in stopped.data["not_acted_on"]] == list(range(1, 21))
    assert stopped.data["not_acted_on_more"] == 3
    refusal = gate.refusal("c1", "open", "fp1")
    assert refusal is not None and (refusal.code, refusal.reason) == (STOPPING, STOPPING_REASON)
