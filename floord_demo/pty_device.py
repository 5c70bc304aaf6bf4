"""A demo device simulator running in the demo's process on its own pseudo-terminal.

The pty is made first (its path goes into the demo's config), the simulator is powered
on once the daemon's driver has the port open, and both stop at once on `close`: the
simulator's task is cancelled (its FLF/1 channel closes with it) and the pty's two ends
are closed, whatever the simulator was doing (a wheel mid-spin included).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class PtyDevice:
    """One simulated device: `build()` makes its simulator (scenario validated)."""

    build: Callable[[], Any]
    port: str = ""
    link: Any = None
    task: asyncio.Task[Any] | None = None
    _sim: Any = field(default=None, repr=False)

    @property
    def simulator(self) -> Any:
        """The running simulator (None before `open`), for a hand that acts on the device."""
        return self._sim

    async def open(self) -> None:
        from simulators.link import open_pty_link

        self._sim = self.build()
        self.link, self.port = await open_pty_link()

    def start(self) -> None:
        """Power the device on (once the daemon's driver has its port open)."""
        if self._sim is not None and self.task is None:
            self.task = asyncio.create_task(self._sim.run(self.link))

    async def power_off(self) -> None:
        """Stop the simulator; the pty stays open (the host sees silence, not a hang-up)."""
        if self.task is not None:
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)

    async def close(self) -> None:
        await self.power_off()
        if self.link is not None:
            with contextlib.suppress(Exception):  # a demo's teardown goes on regardless
                await self.link.close()
