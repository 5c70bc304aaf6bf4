"""Ctrl-C and SIGTERM end the demo the way `--seconds` does: in order, without a traceback.

Without this, Ctrl-C cancels the demo's task wherever it stands (asyncio's default), and
SIGTERM kills the process outright, leaving its private Mosquitto behind. With it, either
signal only sets `requested`; the demo's loop sees it and stops as after `--seconds`:
the devices fall silent, the daemon stops cleanly, the broker goes last.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Iterator

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class StopSignals:
    """SIGINT and SIGTERM set `requested`, for as long as `installed()` is open."""

    def __init__(self) -> None:
        self.requested = asyncio.Event()
        self._loop: asyncio.AbstractEventLoop | None = None

    def install(self) -> None:
        """Take both signals (again: the daemon the demo runs installs its own handlers,
        which stop only the daemon; the demo's stop comes first and stops it too)."""
        self._loop = asyncio.get_running_loop()
        for sig in SIGNALS:
            with contextlib.suppress(NotImplementedError, RuntimeError):
                self._loop.add_signal_handler(sig, self.requested.set)

    @contextlib.contextmanager
    def installed(self) -> Iterator[StopSignals]:
        self.install()
        try:
            yield self
        finally:
            if self._loop is not None:
                for sig in SIGNALS:
                    with contextlib.suppress(NotImplementedError, RuntimeError):
                        self._loop.remove_signal_handler(sig)
