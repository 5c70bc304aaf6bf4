"""The table link against a real Mosquitto: order, outages, retained state, the last will."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import aiomqtt
import pytest
from mqtt_link_support import (
    DEADLINE_S,
    DEVICE_STREAM,
    REPO,
    STREAMS,
    TOPICS,
    GatedProxy,
    Harness,
    Subscriber,
    append,
    public_interfaces_only,
    run,
    until,
)
from support import Broker, free_port

from floord.journal.store import JournalError
from floord.mqtt import Backoff
from floord.mqtt.link import broker_address

pytestmark = pytest.mark.system


@pytest.fixture(params=["hooks", "public"])
def publish_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Both ways a batch goes out: through `floord.mqtt.paho_hooks`, and through aiomqtt's
    public interfaces alone (other library versions than the hooks were written for)."""
    if request.param == "public":
        public_interfaces_only(monkeypatch)
    return str(request.param)


# --- pure parts ------------------------------------------------------------------------


def test_backoff_doubles_to_a_ceiling_and_resets() -> None:
    b = Backoff(0.2, 5.0)
    assert [b.next() for _ in range(7)] == [0.2, 0.4, 0.8, 1.6, 3.2, 5.0, 5.0]
    b.reset()
    assert b.next() == 0.2
    with pytest.raises(ValueError):
        Backoff(0, 1)


def test_broker_address() -> None:
    assert broker_address("mqtt://10.0.0.5") == ("10.0.0.5", 1883, False)
    assert broker_address("mqtts://broker.floor:9000/") == ("broker.floor", 9000, True)
    assert broker_address("mqtts://b") == ("b", 8883, True)
    for bad in ("http://b", "mqtt://", "mqtt://b/x", "mqtt://b:99999"):
        with pytest.raises(ValueError):
            broker_address(bad)


# --- against Mosquitto -----------------------------------------------------------------


def test_backlog_goes_out_in_order_and_retained_state_is_there(
    broker: Broker, tmp_path: Path, publish_path: str
) -> None:
    async def scenario() -> None:
        h = Harness(tmp_path, broker.url)
        stored = [e.to_json() for e in append(h.journal, "t1", 120)]
        stored_dev = [e.to_json() for e in append(h.journal, DEVICE_STREAM, 7)]
        async with (
            Subscriber(broker.port, [TOPICS.events, f"{TOPICS.base}/devices/+/events"]) as sub,
            h.running(),
        ):
            await until("backlog sent", lambda: len(sub.got) == 127)
            assert sub.on(TOPICS.events) == stored  # byte for byte, in seq order
            assert sub.on(TOPICS.device_events("wheel")) == stored_dev
            await until("backlog marked", lambda: h.journal.backlog(list(STREAMS)) == 0)

            more = [e.to_json() for e in append(h.journal, "t1", 3)]
            h.link.notify()
            await until("new events sent", lambda: len(sub.on(TOPICS.events)) == 123)
            assert sub.on(TOPICS.events)[-3:] == more
            await until("all marked", lambda: h.journal.backlog(list(STREAMS)) == 0)
            assert h.link.connected

            h.state = {"phase": "open", "round": "r-1"}
            h.link.state_changed()
            retained = [TOPICS.status, TOPICS.state, TOPICS.device("wheel")]
            await asyncio.sleep(0)
            async with Subscriber(broker.port, retained) as late:
                await until(
                    "retained state",
                    lambda: late.on(TOPICS.state) == ['{"phase":"open","round":"r-1"}'],
                )
                await until("retained status and device", lambda: len(late.got) == 3)
                assert all(retain for _, _, retain in late.got)
                status = json.loads(late.on(TOPICS.status)[0])
                assert status["online"] is True and status["table"] == "t1"
                assert late.on(TOPICS.device("wheel")) == ['{"online":true}']
            assert len(sub.got) == 130  # nothing sent twice

    run(scenario)


def test_a_device_clock_waits_five_seconds_the_state_one_a_change_none(
    broker: Broker, tmp_path: Path
) -> None:
    """docs/contract.md, "Retained bodies": clock-only moves are paced per topic."""

    async def scenario() -> None:
        h = Harness(tmp_path, broker.url)
        h.state = {"phase": "open", "chain": {"seq": 1, "hash": "a"}}
        h.device_bodies = {"wheel": {"online": True, "last_heard": "t1"}}
        retained = [TOPICS.state, TOPICS.device("wheel")]
        async with Subscriber(broker.port, retained) as sub, h.running():
            await until("first bodies", lambda: len(sub.got) == 2)
            h.state = {**h.state, "chain": {"seq": 2, "hash": "b"}}
            h.device_bodies = {"wheel": {"online": True, "last_heard": "t2"}}
            h.link.state_changed()
            await until("the state's clock, after its second", lambda: len(sub.got) == 3)
            await asyncio.sleep(0.5)
            assert len(sub.on(TOPICS.device("wheel"))) == 1, "its last_heard is held back"
            h.device_bodies = {"wheel": {"online": False, "last_heard": "t2"}}
            h.link.state_changed()
            await until("a change of the device, at once", lambda: len(sub.got) == 4)
            assert sub.on(TOPICS.device("wheel"))[-1] == '{"online":false,"last_heard":"t2"}'

    run(scenario)


def test_commands_results_and_replays(broker: Broker, tmp_path: Path) -> None:
    async def scenario() -> None:
        h = Harness(tmp_path, broker.url)
        replayed = [e.to_json() for e in append(h.journal, "t1", 5)]
        watched = [TOPICS.cmd_result, TOPICS.replay]
        async with Subscriber(broker.port, watched) as sub, h.running():
            await until("connected", lambda: h.link.connected)
            await until("subscribed", lambda: h.journal.backlog(["t1"]) == 0)
            async with aiomqtt.Client("127.0.0.1", broker.port) as operator:
                await operator.publish(TOPICS.cmd, b'{"name":"inspect"}', qos=1)
                await operator.publish(TOPICS.cmd, b"\xff not json", qos=1)
                await operator.publish(TOPICS.replay_request, b'{"name":"replay"}', qos=1)
            await until("commands handed over", lambda: len(h.commands) == 3)
            assert h.commands == [b'{"name":"inspect"}', b"\xff not json", b'{"name":"replay"}']
            assert h.replay_only == [False, False, True]

            await h.link.publish_result({"id": "c1", "ok": True, "error": None})
            await h.link.publish_replay(replayed[1:4])
            await until("result and replay", lambda: len(sub.got) == 4)
            assert sub.on(TOPICS.cmd_result) == ['{"id":"c1","ok":true,"error":null}']
            assert sub.on(TOPICS.replay) == replayed[1:4]
            assert not any(retain for _, _, retain in sub.got)

    run(scenario)


def test_a_failing_command_handler_does_not_stop_the_link(broker: Broker, tmp_path: Path) -> None:
    async def scenario() -> None:
        seen: list[bytes] = []

        async def handler(raw: bytes, replay_only: bool) -> None:
            seen.append(raw)
            if raw == b"boom":
                raise RuntimeError("handler bug")

        h = Harness(tmp_path, broker.url, on_command=handler)
        async with h.running():
            await until("connected", lambda: h.link.connected)
            await until("subscribed", lambda: h.journal.backlog(["t1"]) == 0)
            await asyncio.sleep(0.1)
            async with aiomqtt.Client("127.0.0.1", broker.port) as operator:
                await operator.publish(TOPICS.cmd, b"boom", qos=1)
                await operator.publish(TOPICS.cmd, b"next", qos=1)
            await until("both handled", lambda: seen == [b"boom", b"next"])
            assert any("command handler failed" in line for line in h.log_lines)
            assert h.link.connected

    run(scenario)


async def _outage(broker: Broker, proxy: GatedProxy, h: Harness) -> None:
    """Shut the gate and kill the broker; return once the link knows it is offline."""
    await proxy.shut()
    broker.kill()
    await until("link offline", lambda: not h.link.connected)


def test_an_outage_between_bursts_loses_and_repeats_nothing(broker: Broker, tmp_path: Path) -> None:
    async def scenario() -> None:
        async with GatedProxy(broker.port) as proxy:
            h = Harness(tmp_path, proxy.url)
            append(h.journal, "t1", 50)
            sub_id = "audit-console"
            # Subscribed before the link starts, so it sees the stream from its first event
            # (its connection goes with the broker; the second takes its client id after).
            async with Subscriber(broker.port, [TOPICS.events], sub_id) as sub, h.running():
                await until("first burst", lambda: len(sub.got) == 50)
                await until("first burst marked", lambda: h.journal.backlog(["t1"]) == 0)
                await _outage(broker, proxy, h)
                append(h.journal, "t1", 50)
                h.link.notify()
                assert h.journal.backlog(["t1"]) == 50
                broker.start()
                async with Subscriber(broker.port, [TOPICS.events], sub_id) as sub2:
                    await proxy.open()
                    await until("second burst", lambda: len(sub2.got) == 50)
                    await until("all marked", lambda: h.journal.backlog(["t1"]) == 0)
                    assert sub.seqs(TOPICS.events) + sub2.seqs(TOPICS.events) == list(range(1, 101))

    run(scenario)


def test_broker_killed_mid_stream_resends_from_the_first_unacknowledged(
    broker: Broker, tmp_path: Path, publish_path: str
) -> None:
    async def scenario() -> None:
        async with GatedProxy(broker.port) as proxy:
            h = Harness(tmp_path, proxy.url)
            append(h.journal, "t1", 3000)
            # Subscribed before the link starts, so it sees the stream from its first event.
            async with Subscriber(broker.port, [TOPICS.events]) as sub, h.running():
                await until("stream under way", lambda: len(sub.got) >= 100)
                await _outage(broker, proxy, h)
                before = sub.seqs(TOPICS.events)
                # Whatever arrived before the kill arrived once, in order, from 1.
                assert before == list(range(1, len(before) + 1))
                pending = h.journal.unpublished(["t1"], limit=1)
                first_unacked = pending[0][1] if pending else 3001
                assert first_unacked > 1
                append(h.journal, "t1", 20)
                h.link.notify()
                broker.start()
                async with Subscriber(broker.port, [TOPICS.events]) as sub2:
                    await proxy.open()
                    expected = list(range(first_unacked, 3021))
                    await until("rest of the stream", lambda: len(sub2.got) >= len(expected))
                    await until("all marked", lambda: h.journal.backlog(["t1"]) == 0)
                    assert sub2.seqs(TOPICS.events) == expected

    run(scenario)


def test_stop_says_offline_and_a_dead_broker_does_not_hang_stop(
    broker: Broker, tmp_path: Path
) -> None:
    async def scenario() -> None:
        h = Harness(tmp_path, broker.url)
        task = asyncio.create_task(h.link.run())
        await until("connected", lambda: h.link.connected)
        await h.link.stop()
        assert task.done() and task.exception() is None and not h.link.connected
        async with Subscriber(broker.port, [TOPICS.status]) as late:
            await until("retained status", lambda: len(late.got) == 1)
            status = json.loads(late.on(TOPICS.status)[0])
            assert status["online"] is False and status["reason"] == "clean stop"

        down = Harness(tmp_path / "down", f"mqtt://127.0.0.1:{free_port()}")
        task = asyncio.create_task(down.link.run())
        await until("a failed attempt", lambda: len(down.log_lines) >= 2)
        assert not down.link.connected
        await down.link.publish_result({"id": "c1", "ok": True})
        assert any("result dropped" in line for line in down.log_lines)
        await asyncio.wait_for(down.link.stop(), DEADLINE_S)
        assert task.done() and task.exception() is None
        h.journal.close()
        down.journal.close()

    run(scenario)


def test_cancelling_run_says_offline(broker: Broker, tmp_path: Path) -> None:
    async def scenario() -> None:
        h = Harness(tmp_path, broker.url)
        task = asyncio.create_task(h.link.run())
        await until("connected", lambda: h.link.connected)
        task.cancel()
        await asyncio.wait([task])
        assert task.cancelled()
        async with Subscriber(broker.port, [TOPICS.status]) as late:
            await until("retained status", lambda: len(late.got) == 1)
            assert json.loads(late.on(TOPICS.status)[0])["reason"] == "cancelled"
        h.journal.close()

    run(scenario)


def test_a_journal_failure_ends_run_and_says_offline(broker: Broker, tmp_path: Path) -> None:
    async def scenario() -> None:
        h = Harness(tmp_path, broker.url)
        task = asyncio.create_task(h.link.run())
        await until("connected", lambda: h.link.connected)
        h.journal.close()
        h.link.notify()
        await asyncio.wait([task], timeout=DEADLINE_S)
        assert isinstance(task.exception(), JournalError)
        async with Subscriber(broker.port, [TOPICS.status]) as late:
            await until("retained status", lambda: len(late.got) == 1)
            status = json.loads(late.on(TOPICS.status)[0])
            assert status["online"] is False
            assert status["reason"] == "link failed: JournalError"

    run(scenario)


LINK_PROCESS = """
import asyncio, sys
from pathlib import Path
from floord.contract import Topics
from floord.journal.store import Journal, JournalError
from floord.mqtt import TableLink

async def main():
    async def on_command(raw, replay_only):
        pass
    link = TableLink(
        url=sys.argv[1], username=None, password=None,
        topics=Topics(prefix="floor/v1", site="s1", table="t1"),
        journal=Journal(Path(sys.argv[2])), streams={"t1": "floor/v1/s1/t1/events"},
        state=lambda: {"phase": "closed"}, devices=lambda: {}, on_command=on_command,
        keepalive=5,
    )
    await link.run()

asyncio.run(main())
"""


def test_last_will_says_offline_when_the_process_dies(broker: Broker, tmp_path: Path) -> None:
    async def scenario() -> None:
        script = tmp_path / "link_process.py"
        script.write_text(LINK_PROCESS)
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        proc = subprocess.Popen(
            [sys.executable, str(script), broker.url, str(tmp_path / "j.db")],
            env=env,
            cwd=REPO,
            stderr=subprocess.PIPE,
        )
        try:
            async with Subscriber(broker.port, [TOPICS.status]) as sub:
                await until(
                    "online status",
                    lambda: any(json.loads(p)["online"] for p in sub.on(TOPICS.status)),
                )
                os.kill(proc.pid, signal.SIGKILL)
                await until(
                    "last will",
                    lambda: not json.loads(sub.on(TOPICS.status)[-1])["online"],
                )
                will = json.loads(sub.on(TOPICS.status)[-1])
                assert will["reason"] == "connection lost" and will["table"] == "t1"
        finally:
            if proc.poll() is None:
                proc.kill()
            _, err = proc.communicate(timeout=10)
        assert proc.returncode == -signal.SIGKILL, err.decode(errors="replace")

    run(scenario)


def test_events_go_out_by_the_feed_and_a_feed_that_overflowed_falls_back_to_the_journal(
    broker: Broker, tmp_path: Path
) -> None:
    """A commit's rows are published without being read back; a publisher the
    feed outran (more rows than the feed holds) reads the journal, losing nothing."""
    from floord.journal.feed import FEED_LIMIT

    async def scenario() -> None:
        h = Harness(tmp_path, broker.url)
        reads: list[int] = []
        unpublished = h.journal.unpublished

        def counted(streams: list[str], limit: int = 500) -> list[tuple[str, int, str]]:
            rows = unpublished(streams, limit)
            reads.append(len(rows))
            return rows

        h.journal.unpublished = counted  # type: ignore[method-assign]
        async with Subscriber(broker.port, [TOPICS.events]) as sub, h.running():
            await until("connected", lambda: h.link.connected)
            await until("first read", lambda: len(reads) >= 1)
            before = len(reads)
            for n in range(1, 21):
                append(h.journal, "t1")
                h.link.notify()
                await until(f"event {n}", lambda n=n: len(sub.on(TOPICS.events)) == n)
            assert len(reads) == before  # none of the 20 was read back
            # Appended while the loop is held: the feed keeps only its last FEED_LIMIT.
            append(h.journal, "t1", FEED_LIMIT + 50)
            h.link.notify()
            total = 20 + FEED_LIMIT + 50
            await until("the burst", lambda: len(sub.on(TOPICS.events)) >= total)
            await until("all marked", lambda: h.journal.backlog(["t1"]) == 0)
            assert sub.seqs(TOPICS.events) == list(range(1, total + 1))
            assert len(reads) > before  # the gap was filled from the journal

    run(scenario)
