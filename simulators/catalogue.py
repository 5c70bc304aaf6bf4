"""What ships with the simulators for a rig outside a source checkout: the scenario files,
found by name, and the example rig config.

Both are package data of `simulators` (pyproject.toml), so a wheel installed anywhere
and the rig's Debian package (`floord-rig`) carry them: `floord sim PROFILE --scenario
shoe-normal` plays the packaged `scenarios/shoe-normal.yaml`, and `floord sim --list`
names them and the example config's path. An installed driver family plugin brings its
own (`DriverFamily.scenarios`, docs/plugins.md), found by name the same way and listed
with the package they come from. A path still works, and wins over a name: a rig's own
scenario in /etc/floord/sims is given by its path.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

import floord
from floord.driver_families import DriverFamilyError, family_scenario_dirs
from simulators.scenario import ScenarioError

SUFFIX = ".yaml"


@dataclass(frozen=True)
class ScenarioFolder:
    """A folder of scenario files and the package that ships it (`<name> <version>`)."""

    package: str
    folder: Path


@dataclass(frozen=True)
class ShippedScenario:
    """One scenario `floord sim --scenario NAME` can play, and who ships it."""

    name: str
    path: Path
    package: str


def scenarios_folder() -> Path:
    """The packaged scenario files' folder (a real folder: the wheel is never zipped)."""
    return Path(str(files("simulators") / "scenarios"))


def example_rig_config() -> Path:
    """The example rig config of docs/rigs.md, as installed."""
    return Path(str(files("simulators") / "examples" / "rig.yaml"))


def scenario_folders() -> list[ScenarioFolder]:
    """Where scenarios are looked up by name: floord's packaged folder, then each
    installed driver family's own. A plugin that cannot be loaded is a `ScenarioError`
    naming it (`floord.driver_families`), as a profile lookup would be."""
    try:
        plugins = family_scenario_dirs(exclude=scenarios_folder())
    except DriverFamilyError as exc:
        raise ScenarioError(str(exc)) from exc
    own = ScenarioFolder(f"floord {floord.__version__}", scenarios_folder())
    return [
        own,
        *(
            ScenarioFolder(f"{f.distribution or f.name} {f.version or ''}".strip(), folder)
            for f, folder in plugins
        ),
    ]


def shipped_scenarios() -> list[ShippedScenario]:
    """Every scenario a name can mean, sorted by name (then by folder order)."""
    found = [
        ShippedScenario(path.stem, path, where.package)
        for where in scenario_folders()
        if where.folder.is_dir()
        for path in sorted(where.folder.glob(f"*{SUFFIX}"))
        if path.is_file()
    ]
    return sorted(found, key=lambda s: s.name)


def scenario_names() -> list[str]:
    """The shipped scenarios' names, sorted: each file's name without `.yaml`."""
    return sorted({s.name for s in shipped_scenarios()})


def find_scenario(text: str) -> Path:
    """The scenario file `text` means: an existing file at that path, else the shipped
    scenario of that name (`fair` or `fair.yaml`), floord's or a driver plugin's.
    ScenarioError listing the shipped names when it is neither, and naming both files
    when two packages ship the name: which scenario plays must not depend on which
    package was installed."""
    path = Path(text)
    if path.is_file():
        return path
    if "/" not in text:
        name = text.removesuffix(SUFFIX)
        shipped = [s for s in shipped_scenarios() if s.name == name]
        if len(shipped) > 1:
            first, second = shipped[0], shipped[1]
            raise ScenarioError(
                f"{text}: scenario {name!r} is shipped twice, by {first.package} "
                f"({first.path}) and by {second.package} ({second.path}); give the "
                "scenario by its path"
            )
        if name and shipped:
            return shipped[0].path
    raise ScenarioError(
        f"{text}: a scenario file or the name of a shipped scenario expected "
        f"({', '.join(scenario_names())}), found no such file"
    )


def describe(path: Path) -> str:
    """A scenario file's first comment line: what it plays, for `floord sim --list`."""
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            return line.lstrip("# ").strip()
        if line.strip():
            break
    return ""
