"""The web console's config file: where it listens, whom it lets in, which broker it reads.

A surveillance host is not a table box, so the console has a file of its own; its
`broker:` section is a table box's (`floord.config.broker.BrokerConfig`: `url` or `urls`
for a cluster's failover, the surveillance login, `tls`). Fail closed: an address other
than loopback needs the console's own TLS (a password or a floor's state never crosses a
network in the clear) and a way to know the viewer (a password file or client
certificates); anonymous viewing is allowed on loopback only.

`archive:` names the floor's archive (`floord archive`'s database) in the form `floord
report --archive` takes, for the History page and the acknowledgements it keeps; it is
only ever read. Its form is checked here, not whether it answers: an archive that is
down makes the History page say so, it does not stop the live console.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from pathlib import Path

from pydantic import Field, ValidationError, model_validator

from floord.archive.reader import ArchiveError, check_archive_url
from floord.config.broker import BrokerConfig
from floord.config.tables import StrictModel
from floord.problem_lines import validation_problems
from floord.yaml_files import read_yaml

DEFAULT_LISTEN = "127.0.0.1:8640"


class WebConfigError(ValueError):
    """A config that cannot be used: `problems` are one line each, naming file and key."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


class WebTLSConfig(StrictModel):
    """`tls`: the console's HTTPS certificate and key; `client_ca_file` makes every
    browser present a certificate that CA signed (the viewer is its common name)."""

    cert_file: Path
    key_file: Path | None = None
    client_ca_file: Path | None = None


class ReplayAs(StrictModel):
    """`replay_as`: the operator whose key signs the console's `replay` requests (a gap
    in a table's record is filled from the table). Without it a gap stays shown."""

    operator: str = Field(min_length=1, max_length=128)
    key_file: Path


class CommandLoginConfig(StrictModel):
    """`command_login`: the broker login that forwards the browsers' signed commands
    (`floord acl`'s operator-client login: publishes `P/cmd`, reads `P/cmd/result`), on
    the same nodes and TLS as `broker`. Without it commands go over `broker`'s login."""

    username: str = Field(min_length=1)
    password_file: Path


class WebConfig(StrictModel):
    listen: str = DEFAULT_LISTEN
    broker: BrokerConfig
    sites: list[str] | None = None
    tls: WebTLSConfig | None = None
    passwords: Path | None = None
    anonymous: bool = False
    replay_as: ReplayAs | None = None
    command_login: CommandLoginConfig | None = None
    # How long a signed-in browser stays signed in.
    session_hours: float = Field(default=12.0, gt=0, le=168)
    # The floor's archive, read-only: postgresql://..., sqlite:///PATH or a file's path.
    archive: str | None = None

    @model_validator(mode="after")
    def _sites(self) -> WebConfig:
        if self.sites is not None and not self.sites:
            raise ValueError("sites: a list of one or more site ids expected, found none")
        return self


@dataclass(frozen=True)
class Listen:
    host: str
    port: int

    @property
    def loopback(self) -> bool:
        return ipaddress.ip_address(self.host).is_loopback


def parse_listen(text: str) -> Listen:
    """`HOST:PORT` (`[::1]:8640` for IPv6) with an IP address or localhost; ValueError."""
    host, sep, port_text = text.rpartition(":")
    if not sep or not host or not port_text.isdigit() or not 0 <= int(port_text) <= 65535:
        raise ValueError(f"HOST:PORT such as {DEFAULT_LISTEN} expected, found {text!r}")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if host == "localhost":
        host = "127.0.0.1"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        raise ValueError(
            f"an IP address or localhost expected as the host, found {text!r}"
        ) from None
    return Listen(str(address), int(port_text))


@dataclass(frozen=True)
class LoadedWebConfig:
    path: Path
    config: WebConfig
    listen: Listen

    def resolve(self, path: Path) -> Path:
        """A path of the config, relative to the config's own directory."""
        return path if path.is_absolute() else self.path.parent / path

    @property
    def archive_url(self) -> str | None:
        """The archive as the reader opens it: a SQLite file's relative path is taken
        from the config's directory (`archive` was checked at load)."""
        url = self.config.archive
        if url is None or check_archive_url(url) is None:
            return url
        if url.startswith("sqlite:"):
            return url
        return str(self.resolve(Path(url)))


def access_problems(path: Path, config: WebConfig, listen: Listen) -> list[str]:
    """Who may view, checked against where the console listens."""
    problems = []
    ways = config.passwords is not None or (
        config.tls is not None and config.tls.client_ca_file is not None
    )
    if not listen.loopback:
        if config.tls is None:
            problems.append(
                f"{path}: tls: a certificate (cert_file, key_file) expected on {config.listen!r}, "
                "an address other than loopback, found none"
            )
        if config.anonymous:
            problems.append(
                f"{path}: anonymous: false expected on {config.listen!r}: anonymous viewing "
                "is allowed on a loopback address only"
            )
        if not ways:
            problems.append(
                f"{path}: passwords: a password file (or tls.client_ca_file) expected on "
                f"{config.listen!r}, an address other than loopback, found neither"
            )
    elif not ways and not config.anonymous:
        problems.append(
            f"{path}: passwords: a password file, tls.client_ca_file or anonymous: true "
            "expected (who may view the floor), found none"
        )
    return problems


def load_web_config(path: Path) -> LoadedWebConfig:
    """Read and check the console's config; raises WebConfigError (one line a problem)."""
    try:
        raw = read_yaml(path)
    except (OSError, ValueError) as exc:
        raise WebConfigError([f"{path}: {getattr(exc, 'strerror', None) or exc}"]) from None
    if not isinstance(raw, dict):
        raise WebConfigError([f"{path}: (top): a mapping of settings expected"])
    try:
        config = WebConfig.model_validate(raw)
    except ValidationError as exc:
        raise WebConfigError(validation_problems(path, exc)) from None
    try:
        listen = parse_listen(config.listen)
    except ValueError as exc:
        raise WebConfigError([f"{path}: listen: {exc}"]) from None
    problems = access_problems(path, config, listen)
    if config.archive is not None:
        try:
            check_archive_url(config.archive)
        except ArchiveError as exc:
            problems.append(f"{path}: archive: {exc}")
    loaded = LoadedWebConfig(path, config, listen)
    for key, file in _files(config):
        where = loaded.resolve(file)
        if not where.is_file():
            problems.append(f"{path}: {key}: a readable file expected, found {str(where)!r}")
    if problems:
        raise WebConfigError(problems)
    return loaded


def _files(config: WebConfig) -> list[tuple[str, Path]]:
    files = []
    if config.passwords is not None:
        files.append(("passwords", config.passwords))
    if config.tls is not None:
        files.append(("tls.cert_file", config.tls.cert_file))
        if config.tls.key_file is not None:
            files.append(("tls.key_file", config.tls.key_file))
        if config.tls.client_ca_file is not None:
            files.append(("tls.client_ca_file", config.tls.client_ca_file))
    if config.replay_as is not None:
        files.append(("replay_as.key_file", config.replay_as.key_file))
    if config.command_login is not None:
        files.append(("command_login.password_file", config.command_login.password_file))
    if config.broker.password_file is not None:
        files.append(("broker.password_file", config.broker.password_file))
    return files
