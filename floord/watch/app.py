"""The console's screen: one row per table, the selected table's detail beside or below.

A floor of hundreds of tables sends far more messages than a terminal can redraw, so the
screen never redraws per message: every `refresh_s` it takes the model's dirty set and
updates only those rows, the floor summary line, and the detail view if its table
changed. The columns are fitted to their content and the terminal (`layout.fit`): when
the widths or the visible columns must change, or rows were added or re-sorted, the
table is rebuilt in order. A column's width only grows until the terminal is resized,
so a table that halts and resumes does not make the columns come and go. The detail
view goes beside the table on a terminal at least `WIDE` columns wide, else under it:
the arrangement follows the terminal alone, never the content. A floor of one site
shows the site in the summary line rather than in a column.
"""

from __future__ import annotations

import contextlib
import time
from typing import Any, ClassVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Container, VerticalScroll
from textual.coordinate import Coordinate
from textual.css.query import NoMatches
from textual.widgets import DataTable, Footer, Static

from floord.watch.detail import EventFilter, detail_text
from floord.watch.feed import WatchFeed
from floord.watch.layout import COLUMNS, Layout, fit, needed, wrap
from floord.watch.model import FloorModel, Key
from floord.watch.render import header_text, row_cells, row_values
from floord.watch.table_view import TableView

REFRESH_S = 0.2
SORTS = ("id", "urgency")
WIDE = 240  # from this many columns on, the detail view beside the table
SCROLLBAR = 2  # the table's vertical scrollbar, when its rows overflow
ACK_NOTE = "acknowledged at the floord watch console"
ARM_S = 10.0  # the second `a` that sends an ack must follow the first within this


def row_key(key: Key) -> str:
    return f"{key[0]}/{key[1]}"


def _urgency(view: TableView) -> tuple[int, str, str]:
    rank = 0 if view.halted else 1 if view.alerts else 2 if view.is_stale else 3
    return (rank, view.site, view.table)


class WatchApp(App[None]):
    """`floord watch` on a terminal."""

    TITLE = "floord watch"
    CSS = """
    #totals { height: auto; padding: 0 1; background: $panel; }
    #main { layout: horizontal; height: 1fr; }
    #tables { width: 2fr; height: 1fr; }
    #side { width: 1fr; border-left: solid $accent; padding: 0 1; }
    #status { height: auto; padding: 0 1; }
    .narrow #main { layout: vertical; }
    .narrow #tables { width: 1fr; height: auto; max-height: 60%; }
    .narrow #side { width: 1fr; height: 1fr; border-left: none; border-top: solid $accent; }
    .hide-detail #side { display: none; }
    .hide-detail #tables { width: 1fr; height: 1fr; max-height: 100%; }
    """
    ENABLE_COMMAND_PALETTE = False  # every key is in the footer; the palette adds none
    BINDINGS: ClassVar[list[Binding | tuple[str, str] | tuple[str, str, str]]] = [
        Binding("a", "ack", "ack alert"),
        Binding("t", "toggle_telemetry", "telemetry"),
        Binding("f", "cycle_filter", "filter"),
        Binding("d", "toggle_detail", "detail"),
        Binding("[", "scroll_detail(-1)", "up"),
        Binding("]", "scroll_detail(1)", "down"),
        Binding("s", "cycle_sort", "sort"),
        Binding("q", "quit", "quit"),
    ]

    def __init__(
        self,
        model: FloorModel,
        feed: WatchFeed | None = None,
        refresh_s: float = REFRESH_S,
        seconds: float | None = None,
    ) -> None:
        super().__init__()
        self.seconds = seconds
        self.model = model
        self.feed = feed
        self.refresh_s = refresh_s
        self.sort_by = SORTS[0]
        self.events = EventFilter()
        self.selected: Key | None = None
        self.layout_now: Layout | None = None
        self._values: dict[Key, dict[str, str]] = {}
        self._order: list[Key] = []
        self._heights: dict[Key, int] = {}
        self._need: dict[str, int] = {}
        # The alert the first `a` named, and when: the second `a` must follow within ARM_S.
        self._armed: tuple[Key, str, float] | None = None
        self._acked: Key | None = None
        operator = feed.operator if feed is not None else None
        self._message = Text(
            f"signing as {operator}: a, a acknowledges the selected table's oldest alert"
            if operator
            else "watching only: start with --as OPERATOR to acknowledge alerts",
            style="dim",
        )
        self.refreshes = 0

    def compose(self) -> ComposeResult:
        yield Static(id="totals")
        with Container(id="main"):
            yield DataTable(id="tables", cursor_type="row", zebra_stripes=False)
            with VerticalScroll(id="side"):
                yield Static(id="detail")
        yield Static(id="status")
        yield Footer()

    def on_mount(self) -> None:
        self.screen.set_class(self.size.width < WIDE, "narrow")
        self.refresh_rows()
        self.set_interval(self.refresh_s, self.refresh_rows)
        if self.feed is not None:
            self.run_worker(self.feed.run(), name="feed", exit_on_error=False)
        if self.seconds is not None:
            self.set_timer(self.seconds, self.exit)

    def on_resize(self) -> None:
        """A new terminal size: the arrangement again, and widths from the rows alone."""
        self.screen.set_class(self.size.width < WIDE, "narrow")
        self._need = {}

    def on_unmount(self) -> None:
        if self.feed is not None:
            self.feed.stop()

    # ----- the batched refresh ----------------------------------------------------------

    def refresh_rows(self) -> None:
        """Bring the rows the model marked dirty up to date; rebuild only when the
        columns, their widths or the rows' order must change."""
        try:
            table = self.query_one("#tables", DataTable)
            totals_line = self.query_one("#totals", Static)
            status_line = self.query_one("#status", Static)
        except NoMatches:
            return  # the interval fired while the app is tearing its widgets down
        dirty = self.model.take_dirty()
        for key in dirty:
            view = self.model.tables.get(key)
            if view is not None:
                self._values[key] = row_values(view)
        order = self._sorted()
        sites = {site for site, _ in self._values}
        single = next(iter(sites)) if len(sites) == 1 else None
        skip = frozenset({"site"}) if single else frozenset()
        need = needed(self._values.values())
        self._need = {k: max(v, self._need.get(k, 0)) for k, v in need.items()}
        layout = self._fit(table, self._need, skip)
        if layout is not None and (layout != self.layout_now or order != self._order):
            self._rebuild(table, layout, order)
        elif self.layout_now is not None:
            self._update(table, dirty)
        totals_line.update(
            header_text(
                self.model.totals(), self.model.connected, self.model.connection_detail, single
            )
        )
        if self._acked is not None and self._acked in dirty:
            self._show_command(self._acked)
        status_line.update(self._message)
        if self.selected in dirty:
            self._show_detail()
        self.refreshes += 1

    def _sorted(self) -> list[Key]:
        if self.sort_by == "id":
            return sorted(self._values)
        return sorted(self._values, key=lambda k: _urgency(self.model.tables[k]))

    def _fit(
        self, table: DataTable[Any], need: dict[str, int], skip: frozenset[str]
    ) -> Layout | None:
        width = table.size.width - SCROLLBAR
        if width <= 0:
            return None
        return fit(need, width, table.cell_padding, skip)

    def _cells(self, key: Key, layout: Layout) -> tuple[dict[str, Text], int]:
        """The row's cells for `layout`, the note wrapped to its width; and its height."""
        cells = row_cells(self.model.tables[key])
        height = 1
        for name, text in cells.items():
            if name in layout.keys and len(text.plain) > layout.width(name):
                lines = wrap(text.plain, layout.width(name))
                cells[name] = Text("\n".join(lines), style=text.style)
                height = max(height, len(lines))
        return cells, height

    def _rebuild(self, table: DataTable[Any], layout: Layout | None, order: list[Key]) -> None:
        """The whole table again, in `order`, with `layout`'s columns and widths."""
        if layout is None:
            return
        if layout != self.layout_now:
            table.clear(columns=True)
            labels = {c.key: c.label for c in COLUMNS}
            for name, width in layout.widths:
                table.add_column(labels[name], key=name, width=width)
        else:
            table.clear()
        self._heights = {}
        for key in order:
            cells, height = self._cells(key, layout)
            self._heights[key] = height
            row = [cells[name] for name in layout.keys]
            table.add_row(*row, key=row_key(key), height=height)
        self.layout_now, self._order = layout, order
        if self.selected in order:
            table.move_cursor(row=order.index(self.selected))
        elif order:
            self._select(order[min(table.cursor_row, len(order) - 1)])

    def _update(self, table: DataTable[Any], dirty: set[Key]) -> None:
        """Update the dirty rows' cells; a row whose height changes rebuilds the table."""
        layout = self.layout_now
        assert layout is not None
        updates = []
        for key in dirty:
            if key not in self.model.tables or key not in self._order:
                continue
            cells, height = self._cells(key, layout)
            if height != self._heights.get(key):
                self._rebuild(table, layout, self._order)
                return
            updates.append((key, cells))
        for key, cells in updates:
            for name in layout.keys:
                table.update_cell(row_key(key), name, cells[name])

    # ----- keys -------------------------------------------------------------------------

    def action_cycle_sort(self) -> None:
        self.sort_by = SORTS[(SORTS.index(self.sort_by) + 1) % len(SORTS)]
        self._rebuild(self.query_one("#tables", DataTable), self.layout_now, self._sorted())
        self._say(f"sorted by {self.sort_by}")

    def action_toggle_telemetry(self) -> None:
        self.events = self.events.toggled_telemetry()
        self._show_detail()
        self._say(f"events: {self.events.describe()}")

    def action_cycle_filter(self) -> None:
        self.events = self.events.next_family()
        self._show_detail()
        self._say(f"events: {self.events.describe()}")

    def action_scroll_detail(self, pages: int) -> None:
        side = self.query_one("#side", VerticalScroll)
        side.scroll_relative(y=pages * max(1, side.size.height - 1), animate=False)

    def action_toggle_detail(self) -> None:
        self.screen.toggle_class("hide-detail")
        self.refresh_rows()

    def action_ack(self) -> None:
        """Acknowledge the selected table's oldest open alert: `a` once to choose it, `a`
        again to send the signed `ack_alert`; the table's answer shows below."""
        view = self.model.tables.get(self.selected) if self.selected else None
        if view is None or not view.alerts:
            self._armed = None
            where = row_key(view.key) if view else "the selected table"
            self._say(f"no open alert on {where}", "yellow")
            return
        alert_id = sorted(view.alerts)[0]
        now = time.monotonic()
        armed = self._armed
        if armed is None or armed[:2] != (view.key, alert_id) or now - armed[2] > ARM_S:
            self._armed = (view.key, alert_id, now)
            self._say(f"acknowledge alert {alert_id} on {row_key(view.key)}? press a again", "bold")
            return
        self._armed = None
        problem = (
            self.feed.submit(
                view.site, view.table, "ack_alert", {"alert": alert_id, "note": ACK_NOTE}
            )
            if self.feed is not None
            else "no broker connection in this console"
        )
        if problem is not None:
            self._say(f"cannot acknowledge {alert_id}: {problem}", "bold red")
            return
        self._acked = view.key
        self._show_command(view.key)

    def _show_command(self, key: Key) -> None:
        command = self.model.tables[key].command
        if command is None:
            return
        style = {None: "bold", True: "green", False: "bold red"}[command.ok]
        by = f" (as {self.feed.operator})" if self.feed is not None and self.feed.operator else ""
        self._say(f"{row_key(key)}: {command.text()}{by}", style)

    def _say(self, message: str, style: str = "") -> None:
        self._message = Text(message, style=style)
        with contextlib.suppress(NoMatches):
            self.query_one("#status", Static).update(self._message)

    # ----- selection --------------------------------------------------------------------

    def _select(self, key: Key) -> None:
        if key != self.selected:
            self._armed = None
        self.selected = key
        self._show_detail()

    def on_data_table_row_highlighted(self, message: DataTable.RowHighlighted) -> None:
        # The cursor's row now, not the message's: a rebuild (which moves the cursor back
        # to the selected table) may come between a highlight and its handling.
        table = message.data_table
        if not table.row_count:
            return
        name = table.coordinate_to_cell_key(Coordinate(table.cursor_row, 0)).row_key.value
        if name is None:
            return
        site, _, tid = name.partition("/")
        self._select((site, tid))

    def on_data_table_header_selected(self, message: DataTable.HeaderSelected) -> None:
        self.sort_by = "id"
        self._rebuild(message.data_table, self.layout_now, self._sorted())

    def _show_detail(self) -> None:
        view = self.model.tables.get(self.selected) if self.selected else None
        self.query_one("#detail", Static).update(detail_text(view, self.events))
