"""How a table looks on the console: its row's cells and colour, its detail panel.

Kept apart from the textual app so the words and colours can be checked without a
terminal. Colours (docs/console.md): red = halted, magenta = open surveillance alerts,
yellow and dim = stale data (a gap, a table offline, the console disconnected); a halted
or alerting table that is also stale keeps its colour, dimmed.
"""

from __future__ import annotations

import json
from typing import Any

from rich.text import Text

from floord.watch.model import Totals
from floord.watch.table_view import TableView

COLUMNS: tuple[tuple[str, str], ...] = (
    ("site", "site"),
    ("table", "table"),
    ("game", "game"),
    ("state", "state"),
    ("round", "round"),
    ("last", "last event"),
    ("alerts", "alerts"),
    ("voids", "voids"),
    ("devices", "devices"),
    ("note", "note"),
)
HALTED = "bold red"
ALERT = "magenta"
STALE = "yellow"
NOTE_WIDTH = 60


def row_style(view: TableView) -> str:
    """The style of a whole row: the most urgent colour, dimmed when the data is stale."""
    if view.halted:
        colour = HALTED
    elif view.alerts:
        colour = ALERT
    elif view.is_stale:
        colour = STALE
    else:
        colour = ""
    return f"{colour} dim".strip() if view.is_stale else colour


def _devices(view: TableView) -> str:
    if not view.devices:
        return "-"
    down = sorted(d for d, up in view.devices.items() if not up)
    up = len(view.devices) - len(down)
    return f"{up} up" + (f", down: {', '.join(down)}" if down else "")


def _note(view: TableView) -> str:
    parts = []
    if view.halt_reason:
        parts.append(view.halt_reason)
    if view.is_stale:
        parts.append("STALE: " + view.stale_text())
    parts.extend(view.notes[k] for k in sorted(view.notes))
    if view.voids and view.last_void:
        parts.append(f"last void: {view.last_void}")
    text = " | ".join(parts)
    return text if len(text) <= NOTE_WIDTH else text[: NOTE_WIDTH - 1] + "…"


def row_values(view: TableView) -> dict[str, str]:
    """The plain text of each column of a table's row."""
    state = view.state or "?"
    if view.online is False:
        state += " (offline)"
    elif view.is_stale:
        state += " (stale)"
    last = view.last_event
    return {
        "site": view.site,
        "table": view.table,
        "game": view.game or "?",
        "state": state,
        "round": view.round or "-",
        "last": f"{last['type']} #{last['seq']}" if last else "-",
        "alerts": str(len(view.alerts)) if view.alerts else "",
        "voids": str(view.voids) if view.voids else "",
        "devices": _devices(view),
        "note": _note(view),
    }


def row_cells(view: TableView) -> dict[str, Text]:
    """The row's cells, each styled with the row's colour (alerts in magenta always)."""
    style = row_style(view)
    cells = {key: Text(value, style=style) for key, value in row_values(view).items()}
    if view.alerts:
        cells["alerts"] = Text(cells["alerts"].plain, style=f"bold {ALERT}")
    return cells


def header_text(totals: Totals, connected: bool, detail: str) -> Text:
    text = Text()
    text.append(f"tables {totals.tables}   ")
    text.append(f"halted {totals.halted}", style=HALTED if totals.halted else "")
    text.append("   ")
    text.append(f"alerts {totals.alerts}", style=ALERT if totals.alerts else "")
    text.append("   ")
    text.append(f"stale {totals.stale}", style=STALE if totals.stale else "")
    text.append("   ")
    if connected:
        text.append("broker: connected", style="green")
    else:
        text.append(f"broker: {detail}", style="bold red")
    return text


def _data(data: Any, width: int = 90) -> str:
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False, default=str)
    return text if len(text) <= width else text[: width - 1] + "…"


def _wheel_lines(view: TableView) -> list[str]:
    wheel = view.wheel
    lines = [f"wheel: {wheel.kind or '?'}   results seen: {wheel.spins_seen}"]
    if wheel.results:
        lines.append("recent: " + " ".join(wheel.results))
    for name, test in sorted(wheel.tests.items()):
        lines.append(
            f"test {name}: p={test.get('p_value')} (level {test.get('level')}, "
            f"window {test.get('window')}, alert {test.get('id')})"
        )
    return lines


def detail_text(view: TableView | None) -> Text:
    """The side panel: the selected table's status, wheel analytics and recent events."""
    if view is None:
        return Text("no table selected", style="dim")
    out = Text()
    out.append(f"{view.site}/{view.table}", style="bold")
    out.append(f"  {view.game or '?'}  {view.state or '?'}\n", style=row_style(view))
    if view.halt_reason:
        out.append(f"halted: {view.halt_reason}\n", style=HALTED)
    online = {True: "online", False: "OFFLINE", None: "status unknown"}[view.online]
    out.append(f"daemon: {online}" + (f" ({view.status_reason})" if view.status_reason else ""))
    out.append(f"   round: {view.round or '-'}   voids: {view.voids}\n")
    out.append(f"devices: {_devices(view)}\n")
    for why in view.stale.values():
        out.append(f"stale: {why}\n", style=STALE)
    for note in view.notes.values():
        out.append(f"note: {note}\n", style="yellow")
    for alert_id, alert in sorted(view.alerts.items()):
        out.append(
            f"alert {alert_id}: {alert.get('test')} p={alert.get('p_value')} "
            f"(level {alert.get('level')})\n",
            style=ALERT,
        )
    if view.wheel.present:
        out.append("\n".join(_wheel_lines(view)) + "\n", style="cyan")
    out.append(f"\nrecent events ({len(view.recent)}):\n", style="bold")
    for env in reversed(view.recent):
        style = HALTED if env.type == "table.halted" else ALERT if "alert" in env.type else ""
        out.append(f"#{env.seq} {env.ts[11:23]} {env.type} [{env.source}] ", style=style)
        out.append(_data(env.data) + "\n", style="dim")
    return out
