"""One table's MQTT connection: the journal goes out, operator commands come in.

The journal is the source of truth and the broker only a way to tell people. So the
link publishes what the journal holds and has not had acknowledged, in seq order per
stream at QoS 1, and marks an event published only after the broker's PUBACK. If the
connection breaks at any point the link backs off, reconnects and starts again from the
first unacknowledged event: nothing is lost, and what a subscriber sees is in order.

On every connection the link announces itself with a retained `P/status`
(`online: true`), leaves a retained last will (`online: false`) for when it dies
without a word, republishes the retained `P/state` and `P/devices/<id>` bodies, and
subscribes to `P/cmd`. Command payloads go, raw and one at a time, to `on_command`.

A fresh client is made for every connection (clean session): a client from a broken
connection could otherwise resend its half-finished messages out of order.
"""

from __future__ import annotations

import asyncio
import json
import ssl
import time
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from typing import Any

import aiomqtt
import structlog

from floord.contract import CONTRACT_VERSION, WIRE_JSON, Topics, format_ts
from floord.journal.batches import PUBLISH_WINDOW
from floord.journal.store import Journal, JournalError
from floord.mqtt.backoff import Backoff
from floord.mqtt.client import CONNECT_TIMEOUT_S, Broker, subscribe_checked
from floord.mqtt.client import broker_address as broker_address  # read here by its users
from floord.mqtt.command_inbox import CommandInbox
from floord.mqtt.confirm import Message, publish_batch, refusal
from floord.mqtt.jobs import run_session
from floord.mqtt.lost import lost_field, say_online
from floord.mqtt.outbox import drain, publish_in_order
from floord.mqtt.retained import DEVICE_CLOCK_EVERY_S, RetainedPacer
from floord.mqtt.session import Loss, SessionLoop
from floord.mqtt.takeover import TakeoverWatch, this_instance

# QoS 1 messages in flight, a batch (`floord.journal.batches`, where the sizes around it
# are computed from it).
DEFAULT_WINDOW = PUBLISH_WINDOW
# The QoS of the link's subscriptions to `P/cmd` and `P/replay/request` (see _startup).
COMMAND_QOS = 0
STOP_PUBLISH_TIMEOUT_S = 5.0


def compact(body: Any) -> str:
    """The one JSON form floord puts on the wire: compact, UTF-8.

    Always encodable: text UTF-8 cannot hold (a lone surrogate echoed from a payload)
    is written as its JSON escape (`\\ud800`), so a publish never fails on it."""
    text = WIRE_JSON.encode(body)
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(body, separators=(",", ":"), ensure_ascii=True)
    return text


class TableLink:
    """Publishes one table's journal streams and state; hands its commands to the daemon."""

    def __init__(
        self,
        *,
        url: str | Sequence[str],
        username: str | None,
        password: str | None,
        topics: Topics,
        journal: Journal,
        streams: dict[str, str],
        state: Callable[[], dict[str, Any]],
        devices: Callable[[], dict[str, dict[str, Any]]],
        on_command: Callable[[bytes, bool], Awaitable[None]],
        keepalive: int = 10,
        client_id: str | None = None,
        log: Any = None,
        backoff: Backoff | None = None,
        window: int = DEFAULT_WINDOW,
        connect_timeout: float = CONNECT_TIMEOUT_S,
        tls_context: ssl.SSLContext | None = None,
    ) -> None:
        self._broker = Broker.from_url(
            url,
            username=username,
            password=password,
            identifier=client_id,
            keepalive=keepalive,
            timeout=connect_timeout,
            tls_context=tls_context,
        )
        if window < 1:
            raise ValueError(f"window must be at least 1, not {window}")
        self._topics = topics
        self._journal = journal
        self._streams = streams
        self._state = state
        self._devices = devices
        self._on_command = on_command
        self._log = (
            log if log is not None else structlog.get_logger("floord.mqtt").bind(table=topics.table)
        )
        self._window = window
        self._ack_timeout = max(10.0, 3.0 * keepalive)
        self._client: aiomqtt.Client | None = None
        self._session = SessionLoop(
            make_client=self._make_client,
            serve=self._serve_connection,
            nodes=self._broker.nodes,
            log=self._log,
            backoff=backoff,
            backlog=self._backlog,
        )
        self._wake = asyncio.Event()
        self._state_dirty = asyncio.Event()
        self._finished = asyncio.Event()
        self._running = False
        # (payload, replay_only): what came on `P/cmd`, or on `P/replay/request`.
        self._commands = CommandInbox(topics.table)
        # The retained bodies: at once on a change of state, else paced (`retained.py`).
        self._retained = RetainedPacer()
        # This process in its statuses, and another with its client id (`takeover.py`).
        self._takeover = TakeoverWatch(this_instance(datetime.now(UTC)))
        # Told, for each batch of events acknowledged whole, the seconds from its publish
        # to its last PUBACK (the metrics' histogram); None: not timed.
        self.acked_after: Callable[[float], None] | None = None

    # --- the daemon's side -------------------------------------------------------

    @property
    def connected(self) -> bool:
        """A broker session is up (from CONNACK until the session's jobs have ended)."""
        return self._client is not None

    @property
    def failovers(self) -> int:
        """Connections made on another broker node than the one before."""
        return self._session.failovers

    @property
    def connections_lost(self) -> int:
        """Connections that were up and were lost."""
        return self._session.connections_lost

    def notify(self) -> None:
        """New journal entries may be there: publish them."""
        self._wake.set()

    def state_changed(self) -> None:
        """Republish the retained state and device bodies soon (only those that changed)."""
        self._state_dirty.set()

    async def publish_result(self, payload: dict[str, Any]) -> None:
        """Answer an operator on `P/cmd/result` (QoS 1, not retained); dropped if offline."""
        client = self._client
        if client is None:
            self._log.warning(
                "broker not connected: command result dropped",
                id=payload.get("id"),
                ok=payload.get("ok"),
            )
            return
        try:
            await client.publish(
                self._topics.cmd_result, compact(payload), qos=1, timeout=self._ack_timeout
            )
        except aiomqtt.MqttError as exc:
            self._log.warning("command result not delivered", error=str(exc))

    async def publish_replay(self, payloads: list[str]) -> None:
        """Send stored events on `P/replay` (QoS 1), unchanged and in order."""
        client = self._client
        if client is None:
            self._log.warning("broker not connected: replay dropped", events=len(payloads))
            return
        items = [(self._topics.replay, body) for body in payloads]
        try:
            for start in range(0, len(items), self._window):
                await publish_in_order(
                    client, items[start : start + self._window], ack_timeout=self._ack_timeout
                )
        except aiomqtt.MqttError as exc:
            self._log.warning("replay not fully delivered", error=str(exc))

    async def stop(self) -> None:
        """Say `online: false` (clean stop), disconnect cleanly and end run()."""
        self._session.stop()
        if self._running:
            await self._finished.wait()

    # --- the connection loop -----------------------------------------------------

    async def run(self) -> None:
        """Connect, serve, and reconnect after any MQTT failure, until stop()."""
        if self._running:
            raise RuntimeError("TableLink.run() is already running")
        self._running = True
        self._finished.clear()
        worker = asyncio.create_task(self._command_worker())
        try:
            await self._session.run()
        finally:
            worker.cancel()
            await asyncio.wait([worker])
            self._running = False
            self._finished.set()

    def _make_client(self) -> aiomqtt.Client:
        will = aiomqtt.Will(
            topic=self._topics.status,
            payload=self._status(online=False, reason="connection lost"),
            qos=1,
            retain=True,
        )
        return self._broker.client(will=will, window=self._window)

    async def _backlog(self) -> int | None:
        """The events still to publish, for the `broker connection back` line."""
        try:
            return await self._journal.backlog_async(list(self._streams))
        except JournalError:
            return None  # the runner halts the table and says why

    async def _serve_connection(self, client: aiomqtt.Client) -> None:
        """One connection's session (the client is connected): serve until it ends."""
        self._client = client
        try:
            await self._serve(client)
        except asyncio.CancelledError:
            self._client = None
            await self._say_offline(client, "cancelled", timeout=1.0)
            raise
        except aiomqtt.MqttError:
            raise
        except Exception as exc:
            # Not a network fault (the journal failed, say): run() ends with it, and
            # subscribers must not be left believing the table is online.
            self._client = None
            await self._say_offline(client, f"link failed: {type(exc).__name__}", 1.0)
            raise
        finally:
            self._client = None

    async def _say_offline(self, client: aiomqtt.Client, reason: str, timeout: float) -> None:
        try:
            await client.publish(
                self._topics.status,
                self._status(online=False, reason=reason),
                qos=1,
                retain=True,
                timeout=timeout,
            )
        except aiomqtt.MqttError as exc:
            self._log.warning("offline status not delivered", error=str(exc))

    async def _serve(self, client: aiomqtt.Client) -> None:
        """Run one connection's jobs until one of them ends it; then end them all."""
        ready = asyncio.Event()
        startup = asyncio.create_task(self._startup(client, ready))
        jobs = {
            startup,
            asyncio.create_task(self._listen(client)),
            asyncio.create_task(self._drain(client, ready)),
            asyncio.create_task(self._state_loop(client, ready)),
            asyncio.create_task(
                self._session.until_stopped(lambda: self._goodbye(client, startup))
            ),
        }
        await run_session(jobs, may_finish={startup})

    async def _startup(self, client: aiomqtt.Client, ready: asyncio.Event) -> None:
        # Subscribed before it says online: a console that commands the table as soon as
        # it sees `online: true` must not have its command dropped by the broker. QoS 0: a
        # clean session loses what is in flight when its connection goes at any QoS, so
        # QoS 1 would add nothing to the commands' delivery; and on NATS a QoS 1
        # subscription is a JetStream consumer, which a cluster that lost a node cannot
        # create (nor the old session's delete) until it has elected new leaders: the
        # link would wait that long before it says online and its backlog goes out
        # (docs/deployment.md).
        await subscribe_checked(
            client,
            [self._topics.cmd, self._topics.replay_request],
            timeout=self._ack_timeout,
            qos=COMMAND_QOS,
        )
        # Its own retained status, read before it says its own (`_listen`): another
        # process's, registered since this one started, says the client id is shared.
        await self._takeover.subscribe(client, self._topics.status, self._ack_timeout)
        if self._session.stopping:  # the goodbye waits for this: no `online: true` now
            return
        # A connection lost before this one is said here (`lost`): a node that died took
        # that connection's last will with it, so no `online: false` may have been seen.
        await say_online(
            self._session,
            lambda loss: client.publish(
                self._topics.status,
                self._status(online=True, reason="connected", lost=loss),
                qos=1,
                retain=True,
                timeout=self._ack_timeout,
            ),
        )
        self._retained.reset()
        self._state_dirty.clear()
        await self._publish_state(client)
        ready.set()

    async def _listen(self, client: aiomqtt.Client) -> None:
        """Queue command payloads; raises MqttError when the connection goes."""
        async for message in client.messages:
            if message.topic.matches(self._topics.status):
                self._takeover.heard(message, self._session, self._broker.identifier)
                continue
            replay_only = message.topic.matches(self._topics.replay_request)
            if replay_only or message.topic.matches(self._topics.cmd):
                payload = message.payload
                bounded = payload if isinstance(payload, bytes | bytearray) else str(payload)
                self._commands.put(bounded, replay_only)

    async def _command_worker(self) -> None:
        """Commands one at a time, across reconnections, so none is cut off halfway."""
        while True:
            raw, replay_only = await self._commands.get()
            try:
                await self._on_command(raw, replay_only)
            except Exception:
                self._log.exception("command handler failed")

    async def _goodbye(self, client: aiomqtt.Client, startup: asyncio.Task[None]) -> None:
        # A stop during the start-up: its `online: true` must not come after this. Its
        # subscriptions in flight are let finish (bounded), so each SUBACK finds the
        # waiter it answers: one cancelled, aiomqtt logs the late SUBACK as an error.
        await asyncio.wait([startup], timeout=self._ack_timeout)
        startup.cancel()
        await asyncio.wait([startup])
        await client.publish(
            self._topics.status,
            self._status(online=False, reason="clean stop"),
            qos=1,
            retain=True,
            timeout=STOP_PUBLISH_TIMEOUT_S,
        )

    # --- publishing --------------------------------------------------------------

    async def _drain(self, client: aiomqtt.Client, ready: asyncio.Event) -> None:
        """Publish the journal's backlog, then whatever notify() announces, forever."""
        await ready.wait()
        await drain(
            client,
            self._journal,
            self._streams,
            self._wake,
            window=self._window,
            ack_timeout=self._ack_timeout,
            acked_after=self.acked_after,
        )

    async def _state_loop(self, client: aiomqtt.Client, ready: asyncio.Event) -> None:
        await ready.wait()
        due = _DueTimer(self._state_dirty)
        try:
            while True:
                # A body held back (only its head or clocks moved) goes out when due: one
                # timer for that moment, armed when it changes (about once a second), not
                # one for every wait (the link waits once for every commit of its table).
                due.at(self._retained.held_until())
                await self._state_dirty.wait()
                self._state_dirty.clear()
                await self._publish_state(client)
        finally:
            due.at(None)

    async def _publish_state(self, client: aiomqtt.Client) -> None:
        """Retained `P/state` and `P/devices/<id>`, each only if its body changed: at
        once if the table's state did, else at most about once a second (`P/state`) or
        once in five (a device's `last_heard`: `floord.mqtt.retained`)."""
        bodies = {self._topics.state: self._state()}
        for device_id, device in self._devices().items():
            bodies[self._topics.device(device_id)] = device
        due: list[Message] = []
        for topic, body in bodies.items():
            every = None if topic == self._topics.state else DEVICE_CLOCK_EVERY_S
            text = self._retained.due(topic, body, compact, every)
            if text is not None:
                due.append(Message(topic, text, retain=True))
        if not due:
            return
        # One batch, one wait for its PUBACKs (`floord.mqtt.confirm`); what went out is
        # noted even if the rest did not, and then the connection is given up.
        acked, refused = await publish_batch(client, due, ack_timeout=self._ack_timeout)
        for message, ok in zip(due, acked, strict=True):
            if ok:
                self._retained.sent(message.topic, message.payload)
        failure = refusal(acked, refused)
        if failure is not None:
            raise failure

    def _status(self, *, online: bool, reason: str, lost: Loss | None = None) -> str:
        """The retained `P/status` body. For the last will, `ts` is when it was registered.
        With `lost`, the connection lost before this one (`floord.mqtt.lost`)."""
        now = datetime.now(UTC)
        return compact(
            {
                "v": CONTRACT_VERSION,
                "online": online,
                "site": self._topics.site,
                "table": self._topics.table,
                "reason": reason,
                # The broker node this connection is on (`host:port`): which node of a
                # cluster the box is on, or, in the last will, the one it was lost from.
                "broker": self._broker.where,
                "ts": format_ts(now),
                # This process: another with its client id is told by it (`takeover.py`).
                **self._takeover.me.field(),
                **lost_field(lost, now),
            }
        )


class _DueTimer:
    """One timer that sets `event` at a moment (`time.monotonic()`), re-armed only when
    the moment changes: what a held-back retained body waits for."""

    def __init__(self, event: asyncio.Event) -> None:
        self._event = event
        self._when: float | None = None
        self._timer: asyncio.TimerHandle | None = None

    def at(self, when: float | None) -> None:
        """Set the event at `when` (None: never); the moment armed already is kept."""
        if when == self._when and (when is None or self._timer is not None):
            return
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._when = when
        if when is not None:
            delay = max(0.0, when - time.monotonic())
            self._timer = asyncio.get_running_loop().call_later(delay, self._fire)

    def _fire(self) -> None:
        self._timer = None
        self._event.set()
