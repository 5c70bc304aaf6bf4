"""The types drivers and simulators may share with the daemon.

A driver turns bytes into `DeviceEvent`s and `DeviceReply`s and turns
`DeviceCommand`s into bytes. It knows nothing of journals, MQTT or game rules, so these
types carry no envelope fields: the adapter stamps `seq`, `ts` and `source` on them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from floord.contract import EventType


@dataclass(frozen=True)
class DeviceEvent:
    """A normalised event decoded from a device: a contract event type and its data."""

    type: EventType
    data: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class DeviceReply:
    """A device's answer to a host command, matched to the command by its prefix."""

    prefix: str
    text: str


@dataclass(frozen=True)
class DeviceCommand:
    """Something the engine (or the adapter) asks a device to do, by a driver-neutral name.

    `name` is one of the driver's `COMMANDS` (for a roulette wheel: `respin`,
    `identify`, `pockets`, `self_test`, ...).
    """

    device: str
    name: str
    args: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Request:
    """The bytes of one host command and how its reply is recognised.

    `reply_prefix` is what a reply line starts with; `timeout_s` is how long the adapter
    waits for it before it reports the command as unanswered.
    """

    name: str
    payload: bytes
    reply_prefix: str
    timeout_s: float


@dataclass(frozen=True)
class Outgoing:
    """Bytes the driver must send at once in answer to what it decoded (an `ACK`).

    The driver decides what the protocol requires; the adapter only writes it, so a
    driver stays free of I/O.
    """

    payload: bytes
