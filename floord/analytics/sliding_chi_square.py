"""One chi-square test over a sliding window of results, raising once per excursion.

A wheel's tests run on every result once the window is full. Under a fair wheel each
evaluation falls below the level with probability `level`, but consecutive windows share
all but one result, so a p-value that dips below the level tends to stay there for many
spins. Repeating the alert on each of them would bury surveillance in copies of one
finding, so a test raises once when p falls below the level and re-arms only when p is
back at or above it.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Self

from floord.analytics.chi_square import chi_square
from floord.analytics.saved_state import field
from floord.engine.core.copies import Fixed, copy_sharing

MIN_EXPECTED = 5.0  # Cochran's rule: below this the chi-square tail is not trustworthy
TOP_OVER_REPRESENTED = 3


@dataclass(frozen=True)
class Category(Fixed):
    """One cell of a test: its label, the pockets (or sections, distances) it holds, and
    its probability on a fair wheel."""

    label: str
    members: tuple[str, ...]
    probability: float


def check_level(level: float) -> float:
    if isinstance(level, bool) or not isinstance(level, int | float) or not 0 < level < 1:
        raise ValueError(f"level must be a number strictly between 0 and 1, not {level!r}")
    return float(level)


def check_window(window: int, categories: Sequence[Category], test: str) -> int:
    """The window must give every category at least MIN_EXPECTED expected results."""
    if isinstance(window, bool) or not isinstance(window, int) or window < 1:
        raise ValueError(f"window must be a positive integer, not {window!r}")
    least = min(c.probability for c in categories)
    if window * least < MIN_EXPECTED:
        needed = math.ceil(MIN_EXPECTED / least - 1e-9)
        raise ValueError(
            f"window {window} is too small for the {test} test: its rarest cell expects "
            f"{window * least:.2f} results; a window of at least {needed} is needed"
        )
    return window


def evaluate(
    test: str, categories: Sequence[Category], counts: Sequence[int], window: int
) -> dict[str, Any]:
    """The test's statistic, p-value and most over-represented cells for these counts."""
    expected = [c.probability * window for c in categories]
    result = chi_square(counts, expected)
    excess = [
        ((o - e) / math.sqrt(e), c, o, e)
        for c, o, e in zip(categories, counts, expected, strict=True)
        if o > e
    ]
    excess.sort(key=lambda item: -item[0])
    return {
        "test": test,
        "statistic": result.statistic,
        "dof": result.dof,
        "p_value": result.p_value,
        "window": window,
        "over_represented": [
            {
                "label": c.label,
                "members": list(c.members),
                "observed": o,
                "expected": round(e, 6),
            }
            for _, c, o, e in excess[:TOP_OVER_REPRESENTED]
        ],
    }


# Set once and never changed: a copy of a running test shares them.
_FIXED = frozenset({"test", "categories", "level", "window"})
# Ints only: a copy of a running test copies them flat, not element by element.
_INTS = frozenset({"_recent", "counts"})


class RunningTest:
    """A sliding window of category indices with its counts and its alarm state."""

    def __init__(self, test: str, categories: Sequence[Category], window: int, level: float):
        if len(categories) < 2:
            raise ValueError(f"the {test} test needs at least two cells")
        total = math.fsum(c.probability for c in categories)
        if abs(total - 1.0) > 1e-9:
            raise ValueError(f"the {test} test's probabilities add up to {total}, not 1")
        self.test = test
        self.categories = tuple(categories)
        self.level = check_level(level)
        self.window = check_window(window, self.categories, test)
        self._recent: deque[int] = deque()
        self.counts = [0] * len(self.categories)
        self.armed = True
        self.last: dict[str, Any] | None = None

    def __deepcopy__(self, memo: dict[int, Any]) -> Self:
        """The cells and tuning shared, the window and the counts copied flat."""
        clone: Self = copy_sharing(self, memo, _FIXED | _INTS)
        clone._recent = deque(self._recent)
        clone.counts = list(self.counts)
        return clone

    def state(self) -> dict[str, Any]:
        """What a restart needs to go on exactly where this test is: its window and its
        alarm (the counts and the last evaluation follow from the window)."""
        return {"recent": list(self._recent), "armed": self.armed}

    def load(self, state: Any) -> None:
        """Go on from a `state()`; ValueError (nothing changed) when it does not fit."""
        recent, armed = field(state, "recent", list), field(state, "armed", bool)
        cells = len(self.categories)
        if len(recent) > self.window or not all(type(i) is int and 0 <= i < cells for i in recent):
            raise ValueError(f"the {self.test} test's window does not fit it")
        self._recent = deque(recent)
        self.counts = [0] * cells
        for index in recent:
            self.counts[index] += 1
        self.armed = armed
        self.last = None
        if len(recent) == self.window:
            self.last = evaluate(self.test, self.categories, self.counts, self.window)

    def push(self, index: int) -> dict[str, Any] | None:
        """Count one result; return an alert if p has just fallen below the level."""
        self._recent.append(index)
        self.counts[index] += 1
        if len(self._recent) > self.window:
            self.counts[self._recent.popleft()] -= 1
        if len(self._recent) < self.window:
            return None
        self.last = evaluate(self.test, self.categories, self.counts, self.window)
        if self.last["p_value"] >= self.level:
            self.armed = True
            return None
        if not self.armed:
            return None
        self.armed = False
        return {**self.last, "level": self.level}
