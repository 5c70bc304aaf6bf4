"""The card shuffler driver (docs/protocols/card-shuffler.md): golden frames and identity."""

from __future__ import annotations

import pytest
from cards_golden import Case, cases_of, check_golden, check_golden_checksums
from test_driver_card_reader import _types

from drivers.flf1.card_shuffler import CardShufflerDriver
from floord.contract import EventType
from floord.events import DeviceReply
from floord.profiles import load_profile

pytestmark = pytest.mark.unit

CASES = cases_of("card_shuffler")
BATCH = load_profile("ref-shuffler-batch")
CSM = load_profile("ref-shuffler-csm")


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_golden_case(case: Case) -> None:
    check_golden(case)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_golden_checksums_are_right(case: Case) -> None:
    check_golden_checksums(case)


def test_every_device_message_of_the_page_is_in_the_golden_file() -> None:
    types = {t for case in CASES for step in case.steps for t in _types(step.data)}
    wanted = {"IDN", "SHS", "SHC", "BRD", "BRM", "JAM", "DOR", "OOO", "MOD"}
    assert wanted | {"TSR", "FLT", "FLC", "TMP", "HBT", "NAK"} <= types


def idn(capabilities: str) -> dict[str, DeviceReply]:
    text = f"IDN|floord reference|ref-shuffler|AS-000777|3.2.0|{capabilities}"
    return {"identify": DeviceReply(prefix="IDN", text=text)}


@pytest.mark.parametrize(
    ("profile", "capabilities"),
    [
        (BATCH, "batch,counting"),
        (BATCH, "batch"),
        (CSM, "continuous,counting"),
        (CSM, "batch,continuous"),
    ],
)
def test_identity_matching_the_profile(profile, capabilities: str) -> None:
    event = CardShufflerDriver(profile).identity(idn(capabilities))
    assert event.type == EventType.DEVICE_IDENTIFIED
    assert event.data["capabilities"] == capabilities.split(",")


@pytest.mark.parametrize(
    ("profile", "capabilities", "reason"),
    [
        (BATCH, "batch,continuous", "the device lists 'continuous'"),
        (CSM, "batch,counting", "does not list 'continuous'"),
        (BATCH, "batch,exposes_value", "capabilities unknown to a card_shuffler"),
    ],
)
def test_identity_refuses_a_contradiction(profile, capabilities: str, reason: str) -> None:
    event = CardShufflerDriver(profile).identity(idn(capabilities))
    assert event.type == EventType.DEVICE_PROTOCOL_ERROR
    assert reason in event.data["reason"]
