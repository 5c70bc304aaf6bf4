"""The daemon's configuration: one YAML file per table box, validated strictly.

Every problem is reported as `FILE: KEY.PATH: what was expected, what was found`, all of
them at once, so that `floord check` tells a table-games engineer everything that is
wrong with a config before it reaches a regulated table.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import time
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import Field, ValidationError, field_validator

from floord.config.broker import BrokerConfig, OperatorConfig
from floord.config.floor_rules import floor_problems
from floord.config.floor_rules_file import floor_rules_problems
from floord.config.journal_path import journal_problems
from floord.config.metrics import MetricsConfig, metrics_problems
from floord.config.ports import port_problems
from floord.config.problems import config_problems
from floord.config.secrets import (
    broker_problems,
    read_secret,
    read_secret_text,
    rotation_problems,
    secret_problems,
)
from floord.config.tables import GAMES, ID_PATTERN, StrictModel, TableConfig
from floord.config.text import text_problems
from floord.games.definition import devices_by_family
from floord.games.registry import MODULES, config_model, definition_of, dice_setup, live_setup
from floord.operator.commands import OperatorKeys
from floord.profile_sources import ProfileShelf, profile_sources, site_directory
from floord.profiles import ProfileError, ProfileNotFound
from floord.yaml_files import YamlFileError, read_yaml, top_found


class ConfigError(ValueError):
    """A config that cannot be used. `problems` holds one line per fault."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


class NotInConfig(KeyError):
    """A table, operator or device the config does not hold. Its text is the message
    itself: a KeyError's own `str` quotes it again (`"no table 'X' ..."`)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class GamingDayConfig(StrictModel):
    """When the gaming day starts, in the casino's local time (inspections are per day)."""

    starts: time = time(6, 0)
    timezone: str = "UTC"

    @field_validator("starts", mode="before")
    @classmethod
    def _quoted(cls, value: Any) -> Any:
        """Only text: YAML reads an unquoted `6:30` as the number 390 (base 60), which
        pydantic would take as 390 seconds, a gaming day starting at 00:06:30."""
        if isinstance(value, int | float) and not isinstance(value, bool):
            hours, minutes = divmod(int(value), 60)
            meant = f"{hours:02d}:{minutes:02d}"
            raise ValueError(
                f'a time of day in quotes ("06:00") expected, found the number {value} '
                f'(YAML reads an unquoted {hours}:{minutes:02d} as a number: write "{meant}")'
            )
        return value

    @field_validator("timezone")
    @classmethod
    def _zone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise ValueError(
                f"an IANA time zone name such as America/New_York expected, found {value!r}"
            ) from exc
        return value


class SurveillanceConfig(StrictModel):
    """The wheel-integrity tests run live on every wheel table (`docs/analytics.md`)."""

    enabled: bool = True
    window: int = Field(default=1000, ge=100, le=100_000, description="results per test")
    level: float = Field(default=0.001, gt=0, lt=0.5, description="alert below this p-value")
    roulette_sectors: int = Field(default=8, ge=0, le=37)
    big_six_sectors: int = Field(default=6, ge=0, le=54)
    # The dealer signature test: per dealer, release-to-result distances in `dealer_bins`
    # arcs over the last `dealer_window` spins (0 bins: off). Needs a kit that reports
    # the release pocket; see docs/analytics.md.
    dealer_window: int = Field(default=300, ge=40, le=100_000)
    dealer_bins: int = Field(default=8, ge=0, le=37)
    # The shooter signature test of a Craps table: per shooter's seat, totals in
    # `shooter_bins` runs of neighbouring totals over the last `shooter_window` rolls
    # (0 bins: off); `floord check` refuses a window too small for the runs.
    shooter_window: int = Field(default=200, ge=30, le=100_000)
    shooter_bins: int = Field(default=5, ge=0, le=11)

    @field_validator("dealer_bins")
    @classmethod
    def _dealer_cells(cls, value: int, info: Any) -> int:
        """Every arc of distances must expect at least five spins in the window."""
        window = info.data.get("dealer_window")
        if value == 1:
            raise ValueError("0 (off) or from 2 to 37 arcs of distances expected, found 1")
        if value and isinstance(window, int):
            least = min((pockets // value) / pockets for pockets in (37, 38))
            if window * least < 5:
                raise ValueError(
                    f"{value} arcs need a dealer_window of at least {math.ceil(5 / least)} "
                    f"spins (every arc must expect five), found {window}"
                )
        return value


class FloordConfig(StrictModel):
    site: str = Field(pattern=ID_PATTERN)
    broker: BrokerConfig
    journal: Path
    # Prune published events older than this many days (docs/journal.md); None keeps all.
    journal_retention_days: int | None = Field(default=None, ge=1)
    # The facility's floor rules file (`floord.config.floor_rules_file`), relative to this.
    floor_rules: Path | None = None
    # The site's device profiles (docs/configuration.md), relative to this file: they add
    # to the packaged ones and replace those of the same name. Unset: /etc/floord/profiles
    # when it exists.
    site_profiles: Path | None = None
    # A test rig (docs/rigs.md): only then may a device be simulated inside the daemon.
    rig: bool = False
    gaming_day: GamingDayConfig = GamingDayConfig()
    surveillance: SurveillanceConfig = SurveillanceConfig()
    # Prometheus metrics and /healthz (`floord.config.metrics`); absent: off.
    metrics: MetricsConfig | None = None
    operators: list[OperatorConfig] = Field(default_factory=list)
    tables: list[TableConfig] = Field(min_length=1)


@dataclass(frozen=True)
class LoadedConfig:
    """A validated config and where it came from (relative paths resolve against it)."""

    path: Path
    config: FloordConfig

    def resolve(self, path: Path) -> Path:
        return path if path.is_absolute() else (self.path.parent / path)

    @property
    def journal_path(self) -> Path:
        return self.resolve(self.config.journal)

    @property
    def profiles(self) -> ProfileShelf:
        """The device profiles this box uses: its site's first, then the packaged ones."""
        return shelf_of(self.config, self.path)

    def table(self, table_id: str) -> TableConfig:
        for table in self.config.tables:
            if table.id == table_id:
                return table
        known = ", ".join(t.id for t in self.config.tables)
        raise NotInConfig(f"no table {table_id!r} in {self.path} (tables: {known})")

    def operator_key(self, operator_id: str) -> bytes:
        for op in self.config.operators:
            if op.id == operator_id:
                return read_secret(self.resolve(op.key_file))
        raise NotInConfig(f"no operator {operator_id!r} in {self.path}")

    def operator_keys(self, operator_id: str) -> OperatorKeys:
        """The operator's role and keys as command verification needs them (with the
        previous key and its expiry while a rotation is under way)."""
        for op in self.config.operators:
            if op.id == operator_id:
                previous = op.previous_key_file
                return OperatorKeys(
                    role=str(op.role),
                    key=read_secret(self.resolve(op.key_file)),
                    previous_key=read_secret(self.resolve(previous)) if previous else None,
                    previous_expires=op.previous_key_expires if previous else None,
                )
        raise NotInConfig(f"no operator {operator_id!r} in {self.path}")

    def broker_password(self) -> str | None:
        pw = self.config.broker.password_file
        return read_secret_text(self.resolve(pw)) if pw else None


def shelf_of(cfg: FloordConfig, path: Path) -> ProfileShelf:
    """The profile shelf of the config at `path`: `site_profiles` resolved against it."""
    site = cfg.site_profiles
    if site is not None and not site.is_absolute():
        site = path.parent / site
    return ProfileShelf(profile_sources(site_directory(site)))


def _site_problems(cfg: FloordConfig, path: Path) -> list[str]:
    site = cfg.site_profiles
    if site is None or (path.parent / site).is_dir():  # an absolute `site` stays itself
        return []
    return [
        f"{path}: site_profiles: a directory of device profiles expected, "
        f"found {str(site)!r} (no such directory)"
    ]


def _cross_checks(cfg: FloordConfig, path: Path) -> list[str]:
    """What one field cannot know: ids unique, profiles real, secrets readable."""
    problems: list[str] = []

    def dupes(items: list[str], key: str) -> None:
        seen: set[str] = set()
        for i, item in enumerate(items):
            if item in seen:
                problems.append(f"{path}: {key}.{i}.id: a unique id expected, found {item!r} twice")
            seen.add(item)

    dupes([o.id for o in cfg.operators], "operators")
    dupes([t.id for t in cfg.tables], "tables")
    for i, op in enumerate(cfg.operators):
        problems += secret_problems(path, f"operators.{i}.key_file", op.key_file)
        problems += rotation_problems(path, f"operators.{i}", op)
    problems += broker_problems(path, cfg.broker)
    problems += journal_problems(path, "journal", cfg.journal)
    problems += metrics_problems(path, cfg.metrics)
    problems += _site_problems(cfg, path)
    profiles = shelf_of(cfg, path)
    for t, table in enumerate(cfg.tables):
        game = definition_of(table)
        dupes([d.id for d in table.devices], f"tables.{t}.devices")
        profile_problems: list[str] = []
        for d, device in enumerate(table.devices):
            key = f"tables.{t}.devices.{d}"
            try:
                profile = profiles.load(device.profile)
            except ProfileError as exc:
                profile_problems.append(profile_problem(path, f"{key}.profile", exc))
                continue
            if (refused := game.family_problem(table.game, device.id, profile)) is not None:
                profile_problems.append(f"{path}: {key}: {refused}")
            elif (misfit := game.device_check(profile)) is not None:
                profile_problems.append(f"{path}: {key}.profile: {misfit}")
            if device.port is None:  # adapter: remote, its port named on the adapter's box
                continue
            problems += port_problems(path, f"{key}.port", device.port, rig=cfg.rig)
        # The game's own checks: its rules and its device slots (floord/games/<game>.py).
        # A device whose profile is unknown, of a family the game does not take or of the
        # wrong kind is missing from its slot as a consequence: that one mistake is
        # reported once, at the device.
        families = devices_by_family(table, profiles, skip_unloadable=True)
        slots = f"{path}: tables.{t}.devices: "
        game_problems = game.check(table, f"{path}: tables.{t}", families)
        problems += profile_problems + [
            p for p in game_problems if not (profile_problems and p.startswith(slots))
        ]
    problems += _floor_checks(cfg, path)
    return problems + _surveillance_checks(cfg, path)


def profile_problem(path: Path, key: str, exc: ProfileError) -> str:
    """One line for a device's profile that cannot be loaded: an unknown name with the
    known ones (and the likeliest meant), or every fault found in a profile file."""
    if isinstance(exc, ProfileNotFound):
        return f"{path}: {key}: {exc.expected()}, found {exc.found()}"
    faults = "; ".join(line.strip() for line in str(exc).splitlines() if line.strip())
    return f"{path}: {key}: a usable device profile expected, found: {faults}"


def _floor_checks(cfg: FloordConfig, path: Path) -> list[str]:
    """Every table of a kind held to one value, the floor rules file's where one is named
    (`floord.config.floor_rules`)."""
    if cfg.floor_rules is None:
        return floor_problems(cfg.tables, path, None, None)
    floor_path = cfg.floor_rules if cfg.floor_rules.is_absolute() else path.parent / cfg.floor_rules
    floor, problems = floor_rules_problems(floor_path)
    if floor is None:
        return problems
    return floor_problems(cfg.tables, path, floor, floor_path)


def _surveillance_checks(cfg: FloordConfig, path: Path) -> list[str]:
    """The live wheel and dice tests must be buildable for every table the daemon will run
    (a window too small for a test's rarest cell would otherwise stop it at start). The
    dice tests' code is imported for a table that runs them (`dice` not None) alone, as
    the daemon does (`floord.processes.table_watchers`)."""
    from floord.table.surveillance import TableSurveillance

    settings = cfg.surveillance
    if not settings.enabled:
        return []
    problems = []
    for table in cfg.tables:
        try:
            dice = dice_setup(table, settings)
            if dice is not None:
                from floord.table.dice_surveillance import DiceSurveillance

                DiceSurveillance(dice)
            setup = live_setup(table, settings)
            if setup is None:
                continue
            TableSurveillance(setup)
        except ValueError as exc:
            problems.append(
                f"{path}: surveillance: settings that fit table {table.id!r} "
                f"({table.game}) expected: {exc}"
            )
    return problems


def named_games(raw: dict[str, Any]) -> frozenset[str]:
    """The games the file's tables name, whose models alone validate it; every game when
    a table names none or one floord does not know, so the message lists them all."""
    tables = raw.get("tables")
    if not isinstance(tables, list):
        return frozenset(GAMES)
    named = [t.get("game") if isinstance(t, dict) else None for t in tables]
    if not named or not all(isinstance(g, str) and g in MODULES for g in named):
        return frozenset(GAMES)
    return frozenset(str(g) for g in named)


def load_config(path: Path | str) -> LoadedConfig:
    """Read and validate a config file; raise `ConfigError` listing every problem."""
    path = Path(path)
    try:
        raw = read_yaml(path)
    except YamlFileError as exc:
        raise ConfigError([str(exc)]) from exc
    if not isinstance(raw, dict):
        raise ConfigError(
            [f"{path}: (top): a mapping of the config's keys expected, found {top_found(raw)}"]
        )
    if problems := text_problems(path, raw):
        raise ConfigError(problems)
    model = config_model(FloordConfig, named_games(raw))
    try:
        cfg = model.model_validate(raw)
    except ValidationError as exc:
        # The game names the table's kind; it is not a key in the file, so leave it out.
        raise ConfigError(config_problems(path, exc, model, drop=GAMES)) from exc
    assert isinstance(cfg, FloordConfig)
    problems = _cross_checks(cfg, path)
    if problems:
        raise ConfigError(problems)
    return LoadedConfig(path=path.resolve(), config=cfg)
