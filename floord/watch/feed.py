"""The console's MQTT side: subscribe to the floor, drive the model, ask for replays.

One aiomqtt client subscribes to every table's contract topics under the prefix (or one
site's), hands each message to the `FloorModel` and passes the notices on. Every
`tick_s` it sends the replays the model wants, as signed `replay` commands from the
operator given with `--as` (a replay changes nothing on a table, but it is still a
signed command, so the table's record says who asked). The same operator signs the
commands a person gives at the console (`submit`: an `ack_alert`), sent on `P/cmd`; the
table checks the operator's role as for any command. The answer on `P/cmd/result` tells
the model if a table accepted or refused. A lost connection marks every table
stale and is retried with back-off (floord.mqtt.backoff), like a table's own link, at
the next node of a broker cluster (`floord.mqtt.client.NodeRing`).

By default each connection is a clean session: what the console missed while away it
asks for by replay. With `session` the console keeps a persistent session under that
client id (clean_session off), so a broker that keeps sessions (a cluster's, in
JetStream) queues the QoS 1 messages of its subscriptions while it is away and the
replays only fill what the broker could not keep.
"""

from __future__ import annotations

import asyncio
import json
import ssl
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import aiomqtt

from floord.contract import Topics
from floord.mqtt.backoff import Backoff
from floord.mqtt.client import NodeRing, subscribe_checked
from floord.mqtt.jobs import run_session
from floord.mqtt.session import SessionLoop
from floord.operator.client import client_args
from floord.operator.commands import build_command
from floord.untrusted import read_json
from floord.watch.model import FloorModel, Notice, ReplayRequest

# What the console subscribes to, under `<prefix>/<site or +>/+/`.
SUFFIXES = (
    "events",
    "state",
    "status",
    "replay",
    "cmd/result",
    "devices/+",
    "devices/+/events",
)
TICK_S = 0.25
MAX_UNANSWERED = 2000
# How long a console command waits for the table's answer before it is shown as lost.
COMMAND_TIMEOUT_S = 10.0
# How long the broker may take to acknowledge one subscription: a cluster sets up each of
# a persistent session's subscriptions in replicated storage (NATS: a JetStream consumer
# on three nodes, about half a second each on an idle node, seconds on a busy one).
SUBSCRIBE_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class _Sent:
    """A console command waiting for its table's answer; `on_answer` is told it (a
    command signed elsewhere and forwarded: the browser console's)."""

    site: str
    table: str
    at: float
    on_answer: Callable[[bool, str | None], None] | None = None


@dataclass(frozen=True)
class ReplaySigner:
    """The operator whose key signs the console's commands: its replays and acks."""

    operator: str
    key: bytes


def _payload_bytes(body: object) -> bytes:
    if body is None:
        return b""
    if isinstance(body, bytes | bytearray):
        return bytes(body)
    return str(body).encode("utf-8")


class WatchFeed:
    """Feeds `model` from the broker at `url` (or the first of a cluster's nodes that
    answers) until `stop()`; `on_notices` sees each batch."""

    def __init__(
        self,
        model: FloorModel,
        *,
        url: str | Sequence[str],
        username: str | None = None,
        password: str | None = None,
        signer: ReplaySigner | None = None,
        on_notices: Callable[[list[Notice]], None] | None = None,
        backoff: Backoff | None = None,
        tick_s: float = TICK_S,
        clock: Callable[[], float] = time.monotonic,
        tls_context: ssl.SSLContext | None = None,
        session: str | None = None,
    ) -> None:
        self.model = model
        self._nodes = NodeRing(url)
        self._client_kwargs = {
            u: client_args(u, username, password, tls_context) for u in self._nodes.urls
        }
        self._session_id = session
        self._signer = signer
        self._on_notices = on_notices
        # No log: the console shows the connection on screen (FloorModel.set_connected).
        self._session = SessionLoop(
            make_client=self._make_client,
            serve=self._serve_connection,
            nodes=self._nodes,
            backoff=backoff if backoff is not None else Backoff(0.2, 5.0),
            on_lost=lambda exc: self._tell(
                self.model.set_connected(False, str(exc) or type(exc).__name__)
            ),
        )
        self._tick_s = tick_s
        self._clock = clock
        self._asked: dict[str, tuple[str, str]] = {}
        self._outbox: list[tuple[str, str, str, dict[str, Any]]] = []
        self._forwards: list[tuple[str, str, dict[str, Any], _Sent]] = []
        self._sent: dict[str, _Sent] = {}
        self.replays_sent = 0
        self.messages = 0

    def topics(self) -> list[str]:
        site = self.model.site or "+"
        return [f"{self.model.prefix}/{site}/+/{suffix}" for suffix in SUFFIXES]

    def stop(self) -> None:
        self._session.stop()

    @property
    def operator(self) -> str | None:
        return self._signer.operator if self._signer is not None else None

    def submit(self, site: str, table: str, name: str, args: dict[str, Any]) -> str | None:
        """Sign and send `name` to a table on the next tick; why not, when it cannot be."""
        if self._signer is None:
            return "no operator to sign with: start floord watch with --as OPERATOR"
        if not self.model.connected:
            return f"not connected to the broker ({self.model.connection_detail})"
        self._outbox.append((site, table, name, dict(args)))
        self._tell(self.model.command_sent(site, table, name, args))
        return None

    def forward(
        self,
        site: str,
        table: str,
        command: dict[str, Any],
        on_answer: Callable[[bool, str | None], None],
    ) -> str | None:
        """Send a command someone else signed (its `id` and `sig` as they are) to a table
        on the next tick; `on_answer` gets the table's answer, or a loss after
        COMMAND_TIMEOUT_S. Why not, when it cannot be sent."""
        if not self.model.connected:
            return f"not connected to the broker ({self.model.connection_detail})"
        name, args = command.get("name"), command.get("args")
        if not isinstance(name, str) or not isinstance(args, dict):
            return "a command with a name and args expected"
        sent = _Sent(site, table, self._clock(), on_answer)
        self._forwards.append((site, table, dict(command), sent))
        self._tell(self.model.command_sent(site, table, name, args))
        return None

    def _tell(self, notices: list[Notice]) -> None:
        if notices and self._on_notices is not None:
            self._on_notices(notices)

    async def run(self) -> None:
        """Connect, serve, reconnect after any MQTT failure, until stop()."""
        await self._session.run()
        if self.model.connected:
            self._tell(self.model.set_connected(False, "stopped"))

    @property
    def node(self) -> str:
        """The broker node the console is on (or tries next), `host:port`."""
        return self._nodes.where

    def _make_client(self) -> aiomqtt.Client:
        client = aiomqtt.Client(
            identifier=self._session_id or f"floord-watch-{uuid.uuid4().hex[:12]}",
            clean_session=self._session_id is None,
            timeout=5.0,
            **self._client_kwargs[self._nodes.url],
        )
        # A whole floor's retained states arrive at once on subscribe.
        client.pending_calls_threshold = 1000
        return client

    async def _serve_connection(self, client: aiomqtt.Client) -> None:
        await subscribe_checked(client, self.topics(), timeout=SUBSCRIBE_TIMEOUT_S)
        self._tell(self.model.set_connected(True, "connected"))
        await run_session(
            {
                asyncio.create_task(self._listen(client)),
                asyncio.create_task(self._ask(client)),
                asyncio.create_task(self._session.until_stopped()),
            }
        )

    async def _listen(self, client: aiomqtt.Client) -> None:
        async for message in client.messages:
            self.messages += 1
            topic = str(message.topic)
            raw = _payload_bytes(message.payload)
            if topic.endswith("/cmd/result"):
                self._tell(self._answer(raw))
                continue
            self._tell(self.model.on_message(topic, raw))
        raise aiomqtt.MqttError("the broker ended the message stream")

    def _answer(self, raw: bytes) -> list[Notice]:
        """A table's reply to a command: ours only if it answers one of our replays."""
        try:
            body = read_json(raw)
        except ValueError:
            return []
        if not isinstance(body, dict) or not isinstance(body.get("id"), str):
            return []
        error = body.get("error")
        sent = self._sent.pop(body["id"], None)
        if sent is not None:
            if sent.on_answer is not None:
                sent.on_answer(body.get("ok") is True, str(error) if error else None)
            return self.model.command_answered(
                sent.site, sent.table, body.get("ok") is True, str(error) if error else None
            )
        asked = self._asked.pop(body["id"], None)
        if asked is None:
            return []
        return self.model.replay_answered(
            asked[0], asked[1], body.get("ok") is True, str(error) if error else None
        )

    async def _ask(self, client: aiomqtt.Client) -> None:
        while True:
            for request in self.model.take_requests(self._clock()):
                await self._send(client, request)
            await self._send_commands(client)
            await asyncio.sleep(self._tick_s)

    async def _send_commands(self, client: aiomqtt.Client) -> None:
        """Publish what `submit` queued; a command unanswered in time is shown as lost."""
        now = self._clock()
        for command_id, sent in list(self._sent.items()):
            if now - sent.at > COMMAND_TIMEOUT_S:
                del self._sent[command_id]
                lost = f"no answer from {sent.table} within {COMMAND_TIMEOUT_S:g} s"
                if sent.on_answer is not None:
                    sent.on_answer(False, lost)
                self._tell(self.model.command_answered(sent.site, sent.table, False, lost))
        forwards, self._forwards = self._forwards, []
        for site, table, command, sent in forwards:
            self._sent[command["id"]] = sent
            topics = Topics(self.model.prefix, site, table)
            await client.publish(topics.cmd, json.dumps(command), qos=1)
        if self._signer is None:
            return
        outbox, self._outbox = self._outbox, []
        for site, table, name, args in outbox:
            command = build_command(
                name, self._signer.operator, args, self._signer.key, datetime.now(UTC)
            )
            self._sent[command["id"]] = _Sent(site, table, now)
            topics = Topics(self.model.prefix, site, table)
            await client.publish(topics.cmd, json.dumps(command), qos=1)

    async def _send(self, client: aiomqtt.Client, request: ReplayRequest) -> None:
        if self._signer is None:
            return
        args = {"from_seq": request.from_seq, "to_seq": request.to_seq}
        command = build_command(
            "replay", self._signer.operator, args, self._signer.key, datetime.now(UTC)
        )
        self._asked[command["id"]] = (request.site, request.table)
        while len(self._asked) > MAX_UNANSWERED:
            # A table that never answers must not grow this forever; the model asks again.
            del self._asked[next(iter(self._asked))]
        topics = Topics(self.model.prefix, request.site, request.table)
        await client.publish(topics.replay_request, json.dumps(command), qos=1)
        self.replays_sent += 1
        self._tell([request.notice()])
