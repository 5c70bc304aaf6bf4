"""A pace or spin physics alert reads as its sentence wherever staff see it: `floord
watch` (the event line and the open alerts of the detail view), `floord status` and the
demo's screen; it has no p-value of its own, so none is made up."""

from __future__ import annotations

import pytest

from floord.cli.status import describe_alert
from floord.contract import Envelope, EventType
from floord.watch.detail import _alert_line
from floord.watch.sentences import sentence
from floord_demo.words import describe

pytestmark = pytest.mark.unit

SUMMARY = (
    "dealer DL-1 dealt 31.2 rounds an hour over its last 20 intervals (median 115.0 s), "
    "below the band 45 to 110"
)
ALERT = {
    "id": "A00003",
    "test": "pace",
    "statistic": 31.2,
    "rounds_per_hour": 31.2,
    "window": 20,
    "band": [45, 110],
    "dealer": "DL-1",
    "summary": SUMMARY,
}


def test_the_console_reads_the_alert_as_its_summary() -> None:
    env = Envelope(
        "casino-1",
        "RL-01",
        42,
        "2026-11-29T19:17:40.123456Z",
        EventType.SURVEILLANCE_ALERT,
        "engine",
        ALERT,
        None,
        None,
    )
    assert sentence(env) == f"alert A00003: pace test: {SUMMARY}"
    assert _alert_line("A00003", ALERT) == f"alert A00003: pace test: {SUMMARY}"


def test_status_and_the_demo_screen_read_it_too() -> None:
    status = describe_alert(ALERT)
    assert status == f"alert A00003 OPEN: pace test: {SUMMARY}; close with ack_alert alert=A00003"
    line = describe({"table": "RL-03", "type": "surveillance.alert", "data": ALERT})
    assert f"A00003 pace test: {SUMMARY}" in line and "p=" not in line
