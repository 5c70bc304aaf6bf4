"""Which installed package a device's driver came from, as `daemon.started` records it.

A profile's hash says which settings drove a device; it does not say which code read the
device's bytes. A driver family can be a plugin installed beside floord (docs/plugins.md)
and upgraded on its own, so the record names, for each device whose driver runs in the
daemon, the driver module and the distribution and version that provided its family
(`floord` and floord's version for floord's own families): an audit of a run can then
tell which code and which settings drove each device (docs/contract.md).
"""

from __future__ import annotations

from typing import Any

from drivers import RENAMED
from drivers import module_name as driver_module
from floord.driver_families import family_of
from floord.profiles import DeviceProfile


def driver_record(profile: DeviceProfile) -> dict[str, Any]:
    """The profile's driver as the record keeps it: `driver` the `<family>.<module>` name
    (an old name read as its new home), `module` the module imported, `family`, and the
    `distribution` and `version` of the package that declares the family."""
    name = RENAMED.get(profile.driver, profile.driver)
    family = family_of("driver", name)
    return {
        "driver": name,
        "module": driver_module(name),
        "family": family.name,
        "distribution": family.distribution,
        "version": family.version,
    }
