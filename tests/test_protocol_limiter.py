"""The protocol-error limiter in virtual time: what a noisy line may put on the record."""

from __future__ import annotations

from typing import Any

import pytest

from floord.adapters.protocol_limiter import ProtocolErrorLimiter, kind_of
from floord.contract import EventType
from floord.events import DeviceEvent
from floord.profiles import ProtocolErrorPolicy

pytestmark = pytest.mark.unit

POLICY = ProtocolErrorPolicy(interval_s=10.0, kinds=2, fault_after=5)


def error(reason: str, raw: str = "") -> dict[str, Any]:
    return {"reason": reason, "raw": raw}


def ts(at: float) -> str:
    return f"t={at:g}"


def types(events: list[DeviceEvent]) -> list[str]:
    return [str(e.type) for e in events]


def test_the_kind_of_an_error_ignores_what_varies() -> None:
    assert kind_of("3 frame(s) lost: SEQ 0A after 06") == kind_of(
        "1 frame(s) lost: SEQ 02 after 00"
    )
    assert kind_of("checksum mismatch: frame says 1A2B, computed 00FF") == kind_of(
        "checksum mismatch: frame says 0000, computed 29B1"
    )
    assert kind_of("unknown card code 'ZZ'") == kind_of("unknown card code '7'")
    assert kind_of("bytes outside a frame") != kind_of("frame cut by a new STX")
    assert len(kind_of("x" * 10_000)) <= 80


def test_first_of_each_kind_is_recorded_then_counted_per_window() -> None:
    limiter = ProtocolErrorLimiter(ProtocolErrorPolicy(interval_s=10.0, kinds=2, fault_after=99))
    out = limiter.offer(error("bytes outside a frame", "a"), 0.0, ts(0))
    assert out == [
        DeviceEvent(EventType.DEVICE_PROTOCOL_ERROR, error("bytes outside a frame", "a"))
    ]
    assert limiter.offer(error("bytes outside a frame", "b"), 1.0, ts(1)) == []
    recorded = limiter.offer(error("checksum mismatch: frame says 0000, computed 29B1"), 2.0, ts(2))
    assert types(recorded) == ["device.protocol_error"]
    # A third kind is past `kinds`: counted too.
    assert limiter.offer(error("unknown type XYZ for a card_reader"), 3.0, ts(3)) == []
    assert limiter.offer(error("bytes outside a frame", "c"), 9.5, ts(9.5)) == []
    assert limiter.due(9.9) == []
    assert limiter.window_end == 10.0
    (summary,) = limiter.due(10.0)
    assert summary.type == EventType.DEVICE_PROTOCOL_ERRORS
    assert summary.data == {
        "count": 3,
        "first": ts(1),
        "last": ts(9.5),
        "sample": {"reason": "bytes outside a frame", "raw": "b"},
        "interval_s": 10.0,
    }
    # The spell goes on: a kind already recorded is still only counted.
    assert limiter.offer(error("bytes outside a frame", "d"), 12.0, ts(12)) == []
    (summary,) = limiter.offer(error("bytes outside a frame", "e"), 21.0, ts(21))
    assert (summary.data["count"], summary.data["first"], summary.data["last"]) == (
        1,
        ts(12),
        ts(12),
    )


def test_a_whole_quiet_window_ends_the_spell() -> None:
    limiter = ProtocolErrorLimiter(POLICY)
    assert types(limiter.offer(error("bytes outside a frame"), 0.0, ts(0))) == [
        "device.protocol_error"
    ]
    assert limiter.offer(error("bytes outside a frame"), 1.0, ts(1)) == []
    assert types(limiter.due(10.0)) == ["device.protocol_errors"]
    assert limiter.window_end == 20.0  # the next window, still in the spell
    assert limiter.due(20.0) == []
    assert limiter.window_end is None
    # A new spell: the same kind is recorded again as it is.
    assert types(limiter.offer(error("bytes outside a frame"), 25.0, ts(25))) == [
        "device.protocol_error"
    ]


def test_a_late_error_closes_every_window_it_skipped() -> None:
    limiter = ProtocolErrorLimiter(POLICY)
    limiter.offer(error("bytes outside a frame"), 0.0, ts(0))
    limiter.offer(error("bytes outside a frame"), 1.0, ts(1))
    out = limiter.offer(error("bytes outside a frame"), 1000.0, ts(1000))
    # The count of the first window, then this error recorded as the first of a new spell.
    assert types(out) == ["device.protocol_errors", "device.protocol_error"]


def test_a_burst_is_a_fault_once_a_spell() -> None:
    limiter = ProtocolErrorLimiter(POLICY)
    outs = [limiter.offer(error("bytes outside a frame"), i * 0.1, ts(i)) for i in range(12)]
    faults = [(i, e) for i, out in enumerate(outs) for e in out if e.type == EventType.DEVICE_FAULT]
    assert [i for i, _ in faults] == [4]  # the fifth error in one window
    fault = faults[0][1]
    assert fault.data["origin"] == "protocol_errors"
    assert fault.data["code"] is None
    assert "5 protocol errors within 10 s" in fault.data["text"]
    # The spell goes on past its windows: no second fault for the same noisy line.
    for at in (10.0, 10.1, 10.2, 10.3, 10.4, 10.5):
        assert EventType.DEVICE_FAULT not in types(
            limiter.offer(error("bytes outside a frame"), at, ts(at))
        )


def test_a_new_connection_arms_the_fault_again_with_its_own_count() -> None:
    # The engine clears a protocol-error fault once the device identifies on a new
    # connection: a line still noisy on that connection must fault again.
    limiter = ProtocolErrorLimiter(POLICY)
    noise = error("bytes outside a frame")
    first = [e for i in range(7) for e in limiter.offer(noise, i * 0.1, ts(i))]
    assert types(first).count("device.fault") == 1
    (summary,) = limiter.close()  # the link ends: a count, and the spell goes on
    assert summary.type == EventType.DEVICE_PROTOCOL_ERRORS
    limiter.new_session()
    # The errors before the new connection do not count toward its fault, even in the
    # same window: four on it are no fault, the fifth is.
    for at in (1.0, 1.1, 1.2, 1.3):
        assert limiter.offer(noise, at, ts(at)) == []  # a kind already seen: counted
    (fault,) = limiter.offer(noise, 1.4, ts(1.4))
    assert fault.type == EventType.DEVICE_FAULT
    assert "5 protocol errors within 10 s" in fault.data["text"]
    assert EventType.DEVICE_FAULT not in types(limiter.offer(noise, 1.5, ts(1.5)))


def test_a_new_connection_of_a_quiet_line_changes_nothing() -> None:
    limiter = ProtocolErrorLimiter(POLICY)
    limiter.new_session()
    assert limiter.window_end is None
    outs = [limiter.offer(error("bytes outside a frame"), i * 0.1, ts(i)) for i in range(5)]
    assert types(outs[-1]) == ["device.fault"]


def test_errors_spread_below_the_threshold_are_no_fault() -> None:
    limiter = ProtocolErrorLimiter(POLICY)
    emitted: list[DeviceEvent] = []
    for i in range(40):  # four errors a window, ten windows
        emitted += limiter.offer(error("bytes outside a frame"), i * 2.5, ts(i))
    assert EventType.DEVICE_FAULT not in types(emitted)


def test_close_records_the_count_so_far_and_keeps_the_spell() -> None:
    limiter = ProtocolErrorLimiter(POLICY)
    limiter.offer(error("bytes outside a frame"), 0.0, ts(0))
    limiter.offer(error("bytes outside a frame"), 1.0, ts(1))
    limiter.offer(error("bytes outside a frame"), 2.0, ts(2))
    (summary,) = limiter.close()
    assert summary.data["count"] == 2
    assert limiter.close() == []
    assert limiter.offer(error("bytes outside a frame"), 3.0, ts(3)) == []
    (summary,) = limiter.due(10.0)
    assert (summary.data["count"], summary.data["first"]) == (1, ts(3))


def test_a_flood_costs_a_bounded_number_of_events() -> None:
    # 100 errors a second of ever-new kinds for an hour: at most kinds + 2 events a window.
    limiter = ProtocolErrorLimiter(POLICY)
    emitted: list[DeviceEvent] = []
    errors = 0
    for i in range(360_000):
        at = i * 0.01
        emitted += limiter.offer(error(f"noise kind {chr(65 + i % 26)}{chr(97 + i % 7)}"), at, "")
        errors += 1
    emitted += limiter.close()
    windows = 3600 / POLICY.interval_s
    assert len(emitted) <= (POLICY.kinds + 2) * windows
    summaries = [e for e in emitted if e.type == EventType.DEVICE_PROTOCOL_ERRORS]
    singles = [e for e in emitted if e.type == EventType.DEVICE_PROTOCOL_ERROR]
    assert len(singles) == POLICY.kinds
    assert sum(s.data["count"] for s in summaries) + len(singles) == errors


def test_a_sample_is_bounded_text() -> None:
    limiter = ProtocolErrorLimiter(POLICY)
    limiter.offer(error("bytes outside a frame"), 0.0, "")
    limiter.offer({"reason": "bytes outside a frame", "raw": "x" * 100_000}, 1.0, "")
    (summary,) = limiter.close()
    assert len(summary.data["sample"]["raw"]) == 256
