"""The TLS side of every MQTT client floord makes: one `ssl.SSLContext` built from the config.

The table boxes, `floord cmd` and any other floord client of the broker build their
context here, from the config's `broker.tls` section, so that all of them verify the
broker the same way: TLS 1.2 at least, the broker's certificate checked against the
floor's own CA (not the system's store) and its host name against the URL's host or
`server_name`, and this box's client certificate offered when the broker requires one.

`floord.mqtt` may not import the config module (it pulls in the engine), so the config's
shape is described here as a Protocol; `floord.config.load.BrokerConfig` fits it.
"""

from __future__ import annotations

import ssl
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol


class TLSSettings(Protocol):
    """`broker.tls` in a config (`floord.config.broker.BrokerTLSConfig`)."""

    @property
    def ca_file(self) -> Path: ...
    @property
    def cert_file(self) -> Path | None: ...
    @property
    def key_file(self) -> Path | None: ...
    @property
    def server_name(self) -> str | None: ...


class BrokerSettings(Protocol):
    """`broker` in a config (`floord.config.load.BrokerConfig`)."""

    @property
    def nodes(self) -> Sequence[str]: ...
    @property
    def tls(self) -> TLSSettings | None: ...


class _ServerNameContext(ssl.SSLContext):
    """A client context that checks the broker's certificate against a fixed name.

    paho-mqtt asks for the URL's host as the server name; a box that reaches the broker
    by address (`mqtts://10.0.0.5`) must still check the name in its certificate.
    """

    server_name: str = ""

    def wrap_socket(self, sock: Any, *args: Any, **kwargs: Any) -> ssl.SSLSocket:
        kwargs["server_hostname"] = self.server_name
        return super().wrap_socket(sock, *args, **kwargs)


def client_tls(broker: BrokerSettings, resolve: Callable[[Path], Path]) -> ssl.SSLContext | None:
    """The TLS context for `broker` (None for `mqtt://`), the same for every node of a
    cluster (the config refuses a mix of mqtt:// and mqtts:// nodes); `resolve` makes a
    config's relative paths absolute (`LoadedConfig.resolve`).

    Raises ValueError naming the config key and file when a file does not load.
    """
    where = ", ".join(broker.nodes)
    secure = all(url.startswith("mqtts://") for url in broker.nodes)
    settings = broker.tls
    if not secure:
        if settings is not None:
            raise ValueError(
                f"broker.tls: no tls section with a plain mqtt:// url expected "
                f"(use mqtts:// for TLS), found one with {where!r}"
            )
        return None
    if settings is None:
        raise ValueError(
            f"broker.tls: a tls section (ca_file, and cert_file/key_file when the broker "
            f"requires client certificates) expected for {where!r}, found none"
        )
    context: ssl.SSLContext
    if settings.server_name:
        named = _ServerNameContext(ssl.PROTOCOL_TLS_CLIENT)
        named.server_name = settings.server_name
        context = named
    else:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.verify_mode = ssl.CERT_REQUIRED
    context.check_hostname = True
    ca = resolve(settings.ca_file)
    try:
        context.load_verify_locations(cafile=str(ca))
    except (OSError, ssl.SSLError) as exc:
        raise ValueError(
            f"broker.tls.ca_file: a readable PEM CA certificate expected, "
            f"found {str(ca)!r} ({_why(exc)})"
        ) from exc
    if settings.key_file is not None and settings.cert_file is None:
        raise ValueError(
            "broker.tls.key_file: only with cert_file expected, found a key_file without a "
            "cert_file"
        )
    if settings.cert_file is not None:
        cert = resolve(settings.cert_file)
        key = resolve(settings.key_file) if settings.key_file is not None else None
        try:
            # An encrypted key would make OpenSSL prompt on the terminal: refuse it instead.
            context.load_cert_chain(
                str(cert), str(key) if key is not None else None, password=lambda: b""
            )
        except (OSError, ssl.SSLError) as exc:
            where = "broker.tls.cert_file" + (" / broker.tls.key_file" if key else "")
            files = f"{str(cert)!r}" + (f" and {str(key)!r}" if key else "")
            raise ValueError(
                f"{where}: a readable PEM client certificate and its matching private key "
                f"(unencrypted) expected, found {files} ({_why(exc)})"
            ) from exc
    return context


def _why(exc: OSError | ssl.SSLError) -> str:
    if isinstance(exc, ssl.SSLError):
        return exc.reason or str(exc)
    return exc.strerror or str(exc)
