"""A held result on the console, in `floord status` and in the daemon's log: an open
alert to acknowledge, said by its round, never taken for a wheel's statistical test."""

from __future__ import annotations

import json

import pytest
from test_watch_model import PREFIX, SITE, envelope, topics

from floord.cli.status import describe_alert
from floord.contract import Envelope, EventType
from floord.table.state_lines import state_line
from floord.watch.detail import detail_text
from floord.watch.model import FloorModel
from floord.watch.render import row_values

pytestmark = pytest.mark.unit

ALERT = {
    "id": "A00003",
    "test": "result_disputed",
    "statistic": None,
    "dof": None,
    "p_value": None,
    "level": None,
    "window": None,
    "over_represented": None,
    "round": "RL-01-2026-12-05-0002",
    "primary": {"source": "wheel", "value": "5"},
    "second": {"source": "dealer_call", "value": "6"},
    "detail": "wheel reported 5, dealer_call 6: the round is held until a floorperson rules",
    "policy": "p",
}


def test_the_console_shows_it_open_and_by_its_round() -> None:
    model = FloorModel(PREFIX)
    t = topics("RL-01")
    state = {"table": "RL-01", "game": "roulette", "state": "open", "alerts": [ALERT]}
    model.on_message(t.state, json.dumps(state).encode())
    view = model.tables[(SITE, "RL-01")]
    silent = {**ALERT, "id": "A00004", "test": "result_silent", "second": None}
    model.on_message(t.events, envelope("RL-01", 7, "surveillance.alert", data=silent))
    assert set(view.alerts) == {"A00003", "A00004"}
    assert view.wheel.tests == {}, "no statistical test of the wheel"
    assert row_values(view)["alerts"] == "2 open"
    shown = detail_text(view).plain
    assert "alert A00003: result disputed, round 2 (wheel reported 5" in shown
    assert "alert A00004: result silent, round 2" in shown


def test_floord_status_says_what_closes_it() -> None:
    assert describe_alert(ALERT) == (
        "alert A00003 OPEN: result disputed, round RL-01-2026-12-05-0002 (wheel reported 5, "
        "dealer_call 6: the round is held until a floorperson rules); "
        "close with ack_alert alert=A00003"
    )


def test_a_held_result_and_its_ruling_are_one_log_line_each() -> None:
    def line(kind: str, data: dict[str, object]) -> tuple[str, str, dict[str, object]] | None:
        rid = "RL-01-2026-12-05-0002"
        env = Envelope(SITE, "RL-01", 9, "2026-12-05T08:00:00Z", kind, "engine", data, None, rid)
        return state_line(env)

    disputed = line(EventType.RESULT_DISPUTED, {"detail": "wheel 5, dealer_call 6", "held": True})
    assert disputed is not None and disputed[:2] == ("warning", "result disputed")
    assert disputed[2]["round"] == "RL-01-2026-12-05-0002"
    silent = line(EventType.RESULT_SILENT, {"on_silence": "warn", "detail": "d"})
    assert silent is not None and silent[1] == "second source silent"
    body = {"by": "FP-1", "role": "floorperson", "value": "5", "void": False, "note": "video"}
    ruled = line(EventType.RESULT_RULED, body)
    assert ruled is not None and ruled[:2] == ("info", "result ruled")
    assert ruled[2]["by"] == "FP-1" and ruled[2]["value"] == "5"
    assert line(EventType.RESULT_CONFIRMED, {"value": "5"}) is None, "steady play: no line"
