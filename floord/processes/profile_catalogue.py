"""A site profile held to the standard of the packaged ones, before it reaches a table.

`floord profiles check FILE` runs what the suite's catalogue tests run on every packaged
profile (`tests/test_device_catalogue.py`, `tests/test_profile_module_names.py`), on a file
an integrator is about to drop into the site directory: the schema, the file's name as its
model, the capabilities of the profile it would replace (`floord.profile_sources`), the
driver it names built with it as a table's adapter builds it, and the simulator it names
found when this box has the simulators (a rig). `floord profiles list` says which profile
of each name a box uses and where it comes from.
"""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from floord.adapters.local import load_driver
from floord.processes.preflight import DRIVER_ERRORS
from floord.profile_sources import ProfileShelf, SourcedProfile, profile_hash
from floord.profiles import DeviceProfile, ProfileError

# The options a table gives the driver of a family that needs some: a double-zero wheel's
# pockets (both wheel drivers take 37 and 38; a table's rules pick one).
FAMILY_OPTIONS: dict[str, dict[str, Any]] = {"roulette_wheel": {"pockets": 38}}


def candidate_problems(path: Path, shelf: ProfileShelf) -> tuple[SourcedProfile | None, list[str]]:
    """The profile at `path` as the site's, and every problem a box would refuse it for."""
    try:
        sourced = shelf.open_candidate(path)
    except ProfileError as exc:
        return None, [line for line in str(exc).splitlines() if line.strip()]
    return sourced, driver_problems(path, sourced.profile) + simulator_problems(path, sourced)


def driver_problems(path: Path, profile: DeviceProfile) -> list[str]:
    """The driver the profile names, built with it (its quirks read as a device's)."""
    try:
        load_driver(profile, FAMILY_OPTIONS.get(profile.family, {}))
    except DRIVER_ERRORS as exc:
        text = "; ".join(line.strip() for line in str(exc).splitlines() if line.strip())
        return [
            f"{path}: driver: a driver that accepts this profile expected, found "
            f"{profile.driver!r}: {text or type(exc).__name__}"
        ]
    return []


def simulator_problems(path: Path, sourced: SourcedProfile) -> list[str]:
    """The simulator the profile names; looked up only where the simulators are installed."""
    name = sourced.profile.simulator
    if importlib.util.find_spec("simulators") is None:
        return []
    package = importlib.import_module("simulators")
    try:
        module = importlib.import_module(package.module_name(name))
    except (ImportError, ValueError) as exc:
        return [f"{path}: simulator: a simulator module expected, found {name!r}: {exc}"]
    if hasattr(module, "SIMULATOR") or hasattr(module, "scenario_backend"):
        return []
    return [f"{path}: simulator: a module with a SIMULATOR expected, found {name!r} without"]


@dataclass(frozen=True)
class ListedProfile:
    """One row of `floord profiles list`."""

    name: str
    origin: str
    path: Path
    overrides: Path | None
    sha256: str
    model: str | None
    family: str | None
    problem: str | None


def listing(shelf: ProfileShelf) -> list[ListedProfile]:
    """Every profile name the box can use: the file used, where it is from, what it
    replaces, its hash, and why it cannot be used, if it cannot."""
    rows = []
    for name, source, path, under in shelf.listing():
        model = family = problem = None
        try:
            profile = shelf.open(name).profile
            model, family = profile.model, profile.family
        except ProfileError as exc:
            problem = "; ".join(line.strip() for line in str(exc).splitlines() if line.strip())
        rows.append(
            ListedProfile(
                name, source.origin, path, under, profile_hash(path), model, family, problem
            )
        )
    return rows
