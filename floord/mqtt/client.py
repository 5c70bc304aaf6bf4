"""One way to make floord's MQTT clients: the table link, a remote adapter's link and
the daemon's follower of a remote device all connect the same way.

Clean sessions (the journal, not the broker, is what survives a restart), QoS 1 with a
bounded in-flight window, an optional retained last will, and TLS from the config's
`broker.tls` (`floord.mqtt.tls.client_tls`) or, for an mqtts:// URL without one, the
system's CA store.
"""

from __future__ import annotations

import ssl
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
    """An aiomqtt client; with `window`, that many QoS 1 messages may be in flight."""
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
        max_inflight_messages=window,  # None: paho-mqtt's own window
    )
    if window is not None:
        # aiomqtt warns above this many outstanding calls; a full window is expected.
        client.pending_calls_threshold = 2 * window + 20
    return client


@dataclass(frozen=True)
class Broker:
    """Where and as whom one floord client connects: what each of its connections shares."""

    host: str
    port: int
    tls: bool
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
        url: str,
        *,
        username: str | None,
        password: str | None,
        identifier: str | None,
        keepalive: int,
        timeout: float = CONNECT_TIMEOUT_S,
        tls_context: ssl.SSLContext | None = None,
    ) -> Broker:
        host, port, tls = broker_address(url)
        return cls(host, port, tls, username, password, identifier, keepalive, timeout, tls_context)

    @property
    def where(self) -> str:
        """`host:port`, for the logs."""
        return f"{self.host}:{self.port}"

    def client(
        self, *, will: aiomqtt.Will | None = None, window: int | None = None
    ) -> aiomqtt.Client:
        """A fresh client for one connection."""
        return make_client(
            host=self.host,
            port=self.port,
            username=self.username,
            password=self.password,
            identifier=self.identifier,
            keepalive=self.keepalive,
            timeout=self.timeout,
            tls=self.tls,
            tls_context=self.tls_context,
            will=will,
            window=window,
        )
