"""What `floord report wheel --png` draws, read from matplotlib's objects (not pixels):
pocket colours, the bars outside the band marked, the band behind the bars and never
below zero, the axis a Big Six chart needs, and a title with the time range and tests."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from matplotlib import pyplot
from matplotlib.collections import PolyCollection
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure

from floord.analytics.report import WheelResult, WheelSetup, wheel_report
from floord.analytics.report_chart import (
    BIG_SIX_COLOUR,
    OUTSIDE_EDGE,
    OUTSIDE_HATCH,
    POCKET_COLOURS,
    band,
    draw_chart,
)
from floord.engine.big_six.layout import ORDER_533_1_B
from floord.engine.roulette.layout import SINGLE_ZERO_ORDER, colour

pytestmark = pytest.mark.unit


@contextmanager
def chart(table: str, report: dict[str, Any]) -> Iterator[Figure]:
    figure = draw_chart(table, report)
    try:
        yield figure
    finally:
        pyplot.close(figure)


def _results(labels: list[str], positions: list[int | None] | None = None) -> list[WheelResult]:
    positions = positions or [None] * len(labels)
    return [
        WheelResult(i + 1, f"2026-12-01T12:{i // 60:02d}:{i % 60:02d}.000000Z", label, pos)
        for i, (label, pos) in enumerate(zip(labels, positions, strict=True))
    ]


def _band_polygons(figure: Figure) -> list[PolyCollection]:
    [axes] = figure.axes
    return [c for c in axes.collections if isinstance(c, PolyCollection)]


def test_roulette_bars_in_pocket_colours_outside_marked_band_behind_title_complete() -> None:
    rng = random.Random(4)
    numbers = [rng.choice(SINGLE_ZERO_ORDER) for _ in range(1110)]
    numbers += ["17"] * 40  # one hot pocket, well outside its band
    numbers = [n for n in numbers if n != "4"]  # and one cold one
    setup = WheelSetup("single_zero", tuple(SINGLE_ZERO_ORDER), 370, 0.001, 8)
    report = wheel_report(setup, _results(numbers))
    _, low, high = band(report)
    with chart("RL-01", report) as figure:
        [axes] = figure.axes
        [bars] = axes.containers
        labels = [t.get_text() for t in axes.get_xticklabels()]
        assert labels == list(SINGLE_ZERO_ORDER)
        outside = []
        for bar, pocket, lo, hi in zip(bars, report["pockets"], low, high, strict=True):
            assert bar.get_facecolor() == to_rgba(POCKET_COLOURS[colour(pocket["label"])])
            assert bar.get_height() == pocket["observed"]
            out = not lo <= pocket["observed"] <= hi
            assert (bar.get_hatch() == OUTSIDE_HATCH) is out
            if out:
                assert bar.get_edgecolor() == to_rgba(OUTSIDE_EDGE)
                outside.append(pocket["label"])
        assert "17" in outside and "4" in outside
        # A marker on each bar outside (even one of height zero: pocket 4 never came up).
        marked = [tuple(xy) for c in axes.collections if not isinstance(c, PolyCollection)
                  for xy in c.get_offsets()]  # fmt: skip
        at = {p["label"]: (i, p["observed"]) for i, p in enumerate(report["pockets"])}
        assert sorted(marked) == sorted(at[label] for label in outside)
        assert at["4"][1] == 0
        colours = {colour(p) for p in SINGLE_ZERO_ORDER}
        assert colours == {"red", "black", "green"}
        [polygons] = _band_polygons(figure)
        assert polygons.get_zorder() < bars.patches[0].get_zorder(), "the band behind the bars"
        assert axes.get_ylim()[0] == 0
        text = axes.get_title()
        assert text.startswith(f"RL-01: single_zero wheel, {len(numbers)} results\n")
        assert f"\nfrom {report['first']} to {report['last']}\n" in text
        for test in report["tests"]:
            verdict = "BELOW LEVEL" if test["below_level"] else "ok"
            assert f"{test['test']} p {test['p_value']:.3g} ({verdict} at 0.001)" in text
        assert f"{len(report['alerts'])} alert(s)" in text
        assert axes.get_xlabel() == "pocket, in the wheel's physical order"
        legend = [t.get_text() for t in axes.get_legend().get_texts()]
        assert f"outside the band ({len(outside)})" in legend


def test_big_six_is_charted_per_symbol_with_a_band_clipped_at_zero() -> None:
    order = list(ORDER_533_1_B)
    counts = Counter(order)
    rng = random.Random(6)
    sections = [rng.randrange(54) for _ in range(300)]
    setup = WheelSetup("big_six", tuple(order), 270, 0.001, 6, dict(counts))
    report = wheel_report(setup, _results([order[s] for s in sections], sections))
    expected, _, high = band(report)
    assert min(e - (h - e) for e, h in zip(expected, high, strict=True)) < 0, (
        "the rare symbols' unclipped band would go below zero"
    )
    with chart("B6-01", report) as figure:
        [axes] = figure.axes
        [bars] = axes.containers
        symbols = [t.get_text() for t in axes.get_xticklabels()]
        assert sorted(symbols) == sorted(counts) and len(bars) == len(counts) == 7
        assert axes.get_xlabel() == "symbol"
        assert all(bar.get_facecolor() == to_rgba(BIG_SIX_COLOUR) for bar in bars)
        [polygons] = _band_polygons(figure)
        lows = [y for path in polygons.get_paths() for _, y in path.vertices]
        assert min(lows) == pytest.approx(0.0) and min(lows) >= 0
        assert axes.get_ylim()[0] == 0
        assert axes.get_title().startswith("B6-01: big_six wheel, 300 results\nfrom ")
