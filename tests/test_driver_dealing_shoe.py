"""The dealing shoe driver (docs/protocols/dealing-shoe.md): golden frames and identity.

Manual, recognition and double shoes share one grammar; the profile's `recognition` and
`double` decide which frames are right, and the IDN must agree with the profile (the
table's config matches `quirks.double` with its rules.shoe).
"""

from __future__ import annotations

import pytest
from cards_golden import Case, cases_of, check_golden, check_golden_checksums
from test_driver_card_reader import _types

from drivers.flf1.dealing_shoe import DealingShoeDriver
from floord.contract import EventType
from floord.events import DeviceReply
from floord.profiles import load_profile

pytestmark = pytest.mark.unit

CASES = cases_of("dealing_shoe")
PROFILES = {
    name: load_profile(name)
    for name in (
        "ref-shoe-manual",
        "ref-shoe-recognition",
        "ref-shoe-double",
        "ref-shoe-automated",
    )
}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_golden_case(case: Case) -> None:
    check_golden(case)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_golden_checksums_are_right(case: Case) -> None:
    check_golden_checksums(case)


def test_every_device_message_of_the_page_is_in_the_golden_file() -> None:
    types = {t for case in CASES for step in case.steps for t in _types(step.data)}
    assert {
        "IDN",
        "LOD",
        "CRD",
        "FUP",
        "CUT",
        "EMP",
        "OOO",
        "TSR",
        "FLT",
        "FLC",
        "TMP",
        "HBT",
        "NAK",
    } <= types
    assert {case.profile.model for case in CASES} == set(PROFILES)


def test_profiles_say_what_the_config_checks() -> None:
    assert [PROFILES[n].quirks["double"] for n in sorted(PROFILES)] == [
        False,  # automated
        True,  # double
        False,  # manual
        False,  # recognition
    ]
    assert PROFILES["ref-shoe-recognition"].quirks["recognition"] is True
    assert PROFILES["ref-shoe-automated"].quirks["recognition"] is True
    assert PROFILES["ref-shoe-manual"].quirks["recognition"] is False


def idn(capabilities: str) -> dict[str, DeviceReply]:
    text = f"IDN|floord reference|ref-shoe|SH-000042|2.0.1|{capabilities}"
    return {"identify": DeviceReply(prefix="IDN", text=text)}


@pytest.mark.parametrize(
    ("name", "capabilities"),
    [
        ("ref-shoe-manual", "-"),
        ("ref-shoe-recognition", "recognition"),
        ("ref-shoe-double", "recognition,double"),
        ("ref-shoe-double", "double,recognition"),
    ],
)
def test_identity_matching_the_profile(name: str, capabilities: str) -> None:
    event = DealingShoeDriver(PROFILES[name]).identity(idn(capabilities))
    assert event.type == EventType.DEVICE_IDENTIFIED
    words = [] if capabilities == "-" else capabilities.split(",")
    assert event.data["capabilities"] == words


@pytest.mark.parametrize(
    ("name", "capabilities", "reason"),
    [
        ("ref-shoe-recognition", "-", "does not list 'recognition'"),
        ("ref-shoe-manual", "recognition", "the device lists 'recognition'"),
        ("ref-shoe-double", "recognition", "does not list 'double'"),
        ("ref-shoe-recognition", "recognition,double", "the device lists 'double'"),
        ("ref-shoe-manual", "counting", "capabilities unknown to a dealing_shoe"),
    ],
)
def test_identity_refuses_a_contradiction(name: str, capabilities: str, reason: str) -> None:
    event = DealingShoeDriver(PROFILES[name]).identity(idn(capabilities))
    assert event.type == EventType.DEVICE_PROTOCOL_ERROR
    assert reason in event.data["reason"]


def test_reset_forgets_the_counts() -> None:
    case = next(c for c in CASES if c.name == "count_continuity")
    driver = case.driver()
    for step in case.steps[:3]:
        driver.feed(step.data, step.now)
    driver.reset()
    # After a reconnect the count is unknown again: any first count is taken.
    frame = case.steps[0].data  # CRD 17, first frame: accepted whatever its SEQ
    outputs = driver.feed(frame, 0.0)
    assert [o for o in outputs if getattr(o, "type", None) == EventType.DEVICE_PROTOCOL_ERROR] == []
