"""Property tests: whatever arrives on the wire, the SS2 driver never raises, and it
finds its footing again at the next LF.

A serial line on a casino floor sees power-on noise, cut frames and bit errors; the
driver must turn all of that into `device.protocol_error` events, never a crash, and
a damaged stretch must not change how the valid stream after it is read.
"""

from __future__ import annotations

import string

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from test_driver_ss2 import CASES, PROFILE

from drivers.cammegh_ss2.driver import Ss2Driver
from drivers.cammegh_ss2.protocol import LineError, parse_status, wheel_labels
from floord.contract import EVENT_TYPES, EventType
from floord.events import DeviceEvent, DeviceReply

pytestmark = pytest.mark.unit

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
PRINTABLE = frozenset(string.printable) - frozenset("\r\n\t\x0b\x0c")

# Valid streams to mutate and to replay after garbage: each golden case's bytes and times.
STREAMS = [[(step.now, step.data) for step in case.steps] for case in CASES]


def check_outputs(outputs: list) -> None:
    """Every output is a known event or a reply; error reports are short printable text."""
    for out in outputs:
        if isinstance(out, DeviceReply):
            assert out.prefix and out.text.startswith("*")
            continue
        assert isinstance(out, DeviceEvent)
        assert out.type in EVENT_TYPES
        if out.type == EventType.DEVICE_PROTOCOL_ERROR:
            raw = out.data["raw"]
            assert len(raw) <= 80
            assert set(raw) <= PRINTABLE
            assert out.data["reason"]


def run(stream: list[tuple[float, bytes]], pockets: int = 37) -> list:
    driver = Ss2Driver(PROFILE, pockets)
    return [out for now, data in stream for out in driver.feed(data, now)]


@FUZZ
@given(
    chunks=st.lists(st.binary(max_size=120), max_size=12),
    pockets=st.sampled_from([37, 38, 39, 40]),
)
def test_random_bytes_never_raise(chunks: list[bytes], pockets: int) -> None:
    driver = Ss2Driver(PROFILE, pockets)
    for index, chunk in enumerate(chunks):
        check_outputs(driver.feed(chunk, index * 0.5))


# A stream-shaped alphabet finds deeper paths than uniform bytes: digits, `;`, `*`, CR LF.
WIRE_BYTES = st.lists(
    st.sampled_from([*b"*X;0123456789ABCDEF RTVFNO\r\n", 0, 0xFF]), max_size=200
).map(bytes)


@FUZZ
@given(data=WIRE_BYTES, pockets=st.sampled_from([37, 38]))
def test_wire_shaped_noise_never_raises(data: bytes, pockets: int) -> None:
    check_outputs(Ss2Driver(PROFILE, pockets).feed(data, 0.0))


def mutate(data: bytes, draw) -> bytes:
    """One random damage: a bit flip, an inserted byte, a deleted byte or a truncation."""
    if not data:
        return data
    kind = draw(st.sampled_from(["flip", "insert", "delete", "truncate"]))
    at = draw(st.integers(0, len(data) - 1))
    if kind == "flip":
        bit = draw(st.integers(0, 7))
        return data[:at] + bytes([data[at] ^ (1 << bit)]) + data[at + 1 :]
    if kind == "insert":
        return data[:at] + bytes([draw(st.integers(0, 255))]) + data[at:]
    if kind == "delete":
        return data[:at] + data[at + 1 :]
    return data[:at]


@FUZZ
@given(st.data())
def test_mutated_valid_streams_never_raise(data) -> None:
    case = data.draw(st.sampled_from(CASES), label="case")
    stream = []
    for step in case.steps:
        payload = step.data
        for _ in range(data.draw(st.integers(0, 3))):
            payload = mutate(payload, data.draw)
        stream.append((step.now, payload))
    check_outputs(run(stream, case.pockets))


@FUZZ
@given(st.data())
def test_mutated_stream_gives_the_same_events_however_it_is_split(data) -> None:
    case = data.draw(st.sampled_from(CASES), label="case")
    blob = b"".join(step.data for step in case.steps)
    for _ in range(data.draw(st.integers(0, 4))):
        blob = mutate(blob, data.draw)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(blob)), max_size=6)))
    pieces = [blob[a:b] for a, b in zip([0, *cuts], [*cuts, len(blob)], strict=True)]
    whole = run([(1.0, blob)], case.pockets)
    check_outputs(whole)
    assert run([(1.0, piece) for piece in pieces], case.pockets) == whole


def holds_a_status_frame(garbage: bytes, pockets: int) -> bool:
    """Whether any garbage line happens to be a valid status frame (it would set state)."""
    for line in garbage.split(b"\n"):
        text = line.removesuffix(b"\r").decode("latin-1")
        try:
            parse_status(text, wheel_labels(pockets))
        except LineError:
            continue
        return True
    return False


# Garbage: random bytes mixed with pieces of real frames, cut anywhere.
FRAGMENTS = st.sampled_from(
    [
        b"*X;4;011;23;0;16",
        b"*X;",
        b"00;0",
        b" 7",
        b"*  NO",
        b"*F 1",
        b"\r",
        b"*V V2.50 Cammegh",
        b"\xff\xfe",
        b"\x00",
    ]
)
GARBAGE = st.lists(st.one_of(st.binary(max_size=90), FRAGMENTS), max_size=8).map(b"".join)


@FUZZ
@given(
    garbage=GARBAGE,
    stream=st.sampled_from(range(len(STREAMS))),
    split=st.integers(0, 400),
)
def test_after_garbage_and_a_lf_a_valid_stream_decodes_as_alone(
    garbage: bytes, stream: int, split: int
) -> None:
    case = CASES[stream]
    # A real frame inside the garbage may rightly change the game state.
    assume(not holds_a_status_frame(garbage, case.pockets))
    alone = run(STREAMS[stream], case.pockets)
    driver = Ss2Driver(PROFILE, case.pockets)
    noise = garbage + b"\n"
    cut = min(split, len(noise))
    check_outputs(driver.feed(noise[:cut], 0.0) + driver.feed(noise[cut:], 0.0))
    after = [out for now, data in STREAMS[stream] for out in driver.feed(data, now)]
    assert after == alone


def test_garbage_then_lf_check_is_not_vacuous() -> None:
    """The resync property above must see real events after the noise, not just silence."""
    case = next(c for c in CASES if c.name == "full_cycle")
    driver = Ss2Driver(PROFILE, 37)
    noise = driver.feed(b"\xff" * 200 + b"*X;4;011;23;0;16\x00\n", 0.0)
    assert [e.type for e in noise] == [EventType.DEVICE_PROTOCOL_ERROR]
    after = [out for step in case.steps for out in driver.feed(step.data, step.now)]
    assert after == run([(s.now, s.data) for s in case.steps]) and len(after) >= 5
