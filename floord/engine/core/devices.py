"""What the engine knows of each device: online, identity, active fault, last seen.

The table may be open only while the devices it needs are known to be healthy, so the
engine keeps its own record of each device from the adapters' `device.*` events. A
fault is cleared only by a fresh connection of the device itself: it must go offline
(as observed, not merely because the daemon restarted), come back online and identify
itself again, so a wheel that reported a motor
fault cannot be resumed on the strength of its next status frame.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from floord.contract import format_ts


@dataclass
class DeviceState:
    """One device as the engine last saw it."""

    id: str
    required: bool
    online: bool = False
    identity: dict[str, Any] | None = None
    fault: dict[str, Any] | None = None
    last_seen: str | None = None
    # True once the device went offline after its fault, so that a new identification
    # proves a fresh connection and clears the fault.
    reconnecting: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "required": self.required,
            "online": self.online,
            "identity": self.identity,
            "fault": self.fault,
            "last_seen": self.last_seen,
            "reconnecting": self.reconnecting,
        }

    @classmethod
    def from_dict(cls, device_id: str, body: dict[str, Any], required: bool) -> DeviceState:
        return cls(
            id=device_id,
            required=required,
            online=bool(body.get("online", False)),
            identity=body.get("identity"),
            fault=body.get("fault"),
            last_seen=body.get("last_seen"),
            reconnecting=bool(body.get("reconnecting", False)),
        )


class DeviceBook:
    """Every device of a table, required or not, updated from `device.*` events."""

    def __init__(self, required: list[str]) -> None:
        self.devices: dict[str, DeviceState] = {d: DeviceState(d, True) for d in required}

    def get(self, device_id: str) -> DeviceState:
        """The device's record; a device first heard of now is tracked as not required."""
        if device_id not in self.devices:
            self.devices[device_id] = DeviceState(device_id, False)
        return self.devices[device_id]

    def seen(self, device_id: str, now: datetime) -> DeviceState:
        state = self.get(device_id)
        state.last_seen = format_ts(now)
        return state

    def went_online(self, device_id: str, now: datetime) -> DeviceState:
        state = self.seen(device_id, now)
        state.online = True
        return state

    def went_offline(self, device_id: str, now: datetime) -> DeviceState:
        state = self.seen(device_id, now)
        state.online = False
        if state.fault is not None:
            state.reconnecting = True
        return state

    def identified(self, device_id: str, identity: dict[str, Any], now: datetime) -> DeviceState:
        state = self.seen(device_id, now)
        state.identity = dict(identity)
        if state.fault is not None and state.reconnecting and state.online:
            state.fault = None
            state.reconnecting = False
        return state

    def faulted(self, device_id: str, fault: dict[str, Any], now: datetime) -> DeviceState:
        state = self.seen(device_id, now)
        state.fault = {**fault, "at": format_ts(now)}
        state.reconnecting = False
        return state

    def forget_connections(self) -> None:
        """After a daemon restart no device has been seen yet: all count as offline.

        A fault is kept as it was: the daemon stopping is not the device going away, so
        only a `device.offline` the engine observes can start clearing it.
        """
        for state in self.devices.values():
            state.online = False

    def snapshot(self) -> dict[str, dict[str, Any]]:
        return {d: s.to_dict() for d, s in sorted(self.devices.items())}

    def restore(self, body: dict[str, Any]) -> None:
        for device_id, state in body.items():
            required = device_id in self.devices and self.devices[device_id].required
            self.devices[device_id] = DeviceState.from_dict(device_id, state, required)


def capability_problem(
    identity: dict[str, Any],
    *,
    device: str,
    capability: str,
    configured: bool | None,
    mismatch: Callable[[bool], str],
) -> str | None:
    """Why a device's identification does not fit its table, or None when it does.

    Every card device says what it can do in a `capabilities` list; a table configured
    with (or without) one capability refuses a device that says otherwise, in the
    game's own words (`mismatch`, given whether the device has it). `configured` None
    checks only that the list is there.
    """
    caps = identity.get("capabilities")
    if not isinstance(caps, list):
        return f"the {device} reports no capabilities list ({caps!r})"
    has = capability in caps
    if configured is not None and has != configured:
        return mismatch(has)
    return None
