"""What the engine knows of each device: online, identity, active faults, last seen.

The table may be open only while the devices it needs are known to be healthy, so the
engine keeps its own record of each device from the adapters' `device.*` events. An
active fault clears only when the device identifies on a connection newer than the
fault, and which connection counts depends on what the fault is about:

- a fault of the device itself (a wheel's fault code, a shuffler's jam, a tamper switch,
  lost heartbeats, a failed self-test) clears once the device was seen to go offline,
  came back online and identified again. A daemon restart is not the device going
  away, so a wheel that reported a motor fault cannot be resumed on the strength of its
  next status frame, nor of the daemon being restarted;
- a fault of the line (origin `protocol_errors`: the adapter counted too many frames it
  could not read) is about one connection, not the device: it clears once the device
  identified on a new session of its adapter, whether that session began after a
  `device.offline` or in a new run of the daemon (a `device.online` that is not an
  adapter process's `announced` repeat of a session it kept).

Each fault is kept apart with its own clearing rule, so a line fault clearing never
takes a device fault with it; the clearing of each is a decision on the record
(`table.fault_cleared`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from floord.contract import EventType, format_ts
from floord.engine.core.types import Decision

# What clears a fault: the device seen to reconnect, or a new session of its line.
RECONNECT = "reconnect"
NEW_SESSION = "new_session"
# The `device.fault` origins that are about the line, not the device
# (floord/adapters/protocol_limiter.py).
LINE_ORIGINS = frozenset({"protocol_errors"})
# Why a fault cleared (`table.fault_cleared` `detail`), by what clears it.
CLEARED_DETAIL = {
    RECONNECT: "the device went offline, came back online and identified again",
    NEW_SESSION: (
        "the device identified on a new connection of its line: a protocol-error fault "
        "is the line's, not the device's"
    ),
}
# What a refusal says of an active fault, by what clears it.
CLEARS_WHEN = {
    RECONNECT: "it clears when the device reconnects and identifies again",
    NEW_SESSION: (
        "it clears when the device identifies on a new connection of its line "
        "(reconnected, or after a daemon restart)"
    ),
}


def clearing_of(origin: Any) -> str:
    """What clears a fault of this origin: `new_session` for the line's, else `reconnect`."""
    return NEW_SESSION if origin in LINE_ORIGINS else RECONNECT


@dataclass
class Fault:
    """One active fault of a device and how far it is on its way to clearing."""

    code: Any
    text: str
    origin: Any
    at: str
    clears: str
    # True once a connection newer than the fault began (what `clears` asks for), so
    # the device identifying on it clears the fault.
    reconnecting: bool = False

    def public(self) -> dict[str, Any]:
        """The fault as `P/state` shows it: `{code, text, origin, at}`."""
        return {"code": self.code, "text": self.text, "origin": self.origin, "at": self.at}

    def to_dict(self) -> dict[str, Any]:
        return {**self.public(), "clears": self.clears, "reconnecting": self.reconnecting}

    @classmethod
    def from_dict(cls, body: dict[str, Any], reconnecting: bool = False) -> Fault:
        origin = body.get("origin")
        clears = body.get("clears")
        return cls(
            code=body.get("code"),
            text=str(body.get("text") or ""),
            origin=origin,
            at=str(body.get("at") or ""),
            clears=clears if clears in CLEARED_DETAIL else clearing_of(origin),
            reconnecting=bool(body.get("reconnecting", reconnecting)),
        )


def fault_cleared(device: str, fault: Fault) -> Decision:
    """`table.fault_cleared`: a device's fault no longer stands, and why (floord's own
    rule, citing nothing); a halt it caused still waits for `resume`."""
    data = {
        "device": device,
        "fault": fault.public(),
        "cleared_by": fault.clears,
        "detail": CLEARED_DETAIL[fault.clears],
    }
    return Decision(EventType.TABLE_FAULT_CLEARED, data)


@dataclass
class DeviceState:
    """One device as the engine last saw it."""

    id: str
    required: bool
    online: bool = False
    identity: dict[str, Any] | None = None
    last_seen: str | None = None
    # The active faults, oldest first, at most one for each clearing rule: a newer
    # fault that clears the same way replaces the older (it clears no sooner).
    faults: list[Fault] = field(default_factory=list)

    @property
    def fault(self) -> dict[str, Any] | None:
        """The latest active fault (`P/state`'s `fault`), or None when there is none."""
        return self.faults[-1].public() if self.faults else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "required": self.required,
            "online": self.online,
            "identity": self.identity,
            "fault": self.fault,
            "last_seen": self.last_seen,
            "reconnecting": bool(self.faults) and self.faults[-1].reconnecting,
            "faults": [f.to_dict() for f in self.faults],
        }

    @classmethod
    def from_dict(cls, device_id: str, body: dict[str, Any], required: bool) -> DeviceState:
        stored = body.get("faults")
        if isinstance(stored, list):
            faults = [Fault.from_dict(f) for f in stored if isinstance(f, dict)]
        elif isinstance(body.get("fault"), dict):
            # A snapshot written before faults were kept apart: its one fault.
            faults = [Fault.from_dict(body["fault"], bool(body.get("reconnecting", False)))]
        else:
            faults = []
        return cls(
            id=device_id,
            required=required,
            online=bool(body.get("online", False)),
            identity=body.get("identity"),
            last_seen=body.get("last_seen"),
            faults=faults,
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

    def went_online(self, device_id: str, now: datetime, *, new_session: bool) -> DeviceState:
        """The device is online; `new_session` unless an adapter process only said again
        (`announced`) that a session it kept is up. A session is new only for a device
        the engine had offline (seen to go, or not seen yet in this run)."""
        state = self.seen(device_id, now)
        was_online, state.online = state.online, True
        if new_session and not was_online:
            for fault in state.faults:
                if fault.clears == NEW_SESSION:
                    fault.reconnecting = True
        return state

    def went_offline(self, device_id: str, now: datetime) -> DeviceState:
        state = self.seen(device_id, now)
        state.online = False
        for fault in state.faults:
            fault.reconnecting = True
        return state

    def identified(
        self, device_id: str, identity: dict[str, Any], now: datetime
    ) -> tuple[DeviceState, list[Fault]]:
        """Record the identity; the faults it clears (those a newer connection began
        for, when the device is online)."""
        state = self.seen(device_id, now)
        state.identity = dict(identity)
        if not state.online:
            return state, []
        cleared = [f for f in state.faults if f.reconnecting]
        state.faults = [f for f in state.faults if not f.reconnecting]
        return state, cleared

    def faulted(self, device_id: str, fault: dict[str, Any], now: datetime) -> DeviceState:
        state = self.seen(device_id, now)
        new = Fault(
            code=fault.get("code"),
            text=str(fault.get("text") or ""),
            origin=fault.get("origin"),
            at=format_ts(now),
            clears=clearing_of(fault.get("origin")),
        )
        state.faults = [f for f in state.faults if f.clears != new.clears] + [new]
        return state

    def forget_connections(self) -> None:
        """After a daemon restart no device has been seen yet: all count as offline.

        Faults are kept as they were: the daemon stopping is not the device going away,
        so only a `device.offline` the engine observes (or, for a line fault, the new
        session the device comes online on) can start clearing them.
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
