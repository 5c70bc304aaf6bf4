"""A USB HID keyboard ("keyboard wedge") as a byte transport, through pyusb.

`open_usb` finds the device by vendor and product id (and serial number, when more than
one is plugged in), takes its HID boot keyboard interface from the kernel's keyboard
driver (only where the backend can tell), claims it, asks for boot reports
(SET_PROTOCOL) and an idle report every `idle_s` (SET_IDLE, best effort: a device may
refuse it), and reads the interrupt IN endpoint on one thread with a short poll
timeout. `read()`, `deliver()`, `write()` and `close()` have the shape of
`StreamTransport`'s, so the adapter drives it for a port written `usb://VID:PID[/SERIAL]`
(hex ids, as lsusb shows); each report read is handed to the loop, and from there to the
adapter's receiver once it is named.

Bytes read are the 8-byte reports, unchanged. A keyboard takes no host data, so the one
thing `write` accepts is the descriptor query of `drivers/usb_shoe/hid_wedge_shoe.py`, answered
with the descriptor record (the device's ids and strings, which only this side can read);
the record is also the first thing read after opening, which is how the adapter hears
the shoe before its first card. The record's bytes are specified in that driver's
docstring: `DESCRIPTOR_MAGIC`, a 2-byte big-endian length, a JSON body.

Rig port. A hardware-in-the-loop rig swaps each simulator for a real device and back
without touching the daemon; a USB shoe's simulator is a pyusb backend, not a pty, so
the port `usb://sim:<scenario-file>` (an absolute path) makes this module build
`simulators.usb_shoe.backend.scenario_backend(file)` and open it through the same
`usb.core.find` path as a real shoe. Each open plays the scenario from its start (a
fresh device, as a shoe plugged in again). The simulators are the rig's package, not
floord's: this module reaches that one by name at run time (`RIG_BACKEND`), only in that
branch, so a daemon with real shoes never loads it, and a table box without the rig's
package is told so by `floord check` before any port is opened (`floord.config.ports`).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import json
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import usb.core
import usb.util

from floord.transport.base import Receiver, TransportError
from floord.transport.ports import RIG_BACKEND, SIM_PREFIX, PortError, parse_port

DESCRIPTOR_MAGIC = b"\x00\xffUSBD"
DESCRIPTOR_QUERY = DESCRIPTOR_MAGIC + b"\x00\x00"
POLL_MS = 100
HID_CLASS, BOOT_SUBCLASS, KEYBOARD_PROTOCOL = 3, 1, 1


def parse_usb_port(port: str) -> tuple[int, int, str | None]:
    """(vendor id, product id, serial or None) of `usb://VID:PID[/SERIAL]`, read by the
    one port parser (`floord.transport.stream.parse_port`)."""
    address = parse_port(port)
    if address.kind != "usb" or address.vendor_id is None or address.product_id is None:
        raise PortError(
            port, "usb://VID:PID or usb://VID:PID/SERIAL (4 hex digits each)", repr(port)
        )
    return address.vendor_id, address.product_id, address.serial


def descriptor_record(fields: dict[str, Any]) -> bytes:
    body = json.dumps(fields, separators=(",", ":"), sort_keys=True).encode()
    return DESCRIPTOR_MAGIC + len(body).to_bytes(2, "big") + body


@dataclass
class UsbTransport:
    """A claimed HID boot keyboard interface, read on its own thread."""

    port: str
    device: Any
    interface: int
    endpoint: int
    record: bytes
    detached: bool
    _queue: asyncio.Queue[bytes | Exception | None] = field(default_factory=asyncio.Queue)
    _receiver: Receiver | None = None
    _lost_said: bool = False
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None
    _closed: bool = False

    def start(self) -> None:
        """Queue the descriptor record and start reading the endpoint on a thread."""
        loop = asyncio.get_running_loop()
        self._queue.put_nowait(self.record)
        self._thread = threading.Thread(
            target=self._reader, args=(loop,), name=f"usb-read {self.port}", daemon=True
        )
        self._thread.start()

    def _reader(self, loop: asyncio.AbstractEventLoop) -> None:
        """Poll the endpoint until stopped; a report or the error that ended it is queued."""
        size = 8
        while not self._stop.is_set():
            try:
                data = bytes(self.device.read(self.endpoint, size, POLL_MS))
            except usb.core.USBTimeoutError:
                continue
            except (usb.core.USBError, ValueError) as exc:
                self._deliver(loop, TransportError(f"{self.port}: read failed: {exc}"))
                return
            if data:
                self._deliver(loop, data)

    def _deliver(self, loop: asyncio.AbstractEventLoop, item: bytes | Exception) -> None:
        with contextlib.suppress(RuntimeError):  # the loop closed under us
            loop.call_soon_threadsafe(self._put, item)

    def _put(self, item: bytes | Exception | None) -> None:
        """What was read, or the link's end: to the receiver if one is named, else queued
        for `read()`."""
        receiver = self._receiver
        if receiver is None:
            self._queue.put_nowait(item)
        elif self._lost_said:
            return  # the receiver was told the link ended: nothing after that
        elif isinstance(item, bytes):
            receiver.received(item)
        else:
            self._lost_said = True
            receiver.lost(item if isinstance(item, TransportError) else None)

    def deliver(self, receiver: Receiver) -> None:
        self._receiver = receiver
        while not self._queue.empty():
            self._put(self._queue.get_nowait())

    async def read(self) -> bytes:
        """What the device sent since the last read (whole reports); b"" once closed."""
        item = await self._queue.get()
        chunks: list[bytes] = []
        while True:
            if isinstance(item, Exception):
                if chunks:  # hand over what came before the error first
                    self._queue_front(item)
                    break
                self._queue_front(item)  # every later read fails the same way
                raise item
            if item is None:
                self._queue.put_nowait(None)
                break
            chunks.append(item)
            if self._queue.empty():
                break
            item = self._queue.get_nowait()
        return b"".join(chunks)

    def _queue_front(self, item: Exception) -> None:
        rest = []
        while not self._queue.empty():
            rest.append(self._queue.get_nowait())
        for piece in [item, *rest]:
            self._queue.put_nowait(piece)

    def write_now(self, data: bytes) -> bool:
        """As `write`: nothing the keyboard takes is ever waited for."""
        self._write(data)
        return True

    async def write(self, data: bytes) -> None:
        self._write(data)

    def _write(self, data: bytes) -> None:
        if self._closed:
            raise TransportError(f"{self.port}: write after close")
        if data != DESCRIPTOR_QUERY:
            raise TransportError(
                f"{self.port}: a keyboard takes no host data, only the "
                f"descriptor query; refused {data[:16]!r}"
            )
        # Answered as a device answers, after the write returns: a receiver is never
        # called back inside the write its own reading asked for.
        asyncio.get_running_loop().call_soon(self._put, self.record)

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._stop.set()
        if self._thread is not None:
            await asyncio.to_thread(self._thread.join, 2 * POLL_MS / 1000 + 1.0)
        await asyncio.to_thread(self._release)
        while not self._queue.empty():  # what was never read is dropped with the link
            self._queue.get_nowait()
        self._put(None)

    def _release(self) -> None:
        """Give the interface back, and to the kernel's driver if it was taken from it."""
        with contextlib.suppress(usb.core.USBError, ValueError):
            usb.util.release_interface(self.device, self.interface)
        if self.detached:
            with contextlib.suppress(usb.core.USBError, NotImplementedError, ValueError):
                self.device.attach_kernel_driver(self.interface)
        with contextlib.suppress(usb.core.USBError, ValueError):
            usb.util.dispose_resources(self.device)


def _string(device: Any, name: str) -> str | None:
    """A descriptor string, or None when the device has none or will not give it."""
    try:
        value = getattr(device, name)
    except (usb.core.USBError, ValueError, NotImplementedError):
        return None
    return value if isinstance(value, str) else None


def _boot_keyboard(device: Any) -> tuple[Any, Any]:
    """The boot keyboard interface of the active configuration and its interrupt IN."""
    try:
        config = device.get_active_configuration()
    except usb.core.USBError:
        device.set_configuration()
        config = device.get_active_configuration()
    for intf in config:
        if (intf.bInterfaceClass, intf.bInterfaceSubClass, intf.bInterfaceProtocol) != (
            HID_CLASS,
            BOOT_SUBCLASS,
            KEYBOARD_PROTOCOL,
        ):
            continue
        for ep in intf:
            is_in = usb.util.endpoint_direction(ep.bEndpointAddress) == usb.util.ENDPOINT_IN
            if is_in and usb.util.endpoint_type(ep.bmAttributes) == usb.util.ENDPOINT_TYPE_INTR:
                return intf, ep
    raise TransportError("no HID boot keyboard interface with an interrupt IN endpoint")


def _open_blocking(
    port: str, vendor_id: int, product_id: int, serial: str | None, backend: Any, idle_s: float
) -> tuple[Any, int, int, bytes, bool]:
    try:
        found = list(
            usb.core.find(find_all=True, backend=backend, idVendor=vendor_id, idProduct=product_id)
        )
    except usb.core.NoBackendError as exc:
        raise TransportError(f"{port}: no USB backend (libusb) on this machine") from exc
    if serial is not None:
        found = [d for d in found if _string(d, "serial_number") == serial]
    if not found:
        raise TransportError(f"{port}: no such USB device plugged in")
    if len(found) > 1:
        raise TransportError(
            f"{port}: {len(found)} devices match; name one by its serial (usb://VID:PID/SERIAL)"
        )
    device = found[0]
    detached = False
    try:
        intf, ep = _boot_keyboard(device)
        number = intf.bInterfaceNumber
        try:
            if device.is_kernel_driver_active(number):
                device.detach_kernel_driver(number)
                detached = True
        except NotImplementedError:
            pass  # the backend cannot tell (not Linux): nothing to detach
        usb.util.claim_interface(device, number)
        # HID 1.11 § 7.2.6 and 7.2.4: boot reports, and an idle report every idle_s.
        device.ctrl_transfer(0x21, 0x0B, 0, number)
        with contextlib.suppress(usb.core.USBError):
            device.ctrl_transfer(0x21, 0x0A, min(255, round(idle_s / 0.004)) << 8, number)
        record = descriptor_record(
            {
                "id_vendor": device.idVendor,
                "id_product": device.idProduct,
                "bcd_device": device.bcdDevice,
                "manufacturer": _string(device, "manufacturer"),
                "product": _string(device, "product"),
                "serial_number": _string(device, "serial_number"),
                "interface": number,
                "endpoint": ep.bEndpointAddress,
            }
        )
    except (usb.core.USBError, ValueError, TransportError) as exc:
        with contextlib.suppress(usb.core.USBError, ValueError):
            usb.util.dispose_resources(device)
        if isinstance(exc, TransportError):
            raise TransportError(f"{port}: {exc}") from exc
        raise TransportError(f"{port}: cannot claim the keyboard interface: {exc}") from exc
    return device, number, ep.bEndpointAddress, record, detached


async def open_usb(
    vendor_id: int,
    product_id: int,
    serial: str | None = None,
    backend: Any = None,
    *,
    idle_s: float = 1.0,
    timeout_s: float = 5.0,
) -> UsbTransport:
    """Open the one matching HID boot keyboard; `backend` None is pyusb's own choice."""
    port = f"usb://{vendor_id:04x}:{product_id:04x}" + (f"/{serial}" if serial else "")
    try:
        async with asyncio.timeout(timeout_s):
            device, number, endpoint, record, detached = await asyncio.to_thread(
                _open_blocking, port, vendor_id, product_id, serial, backend, idle_s
            )
    except TimeoutError as exc:
        raise TransportError(f"{port}: not opened within {timeout_s} s") from exc
    transport = UsbTransport(port, device, number, endpoint, record, detached)
    transport.start()
    return transport


def simulated_backend(port: str) -> Any:
    """The rig's simulated shoe for `usb://sim:<scenario-file>`; a bad file is a TransportError."""
    path = Path(port[len(SIM_PREFIX) :])
    if not path.is_absolute():
        raise TransportError(f"{port}: usb://sim:<absolute path of a scenario file> expected")
    try:
        rig = importlib.import_module(RIG_BACKEND)
    except ImportError as exc:
        raise TransportError(f"{port}: the device simulators are not installed") from exc
    try:
        return rig.scenario_backend(path)
    except ValueError as exc:  # the rig's ScenarioError: a file it cannot play as written
        raise TransportError(f"{port}: {exc}") from exc


async def open_usb_port(port: str, timeout_s: float, backend: Any = None) -> UsbTransport:
    """`open_usb` for a port written `usb://VID:PID[/SERIAL]` or `usb://sim:<scenario-file>`."""
    if port.startswith(SIM_PREFIX):
        if backend is not None:
            raise TransportError(f"{port}: a rig port brings its own backend")
        backend = await asyncio.to_thread(simulated_backend, port)
        return await open_usb(
            backend.vendor_id, backend.product_id, None, backend, timeout_s=timeout_s
        )
    vendor_id, product_id, serial = parse_usb_port(port)
    return await open_usb(vendor_id, product_id, serial, backend, timeout_s=timeout_s)
