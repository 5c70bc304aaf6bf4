"""Driver families: a protocol's driver, its simulator, its profiles and its documents,
found through the `floord.driver_families` entry point group.

A family is what an integrator installs to bring a device floord has never seen, as a
Python package of its own (docs/plugins.md): its distribution declares

    [project.entry-points."floord.driver_families"]
    linewheel = "floord_linewheel.family:FAMILY"

and `FAMILY` is a `DriverFamily`. floord's own families (`cammegh_ss2`, `flf1`,
`usb_shoe`) are declared the same way in floord's own pyproject.toml, so a plugin is
found, resolved and tested exactly as they are. A profile names its driver and its
simulator as `<family>.<module>` (`cammegh_ss2.driver`, `linewheel.wheel`): the module
`<module>` under the family's `drivers` or `simulators` package.

The families are read once a process (`installed_families`), when a profile is first
looked up. A plugin that cannot be loaded is a `DriverFamilyError` naming the entry
point and the distribution it came from, so `floord check` says which package to fix.
Nothing here imports a family's driver or simulator: a family names them by module path,
so the table box, which has no simulators installed, still lists every family.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, replace
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path

GROUP = "floord.driver_families"


class DriverFamilyError(ValueError):
    """An installed driver family that cannot be used: the message names its plugin."""


@dataclass(frozen=True)
class DriverFamily:
    """One protocol's code and files, as a plugin (or floord itself) declares them.

    `name`: the family's name, the first part of a profile's `driver:` and `simulator:`
    (and the entry point's name). `drivers`, `simulators`: the import paths of the
    packages holding its driver modules (each exporting `DRIVER`) and its simulator
    modules (`SIMULATOR`), which never import each other's package; `simulators` is None
    for a family that ships no twin. `profiles`: the folder of its device profiles (None:
    none of its own). `protocols`: its protocol documents, files a third party could
    build the device from (a built-in family's are relative to floord's source tree).
    `golden`: a file of golden frames (docs/plugins.md) the catalogue tests feed each of
    its profiles' drivers; None for floord's own families, whose golden frames live in
    floord's tests. `scenarios`: the folder of its simulator's scenario files
    (`<name>.yaml`), which `floord sim --scenario NAME` plays and `floord sim --list`
    names; None for floord's own families, whose scenarios are the simulators' package
    data.
    """

    name: str
    drivers: str
    simulators: str | None
    profiles: Path | None = None
    protocols: tuple[str, ...] = ()
    golden: Path | None = None
    scenarios: Path | None = None
    # Where the family was found (filled in on loading): `<distribution> <version>, entry
    # point ...` for messages, and the distribution's name and version for the record
    # (None: an entry point no distribution declares).
    origin: str = field(default="", compare=False)
    distribution: str | None = field(default=None, compare=False)
    version: str | None = field(default=None, compare=False)

    def package(self, side: str) -> str | None:
        """The package of its `drivers` or its `simulators`."""
        return self.drivers if side == "drivers" else self.simulators


def _origin(point: EntryPoint) -> str:
    dist = point.dist
    if dist is None:
        return f"entry point {point.name} = {point.value}"
    return f"{dist.metadata['Name']} {dist.version}, entry point {point.name} = {point.value}"


def _load(point: EntryPoint) -> DriverFamily:
    origin = _origin(point)
    try:
        family = point.load()
    except Exception as exc:  # a plugin's import fails in any way: say which plugin
        raise DriverFamilyError(
            f"driver family plugin {point.name!r} ({origin}) failed to load: "
            f"{type(exc).__name__}: {exc}"
        ) from exc
    if not isinstance(family, DriverFamily):
        raise DriverFamilyError(
            f"driver family plugin {point.name!r} ({origin}): a floord.driver_families."
            f"DriverFamily expected, found {type(family).__name__}"
        )
    if family.name != point.name:
        raise DriverFamilyError(
            f"driver family plugin {point.name!r} ({origin}): the family calls itself "
            f"{family.name!r}; the entry point's name and the family's must be one"
        )
    if family.scenarios is not None and not isinstance(family.scenarios, Path):
        raise DriverFamilyError(
            f"driver family plugin {point.name!r} ({origin}): scenarios: a folder (a "
            f"pathlib.Path) or None expected, found {family.scenarios!r}"
        )
    names = [family.drivers] + ([family.simulators] if family.simulators else [])
    if not all(part.isidentifier() for name in names for part in name.split(".")):
        raise DriverFamilyError(
            f"driver family plugin {point.name!r} ({origin}): its drivers and simulators "
            f"must be module paths, found {names}"
        )
    dist = point.dist
    return replace(
        family,
        origin=origin,
        distribution=None if dist is None else dist.metadata["Name"],
        version=None if dist is None else dist.version,
    )


@functools.cache
def installed_families() -> dict[str, DriverFamily]:
    """Every installed driver family by name, in the order their names sort.

    Two distributions declaring one name is an error naming both: which of two drivers
    reads a device must never depend on the order packages were installed in.
    """
    found: dict[str, DriverFamily] = {}
    for point in sorted(entry_points(group=GROUP), key=lambda p: (p.name, p.value)):
        family = _load(point)
        other = found.get(family.name)
        if other is not None and other.origin != family.origin:
            raise DriverFamilyError(
                f"driver family {family.name!r} is declared twice: by {other.origin} "
                f"and by {family.origin}; uninstall one"
            )
        found[family.name] = family
    return found


def family_profile_dirs(exclude: Path | None = None) -> list[Path]:
    """The installed families' profile folders, in family order, each once; `exclude`
    (floord's packaged folder, which its own families name) left out."""
    dirs: list[Path] = []
    for family in installed_families().values():
        folder = family.profiles
        if folder is not None and folder != exclude and folder not in dirs:
            dirs.append(folder)
    return dirs


def family_scenario_dirs(exclude: Path | None = None) -> list[tuple[DriverFamily, Path]]:
    """The installed families' scenario folders with the family declaring each, in family
    order, each folder once; `exclude` (the simulators' packaged folder) left out."""
    found: list[tuple[DriverFamily, Path]] = []
    for family in installed_families().values():
        folder = family.scenarios
        if folder is not None and folder != exclude and all(folder != f for _, f in found):
            found.append((family, folder))
    return found


def module_of(side: str, key: str, name: str) -> str:
    """The module a profile's `driver:` (side `drivers`) or `simulator:` (`simulators`)
    name means: `<family>.<module>` is `<module>` under that family's package."""
    family = family_of(key, name)
    package = family.package(side)
    if package is None:
        raise ValueError(f"{key}: driver family {family.name!r} ships no {side}, found {name!r}")
    return ".".join([package, *name.split(".")[1:]])


def family_of(key: str, name: str) -> DriverFamily:
    """The installed family a profile's `driver:` or `simulator:` name (`<family>.<module>`)
    belongs to; a `ValueError` naming `key` and the installed families otherwise."""
    parts = name.split(".")
    if not all(part.isidentifier() for part in parts):
        raise ValueError(f"{key}: a module name expected, {name!r}")
    families = installed_families()
    family = families.get(parts[0])
    if family is None or len(parts) < 2:
        known = ", ".join(families) or "none: is floord installed (pip install -e .)?"
        raise ValueError(
            f"{key}: <family>.<module> of an installed driver family expected "
            f"(families: {known}), found {name!r}"
        )
    return family
