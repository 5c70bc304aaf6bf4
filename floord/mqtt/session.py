"""The one MQTT connect/reconnect loop: connect, serve, back off, again, until stop().

Every long-lived floord client keeps its broker connection the same way: the table link,
a remote adapter's link, the daemon's follower of a remote device and the console's feed.
What differs is only what one connection does (its session); this loop does the rest:

- a fresh client for every connection (clean session, its last will registered anew):
  a client from a broken connection could otherwise resend half-finished messages;
- after CONNACK the back-off starts over, and the session runs until it ends;
- the operator's lines (docs/deployment.md, "Logs"): `broker connected` the first time,
  `broker connection lost` or `broker unreachable` once when it goes (with the delay
  before the next attempt, `floord.mqtt.backoff`), the retries after it as debug lines,
  and `broker connection back` with how long it was down and, where the client keeps a
  backlog, how many events still wait; anything but an MQTT failure ends run() with it,
  so a link whose journal fails does not pretend to carry on;
- stop() ends a back-off wait at once and a session through the stop watch it runs among
  its jobs (`until_stopped`, which may say goodbye first, e.g. a retained `online: false`).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from typing import Any, NoReturn

import aiomqtt

from floord.mqtt.backoff import Backoff
from floord.mqtt.jobs import SessionStopped


class SessionLoop:
    """Keeps one client connected to `broker` (for the logs, `host:port`) until stop()."""

    def __init__(
        self,
        *,
        make_client: Callable[[], aiomqtt.Client],
        serve: Callable[[aiomqtt.Client], Awaitable[None]],
        broker: str,
        log: Any = None,
        backoff: Backoff | None = None,
        on_lost: Callable[[aiomqtt.MqttError], None] | None = None,
        backlog: Callable[[], Awaitable[int | None]] | None = None,
    ) -> None:
        self._make_client = make_client
        self._serve = serve
        self._broker = broker
        # A structlog-style logger (event, then fields), or None for a client whose user
        # sees the connection some other way (the console shows it on screen).
        self._log = log
        self._backoff = backoff if backoff is not None else Backoff()
        self._on_lost = on_lost
        self._backlog = backlog
        self._stop = asyncio.Event()
        # For the operator's lines: connected once, then lost and back.
        self._ever_connected = False
        self._down_since: float | None = None
        self._failures = 0

    def stop(self) -> None:
        """End run(): at once if it is waiting to reconnect, else through the stop watch."""
        self._stop.set()

    async def until_stopped(
        self, goodbye: Callable[[], Awaitable[object]] | None = None
    ) -> NoReturn:
        """A session job: when stop() is called, say `goodbye` and end the session cleanly."""
        await self._stop.wait()
        if goodbye is not None:
            await goodbye()
        raise SessionStopped

    async def run(self) -> None:
        """Connect, serve and reconnect after any MQTT failure, until stop()."""
        while not self._stop.is_set():
            failure: aiomqtt.MqttError | None = None
            try:
                await self._connect_once()
            except aiomqtt.MqttError as exc:
                failure = exc
            delay = None if self._stop.is_set() else self._backoff.next()
            if failure is not None:
                self._lost(failure, delay)
            if delay is None:
                break
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stop.wait(), timeout=delay)

    async def _connect_once(self) -> None:
        client = self._make_client()
        try:
            async with client:
                self._backoff.reset()
                await self._connected()
                await self._serve(client)
        finally:
            _take_disconnect_error(client)

    async def _connected(self) -> None:
        """One line when the link comes up: the first time, or back after a loss."""
        first = not self._ever_connected
        down_s = time.monotonic() - self._down_since if self._down_since else None
        self._ever_connected = True
        self._down_since = None
        self._failures = 0
        if self._log is None:
            return
        if first:
            self._log.info("broker connected", broker=self._broker)
            return
        self._log.info(
            "broker connection back",
            broker=self._broker,
            backlog=await self._backlog() if self._backlog is not None else None,
            down_s=round(down_s, 1) if down_s is not None else None,
        )

    def _lost(self, failure: aiomqtt.MqttError, delay: float | None) -> None:
        """One warning when the link goes (or cannot come up at all), with the wait before
        the next attempt; the retries after it are debug lines, so a broker away for an
        hour does not fill the log."""
        self._failures += 1
        if self._on_lost is not None:
            self._on_lost(failure)
        if self._log is None:
            return
        if self._failures > 1:
            self._log.debug(
                "broker still unreachable",
                broker=self._broker,
                error=str(failure),
                attempts=self._failures,
                retry_in_s=delay,
            )
            return
        self._down_since = time.monotonic()
        what = "broker connection lost" if self._ever_connected else "broker unreachable"
        self._log.warning(what, broker=self._broker, error=str(failure), retry_in_s=delay)


def _take_disconnect_error(client: aiomqtt.Client) -> None:
    """Mark the reason the broker dropped `client` as seen.

    aiomqtt (2.5) stores an unexpected disconnection as the exception of a private future
    and, when its context exits after the drop, returns without reading it; asyncio then
    logs "Future exception was never retrieved" whenever that future is collected, long
    after the loop has already logged the loss in its own words. Reading it here keeps
    that stray line out of the operator's log.
    """
    future = getattr(client, "_disconnected", None)
    if isinstance(future, asyncio.Future) and future.done() and not future.cancelled():
        future.exception()
