"""What follows a table's turn, in the background: the engine's device commands sent,
command results and replays published.

None of it may hold up the runner: a slow or half-dead broker or device must never
stop the engine, which has to halt a table even while MQTT is unreachable. Each is a
task of its own, kept until it ends, and cancelled when the runner stops.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Coroutine
from typing import Any

from structlog.typing import FilteringBoundLogger

from floord.adapters.remote import TableDevice
from floord.engine.core.types import EngineOutput
from floord.table.port import Committed


class Effects:
    def __init__(
        self, adapters: dict[str, TableDevice], committed: Committed, log: FilteringBoundLogger
    ) -> None:
        self.adapters = adapters
        self.committed = committed
        self._log = log
        # The background work not yet ended (tests await it to see what was published).
        self.tasks: set[asyncio.Task[Any]] = set()

    def sender(self, output: EngineOutput) -> Callable[[], None]:
        """What sends `output`'s device commands, run once its turn is on the record."""
        return lambda: self.dispatch(output)

    def dispatch(self, output: EngineOutput) -> None:
        """`output`'s device commands, each sent to its device's adapter."""
        for command in output.device_commands:
            adapter = self.adapters.get(command.device)
            if adapter is None:
                self._log.error("engine asked for an unknown device", device=command.device)
                continue
            self.spawn(adapter.send(command))

    def reply(self, command_id: str | None, ok: bool, error: str | None) -> None:
        """A command's result, on `P/cmd/result`."""
        self.spawn(self.committed.publish_result({"id": command_id, "ok": ok, "error": error}))

    def replay(self, payloads: list[str]) -> None:
        """Recorded events published again, on `P/replay`."""
        self.spawn(self.committed.publish_replay(payloads))

    def spawn(self, work: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.create_task(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def cancel(self) -> None:
        """Every task still running cancelled, and its end awaited."""
        for task in list(self.tasks):
            task.cancel()
        for task in list(self.tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
