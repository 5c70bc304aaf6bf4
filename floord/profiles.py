"""Device profiles: one versioned YAML file per device model in `device_profiles/`.

A profile says how to reach a model (serial settings), how long to wait for it
(timeouts), which driver and simulator speak its protocol, and its quirks. Loading is
strict: an unknown key is an error that names the file and the key, because a typo in
a timeout must never silently fall back to a default on a regulated table.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

PROFILE_SPEC_VERSION = 1
PROFILES_DIR = Path(__file__).resolve().parent.parent / "device_profiles"


class ProfileError(ValueError):
    """A profile that cannot be used; the message names the file, the key and the fault."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SerialSettings(_Strict):
    """RS-232 settings; ignored for `socket://` ports."""

    baudrate: int = Field(gt=0)
    bytesize: Literal[5, 6, 7, 8] = 8
    parity: Literal["N", "E", "O", "M", "S"] = "N"
    stopbits: Literal[1, 1.5, 2] = 1
    flow_control: Literal["none", "rtscts", "xonxoff"] = "none"


class Timeouts(_Strict):
    """How long the adapter waits, in seconds of the device's real clock."""

    silence_s: float = Field(gt=0, description="no byte for this long: device.offline")
    connect_s: float = Field(gt=0, description="opening the port and identifying")
    reply_s: float = Field(gt=0, description="a reply to one host command")
    power_on_quiet_s: float = Field(ge=0, description="the device may say nothing this long")
    reconnect_min_s: float = Field(gt=0)
    reconnect_max_s: float = Field(gt=0)


class DeviceProfile(_Strict):
    """One device model, as read from `device_profiles/<model>.yaml`."""

    spec: int
    model: str
    maker: str
    name: str
    family: Literal["roulette_wheel"]
    driver: str
    simulator: str
    serial: SerialSettings
    timeouts: Timeouts
    quirks: dict[str, Any] = Field(default_factory=dict)

    @field_validator("spec")
    @classmethod
    def _known_spec(cls, value: int) -> int:
        if value != PROFILE_SPEC_VERSION:
            raise ValueError(f"spec {PROFILE_SPEC_VERSION} expected, found {value}")
        return value


def profile_path(name: str, directory: Path | None = None) -> Path:
    """Where the profile called `name` lives (a bare name, or a path to a .yaml file)."""
    candidate = Path(name)
    if candidate.suffix in (".yaml", ".yml"):
        return candidate
    return (directory or PROFILES_DIR) / f"{name}.yaml"


def available_profiles(directory: Path | None = None) -> list[str]:
    return sorted(p.stem for p in (directory or PROFILES_DIR).glob("*.yaml"))


def load_profile(name: str, directory: Path | None = None) -> DeviceProfile:
    """Read and validate a profile; raise `ProfileError` naming file, key and fault."""
    path = profile_path(name, directory)
    if not path.is_file():
        known = ", ".join(available_profiles(directory)) or "none"
        raise ProfileError(f"{path}: profile {name!r} not found (known: {known})")
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise ProfileError(f"{path}: not valid YAML: {exc}") from exc
    if not isinstance(raw, dict):
        raise ProfileError(f"{path}: a mapping expected, found {type(raw).__name__}")
    try:
        return DeviceProfile.model_validate(raw)
    except ValidationError as exc:
        lines = []
        for err in exc.errors():
            key = ".".join(str(p) for p in err["loc"]) or "(top)"
            found = err.get("input")
            if err["type"] == "extra_forbidden":
                lines.append(f"{path}: {key}: unknown key, found {found!r}")
            else:
                lines.append(f"{path}: {key}: {err['msg']}, found {found!r}")
        raise ProfileError("\n".join(lines)) from exc
