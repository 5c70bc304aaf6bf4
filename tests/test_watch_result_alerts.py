"""A held result's alert on the console and in `floord status`: an open alert to
acknowledge, said by its round, never taken for a wheel's statistical test."""

from __future__ import annotations

import json

import pytest
from test_watch_model import PREFIX, SITE, envelope, topics

from floord.cli.status import describe_alert
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
