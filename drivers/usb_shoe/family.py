"""The USB keyboard-wedge shoe as floord declares it (entry point `usb_shoe`,
pyproject.toml). Its twin is a pyusb backend the transport opens (`usb://sim:`), not a
device on a link."""

from floord.driver_families import DriverFamily
from floord.profiles import PROFILES_DIR

FAMILY = DriverFamily(
    name="usb_shoe",
    drivers="drivers.usb_shoe",
    simulators="simulators.usb_shoe",
    profiles=PROFILES_DIR,
    protocols=("docs/protocols/usb-wedge-shoe.md",),
)
