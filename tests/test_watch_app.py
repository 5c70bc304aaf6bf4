"""The console's screen, headless (textual's `run_test`): rows, colours, selection, batching."""

from __future__ import annotations

import argparse
import asyncio
import json

import pytest
from rich.text import Text
from textual.widgets import DataTable, Static

from floord.contract import Envelope, Topics
from floord.watch.app import WatchApp
from floord.watch.model import FloorModel
from floord.watch.render import ALERT

pytestmark = pytest.mark.unit

PREFIX = "floor/v1"
SITE = "casino-1"
TABLES = [f"RL-{i:03d}" for i in range(200)]
HALTED_TABLE = "RL-150"
ALERT_TABLE = "RL-042"
STALE_TABLE = "RL-077"


def publish(model: FloorModel, table: str, seq: int, kind: str, data: dict) -> None:
    env = Envelope(SITE, table, seq, "2026-11-29T19:17:40.123456Z", kind, "engine", data)
    model.on_message(Topics(PREFIX, SITE, table).events, env.to_json().encode())


def floor() -> FloorModel:
    model = FloorModel(PREFIX, recent=50)
    model.set_connected(True, "connected")
    # Arrival order is not id order: the screen sorts.
    for table in reversed(TABLES):
        t = Topics(PREFIX, SITE, table)
        publish(model, table, 1, "table.opened", {})
        state = {"game": "roulette", "wheel": "single_zero", "state": "open", "alerts": []}
        if table == HALTED_TABLE:
            reasons = [{"code": "device_offline", "device": "wheel", "detail": "silent"}]
            state = {**state, "state": "halted", "halt_reasons": reasons}
        if table == ALERT_TABLE:
            state["alerts"] = [{"id": "A00003", "test": "pocket", "p_value": 0.0002}]
        model.on_message(t.state, json.dumps(state).encode())
    for seq in range(2, 60):
        publish(model, HALTED_TABLE, seq, "wheel.idle", {"spin": seq})
    publish(model, HALTED_TABLE, 60, "roulette.result", {"number": "26"})
    publish(model, STALE_TABLE, 5, "wheel.idle", {"spin": 5})  # 2..4 never came
    return model


def cell(table: DataTable, row: str, column: str) -> Text:
    value = table.get_cell(row, column)
    assert isinstance(value, Text)
    return value


def test_rows_colours_selection_and_batched_refresh() -> None:
    async def main() -> None:
        model = floor()
        app = WatchApp(model, refresh_s=0.05)
        async with app.run_test(size=(180, 50)) as pilot:
            await pilot.pause()
            grid = app.query_one("#tables", DataTable)
            assert grid.row_count == 200
            first = grid.coordinate_to_cell_key((0, 0)).row_key.value
            assert first == f"{SITE}/RL-000"  # sorted by id

            halted = f"{SITE}/{HALTED_TABLE}"
            assert "red" in str(cell(grid, halted, "state").style)
            assert cell(grid, halted, "state").plain == "halted"
            assert "device_offline (wheel): silent" in cell(grid, halted, "note").plain
            assert ALERT in str(cell(grid, f"{SITE}/{ALERT_TABLE}", "alerts").style)
            stale = cell(grid, f"{SITE}/{STALE_TABLE}", "state")
            assert stale.plain == "open (stale)" and "yellow" in str(stale.style)
            assert "red" not in str(cell(grid, f"{SITE}/RL-001", "state").style)
            totals = str(app.query_one("#totals", Static).content)
            assert "tables 200" in totals and "halted 1" in totals
            assert "alerts 1" in totals and "stale 1" in totals

            # Selecting the halted table shows its wheel and its last 50 events, the
            # wheel's telemetry hidden until `t`.
            grid.move_cursor(row=grid.get_row_index(halted))
            await pilot.pause()
            detail = str(app.query_one("#detail", Static).content)
            assert f"{SITE}/{HALTED_TABLE}" in detail
            assert "events: 1 of the last 50 (telemetry hidden)" in detail
            assert "#60 26" in detail and "wheel idle" not in detail
            assert "wheel single_zero, 1 results seen, recent: 26" in detail
            await pilot.press("t")
            detail = str(app.query_one("#detail", Static).content)
            assert "events: 50 of the last 50 (all events)" in detail
            assert "#59 spin 59: wheel idle" in detail and "#10 " not in detail

            # One table's new event updates that row only, on the next refresh.
            calls: list[tuple[str, str]] = []
            original = grid.update_cell

            def counting(row, column, value, **kw):  # type: ignore[no-untyped-def]
                calls.append((str(row.value if hasattr(row, "value") else row), column))
                return original(row, column, value, **kw)

            grid.update_cell = counting  # type: ignore[method-assign]
            publish(model, "RL-003", 2, "table.halted", {"reasons": [{"code": "tilt"}]})
            for seq in range(2, 30):
                publish(model, "RL-004", seq, "wheel.idle", {"spin": seq})
            await pilot.pause(0.2)
            touched = {row for row, _ in calls}
            assert touched == {f"{SITE}/RL-003", f"{SITE}/RL-004"}
            assert app.layout_now is not None
            assert len(calls) == 2 * len(app.layout_now.keys)  # 29 messages, one update per row
            assert "red" in str(cell(grid, f"{SITE}/RL-003", "state").style)
            assert "halted 2" in str(app.query_one("#totals", Static).content)

            # The panel follows its table as new events come in.
            publish(model, HALTED_TABLE, 61, "table.resumed", {"by": "FP-1"})
            await pilot.pause(0.2)
            assert "#61 " in str(app.query_one("#detail", Static).content)

            # `s` sorts by urgency: halted tables first, then alerts, then stale.
            await pilot.press("s")
            await pilot.pause()
            order = [grid.coordinate_to_cell_key((i, 0)).row_key.value for i in range(3)]
            assert order == [f"{SITE}/RL-003", f"{SITE}/{ALERT_TABLE}", f"{SITE}/{STALE_TABLE}"]

    asyncio.run(main())


def test_a_table_that_appears_later_gets_a_row_in_order() -> None:
    async def main() -> None:
        model = FloorModel(PREFIX)
        publish(model, "RL-B", 1, "table.opened", {})
        app = WatchApp(model, refresh_s=0.05)
        async with app.run_test() as pilot:
            await pilot.pause()
            grid = app.query_one("#tables", DataTable)
            assert grid.row_count == 1
            assert "RL-B" in str(app.query_one("#detail", Static).content)  # first row selected
            publish(model, "RL-A", 1, "table.closed", {})
            await pilot.pause(0.2)
            keys = [grid.coordinate_to_cell_key((i, 0)).row_key.value for i in range(2)]
            assert keys == [f"{SITE}/RL-A", f"{SITE}/RL-B"]
            assert cell(grid, f"{SITE}/RL-A", "state").plain == "closed"

    asyncio.run(main())


def test_settings_from_flags_and_from_a_config(tmp_path, capsys) -> None:
    from e2e_support import FP, FP_KEY, write_config

    from floord.cli.main import main
    from floord.watch.cli import settings_from

    config = write_config(tmp_path, "mqtt://127.0.0.1:1884", "/dev/null")
    parser_ns = argparse.Namespace
    base = {"broker": None, "config": config, "prefix": None, "site": None, "username": None}
    base |= {"password_file": None, "operator": FP, "key_file": None, "session": None}
    settings = settings_from(parser_ns(**base))
    assert (settings.urls, settings.prefix, settings.site) == (
        ("mqtt://127.0.0.1:1884",),
        PREFIX,
        None,
    )
    assert settings.signer is not None and settings.signer.key == FP_KEY
    nobody = settings_from(parser_ns(**{**base, "operator": None, "site": "s1"}))
    assert nobody.signer is None and nobody.site == "s1"

    assert main(["watch", "--broker", "mqtt://127.0.0.1:1", "--as", FP]) == 1
    assert "--as needs --key-file" in capsys.readouterr().err
    assert main(["watch", "--broker", "mqtt://127.0.0.1:1", "--operator", FP]) == 1
    assert "--as needs --key-file" in capsys.readouterr().err
    from floord.cli.main import _parser

    flags = ["watch", "-c", str(config), "--operator", FP]
    assert settings_from(_parser().parse_args(flags)).signer == settings.signer
    assert main(["watch", "--broker", "http://x", "--json"]) == 1
    assert "broker URL" in capsys.readouterr().err
    assert main(["watch", "-c", str(config), "--as", "NOBODY", "--json"]) == 1
    assert "no operator 'NOBODY'" in capsys.readouterr().err
