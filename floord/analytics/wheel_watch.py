"""The running fairness tests of one wheel: by pocket (or symbol) and by wheel sector.

A biased wheel (a worn pocket separator, a tilted rotor) shows as some pockets, or a run
of neighbouring pockets, coming up more often than chance allows. `WheelWatch` keeps the
last `window` results and, on every result once the window is full, runs two Pearson
chi-square tests against the fair distribution:

- `pocket`: each pocket is a cell (on a Big Six wheel each symbol, with probability
  sections-showing-it / 54, 58 Pa. Code § 533.1(a));
- `sector`: the physical order (§ 531.1(b), (c) for Roulette, § 533.1(b) for Big Six) is
  cut into `sectors` arcs of neighbouring pockets, starting at the first pocket of
  `order`; a bias spread over several neighbours is much easier to see here.

An alert is raised once per excursion: when a test's p-value falls below `level` it is
returned once, and that test stays silent until its p-value is back at or above `level`
(see `floord.analytics.sliding_chi_square`). On a double-zero wheel used as a single-zero wheel
(§ 531.1(d)) a 00 is a no-spin, not a result, so the fair distribution is uniform over
the other 37 pockets and 00 is refused.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from floord.analytics.saved_state import field
from floord.analytics.sliding_chi_square import Category, RunningTest
from floord.engine.core.copies import copy_sharing
from floord.engine.roulette.layout import WHEEL_KINDS, wheel_spec

BIG_SIX = "big_six"
BIG_SIX_SECTIONS = 54  # § 533.1(a)
WATCH_KINDS: tuple[str, ...] = (*WHEEL_KINDS, BIG_SIX)


def roulette_order(kind: str) -> list[str]:
    """The clockwise pocket order of a Roulette wheel kind (§ 531.1(b), (c))."""
    return list(wheel_spec(kind).order)


def sector_arcs(order: Sequence[str], sectors: int) -> list[tuple[int, ...]]:
    """`sectors` arcs of consecutive positions of `order`, sizes differing by at most one."""
    n = len(order)
    if isinstance(sectors, bool) or not isinstance(sectors, int) or not 2 <= sectors <= n:
        raise ValueError(f"sectors must be 0 (off) or an integer from 2 to {n}, not {sectors!r}")
    bounds = [i * n // sectors for i in range(sectors + 1)]
    return [tuple(range(bounds[i], bounds[i + 1])) for i in range(sectors)]


# Set once and never changed: a copy of a watch shares them.
_FIXED = frozenset({"kind", "order", "_position_p", "_cell", "_arc_of"})


class WheelWatch:
    """Pocket and sector chi-square tests over a sliding window of one wheel's results."""

    def __init__(
        self,
        kind: str,
        order: Sequence[str],
        window: int,
        level: float,
        sectors: int,
        *,
        section_counts: dict[str, int] | None = None,
    ) -> None:
        if kind not in WATCH_KINDS:
            raise ValueError(f"unknown wheel kind {kind!r}: one of {', '.join(WATCH_KINDS)}")
        self.kind = kind
        self.order = tuple(order)
        if kind == BIG_SIX:
            weights = self._big_six_weights(section_counts)
        else:
            weights = self._roulette_weights(kind, section_counts)
        total = sum(weights.values())
        self._position_p = [weights.get(label, 0) / total / self._shows(label) for label in order]
        labels = [label for label in dict.fromkeys(self.order) if weights.get(label, 0) > 0]
        self._cell = {label: i for i, label in enumerate(labels)}
        cells = [Category(label, (label,), weights[label] / total) for label in labels]
        self.pocket = RunningTest("pocket", cells, window, level)
        self.sector: RunningTest | None = None
        self._arc_of: list[int] = []
        if sectors != 0:
            arcs = sector_arcs(self.order, sectors)
            self._arc_of = [0] * len(self.order)
            arc_cells = []
            for a, arc in enumerate(arcs):
                for position in arc:
                    self._arc_of[position] = a
                members = tuple(self.order[p] for p in arc)
                arc_cells.append(
                    Category(
                        f"{members[0]}..{members[-1]}",
                        members,
                        sum(self._position_p[p] for p in arc),
                    )
                )
            self.sector = RunningTest("sector", arc_cells, window, level)
        self.spins = 0

    def __deepcopy__(self, memo: dict[int, Any]) -> WheelWatch:
        """The wheel's order and weights, set once, shared; the running tests copied."""
        return copy_sharing(self, memo, _FIXED)

    def _shows(self, label: str) -> int:
        return self.order.count(label)

    def _roulette_weights(self, kind: str, section_counts: dict[str, int] | None) -> dict[str, int]:
        if section_counts is not None:
            raise ValueError("section_counts is for a Big Six wheel only")
        spec = wheel_spec(kind)
        if len(self.order) != spec.pockets or set(self.order) != set(spec.order):
            raise ValueError(
                f"order must list each of the {spec.pockets} pockets of a {kind} wheel once "
                f"(58 Pa. Code § {spec.layout_section})"
            )
        if kind == "double_zero_as_single":
            return {label: 0 if label == "00" else 1 for label in self.order}
        return dict.fromkeys(self.order, 1)

    def _big_six_weights(self, section_counts: dict[str, int] | None) -> dict[str, int]:
        if section_counts is None:
            raise ValueError("a Big Six watch needs section_counts (sections per symbol)")
        if len(self.order) != BIG_SIX_SECTIONS:
            raise ValueError(
                f"a Big Six order lists {BIG_SIX_SECTIONS} sections, not "
                f"{len(self.order)} (58 Pa. Code § 533.1(a))"
            )
        if dict(Counter(self.order)) != dict(section_counts):
            raise ValueError(
                f"section_counts {dict(section_counts)} do not match the symbols of the "
                f"order {dict(Counter(self.order))}"
            )
        return dict(section_counts)

    def _position(self, result: str, position: int | None) -> int | None:
        if self.kind != BIG_SIX:
            return self.order.index(result)
        if position is None:
            if self.sector is not None:
                raise ValueError("a Big Six sector test needs the section index of the result")
            return None
        if isinstance(position, bool) or not isinstance(position, int):
            raise ValueError(f"a section index must be an integer, not {position!r}")
        if not 0 <= position < len(self.order) or self.order[position] != result:
            raise ValueError(f"section {position} does not show {result!r}")
        return position

    def sector_of(self, result: str, position: int | None = None) -> int | None:
        """The index of the sector arc a result falls in (by its position on the wheel:
        a Big Six symbol shows in many arcs); None when the sector test is off."""
        if self.sector is None:
            return None
        at = self._position(result, position)
        return None if at is None else self._arc_of[at]

    def add(self, result: str, *, position: int | None = None) -> list[dict[str, Any]]:
        """Count one result; return the alerts it raises (each test raises once per
        excursion of its p-value below the level, see the module docstring).

        `position` is a Big Six result's section index (needed for its sector test); a
        Roulette pocket's position is read from `order`.
        """
        if not isinstance(result, str) or result not in self._cell:
            if self.kind == "double_zero_as_single" and result == "00":
                raise ValueError(
                    "00 on a double-zero wheel used as single zero is a no-spin "
                    "(58 Pa. Code § 531.1(d)), not a result"
                )
            raise ValueError(f"{result!r} is not a result of a {self.kind} wheel")
        at = self._position(result, position)
        self.spins += 1
        alerts = []
        found = self.pocket.push(self._cell[result])
        if found is not None:
            alerts.append(found)
        if self.sector is not None and at is not None:
            found = self.sector.push(self._arc_of[at])
            if found is not None:
                alerts.append(found)
        return [{**alert, "wheel": self.kind, "spins": self.spins} for alert in alerts]

    def state(self) -> dict[str, Any]:
        """Its tests' windows and alarms, and the results counted (`RunningTest.state`)."""
        sector = None if self.sector is None else self.sector.state()
        return {"pocket": self.pocket.state(), "sector": sector, "spins": self.spins}

    def load(self, state: Any) -> None:
        """Go on from a `state()`; ValueError when it does not fit this watch."""
        spins = field(state, "spins", int)
        sector = state.get("sector")
        if (sector is None) != (self.sector is None) or spins < 0:
            raise ValueError("a saved wheel watch does not fit its sector test or count")
        self.pocket.load(state.get("pocket"))
        if self.sector is not None:
            self.sector.load(sector)
        self.spins = spins

    def statistics(self) -> list[dict[str, Any]]:
        """The latest evaluation of each test (none before the window first fills)."""
        tests = [self.pocket, self.sector]
        return [t.last for t in tests if t is not None and t.last is not None]
