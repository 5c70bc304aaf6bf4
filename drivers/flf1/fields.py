"""FLF/1 profile quirks and the field grammar the card-device families share.

The profile's link quirks are read strictly (an unknown or ill-typed quirk is a
ValueError naming it); fields are parsed strictly (a FrameError says which field and
why), because a card device on a regulated table must never be half understood.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from drivers.flf1.codec import CHECKSUMS, Frame, FrameError
from floord.contract import EventType
from floord.events import DeviceEvent, DeviceReply, Outgoing
from floord.profiles import DeviceProfile

NO_VALUE = "-"
Output = DeviceEvent | DeviceReply | Outgoing
_INT = re.compile(r"0|[1-9][0-9]{0,8}")
_CAPABILITY = re.compile(r"[a-z][a-z_]{0,31}")


# ----- profile quirks -------------------------------------------------------------


@dataclass(frozen=True)
class LinkQuirks:
    """The profile's link settings and code tables, checked strictly."""

    checksum: str
    ack_timeout_s: float
    max_resends: int
    heartbeat_s: float
    max_frame_length: int
    fault_codes: dict[int, str]
    tamper_codes: dict[int, str]
    flags: dict[str, bool]


def link_quirks(
    profile: DeviceProfile,
    flags: tuple[str, ...],
    fault_codes: dict[int, str],
    tamper_codes: dict[int, str],
) -> LinkQuirks:
    """Read the profile's quirks; an unknown or ill-typed one is a ValueError naming it."""
    quirks = dict(profile.quirks)
    known = {
        "checksum",
        "ack_timeout_s",
        "max_resends",
        "heartbeat_s",
        "max_frame_length",
        "fault_codes",
        "tamper_codes",
        *flags,
    }
    where = f"profile {profile.model!r}: quirks"
    for key in quirks:
        if key not in known:
            raise ValueError(f"{where}.{key}: unknown quirk (known: {', '.join(sorted(known))})")
    checksum = quirks.get("checksum", "crc16-ccitt")
    if checksum not in CHECKSUMS:
        raise ValueError(
            f"{where}.checksum: one of {sorted(CHECKSUMS)} expected, found {checksum!r}"
        )
    return LinkQuirks(
        checksum=checksum,
        ack_timeout_s=_number(quirks, "ack_timeout_s", 0.5, where),
        max_resends=_integer(quirks, "max_resends", 3, 0, 100, where),
        heartbeat_s=_number(quirks, "heartbeat_s", 1.0, where),
        max_frame_length=_integer(quirks, "max_frame_length", 256, 32, 65536, where),
        fault_codes=_codes(quirks, "fault_codes", fault_codes, where),
        tamper_codes=_codes(quirks, "tamper_codes", tamper_codes, where),
        flags={name: _flag(quirks, name, where) for name in flags},
    )


def _number(quirks: dict[str, Any], key: str, default: float, where: str) -> float:
    value = quirks.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise ValueError(f"{where}.{key}: a positive number expected, found {value!r}")
    return float(value)


def _integer(
    quirks: dict[str, Any], key: str, default: int, low: int, high: int, where: str
) -> int:
    value = quirks.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(
            f"{where}.{key}: an integer from {low} to {high} expected, found {value!r}"
        )
    return value


def _flag(quirks: dict[str, Any], key: str, where: str) -> bool:
    value = quirks.get(key, False)
    if not isinstance(value, bool):
        raise ValueError(f"{where}.{key}: true or false expected, found {value!r}")
    return value


def _codes(quirks: dict[str, Any], key: str, default: dict[int, str], where: str) -> dict[int, str]:
    table = quirks.get(key, default)
    if not isinstance(table, dict) or not table:
        raise ValueError(f"{where}.{key}: a mapping of code to text expected, found {table!r}")
    for code, text in table.items():
        if isinstance(code, bool) or not isinstance(code, int) or not 0 < code < 1000:
            raise ValueError(f"{where}.{key}: codes from 1 to 999 expected, found {code!r}")
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"{where}.{key}.{code}: a text expected, found {text!r}")
    return dict(table)


# ----- field grammar shared by the families ---------------------------------------


def expect_fields(frame: Frame, *names: str) -> tuple[str, ...]:
    """The frame's fields, exactly as many as `names`, or a FrameError naming them."""
    if len(frame.fields) != len(names):
        wanted = ", ".join(names) or "no field"
        raise FrameError(f"{frame.type}: {wanted} expected, found {len(frame.fields)} field(s)")
    return frame.fields


def parse_int(value: str, what: str) -> int:
    if not _INT.fullmatch(value):
        raise FrameError(f"{what}: a decimal number expected, found {value!r}")
    return int(value)


def parse_text(value: str, what: str) -> str:
    if not value.strip():
        raise FrameError(f"{what}: a text expected, found {value!r}")
    return value


RANKS = "A23456789TJQK"
SUITS = "SHDC"


def parse_card(value: str, what: str) -> str:
    """A card as rank+suit (`AS`, `TD`, `KH`); `10`, lower case or a joker are refused."""
    if len(value) != 2 or value[0] not in RANKS or value[1] not in SUITS:
        raise FrameError(
            f"{what}: a card (rank A 2-9 T J Q K, suit S H D C) expected, found {value!r}"
        )
    return value


def code_text(code: int, text: str, table: dict[int, str]) -> str:
    """The device's text for a code, or the profile's when the device sent none (`-`)."""
    if text != NO_VALUE:
        return text
    return table.get(code, f"unknown code {code}")


@dataclass(frozen=True)
class SelfTest:
    passed: bool
    code: int
    text: str


def parse_self_test(frame: Frame) -> SelfTest:
    """A `TSR` frame: `P` with code 0, or `F` with the failure's code, and a text."""
    passed, raw_code, text = expect_fields(frame, "P or F", "code", "text")
    if passed not in ("P", "F"):
        raise FrameError(f"TSR: P or F expected, found {passed!r}")
    code = parse_int(raw_code, "TSR code")
    if (code == 0) != (passed == "P"):
        raise FrameError(f"TSR: code 0 exactly when passed expected, found {passed} {code}")
    return SelfTest(passed == "P", code, parse_text(text, "TSR text"))


def self_test_reply(frame: Frame, fault_codes: dict[int, str]) -> list[Output]:
    """A shoe's or a shuffler's `TSR`: the reply to `TST`, after a fault if it failed.

    These families have no self-test event of their own, and a failed self-test must
    not pass unseen: it is a `device.fault` with origin `self_test`.
    """
    result = parse_self_test(frame)
    out: list[Output] = []
    if not result.passed:
        text = code_text(result.code, result.text, fault_codes)
        data = {"code": result.code, "text": text, "origin": "self_test"}
        out.append(DeviceEvent(EventType.DEVICE_FAULT, data))
    return [*out, DeviceReply(prefix="TSR", text=frame.text)]


@dataclass(frozen=True)
class Identity:
    maker: str
    model: str
    serial: str | None
    firmware: str
    capabilities: tuple[str, ...]


def parse_identity(fields: tuple[str, ...]) -> Identity:
    """An `IDN` frame's fields: maker, model, serial (or `-`), firmware, capabilities."""
    if len(fields) != 5:
        raise FrameError(f"IDN: 5 fields expected, found {len(fields)}")
    maker, model, serial, firmware, words = fields
    for name, value in (("maker", maker), ("model", model), ("firmware", firmware)):
        if value == NO_VALUE:
            raise FrameError(f"IDN: {name} expected, found '-'")
        parse_text(value, f"IDN {name}")
    capabilities = () if words == NO_VALUE else tuple(words.split(","))
    if any(not _CAPABILITY.fullmatch(w) for w in capabilities):
        raise FrameError(f"IDN: capabilities must be lower-case words or '-', found {words!r}")
    if len(set(capabilities)) != len(capabilities):
        raise FrameError(f"IDN: a capability listed twice in {words!r}")
    serial_value = None if serial == NO_VALUE else parse_text(serial, "IDN serial")
    return Identity(maker, model, serial_value, firmware, capabilities)
