"""The broker and operator sections of a config: where the box publishes, who may command.

Apart from `floord/config/load.py` so that the secrets' cross-checks (`config_secrets.py`),
which read these sections, do not import the whole config that calls them.
"""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import AwareDatetime, Field, field_validator, model_validator

from floord.config.ports import broker_url_problem
from floord.config.tables import ID_PATTERN, StrictModel
from floord.contract import DEFAULT_TOPIC_PREFIX, Role

_TOPIC_LEVEL = re.compile(r"^[^/+#\s]+$")
_URL = re.compile(r"^mqtts?://[^/:]+(:\d{1,5})?/?$")


def _url_problem(value: str) -> str | None:
    """What is wrong with one broker URL (its shape, host and port), or None."""
    if not _URL.match(value):
        return "not of that shape"
    return broker_url_problem(value)


class BrokerTLSConfig(StrictModel):
    """`broker.tls` for an mqtts:// broker (`floord.mqtt.tls.client_tls` builds on it).

    `ca_file` is the floor's CA that signed the broker's certificate; `cert_file` and
    `key_file` are this box's own certificate and key, for a broker that requires client
    certificates (`key_file` may be left out when `cert_file` holds the key too);
    `server_name` is the name in the broker's certificate when the URL's host differs.
    """

    ca_file: Path
    cert_file: Path | None = None
    key_file: Path | None = None
    server_name: str | None = Field(default=None, min_length=1)


class BrokerConfig(StrictModel):
    """`broker`: one broker (`url`) or the nodes of a broker cluster (`urls`, tried in
    order, then round-robin with back-off: `floord.mqtt.client.NodeRing`). Exactly one of
    the two; the login and `tls` settings are the same on every node, so every URL has
    the same scheme."""

    url: str | None = None
    urls: list[str] | None = None
    username: str | None = None
    password_file: Path | None = None
    topic_prefix: str = DEFAULT_TOPIC_PREFIX
    keepalive_s: int = Field(default=10, ge=2, le=600)
    tls: BrokerTLSConfig | None = None

    @field_validator("url")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        problem = _url_problem(value) if value is not None else None
        if problem:
            raise ValueError(f"an mqtt[s]://HOST[:PORT] url expected, found {value!r}: {problem}")
        return value

    @field_validator("urls")
    @classmethod
    def _urls(cls, value: list[str] | None) -> list[str] | None:
        if value is None:
            return None
        if not value:
            raise ValueError(
                "a list of one or more mqtt[s]://HOST[:PORT] urls expected, found none"
            )
        problems = [
            f"{url!r} (item {i}): {problem}"
            for i, url in enumerate(value)
            if (problem := _url_problem(url))
        ]
        if problems:
            raise ValueError("mqtt[s]://HOST[:PORT] urls expected, found " + "; ".join(problems))
        if len({url.split("://", 1)[0] for url in value}) > 1:
            raise ValueError(
                "every url mqtt:// or every url mqtts:// (the tls settings apply to every "
                "node) expected, found both"
            )
        if twice := sorted({url for url in value if value.count(url) > 1}):
            raise ValueError(f"each node once expected, found {twice[0]!r} twice")
        return value

    @model_validator(mode="after")
    def _one_of(self) -> BrokerConfig:
        if (self.url is None) == (self.urls is None):
            found = "both" if self.url is not None else "neither"
            raise ValueError(
                f"exactly one of broker.url (one broker) or broker.urls (the nodes of a "
                f"cluster) expected, found {found}"
            )
        return self

    @property
    def nodes(self) -> tuple[str, ...]:
        """The broker URLs in the order they are tried: `urls`, or the one `url`."""
        if self.urls is not None:
            return tuple(self.urls)
        return (self.url,) if self.url is not None else ()

    @property
    def where(self) -> str:
        """The broker(s), for a message: the one URL, or the nodes joined by commas."""
        return ", ".join(self.nodes)

    @field_validator("topic_prefix")
    @classmethod
    def _prefix(cls, value: str) -> str:
        if not value or any(not _TOPIC_LEVEL.match(p) for p in value.split("/")):
            raise ValueError(
                f"MQTT topic levels without '+', '#', spaces or empty levels expected, "
                f"found {value!r}"
            )
        return value

    @property
    def secure(self) -> bool:
        """The URLs are mqtts:// (TLS); the `tls` section says how."""
        return self.nodes[0].startswith("mqtts://")


class OperatorConfig(StrictModel):
    """An operator and their command-signing key; during a key rotation also the key
    being retired, still accepted until `previous_key_expires` (docs/security.md)."""

    id: str = Field(pattern=ID_PATTERN)
    role: Role
    key_file: Path
    previous_key_file: Path | None = None
    previous_key_expires: AwareDatetime | None = None
