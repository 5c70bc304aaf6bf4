"""A driver family's own scenarios (`DriverFamily.scenarios`) are found by name by `floord
sim --scenario NAME` and listed by `floord sim --list` with the package they come from;
a name two packages ship is refused, naming both; a family's distribution and version
are what the record names (`daemon.started`'s `drivers`).

A plugin here is a real distribution on `sys.path` (tests/test_driver_families.py's
`install`); tests/test_plugins_system.py does the same with the example plugin's wheel.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_driver_families import fresh, install

import floord
from floord.cli.main import main
from floord.driver_families import DriverFamilyError, family_scenario_dirs, installed_families
from simulators.catalogue import find_scenario, scenarios_folder, shipped_scenarios
from simulators.scenario import ScenarioError

pytestmark = pytest.mark.unit

__all__ = ["fresh"]  # the fixture, used by name

FAMILY = """
from pathlib import Path
from floord.driver_families import DriverFamily
FAMILY = DriverFamily(
    name={name!r}, drivers="drivers.flf1", simulators="simulators.flf1",
    scenarios={scenarios},
)
"""
SPINS = "# Kit wheel: three spins.\npockets: 37\nsteps: [{idle: 1}]\n"


def kit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *names: str) -> Path:
    """The `kit_plugin` 1.0 distribution, its family shipping scenarios `names`."""
    folder = tmp_path / "kit_scenarios"
    folder.mkdir()
    for name in names:
        (folder / f"{name}.yaml").write_text(SPINS)
    source = FAMILY.format(name="kit", scenarios=f"Path({str(folder)!r})")
    module = module_of(tmp_path)
    install(tmp_path, "kit_plugin", {"kit": f"{module}:FAMILY"}, module, source)
    monkeypatch.syspath_prepend(str(tmp_path))
    return folder


def module_of(tmp_path: Path) -> str:
    """A module name of the test's own: an import of another test's stays cached."""
    return "kit_" + "".join(c if c.isalnum() else "_" for c in tmp_path.name)


def test_a_plugins_scenario_is_found_by_name_and_listed_with_its_package(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    fresh: None,
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder = kit(tmp_path, monkeypatch, "kit-spins")
    family = installed_families()["kit"]
    assert (family.distribution, family.version) == ("kit_plugin", "1.0")
    assert family_scenario_dirs(exclude=scenarios_folder()) == [(family, folder)]
    assert find_scenario("kit-spins") == folder / "kit-spins.yaml"
    assert find_scenario("kit-spins.yaml") == folder / "kit-spins.yaml"

    assert main(["sim", "--list"]) == 0
    out = capsys.readouterr().out.splitlines()
    [row] = [line for line in out if line.split()[:1] == ["kit-spins"]]
    assert row.split()[1:3] == ["kit_plugin", "1.0"]
    assert row.endswith("  Kit wheel: three spins.")
    [fair] = [line for line in out if line.split()[:1] == ["fair"]]
    assert fair.split()[1:3] == ["floord", floord.__version__]
    assert f"scenarios: {folder} (kit_plugin 1.0)" in out
    assert f"scenarios: {scenarios_folder()} (floord {floord.__version__})" in out


def test_floords_own_families_come_from_floord(fresh: None) -> None:
    for name in ("cammegh_ss2", "flf1", "usb_shoe"):
        family = installed_families()[name]
        assert (family.distribution, family.version) == ("floord", floord.__version__)
        assert family.scenarios is None


def test_a_scenario_name_two_packages_ship_is_refused_naming_both(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh: None
) -> None:
    folder = kit(tmp_path, monkeypatch, "fair")
    assert [s.package for s in shipped_scenarios() if s.name == "fair"] == [
        f"floord {floord.__version__}",
        "kit_plugin 1.0",
    ]
    with pytest.raises(ScenarioError) as raised:
        find_scenario("fair")
    message = str(raised.value)
    assert "scenario 'fair' is shipped twice" in message
    assert str(scenarios_folder() / "fair.yaml") in message
    assert str(folder / "fair.yaml") in message
    # By its path, either is played.
    assert find_scenario(str(folder / "fair.yaml")) == folder / "fair.yaml"


def test_a_family_whose_scenarios_are_not_a_folder_is_refused(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    fresh: None,
    capsys: pytest.CaptureFixture[str],
) -> None:
    source = FAMILY.format(name="kit", scenarios="'scenarios/'")
    module = module_of(tmp_path)
    install(tmp_path, "kit_plugin", {"kit": f"{module}:FAMILY"}, module, source)
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(DriverFamilyError, match="scenarios: a folder"):
        installed_families()
    installed_families.cache_clear()
    assert main(["sim", "--list"]) == 1
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("floord sim: driver family plugin 'kit' (kit_plugin 1.0, entry point")
    assert "scenarios: a folder (a pathlib.Path) or None expected, found 'scenarios/'" in line
    # A name is looked up through the families too: the same line, not the packaged file.
    installed_families.cache_clear()
    with pytest.raises(ScenarioError, match="driver family plugin 'kit'"):
        find_scenario("fair")
