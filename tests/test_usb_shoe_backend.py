"""The USB shoe end to end: pyusb finds the simulated backend, the unchanged transport
claims it and reads reports, the unchanged driver turns them into cards and identity."""

from __future__ import annotations

import asyncio
import errno
import functools
import time
from collections.abc import Callable, Coroutine
from typing import Any

import pytest
import usb.core
import usb.util

from drivers.usb_shoe.hid_wedge_shoe import DESCRIPTOR_MAGIC, DESCRIPTOR_QUERY, HidWedgeShoeDriver
from floord.contract import EventType
from floord.events import DeviceEvent, DeviceReply
from floord.profiles import load_profile
from floord.transport import usb as usb_transport
from floord.transport.stream import TransportError, open_transport
from simulators.usb_shoe.backend import SimulatedShoeBackend
from simulators.usb_shoe.keyboard import Typed, card_script, type_line

pytestmark = pytest.mark.unit

PROFILE = load_profile("ref-usb-shoe")
VID, PID = PROFILE.quirks["vendor_id"], PROFILE.quirks["product_id"]


def run_async(test: Callable[..., Coroutine[Any, Any, None]]) -> Callable[..., None]:
    """A coroutine test run to completion on a fresh event loop (no plugin needed)."""

    @functools.wraps(test)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        asyncio.run(test(*args, **kwargs))

    return wrapper


async def collect(transport: usb_transport.UsbTransport, driver: HidWedgeShoeDriver, cards: int):
    """Read and decode until `cards` cards were drawn; every output, in order."""
    out: list[DeviceEvent | DeviceReply] = []
    while sum(isinstance(o, DeviceEvent) and o.type == "shoe.card_drawn" for o in out) < cards:
        data = await asyncio.wait_for(transport.read(), 5.0)
        assert data, "the link closed"
        out += driver.feed(data, time.monotonic())
    return out


def test_pyusb_finds_and_describes_the_simulated_shoe() -> None:
    sim = SimulatedShoeBackend(PROFILE, serial_number="SHOE-7")
    dev = usb.core.find(backend=sim, idVendor=VID, idProduct=PID)
    assert dev is not None
    assert (dev.manufacturer, dev.product, dev.serial_number) == (
        "floord reference",
        PROFILE.name,
        "SHOE-7",
    )
    intf = dev.get_active_configuration()[(0, 0)]
    assert (intf.bInterfaceClass, intf.bInterfaceSubClass, intf.bInterfaceProtocol) == (3, 1, 1)
    assert [ep.bEndpointAddress for ep in intf] == [0x81]
    assert usb.core.find(backend=sim, idVendor=VID, idProduct=PID + 1) is None
    usb.util.dispose_resources(dev)


def test_intr_read_types_lines_and_times_out_like_libusb() -> None:
    sim = SimulatedShoeBackend(PROFILE, [Typed("AS")])
    dev = usb.core.find(backend=sim, idVendor=VID, idProduct=PID)
    with pytest.raises(usb.core.USBError) as busy:
        usb.util.claim_interface(dev, 0)  # the kernel's keyboard driver holds it
    assert busy.value.errno == errno.EBUSY
    dev.detach_kernel_driver(0)
    reports = [bytes(dev.read(0x81, 8, 100)) for _ in range(6)]
    assert reports == type_line("AS")
    assert reports[0] == bytes([2, 0, 4, 0, 0, 0, 0, 0])
    with pytest.raises(usb.core.USBTimeoutError) as idle:
        dev.read(0x81, 8, 10)
    assert idle.value.errno == errno.ETIMEDOUT and idle.value.backend_error_code == -7
    sim.unplug()
    with pytest.raises(usb.core.USBError) as gone:
        dev.read(0x81, 8, 10)
    assert gone.value.errno == errno.ENODEV
    usb.util.dispose_resources(dev)


def test_driver_constants_agree_with_the_transport() -> None:
    assert usb_transport.DESCRIPTOR_MAGIC == DESCRIPTOR_MAGIC
    assert usb_transport.DESCRIPTOR_QUERY == DESCRIPTOR_QUERY


@run_async
async def test_scripted_cards_end_to_end_with_identity() -> None:
    cards = ["AS", "TH", "KD", "2C", "QS"]
    sim = SimulatedShoeBackend(PROFILE, card_script(PROFILE, cards, 0.01), serial_number="S9")
    transport = await usb_transport.open_usb(VID, PID, backend=sim, idle_s=0.05)
    driver = HidWedgeShoeDriver(PROFILE)
    try:
        assert sim.device.kernel_driver is False and sim.device.claimed == {0}
        assert sim.device.protocol == 0  # boot protocol asked for
        assert sim.device.idle_ms == 48  # 0.05 s in HID's 4 ms units
        out = await collect(transport, driver, len(cards))
        greeting, *events = out
        assert isinstance(greeting, DeviceReply)  # the record comes first, unasked
        assert [e.data for e in events] == [
            {"count": i + 1, "card": c, "side": None} for i, c in enumerate(cards)
        ]
        (request,) = driver.handshake()
        await transport.write(request.payload)
        (reply,) = driver.feed(await transport.read(), time.monotonic())
        event = driver.identity({"identify": reply})
        assert event.type == EventType.DEVICE_IDENTIFIED
        assert event.data == {
            "maker": "floord reference",
            "model": PROFILE.name,
            "serial": "S9",
            "firmware": "1.02",
            "capabilities": ["recognition"],
        }
        # Idle: the shoe repeats its all-keys-up report; the driver makes nothing of it.
        idle = await asyncio.wait_for(transport.read(), 5.0)
        assert idle and set(idle) == {0} and driver.feed(idle, time.monotonic()) == []
        with pytest.raises(TransportError, match="takes no host data"):
            await transport.write(b"IDQ\n")
    finally:
        await transport.close()
    assert sim.finished
    assert sim.device.claimed == set() and sim.device.kernel_driver is True  # given back
    assert sim.device.open_handles == 0
    assert await transport.read() == b""


@run_async
async def test_unknown_code_from_the_device_is_a_protocol_error() -> None:
    sim = SimulatedShoeBackend(PROFILE, [Typed("XX"), Typed("10S")])
    transport = await usb_transport.open_usb(VID, PID, backend=sim)
    try:
        out = await collect(transport, HidWedgeShoeDriver(PROFILE), 1)
    finally:
        await transport.close()
    assert [o.data["reason"] for o in out[1:-1]] == ["unknown card code 'XX'"]
    assert out[-1].data == {"count": 1, "card": "TS", "side": None}


@run_async
async def test_unplugged_shoe_fails_the_read() -> None:
    sim = SimulatedShoeBackend(PROFILE)
    transport = await usb_transport.open_usb(VID, PID, backend=sim)
    try:
        assert (await transport.read()).startswith(DESCRIPTOR_MAGIC)
        sim.unplug()
        with pytest.raises(TransportError, match="read failed"):
            await asyncio.wait_for(transport.read(), 5.0)
    finally:
        await transport.close()


@run_async
async def test_a_receiver_gets_the_record_the_answer_and_the_unplugging() -> None:
    sim = SimulatedShoeBackend(PROFILE)
    transport = await usb_transport.open_usb(VID, PID, backend=sim)
    chunks: list[bytes] = []
    ends: list[TransportError | None] = []
    changed = asyncio.Event()

    class Receiver:
        def received(self, data: bytes) -> None:
            chunks.append(data)
            changed.set()

        def lost(self, error: TransportError | None) -> None:
            ends.append(error)
            changed.set()

    async def until(condition: Callable[[], bool]) -> None:
        async with asyncio.timeout(5.0):
            while not condition():
                changed.clear()
                await changed.wait()

    try:
        transport.deliver(Receiver())
        assert chunks and chunks[0].startswith(DESCRIPTOR_MAGIC)  # queued at open: at once
        await transport.write(DESCRIPTOR_QUERY)
        assert len(chunks) == 1  # the answer comes after the write returns, not inside it
        await until(lambda: len(chunks) == 2)
        assert chunks[1] == chunks[0]
        sim.unplug()
        await until(lambda: bool(ends))
        assert len(ends) == 1 and "read failed" in str(ends[0])
    finally:
        await transport.close()
    assert len(ends) == 1  # the close says nothing more


@run_async
async def test_open_refuses_a_missing_or_other_device() -> None:
    sim = SimulatedShoeBackend(PROFILE, serial_number="A1")
    with pytest.raises(TransportError, match="no such USB device"):
        await usb_transport.open_usb(VID, PID, "B2", backend=sim)
    with pytest.raises(TransportError, match="no such USB device"):
        await usb_transport.open_usb(VID, PID + 1, backend=sim)
    transport = await usb_transport.open_usb_port(f"usb://{VID:04x}:{PID:04X}/A1", 5.0, sim)
    await transport.close()
    assert transport.port == "usb://1209:0001/A1"


@pytest.mark.parametrize("port", ["usb://1209", "usb://12g9:0001", "usb://1209:0001/"])
@run_async
async def test_open_transport_usb_ports(port: str) -> None:
    with pytest.raises(TransportError, match="usb://VID:PID"):
        await open_transport(port, PROFILE.serial, 1.0)
