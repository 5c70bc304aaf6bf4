"""Device profiles: one versioned YAML file per device model in `device_profiles/` (and in
each installed driver family's own folder, `floord.driver_families`).

A profile says how to reach a model (serial settings), how long to wait for it
(timeouts), which driver and simulator speak its protocol, and its quirks. Loading is
strict: an unknown key is an error that names the file and the key, because a typo in
a timeout must never silently fall back to a default on a regulated table.

This module reads one profile and knows the packaged folder; a box looks a name up
through `floord.profile_sources`, which puts the site's profiles before these.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from floord.driver_families import DriverFamilyError, family_profile_dirs, module_of
from floord.problem_lines import did_you_mean, one_of, validation_problems
from floord.yaml_files import YamlFileError, read_yaml, top_found

ModelT = TypeVar("ModelT", bound=BaseModel)

PROFILE_SPEC_VERSION = 1
# The `device_profiles` package's folder, wherever floord is installed (a wheel, an sdist
# or an editable install): the profiles are package data, not files beside the source.
PROFILES_DIR = Path(str(resources.files("device_profiles")))


class ProfileError(ValueError):
    """A profile that cannot be used; the message names the file, the key and the fault."""


class ProfileNotFound(ProfileError):
    """No profile of that name (or no file at that path): the names known, and the one
    a typo most likely meant, for a config's message to say in its own words."""

    def __init__(self, name: str, path: Path, known: list[str]) -> None:
        self.name, self.path, self.known = name, path, known
        self.is_path = Path(name).suffix in (".yaml", ".yml")
        self.hint = "" if self.is_path else did_you_mean(name, known)
        super().__init__(f"{path}: profile {name!r} not found ({self.expected()}){self.hint}")

    def found(self) -> str:
        """The name given, and the known name it likely misspells (a path: no such file)."""
        return f"{self.name!r} (no such file)" if self.is_path else f"{self.name!r}{self.hint}"

    def expected(self) -> str:
        """What a profile name may be: a known name, or the path of a profile file."""
        return f"{one_of([*self.known, 'the path of a .yaml profile'])} expected"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SerialSettings(_Strict):
    """RS-232 settings; ignored for `socket://` ports."""

    baudrate: int = Field(gt=0)
    bytesize: Literal[5, 6, 7, 8] = 8
    parity: Literal["N", "E", "O", "M", "S"] = "N"
    # pydantic checks a float in a Literal; the typing spec allows none, hence the ignore.
    stopbits: Literal[1, 1.5, 2] = 1  # type: ignore[valid-type]
    flow_control: Literal["none", "rtscts", "xonxoff"] = "none"


class Timeouts(_Strict):
    """How long the adapter waits, in seconds of the device's real clock."""

    silence_s: float = Field(gt=0, description="no byte for this long: device.offline")
    connect_s: float = Field(gt=0, description="opening the port and identifying")
    reply_s: float = Field(gt=0, description="a reply to one host command")
    power_on_quiet_s: float = Field(ge=0, description="the device may say nothing this long")
    reconnect_min_s: float = Field(gt=0)
    reconnect_max_s: float = Field(gt=0)
    heartbeat_loss_beats: int = Field(
        default=3,
        ge=1,
        le=60,
        strict=True,
        description="FLF/1 devices: this many heartbeats missed in a row is "
        "device.heartbeat_lost, which halts the table (docs/protocols/framing.md)",
    )


class ProtocolErrorPolicy(_Strict):
    """How many `device.protocol_error`s a device may put on the record (floord's policy).

    A noisy line (a cable, a wrong baud rate, someone pouring bytes into it) must cost
    bounded disk and must not go unnoticed: the adapter records the first error of each
    kind, counts the rest in one `device.protocol_errors` per `interval_s`, and reports
    `fault_after` errors within one interval as a `device.fault` (docs/journal.md).
    """

    interval_s: float = Field(default=60.0, gt=0, le=3600, strict=True)
    kinds: int = Field(
        default=8,
        ge=1,
        le=100,
        strict=True,
        description="errors of this many kinds are recorded one by one in a noisy spell",
    )
    fault_after: int = Field(default=30, ge=1, le=1_000_000, strict=True)


class DeviceProfile(_Strict):
    """One device model, as read from `device_profiles/<model>.yaml`."""

    spec: int
    model: str
    maker: str
    name: str
    family: Literal[
        "roulette_wheel",
        "card_reader",
        "dealing_shoe",
        "card_shuffler",
        "big_six_wheel",
        "dice_tracker",
    ]
    driver: str
    simulator: str
    serial: SerialSettings
    timeouts: Timeouts
    protocol_errors: ProtocolErrorPolicy = Field(default_factory=ProtocolErrorPolicy)
    quirks: dict[str, Any] = Field(default_factory=dict)

    @field_validator("spec")
    @classmethod
    def _known_spec(cls, value: int) -> int:
        if value != PROFILE_SPEC_VERSION:
            raise ValueError(f"spec {PROFILE_SPEC_VERSION} expected, found {value}")
        return value

    # What a game asks of a device, by name, rather than by a key of its quirks: absent
    # or false in the profile, the device cannot.
    @property
    def reports_cards(self) -> bool:
        """A shoe that reads each card's rank and suit as it is drawn (`recognition`)."""
        return bool(self.quirks.get("recognition"))

    @property
    def double_shoe(self) -> bool:
        """A shoe of two sides, left and right (`double`, § 549.3(c))."""
        return bool(self.quirks.get("double"))

    @property
    def exposes_value(self) -> bool:
        """A card reader that reports the hole card's value, not only Blackjack or not."""
        return bool(self.quirks.get("exposes_value"))

    @property
    def dice(self) -> int | None:
        """The dice a dice device reads in each throw (`dice`); None when not a count."""
        dice = self.quirks.get("dice")
        return dice if isinstance(dice, int) and not isinstance(dice, bool) else None


def module_path(package: str, key: str, renamed: Mapping[str, str], name: str) -> str:
    """The module a profile's `key:` name means: `<family>.<module>` (or its new home in
    `renamed`) is `<module>` under that installed driver family's `package` (`drivers` or
    `simulators`: `floord.driver_families`).

    One rule for `driver:` and `simulator:`, which may not import each other. A name must
    be a dotted module path, never a file path.
    """
    return module_of(package, key, renamed.get(name, name))


def profile_dirs() -> list[Path]:
    """Where a profile is looked up by name: the installed driver families' own folders
    (plugins), then floord's packaged one. No name may be in two of them: which settings
    drive a device must not depend on which package was installed (`profile_path`)."""
    return [*family_profile_dirs(exclude=PROFILES_DIR), PROFILES_DIR]


def profile_path(name: str, directory: Path | None = None) -> Path:
    """Where the profile called `name` lives (a bare name, or a path to a .yaml file);
    not found, the packaged folder's path it would have. A name two folders ship is a
    `ProfileError` naming both files."""
    candidate = Path(name)
    if candidate.suffix in (".yaml", ".yml"):
        return candidate
    dirs = [directory] if directory is not None else profile_dirs()
    found = [folder / f"{name}.yaml" for folder in dirs if (folder / f"{name}.yaml").is_file()]
    if len(found) > 1:
        raise ProfileError(
            f"profile {name!r} is shipped twice, by {found[0]} and by {found[1]}: a driver "
            "family may not replace another's profile; uninstall one, or give the profile by path"
        )
    return found[0] if found else dirs[-1] / f"{name}.yaml"


def available_profiles(directory: Path | None = None) -> list[str]:
    dirs = [directory] if directory is not None else profile_dirs()
    return sorted({p.stem for folder in dirs for p in folder.glob("*.yaml")})


def load_profile(name: str, directory: Path | None = None) -> DeviceProfile:
    """Read and validate a profile of floord's or of an installed driver family (or the one
    in `directory`); raise `ProfileError` naming file, key and fault (or the driver family
    plugin that could not be loaded while looking). A box's config looks its names up on
    its profile shelf instead (`floord.profile_sources`: the site's profiles first)."""
    try:
        path = profile_path(name, directory)
        if not path.is_file():
            raise ProfileNotFound(name, path, available_profiles(directory))
    except DriverFamilyError as exc:
        raise ProfileError(str(exc)) from exc
    return load_strict_yaml(path, DeviceProfile, ProfileError)


def load_strict_yaml(path: Path, model: type[ModelT], error: type[Exception]) -> ModelT:
    """Read one YAML mapping into `model`, or raise `error` listing every problem.

    The one loader of floord's strict files that hold a single model (profiles,
    simulator scenarios): the same checks and the same messages everywhere.
    """
    try:
        # floord's own profiles are read by libyaml (`floord.yaml_files`).
        raw = read_yaml(path, shipped=path.parent == PROFILES_DIR)
    except YamlFileError as exc:
        raise error(str(exc)) from exc
    if not isinstance(raw, dict):
        raise error(f"{path}: (top): a mapping expected, found {top_found(raw)}")
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        raise error("\n".join(validation_problems(path, exc))) from exc
