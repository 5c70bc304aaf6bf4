"""The family as floord finds it: entry point `linewheel` in group `floord.driver_families`.

A profile says `driver: linewheel.wheel` for `floord_linewheel.driver.wheel` and
`simulator: linewheel.wheel` for `floord_linewheel.simulator.wheel`; the scenarios in
`scenarios/` play by name (`floord sim linewheel-rw1 --pty --scenario linewheel-spins`).
"""

from importlib.resources import files
from pathlib import Path

from floord.driver_families import DriverFamily

HERE = Path(str(files("floord_linewheel")))

FAMILY = DriverFamily(
    name="linewheel",
    drivers="floord_linewheel.driver",
    simulators="floord_linewheel.simulator",
    profiles=HERE / "profiles",
    protocols=(str(HERE / "protocol.md"),),
    golden=HERE / "golden.yaml",
    scenarios=HERE / "scenarios",
)
