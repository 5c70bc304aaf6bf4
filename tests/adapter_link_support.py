"""Helpers for the remote adapter's MQTT tests: an adapter link and the daemon's follower.

`Pair` wires, in one process, what `floord adapter` and `floord run` wire in two: an
`AdapterLink` publishing a device stream from its own journal, and a `RemoteDevice`
following it into the daemon's journal and a list standing for the table's bus.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mqtt_link_support import DEADLINE_S

from floord.adapters.link import AdapterLink
from floord.adapters.local import Received
from floord.adapters.remote import RemoteDevice
from floord.contract import Envelope, Topics
from floord.events import DeviceCommand
from floord.journal.store import Journal
from floord.profiles import load_profile

SITE, TABLE, DEVICE = "s1", "RL-01", "wheel"
TOPICS = Topics("floor/v1", SITE, TABLE)
STREAM = f"{TABLE}/devices/{DEVICE}"


def append_events(journal: Journal, n: int) -> None:
    """`n` wheel events on the adapter's device stream."""

    def build(seq: int) -> Envelope:
        return Envelope(
            site=SITE,
            table=TABLE,
            seq=seq,
            ts=f"2026-01-02T03:04:{seq % 60:02d}.000000Z",
            type="wheel.number",
            source=DEVICE,
            data={"number": str(seq % 37)},
        )

    for _ in range(n):
        journal.append(STREAM, build)


class Pair:
    """An adapter link and the daemon's follower of it, each on its own journal."""

    def __init__(
        self,
        tmp: Path,
        adapter_url: str,
        daemon_url: str,
        *,
        heartbeat_s: float = 60.0,
        follow: bool = True,
        announce: Callable[[], bool] = lambda: True,
        command_window_s: float = 10.0,
    ) -> None:
        self.adapter_journal = Journal(tmp / "adapter.db")
        self.daemon_journal = Journal(tmp / "daemon.db")
        self.commands: list[DeviceCommand] = []
        self.bus: list[Received] = []
        self.link = AdapterLink(
            url=adapter_url,
            username=None,
            password=None,
            topics=TOPICS,
            device=DEVICE,
            journal=self.adapter_journal,
            on_command=self._command,
            announce=announce,
            device_online=lambda: True,
            heartbeat_s=heartbeat_s,
            client_id="test-adapter",
            command_window_s=command_window_s,
        )
        self.remote = (
            RemoteDevice(
                site=SITE,
                table=TABLE,
                device=DEVICE,
                profile=load_profile("cammegh-ss2"),
                topics=TOPICS,
                journal=self.daemon_journal,
                sink=self.bus.append,
                clock=lambda: datetime.now(UTC),
                url=daemon_url,
                username=None,
                password=None,
                client_id="test-daemon-follower",
            )
            if follow
            else None
        )

    async def _command(self, command: DeviceCommand) -> Any:
        self.commands.append(command)

    def stream_seqs(self) -> list[int]:
        """The device stream's seqs that reached the bus (the follower's own
        observations, `device.offline` on silence, have none)."""
        return [r.device_seq for r in self.bus if r.device_seq]

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        tasks = [asyncio.create_task(self.link.run())]
        if self.remote is not None:
            tasks.append(asyncio.create_task(self.remote.run()))
        try:
            yield
        finally:
            if self.remote is not None:
                self.remote.stop()
            await asyncio.wait_for(self.link.stop(), DEADLINE_S)
            done, pending = await asyncio.wait(tasks, timeout=DEADLINE_S)
            for task in pending:
                task.cancel()
            await asyncio.wait(tasks)
            self.adapter_journal.close()
            self.daemon_journal.close()
            for task in done:
                if not task.cancelled() and task.exception() is not None:
                    raise task.exception()  # type: ignore[misc]
