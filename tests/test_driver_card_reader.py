"""The card reader driver (docs/protocols/card-reader.md): golden frames and identity.

58 Pa. Code § 549.16(j): only a reader whose profile says `exposes_value` may tell the
hole card; a card from any other reader is refused, and a reader whose IDN contradicts
its profile is not identified.
"""

from __future__ import annotations

import pytest
from cards_golden import Case, cases_of, check_golden, check_golden_checksums

from drivers.flf1.card_reader import CardReaderDriver
from floord.contract import EventType
from floord.events import DeviceReply
from floord.profiles import load_profile

pytestmark = pytest.mark.unit

CASES = cases_of("card_reader")
READER = load_profile("ref-card-reader")
READER_XV = load_profile("ref-card-reader-xv")


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_golden_case(case: Case) -> None:
    check_golden(case)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_golden_checksums_are_right(case: Case) -> None:
    check_golden_checksums(case)


def test_every_device_message_of_the_page_is_in_the_golden_file() -> None:
    types = {t for case in CASES for step in case.steps for t in _types(step.data)}
    assert {"IDN", "PEK", "TSR", "FLT", "FLC", "TMP", "HBT", "NAK"} <= types


def _types(data: bytes) -> set[str]:
    """The TYPE of every frame in `data`."""
    bodies = (part.split(b"\x03")[0] for part in data.split(b"\x02")[1:])
    return {body.split(b"|")[1].decode() for body in bodies if b"|" in body}


def idn(capabilities: str, model: str = "ref-card-reader") -> dict[str, DeviceReply]:
    text = f"IDN|floord reference|{model}|CR-000123|1.4.2|{capabilities}"
    return {"identify": DeviceReply(prefix="IDN", text=text)}


def test_identity_of_a_plain_reader() -> None:
    event = CardReaderDriver(READER).identity(idn("-"))
    assert event.type == EventType.DEVICE_IDENTIFIED
    assert event.data == {
        "maker": "floord reference",
        "model": "ref-card-reader",
        "serial": "CR-000123",
        "firmware": "1.4.2",
        "capabilities": [],
    }


def test_identity_of_an_exposing_reader() -> None:
    event = CardReaderDriver(READER_XV).identity(idn("exposes_value", "ref-card-reader-xv"))
    assert event.type == EventType.DEVICE_IDENTIFIED
    assert event.data["capabilities"] == ["exposes_value"]


@pytest.mark.parametrize(
    ("profile", "capabilities", "reason"),
    [
        (READER, "exposes_value", "the device lists 'exposes_value'"),
        (READER_XV, "-", "the device does not list 'exposes_value'"),
        (READER, "recognition", "capabilities unknown to a card_reader: ['recognition']"),
        (READER, "x,", "capabilities must be lower-case words"),
    ],
)
def test_identity_refuses_a_contradiction(profile, capabilities: str, reason: str) -> None:
    event = CardReaderDriver(profile).identity(idn(capabilities))
    assert event.type == EventType.DEVICE_PROTOCOL_ERROR
    assert reason in event.data["reason"]
    assert event.data["raw"].startswith("IDN|floord reference")


@pytest.mark.parametrize(
    "replies",
    [
        {},
        {"identify": DeviceReply(prefix="NAK", text="NAK|3|busy")},
        {"identify": DeviceReply(prefix="IDN", text="IDN|a|b")},
        {"identify": DeviceReply(prefix="IDN", text="HBT")},
    ],
)
def test_identity_without_a_usable_idn(replies: dict[str, DeviceReply]) -> None:
    event = CardReaderDriver(READER).identity(replies)
    assert event.type == EventType.DEVICE_PROTOCOL_ERROR
    assert event.data["reason"]
