"""How a table looks on the console: its row's cells and colour, and the floor's totals.

Kept apart from the textual app so the words and colours can be checked without a
terminal (the detail view is `detail`, the column widths `layout`). Colours
(docs/console.md): red = halted, magenta = open surveillance alerts, yellow and dim =
stale data (a gap, a table offline, the console disconnected); a halted or alerting
table that is also stale keeps its colour, dimmed. A table's voids are yellow, its
procedure violations orange, in every row.
"""

from __future__ import annotations

from rich.text import Text

from floord.watch.model import Totals
from floord.watch.table_view import TableView
from floord.watch.wording import round_number

HALTED = "bold red"
ALERT = "magenta"
STALE = "yellow"
VOID = "yellow"
VIOLATION = "bold dark_orange"


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
    command = view.command
    # Waiting, or refused while its alert is still open: worth a line in the row.
    if command is not None and (
        command.ok is None or (command.ok is False and command.args.get("alert") in view.alerts)
    ):
        parts.append(command.text())
    return " | ".join(parts)


def _alerts(view: TableView) -> str:
    """`A00003 pocket` for one open alert; `3 open` for more (the detail lists each)."""
    if not view.alerts:
        return ""
    if len(view.alerts) > 1:
        return f"{len(view.alerts)} open"
    alert_id, alert = next(iter(view.alerts.items()))
    test = alert.get("test")
    return f"{alert_id} {test}" if isinstance(test, str) else alert_id


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
        "round": round_number(view.round) or "-",
        "last": f"{last['type']} #{last['seq']}" if last else "-",
        "alerts": _alerts(view),
        "voids": str(view.voids) if view.voids else "",
        "violations": str(view.violations) if view.violations else "",
        "devices": _devices(view),
        "note": _note(view),
    }


def row_cells(view: TableView) -> dict[str, Text]:
    """The row's cells, each styled with the row's colour (alerts in magenta always,
    voids yellow and violations orange)."""
    style = row_style(view)
    cells = {key: Text(value, style=style) for key, value in row_values(view).items()}
    dim = " dim" if view.is_stale else ""
    for key, colour in (("alerts", f"bold {ALERT}"), ("voids", VOID), ("violations", VIOLATION)):
        if cells[key].plain:
            cells[key] = Text(cells[key].plain, style=colour + dim)
    return cells


def header_text(totals: Totals, connected: bool, detail: str, site: str | None = None) -> Text:
    """The floor summary line: tables, open, halted, open alerts, stale, the broker;
    the site too when the floor has only one (its column is then left out)."""
    text = Text(f"site {site}  " if site else "")
    text.append(f"tables {totals.tables}  open {totals.open}  ")
    text.append(f"halted {totals.halted}", style=HALTED if totals.halted else "")
    text.append("  ")
    text.append(f"alerts {totals.alerts}", style=f"bold {ALERT}" if totals.alerts else "")
    text.append("  ")
    text.append(f"stale {totals.stale}", style=STALE if totals.stale else "")
    text.append("  ")
    if connected:
        text.append("broker connected", style="green")
    else:
        text.append(f"broker: {detail}", style="bold red")
    return text
