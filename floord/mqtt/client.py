"""One way to make floord's MQTT clients: the table link, a remote adapter's link and
the daemon's follower of a remote device all connect the same way.

Clean sessions (the journal, not the broker, is what survives a restart), QoS 1 with a
bounded in-flight window (kept by the publishers' batches), an optional retained last
will, and TLS from the config's `broker.tls` (`floord.mqtt.tls.client_tls`) or, for an
mqtts:// URL without one, the system's CA store.

A client names one broker or the nodes of a broker cluster (`NodeRing`): each connection
goes to the current node, and a failed or lost connection moves the client on to the
next, so a box whose node dies carries on at another one after its back-off.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import aiomqtt

# How long to wait for CONNACK: a peer that accepts TCP and then says nothing (or hangs
# up before answering) must not keep a table offline for longer than this.
CONNECT_TIMEOUT_S = 5.0


def broker_address(url: str) -> tuple[str, int, bool]:
    """(host, port, tls) from `mqtt://host[:port]` or `mqtts://host[:port]`."""
    parts = urlsplit(url)
    if parts.scheme not in ("mqtt", "mqtts") or not parts.hostname:
        raise ValueError(f"a broker URL mqtt://host[:port] or mqtts://host[:port], found {url!r}")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise ValueError(f"a broker URL without a path or query expected, found {url!r}")
    tls = parts.scheme == "mqtts"
    try:
        port = parts.port or (8883 if tls else 1883)
    except ValueError as exc:
        raise ValueError(f"a broker URL with a valid port expected, found {url!r}") from exc
    return parts.hostname, port, tls


class NodeRing:
    """The broker URLs a client may connect to: tried in order, then round-robin.

    One URL is a single broker; several are the nodes of one cluster (the same logins,
    the same TLS, the same retained state), so a client may use any of them. `advance()`
    after a failed or lost connection moves on to the next node; a good connection stays
    where it is. Every URL has the same scheme (the TLS settings apply to each node).
    """

    def __init__(self, urls: str | Sequence[str]) -> None:
        listed = [urls] if isinstance(urls, str) else list(urls)
        if not listed:
            raise ValueError("at least one broker URL expected, found none")
        self._addresses = [broker_address(url) for url in listed]
        if len({tls for _, _, tls in self._addresses}) > 1:
            raise ValueError(
                f"every broker URL mqtt:// or every one mqtts:// expected, found {listed!r}"
            )
        self.urls = tuple(listed)
        self._at = 0

    def __len__(self) -> int:
        return len(self.urls)

    @property
    def url(self) -> str:
        """The node the next connection goes to."""
        return self.urls[self._at]

    @property
    def host(self) -> str:
        return self._addresses[self._at][0]

    @property
    def port(self) -> int:
        return self._addresses[self._at][1]

    @property
    def tls(self) -> bool:
        return self._addresses[0][2]

    @property
    def where(self) -> str:
        """The current node as `host:port`, for the logs and `P/status`."""
        return f"{self.host}:{self.port}"

    def advance(self) -> None:
        """The current node failed: the next connection goes to the next one (round-robin)."""
        self._at = (self._at + 1) % len(self.urls)


@contextlib.asynccontextmanager
async def first_reachable(
    urls: Sequence[str],
    make: Callable[[str], aiomqtt.Client],
    ready: Callable[[aiomqtt.Client], Awaitable[None]] | None = None,
) -> AsyncIterator[tuple[aiomqtt.Client, str]]:
    """Connect a one-shot client (`floord cmd`, `floord status`) to the first node of
    `urls` that accepts it and, with `ready`, takes its subscriptions; yields the client
    and that node's URL.

    Only a node that fails before the caller has sent anything is left for the next one
    (a refused connection, or a subscription `ready` finds refused): once the caller
    has the client, a failure is its own (a command already sent must not be sent
    twice). Raises MqttError naming every node's failure when none answers.
    """
    failures: list[str] = []
    for url in urls:
        stack = contextlib.AsyncExitStack()
        client: aiomqtt.Client | None = None
        try:
            client = await stack.enter_async_context(make(url))
            if ready is not None:
                await ready(client)
        except aiomqtt.MqttError as exc:
            with contextlib.suppress(aiomqtt.MqttError):
                await stack.aclose()
            dropped = client is not None and await _dropped(client)
            lost = " (the broker closed the connection)" if dropped else ""
            failures.append(f"{url}: {exc}{lost}")
            continue
        async with stack:
            yield client, url
        return
    if len(failures) == 1:
        raise aiomqtt.MqttError(failures[0].split(": ", 1)[1])
    raise aiomqtt.MqttError("no broker node answered (" + "; ".join(failures) + ")")


async def _dropped(client: aiomqtt.Client) -> bool:
    """Whether the closed `client`'s connection was lost rather than closed by us.
    aiomqtt tells a lost connection only to a reader of its messages: a client that
    failed before anything read them (its broker dropped it before the SUBACK) would
    otherwise leave that error unread, and asyncio prints it, with its exception, when
    the client is collected."""
    try:
        async with asyncio.timeout(0.1):
            await anext(aiter(client.messages))
    except aiomqtt.MqttError as ended:
        return ended.__cause__ is not None  # the error the connection ended with
    except TimeoutError:
        pass
    return False


async def subscribe_checked(
    client: aiomqtt.Client,
    topics: Sequence[str],
    *,
    timeout: float | None = None,
    qos: int = 1,
) -> None:
    """Subscribe to `topics` at `qos` and read each SUBACK: a subscription the broker
    refused (a return code of 0x80 or above) raises MqttError, so the session starts over
    (on the next node) instead of running deaf to its commands. A broker cluster refuses
    one while it cannot store the subscription (NATS: its JetStream consumer not created
    while the cluster elects new leaders after losing a node)."""
    for topic in topics:
        if timeout is None:
            granted = await client.subscribe(topic, qos=qos)
        else:
            granted = await client.subscribe(topic, qos=qos, timeout=timeout)
        codes = [code if isinstance(code, int) else int(code.value) for code in granted]
        if not codes or any(code >= 0x80 for code in codes):
            raise aiomqtt.MqttError(f"the broker refused the subscription to {topic} ({codes})")


def make_client(
    *,
    host: str,
    port: int,
    username: str | None,
    password: str | None,
    identifier: str | None,
    keepalive: int,
    timeout: float,
    tls: bool,
    tls_context: ssl.SSLContext | None,
    will: aiomqtt.Will | None = None,
    window: int | None = None,
) -> aiomqtt.Client:
    """An aiomqtt client; with `window`, for publishers that keep at most that many QoS 1
    messages of a batch in flight (`floord.mqtt.outbox`, the table link's batches)."""
    client = aiomqtt.Client(
        host,
        port,
        username=username,
        password=password,
        identifier=identifier,
        will=will,
        clean_session=True,
        keepalive=keepalive,
        timeout=timeout,
        tls_context=tls_context,
        tls_params=aiomqtt.TLSParameters() if tls and tls_context is None else None,
        # With `window`, floord bounds what is in flight itself (a batch of at most that
        # many waits for its PUBACKs before the next), so paho's own window is lifted (0):
        # under it, paho scans every message it holds on every PUBACK. None:
        # paho-mqtt's own window (20), for clients that publish one message at a time.
        max_inflight_messages=None if window is None else 0,
    )
    if window is not None:
        # aiomqtt warns above this many outstanding calls; a full window is expected.
        client.pending_calls_threshold = 2 * window + 20
    return client


@dataclass(frozen=True)
class Broker:
    """Where and as whom one floord client connects: what each of its connections shares.

    `nodes` is the one broker or the cluster's nodes; each new client goes to the
    current node (`SessionLoop` moves it on after a failure)."""

    nodes: NodeRing
    username: str | None
    password: str | None = field(repr=False)
    identifier: str | None
    keepalive: int
    timeout: float
    # From floord.mqtt.tls.client_tls (the config's broker.tls); without one an
    # mqtts:// client verifies the broker against the system's CA store.
    tls_context: ssl.SSLContext | None

    @classmethod
    def from_url(
        cls,
        url: str | Sequence[str],
        *,
        username: str | None,
        password: str | None,
        identifier: str | None,
        keepalive: int,
        timeout: float = CONNECT_TIMEOUT_S,
        tls_context: ssl.SSLContext | None = None,
    ) -> Broker:
        """From one broker URL, or the URLs of a cluster's nodes in the order to try them."""
        nodes = NodeRing(url)
        if tls_context is not None and not nodes.tls:
            raise ValueError(f"a TLS context needs an mqtts:// broker URL, found {nodes.url!r}")
        return cls(nodes, username, password, identifier, keepalive, timeout, tls_context)

    @property
    def tls(self) -> bool:
        return self.nodes.tls

    @property
    def where(self) -> str:
        """The current node's `host:port`, for the logs."""
        return self.nodes.where

    def client(
        self, *, will: aiomqtt.Will | None = None, window: int | None = None
    ) -> aiomqtt.Client:
        """A fresh client for one connection, to the current node."""
        return make_client(
            host=self.nodes.host,
            port=self.nodes.port,
            username=self.username,
            password=self.password,
            identifier=self.identifier,
            keepalive=self.keepalive,
            timeout=self.timeout,
            tls=self.nodes.tls,
            tls_context=self.tls_context,
            will=will,
            window=window,
        )
