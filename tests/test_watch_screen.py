"""The console's screen as a person sees it, headless at 80x24 and 200x50.

Snapshot-style: the screen's text (what `export_screenshot` draws) is read back, and
every column on it must show its header and each row's full words: at 80 columns the
state (with `stale`), the open alerts and the halt reasons always, other columns
dropped first; at 200 columns every column. Colours, the summary line, the footer's
keys and the detail view's sentences are checked on the same floor.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from rich.text import Text
from textual.widgets import DataTable, Static
from watch_support import PREFIX, SITE, publish, screen_text, state, until

from floord.watch.app import WatchApp
from floord.watch.layout import COLUMNS
from floord.watch.model import FloorModel
from floord.watch.render import row_values

pytestmark = pytest.mark.unit

OTHER_SITE = "casino-2"
READER_HALT = {
    "code": "device_offline",
    "device": "reader",
    "detail": "silent 5 s",
    "reasons": [{"code": "device_offline", "device": "reader", "detail": "silent 5 s"}],
}


def floor(sites: tuple[str, ...] = (SITE,)) -> FloorModel:
    model = FloorModel(PREFIX)
    model.set_connected(True, "connected")
    wheel = {"game": "roulette", "wheel": "single_zero", "devices": {"wheel": {"online": True}}}
    state(model, "RL-01", {**wheel, "state": "open", "alerts": []})
    rid = "RL-01-2026-11-29-0042"
    publish(
        model, "RL-01", 1, "round.started", {"n": 42, "spin": 7, "dealer": "DL-7"}, round_id=rid
    )
    for seq in range(2, 8):
        publish(
            model,
            "RL-01",
            seq,
            "wheel.ball_revolutions",
            {"spin": 7, "count": seq},
            source="wheel",
            round_id=rid,
        )
    publish(
        model,
        "RL-01",
        8,
        "roulette.result",
        {"number": "17", "colour": "black", "dealer": "DL-7"},
        rule="58 Pa. Code § 531.5(a)",
        round_id=rid,
    )
    publish(
        model,
        "RL-01",
        9,
        "round.voided",
        {"reason": "ball_off_wheel", "detail": "the ball left the wheel"},
        rule="58 Pa. Code § 531.7(c)",
        round_id="RL-01-2026-11-29-0043",
    )
    publish(model, "RL-01", 10, "procedure.violation", {"what": "spin_while_closed"})
    halted = [{"code": "device_offline", "device": "wheel", "detail": "silent 5 s"}]
    state(model, "RL-02", {**wheel, "state": "halted", "halt_reasons": halted})
    alert = {"id": "A00001", "test": "pocket", "p_value": 0.000213456789, "level": 0.001}
    state(model, "RL-03", {**wheel, "state": "open", "alerts": [{**alert, "window": 270}]})
    publish(model, "RL-04", 1, "table.opened", {"by": "FP-1", "role": "floorperson"})
    publish(model, "RL-04", 5, "wheel.idle", {"spin": 5}, source="wheel")  # 2..4 never came
    publish(model, "BJ-01", 1, "table.halted", READER_HALT, rule="58 Pa. Code § 549.16(k)")
    state(model, "BA-01", {"game": "baccarat", "state": "closed"})
    for site in sites[1:]:
        body = {"game": "big_six", "state": "open", "devices": {"wheel": {"online": False}}}
        model.on_message(f"{PREFIX}/{site}/B6-01/state", json.dumps(body).encode())
    return model


def table_region(app: WatchApp, text: str) -> list[str]:
    """The screen's lines, cut to the table's columns (the detail may be beside it)."""
    region = app.query_one("#tables", DataTable).region
    lines = text.replace("\u00a0", " ").splitlines()
    return [line[region.x : region.x + region.width] for line in lines[region.y : region.bottom]]


def check_every_visible_cell(app: WatchApp, text: str) -> list[str]:
    """Every visible column's header and every row's words, whole, where they belong."""
    layout = app.layout_now
    assert layout is not None
    lines = table_region(app, text)
    header = lines[0]
    labels = {c.key: c.label for c in COLUMNS}
    for key in layout.keys:
        assert f" {labels[key]} " in f"{header} ", (key, header)
    starts = {}
    at = 1
    for key in app._order:
        starts[key] = at
        at += app._heights[key]
    for key, first in starts.items():
        block = lines[first : first + app._heights[key]]
        values = row_values(app.model.tables[key])
        assert key[1] in block[0], (key, block)
        for column in layout.keys:
            want = values[column]
            if column == "note":
                joined = " ".join(" ".join(block).split())
                assert " ".join(want.split()) in joined, (key, want, block)
            else:
                assert want in block[0], (key, column, want, block[0])
        assert "…" not in "".join(block), block
    return layout.keys


def cell(app: WatchApp, table: str, column: str, site: str = SITE) -> Text:
    value = app.query_one("#tables", DataTable).get_cell(f"{site}/{table}", column)
    assert isinstance(value, Text)
    return value


def detail(app: WatchApp) -> str:
    return str(app.query_one("#detail", Static).content)


def rows_in(app: WatchApp) -> bool:
    """Every table of the model has its row."""
    return app.query_one("#tables", DataTable).row_count == len(app.model.tables)


async def shown(app: WatchApp, pilot: Any) -> str:
    """The screen once the table is laid out with every row, at most 10 s."""

    def laid_out() -> bool:
        table = app.query_one("#tables", DataTable)
        return (
            app.layout_now is not None
            and rows_in(app)
            and table.region.height > len(app.model.tables)
            and bool(table_region(app, screen_text(app)))
        )

    await until(pilot, laid_out)
    return screen_text(app)


def test_80x24_keeps_state_alerts_and_halt_reasons_whole() -> None:
    async def main() -> None:
        app = WatchApp(floor(), refresh_s=0.05)
        async with app.run_test(size=(80, 24)) as pilot:
            text = await shown(app, pilot)
            keys = check_every_visible_cell(app, text)
            assert {"table", "state", "alerts", "note"} <= set(keys)
            assert "site" not in keys  # one site: in the summary line instead
            lines = text.splitlines()
            summary = " ".join(lines[:2])
            for words in ("site casino-1", "tables 6", "open 3", "halted 2", "alerts 1", "stale 1"):
                assert words in summary, summary
            region = table_region(app, text)
            assert any("RL-04  open (stale)" in line for line in region), region
            assert any("A00001 pocket" in line for line in region)
            assert any("device_offline (wheel): silent 5 s" in line for line in region)
            footer = lines[-1]
            for key in ("a ack alert", "t telemetry", "f filter", "d detail", "[ up"):
                assert key in footer, footer
            assert "] down" in footer and "s sort" in footer and "q quit" in footer

            # Colours: halts red, alerts magenta, voids yellow, violations orange, stale
            # yellow and dim.
            assert "red" in str(cell(app, "RL-02", "state").style)
            assert "magenta" in str(cell(app, "RL-03", "alerts").style)
            stale = str(cell(app, "RL-04", "state").style)
            assert "yellow" in stale and "dim" in stale

            # `]` and `[` scroll the detail view a page down and up.
            grid = app.query_one("#tables", DataTable)
            grid.move_cursor(row=grid.get_row_index(f"{SITE}/RL-01"))
            await pilot.press("t")
            await until(pilot, lambda: "(all events)" in detail(app))
            side = app.query_one("#side")
            assert side.scroll_y == 0
            await pilot.press("]")
            await until(pilot, lambda: side.scroll_y > 0)
            assert side.scroll_y > 0
            await pilot.press("[")
            await until(pilot, lambda: side.scroll_y == 0)
            assert side.scroll_y == 0
            await pilot.press("t")

            # `d` hides the detail view: the table takes the whole screen's height.
            height = app.query_one("#tables", DataTable).region.height
            await pilot.press("d")
            await until(
                pilot,
                lambda: (
                    not side.display and app.query_one("#tables", DataTable).region.height > height
                ),
            )
            text = await shown(app, pilot)
            assert not app.query_one("#side").display
            assert app.query_one("#tables", DataTable).region.height > height
            check_every_visible_cell(app, text)
            await pilot.press("d")
            await until(pilot, lambda: side.display)
            assert app.query_one("#side").display

    asyncio.run(main())


def test_200x50_shows_every_column_whole() -> None:
    async def main() -> None:
        app = WatchApp(floor((SITE, OTHER_SITE)), refresh_s=0.05)
        async with app.run_test(size=(200, 50)) as pilot:
            text = await shown(app, pilot)
            keys = check_every_visible_cell(app, text)
            assert keys == [c.key for c in COLUMNS]
            # Under 240 columns the detail view goes under the table.
            assert app.screen.has_class("narrow")
            side = app.query_one("#side").region
            assert side.y >= app.query_one("#tables", DataTable).region.bottom
            assert "violations" in text.splitlines()[1]
            assert "yellow" in str(cell(app, "RL-01", "voids").style)
            assert "dark_orange" in str(cell(app, "RL-01", "violations").style)
            assert cell(app, "RL-01", "round").plain == "-"
            assert cell(app, "B6-01", "devices", OTHER_SITE).plain == "0 up, down: wheel"

    asyncio.run(main())


def test_the_detail_view_reads_as_sentences_and_filters_by_type() -> None:
    async def main() -> None:
        app = WatchApp(floor(), refresh_s=0.05)
        async with app.run_test(size=(200, 50)) as pilot:
            await until(pilot, lambda: rows_in(app))
            grid = app.query_one("#tables", DataTable)
            grid.move_cursor(row=grid.get_row_index(f"{SITE}/RL-01"))
            await until(pilot, lambda: "17 black" in detail(app))
            text = detail(app).replace("\u00a0", " ")
            assert "#8 17 black, round 42, dealer DL-7, § 531.5(a)" in text
            assert (
                "#9 round 43 voided: ball off wheel (the ball left the wheel), § 531.7(c)" in text
            )
            assert "#10 procedure violation: spin while closed" in text
            assert "#1 round 42 started, spin 7, dealer DL-7" in text
            assert "ball went round" not in text and "{" not in text
            assert "events: 4 of the last 10 (telemetry hidden)" in text

            await pilot.press("t")  # the wheel's telemetry too
            text = detail(app)
            assert "#7 spin 7: ball went round 7 times" in text
            assert "events: 10 of the last 10 (all events)" in text
            await pilot.press("t")
            await pilot.press("f")  # only halts
            assert "events: 0 of the last 10 (only halt events)" in detail(app)
            await pilot.press("f")
            await pilot.press("f")  # only violations
            text = detail(app)
            assert "events: 1 of the last 10 (only violation events)" in text
            assert "spin while closed" in text and "17 black" not in text
            for _ in range(7):
                await pilot.press("f")  # round again to every family
            assert "(telemetry hidden)" in detail(app)

            grid.move_cursor(row=grid.get_row_index(f"{SITE}/BJ-01"))
            await until(pilot, lambda: "reader offline" in detail(app))
            text = detail(app).replace("\u00a0", " ")
            assert "#1 halted: reader offline (silent 5 s), § 549.16(k)" in text
            assert "halted: device_offline (reader): silent 5 s" in text

            grid.move_cursor(row=grid.get_row_index(f"{SITE}/RL-03"))
            await until(pilot, lambda: "A00001" in detail(app))
            text = detail(app)
            assert "alert A00001: pocket test p = 0.000213 (level 0.001, window 270)" in text
            assert "test pocket: p = 0.000213 (level 0.001, window 270, alert A00001)" in text
            assert "0.000213456789" not in text

    asyncio.run(main())


def test_ack_needs_an_alert_a_second_press_and_a_signer() -> None:
    async def main() -> None:
        app = WatchApp(floor(), refresh_s=0.05)
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: rows_in(app))
            grid = app.query_one("#tables", DataTable)
            status = app.query_one("#status", Static)
            await pilot.press("a")
            assert f"no open alert on {SITE}/BA-01" in str(status.content)
            grid.move_cursor(row=grid.get_row_index(f"{SITE}/RL-03"))
            await until(pilot, lambda: app.selected == (SITE, "RL-03"))
            await pilot.press("a")
            assert "acknowledge alert A00001 on casino-1/RL-03? press a again" in str(
                status.content
            )
            # A new table's row rebuilds the table in between: the choice stands.
            publish(app.model, "AA-01", 1, "table.opened", {"by": "FP-1", "role": "floorperson"})
            await until(pilot, lambda: rows_in(app))
            assert app.selected == (SITE, "RL-03")
            await pilot.press("a")
            assert "cannot acknowledge A00001: no broker connection in this console" in str(
                status.content
            )

    asyncio.run(main())


def test_a_second_a_too_late_names_the_alert_again(monkeypatch) -> None:
    import floord.watch.app as app_module

    monkeypatch.setattr(app_module, "ARM_S", 0.0)

    async def main() -> None:
        app = WatchApp(floor(), refresh_s=0.05)
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: rows_in(app))
            grid = app.query_one("#tables", DataTable)
            grid.move_cursor(row=grid.get_row_index(f"{SITE}/RL-03"))
            await until(pilot, lambda: app.selected == (SITE, "RL-03"))
            await pilot.press("a")
            await pilot.pause(0.05)
            await pilot.press("a")
            status = str(app.query_one("#status", Static).content)
            assert status == "acknowledge alert A00001 on casino-1/RL-03? press a again"

    asyncio.run(main())


def test_a_wide_terminal_puts_the_detail_beside_the_table() -> None:
    async def main() -> None:
        model = floor()
        app = WatchApp(model, refresh_s=0.05)
        async with app.run_test(size=(240, 50)) as pilot:
            text = await shown(app, pilot)
            keys = check_every_visible_cell(app, text)
            assert keys == [c.key for c in COLUMNS if c.key != "site"]
            assert not app.screen.has_class("narrow")
            side = app.query_one("#side").region
            assert side.x >= app.query_one("#tables", DataTable).region.right
            assert side.width >= 56

    asyncio.run(main())
