"""The installed driver families as the catalogue and contract tests see them: every
profile of every family (floord's own and any plugin installed beside it), and a
plugin's golden frames read from the file its family names (docs/plugins.md).

Run under a venv with a plugin installed (tests/test_plugins_system.py), the same tests
hold the plugin to the standard floord's own families meet.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

import drivers
from floord.contract import EventType
from floord.driver_families import DriverFamily, installed_families
from floord.profiles import DeviceProfile, load_profile

ROOT = Path(__file__).resolve().parents[1]
# (now, bytes fed, the event types they must give), in order, on a fresh driver.
Golden = list[tuple[float, bytes, list[EventType]]]


def family_of(profile: DeviceProfile) -> DriverFamily:
    """The installed family whose driver the profile names (its old names too)."""
    name = drivers.RENAMED.get(profile.driver, profile.driver)
    return installed_families()[name.split(".", 1)[0]]


def family_profiles() -> list[tuple[str, str]]:
    """(family, profile name) for each profile in each family's folder that names that
    family's driver, sorted; a family's folder may be shared (floord's own three)."""
    found: set[tuple[str, str]] = set()
    for family in installed_families().values():
        if family.profiles is None:
            continue
        for path in family.profiles.glob("*.yaml"):
            if family_of(load_profile(str(path))).name == family.name:
                found.add((family.name, path.stem))
    return sorted(found)


def is_floords_own(family: DriverFamily) -> bool:
    """A family of floord's own package (its drivers under `drivers`)."""
    return family.drivers.split(".", 1)[0] == "drivers"


def profile_names() -> list[str]:
    """Every installed family's profile names, each once."""
    return sorted({name for _, name in family_profiles()})


def plugin_golden(profile: DeviceProfile) -> tuple[dict[str, Any], Golden] | None:
    """The golden frames of `profile` from its family's golden file, with the driver's
    options; None for a family without one (floord's own: its tests hold them)."""
    family = family_of(profile)
    if family.golden is None:
        assert is_floords_own(family), f"{family.origin}: the family names no golden file"
        return None
    cases = yaml.safe_load(family.golden.read_text(encoding="utf-8"))
    [case] = [c for c in cases if c["profile"] == profile.model] or [None]
    assert case is not None, f"{family.golden}: no golden case for profile {profile.model}"
    steps = [
        (float(s["now"]), s["send"].encode("latin-1"), [EventType(t) for t in s["events"]])
        for s in case["steps"]
    ]
    return dict(case.get("options") or {}), steps


def protocol_documents(family: DriverFamily) -> list[Path]:
    """Its protocol documents as files: a plugin's as installed, floord's own in its tree."""
    return [Path(doc) if Path(doc).is_absolute() else ROOT / doc for doc in family.protocols]


def family_scenarios() -> list[tuple[str, Path]]:
    """(family, scenario file) for each scenario a family ships (`DriverFamily.scenarios`);
    floord's own families ship none (the simulators' packaged scenarios are floord's)."""
    return sorted(
        (family.name, path)
        for family in installed_families().values()
        if family.scenarios is not None
        for path in family.scenarios.glob("*.yaml")
    )
