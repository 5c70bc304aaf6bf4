"""`floord archive`'s own config file: the broker, the sites, the database, the signer.

    broker: {url | urls, username, password_file, topic_prefix, tls}   # as a box's
    sites: [casino-1]            # optional: every site under the prefix when left out
    database: postgresql://floord_archive@db.example/floord_archive    # optional
    database_password_file: db.password                              # optional
    sqlite: archive.db           # the file when no `database` is given
    operator: {id: ARCHIVE-1, key_file: archive.key}   # signs the replay requests
    client_id: floord-archive    # the persistent MQTT session the broker keeps
    acknowledge: stored          # PUBACK once committed (or `received`)
    batch: {events: 100, ms: 200}
    replay: {grace_s: 1.0, retry_s: 10.0, max_outstanding: 16}

Strict like every floord config: an unknown key, a bad URL or an unreadable secret is one
line naming the file, the key and what was expected. Relative paths are taken from the
config's own directory.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import Field, ValidationError, field_validator

from floord.archive.postgres import SCHEMES
from floord.config.broker import BrokerConfig
from floord.config.load import ConfigError, read_secret
from floord.config.secrets import read_secret_text, secret_problems
from floord.config.tables import ID_PATTERN, StrictModel
from floord.mqtt.tls import client_tls
from floord.problem_lines import validation_problems
from floord.yaml_files import YamlFileError, read_yaml

_TOPIC_LEVEL = re.compile(r"^[^/+#\s]+$")
_CLIENT_ID = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")


class SignerConfig(StrictModel):
    """The operator whose key signs the archive's `replay` requests: one every box lists
    in its `operators` (any role may ask for a replay)."""

    id: str = Field(pattern=ID_PATTERN)
    key_file: Path


class BatchConfig(StrictModel):
    """A commit holds up to `events` events, or what came within `ms` of its first."""

    events: int = Field(default=100, ge=1, le=10_000)
    ms: float = Field(default=200.0, gt=0, le=5000)


class ReplayConfig(StrictModel):
    """A gap is asked for after `grace_s` (its events may be on their way), asked again
    after `retry_s` while unfilled; at most `max_outstanding` requests at once."""

    grace_s: float = Field(default=1.0, ge=0, le=600)
    retry_s: float = Field(default=10.0, gt=0, le=3600)
    max_outstanding: int = Field(default=16, ge=1, le=1000)


class ArchiveConfig(StrictModel):
    broker: BrokerConfig
    sites: list[str] | None = Field(default=None, min_length=1)
    database: str | None = None
    database_password_file: Path | None = None
    sqlite: Path = Path("archive.db")
    operator: SignerConfig
    client_id: str = "floord-archive"
    # `stored`: each event acknowledged to the broker once committed (nothing taken is
    # lost to a crash); `received`: at receipt, for a broker that holds its other
    # clients back while one acknowledges (the demo's embedded amqtt).
    acknowledge: Literal["stored", "received"] = "stored"
    batch: BatchConfig = BatchConfig()
    replay: ReplayConfig = ReplayConfig()

    @field_validator("sites")
    @classmethod
    def _sites(cls, value: list[str] | None) -> list[str] | None:
        for site in value or []:
            if not _TOPIC_LEVEL.match(site):
                raise ValueError(
                    f"site names without '/', '+', '#' or spaces expected, found {site!r}"
                )
        return value

    @field_validator("database")
    @classmethod
    def _database(cls, value: str | None) -> str | None:
        if value is not None:
            parts = urlsplit(value)
            if parts.scheme not in SCHEMES or not (parts.hostname or parts.query):
                raise ValueError(
                    f"a postgresql://USER@HOST[:PORT]/DATABASE url expected, found {value!r} "
                    "(leave it out for the SQLite file `sqlite`)"
                )
        return value

    @field_validator("client_id")
    @classmethod
    def _client_id(cls, value: str) -> str:
        if not _CLIENT_ID.match(value):
            raise ValueError(f"1 to 64 letters, digits, '.', '_' or '-' expected, found {value!r}")
        return value


@dataclass(frozen=True)
class LoadedArchive:
    """A validated archive config and where it came from."""

    path: Path
    config: ArchiveConfig

    def resolve(self, path: Path) -> Path:
        return path if path.is_absolute() else (self.path.parent / path)

    @property
    def sqlite_path(self) -> Path:
        return self.resolve(self.config.sqlite)

    def broker_password(self) -> str | None:
        pw = self.config.broker.password_file
        return read_secret_text(self.resolve(pw)) if pw else None

    def database_password(self) -> str | None:
        pw = self.config.database_password_file
        return read_secret_text(self.resolve(pw)) if pw else None

    def signer_key(self) -> bytes | None:
        op = self.config.operator
        return read_secret(self.resolve(op.key_file)) if op is not None else None

    def topics(self) -> list[str]:
        """What the archive subscribes to: every table's record, its replays and its
        devices' streams, and the retained state (its record's head)."""
        prefix = self.config.broker.topic_prefix
        sites = self.config.sites or ["+"]
        suffixes = ("events", "replay", "state", "cmd/result", "devices/+/events")
        return [f"{prefix}/{site}/+/{suffix}" for site in sites for suffix in suffixes]


def load_archive_config(path: Path | str) -> LoadedArchive:
    """Read and check the archive's config; `ConfigError` lists every problem."""
    path = Path(path)
    try:
        raw: Any = read_yaml(path)
    except YamlFileError as exc:
        raise ConfigError([str(exc)]) from exc
    if not isinstance(raw, dict):
        raise ConfigError([f"{path}: (top): a mapping of the archive's keys expected"])
    try:
        cfg = ArchiveConfig.model_validate(raw)
    except ValidationError as exc:
        raise ConfigError(validation_problems(path, exc)) from exc
    loaded = LoadedArchive(path.resolve(), cfg)
    problems: list[str] = []
    if cfg.broker.password_file is not None:
        problems += secret_problems(
            path, "broker.password_file", cfg.broker.password_file, text=True
        )
    if cfg.database_password_file is not None:
        problems += secret_problems(
            path, "database_password_file", cfg.database_password_file, text=True
        )
    if cfg.operator is not None:
        problems += secret_problems(path, "operator.key_file", cfg.operator.key_file)
    if cfg.database_password_file is not None and cfg.database is None:
        problems.append(
            f"{path}: database_password_file: a postgresql `database` expected with it, found none"
        )
    try:
        client_tls(cfg.broker, loaded.resolve)
    except ValueError as exc:
        problems.append(f"{path}: {exc}")
    if problems:
        raise ConfigError(problems)
    return loaded
