"""`open_transport` on a USB port with no device there: a transport error, through the
host's real libusb (which ctypes looks up with ldconfig and gcc). The simulated
backend is checked in `test_usb_shoe_backend.py`.
"""

from __future__ import annotations

import pytest
from test_usb_shoe_backend import PROFILE, run_async

from floord.transport.stream import TransportError, open_transport

pytestmark = pytest.mark.system


@run_async
async def test_open_transport_usb_without_the_device_is_a_transport_error() -> None:
    # pyusb's own backend: libusb may be missing here, or present with no such device.
    with pytest.raises(TransportError, match="usb://ffff:fffe: no"):
        await open_transport("usb://ffff:fffe", PROFILE.serial, 5.0)
