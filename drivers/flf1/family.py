"""floord's FLF/1 family as floord declares it (entry point `flf1`, pyproject.toml): the
framing once, and the card, dice and wheel devices that speak it."""

from floord.driver_families import DriverFamily
from floord.profiles import PROFILES_DIR

FAMILY = DriverFamily(
    name="flf1",
    drivers="drivers.flf1",
    simulators="simulators.flf1",
    profiles=PROFILES_DIR,
    protocols=(
        "docs/protocols/framing.md",
        "docs/protocols/card-reader.md",
        "docs/protocols/dealing-shoe.md",
        "docs/protocols/card-shuffler.md",
        "docs/protocols/dice-tracker.md",
        "docs/protocols/wheel-sensor.md",
        "docs/protocols/big-six.md",
    ),
)
