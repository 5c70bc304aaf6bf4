"""A profile's driver:/simulator: names resolve, the names from before the packages too.

The modules were grouped by protocol (`drivers/flf1/card_reader.py`); a profile written
before names `card_reader`, and must load the same driver and simulator.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

import drivers
import simulators
from floord.profiles import load_profile

pytestmark = pytest.mark.unit

PROFILES = sorted((Path(__file__).resolve().parents[1] / "device_profiles").glob("*.yaml"))


@pytest.mark.parametrize("path", PROFILES, ids=lambda p: p.stem)
def test_each_profile_names_a_driver_and_a_simulator(path: Path) -> None:
    profile = load_profile(path.stem)
    assert hasattr(importlib.import_module(drivers.module_name(profile.driver)), "DRIVER")
    simulator = importlib.import_module(simulators.module_name(profile.simulator))
    # A USB shoe's twin is a pyusb backend the transport opens, not a class on a link.
    assert hasattr(simulator, "SIMULATOR") or hasattr(simulator, "scenario_backend")


@pytest.mark.parametrize(("package", "export"), [(drivers, "DRIVER"), (simulators, "SIMULATOR")])
def test_names_from_before_the_packages_resolve_to_the_same_module(
    package: object, export: str
) -> None:
    renamed = package.RENAMED  # type: ignore[attr-defined]
    assert renamed, "the table of renamed modules is empty"
    for old, new in renamed.items():
        module = importlib.import_module(package.module_name(old))  # type: ignore[attr-defined]
        assert module is importlib.import_module(package.module_name(new))  # type: ignore[attr-defined]
        assert hasattr(module, export) or hasattr(module, "scenario_backend"), old


@pytest.mark.parametrize(("package", "key"), [(drivers, "driver"), (simulators, "simulator")])
def test_a_name_that_is_no_module_path_is_refused(package: object, key: str) -> None:
    with pytest.raises(ValueError, match=f"^{key}: a module name expected"):
        package.module_name("../etc/passwd")  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("name", "cards", "double", "value"),
    [
        ("ref-shoe-recognition", True, False, False),
        ("ref-shoe-double", True, True, False),
        ("ref-shoe-manual", False, False, False),
        ("ref-card-reader-xv", False, False, True),
        ("ref-card-reader", False, False, False),
    ],
)
def test_a_profile_says_what_its_device_can_do(
    name: str, cards: bool, double: bool, value: bool
) -> None:
    """The capabilities the games ask of a device, read from its profile's quirks."""
    profile = load_profile(name)
    assert (profile.reports_cards, profile.double_shoe, profile.exposes_value) == (
        cards,
        double,
        value,
    )
