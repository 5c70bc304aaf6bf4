"""The retained `P/devices/<device>` body, one shape for every kind of adapter.

A console reads a device's availability the same way whether its adapter runs in the
daemon (`floord.adapters.local`) or as its own process followed over MQTT
(`floord.adapters.remote`, which adds `adapter: remote`); both build it here from the
fields they share, so the two cannot drift apart.
"""

from __future__ import annotations

from typing import Any


def availability_body(device: Any) -> dict[str, Any]:
    """The retained `P/devices/<device>` body of an adapter, in-process or remote: who the
    device is (its identity, else its profile's) and when it was last online and heard."""
    identity, profile = device.identity, device.profile
    return {
        "device": device.device,
        "online": device.online,
        "profile": profile.model,
        "maker": identity.get("maker", profile.maker),
        "model": identity.get("model", profile.name),
        "firmware": identity.get("firmware"),
        "serial": identity.get("serial"),
        "since": device.since,
        "last_heard": device.last_heard,
        "port": device.port,
    }
