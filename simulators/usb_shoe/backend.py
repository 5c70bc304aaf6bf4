"""A card-reading shoe on USB, simulated as a pyusb backend (`usb.backend.IBackend`).

`usb.core.find(backend=SimulatedShoeBackend(profile, script))` finds one HID boot
keyboard with the profile's vendor and product ids, so the unchanged transport and
driver run against it exactly as against a real shoe through libusb. The device:
- descriptors (`descriptors.py`): one configuration, one interface (class 3 HID,
  subclass 1 boot, protocol 1 keyboard) with its HID class descriptor, one interrupt IN
  endpoint (8 bytes);
  strings 1 manufacturer, 2 product, 3 serial number, language 0x0409;
- as on Linux, the kernel's HID driver holds the interface until it is detached, and
  claiming it before that fails with EBUSY;
- control requests: GET_DESCRIPTOR (string), HID SET_PROTOCOL, SET_IDLE, GET_PROTOCOL;
  anything else stalls (EPIPE), as a real device does;
- `intr_read` types each scripted line (a card's code, then Enter) as key-down and
  key-up boot reports (`keyboard.py`) once its time has come, and raises `USBTimeoutError` (errno
  ETIMEDOUT, libusb's -7) when the timeout passes with nothing to send. With an idle
  rate set (SET_IDLE), it repeats the current report at that rate while idle, as HID
  1.11 § 7.2.4 asks.
- `unplug()` makes every later call fail with ENODEV, as a pulled cable does.

The script's clock starts when the host claims the interface (it starts listening then).

`scenario_backend(path)` builds the backend from a scenario file (`scenario.py`), for the
hardware-in-the-loop rig port `usb://sim:<scenario-file>` of `floord/transport/usb.py`
(docs/protocols/usb-wedge-shoe.md).
"""

from __future__ import annotations

import errno
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import usb.backend
import usb.core

from floord.profiles import DeviceProfile, ProfileError, load_profile, load_strict_yaml
from simulators.usb_shoe.descriptors import (
    Descriptor,
    configuration_descriptor,
    device_descriptor,
    endpoint_descriptor,
    interface_descriptor,
)
from simulators.usb_shoe.keyboard import IDLE, Typed, keystroke, type_line
from simulators.usb_shoe.scenario import ScenarioError, UsbShoeScenario, scenario_script

LIBUSB_ERROR_NO_DEVICE = -4
LIBUSB_ERROR_BUSY = -6
LIBUSB_ERROR_TIMEOUT = -7
LIBUSB_ERROR_PIPE = -9
LANGID_EN_US = 0x0409


@dataclass
class SimulatedDevice:
    """The device identification `enumerate_devices` yields; its state lives here."""

    configuration: int = 1
    kernel_driver: bool = True
    claimed: set[int] = field(default_factory=set)
    protocol: int = 1  # HID: 0 boot, 1 report (the state after reset)
    idle_ms: int = 0
    open_handles: int = 0


def _error(text: str, code: int, number: int) -> usb.core.USBError:
    return usb.core.USBError(text, code, number)


class SimulatedShoeBackend(usb.backend.IBackend):
    """One simulated keyboard-wedge shoe, as the only device on its bus."""

    def __init__(
        self,
        profile: DeviceProfile,
        script: Sequence[Typed] = (),
        *,
        manufacturer: str | None = None,
        product: str | None = None,
        serial_number: str | None = "SIM-0001",
        bcd_device: int = 0x0102,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__()
        quirks = profile.quirks
        for line in script:
            for char in line.text:
                keystroke(char)  # refuse an untypeable script now, not halfway
        self.vendor_id, self.product_id = quirks["vendor_id"], quirks["product_id"]
        self.interface, self.endpoint = quirks["interface"], quirks["endpoint"]
        self.strings = {
            1: manufacturer or profile.maker,
            2: product or profile.name,
            3: serial_number,
        }
        self.bcd_device = bcd_device
        self.device = SimulatedDevice()
        self.unplugged = False
        self._script = deque(script)
        self._clock = clock
        self._cond = threading.Condition()
        self._pending: deque[bytes] = deque()
        self._next_due: float | None = None
        self._last_sent: float | None = None
        self.sent: list[bytes] = []

    # ----- control of the simulation ------------------------------------------------

    def unplug(self) -> None:
        with self._cond:
            self.unplugged = True
            self._cond.notify_all()

    @property
    def finished(self) -> bool:
        """Every scripted line has been read by the host."""
        with self._cond:
            return not self._script and not self._pending

    # ----- descriptors --------------------------------------------------------------

    def enumerate_devices(self) -> Iterable[SimulatedDevice]:
        return [] if self.unplugged else [self.device]

    def get_parent(self, dev: SimulatedDevice) -> None:
        return None

    def get_device_descriptor(self, dev: SimulatedDevice) -> Descriptor:
        return device_descriptor(
            self.vendor_id,
            self.product_id,
            self.bcd_device,
            serial=self.strings[3] is not None,
        )

    def get_configuration_descriptor(self, dev: SimulatedDevice, config: int) -> Descriptor:
        if config != 0:
            raise IndexError(f"configuration index {config}")
        return configuration_descriptor()

    def get_interface_descriptor(
        self, dev: SimulatedDevice, intf: int, alt: int, config: int
    ) -> Descriptor:
        if (intf, alt, config) != (0, 0, 0):
            raise IndexError(f"interface {intf} alt {alt} configuration {config}")
        return interface_descriptor(self.interface)

    def get_endpoint_descriptor(
        self, dev: SimulatedDevice, ep: int, intf: int, alt: int, config: int
    ) -> Descriptor:
        if (ep, intf, alt, config) != (0, 0, 0, 0):
            raise IndexError(f"endpoint {ep} interface {intf} alt {alt} configuration {config}")
        return endpoint_descriptor(self.endpoint)

    # ----- handles and interfaces ---------------------------------------------------

    def _present(self) -> None:
        if self.unplugged:
            raise _error(
                "No such device (it may have been disconnected)",
                LIBUSB_ERROR_NO_DEVICE,
                errno.ENODEV,
            )

    def open_device(self, dev: SimulatedDevice) -> SimulatedDevice:
        self._present()
        dev.open_handles += 1
        return dev

    def close_device(self, dev_handle: SimulatedDevice) -> None:
        dev_handle.open_handles -= 1

    def set_configuration(self, dev_handle: SimulatedDevice, config_value: int) -> None:
        self._present()
        if config_value not in (0, 1):
            raise _error("Entity not found", -5, errno.ENOENT)
        if dev_handle.kernel_driver or dev_handle.claimed:
            raise _error("Resource busy", LIBUSB_ERROR_BUSY, errno.EBUSY)
        dev_handle.configuration = config_value

    def get_configuration(self, dev_handle: SimulatedDevice) -> int:
        self._present()
        return dev_handle.configuration

    def is_kernel_driver_active(self, dev_handle: SimulatedDevice, intf: int) -> bool:
        self._present()
        return dev_handle.kernel_driver

    def detach_kernel_driver(self, dev_handle: SimulatedDevice, intf: int) -> None:
        self._present()
        if not dev_handle.kernel_driver:
            raise _error("Entity not found", -5, errno.ENOENT)
        dev_handle.kernel_driver = False

    def attach_kernel_driver(self, dev_handle: SimulatedDevice, intf: int) -> None:
        self._present()
        if dev_handle.claimed:
            raise _error("Resource busy", LIBUSB_ERROR_BUSY, errno.EBUSY)
        dev_handle.kernel_driver = True

    def claim_interface(self, dev_handle: SimulatedDevice, intf: int) -> None:
        self._present()
        if intf != self.interface:
            raise _error("Entity not found", -5, errno.ENOENT)
        if dev_handle.kernel_driver:
            raise _error("Resource busy", LIBUSB_ERROR_BUSY, errno.EBUSY)
        with self._cond:
            dev_handle.claimed.add(intf)
            if self._next_due is None:
                self._start(self._clock())

    def release_interface(self, dev_handle: SimulatedDevice, intf: int) -> None:
        dev_handle.claimed.discard(intf)

    def set_interface_altsetting(self, dev_handle: SimulatedDevice, intf: int, alt: int) -> None:
        self._present()
        if (intf, alt) != (self.interface, 0):
            raise _error("Entity not found", -5, errno.ENOENT)

    # ----- control transfers --------------------------------------------------------

    def ctrl_transfer(
        self,
        dev_handle: SimulatedDevice,
        bmRequestType: int,  # pyusb names these parameters
        bRequest: int,
        wValue: int,
        wIndex: int,
        data: Any,
        timeout: int,
    ) -> int:
        self._present()
        request = (bmRequestType, bRequest)
        if request == (0x80, 0x06) and wValue >> 8 == 3:
            return self._string(wValue & 0xFF, wIndex, data)
        if bmRequestType & 0x7F == 0x21 and (wIndex & 0xFF) == self.interface:
            if request == (0x21, 0x0B) and wValue in (0, 1):  # SET_PROTOCOL
                dev_handle.protocol = wValue
                return 0
            if request == (0x21, 0x0A) and wValue & 0xFF == 0:  # SET_IDLE, report id 0
                with self._cond:
                    dev_handle.idle_ms = (wValue >> 8) * 4
                return 0
            if request == (0xA1, 0x03) and len(data) >= 1:  # GET_PROTOCOL
                data[0] = dev_handle.protocol
                return 1
        raise _error("Pipe error", LIBUSB_ERROR_PIPE, errno.EPIPE)

    def _string(self, index: int, langid: int, data: Any) -> int:
        if index == 0:
            body = LANGID_EN_US.to_bytes(2, "little")
        else:
            text = self.strings.get(index)
            if text is None or langid != LANGID_EN_US:
                raise _error("Pipe error", LIBUSB_ERROR_PIPE, errno.EPIPE)
            body = text.encode("utf-16-le")
        descriptor = (bytes([2 + len(body), 3]) + body)[: len(data)]
        for i, byte in enumerate(descriptor):
            data[i] = byte
        return len(descriptor)

    # ----- the interrupt endpoint ---------------------------------------------------

    def _start(self, now: float) -> None:
        self._last_sent = now
        self._schedule(now)

    def _schedule(self, now: float) -> None:
        """Queue the next scripted line's reports, due `after_s` after `now`."""
        if self._script:
            self._next_due = now + self._script[0].after_s
        else:
            self._next_due = float("inf")

    def intr_read(
        self, dev_handle: SimulatedDevice, ep: int, intf: int, buff: Any, timeout: int
    ) -> int:
        if ep != self.endpoint or intf not in dev_handle.claimed:
            self._present()
            raise _error("Invalid parameter", -2, errno.EINVAL)
        deadline = None if timeout == 0 else self._clock() + timeout / 1000
        with self._cond:
            while True:
                self._present()
                now = self._clock()
                report = self._due_report(dev_handle, now)
                if report is not None:
                    self._last_sent = now
                    self.sent.append(report)
                    size = min(len(buff), len(report))
                    for i in range(size):
                        buff[i] = report[i]
                    return size
                wake = self._wake_time(dev_handle)
                if deadline is not None and now >= deadline:
                    raise usb.core.USBTimeoutError(
                        "Operation timed out", LIBUSB_ERROR_TIMEOUT, errno.ETIMEDOUT
                    )
                until = min(t for t in (wake, deadline) if t is not None)
                self._cond.wait(None if until == float("inf") else max(0.0, until - now))

    def _due_report(self, dev: SimulatedDevice, now: float) -> bytes | None:
        if not self._pending and self._next_due is not None and now >= self._next_due:
            line = self._script.popleft()
            self._pending.extend(type_line(line.text))
            self._schedule(now)
        if self._pending:
            return self._pending.popleft()
        last = self._last_sent if self._last_sent is not None else now
        if dev.idle_ms and now - last >= dev.idle_ms / 1000:
            return IDLE
        return None

    def _wake_time(self, dev: SimulatedDevice) -> float:
        due = self._next_due if self._next_due is not None else float("inf")
        if dev.idle_ms and self._last_sent is not None:
            return min(due, self._last_sent + dev.idle_ms / 1000)
        return due


def scenario_backend(path: Path) -> SimulatedShoeBackend:
    """A fresh simulated shoe playing the scenario file at `path` from its start."""
    scenario = load_strict_yaml(path, UsbShoeScenario, ScenarioError)
    try:
        profile = load_profile(scenario.profile)
        if profile.family != "dealing_shoe" or "card_codes" not in profile.quirks:
            raise ScenarioError(f"profile {profile.model!r} is not a keyboard-wedge shoe")
        script = scenario_script(profile, scenario)
        return SimulatedShoeBackend(profile, script, serial_number=scenario.serial_number)
    except (ProfileError, ValueError, KeyError) as exc:  # ScenarioError is a ValueError
        raise ScenarioError(f"{path}: {exc}") from exc


SIMULATED_BACKEND = SimulatedShoeBackend
