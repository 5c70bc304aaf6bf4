"""The console's screen: one row per table, the selected table's detail beside it.

A floor of hundreds of tables sends far more messages than a terminal can redraw, so the
screen never redraws per message: every `refresh_s` it takes the model's dirty set and
updates only those rows (adding new ones, re-sorting only when rows were added), the
totals line, and the detail panel if its table changed.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.coordinate import Coordinate
from textual.css.query import NoMatches
from textual.widgets import DataTable, Footer, Static

from floord.watch.feed import WatchFeed
from floord.watch.model import FloorModel, Key
from floord.watch.render import COLUMNS, detail_text, header_text, row_cells
from floord.watch.table_view import TableView

REFRESH_S = 0.2
SORTS = ("id", "urgency")


def row_key(key: Key) -> str:
    return f"{key[0]}/{key[1]}"


def _urgency(view: TableView) -> tuple[int, str, str]:
    rank = 0 if view.halted else 1 if view.alerts else 2 if view.is_stale else 3
    return (rank, view.site, view.table)


class WatchApp(App[None]):
    """`floord watch` on a terminal."""

    TITLE = "floord watch"
    CSS = """
    #totals { height: 1; padding: 0 1; background: $panel; }
    #tables { width: 3fr; }
    #side { width: 2fr; border-left: solid $accent; padding: 0 1; }
    """
    BINDINGS: ClassVar[list[Binding | tuple[str, str] | tuple[str, str, str]]] = [
        Binding("s", "cycle_sort", "sort: id / urgency"),
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
        self.selected: Key | None = None
        self._rows: dict[Key, str] = {}
        self._ranks: dict[Key, int] = {}
        self.refreshes = 0

    def compose(self) -> ComposeResult:
        yield Static(id="totals")
        with Horizontal():
            yield DataTable(id="tables", cursor_type="row", zebra_stripes=False)
            with VerticalScroll(id="side"):
                yield Static(id="detail")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#tables", DataTable)
        for key, label in COLUMNS:
            table.add_column(label, key=key)
        self.refresh_rows()
        self.set_interval(self.refresh_s, self.refresh_rows)
        if self.feed is not None:
            self.run_worker(self.feed.run(), name="feed", exit_on_error=False)
        if self.seconds is not None:
            self.set_timer(self.seconds, self.exit)

    def on_unmount(self) -> None:
        if self.feed is not None:
            self.feed.stop()

    # ----- the batched refresh ----------------------------------------------------------

    def refresh_rows(self) -> None:
        """Bring the rows the model marked dirty up to date; nothing else is redrawn."""
        try:
            table = self.query_one("#tables", DataTable)
            totals_line = self.query_one("#totals", Static)
        except NoMatches:
            return  # the interval fired while the app is tearing its widgets down
        dirty = self.model.take_dirty()
        resort = False
        for key in dirty:
            view = self.model.tables.get(key)
            if view is None:
                continue
            cells = row_cells(view)
            if key not in self._rows:
                name = row_key(key)
                table.add_row(*(cells[c] for c, _ in COLUMNS), key=name)
                self._rows[key] = name
                resort = True
            else:
                for column, cell in cells.items():
                    table.update_cell(self._rows[key], column, cell)
            rank = _urgency(view)[0]
            if self.sort_by == "urgency" and self._ranks.get(key) != rank:
                resort = True
            self._ranks[key] = rank
        if resort:
            self._sort(table)
            if self.selected is None and table.row_count:
                self._select_at(table, table.cursor_row)
        totals = header_text(
            self.model.totals(), self.model.connected, self.model.connection_detail
        )
        totals_line.update(totals)
        if self.selected in dirty:
            self._show_detail()
        self.refreshes += 1

    def _sort(self, table: DataTable[Any]) -> None:
        if self.sort_by == "id":
            table.sort("site", "table", key=lambda cells: tuple(_plain(c) for c in cells))
            return
        # Row keys are "site/table": look each row's urgency up through its id cells.
        order = {name: _urgency(self.model.tables[key]) for key, name in self._rows.items()}
        table.sort("site", "table", key=lambda cells: order["/".join(map(_plain, cells))])

    def action_cycle_sort(self) -> None:
        self.sort_by = SORTS[(SORTS.index(self.sort_by) + 1) % len(SORTS)]
        table = self.query_one("#tables", DataTable)
        self._sort(table)
        if self.selected is not None:
            table.move_cursor(row=table.get_row_index(row_key(self.selected)))

    # ----- selection --------------------------------------------------------------------

    def _select_at(self, table: DataTable[Any], index: int) -> None:
        name = table.coordinate_to_cell_key(Coordinate(index, 0)).row_key.value
        if name is not None:
            site, _, tid = name.partition("/")
            self.selected = (site, tid)
            self._show_detail()

    def on_data_table_row_highlighted(self, message: DataTable.RowHighlighted) -> None:
        name = message.row_key.value
        if name is None:
            return
        site, _, tid = name.partition("/")
        self.selected = (site, tid)
        self._show_detail()

    def on_data_table_header_selected(self, message: DataTable.HeaderSelected) -> None:
        self.sort_by = "id"
        self._sort(message.data_table)

    def _show_detail(self) -> None:
        view = self.model.tables.get(self.selected) if self.selected else None
        self.query_one("#detail", Static).update(detail_text(view))


def _plain(cell: Any) -> str:
    return cell.plain if isinstance(cell, Text) else str(cell)
