"""Property tests for the card-device drivers: whatever arrives, they never raise, and
a valid frame after any garbage is read as if the garbage had not been there.
"""

from __future__ import annotations

import string

import pytest
from cards_golden import cases_of
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drivers.flf1.card_reader import CardReaderDriver
from drivers.flf1.card_shuffler import CardShufflerDriver
from drivers.flf1.codec import encode_frame
from drivers.flf1.dealing_shoe import DealingShoeDriver
from floord.contract import EVENT_TYPES, EventType
from floord.events import DeviceEvent, DeviceReply, Outgoing
from floord.profiles import load_profile

pytestmark = pytest.mark.unit

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
PRINTABLE = frozenset(string.printable) - frozenset("\r\n\t\x0b\x0c")
CASES = [
    c
    for name in ("framing", "card_reader", "dealing_shoe", "card_shuffler")
    for c in cases_of(name)
]
STREAMS = [(case, b"".join(step.data for step in case.steps)) for case in CASES]
DRIVERS = [
    (CardReaderDriver, "ref-card-reader"),
    (CardReaderDriver, "ref-card-reader-xv"),
    (DealingShoeDriver, "ref-shoe-manual"),
    (DealingShoeDriver, "ref-shoe-recognition"),
    (DealingShoeDriver, "ref-shoe-double"),
    (CardShufflerDriver, "ref-shuffler-batch"),
    (CardShufflerDriver, "ref-shuffler-csm"),
]
PROFILES = {name: load_profile(name) for _, name in DRIVERS}
TYPES = ["IDN", "HBT", "FLT", "FLC", "TMP", "NAK", "ACK", "PEK", "TSR", "LOD", "CRD", "FUP"]
TYPES += ["CUT", "EMP", "SHS", "SHC", "BRD", "BRM", "JAM", "DOR", "OOO", "MOD", "XYZ"]
FIELDS = ["-", "L", "R", "Y", "N", "P", "F", "O", "C", "B", "0", "1", "12", "312", "KH", "AS"]
FIELDS += ["10H", "red", "", "a b", "batch,counting", "exposes_value"]


def check_outputs(outputs: list) -> None:
    for out in outputs:
        if isinstance(out, Outgoing):
            assert out.payload.startswith(b"\x02") and out.payload.endswith(b"\r\n")
        elif isinstance(out, DeviceReply):
            assert out.text.startswith(out.prefix + "|")
        else:
            assert isinstance(out, DeviceEvent) and out.type in EVENT_TYPES
            if out.type == EventType.DEVICE_PROTOCOL_ERROR:
                assert out.data["reason"]
                assert len(out.data["raw"]) <= 80 and set(out.data["raw"]) <= PRINTABLE


def make(index: int):
    kind, name = DRIVERS[index]
    return kind(PROFILES[name])


@FUZZ
@given(index=st.integers(0, len(DRIVERS) - 1), chunks=st.lists(st.binary(max_size=300), max_size=8))
def test_random_bytes_never_raise(index: int, chunks: list[bytes]) -> None:
    driver = make(index)
    for at, chunk in enumerate(chunks):
        check_outputs(driver.feed(chunk, at * 0.3))


frames = st.builds(
    lambda seq, kind, fields, checksum: encode_frame(seq, kind, tuple(fields), checksum),
    st.integers(0, 255),
    st.sampled_from(TYPES),
    st.lists(st.sampled_from(FIELDS), max_size=6),
    st.sampled_from(["crc16-ccitt", "xor8"]),
)


@FUZZ
@given(index=st.integers(0, len(DRIVERS) - 1), stream=st.lists(frames, max_size=20))
def test_random_well_formed_frames_never_raise(index: int, stream: list[bytes]) -> None:
    driver = make(index)
    for at, data in enumerate(stream):
        check_outputs(driver.feed(data, at * 0.5))


@FUZZ
@given(
    case_index=st.integers(0, len(STREAMS) - 1),
    flips=st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255)), max_size=6),
    cuts=st.lists(st.integers(0, 10_000), max_size=4),
)
def test_mutated_golden_streams_never_raise(case_index: int, flips, cuts) -> None:
    case, stream = STREAMS[case_index]
    data = bytearray(stream)
    for position, value in flips:
        if data:
            data[position % len(data)] = value
    for position in sorted({c % (len(data) + 1) for c in cuts}, reverse=True):
        del data[position : position + 7]
    driver = case.driver()
    check_outputs(driver.feed(bytes(data), 0.0))


@FUZZ
@given(case_index=st.integers(0, len(CASES) - 1), garbage=st.binary(max_size=400))
def test_reset_after_garbage_is_a_fresh_driver(case_index: int, garbage: bytes) -> None:
    case = CASES[case_index]
    driver = case.driver()
    # Garbage and half a frame, then `reset()` (a reconnect): the case reads as on a new driver.
    check_outputs(driver.feed(garbage, 0.0))
    driver.feed(b"\x02", 0.0)
    driver.reset()
    for step in case.steps:
        assert driver.feed(step.data, step.now) == step.expected, case.name


@FUZZ
@given(case_index=st.integers(0, len(CASES) - 1), garbage=st.binary(max_size=200))
def test_garbage_before_a_case_costs_at_most_one_report(case_index: int, garbage: bytes) -> None:
    case = CASES[case_index]
    first = case.steps[0]
    if not first.data.startswith(b"\x02"):
        return
    driver = case.driver()
    clean = [b for b in garbage if b != 0x02]
    got = driver.feed(bytes(clean), first.now) + driver.feed(first.data, first.now)
    extra = got[: len(got) - len(first.expected)]
    assert got[len(extra) :] == first.expected
    assert len(extra) <= 1
    assert all(e.type == EventType.DEVICE_PROTOCOL_ERROR for e in extra)
