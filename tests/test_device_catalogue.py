"""Every device profile of every installed driver family, floord's own and any plugin's,
has a driver and a simulator that, built as the daemon and `floord sim` build them, are a
`Driver` and a `Simulator` (floord.events), and the driver decodes a golden frame of its
family into the event types the golden file expects.

The golden frames of floord's own families are the ones the drivers' own tests use
(tests/golden/, and the frame lists of the Big Six, wheel sensor and USB shoe driver
tests); a new profile fails here until it has one. A dice tracker's come from
tests/golden/dice/, one case per profile. A plugin's come from the golden file its
family names (docs/plugins.md), and one without is refused. A scenario a plugin ships
(`floord sim --scenario NAME`) is one a simulator of its family plays.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
import test_driver_big_six as big_six
import test_driver_hid_wedge_shoe as usb_shoe
import test_driver_ss2 as ss2
import test_driver_wheel_sensor as wheel_sensor
import yaml
from cards_golden import GOLDEN_DIR as CARDS_DIR
from cards_golden import load_cases
from families_support import (
    family_of,
    family_profiles,
    family_scenarios,
    plugin_golden,
    profile_names,
)
from test_driver_dice_tracker import CASES as DICE_CASES

import simulators
from floord.adapters.local import load_driver
from floord.contract import EventType
from floord.events import DeviceEvent, Driver, Simulator
from floord.profiles import DeviceProfile, load_profile
from simulators.run import load_simulator
from simulators.scenario import load_scenario
from simulators.usb_shoe.backend import SimulatedShoeBackend, scenario_backend

pytestmark = pytest.mark.unit

PROFILES = profile_names()
# (now, bytes fed, the event types they must give), in order, on a fresh driver.
Golden = list[tuple[float, bytes, list[EventType]]]


def _link_quirks(profile: DeviceProfile) -> dict[str, object]:
    """What changes the events a card device's frames give (not the texts of its codes)."""
    return {k: v for k, v in profile.quirks.items() if not k.endswith("_codes")}


def _cards(profile: DeviceProfile) -> Golden:
    """The profile's first golden case, or one of a profile whose frames read the same."""
    cases = [c for path in sorted(CARDS_DIR.glob("*.txt")) for c in load_cases(path)]
    own = [c for c in cases if c.profile.model == profile.model]
    alike = [
        c
        for c in cases
        if c.profile.driver == profile.driver and _link_quirks(c.profile) == _link_quirks(profile)
    ]
    case = (own or alike)[0]
    return [(s.now, s.data, _types(s.expected)) for s in case.steps]


def _types(outputs: list[object]) -> list[EventType]:
    return [o.type for o in outputs if isinstance(o, DeviceEvent)]


def _frames(idn: bytes, golden: list[tuple[bytes, list[tuple[EventType, dict]]]]) -> Golden:
    steps = [(0.0, idn, [])]
    return steps + [(n * 0.1, raw, [t for t, _ in want]) for n, (raw, want) in enumerate(golden, 1)]


def golden_of(profile: DeviceProfile) -> tuple[dict[str, object], Golden]:
    """The driver options and the golden frames for `profile`'s family."""
    model = profile.model
    if (plugin := plugin_golden(profile)) is not None:
        return plugin
    if profile.driver == "cammegh_ss2.driver":
        case = ss2.CASES[0]
        steps = [(s.now, s.data, _types(s.expected)) for s in case.steps]
        return {"pockets": case.pockets}, steps
    if model == "ref-wheel-sensor":
        return {"pockets": 38}, _frames(wheel_sensor.IDN, wheel_sensor.GOLDEN)
    if model == "ref-big-six":
        return {}, _frames(big_six.IDN, big_six.GOLDEN)
    if model == "ref-big-six-angle":
        return {}, _frames(big_six.IDN_ANGLE, big_six.GOLDEN_ANGLE)
    if profile.family == "dice_tracker":
        [case, *_] = [c for c in DICE_CASES if c.profile.model == model]
        return {}, [(s.now, s.data, _types(s.expected)) for s in case.steps]
    if model == "ref-usb-shoe":
        return {}, [(0.0, usb_shoe.AS + usb_shoe.TEN_H, [EventType.SHOE_CARD_DRAWN] * 2)]
    return {}, _cards(profile)


@pytest.mark.parametrize("name", PROFILES)
def test_each_profiles_driver_decodes_a_golden_frame_of_its_family(name: str) -> None:
    profile = load_profile(name)
    options, golden = golden_of(profile)
    driver = load_driver(profile, options)
    assert isinstance(driver, Driver)
    assert any(types for _, _, types in golden), f"{name}: no golden frame gives an event"
    for now, data, types in golden:
        assert _types(list(driver.feed(data, now))) == types, (name, data)


def _usb_scenario(tmp_path: Path, profile: str) -> Path:
    path = tmp_path / "usb.yaml"
    path.write_text(yaml.safe_dump({"profile": profile, "steps": [{"draw": ["KC"]}]}))
    return path


@pytest.mark.parametrize("name", PROFILES)
def test_each_profiles_simulator_is_built_as_floord_sim_builds_it(
    name: str, tmp_path: Path
) -> None:
    profile = load_profile(name)
    module = importlib.import_module(simulators.module_name(profile.simulator))
    if hasattr(module, "scenario_backend"):
        # A USB shoe's twin is a pyusb backend the transport opens, not a device on a link.
        backend = scenario_backend(_usb_scenario(tmp_path, name))
        assert isinstance(backend, SimulatedShoeBackend)
        return
    simulator = load_simulator(profile)(profile, None, speed=1.0)
    assert isinstance(simulator, Simulator)


@pytest.mark.parametrize(
    ("family", "path"), family_scenarios(), ids=[f"{f}/{p.stem}" for f, p in family_scenarios()]
)
def test_each_shipped_scenario_of_a_family_is_played_by_its_simulator(
    family: str, path: Path
) -> None:
    """Read by the scenario loader of one of the family's simulators, as `floord sim`
    reads it; a scenario no simulator of its family can read is refused here."""
    own = [load_profile(name) for f, name in family_profiles() if f == family]
    assert own, f"{family}: no profile to play {path.name}"
    problems = []
    for profile in own:
        simulator = load_simulator(profile)
        try:
            scenario = getattr(simulator, "load_scenario", load_scenario)(path)
        except ValueError as exc:
            problems.append(f"{profile.model}: {exc}")
            continue
        assert isinstance(simulator(profile, scenario, speed=1.0), Simulator)
        assert family_of(profile).name == family
        return
    pytest.fail(f"{path}: no simulator of {family} reads it: {problems}")
