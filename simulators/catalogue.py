"""What ships with the simulators for a rig outside a source checkout: the scenario files,
found by name, and the example rig config.

Both are package data of `simulators` (pyproject.toml), so a wheel installed anywhere
and the rig's Debian package (`floord-rig`) carry them: `floord sim PROFILE --scenario
shoe-normal` plays the packaged `scenarios/shoe-normal.yaml`, and `floord sim --list`
names them and the example config's path. A path still works, and wins over a name: a
rig's own scenario in /etc/floord/sims is given by its path.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from simulators.scenario import ScenarioError

SUFFIX = ".yaml"


def scenarios_folder() -> Path:
    """The packaged scenario files' folder (a real folder: the wheel is never zipped)."""
    return Path(str(files("simulators") / "scenarios"))


def example_rig_config() -> Path:
    """The example rig config of docs/rigs.md, as installed."""
    return Path(str(files("simulators") / "examples" / "rig.yaml"))


def scenario_names() -> list[str]:
    """The packaged scenarios' names, sorted: each file's name without `.yaml`."""
    return sorted(path.stem for path in scenarios_folder().glob(f"*{SUFFIX}"))


def find_scenario(text: str) -> Path:
    """The scenario file `text` means: an existing file at that path, else the packaged
    scenario of that name (`fair` or `fair.yaml`). ScenarioError listing the packaged
    names when it is neither."""
    path = Path(text)
    if path.is_file():
        return path
    if "/" not in text:
        name = text.removesuffix(SUFFIX)
        packaged = scenarios_folder() / f"{name}{SUFFIX}"
        if name and packaged.is_file():
            return packaged
    raise ScenarioError(
        f"{text}: a scenario file or the name of a packaged scenario expected "
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
