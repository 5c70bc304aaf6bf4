"""One way to make floord's MQTT clients: the table link, a remote adapter's link and
the daemon's follower of a remote device all connect the same way.

Clean sessions (the journal, not the broker, is what survives a restart), QoS 1 with a
bounded in-flight window, an optional retained last will, and TLS from the config's
`broker.tls` (`floord.mqtt.tls.client_tls`) or, for an mqtts:// URL without one, the
system's CA store.
"""

from __future__ import annotations

import ssl

import aiomqtt


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
