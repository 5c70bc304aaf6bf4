"""The one MQTT connect/reconnect loop: connect, serve, back off, again, until stop().

Every long-lived floord client keeps its broker connection the same way: the table link,
a remote adapter's link, the daemon's follower of a remote device and the console's feed.
What differs is only what one connection does (its session); this loop does the rest:

- a fresh client for every connection (clean session, its last will registered anew):
  a client from a broken connection could otherwise resend half-finished messages;
- after CONNACK the back-off starts over, and the session runs until it ends;
- an MQTT failure, when connecting or later, is logged with the delay before the next
  attempt (`floord.mqtt.backoff`); anything else ends run() with it, so a link whose
  journal fails does not pretend to carry on;
- stop() ends a back-off wait at once and a session through the stop watch it runs among
  its jobs (`until_stopped`, which may say goodbye first, e.g. a retained `online: false`).
"""

from __future__ import annotations

import asyncio
import contextlib
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
    ) -> None:
        self._make_client = make_client
        self._serve = serve
        self._broker = broker
        # A structlog-style logger (event, then fields), or None for a client whose user
        # sees the connection some other way (the console shows it on screen).
        self._log = log
        self._backoff = backoff if backoff is not None else Backoff()
        self._on_lost = on_lost
        self._stop = asyncio.Event()

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
        async with client:
            self._backoff.reset()
            if self._log is not None:
                self._log.info("mqtt connected", broker=self._broker)
            await self._serve(client)

    def _lost(self, failure: aiomqtt.MqttError, delay: float | None) -> None:
        """One line per failed attempt or lost connection, with the wait before the next."""
        if self._log is not None:
            self._log.warning(
                "mqtt connection failed or lost",
                broker=self._broker,
                error=str(failure),
                retry_in_s=delay,
            )
        if self._on_lost is not None:
            self._on_lost(failure)
