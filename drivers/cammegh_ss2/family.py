"""The Cammegh SS2 family as floord declares it (entry point `cammegh_ss2`, pyproject.toml).

Its protocol is the vendor's host protocol (developer guide V2.10), not floord's to ship;
the driver's modules say which of its facts they read.
"""

from floord.driver_families import DriverFamily
from floord.profiles import PROFILES_DIR

FAMILY = DriverFamily(
    name="cammegh_ss2",
    drivers="drivers.cammegh_ss2",
    simulators="simulators.cammegh_ss2",
    profiles=PROFILES_DIR,
)
