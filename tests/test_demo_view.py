"""The demo's live view at 80x24: fitted to the terminal, an alerts line, RL-03 quiet.

`floord demo`'s dashboard (`floord_demo.view.LiveView`) is fed MQTT messages as the demo
feeds it and asked for its screen at 80 columns and 24 rows, and at 200x50.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from floord_demo import header as demo_header
from floord_demo import sensor_wheel as rl03
from floord_demo.screen import clip, visible_length
from floord_demo.view import LiveView

pytestmark = pytest.mark.unit

WIDTH = 80


def _state(table: str, **extra: object) -> bytes:
    body = {"table": table, "state": "open", "game": "roulette", "wheel": "single_zero",
            "devices": {"wheel": {"online": True}}, "round": None, **extra}  # fmt: skip
    return json.dumps(body).encode()


def _event(table: str, seq: int, kind: str, **data: object) -> bytes:
    body = {"table": table, "seq": seq, "type": kind, "ts": "2026-12-01T18:00:00.000Z",
            "data": data, "rule": "58 Pa. Code § 531.7(b)"}  # fmt: skip
    return json.dumps(body).encode()


def test_the_live_view_fits_80x24_and_keeps_an_alert_until_acknowledged() -> None:
    """The dashboard at 80x24: no line wider than the terminal but the command lines to
    copy, no more rows than it has; an alerts line that shows RL-03's open alert until
    the state no longer holds it; RL-03's spins out of the event list."""
    out = io.StringIO()
    view = LiveView(out, interactive=True, time_lapse=frozenset({rl03.TABLE}),
                    size=lambda: (WIDTH, 24))  # fmt: skip
    config = Path("/dev/shm/floord-demo-abcdefgh/floord.yaml")
    what = "a private Mosquitto (/usr/sbin/mosquitto)"
    view.header = demo_header.header_lines(url="mqtt://127.0.0.1:1883", what=what, config=config)
    view.intro = demo_header.intro_lines(site="demo", seed=7, url="mqtt://127.0.0.1:1883",
                                         tables=["RL-03"])  # fmt: skip
    # As `run_demo` has it: the intro's command lines (the tail's, with this Python's
    # path, as long as the checkout's) are shown whole too.
    view.whole = demo_header.command_lines([*view.header, *view.intro])
    alert = {"id": "A00001", "test": "sector", "p_value": 2.7e-05, "window": 270,
             "over_represented": [{"label": "4..17"}]}  # fmt: skip
    for table in ("B6-01", "BA-01", "BJ-01", "MS-01", "RL-01", "RL-02", "S21-01"):
        view.on_message(f"floor/v1/demo/{table}/state", _state(table))
    view.on_message(f"floor/v1/demo/{rl03.TABLE}/state", _state(rl03.TABLE, alerts=[alert]))
    offline = _state("RL-02", devices={"wheel": {"online": False}}, wheel="single_zero")
    view.on_message("floor/v1/demo/RL-02/state", offline)
    for seq in range(1, 60):
        kind = ("roulette.result", "wheel.ball_revolutions", "roulette.no_spin")[seq % 3]
        long_reason = "too_few_revolutions " * 5
        view.on_message(f"floor/v1/demo/{rl03.TABLE}/events",
                        _event(rl03.TABLE, seq, kind, reason=long_reason))  # fmt: skip
        view.on_message("floor/v1/demo/BJ-01/events", _event("BJ-01", seq, "shoe.card_drawn"))
    screen = view.screen(12.0)
    rows = sum(-(-visible_length(line) // WIDTH) for line in screen)
    assert rows <= 23, screen  # the last row stays empty: the screen does not scroll
    wide = [line for line in screen if visible_length(line) > WIDTH]
    assert all(line.startswith((demo_header.CONSOLE, demo_header.COMMAND)) for line in wide)
    assert wide, "the command lines are whole: a newcomer copies them"
    assert any("ALERTS (1 open" in line and "RL-03 A00001 sector p=2.7e-05 4..17" in line
               for line in screen), screen  # fmt: skip
    listed = [line for line in screen if " #" in line and "RL-03" in line]
    assert listed and all("roulette.no_spin" in line for line in listed), listed
    assert any(" BJ-01 #" in line for line in screen)
    assert any(line.startswith("RL-02 ") and "OFFLINE" in line for line in screen), screen
    assert any(line.startswith("RL-01 ") and "OFFLINE" not in line for line in screen)
    # Still open on the next screen; gone once the state no longer holds it.
    assert any("A00001" in line for line in view.screen(13.0) if line.startswith("\x1b"))
    view.on_message(f"floor/v1/demo/{rl03.TABLE}/events", _event(
        rl03.TABLE, 99, "surveillance.alert_acknowledged", id="A00001", by="SEC-DEMO"))  # fmt: skip
    view.on_message(f"floor/v1/demo/{rl03.TABLE}/state", _state(rl03.TABLE, alerts=[]))
    after = view.screen(14.0)
    assert "ALERTS: none open (acknowledged: RL-03 A00001 by SEC-DEMO)" in after, after
    view.render(14.0)
    assert out.getvalue().startswith("\x1b[H\x1b[2J")
    # A taller, wider terminal shows the intro and the full table rows too.
    view.size = lambda: (200, 50)
    view.render(15.0)
    tall = view.screen(15.0)
    assert any(line.startswith("operators: FP-DEMO floorperson, ") for line in tall), tall
    assert any("SEC-DEMO security" in line for line in tall)
    intro = [line for line in view.intro if line not in view.whole]
    assert all(visible_length(line) <= WIDTH for line in intro), "piped at 80: nothing cut"


def test_a_cut_line_keeps_its_colours_and_resets_them() -> None:
    line = "BJ-01 \x1b[1;31mhalted: card reader offline\x1b[0m, 58 Pa. Code § 549.16(k)"
    cut = clip(line, 12)
    assert cut == "BJ-01 \x1b[1;31mhalted\x1b[0m", repr(cut)  # the colour is reset after the cut
    assert visible_length(clip(line, 40)) == 40 and "§" in clip(line, 70)
    assert clip(line, None) == line and clip(line, 200) == line


def test_the_alerts_line_follows_the_events_too() -> None:
    """An alert the view has only the event of is on the line until its acknowledgement
    arrives, whichever comes first, the state or the events."""
    view = LiveView(io.StringIO(), interactive=True, size=lambda: (WIDTH, 24))
    topic = f"floor/v1/demo/{rl03.TABLE}/events"
    alert = {"id": "A00002", "test": "dealer_signature", "p_value": 1e-4, "dealer": "DL-DEMO"}
    view.on_message(topic, _event(rl03.TABLE, 1, "surveillance.alert", **alert))
    assert "RL-03 A00002 dealer_signature p=0.0001" in view.alerts_line()
    view.on_message(f"floor/v1/demo/{rl03.TABLE}/state", _state(rl03.TABLE))  # no `alerts`
    assert "RL-03 A00002" in view.alerts_line(), "a state that says nothing of alerts"
    view.on_message(topic, _event(rl03.TABLE, 2, "surveillance.alert_acknowledged",
                                  id="A00002", by="SV-DEMO", note="checked"))  # fmt: skip
    assert view.alerts_line() == "ALERTS: none open (acknowledged: RL-03 A00002 by SV-DEMO)"
