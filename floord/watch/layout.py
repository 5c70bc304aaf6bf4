"""Which of the table's columns fit the terminal, and how wide each one is.

Every column is as wide as its widest cell (or its header) so its words are never cut.
When the terminal is too narrow for all of them, the least needed go first (the last
event, the devices, the round, the game, the voids, the violations, the site), so that
at 80 columns the table id, its state (with `stale`), its open alerts and the note with
the halt reasons always stay; the note takes what width is left, and a note longer than
that wraps at its words onto up to `NOTE_LINES` lines (the detail view has it whole).
Pure: no textual here.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Column:
    key: str
    label: str
    # Lower goes first when the terminal is too narrow; None: never dropped.
    drop: int | None


COLUMNS: tuple[Column, ...] = (
    Column("site", "site", 7),
    Column("table", "table", None),
    Column("game", "game", 4),
    Column("state", "state", None),
    Column("round", "round", 3),
    Column("last", "last event", 1),
    Column("alerts", "alerts", None),
    Column("voids", "voids", 5),
    Column("violations", "violations", 6),
    Column("devices", "devices", 2),
    Column("note", "note", None),
)
FLEXIBLE = "note"
# The note's width that counts when deciding what to drop; it gets all that is left.
NOTE_WANTED = 40
CELL_PADDING = 1  # textual's DataTable default, each side of a cell
NOTE_LINES = 3


@dataclass(frozen=True)
class Layout:
    """The visible columns in order, and each one's content width."""

    widths: tuple[tuple[str, int], ...]

    @property
    def keys(self) -> list[str]:
        return [key for key, _ in self.widths]

    def width(self, key: str) -> int:
        return dict(self.widths)[key]


def needed(rows: Iterable[dict[str, str]]) -> dict[str, int]:
    """Each column's widest cell, or its header when that is wider."""
    need = {c.key: len(c.label) for c in COLUMNS}
    for row in rows:
        for key, text in row.items():
            if key in need:
                need[key] = max(need[key], len(text))
    return need


def _width(column: Column, need: dict[str, int]) -> int:
    return min(need[column.key], NOTE_WANTED) if column.key == FLEXIBLE else need[column.key]


def fit(
    need: dict[str, int],
    width: int,
    padding: int = CELL_PADDING,
    skip: frozenset[str] = frozenset(),
) -> Layout:
    """The columns but `skip` that fit `width` cells, dropping the least needed first."""
    visible = [c for c in COLUMNS if c.key not in skip]

    def total() -> int:
        return sum(_width(c, need) + 2 * padding for c in visible)

    for column in sorted((c for c in visible if c.drop is not None), key=lambda c: c.drop or 0):
        if total() <= width:
            break
        visible.remove(column)
    fixed = sum(need[c.key] + 2 * padding for c in visible if c.key != FLEXIBLE)
    left = width - fixed - 2 * padding
    floor = len(next(c.label for c in COLUMNS if c.key == FLEXIBLE))
    widths = tuple(
        (c.key, max(floor, min(need[c.key], left)) if c.key == FLEXIBLE else need[c.key])
        for c in visible
    )
    return Layout(widths)


def clip(text: str, width: int) -> str:
    """`text` if it fits, else cut at the last word that fits, with `…`."""
    if len(text) <= width:
        return text
    if width <= 1:
        return "…"[:width]
    cut = text[: width - 1]
    space = cut.rfind(" ")
    if space >= width // 2:
        cut = cut[:space]
    return cut.rstrip(" ;,|:") + "…"


def wrap(text: str, width: int, lines: int = NOTE_LINES) -> list[str]:
    """`text` in lines of at most `width`, broken at words; past `lines`, cut with `…`."""
    if len(text) <= width:
        return [text]
    wrapped = textwrap.wrap(text, width, break_on_hyphens=False) or [""]
    if len(wrapped) > lines:
        rest = " ".join(wrapped[lines - 1 :])
        wrapped = [*wrapped[: lines - 1], clip(rest, width)]
    return wrapped
