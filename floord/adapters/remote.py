"""A device whose driver adapter runs in its own process (`adapter: remote` in the config).

To the table's runner a `RemoteDevice` is what a `DeviceAdapter` is (`run`, `stop`,
`send`, `availability`, `stream`): it puts the same `Received` items on the same bus, in
the device's `seq` order, so nothing after the bus can tell the two apart. It:

- takes the adapter's envelopes from `P/devices/<device>/events`, drops a `seq` it
  already has, holds back one that comes early and fills the gap with a replay request
  (`P/devices/<device>/replay/request`, answered on `P/devices/<device>/replay`);
- keeps each event in the daemon's journal under the device's stream name with the
  adapter's own `seq` (before it goes on the bus, as an in-process adapter does), so the
  daemon knows where it stopped reading after a restart and its journal still holds
  the device stream;
- sends the engine's device commands (a re-spin) to `P/devices/<device>/cmd`;
- treats the adapter's last will (`P/devices/<device>/status`, `online: false`) or no
  word from it past the profile's `silence_s` as the device going offline: the same
  `device.offline` an in-process adapter reports, so a lost reader still halts a table.
  Such an event, and a command that cannot be handed over, are the daemon's own
  observations: they go on the table's record (with `device_seq` 0), not on the
  device's stream, whose numbers belong to the adapter;
- logs the adapter's `lost` (a node that dies takes its connections' wills with it).

The seq is followed, and a gap asked for again, by `floord.adapters.remote_order`.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
import uuid
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, Protocol, TypeGuard

import aiomqtt
import structlog

from floord.adapters.availability import availability_body
from floord.adapters.local import Received, Sink
from floord.adapters.remote_envelope import BadEnvelope, printable, read_envelope, unchained
from floord.adapters.remote_order import StreamOrder
from floord.adapters.stream_appends import StreamAppends
from floord.contract import (
    CONTRACT_VERSION,
    SEQ_MAX,
    Envelope,
    EventType,
    Topics,
    format_ts,
    parse_ts,
)
from floord.events import DeviceCommand, DeviceEvent
from floord.journal.store import Journal
from floord.mqtt.client import Broker, subscribe_checked
from floord.mqtt.jobs import run_session
from floord.mqtt.link import compact
from floord.mqtt.lost import lost_said
from floord.mqtt.session import SessionLoop
from floord.profiles import DeviceProfile
from floord.untrusted import escape_text, parse_json, read_json

WATCH_S = 0.1
REPLAY_TIMEOUT_S = 3.0
# The largest adapter message taken: an event or a status, and a replay answer (which
# carries up to DEVICE_REPLAY_BATCH events). Anything bigger is dropped as a protocol error.
MAX_MESSAGE_BYTES = 64 * 1024
MAX_REPLAY_BYTES = 16 * 1024 * 1024


class TableDevice(Protocol):
    """What the daemon and the runner use of a device, in-process or remote."""

    table: str
    device: str
    port: str
    stream: str
    profile: DeviceProfile
    online: bool
    tried: asyncio.Event

    def availability(self) -> dict[str, Any]: ...
    async def run(self) -> None: ...
    def stop(self) -> None: ...
    def fail(self, reason: str) -> None: ...
    async def send(self, command: DeviceCommand) -> Any: ...


class RemoteDevice:
    """The daemon's side of one device served by a `floord adapter` process."""

    def __init__(
        self,
        *,
        site: str,
        table: str,
        device: str,
        profile: DeviceProfile,
        topics: Topics,
        journal: Journal,
        sink: Sink,
        clock: Callable[[], datetime],
        url: str | Sequence[str],
        username: str | None,
        password: str | None,
        keepalive: int = 10,
        client_id: str | None = None,
        tls_context: ssl.SSLContext | None = None,
        on_recorded: Callable[[], None] = lambda: None,
        replay_timeout_s: float = REPLAY_TIMEOUT_S,
    ) -> None:
        self.site = site
        self.table = table
        self.device = device
        self.profile = profile
        self.stream = f"{table}/devices/{device}"
        self.port = "remote"
        self._topics = topics
        self._journal = journal
        self._sink = sink
        self._clock = clock
        # The config's broker.tls (floord.mqtt.tls.client_tls), as for a table link.
        self._broker = Broker.from_url(
            url,
            username=username,
            password=password,
            identifier=client_id,
            keepalive=keepalive,
            tls_context=tls_context,
        )
        self._on_recorded = on_recorded
        self._replay_timeout_s = replay_timeout_s
        self._log = structlog.get_logger("floord.remote_device").bind(table=table, device=device)
        self._client: aiomqtt.Client | None = None
        self._session = SessionLoop(
            make_client=self._broker.client,
            serve=self._serve_connection,
            nodes=self._broker.nodes,
            log=self._log,
        )
        # The daemon's copy of the stream, written off the loop and in order.
        self._appends = StreamAppends(journal, self.stream, self._log, published=True)
        # The `ts` of the stream's first event on record (what the adapter's must match).
        have = journal.last_seq(self.stream)
        first = journal.read_range(self.stream, 1, 1) if have else []
        self._order = StreamOrder(
            self.stream,
            have + 1,
            read_json(first[0]).get("ts") if first else None,
            deliver=self._deliver,
            ask=self._ask,
            broke=self._broke,
        )
        # The adapter process: up (its status), and when it last said anything.
        self.adapter_up = False
        self._heard_at: float | None = None
        self._started_at: float | None = None
        # The device, as its delivered events say (mirrors DeviceAdapter's fields).
        self.online = False
        self.identity: dict[str, Any] = {}
        self.since: str | None = None
        self.last_heard: str | None = None
        self._offline_reported = False
        self._online_said = False
        self._lost_seen: tuple[str, str] | None = None  # the last `lost` logged
        # Set once the first catch-up was answered or the device was reported offline
        # (the daemon's readiness waits for it, as for an in-process adapter's first try).
        self.tried = asyncio.Event()

    # ----- what the table sees ----------------------------------------------------

    def availability(self) -> dict[str, Any]:
        """The retained body of `P/devices/<device>`, from the events delivered so far."""
        return {**availability_body(self), "adapter": "remote"}

    def _track(self, event: DeviceEvent, ts: datetime) -> None:
        stamp = format_ts(ts)
        self.last_heard = stamp
        if event.type == EventType.DEVICE_ONLINE:
            self.online, self._offline_reported, self._online_said = True, False, True
            self.since = stamp
            self.port = str(event.data.get("port") or self.port)
        elif event.type == EventType.DEVICE_OFFLINE:
            self.online, self._offline_reported, self._online_said = False, True, False
            self.since = stamp
            self.tried.set()
        elif event.type == EventType.DEVICE_IDENTIFIED:
            self.identity = dict(event.data)

    def _hand_over(
        self, event: DeviceEvent, ts: datetime, device_seq: int, copy: Envelope | None = None
    ) -> None:
        """Track the device now; the table hears of the event once `copy` (the daemon's
        copy of it, if any) is durable, in the order of the stream
        (`floord.adapters.stream_appends`)."""
        self._track(event, ts)

        def recorded(_seq: int) -> None:
            self._on_recorded()
            self._sink(Received(self.device, event, ts, device_seq))

        self._appends.add(None if copy is None else (lambda _seq: copy), recorded)

    def _observe(self, etype: EventType, data: dict[str, Any]) -> None:
        """An event the daemon itself observed about the device (not on its stream)."""
        self._hand_over(DeviceEvent(etype, data), self._clock(), 0)

    def _went_offline(self, reason: str) -> None:
        if self.online or not self._offline_reported:
            self._log.warning("remote device offline", reason=reason)
            self._observe(EventType.DEVICE_OFFLINE, {"port": self.port, "reason": reason})

    @property
    def broken(self) -> str | None:
        """Why the adapter's stream cannot be followed, once it cannot (fail closed)."""
        return self._order.broken

    def _broke(self, reason: str) -> None:
        self._log.critical("device stream cannot be followed", reason=reason)
        self._went_offline(reason)

    # ----- the device stream ------------------------------------------------------

    def _read_envelope(self, body: Any) -> Envelope:
        return read_envelope(body, self.site, self.table, self.device)

    def _accept(self, env: Envelope) -> None:
        self._order.accept(env)

    def _deliver(self, env: Envelope) -> None:
        # Kept as published (the adapter published it already: the daemon's link must not
        # send it again), in the copy's own transaction.
        event = DeviceEvent(EventType(env.type), env.data)
        self._hand_over(event, parse_ts(env.ts), env.seq, unchained(env))

    def _ask(self) -> None:
        """One replay request at a time, for everything from the first missing seq."""
        client = self._client
        if client is None:
            return
        asked = self._order.request(asyncio.get_running_loop().time())
        if asked is None:
            return
        body = {
            "v": CONTRACT_VERSION,
            "id": asked[0],
            "from_seq": asked[1],
            # A restarted daemon counts the device as not seen; the adapter says
            # device.online again if it is online and the replay would not say so.
            "announce": not self._online_said,
        }
        task = asyncio.create_task(
            client.publish(
                self._topics.device_replay_request(self.device), compact(body), qos=1, timeout=10
            )
        )
        task.add_done_callback(lambda t: t.cancelled() or t.exception())

    def _on_replay(self, body: Any) -> None:
        if not isinstance(body, dict) or not isinstance(body.get("events"), list):
            raise BadEnvelope("a replay answer must be an object with a list of events")
        first, last = body.get("from_seq"), body.get("last_seq")
        if not _seq(first) or not _seq(last):
            raise BadEnvelope(f"a replay answer needs from_seq and last_seq of 0 to {SEQ_MAX}")
        self._order.asked_at = None
        self.tried.set()
        if not self._order.verified(body.get("id"), last):
            return
        for item in body["events"]:
            self._accept(self._read_envelope(item))
        self._order.replayed(first, last, body.get("id"))

    def _on_status(self, body: Any, live: bool) -> None:
        if not isinstance(body, dict) or not isinstance(body.get("online"), bool):
            raise BadEnvelope("a status must be an object with online true or false")
        if not body["online"]:
            self.adapter_up = False
            said = escape_text(str(body.get("reason") or "no reason given"), 200)
            self._went_offline(f"adapter offline: {said}")
            return
        self.adapter_up = True
        if live:
            self._heard()
        self._on_lost(body)
        last = body.get("last_seq")
        if not _seq(last):
            raise BadEnvelope(f"an online status needs a last_seq of 0 to {SEQ_MAX}")
        gap = self._order.status(last, body.get("first_ts"))
        # A gap the next event would show, or a device the adapter has online while the
        # engine counts it offline (the daemon restarted, or it heard nothing for a while).
        if gap or (body.get("device_online") is True and not self._online_said):
            self._ask()

    def _on_lost(self, body: dict[str, Any]) -> None:
        """A status naming a connection the adapter lost: one line, once for each loss."""
        said = lost_said(body)
        if said is not None and (said["since"], said["lost_ts"]) != self._lost_seen:
            self._lost_seen = (said["since"], said["lost_ts"])
            self._log.warning("remote adapter lost its broker connection", **said)

    def _heard(self) -> None:
        self._heard_at = asyncio.get_running_loop().time()

    # ----- commands ---------------------------------------------------------------

    async def send(self, command: DeviceCommand) -> None:
        """Hand the command to the adapter process; its result comes on the device's
        stream. A command that cannot be handed over is recorded as not delivered."""
        client = self._client
        body = {"v": CONTRACT_VERSION, "id": uuid.uuid4().hex, "name": command.name}
        body["args"] = command.args
        problem = None
        if client is None or not self.adapter_up:
            problem = "not delivered: the adapter process is not reachable"
        else:
            try:
                await client.publish(
                    self._topics.device_cmd(self.device), compact(body), qos=1, timeout=10
                )
            except aiomqtt.MqttError as exc:
                problem = f"not delivered: {exc}"
        if problem:
            result = {"name": command.name, "ok": False, "reply": None, "error": problem}
            self._observe(EventType.DEVICE_COMMAND_RESULT, result)

    # ----- supervision ------------------------------------------------------------

    async def run(self) -> None:
        """Follow the adapter over MQTT, reconnecting with back-off, until stop() or
        cancelled."""
        loop = asyncio.get_running_loop()
        self._started_at = loop.time()
        watch = asyncio.create_task(self._watch())
        try:
            await self._session.run()
        finally:
            watch.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watch
            await self._appends.settled()

    async def _serve_connection(self, client: aiomqtt.Client) -> None:
        """Subscribe, ask for what is missing, then take the adapter's messages."""
        await subscribe_checked(
            client,
            [
                self._topics.device_events(self.device),
                self._topics.device_replay(self.device),
                self._topics.device_status(self.device),
            ],
            qos=0,  # the seq, not QoS, fills every gap (floord.adapters.remote_order)
        )
        self._client = client
        self._order.asked_at = None
        try:
            self._ask()
            await run_session(
                {
                    asyncio.create_task(self._listen(client)),
                    asyncio.create_task(self._session.until_stopped()),
                }
            )
        finally:
            self._client = None

    async def _listen(self, client: aiomqtt.Client) -> None:
        async for message in client.messages:
            self._on_message(message)

    def _on_message(self, message: aiomqtt.Message) -> None:
        payload = message.payload
        raw = bytes(payload) if isinstance(payload, bytes | bytearray) else str(payload).encode()
        topic = message.topic
        try:
            replay = topic.matches(self._topics.device_replay(self.device))
            body = parse_json(raw, max_bytes=MAX_REPLAY_BYTES if replay else MAX_MESSAGE_BYTES)
            if topic.matches(self._topics.device_events(self.device)):
                self._heard()
                self._accept(self._read_envelope(body))
            elif topic.matches(self._topics.device_replay(self.device)):
                self._heard()
                self._on_replay(body)
            elif topic.matches(self._topics.device_status(self.device)):
                self._on_status(body, live=not message.retain)
        except (ValueError, TypeError, BadEnvelope) as exc:
            # Dropped (documented in docs/contract.md): logged, and recorded as a
            # protocol error with the reason and the start of the bytes, both escaped.
            reason = escape_text(f"adapter message on {topic}: {exc}", 300)
            self._log.error("bad message from the adapter", topic=str(topic), error=reason)
            self._observe(
                EventType.DEVICE_PROTOCOL_ERROR, {"reason": reason, "raw": printable(raw)}
            )

    async def _watch(self) -> None:
        """Silence past the profile's timeout is offline; an unanswered replay is asked
        again."""
        timeouts = self.profile.timeouts
        first_wait = timeouts.connect_s + timeouts.power_on_quiet_s + timeouts.silence_s
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(WATCH_S)
            now = loop.time()
            if self._heard_at is None:
                assert self._started_at is not None
                if now - self._started_at > first_wait:
                    self._went_offline(f"adapter not heard for {first_wait:g} s")
            elif now - self._heard_at > timeouts.silence_s:
                self._went_offline(f"adapter silent for {timeouts.silence_s:g} s")
            self._order.retry(now, self._replay_timeout_s)

    def stop(self) -> None:
        self._session.stop()

    def fail(self, reason: str) -> None:
        """This device's task failed (`floord.adapters.supervision`): the device is offline."""
        self._went_offline(reason)
        self.tried.set()


def _seq(value: Any) -> TypeGuard[int]:
    """A seq an adapter can say: its stream's, 0 (none yet) to the largest a journal holds;
    a larger one is a message no adapter wrote, and would have the daemon ask for ever."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= SEQ_MAX
