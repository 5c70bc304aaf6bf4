"""A surveillance console for the load bench: every message of the site, and its lag.

It subscribes to the whole site (`<prefix>/<site>/#`, QoS 1) as a console would, counts
what arrives, and for every event (a table's record, `P/events`, and a device's stream,
`P/devices/<d>/events`) takes its lag: the time it arrived here less the envelope's
`ts`, the moment floord made it. The lag therefore holds the journal's commit (fsync),
the MQTT publish and the broker's delivery. The console runs on the same machine as
the daemons, so it also holds the console's own wait for a core.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import aiomqtt


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


@dataclass
class Window:
    """What arrived while measuring."""

    started: float = field(default_factory=time.monotonic)
    messages: int = 0
    table_events: int = 0
    device_events: int = 0
    lags_ms: list[float] = field(default_factory=list)
    table_lags_ms: list[float] = field(default_factory=list)
    types: Counter[str] = field(default_factory=Counter)


class Console:
    """Subscribes to a site; tells which tables' wheels identified, which commands came back."""

    def __init__(self, host: str, port: int, prefix: str, site: str) -> None:
        self.host, self.port = host, port
        self.base = f"{prefix}/{site}/"
        self.identified: set[str] = set()
        self.results: dict[str, dict[str, Any]] = {}  # command id: its result
        self.window: Window | None = None
        self.ready = asyncio.Event()
        self.malformed = 0

    def measure(self) -> None:
        """Start a fresh window (everything before it was warm-up)."""
        self.window = Window()

    async def run(self) -> None:
        while True:
            try:
                async with aiomqtt.Client(
                    self.host, self.port, max_queued_incoming_messages=0
                ) as c:
                    await c.subscribe(self.base + "#", qos=1)
                    self.ready.set()
                    async for message in c.messages:
                        self._on(str(message.topic), bytes(message.payload))
            except aiomqtt.MqttError:
                await asyncio.sleep(0.5)

    def _on(self, topic: str, payload: bytes) -> None:
        now = time.time()
        rest = topic[len(self.base) :].split("/")
        table = rest[0]
        window = self.window
        if window is not None:
            window.messages += 1
        if rest[-1] == "result" and rest[1:] == ["cmd", "result"]:
            body = json.loads(payload)
            self.results[str(body.get("id"))] = body
            return
        if rest[-1] != "events" or (len(rest) != 2 and rest[1] != "devices"):
            return
        try:
            body = json.loads(payload)
            made = datetime.fromisoformat(body["ts"]).timestamp()
            kind = str(body["type"])
        except (ValueError, KeyError, TypeError):
            self.malformed += 1
            return
        if kind == "device.identified":
            self.identified.add(table)
        if window is None:
            return
        lag_ms = (now - made) * 1000.0
        window.lags_ms.append(lag_ms)
        window.types[kind] += 1
        if len(rest) == 2:
            window.table_events += 1
            window.table_lags_ms.append(lag_ms)
        else:
            window.device_events += 1
