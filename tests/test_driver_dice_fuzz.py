"""Property tests for the dice tracker driver: whatever arrives, it never raises, gives
only the family's events (a malformed frame is a `device.protocol_error`), every
`dice.throw` it gives has the documented shape, and a valid stream after garbage reads as
if the garbage had not been there.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_driver_cards_fuzz import FUZZ, check_outputs
from test_driver_dice_tracker import CASES, TRACKER

from drivers.flf1.codec import encode_frame
from drivers.flf1.dice_tracker import LIES, RESTS, DiceTrackerDriver
from floord.contract import EventType
from floord.events import DeviceEvent
from floord.profiles import DeviceProfile, load_profile

pytestmark = pytest.mark.unit

PROFILES = [TRACKER, load_profile("ref-paigow-shaker")]
ALLOWED = {
    EventType.DICE_SET, EventType.DICE_SELECTED, EventType.DICE_THROW, EventType.DEVICE_FAULT,
    EventType.DEVICE_TAMPER, EventType.DEVICE_PROTOCOL_ERROR, EventType.DEVICE_HEARTBEAT_LOST,
}  # fmt: skip
TYPES = ["THR", "SET", "SEL", "TSR", "IDN", "HBT", "FLT", "FLC", "TMP", "NAK", "ACK", "SHK"]
# Words a throw is made of, good and bad, so that many random frames come close to valid.
WORDS = ["-", "Y", "N", "y", "0", "1", "3", "6", "7", "06", "D1", "D2", "D 1", "", *RESTS]
WORDS += [*LIES, "floor", "P", "F", "ok", "70"]
STREAMS = [b"".join(step.data for step in case.steps) for case in CASES]


def check_events(outputs: list, dice: int) -> None:
    check_outputs(outputs)
    for out in outputs:
        if not isinstance(out, DeviceEvent):
            continue
        assert out.type in ALLOWED
        if out.type == EventType.DICE_THROW:
            assert set(out.data) == {"throw", "together", "dice"} and out.data["throw"] >= 1
            assert len(out.data["dice"]) == dice
            for die in out.data["dice"]:
                assert set(die) == {"id", "face", "rest", "lie", "far_end"}
                assert die["face"] is None or 1 <= die["face"] <= 6
                assert die["rest"] in (*RESTS, None) and die["lie"] in (*LIES, None)
        if out.type in (EventType.DICE_SET, EventType.DICE_SELECTED):
            assert len(set(out.data["dice"])) == len(out.data["dice"])


frames = st.builds(
    lambda seq, kind, fields: (kind, seq, tuple(fields)),
    st.integers(0, 255),
    st.sampled_from(TYPES),
    st.lists(st.sampled_from(WORDS), max_size=17),
)


def _driver(index: int) -> tuple[DiceTrackerDriver, DeviceProfile]:
    profile = PROFILES[index]
    return DiceTrackerDriver(profile), profile


@FUZZ
@given(index=st.integers(0, 1), chunks=st.lists(st.binary(max_size=300), max_size=8))
def test_random_bytes_never_raise(index: int, chunks: list[bytes]) -> None:
    driver, _ = _driver(index)
    for at, chunk in enumerate(chunks):
        check_events(driver.feed(chunk, at * 0.3), driver.dice)


@FUZZ
@given(index=st.integers(0, 1), stream=st.lists(frames, max_size=20))
def test_random_well_formed_frames_never_raise(index: int, stream: list) -> None:
    driver, _ = _driver(index)
    for at, (kind, seq, fields) in enumerate(stream):
        data = encode_frame(seq, kind, fields, driver.quirks.checksum)
        check_events(driver.feed(data, at * 0.5), driver.dice)


def _proper(driver: DiceTrackerDriver, draw: st.DrawFn) -> list[str]:
    """A throw this device may send: a value where it has the capability, else `-`."""
    flags = driver.quirks.flags

    def value(flag: str, words: list[str]) -> str:
        return draw(st.sampled_from(words)) if flags[flag] else "-"

    fields = [value("together", ["Y", "N"])]
    ids = draw(st.permutations(["D1", "D2", "D3", "D4"]))
    for n in range(driver.dice):
        rest, lie = value("rest", list(RESTS)), value("cocked", list(LIES))
        unread = rest in ("off", "cup") or lie == "cocked_multi"
        face = draw(st.sampled_from(["-", "1", "6"] if unread else ["1", "2", "5", "6"]))
        fields += [ids[n] if flags["die_ids"] else "-", face, rest, lie,
                   value("far_end", ["Y", "N"])]  # fmt: skip
    return fields


@FUZZ
@given(index=st.integers(0, 1), data=st.data())
def test_throws_of_the_right_length_are_decoded_or_refused_never_half_read(
    index: int, data: st.DataObject
) -> None:
    driver, _ = _driver(index)
    fields = _proper(driver, data.draw)
    spoilt = data.draw(st.booleans())
    if spoilt:  # one field replaced by another word: a good throw or a refused one
        where = data.draw(st.integers(0, len(fields) - 1))
        fields[where] = data.draw(st.sampled_from(WORDS))
    out = driver.feed(encode_frame(0, "THR", tuple(fields), driver.quirks.checksum), 0.0)
    check_events(out, driver.dice)
    kinds = [o.type for o in out if isinstance(o, DeviceEvent)]
    assert kinds in ([EventType.DICE_THROW], [EventType.DEVICE_PROTOCOL_ERROR])
    assert spoilt or kinds == [EventType.DICE_THROW]  # every proper throw is read
    assert driver.throw == (1 if kinds == [EventType.DICE_THROW] else 0)


@FUZZ
@given(
    case_index=st.integers(0, len(STREAMS) - 1),
    flips=st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255)), max_size=6),
    cuts=st.lists(st.integers(0, 10_000), max_size=4),
)
def test_mutated_golden_streams_never_raise(case_index: int, flips, cuts) -> None:
    data = bytearray(STREAMS[case_index])
    for position, value in flips:
        data[position % len(data)] = value
    for position in sorted({c % (len(data) + 1) for c in cuts}, reverse=True):
        del data[position : position + 7]
    driver = CASES[case_index].driver()
    check_events(driver.feed(bytes(data), 0.0), driver.dice)


@FUZZ
@given(case_index=st.integers(0, len(CASES) - 1), garbage=st.binary(max_size=400))
def test_reset_after_garbage_is_a_fresh_link(case_index: int, garbage: bytes) -> None:
    case = CASES[case_index]
    driver = case.driver()
    check_events(driver.feed(garbage, 0.0), driver.dice)
    driver.feed(b"\x02", 0.0)
    driver.reset()
    assert driver.throw == 0  # garbage numbered no throw
    for step in case.steps:
        assert driver.feed(step.data, step.now) == step.expected, case.name
