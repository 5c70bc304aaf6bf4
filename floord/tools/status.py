"""What a table box is doing, as `floord status` shows it: the journal's view and the broker's.

The journal (opened read-only, so it is safe beside a running daemon) says what was
recorded: each table's last snapshot (open, closed or halted, and why; a wheel table's
open surveillance alerts, kept there until acknowledged), when each device's stream
last had an event and which, and how many events the broker has not acknowledged yet
(the publish backlog, as the journal has it: the daemon writes its acknowledgements
with its next commit or within a second, so up to a second of acknowledged events may
still count). The broker says what the floor sees: each table's retained
`P/state` (with its open `alerts`), its `P/status` (online, or the last will), and each
device's retained availability. Either view alone is still worth printing: a box whose
broker is down is exactly when someone runs this. A box on a broker cluster
(`broker.urls`) is read from the first node that answers, and says which.

Status subscribes to exactly what it shows, by name: each of the box's tables' `P/state`
and `P/status` and each device's `P/devices/<device>`, the retained bodies the box's own
login publishes and may read back (`floord acl`), so it runs with the box's config and
login on Mosquitto and on a NATS cluster alike (NATS refuses a subscription its
permissions do not cover, where Mosquitto grants it and sends nothing). It subscribes at
QoS 0: it reads retained messages only, which a broker sends at once on subscribe, and on
NATS a QoS 0 subscription is no JetStream consumer, so status reads a cluster that is
still electing leaders after a node's loss. A subscription refused is said (`refused`),
not fatal, unless the broker refused all of them.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiomqtt

from floord.config.load import LoadedConfig
from floord.contract import Topics
from floord.journal.store import Journal, JournalError
from floord.mqtt.client import first_reachable
from floord.mqtt.tls import client_tls
from floord.operator.client import client_args
from floord.untrusted import read_json

# After the subscriptions are acknowledged the broker sends the retained messages at
# once; this much quiet means it has sent all it holds.
RETAINED_QUIET_S = 0.3


@dataclass
class DeviceStatus:
    id: str
    stream: str
    last_seq: int | None = None  # None: the journal was not read
    last_ts: str | None = None
    last_type: str | None = None
    broker: dict[str, Any] | None = None  # the retained P/devices/<device>


@dataclass
class TableStatus:
    id: str
    game: str
    streams: list[str]
    devices: list[DeviceStatus]
    snapshot: dict[str, Any] | None = None  # the journal's last snapshot
    backlog: int | None = None
    state: dict[str, Any] | None = None  # the retained P/state
    status: dict[str, Any] | None = None  # the retained P/status (or the last will)


@dataclass
class BoxStatus:
    site: str
    journal_path: str
    broker_url: str
    tables: list[TableStatus]
    journal_error: str | None = None
    broker_error: str | None = None
    # The broker URLs the config names (one, or a cluster's nodes) and the one read.
    broker_urls: tuple[str, ...] = ()
    broker_node: str | None = None
    # The topics the broker refused this login (SUBACK 0x80): NATS's ACL, an old ACL.
    broker_refused: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def journal_read(self) -> bool:
        return self.journal_error is None

    @property
    def broker_read(self) -> bool:
        return self.broker_error is None

    def as_json(self) -> dict[str, Any]:
        return {
            "site": self.site,
            "journal": {"path": self.journal_path, "error": self.journal_error},
            "broker": {
                "url": self.broker_url,
                "error": self.broker_error,
                "urls": list(self.broker_urls),
                "node": self.broker_node,
                "refused": list(self.broker_refused),
            },
            "tables": [_table_json(t) for t in self.tables],
        }


def _table_json(table: TableStatus) -> dict[str, Any]:
    state = table_state(table)
    alerts = open_alerts(table)
    return {
        "id": table.id,
        "game": table.game,
        "state": state["state"],
        "halt_reasons": state["halt_reasons"],
        "state_from": state["source"],
        "alerts": alerts["alerts"],
        "alerts_from": alerts["source"],
        "online": table.status.get("online") if table.status else None,
        "status": table.status,
        "backlog": table.backlog,
        "devices": [
            {
                "id": d.id,
                "last_seq": d.last_seq,
                "last_ts": d.last_ts,
                "last_type": d.last_type,
                "online": d.broker.get("online") if d.broker else None,
                "last_heard": d.broker.get("last_heard") if d.broker else None,
            }
            for d in table.devices
        ],
    }


def table_state(table: TableStatus) -> dict[str, Any]:
    """The table's state and halt reasons: the broker's retained `P/state` when it was
    read (it includes a journal failure the snapshot cannot), else the journal's."""
    for source, body in (("broker", table.state), ("journal", table.snapshot)):
        if isinstance(body, dict) and isinstance(body.get("state"), str):
            reasons = body.get("halt_reasons")
            return {
                "state": body["state"],
                "halt_reasons": reasons if isinstance(reasons, list) else [],
                "source": source,
            }
    return {"state": None, "halt_reasons": [], "source": None}


def open_alerts(table: TableStatus) -> dict[str, Any]:
    """The table's open surveillance alerts (raised, not yet acknowledged with
    `ack_alert`): the broker's retained `P/state` `alerts` when it was read, else the
    journal snapshot's, where the runner keeps them. `source` None: neither holds any
    (a table without a wheel, or with surveillance off), and `alerts` is empty."""
    snapshot = table.snapshot if isinstance(table.snapshot, dict) else {}
    watched = snapshot.get("surveillance")
    journal = watched.get("alerts") if isinstance(watched, dict) else None
    broker = table.state.get("alerts") if isinstance(table.state, dict) else None
    for source, alerts in (("broker", broker), ("journal", journal)):
        if isinstance(alerts, list):
            return {"alerts": [a for a in alerts if isinstance(a, dict)], "source": source}
    return {"alerts": [], "source": None}


def _skeleton(loaded: LoadedConfig) -> BoxStatus:
    cfg = loaded.config
    tables = []
    for table in cfg.tables:
        devices = [DeviceStatus(d.id, f"{table.id}/devices/{d.id}") for d in table.devices]
        streams = [table.id, *(d.stream for d in devices)]
        tables.append(TableStatus(table.id, table.game, streams, devices))
    return BoxStatus(
        cfg.site, str(loaded.journal_path), cfg.broker.where, tables, broker_urls=cfg.broker.nodes
    )


def read_journal(box: BoxStatus, path: Path) -> None:
    """Fill in the journal's view; on failure note why in `box.journal_error`."""
    try:
        journal = Journal.open_readonly(path)
    except JournalError as exc:
        box.journal_error = str(exc)
        return
    try:
        for table in box.tables:
            table.snapshot = journal.load_snapshot(table.id)
            table.backlog = journal.backlog(table.streams)
            for device in table.devices:
                device.last_seq = journal.last_seq(device.stream)
                last = journal.last_event(device.stream)
                if last is not None:
                    device.last_ts = last.get("ts")
                    device.last_type = last.get("type")
    except JournalError as exc:
        box.journal_error = str(exc)
    finally:
        with contextlib.suppress(JournalError):
            journal.close()


async def read_broker(box: BoxStatus, loaded: LoadedConfig, timeout_s: float) -> None:
    """Fill in the broker's retained view; on failure or timeout note it in `box`."""
    cfg = loaded.config
    wanted: dict[str, tuple[TableStatus, str, DeviceStatus | None]] = {}
    for table in box.tables:
        topics = Topics(cfg.broker.topic_prefix, cfg.site, table.id)
        wanted[topics.state] = (table, "state", None)
        wanted[topics.status] = (table, "status", None)
        for device in table.devices:
            wanted[topics.device(device.id)] = (table, "device", device)
    try:
        tls_context = client_tls(cfg.broker, loaded.resolve)
        password = loaded.broker_password()
        kwargs = {
            url: client_args(url, cfg.broker.username, password, tls_context)
            for url in cfg.broker.nodes
        }
    except (OSError, ValueError) as exc:
        box.broker_error = f"cannot set up the broker connection: {exc}"
        return

    def connect(url: str) -> aiomqtt.Client:
        return aiomqtt.Client(**kwargs[url])

    async def subscribed(client: aiomqtt.Client) -> None:
        box.broker_refused = await subscribe_retained(client, list(wanted))

    try:
        async with asyncio.timeout(timeout_s):
            async with first_reachable(cfg.broker.nodes, connect, subscribed) as (client, node):
                box.broker_node = node
                readable = {t: v for t, v in wanted.items() if t not in box.broker_refused}
                await _collect(client, readable)
    except TimeoutError:
        box.broker_error = f"broker {cfg.broker.where} not reached within {timeout_s:g} s"
    except (aiomqtt.MqttError, OSError) as exc:
        box.broker_error = f"broker {cfg.broker.where}: {exc}"


async def subscribe_retained(client: aiomqtt.Client, topics: list[str]) -> list[str]:
    """Subscribe to each of `topics` at QoS 0 and return those the broker refused; raises
    MqttError (so the next node is tried) when it refused every one."""
    refused = []
    for topic in topics:
        granted = await client.subscribe(topic, qos=0)
        codes = [code if isinstance(code, int) else int(code.value) for code in granted]
        if not codes or any(code >= 0x80 for code in codes):
            refused.append(topic)
    if topics and len(refused) == len(topics):
        raise aiomqtt.MqttError(f"the broker refused every subscription ({', '.join(refused)})")
    return refused


async def _collect(
    client: aiomqtt.Client, wanted: dict[str, tuple[TableStatus, str, DeviceStatus | None]]
) -> None:
    """Take the retained messages until every topic has one or the broker goes quiet."""
    missing = set(wanted)
    messages = aiter(client.messages)
    while missing:
        try:
            async with asyncio.timeout(RETAINED_QUIET_S):
                message = await anext(messages)
        except TimeoutError:
            return
        topic = str(message.topic)
        if topic not in wanted or not message.payload:
            continue
        try:
            body = read_json(bytes(message.payload))
        except (TypeError, ValueError):
            continue
        if not isinstance(body, dict):
            continue
        table, kind, device = wanted[topic]
        if kind == "state":
            table.state = body
        elif kind == "status":
            table.status = body
        elif device is not None:
            device.broker = body
        missing.discard(topic)


def gather_status(loaded: LoadedConfig, broker_timeout_s: float) -> BoxStatus:
    """Both views of the box; each failure is noted, neither raises."""
    box = _skeleton(loaded)
    read_journal(box, loaded.journal_path)
    asyncio.run(read_broker(box, loaded, broker_timeout_s))
    return box
