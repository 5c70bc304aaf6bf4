"""The dice tracker driver (docs/protocols/dice-tracker.md): golden frames, the grammar of
each message against the profile's capabilities and `quirks.dice`, identity, numbering.

The golden cases (tests/golden/dice/) were written from the page; their checksums are
checked against the independent CRC of `cards_golden`, not floord's own code.
"""

from __future__ import annotations

import binascii
from pathlib import Path

import pytest
from cards_golden import Case, check_golden, check_golden_checksums, load_cases

from drivers.flf1.dice_tracker import DiceTrackerDriver
from floord.adapters.local import load_driver
from floord.contract import EventType
from floord.events import DeviceEvent, DeviceReply, Outgoing
from floord.profiles import DeviceProfile, load_profile

pytestmark = pytest.mark.unit

GOLDEN = Path(__file__).resolve().parent / "golden" / "dice" / "dice_tracker.txt"
CASES = load_cases(GOLDEN)
TRACKER = load_profile("ref-dice-tracker")
SHAKER = load_profile("ref-paigow-shaker")
TRACKER_IDN = "IDN|floord reference|ref-dice-tracker|DT-000537|1.0.0|"
SHAKER_IDN = "IDN|floord reference|ref-paigow-shaker|PG-000535|1.0.0|"
ALL = "die_ids,rest,cocked,far_end,together"
PROPER = "THR|Y|D2|3|table|flat|Y|D4|4|table|flat|Y"


def frame(seq: int, body: str) -> bytes:
    raw = f"{seq:02X}|{body}".encode()
    return b"\x02" + raw + b"\x03" + f"{binascii.crc_hqx(raw, 0xFFFF):04X}".encode() + b"\r\n"


def events(outputs: list) -> list[tuple[EventType, dict]]:
    return [(o.type, o.data) for o in outputs if isinstance(o, DeviceEvent)]


def _with_quirks(base: DeviceProfile, **quirks: object) -> DeviceProfile:
    body = base.model_dump()
    body["quirks"] = {**body["quirks"], **quirks}
    return DeviceProfile.model_validate(body)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_golden_cases_whole_split_and_byte_by_byte(case: Case) -> None:
    check_golden(case)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_golden_checksums_by_the_independent_crc(case: Case) -> None:
    check_golden_checksums(case)


def test_the_golden_cases_cover_every_event_of_the_family() -> None:
    outputs = [o for c in CASES for s in c.steps for o in s.expected]
    seen = {o.type for o in outputs if isinstance(o, DeviceEvent)}
    assert {EventType.DICE_SET, EventType.DICE_SELECTED, EventType.DICE_THROW} <= seen
    rests = {
        die["rest"]
        for c in CASES
        for s in c.steps
        for o in s.expected
        if isinstance(o, DeviceEvent) and o.type == EventType.DICE_THROW
        for die in o.data["dice"]
    }
    assert rests == {"table", "off", "die", "bank", "cup", "rail", None}


def _identify(driver: DiceTrackerDriver, text: str) -> DeviceEvent:
    return driver.identity({"identify": DeviceReply("IDN", text)})


def test_identity_needs_exactly_the_capabilities_of_the_profile() -> None:
    tracker, shaker = DiceTrackerDriver(TRACKER), DiceTrackerDriver(SHAKER)
    ok = _identify(tracker, TRACKER_IDN + ALL)
    assert ok.type == EventType.DEVICE_IDENTIFIED and ok.data["capabilities"] == ALL.split(",")
    assert _identify(shaker, SHAKER_IDN + "-").data["capabilities"] == []
    short = _identify(tracker, TRACKER_IDN + "die_ids,rest,cocked,far_end")
    assert "does not list 'together'" in short.data["reason"]
    extra = _identify(shaker, SHAKER_IDN + "rest")
    assert "lists 'rest'" in extra.data["reason"]
    odd = _identify(tracker, TRACKER_IDN + ALL + ",sum")
    assert "unknown to a dice_tracker" in odd.data["reason"]


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("THR|Y|D2|3|table|flat|Y|D4|4|table|flat", "11 fields expected"),
        ("THR|Y|D2|3|table|flat|Y|D4|4|table|flat|Y|Y", "11 fields expected"),
        ("THR|-|D2|3|table|flat|Y|D4|4|table|flat|Y", "together: a value expected"),
        ("THR|y|D2|3|table|flat|Y|D4|4|table|flat|Y", "together: Y or N expected"),
        ("THR|Y|D2|3|table|-|Y|D4|4|table|flat|Y", "die 1 lie: a value expected"),
        ("THR|Y|D2|3|bank|flat|-|D4|4|table|flat|Y", "die 1 far_end: a value expected"),
        ("THR|Y|D2|3|-|flat|Y|D4|4|table|flat|Y", "die 1 rest: a value expected"),
        ("THR|Y|D 2|3|table|flat|Y|D4|4|table|flat|Y", "die 1 id: a die id"),
        ("THR|Y|D2|0|table|flat|Y|D4|4|table|flat|Y", "face from 1 to 6"),
        ("THR|Y|D2|7|table|flat|Y|D4|4|table|flat|Y", "face from 1 to 6"),
        ("THR|Y|D2|03|table|flat|Y|D4|4|table|flat|Y", "decimal number"),
        ("THR|Y|D2|-|table|flat|Y|D4|4|table|flat|Y", "'-' only for a die off the table"),
        ("THR|Y|D2|-|die|cocked|Y|D4|4|table|flat|Y", "'-' only for a die off the table"),
        ("THR|Y|D2|3|floor|flat|Y|D4|4|table|flat|Y", "rest: one of table, off, die"),
        ("THR|Y|D2|3|table|tilted|Y|D4|4|table|flat|Y", "lie: one of flat, cocked"),
        ("THR|Y|D2|3|table|flat|yes|D4|4|table|flat|Y", "far_end: Y or N"),
        ("THR|Y|D2|3|table|flat|Y|D2|4|table|flat|Y", "each die once expected, found D2"),
        ("SEL|D2", "2 die ids expected, found 1"),
        ("SEL|D2|D4|D5", "2 die ids expected, found 3"),
        ("SEL|D2|D2", "each die once expected, found D2 twice"),
        ("SET", "1 to 32 die ids"),
        ("SET|D1|D2|D1", "each die once expected, found D1 twice"),
        ("SET|D1|-", "a die id"),
        ("SET|" + "|".join(f"D{n}" for n in range(33)), "1 to 32 die ids"),
        ("TSR|P|3|ok", "code 0 exactly when passed"),
        ("SHK", "unknown type"),
    ],
)
def test_tracker_bad_forms_are_protocol_errors_not_acknowledged(body: str, reason: str) -> None:
    driver = DiceTrackerDriver(TRACKER)
    driver.feed(frame(0, "HBT"), 0.0)
    out = driver.feed(frame(1, body), 0.1)
    assert not [o for o in out if isinstance(o, Outgoing)]
    [(kind, data)] = events(out)
    assert kind == EventType.DEVICE_PROTOCOL_ERROR and reason in data["reason"], data
    assert driver.throw == 0


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("THR|-|-|4|-|-|-|-|2|-|-|-", "16 fields expected"),
        ("THR|Y|-|4|-|-|-|-|2|-|-|-|-|6|-|-|-", "together: '-' expected from a device without"),
        ("THR|-|A|4|-|-|-|-|2|-|-|-|-|6|-|-|-", "die 1 id: '-' expected"),
        ("THR|-|-|4|table|-|-|-|2|-|-|-|-|6|-|-|-", "die 1 rest: '-' expected"),
        ("THR|-|-|4|-|flat|-|-|2|-|-|-|-|6|-|-|-", "die 1 lie: '-' expected"),
        ("THR|-|-|4|-|-|-|-|2|-|-|-|-|6|-|-|Y", "die 3 far_end: '-' expected"),
        ("THR|-|-|-|-|-|-|-|2|-|-|-|-|6|-|-|-", "'-' only for a die off the table"),
        ("SET|D1|D2|D3", "without the die_ids capability"),
        ("SEL|D1|D2|D3", "without the die_ids capability"),
    ],
)
def test_shaker_bad_forms_report_only_faces(body: str, reason: str) -> None:
    driver = DiceTrackerDriver(SHAKER)
    out = driver.feed(frame(0, body), 0.0)
    assert not [o for o in out if isinstance(o, Outgoing)]
    [(kind, data)] = events(out)
    assert kind == EventType.DEVICE_PROTOCOL_ERROR and reason in data["reason"], data


def test_throws_numbered_from_one_a_refused_one_not_counted_kept_across_reconnects() -> None:
    driver = DiceTrackerDriver(TRACKER)
    numbers = []
    bodies = [PROPER, "THR|Y|D2|9|table|flat|Y|D4|4|table|flat|Y", PROPER]
    seq = 0
    for n, body in enumerate(bodies):
        got = events(driver.feed(frame(seq, body), n * 0.1))
        numbers += [d["throw"] for k, d in got if k == EventType.DICE_THROW]
        seq += "9" not in body  # a refused frame's SEQ comes again with the next frame
    driver.reset()  # a new connection: the story starts again, the numbers go on
    [(kind, data)] = events(driver.feed(frame(0, PROPER), 1.0))
    assert numbers == [1, 2] and kind == EventType.DICE_THROW and data["throw"] == 3


def test_a_partial_tracker_reports_nulls_for_what_it_does_not_see() -> None:
    profile = _with_quirks(TRACKER, cocked=False, together=False)
    driver = DiceTrackerDriver(profile)
    [(kind, data)] = events(driver.feed(frame(0, "THR|-|D2|-|off|-|N|D4|6|die|-|Y"), 0.0))
    assert kind == EventType.DICE_THROW
    assert data == {"throw": 1, "together": None, "dice": [
        {"id": "D2", "face": None, "rest": "off", "lie": None, "far_end": False},
        {"id": "D4", "face": 6, "rest": "die", "lie": None, "far_end": True}]}  # fmt: skip


def test_an_unread_id_and_an_unseen_die_are_dashes_from_a_full_tracker() -> None:
    """The page: a die whose id the camera could not read is `-` (null) from any tracker;
    a die it cannot see (off the table, in the dice cup) may leave its face, lie and
    far_end `-`; rest is always given."""
    driver = DiceTrackerDriver(TRACKER)
    body = "THR|Y|-|3|table|flat|Y|-|-|off|-|-"
    [(kind, data)] = events(driver.feed(frame(0, body), 0.0))
    assert kind == EventType.DICE_THROW
    assert data["dice"] == [
        {"id": None, "face": 3, "rest": "table", "lie": "flat", "far_end": True},
        {"id": None, "face": None, "rest": "off", "lie": None, "far_end": None},
    ]
    [(kind, data)] = events(driver.feed(frame(1, "THR|Y|D2|-|cup|-|N|D4|4|table|flat|Y"), 0.1))
    assert data["dice"][0] == {"id": "D2", "face": None, "rest": "cup", "lie": None,
                               "far_end": False}  # fmt: skip


@pytest.mark.parametrize("dice", [None, 1, 4, "2", True, 2.0])
def test_a_profile_must_say_two_or_three_dice(dice: object) -> None:
    body = TRACKER.model_dump()
    body["quirks"] = {k: v for k, v in body["quirks"].items() if k != "dice"}
    if dice is not None:
        body["quirks"]["dice"] = dice
    with pytest.raises(ValueError, match=r"quirks\.dice: 2 or 3"):
        DiceTrackerDriver(DeviceProfile.model_validate(body))


def test_unknown_or_ill_typed_quirks_and_other_families_are_refused() -> None:
    with pytest.raises(ValueError, match=r"quirks\.faces: unknown quirk"):
        DiceTrackerDriver(_with_quirks(TRACKER, faces=True))
    with pytest.raises(ValueError, match=r"quirks\.rest: true or false"):
        DiceTrackerDriver(_with_quirks(TRACKER, rest="yes"))
    with pytest.raises(ValueError, match="not a dice_tracker"):
        DiceTrackerDriver(load_profile("ref-big-six"))


def test_the_daemon_builds_it_from_the_profile_with_no_options() -> None:
    driver = load_driver(SHAKER, {})
    assert isinstance(driver, DiceTrackerDriver) and driver.dice == 3
    assert load_driver(TRACKER, {}).dice == 2  # type: ignore[attr-defined]
