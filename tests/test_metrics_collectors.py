"""floord's collectors, alone: what the counters count of the device events, what a
scrape shows of the readings (and nothing stale of the ones before), in a registry of
each process's own."""

from __future__ import annotations

import pytest
from metrics_support import parse, value

from floord.contract import EventType
from floord.metrics.collectors import FloordMetrics
from floord.metrics.readings import (
    DeviceReading,
    Health,
    LinkReading,
    Readings,
    StreamReading,
    TableReading,
)

pytestmark = pytest.mark.unit


def _metrics() -> FloordMetrics:
    return FloordMetrics(site="casino-1", version="9.9", process="run")


def test_device_events_are_counted_by_table_and_device() -> None:
    metrics = _metrics()
    metrics.device("RL-01", "wheel")
    metrics.device("BJ-01", "shoe")
    before = parse(metrics.render().decode())
    assert value(before, "floord_device_protocol_errors_total", table="RL-01", device="wheel") == 0
    assert value(before, "floord_device_heartbeats_lost_total", table="BJ-01", device="shoe") == 0
    metrics.heard("RL-01", "wheel", EventType.DEVICE_PROTOCOL_ERROR, {"reason": "x"})
    # A noisy line's count stands for that many errors; a malformed count for none.
    metrics.heard("RL-01", "wheel", EventType.DEVICE_PROTOCOL_ERRORS, {"count": 41})
    metrics.heard("RL-01", "wheel", EventType.DEVICE_PROTOCOL_ERRORS, {"count": "many"})
    metrics.heard("RL-01", "wheel", EventType.DEVICE_PROTOCOL_ERRORS, {"count": True})
    metrics.heard("BJ-01", "shoe", EventType.DEVICE_HEARTBEAT_LOST, {"missed": 3})
    metrics.heard("BJ-01", "shoe", EventType.SHOE_CARD_DRAWN, {"card": "KH"})
    after = parse(metrics.render().decode())
    assert value(after, "floord_device_protocol_errors_total", table="RL-01", device="wheel") == 42
    assert value(after, "floord_device_protocol_errors_total", table="BJ-01", device="shoe") == 0
    assert value(after, "floord_device_heartbeats_lost_total", table="BJ-01", device="shoe") == 1


def test_a_scrape_shows_the_latest_readings_only() -> None:
    metrics = _metrics()
    metrics.show(
        Readings(
            tables=[
                TableReading("RL-01", "halted", ("device_offline", "device_fault")),
                TableReading("RL-02", "halted", ("device_offline",)),
                TableReading("BJ-01", "open"),
            ],
            devices=[DeviceReading("RL-01", "wheel", False), DeviceReading("BJ-01", "shoe", True)],
            links=[LinkReading("RL-01", True, 2, 5)],
            streams=[StreamReading("RL-01", "RL-01", 120, 117)],
            backlogs={"RL-01": 3},
            journal_queue=4,
        )
    )
    s = parse(metrics.render().decode())
    assert value(s, "floord_tables", state="halted") == 2
    assert value(s, "floord_tables", state="open") == 1
    assert value(s, "floord_tables", state="closed") == 0
    assert value(s, "floord_table_state", table="RL-01", state="halted") == 1
    assert value(s, "floord_halts", code="device_offline") == 2
    assert value(s, "floord_halts", code="device_fault") == 1
    assert value(s, "floord_table_halt", table="RL-01", code="device_fault") == 1
    assert value(s, "floord_device_online", table="RL-01", device="wheel") == 0
    assert value(s, "floord_device_online", table="BJ-01", device="shoe") == 1
    assert value(s, "floord_broker_connected", table="RL-01") == 1
    assert value(s, "floord_broker_failovers_total", table="RL-01") == 2
    assert value(s, "floord_broker_connections_lost_total", table="RL-01") == 5
    assert value(s, "floord_events_recorded_total", table="RL-01", stream="RL-01") == 120
    assert value(s, "floord_events_published_total", table="RL-01", stream="RL-01") == 117
    assert value(s, "floord_outbox_backlog", table="RL-01") == 3
    assert value(s, "floord_journal_queue_depth") == 4
    assert value(s, "floord_info", site="casino-1", version="9.9", process="run") == 1
    # The table resumed, the journal unread this time: no halt and no stream figure left.
    metrics.show(Readings(tables=[TableReading("RL-01", "open")], streams=None, backlogs=None))
    s = parse(metrics.render().decode())
    assert value(s, "floord_table_state", table="RL-01", state="halted") is None
    assert value(s, "floord_table_state", table="RL-01", state="open") == 1
    assert value(s, "floord_halts", code="device_offline") is None
    assert not [name for name, _ in s if name.startswith("floord_events_")]
    assert value(s, "floord_outbox_backlog", table="RL-01") is None


def test_latencies_are_histograms_and_each_process_has_its_own_registry() -> None:
    one, two = _metrics(), _metrics()
    one.commit_seconds.observe(0.003)
    one.commit_seconds.observe(0.2)
    one.puback_observer("RL-01")(0.004)
    s = parse(one.render().decode())
    assert value(s, "floord_journal_commit_seconds_count") == 2
    assert value(s, "floord_journal_commit_seconds_bucket", le="0.005") == 1
    assert value(s, "floord_mqtt_puback_seconds_count", table="RL-01") == 1
    assert value(s, "process_resident_memory_bytes") > 0
    assert value(parse(two.render().decode()), "floord_journal_commit_seconds_count") == 0


def test_health_is_ready_only_without_problems() -> None:
    assert Health().ready
    assert not Health(("broker not connected for table RL-01",)).ready
