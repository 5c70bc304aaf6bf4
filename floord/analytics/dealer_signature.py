"""The dealer signature test: does one dealer's ball land a steady distance from release?

A dealer who can aim ("dealer signature") releases the ball so that it lands, more often
than chance, near a fixed number of pockets from where it left the hand. On a fair spin
the result is independent of the release point, so the clockwise distance in pockets from
release pocket to result pocket is uniform over the wheel. `DealerSignature` keeps, per
dealer (as signed in with the dealer sign-in command), the last `window` distances,
grouped into `bins` arcs of neighbouring distances, and runs a Pearson chi-square test
against the uniform distribution on every spin once that dealer's window is full.

Alerts have the shape of the wheel tests (`floord.analytics.wheel_watch`) with
`test: "dealer_signature"` and `dealer`, and are raised once per excursion: after an alert
a dealer's test is silent until its p-value is back at or above `level`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from floord.analytics.saved_state import field
from floord.analytics.sliding_chi_square import Category, RunningTest, check_level, check_window
from floord.analytics.wheel_watch import sector_arcs
from floord.engine.core.copies import copy_sharing
from floord.engine.roulette.layout import WHEEL_KINDS, wheel_spec

# Set once and never changed: a copy of the test shares them.
_FIXED = frozenset({"order", "kind", "_bin_of", "_categories", "level", "window", "_index"})


class DealerSignature:
    """Per-dealer chi-square tests of release-to-result distance against uniform."""

    def __init__(
        self, kind: str, order: Sequence[str], window: int, level: float, bins: int
    ) -> None:
        if kind not in WHEEL_KINDS:
            raise ValueError(f"unknown Roulette wheel kind {kind!r}: one of {WHEEL_KINDS}")
        spec = wheel_spec(kind)
        self.order = tuple(order)
        if len(self.order) != spec.pockets or set(self.order) != set(spec.order):
            raise ValueError(f"order must list each of the {spec.pockets} pockets once")
        self.kind = kind
        n = len(self.order)
        distances = [str(d) for d in range(n)]
        arcs = sector_arcs(distances, bins)
        self._bin_of = [0] * n
        self._categories = []
        for b, arc in enumerate(arcs):
            for d in arc:
                self._bin_of[d] = b
            members = tuple(distances[d] for d in arc)
            self._categories.append(Category(f"{arc[0]}..{arc[-1]}", members, len(arc) / n))
        self.level = check_level(level)
        self.window = check_window(window, self._categories, "dealer_signature")
        self._index = {label: i for i, label in enumerate(self.order)}
        self._tests: dict[str, RunningTest] = {}

    def __deepcopy__(self, memo: dict[int, Any]) -> DealerSignature:
        """The wheel and the arcs, set once, shared; the dealers' tests copied."""
        return copy_sharing(self, memo, _FIXED)

    def distance(self, release: str, result: str) -> int:
        """Clockwise pockets from the release pocket to the result pocket, 0 to n - 1."""
        for what, pocket in (("release", release), ("result", result)):
            if pocket not in self._index:
                raise ValueError(f"{what} {pocket!r} is not a pocket of a {self.kind} wheel")
        return (self._index[result] - self._index[release]) % len(self.order)

    @property
    def categories(self) -> tuple[Category, ...]:
        """The arcs of distances the test counts in, in order."""
        return tuple(self._categories)

    def arc(self, release: str, result: str) -> int:
        """The index of the arc the spin's release-to-result distance falls in."""
        return self._bin_of[self.distance(release, result)]

    def add(self, dealer: str, release: str, result: str) -> list[dict[str, Any]]:
        """Count one spin of `dealer`; return the alert it raises, if any."""
        if not isinstance(dealer, str) or not dealer:
            raise ValueError(f"a dealer id must be a non-empty string, not {dealer!r}")
        d = self.distance(release, result)
        test = self._tests.get(dealer)
        if test is None:
            test = RunningTest("dealer_signature", self._categories, self.window, self.level)
            self._tests[dealer] = test
        found = test.push(self._bin_of[d])
        return [] if found is None else [{**found, "dealer": dealer, "wheel": self.kind}]

    def state(self) -> dict[str, Any]:
        """Each dealer's test, in the order the dealers were first seen."""
        return {"dealers": {d: test.state() for d, test in self._tests.items()}}

    def load(self, state: Any) -> None:
        """Go on from a `state()`; ValueError when it does not fit."""
        tests: dict[str, RunningTest] = {}
        for dealer, saved in field(state, "dealers", dict).items():
            if not dealer:
                raise ValueError("a saved dealer test has no dealer")
            test = RunningTest("dealer_signature", self._categories, self.window, self.level)
            test.load(saved)
            tests[dealer] = test
        self._tests = tests

    def statistics(self, dealer: str) -> dict[str, Any] | None:
        """The latest evaluation of a dealer's test (None before the window first fills)."""
        test = self._tests.get(dealer)
        return None if test is None or test.last is None else {**test.last, "dealer": dealer}
