"""The types drivers and simulators may share with the daemon, and what each of them is.

A driver turns bytes into `DeviceEvent`s and `DeviceReply`s and turns
`DeviceCommand`s into bytes. It knows nothing of journals, MQTT or game rules, so these
types carry no envelope fields: the adapter stamps `seq`, `ts` and `source` on them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

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


# What a driver's `feed` gives: events, replies to host commands, and bytes to send back.
DeviceOutput = DeviceEvent | DeviceReply | Outgoing


@runtime_checkable
class Driver(Protocol):
    """A device's driver as the adapter holds it: bytes in, typed events out, commands out.

    A profile's `driver:` module exports the class as `DRIVER`, built with the profile and
    the options the daemon derives from the table's rules. No I/O: the adapter reads,
    writes and keeps the time, so a driver is tested from golden frames alone.
    """

    def reset(self) -> None:
        """Forget everything: a new connection starts from nothing."""
        ...

    def feed(self, data: bytes, now: float) -> Sequence[DeviceOutput]:
        """What these bytes mean, read at monotonic time `now`."""
        ...

    def encode(self, command: DeviceCommand) -> Request: ...

    def handshake(self) -> Sequence[Request]:
        """The commands that identify the device, asked in order on each connection."""
        ...

    def identity(self, replies: dict[str, DeviceReply]) -> DeviceEvent:
        """`device.identified` from the handshake's replies, or why it is not this model."""
        ...


@runtime_checkable
class Simulator(Protocol):
    """A device's twin, which speaks its exact wire bytes.

    A profile's `simulator:` module exports the class as `SIMULATOR`, built with the
    profile, a scenario (None: the family's default) and a speed. `link` is a
    `simulators.link.Link` (the host's line); the shared types cannot import the
    simulators, so here it is typed by nothing more.
    """

    async def run(self, link: Any) -> None:
        """Play the scenario on `link` until it ends (for ever if it loops)."""
        ...
