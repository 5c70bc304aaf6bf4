"""The one MQTT connect/reconnect loop: connect, serve, back off, again, until stop().

Every long-lived floord client keeps its broker connection the same way: the table link,
a remote adapter's link, the daemon's follower of a remote device and the console's feed.
What differs is only what one connection does (its session); this loop does the rest:

- a fresh client for every connection (clean session, its last will registered anew):
  a client from a broken connection could otherwise resend half-finished messages;
- a connection that stayed up `stable_s` (10 s) was a good one: after it the back-off
  starts over; one that failed sooner (a cluster node that accepts the connection but
  cannot yet keep the session's subscriptions) counts as a failed attempt, so a box does
  not reconnect in a tight loop and add to the load of a cluster electing new leaders;
- a failed or lost connection moves on to the next broker node (`NodeRing`: a cluster's
  nodes tried in order, then round-robin), so the wait before the next node is the
  back-off's and a box whose node died is on another within it;
- the operator's lines (docs/deployment.md, "Logs"): `broker connected` the first time,
  `broker connection lost` or `broker unreachable` once when it goes (with the delay
  before the next attempt, `floord.mqtt.backoff`, and for a cluster the node tried next),
  the retries after it as debug lines, and `broker connection back` with the node it is
  on now, how long it was down and, where the client keeps a backlog, how many events
  still wait; anything but an MQTT failure ends run() with it,
  so a link whose journal fails does not pretend to carry on;
- another process connecting with the same client id takes the connection over, and
  MQTT 3.1.1 gives no reason for the drop: the link that finds, after reconnecting, its
  own retained status published by another process since it started
  (`floord.mqtt.takeover`) calls `taken_over`: one error line `another connection with
  client id X took over` (the other's pid and host); the losses and returns after it
  are debug lines until a connection stays up `stable_s` again
  (`client id no longer taken over`);
- a connection that was up and then lost (an MQTT failure after CONNACK) is kept as
  `loss` (its node, when it was made, when it went) until the session reports it
  (`reported`): the table link says it on its next `online: true` `P/status` (`lost`),
  an adapter process's link on its `P/devices/<device>/status` (`floord.mqtt.lost`),
  because a node that dies takes the connection's last will with it (NATS keeps a will
  on the node that holds the connection, docs/deployment.md). The first unreported loss
  is kept, the one that began the outage;
- stop() ends a back-off wait at once and a session through the stop watch it runs among
  its jobs (`until_stopped`, which may say goodbye first, e.g. a retained `online: false`).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, NoReturn

import aiomqtt

from floord.mqtt.backoff import Backoff
from floord.mqtt.client import NodeRing
from floord.mqtt.jobs import SessionStopped
from floord.mqtt.paho_hooks import take_disconnect_error

# A connection up this long was a good one: the back-off starts over after it.
STABLE_S = 10.0


@dataclass(frozen=True)
class Loss:
    """A connection that was up and was lost: its node (`host:port`), when it was made
    (its CONNACK) and when the client saw it go."""

    broker: str
    since: datetime
    at: datetime


class SessionLoop:
    """Keeps one client connected to one of `nodes` until stop(); `make_client` makes a
    client for `nodes`' current node."""

    def __init__(
        self,
        *,
        make_client: Callable[[], aiomqtt.Client],
        serve: Callable[[aiomqtt.Client], Awaitable[None]],
        nodes: NodeRing,
        log: Any = None,
        backoff: Backoff | None = None,
        on_lost: Callable[[aiomqtt.MqttError], None] | None = None,
        backlog: Callable[[], Awaitable[int | None]] | None = None,
        stable_s: float = STABLE_S,
    ) -> None:
        self._make_client = make_client
        self._serve = serve
        self._nodes = nodes
        # A structlog-style logger (event, then fields), or None for a client whose user
        # sees the connection some other way (the console shows it on screen).
        self._log = log
        self._backoff = backoff if backoff is not None else Backoff()
        self._on_lost = on_lost
        self._backlog = backlog
        self._stable_s = stable_s
        self._up_since: float | None = None
        self._up_at: datetime | None = None
        # The first connection lost and not yet reported (`reported`).
        self.loss: Loss | None = None
        self._stop = asyncio.Event()
        # For the operator's lines: connected once, then lost and back.
        self._ever_connected = False
        self._down_since: float | None = None
        self._failures = 0
        # Another connection with this client id takes ours over (`taken_over`): said
        # once; the losses and returns it causes are debug lines until it stops.
        self._rival: dict[str, str] | None = None
        # For the metrics: connections up and then lost, and connections made on another
        # node than the one before (a cluster's failover).
        self.connections_lost = 0
        self.failovers = 0
        self._last_node: str | None = None

    def stop(self) -> None:
        """End run(): at once if it is waiting to reconnect, else through the stop watch."""
        self._stop.set()

    @property
    def stopping(self) -> bool:
        """stop() was called: a session starting up says nothing more."""
        return self._stop.is_set()

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
            up, up_at = self._up_since, self._up_at
            self._up_since = self._up_at = None
            if up is not None and time.monotonic() - up >= self._stable_s:
                self._backoff.reset()
                self._rival_gone()
            delay = None if self._stop.is_set() else self._backoff.next()
            if failure is not None:
                failed = self._nodes.where
                self.connections_lost += up_at is not None
                if up_at is not None and self.loss is None:
                    self.loss = Loss(failed, up_at, datetime.now(UTC))
                self._nodes.advance()
                self._lost(failure, delay, failed)
            if delay is None:
                break
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(delay):
                    await self._stop.wait()

    async def _connect_once(self) -> None:
        client = self._make_client()
        try:
            async with client:
                self._up_since = time.monotonic()
                self._up_at = datetime.now(UTC)
                await self._connected()
                await self._serve(client)
        finally:
            take_disconnect_error(client)

    def taken_over(self, client_id: str | None, rival: dict[str, str]) -> None:
        """The session found its own retained status published by another process since
        it started (`floord.mqtt.takeover`): another connection with its client id took
        it over. One error line, then quiet until a connection stays up `stable_s`."""
        if self._rival is None and self._log is not None:
            self._log.error(
                f"another connection with client id {client_id} took over",
                client_id=client_id,
                **rival,
            )
        self._rival = rival

    def _rival_gone(self) -> None:
        if self._rival is not None and self._log is not None:
            self._log.info("client id no longer taken over", stable_s=self._stable_s)
        self._rival = None

    def reported(self, loss: Loss) -> None:
        """`loss` was said (the broker acknowledged a status naming it): forget it."""
        if self.loss is loss:
            self.loss = None

    async def _connected(self) -> None:
        """One line when the link comes up: the first time, or back after a loss."""
        first = not self._ever_connected
        if self._last_node is not None and self._nodes.where != self._last_node:
            self.failovers += 1
        self._last_node = self._nodes.where
        down_s = time.monotonic() - self._down_since if self._down_since else None
        self._ever_connected = True
        self._down_since = None
        self._failures = 0
        if self._log is None:
            return
        if first:
            self._log.info("broker connected", broker=self._nodes.where)
            return
        # While another connection with this client id takes ours over, a debug line.
        say = self._log.info if self._rival is None else self._log.debug
        say(
            "broker connection back",
            broker=self._nodes.where,
            backlog=await self._backlog() if self._backlog is not None else None,
            down_s=round(down_s, 1) if down_s is not None else None,
        )

    def _lost(self, failure: aiomqtt.MqttError, delay: float | None, failed: str) -> None:
        """One warning when the link goes (or cannot come up at all) at node `failed`,
        with the wait before the next attempt and, for a cluster, the node it goes to;
        the retries after it are debug lines, so a broker away for an hour does not fill
        the log."""
        self._failures += 1
        if self._on_lost is not None:
            self._on_lost(failure)
        if self._log is None:
            return
        # Which node comes next, only for a cluster (a lone broker's lines are unchanged).
        nodes = {"next_broker": self._nodes.where} if len(self._nodes) > 1 else {}
        if self._rival is not None:  # said once, in `taken_over`
            self._down_since = time.monotonic()
            said = {"broker": failed, "error": str(failure), "retry_in_s": delay, **nodes}
            self._log.debug("broker connection taken over", **said)
            return
        if self._failures > 1:
            self._log.debug(
                "broker still unreachable",
                broker=failed,
                error=str(failure),
                attempts=self._failures,
                retry_in_s=delay,
                **nodes,
            )
            return
        self._down_since = time.monotonic()
        what = "broker connection lost" if self._ever_connected else "broker unreachable"
        self._log.warning(what, broker=failed, error=str(failure), retry_in_s=delay, **nodes)
