"""The descriptors of a simulated keyboard-wedge shoe, as pyusb reads them.

One device, one configuration, one interface (class 3 HID, subclass 1 boot, protocol 1
keyboard) with its HID class descriptor, one interrupt IN endpoint of 8 bytes: what a
real shoe reports on enumeration, so that pyusb and the unchanged transport find and
open the simulator as they do the hardware. Data only; the backend answers pyusb's
calls with them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

HID_CLASS_DESCRIPTOR = bytes([9, 0x21, 0x11, 0x01, 0, 1, 0x22, 63, 0])


@dataclass
class Descriptor:
    """A descriptor as pyusb reads it: its fields as attributes."""

    fields: dict[str, Any]

    def __getattr__(self, name: str) -> Any:
        try:
            return self.__dict__["fields"][name]
        except KeyError:
            raise AttributeError(name) from None


def device_descriptor(
    vendor_id: int, product_id: int, bcd_device: int, *, serial: bool
) -> Descriptor:
    """The device descriptor; string 3 is the serial number, when the shoe has one."""
    return Descriptor(
        {
            "bLength": 18,
            "bDescriptorType": 1,
            "bcdUSB": 0x0200,
            "bDeviceClass": 0,
            "bDeviceSubClass": 0,
            "bDeviceProtocol": 0,
            "bMaxPacketSize0": 8,
            "idVendor": vendor_id,
            "idProduct": product_id,
            "bcdDevice": bcd_device,
            "iManufacturer": 1,
            "iProduct": 2,
            "iSerialNumber": 3 if serial else 0,
            "bNumConfigurations": 1,
            "address": 5,
            "bus": 1,
            "port_number": 2,
            "port_numbers": (2,),
            "speed": 2,
        }
    )


def configuration_descriptor() -> Descriptor:
    return Descriptor(
        {
            "bLength": 9,
            "bDescriptorType": 2,
            "wTotalLength": 34,
            "bNumInterfaces": 1,
            "bConfigurationValue": 1,
            "iConfiguration": 0,
            "bmAttributes": 0xA0,
            "bMaxPower": 50,
            "extra_descriptors": [],
        }
    )


def interface_descriptor(interface: int) -> Descriptor:
    """The boot keyboard interface, with its HID class descriptor."""
    return Descriptor(
        {
            "bLength": 9,
            "bDescriptorType": 4,
            "bInterfaceNumber": interface,
            "bAlternateSetting": 0,
            "bNumEndpoints": 1,
            "bInterfaceClass": 3,
            "bInterfaceSubClass": 1,
            "bInterfaceProtocol": 1,
            "iInterface": 0,
            "extra_descriptors": list(HID_CLASS_DESCRIPTOR),
        }
    )


def endpoint_descriptor(endpoint: int) -> Descriptor:
    """The interrupt IN endpoint, 8 bytes every 10 ms."""
    return Descriptor(
        {
            "bLength": 7,
            "bDescriptorType": 5,
            "bEndpointAddress": endpoint,
            "bmAttributes": 0x03,
            "wMaxPacketSize": 8,
            "bInterval": 10,
            "bRefresh": 0,
            "bSynchAddress": 0,
            "extra_descriptors": [],
        }
    )
