"""The broker and operator sections of a config: where the box publishes, who may command.

Apart from `floord/config/load.py` so that the secrets' cross-checks (`config_secrets.py`),
which read these sections, do not import the whole config that calls them.
"""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import AwareDatetime, Field, field_validator

from floord.config.ports import broker_url_problem
from floord.config.tables import ID_PATTERN, StrictModel
from floord.contract import DEFAULT_TOPIC_PREFIX, Role

_TOPIC_LEVEL = re.compile(r"^[^/+#\s]+$")


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
    url: str = Field(pattern=r"^mqtts?://[^/:]+(:\d{1,5})?/?$")
    username: str | None = None
    password_file: Path | None = None
    topic_prefix: str = DEFAULT_TOPIC_PREFIX
    keepalive_s: int = Field(default=10, ge=2, le=600)
    tls: BrokerTLSConfig | None = None

    @field_validator("url")
    @classmethod
    def _url(cls, value: str) -> str:
        problem = broker_url_problem(value)
        if problem:
            raise ValueError(f"an mqtt[s]://HOST[:PORT] url with {problem}")
        return value

    @field_validator("topic_prefix")
    @classmethod
    def _prefix(cls, value: str) -> str:
        if not value or any(not _TOPIC_LEVEL.match(p) for p in value.split("/")):
            raise ValueError("MQTT topic levels without '+', '#', spaces or empty levels")
        return value

    @property
    def secure(self) -> bool:
        """The URL is mqtts:// (TLS); the `tls` section says how."""
        return self.url.startswith("mqtts://")

    @property
    def host(self) -> str:
        return self.url.split("://", 1)[1].rstrip("/").rsplit(":", 1)[0]

    @property
    def port(self) -> int:
        rest = self.url.split("://", 1)[1].rstrip("/")
        if ":" in rest:
            return int(rest.rsplit(":", 1)[1])
        return 8883 if self.secure else 1883


class OperatorConfig(StrictModel):
    """An operator and their command-signing key; during a key rotation also the key
    being retired, still accepted until `previous_key_expires` (docs/security.md)."""

    id: str = Field(pattern=ID_PATTERN)
    role: Role
    key_file: Path
    previous_key_file: Path | None = None
    previous_key_expires: AwareDatetime | None = None
