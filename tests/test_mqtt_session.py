"""The one MQTT session loop (floord.mqtt.session) on its own, against a real Mosquitto.

The table link, the adapter link, the remote device and the console feed all keep their
connection through it, and their own tests cover it through them; these pin down what
the loop itself promises: a fresh client per connection with the back-off reset after
CONNACK, a logged failure (with the wait before the next try) and `on_lost`, a stop that
ends a back-off wait or a session at once (saying goodbye first), and a session failure
that is not MQTT's ending run() with it, and the back-off starting over only after a
connection that stayed up (a node that accepts and then drops at once is a failure).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import aiomqtt
import pytest
from mqtt_link_support import DEADLINE_S, no_tasks_left, until
from support import Broker, free_port

from floord.mqtt.backoff import Backoff
from floord.mqtt.client import Broker as BrokerAddress
from floord.mqtt.jobs import SessionStopped, run_session
from floord.mqtt.session import SessionLoop

pytestmark = pytest.mark.system


class Lines:
    """A structlog-style logger that keeps (level, event, fields)."""

    def __init__(self) -> None:
        self.lines: list[tuple[str, str, dict[str, Any]]] = []

    def info(self, event: str, **fields: Any) -> None:
        self.lines.append(("info", event, fields))

    def warning(self, event: str, **fields: Any) -> None:
        self.lines.append(("warning", event, fields))

    def debug(self, event: str, **fields: Any) -> None:
        self.lines.append(("debug", event, fields))

    def events(self, level: str) -> list[dict[str, Any]]:
        return [fields for lvl, _, fields in self.lines if lvl == level]


class Waits(Backoff):
    """A back-off that hands out the given waits, the last one for ever."""

    def __init__(self, *waits: float) -> None:
        super().__init__()
        self.waits = list(waits)

    def next(self) -> float:
        return self.waits.pop(0) if len(self.waits) > 1 else self.waits[0]


def address(url: str) -> BrokerAddress:
    return BrokerAddress.from_url(
        url, username=None, password=None, identifier=None, keepalive=5, timeout=2.0
    )


def run(scenario: Callable[[], Any]) -> None:
    async def main() -> None:
        await scenario()
        await no_tasks_left()

    asyncio.run(main())


def test_failures_are_logged_with_the_growing_wait_and_stop_ends_the_wait() -> None:
    async def scenario() -> None:
        log, lost = Lines(), []
        where = address(f"mqtt://127.0.0.1:{free_port()}")  # nobody listens there

        async def serve(client: aiomqtt.Client) -> None:
            raise AssertionError("no connection to serve")

        loop = SessionLoop(
            make_client=where.client,
            serve=serve,
            nodes=where.nodes,
            log=log,
            backoff=Waits(0.05, 0.1, 0.2, 600.0),
            on_lost=lost.append,
        )
        task = asyncio.create_task(loop.run())
        await until("four failed attempts", lambda: len(lost) == 4)
        # A wait far longer than the test's deadline must not hold a stop back.
        loop.stop()
        await asyncio.wait_for(task, DEADLINE_S)
        # One warning for the operator; the retries after it are debug lines.
        assert [event for lvl, event, _ in log.lines if lvl == "warning"] == ["broker unreachable"]
        tries = log.events("warning") + log.events("debug")
        waits = [f["retry_in_s"] for f in tries]
        assert waits == [0.05, 0.1, 0.2, 600.0]
        assert all(f["broker"] == where.where for f in tries)
        assert len(lost) == len(waits) and all(isinstance(e, aiomqtt.MqttError) for e in lost)
        assert log.events("info") == []

    run(scenario)


def test_a_session_runs_on_a_connected_client_and_stop_says_goodbye(broker: Broker) -> None:
    async def scenario() -> None:
        log = Lines()
        where = address(broker.url)
        backoff = Backoff(0.05, 0.2)
        backoff.next()
        backoff.next()  # as after two failures: a connection is not yet a good one
        said: list[str] = []
        sessions: list[aiomqtt.Client] = []

        async def goodbye(client: aiomqtt.Client) -> None:
            await client.publish("test/session", b"bye", qos=1)
            said.append("bye")

        async def serve(client: aiomqtt.Client) -> None:
            sessions.append(client)
            await client.subscribe("test/session", qos=1)
            await run_session({asyncio.create_task(loop.until_stopped(lambda: goodbye(client)))})

        loop = SessionLoop(
            make_client=where.client, serve=serve, nodes=where.nodes, log=log, backoff=backoff
        )
        task = asyncio.create_task(loop.run())
        await until("a session", lambda: len(sessions) == 1)
        assert backoff.next() == 0.2  # not reset at CONNACK: only once it stayed up
        loop.stop()
        await asyncio.wait_for(task, DEADLINE_S)
        assert task.exception() is None and said == ["bye"] and len(sessions) == 1
        assert log.lines == [("info", "broker connected", {"broker": where.where})]

    run(scenario)


def test_each_connection_gets_a_fresh_client_and_a_failure_not_of_mqtt_ends_run(
    broker: Broker,
) -> None:
    async def scenario() -> None:
        where = address(broker.url)
        sessions: list[aiomqtt.Client] = []

        async def serve(client: aiomqtt.Client) -> None:
            sessions.append(client)
            if len(sessions) < 3:
                raise aiomqtt.MqttError("the link lost its broker")
            raise RuntimeError("the journal failed")

        loop = SessionLoop(
            make_client=where.client,
            serve=serve,
            nodes=where.nodes,
            log=None,  # no logger: the loop says nothing
            backoff=Backoff(0.01, 0.01),
        )
        task = asyncio.create_task(loop.run())
        await asyncio.wait([task], timeout=DEADLINE_S)
        assert isinstance(task.exception(), RuntimeError)
        assert len(sessions) == 3 and len({id(c) for c in sessions}) == 3

    run(scenario)


def test_the_back_off_starts_over_only_after_a_connection_that_stayed_up(
    broker: Broker,
) -> None:
    class Counted(Backoff):
        def __init__(self) -> None:
            super().__init__(0.01, 0.08)
            self.given: list[float] = []

        def next(self) -> float:
            self.given.append(super().next())
            return self.given[-1]

    async def scenario() -> None:
        where = address(broker.url)
        backoff = Counted()
        sessions = 0

        async def serve(client: aiomqtt.Client) -> None:
            nonlocal sessions
            sessions += 1
            if sessions == 4:
                await asyncio.sleep(0.3)  # this one stays up longer than stable_s
            if sessions == 6:
                loop.stop()
            raise aiomqtt.MqttError("dropped")

        loop = SessionLoop(
            make_client=where.client, serve=serve, nodes=where.nodes, backoff=backoff, stable_s=0.2
        )
        await asyncio.wait_for(loop.run(), DEADLINE_S)
        # Dropped at once three times: the wait grows; after the long one it starts over.
        assert backoff.given == [0.01, 0.02, 0.04, 0.01, 0.02]

    run(scenario)


def test_a_stop_during_the_start_up_ends_the_session_cleanly() -> None:
    """A stop while the start-up step is still waiting (its subscribe, its `online`)
    cancels that step before saying goodbye; the cancelled step, reported done first,
    must not end the session with CancelledError (a link's run() then ended so)."""

    async def scenario() -> None:
        started = asyncio.Event()

        async def startup() -> None:
            started.set()
            await asyncio.sleep(DEADLINE_S)  # a subscribe the broker has not answered

        step = asyncio.create_task(startup())

        async def stop_watch() -> None:
            await started.wait()
            step.cancel()  # what a link's goodbye does first
            await asyncio.wait([step])
            await asyncio.sleep(0.05)  # the goodbye's publish: the step is seen done first
            raise SessionStopped

        await run_session({step, asyncio.create_task(stop_watch())}, may_finish={step})
        await no_tasks_left()

    asyncio.run(scenario())
