"""The archive's MQTT side: subscribe to the floor, hand each event to the writer, ask
for what is missing.

One persistent session (clean_session off, the config's `client_id`) with QoS 1
subscriptions: while the archive is away the broker keeps what arrives for it (within
its own limits, docs/archive.md), and what the broker could not keep, the tables replay
on a signed request. Every message is read strictly (`floord.archive.arrivals`): one
that is not an envelope of the stream its topic names is dropped with a log line. The
connection follows `broker.urls` with back-off (`floord.mqtt.session.SessionLoop`), as
the daemon's link does.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import aiomqtt
import structlog

from floord.archive.arrivals import read_arrival, where
from floord.archive.requests import Ask, ReplayPlanner
from floord.archive.writer import ArchiveWriter, Tail
from floord.contract import SEQ_MAX, Topics
from floord.mqtt.backoff import Backoff
from floord.mqtt.client import Broker, subscribe_checked
from floord.mqtt.jobs import run_session
from floord.mqtt.paho_hooks import manual_acks
from floord.mqtt.session import SessionLoop
from floord.operator.commands import build_command
from floord.untrusted import parse_json, read_json

log = structlog.get_logger("floord.archive")

TICK_S = 0.25
# A dropped message's line is said at most once a minute per topic.
DROP_LINE_EVERY_S = 60.0
# A session's subscriptions may take long on a cluster (NATS: a JetStream consumer each).
SUBSCRIBE_TIMEOUT_S = 30.0
_HEX64 = re.compile(r"^[0-9a-f]{64}$")


class ArchiveFeed:
    def __init__(
        self,
        writer: ArchiveWriter,
        broker: Broker,
        *,
        prefix: str,
        topics: list[str],
        planner: ReplayPlanner,
        signer: tuple[str, bytes] | None,
        ack_when_stored: bool = True,
    ) -> None:
        self._writer = writer
        self._broker = broker
        self._prefix = prefix
        self._topics = topics
        self._planner = planner
        self._signer = signer
        self._dropped_said: dict[str, float] = {}
        self.dropped = 0
        self.replays_sent = 0
        self.connected = False
        # The connection's number and its acknowledgement of a stored message.
        self._connection = 0
        self._ack: Callable[[int], object] | None = None
        self._ack_when_stored = ack_when_stored
        self._loop: asyncio.AbstractEventLoop | None = None
        writer.on_stored = self._stored
        self._session = SessionLoop(
            make_client=self._client,
            serve=self._serve,
            nodes=broker.nodes,
            log=log,
            backoff=Backoff(0.2, 5.0),
            on_lost=self._on_lost,
        )

    def _client(self) -> aiomqtt.Client:
        client = aiomqtt.Client(
            self._broker.nodes.host,
            self._broker.nodes.port,
            username=self._broker.username,
            password=self._broker.password,
            identifier=self._broker.identifier,
            clean_session=False,
            keepalive=self._broker.keepalive,
            timeout=self._broker.timeout,
            tls_context=self._broker.tls_context,
            tls_params=aiomqtt.TLSParameters()
            if self._broker.tls and self._broker.tls_context is None
            else None,
        )
        # A floor's retained states and a persistent session's backlog arrive at once.
        client.pending_calls_threshold = 100_000
        return client

    def _on_lost(self, exc: aiomqtt.MqttError) -> None:
        self.connected = False

    async def run(self) -> None:
        await self._session.run()

    def stop(self) -> None:
        self._session.stop()

    async def _serve(self, client: aiomqtt.Client) -> None:
        self._loop = asyncio.get_running_loop()
        self._connection += 1
        # Each event is acknowledged once committed: one the archive had not stored when
        # it stopped (or was killed) the broker sends again to its persistent session.
        self._ack = manual_acks(client) if self._ack_when_stored else None
        await subscribe_checked(client, self._topics, timeout=SUBSCRIBE_TIMEOUT_S)
        self.connected = True
        await run_session(
            {
                asyncio.create_task(self._listen(client)),
                asyncio.create_task(self._ask(client)),
                asyncio.create_task(self._session.until_stopped()),
            }
        )

    async def _listen(self, client: aiomqtt.Client) -> None:
        async for message in client.messages:
            topic = str(message.topic)
            payload = message.payload
            raw = payload if isinstance(payload, bytes) else str(payload or "").encode()
            ack = self._ack if message.qos == 1 else None
            token = (self._connection, message.mid) if ack is not None else None
            if not self.take(topic, raw, token) and ack is not None:
                ack(message.mid)  # not an event: nothing to store first
        raise aiomqtt.MqttError("the broker ended the message stream")

    def take(self, topic: str, raw: bytes, ack: tuple[int, int] | None = None) -> bool:
        """One message of the floor: an event to the writer (True: the writer will
        acknowledge it once stored), a state's head, an answer."""
        at = where(self._prefix, topic)
        if at is not None:
            try:
                self._writer.put(read_arrival(at, raw, ack))
            except ValueError as exc:
                self._drop(topic, str(exc))
                return False
            return ack is not None
        if topic.endswith("/state"):
            self._state(topic, raw)
        elif topic.endswith("/cmd/result"):
            self._answer(topic, raw)
        return False

    def _stored(self, tokens: list[tuple[int, int]]) -> None:
        """From the writer's thread: these messages are stored; acknowledge them on the
        loop (those of a connection since lost the broker sends again: duplicates)."""
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._acknowledge, tokens)

    def _acknowledge(self, tokens: list[tuple[int, int]]) -> None:
        ack = self._ack
        if ack is None:
            return
        for connection, mid in tokens:
            if connection == self._connection:
                ack(mid)

    def _state(self, topic: str, raw: bytes) -> None:
        parts = topic[len(self._prefix) + 1 :].split("/")
        if len(parts) != 3 or not raw:
            return
        try:
            body = parse_json(raw, max_bytes=1024 * 1024)
        except ValueError as exc:
            self._drop(topic, str(exc))
            return
        chain = body.get("chain") if isinstance(body, dict) else None
        if not isinstance(chain, dict):
            return
        seq, hash_ = chain.get("seq"), chain.get("hash")
        if isinstance(seq, bool) or not isinstance(seq, int) or not 1 <= seq <= SEQ_MAX:
            return
        if isinstance(hash_, str) and _HEX64.match(hash_):
            self._writer.put(Tail(parts[0], parts[1], seq, hash_))

    def _answer(self, topic: str, raw: bytes) -> None:
        try:
            body = read_json(raw)
        except ValueError:
            return
        if not isinstance(body, dict) or not isinstance(body.get("id"), str):
            return
        ok = body.get("ok") is True
        ask = self._planner.answered(body["id"], ok, time.monotonic())
        if ask is not None and not ok:
            log.warning(
                "archive replay refused",
                site=ask.site,
                table=ask.table,
                from_seq=ask.first,
                to_seq=ask.last,
                error=str(body.get("error"))[:300],
            )

    def _drop(self, topic: str, why: str) -> None:
        self.dropped += 1
        now = time.monotonic()
        if now - self._dropped_said.get(topic, -DROP_LINE_EVERY_S) >= DROP_LINE_EVERY_S:
            self._dropped_said[topic] = now
            log.warning(
                "archive message dropped", topic=topic, reason=why[:300], dropped=self.dropped
            )

    async def _ask(self, client: aiomqtt.Client) -> None:
        while True:
            if self._signer is not None:
                now = time.monotonic()
                for ask in self._planner.due(self._writer.wanted, now, datetime.now(UTC)):
                    await self._send(client, ask)
            await asyncio.sleep(TICK_S)

    async def _send(self, client: aiomqtt.Client, ask: Ask) -> None:
        assert self._signer is not None
        operator, key = self._signer
        args: dict[str, Any] = {"from_seq": ask.first, "to_seq": ask.last}
        command = build_command("replay", operator, args, key, datetime.now(UTC))
        self._planner.sent(ask, command["id"])
        topic = Topics(self._prefix, ask.site, ask.table).replay_request
        await client.publish(topic, json.dumps(command), qos=1)
        self.replays_sent += 1
        log.info(
            "archive replay asked",
            site=ask.site,
            table=ask.table,
            from_seq=ask.first,
            to_seq=ask.last,
        )
