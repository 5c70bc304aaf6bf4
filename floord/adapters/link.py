"""The MQTT side of a driver adapter in its own process (`floord adapter`).

One device stream goes out, the daemon's device commands and replay requests come in:

- the adapter's journal rows of `<table>/devices/<device>` are published on
  `P/devices/<device>/events` in seq order at QoS 1 and marked published only after
  the broker's PUBACK, exactly as the table link does for a table's streams;
- `P/devices/<device>/status` (retained) says `online: true` on every connection and
  again every `heartbeat_s` with the stream's `last_seq`, so the daemon can tell a
  silent adapter from an idle device and see a gap without waiting for the next event;
  the last will says `online: false`;
- a command on `P/devices/<device>/cmd` goes to `on_command` as a `DeviceCommand`;
- a replay request on `P/devices/<device>/replay/request` is answered on
  `P/devices/<device>/replay` from the journal (at most `DEVICE_REPLAY_BATCH` events).

A fresh client is made for every connection (clean session), as in the table link.

Its subscriptions (`cmd`, `replay/request`) are QoS 0, as the table link's are, and for
the same reasons: a clean session loses what is in flight when its connection goes at any
QoS, and on one live connection a QoS 1 subscription adds nothing (MQTT resends only on
a persistent session's reconnection), so QoS 1 would add nothing to their delivery; the
daemon's publishes stay QoS 1 (acknowledged by the broker), it asks again for a replay
left unanswered (`floord.adapters.remote`), and a device command's outcome is on the
device's stream. On NATS a QoS 1 subscription is a JetStream consumer, which a cluster
that lost a node cannot create until it has new leaders, and the link says online only
once subscribed (docs/deployment.md).

The first `online: true` after a connection it lost without saying `online: false` on it
says that connection (`lost`, `floord.mqtt.lost`): a broker node that dies takes the
last wills of its connections with it.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Callable, Coroutine, Sequence
from datetime import UTC, datetime
from typing import Any

import aiomqtt
import structlog

from floord.adapters.command_budget import COMMANDS_A_WINDOW, WINDOW_S, CommandBudget
from floord.adapters.replay_answers import AnnounceGate, OnlineSeen, replay_rows
from floord.contract import CONTRACT_VERSION, Topics, format_ts
from floord.events import DeviceCommand
from floord.journal.batches import PUBLISH_WINDOW
from floord.journal.store import Journal
from floord.mqtt.client import CONNECT_TIMEOUT_S, Broker, subscribe_checked
from floord.mqtt.jobs import run_session
from floord.mqtt.link import compact
from floord.mqtt.lost import lost_field, say_online
from floord.mqtt.outbox import drain
from floord.mqtt.session import Loss, SessionLoop
from floord.mqtt.takeover import TakeoverWatch, this_instance
from floord.untrusted import escape_text, json_problem, parse_json, read_json, text_problem

# QoS 1 messages in flight, a batch, as the table link's (`floord.journal.batches`).
WINDOW = PUBLISH_WINDOW
# The QoS of the link's subscriptions to its `cmd` and `replay/request` (the docstring).
REQUEST_QOS = 0
# The largest command or replay request taken from the broker, and its id's length.
MAX_REQUEST_BYTES = 16 * 1024
MAX_REQUEST_ID = 128


def _text_field(body: dict[str, Any], key: str, limit: int) -> None:
    """A request's text field must be safe text of at most `limit` characters."""
    problem = text_problem(body[key], max_length=limit)
    if problem:
        raise ValueError(f"field {key!r}: {problem}")


def _request(payload: bytes, what: str, fields: tuple[str, ...]) -> dict[str, Any]:
    """A JSON object of this contract's version with no field but `v` and `fields`."""
    body = parse_json(payload, max_bytes=MAX_REQUEST_BYTES)
    if not isinstance(body, dict) or body.get("v") != CONTRACT_VERSION:
        raise ValueError(f"a version {CONTRACT_VERSION} {what} object expected")
    unknown = set(body) - {"v", *fields}
    if unknown:
        raise ValueError(f"unknown field(s) {sorted(unknown)}")
    return body


def read_command(payload: bytes, device: str) -> DeviceCommand:
    """A device command from the daemon: `{"v": 1, "id", "name", "args"}`; ValueError if not."""
    body = _request(payload, "command", ("id", "name", "args"))
    name, args = body.get("name"), body.get("args", {})
    if not isinstance(name, str) or not name or not isinstance(args, dict):
        raise ValueError("a command needs a name (text) and args (an object)")
    if not isinstance(body.get("id"), str):
        raise ValueError("a command needs an id (text)")
    _text_field(body, "id", MAX_REQUEST_ID)
    _text_field(body, "name", 64)
    problem = json_problem(args, where="args")
    if problem:
        raise ValueError(f"field {problem}")
    return DeviceCommand(device=device, name=name, args=args)


def read_replay_request(payload: bytes) -> dict[str, Any]:
    """`{"v": 1, "id", "from_seq", "announce"}`; ValueError if it is anything else."""
    body = _request(payload, "replay request", ("id", "from_seq", "announce"))
    first = body.get("from_seq")
    if not isinstance(first, int) or isinstance(first, bool) or first < 1:
        raise ValueError("from_seq must be an integer, at least 1")
    if not isinstance(body.get("id"), str) or not isinstance(body.get("announce", False), bool):
        raise ValueError("a replay request needs an id (text); announce is true or false")
    _text_field(body, "id", MAX_REQUEST_ID)
    return body


class AdapterLink:
    """Publishes one device stream of the adapter's journal; serves the daemon's requests."""

    def __init__(
        self,
        *,
        url: str | Sequence[str],
        username: str | None,
        password: str | None,
        topics: Topics,
        device: str,
        journal: Journal,
        on_command: Callable[[DeviceCommand], Coroutine[Any, Any, Any]],
        announce: Callable[[], bool],
        device_online: Callable[[], bool],
        heartbeat_s: float,
        keepalive: int = 10,
        client_id: str | None = None,
        tls_context: ssl.SSLContext | None = None,
        connect_timeout: float = CONNECT_TIMEOUT_S,
        command_window_s: float = WINDOW_S,
    ) -> None:
        # The config's broker.tls (floord.mqtt.tls.client_tls), as for a table link.
        self._broker = Broker.from_url(
            url,
            username=username,
            password=password,
            identifier=client_id,
            keepalive=keepalive,
            timeout=connect_timeout,
            tls_context=tls_context,
        )
        self._topics = topics
        self._device = device
        self.stream = f"{topics.table}/devices/{device}"
        self._journal = journal
        self._on_command = on_command
        self._announce = announce
        self._device_online = device_online
        self._heartbeat_s = heartbeat_s
        self._ack_timeout = max(10.0, 3.0 * keepalive)
        self._log = structlog.get_logger("floord.adapter_link").bind(
            table=topics.table, device=device
        )
        self._session = SessionLoop(
            make_client=self._make_client,
            serve=self._serve_connection,
            nodes=self._broker.nodes,
            log=self._log,
        )
        self._client: aiomqtt.Client | None = None
        # The stream's (last seq, first ts) as last read off the loop, for the last will,
        # which is made as a client is made, on the loop (`_make_client`).
        self._head: tuple[int, Any] = (0, None)
        self._wake = asyncio.Event()
        self._tasks: set[asyncio.Task[Any]] = set()
        # Where the stream last said `device.online`, and announcements a second at most
        # (`floord.adapters.replay_answers`): the first seq of one waiting, and its timer.
        self._online_seen = OnlineSeen(journal, self.stream)
        self._gate = AnnounceGate(lambda: asyncio.get_running_loop().time())
        self._announce_from: int | None = None
        self._announce_timer: asyncio.TimerHandle | None = None
        # The cmd topic's messages, ten a window at most, and the timer of the line that
        # counts those dropped (`floord.adapters.command_budget`).
        self._budget = CommandBudget(lambda: asyncio.get_running_loop().time(), command_window_s)
        self._drops_timer: asyncio.TimerHandle | None = None
        self.connections = 0
        # This process in its statuses, and another with its client id (`takeover.py`).
        self._takeover = TakeoverWatch(this_instance(datetime.now(UTC)))
        # Told each batch's publish-to-PUBACK seconds (the metrics' histogram), as a
        # table link's `acked_after`.
        self.acked_after: Callable[[float], None] | None = None

    @property
    def connected(self) -> bool:
        return self._client is not None

    @property
    def failovers(self) -> int:
        """Connections made on another broker node than the one before."""
        return self._session.failovers

    @property
    def connections_lost(self) -> int:
        return self._session.connections_lost

    def notify(self) -> None:
        """New rows in the journal: publish them."""
        self._wake.set()

    def backlog(self) -> int:
        return self._journal.backlog([self.stream])

    async def backlog_async(self) -> int:
        """`backlog()`, read off the loop."""
        return await self._journal.backlog_async([self.stream])

    async def stop(self) -> None:
        """End run(): say `online: false` (clean stop) if connected, then disconnect."""
        self._session.stop()

    # --- the connection loop -----------------------------------------------------

    async def run(self) -> None:
        """Connect, serve and reconnect with back-off until stop()."""
        try:
            # The first will's stream head, read on the journal's thread.
            self._head = await self._journal.call(self._read_head)
            await self._session.run()
        finally:
            for timer in (self._announce_timer, self._drops_timer):
                if timer is not None:
                    timer.cancel()
            self._announce_timer = self._drops_timer = None
            for task in list(self._tasks):
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _status_async(self, *, online: bool, reason: str, lost: Loss | None = None) -> str:
        """The status body, the stream's head read off the loop (and kept for the will)."""
        self._head = await self._journal.call(self._read_head)
        return self._status_body(online=online, reason=reason, lost=lost)

    def _read_head(self) -> tuple[int, Any]:
        """The stream's last seq and its first event's `ts` (on the journal's thread)."""
        last = self._journal.last_seq(self.stream)
        first = self._journal.read_range(self.stream, 1, 1) if last else []
        return last, read_json(first[0])["ts"] if first else None

    def _status_body(self, *, online: bool, reason: str, lost: Loss | None = None) -> str:
        """The status body from the stream head last read: no SQLite here, so the last
        will (made with each client, on the loop) says the head as of the latest status
        read (the connection's, a heartbeat's), at most one heartbeat old. With `lost`,
        the connection lost before this one (`floord.mqtt.lost`)."""
        last, first_ts = self._head
        now = datetime.now(UTC)
        return compact(
            {
                "v": CONTRACT_VERSION,
                "online": online,
                "site": self._topics.site,
                "table": self._topics.table,
                "device": self._device,
                "reason": reason,
                # The broker node this connection is on (`host:port`): which node of a
                # cluster the box is on, or, in the last will, the one it was lost from.
                "broker": self._broker.where,
                "device_online": self._device_online(),
                "last_seq": last,
                "first_ts": first_ts,
                "ts": format_ts(now),
                **self._takeover.me.field(),
                **lost_field(lost, now),
            }
        )

    def _make_client(self) -> aiomqtt.Client:
        will = aiomqtt.Will(
            topic=self._topics.device_status(self._device),
            payload=self._status_body(online=False, reason="connection lost"),
            qos=1,
            retain=True,
        )
        return self._broker.client(will=will, window=WINDOW)

    async def _serve_connection(self, client: aiomqtt.Client) -> None:
        """Subscribe, say online, then run the connection's jobs until one ends it.

        Subscribed first: the daemon asks for a replay as soon as it sees the adapter
        online, and a request the broker has no subscriber for yet would be dropped."""
        await subscribe_checked(
            client,
            [
                self._topics.device_cmd(self._device),
                self._topics.device_replay_request(self._device),
            ],
            timeout=self._ack_timeout,
            qos=REQUEST_QOS,
        )
        status = self._topics.device_status(self._device)
        # Its own retained status, read before it says its own (`_listen`): another
        # process's, registered since this one started, says the client id is shared.
        await self._takeover.subscribe(client, status, self._ack_timeout)

        async def online(loss: Loss | None) -> None:
            body = await self._status_async(online=True, reason="connected", lost=loss)
            await client.publish(status, body, qos=1, retain=True, timeout=self._ack_timeout)

        await say_online(self._session, online)
        self._client = client
        self.connections += 1
        jobs = {
            asyncio.create_task(self._listen(client)),
            asyncio.create_task(self._drain(client)),
            asyncio.create_task(self._heartbeat(client)),
            asyncio.create_task(self._session.until_stopped(lambda: self._goodbye(client))),
        }
        try:
            await run_session(jobs)
        finally:
            self._client = None

    async def _goodbye(self, client: aiomqtt.Client) -> None:
        await client.publish(
            self._topics.device_status(self._device),
            await self._status_async(online=False, reason="clean stop"),
            qos=1,
            retain=True,
            timeout=5.0,
        )

    async def _heartbeat(self, client: aiomqtt.Client) -> None:
        status = self._topics.device_status(self._device)
        while True:
            await asyncio.sleep(self._heartbeat_s)
            body = await self._status_async(online=True, reason="heartbeat")
            await client.publish(status, body, qos=1, retain=True, timeout=self._ack_timeout)

    # --- the device stream -------------------------------------------------------

    async def _drain(self, client: aiomqtt.Client) -> None:
        """Publish the stream's unacknowledged rows in order, then whatever notify() adds."""
        topics = {self.stream: self._topics.device_events(self._device)}
        await drain(
            client,
            self._journal,
            topics,
            self._wake,
            window=WINDOW,
            ack_timeout=self._ack_timeout,
            acked_after=self.acked_after,
        )

    # --- requests from the daemon ------------------------------------------------

    async def _listen(self, client: aiomqtt.Client) -> None:
        cmd = self._topics.device_cmd(self._device)
        request = self._topics.device_replay_request(self._device)
        status = self._topics.device_status(self._device)
        async for message in client.messages:
            if message.topic.matches(status):
                self._takeover.heard(message, self._session, self._broker.identifier)
                continue
            payload = message.payload
            raw = payload if isinstance(payload, bytes | bytearray) else str(payload).encode()
            if message.topic.matches(cmd):
                self._command(bytes(raw))
            elif message.topic.matches(request):
                await self._replay(client, bytes(raw))

    def _command(self, raw: bytes) -> None:
        if not self._budget.take():
            if self._drops_timer is None:
                loop = asyncio.get_running_loop()
                self._drops_timer = loop.call_later(self._budget.window_left(), self._drops)
            return
        try:
            command = read_command(raw, self._device)
        except (ValueError, TypeError) as exc:
            # Dropped with a log line (docs/contract.md): the daemon, its only sender,
            # gets its outcome from the device stream, and a stranger gets nothing.
            self._log.warning(
                "device command refused", error=escape_text(str(exc), 300), raw=repr(raw[:80])
            )
            return
        task = asyncio.create_task(self._on_command(command))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        task.add_done_callback(self._command_done)

    def _drops(self) -> None:
        """The line for the messages a window dropped (`command_budget`)."""
        self._drops_timer = None
        dropped = self._budget.take_dropped()
        if dropped:
            self._log.warning(
                "device commands dropped",
                count=dropped,
                window_s=self._budget.window_s,
                taken=COMMANDS_A_WINDOW,
            )

    def _command_done(self, task: asyncio.Task[Any]) -> None:
        """A command the adapter could not carry out is logged, never left unretrieved."""
        if not task.cancelled() and task.exception() is not None:
            self._log.error("device command failed", error=repr(task.exception()))

    async def _replay(self, client: aiomqtt.Client, raw: bytes) -> None:
        """Answer with the stored rows from `from_seq` on (a batch), unchanged."""
        try:
            request = read_replay_request(raw)
        except (ValueError, TypeError) as exc:
            self._log.warning(
                "replay request refused", error=escape_text(str(exc), 300), raw=repr(raw[:80])
            )
            return
        first, announce = request["from_seq"], bool(request.get("announce"))
        last, rows, said = await self._journal.call(
            lambda: replay_rows(self._journal, self.stream, self._online_seen, first, announce)
        )
        if not said:
            self._announce_for(first)
        body = {
            "v": CONTRACT_VERSION,
            "id": request["id"],
            "from_seq": first,
            "last_seq": last,
            "events": [read_json(row) for row in rows],
        }
        await client.publish(
            self._topics.device_replay(self._device),
            compact(body),
            qos=1,
            timeout=self._ack_timeout,
        )

    def _announce_for(self, first: int) -> None:
        """Say `device.online` again now, or when the gate allows (`replay_answers`)."""
        wait = self._gate.ask()
        if wait == 0.0:
            self._announce()
            return
        self._announce_from = min(first, self._announce_from or first)
        if self._announce_timer is None:
            loop = asyncio.get_running_loop()
            self._announce_timer = loop.call_later(wait, self._announce_due)

    def _announce_due(self) -> None:
        self._announce_timer = None
        first, self._announce_from = self._announce_from, None
        if first is not None and self._gate.due():
            task = asyncio.create_task(self._announce_unless_said(first))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _announce_unless_said(self, first: int) -> None:
        said = await self._journal.call(
            lambda: self._online_seen.said_since(first, self._journal.last_seq(self.stream))
        )
        if not said:
            self._announce()
