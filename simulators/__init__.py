"""Behavioural twins of each device, speaking its exact wire bytes. Never imports drivers."""

from floord.profiles import module_path

# A profile's `simulator:` name is `<family>.<module>`, a module of an installed driver family
# (floord.driver_families: floord's own packages here, or a plugin's). Names from before
# the modules were grouped by protocol keep resolving, so a profile written then still loads.
RENAMED: dict[str, str] = {
    "big_six": "flf1.big_six",
    "cammegh_ss2": "cammegh_ss2.simulator",
    "card_reader": "flf1.card_reader",
    "card_shuffler": "flf1.card_shuffler",
    "dealing_shoe": "flf1.dealing_shoe",
    "usb_shoe_backend": "usb_shoe.backend",
    "wheel_sensor": "flf1.wheel_sensor",
}


def module_name(name: str) -> str:
    """The module a profile's `simulator:` name means (`<family>.<module>`, or its new home)."""
    return module_path("simulators", "simulator", RENAMED, name)
