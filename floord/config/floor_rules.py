"""Rules that bind every table of a kind on the floor, not one table alone.

§ 545.13(g): "The percentage of vigorish charged at a Baccarat table shall apply to all
players at that table. The same percentage of vigorish shall be used for all Baccarat
tables located within a licensed facility." A config is one box's part of the facility:
`check` sees the Baccarat tables it lists, not those another box runs, so the operator
still keeps the boxes' configs in step. EZ Baccarat tables charge no vigorish
(§ 545.13(c)) and are left out. Chapters 541 and 543 (Minibaccarat, Midibaccarat) hold
no such paragraph in floord's sources, so their tables are not compared.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from floord.config.tables import TableConfig
from floord.games.baccarat import BaccaratTableConfig


def same_vigorish_problems(tables: Sequence[TableConfig], path: Path) -> list[str]:
    """One line per Baccarat table whose vigorish differs from the first one's."""
    first: tuple[int, str, int] | None = None  # (index, table id, percent)
    problems: list[str] = []
    for t, table in enumerate(tables):
        if not isinstance(table, BaccaratTableConfig):
            continue
        if table.game != "baccarat" or table.rules.ez_baccarat:
            continue
        percent = table.rules.vigorish_percent
        if first is None:
            first = (t, table.id, percent)
        elif percent != first[2]:
            problems.append(
                f"{path}: tables.{t}.rules.vigorish_percent: the same vigorish on every "
                f"Baccarat table of the facility (58 Pa. Code § 545.13(g)) expected, "
                f"{first[2]} as on table {first[1]!r} (tables.{first[0]}), found {percent}"
            )
    return problems
