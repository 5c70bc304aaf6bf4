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

Its subscriptions are QoS 0 at no cost: a clean session (each connection's) loses what
is sent while it is away or in flight at any QoS, a live one resends nothing at QoS 1,
and a broker drops either for a subscriber far behind; the seq loses nothing: a gap is
replayed from the next seq (asked on each connection, on an early event or a heartbeat's
`last_seq` ahead, again after `replay_timeout_s`), a lost status is followed by the next
heartbeat, a lost will by the silence watch. On NATS a QoS 1 subscription is a JetStream
consumer, which a cluster that lost a node cannot create until it has new leaders.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import ssl
import uuid
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, Protocol

import aiomqtt
import structlog

from floord.adapters.local import Received, Sink, availability_body
from floord.adapters.remote_envelope import BadEnvelope, printable, read_envelope, unchained
from floord.adapters.stream_appends import StreamAppends
from floord.contract import (
    CONTRACT_VERSION,
    REPLAY_MAX_EVENTS,
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
from floord.untrusted import escape_text, parse_json

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
        # The device stream: the next seq to deliver, and early arrivals held back.
        self._next = journal.last_seq(self.stream) + 1
        # The `ts` of the stream's first event on record (what the adapter's must match).
        first = journal.read_range(self.stream, 1, 1) if self._next > 1 else []
        self._first_ts: Any = json.loads(first[0]).get("ts") if first else None
        # The daemon's copy of the stream, written off the loop and in order.
        self._appends = StreamAppends(journal, self.stream, self._log, published=True)
        self._early: dict[int, Envelope] = {}
        self._asked_at: float | None = None
        # The replay request last sent: its id, and the last seq on record when it went.
        self._asked: tuple[str, int] | None = None
        # A status said less than is on record: the seq on record a replay answer must
        # reach (deliveries wait for it; `_check_continuity`).
        self._verify_have: int | None = None
        self._adapter_last = 0
        self.broken: str | None = None
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

    def _break(self, reason: str) -> None:
        """The adapter's stream does not continue the one on record: fail closed."""
        if self.broken is None:
            self.broken = reason
            self._log.critical("device stream cannot be followed", reason=reason)
            self._went_offline(reason)

    # ----- the device stream ------------------------------------------------------

    def _read_envelope(self, body: Any) -> Envelope:
        return read_envelope(body, self.site, self.table, self.device)

    def _accept(self, env: Envelope) -> None:
        """Deliver in seq order: drop what is known, hold back what comes early."""
        if self.broken or env.seq < self._next:
            return
        if env.seq > self._next or self._verify_have is not None:
            if len(self._early) < REPLAY_MAX_EVENTS:
                self._early[env.seq] = env
            self._ask()
            return
        self._deliver(env)
        self._deliver_held()

    def _deliver_held(self) -> None:
        """What was held back and now follows on, delivered (none while a shorter stream
        is suspected)."""
        if self._verify_have is not None:
            return
        while self._next in self._early:
            self._deliver(self._early.pop(self._next))
        self._early = {s: e for s, e in self._early.items() if s >= self._next}

    def _deliver(self, env: Envelope) -> None:
        # Kept as published (the adapter published it already: the daemon's link must not
        # send it again), in the copy's own transaction.
        self._next = env.seq + 1
        if env.seq == 1:
            self._first_ts = env.ts
        event = DeviceEvent(EventType(env.type), env.data)
        self._hand_over(event, parse_ts(env.ts), env.seq, unchained(env))

    def _ask(self) -> None:
        """One replay request at a time, for everything from the first missing seq."""
        client = self._client
        if client is None or self.broken or self._asked_at is not None:
            return
        self._asked_at = asyncio.get_running_loop().time()
        self._asked = (uuid.uuid4().hex, self._next - 1)
        body = {
            "v": CONTRACT_VERSION,
            "id": self._asked[0],
            "from_seq": self._next,
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
        if not isinstance(first, int) or not isinstance(last, int):
            raise BadEnvelope("a replay answer needs integer from_seq and last_seq")
        self._asked_at = None
        self.tried.set()
        if not self._verified(body.get("id"), last):
            return
        for item in body["events"]:
            self._accept(self._read_envelope(item))
        self._deliver_held()
        self._adapter_last = max(self._adapter_last, last)
        if self._verify_have is not None:
            self._ask()  # the proof is still to come: an answer to a request sent now
        elif self._next == first and first <= last:
            self._break(f"the adapter's journal no longer holds seq {first} of {self.stream}")
        elif self._next <= self._adapter_last:
            self._ask()

    def _verified(self, answer_id: Any, last: int) -> bool:
        """Whether the stream can still be followed after this replay answer.

        The answer's `last_seq` was read from the adapter's journal after the request
        came, so an answer to the request last sent is the proof a status cannot be: an
        adapter publishes an event only once it is in its journal, so every seq on record
        when the request went is there, unless its journal lost them."""
        asked, need = self._asked, self._verify_have
        if need is None or asked is None or answer_id != asked[0] or asked[1] < need:
            return True  # nothing to prove, or an answer to an older request
        if last < asked[1]:
            self._break(f"the adapter's stream ends at seq {last}; {asked[1]} are on record")
            return False
        self._verify_have = None
        return True

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
        if not isinstance(last, int) or isinstance(last, bool):
            raise BadEnvelope("an online status needs an integer last_seq")
        self._check_continuity(last, body.get("first_ts"))
        self._adapter_last = max(self._adapter_last, last)
        # A gap the next event would show, or a device the adapter has online while the
        # engine counts it offline (the daemon restarted, or it heard nothing for a while).
        if self._next <= last or (body.get("device_online") is True and not self._online_said):
            self._ask()

    def _on_lost(self, body: dict[str, Any]) -> None:
        """A status naming a connection the adapter lost: one line, once for each loss."""
        said = lost_said(body)
        if said is not None and (said["since"], said["lost_ts"]) != self._lost_seen:
            self._lost_seen = (said["since"], said["lost_ts"])
            self._log.warning("remote adapter lost its broker connection", **said)

    def _check_continuity(self, last: int, first_ts: Any) -> None:
        """The adapter's stream must be the one on record: never shorter, same first event."""
        have = self._next - 1
        if have and first_ts is not None and self._first_ts not in (None, first_ts):
            self._break("the adapter's stream is not the one on record (seq 1 differs)")
        elif last < have and self._verify_have is None:
            # A status can be older than events already here: the retained one a new
            # subscription gets, or a heartbeat whose head was read before its latest
            # events went out. So a shorter stream is only suspected here, and proved or
            # cleared by a replay answer (`_verified`); deliveries wait for it.
            self._verify_have = have
            self._ask()

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
            qos=0,  # the module's docstring: the seq, not QoS, fills every gap
        )
        self._client = client
        self._asked_at = None
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
            if self._asked_at is not None and now - self._asked_at > self._replay_timeout_s:
                self._asked_at = None
                if self._early or self._next <= self._adapter_last or self._verify_have:
                    self._ask()

    def stop(self) -> None:
        self._session.stop()

    def fail(self, reason: str) -> None:
        """This device's task failed (`floord.adapters.supervision`): the device is offline."""
        self._went_offline(reason)
        self.tried.set()
