"""The PNG of `floord report wheel --png`: pocket frequencies against the expected band.

Roulette: one bar per pocket, in the wheel's physical order so that a biased run of
neighbouring pockets shows as a hump, each in its pocket's colour (red, black, green,
§ 531.1(b), (c)). Big Six: one bar per symbol (the pocket test's cells, probability
sections / 54). The step line is the fair expectation and the shaded band, drawn behind
the bars, its two-sided (1 - level) range for one cell from the normal approximation of
the binomial count, clipped at zero (no count is negative). A bar outside its band is
hatched with a gold edge and has a gold marker at its top (up: too many, down: too few).
The title gives the time range, each test's result and the running watch's alerts, so
the picture is never read without them. matplotlib runs with the Agg backend.
"""

from __future__ import annotations

import math
from pathlib import Path
from statistics import NormalDist
from typing import TYPE_CHECKING, Any

from floord.analytics.wheel_watch import BIG_SIX
from floord.engine.roulette.layout import colour

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

POCKET_COLOURS = {"red": "#c8102e", "black": "#1a1a1a", "green": "#00843d"}
BIG_SIX_COLOUR = "#2f6db5"
OUTSIDE_HATCH = "xx"
OUTSIDE_EDGE = "gold"
BAND_COLOUR = "tab:orange"


def band(report: dict[str, Any]) -> tuple[list[float], list[float], list[float]]:
    """Per cell: the expected count and the band's low (clipped at 0) and high ends."""
    n = report["results"]
    z = NormalDist().inv_cdf(1 - report["level"] / 2)
    expected, low, high = [], [], []
    for p in report["pockets"]:
        e = p["probability"] * n
        s = z * math.sqrt(n * p["probability"] * (1 - p["probability"]))
        expected.append(e)
        low.append(max(0.0, e - s))
        high.append(e + s)
    return expected, low, high


def title(table: str, report: dict[str, Any]) -> str:
    """What the chart is of: the results and their time range, each test over them, and
    the running watch's settings and alerts."""
    n = report["results"]
    head = [f"{table}: {report['kind']} wheel, {n} results"]
    if n:
        head.append(f"from {report['first']} to {report['last']}")
    tests = [
        f"{t['test']} p {t['p_value']:.3g} ({'BELOW LEVEL' if t['below_level'] else 'ok'} "
        f"at {t['level']})"
        for t in report["tests"]
    ]
    tests += [f"too few results for the {text}" for text in report["too_few"]]
    watch = (
        f"running watch (window {report['window']}, level {report['level']}, sectors "
        f"{report['sectors']}): {len(report['alerts'])} alert(s)"
    )
    return "\n".join([*head, "; ".join(tests), watch])


def draw_chart(table: str, report: dict[str, Any]) -> Figure:
    """The chart of a `wheel_report` as a matplotlib figure (the caller closes it)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    figure, axes = pyplot.subplots(figsize=(max(7.0, 0.3 * len(report["pockets"])), 5.0))
    try:
        _draw(axes, report)
        axes.set_title(title(table, report), fontsize=8)
        figure.tight_layout()
    except Exception:
        pyplot.close(figure)
        raise
    return figure


def _draw(axes: Axes, report: dict[str, Any]) -> None:
    """The band first (behind), then the bars, marked when outside it, then the line."""
    from matplotlib.patches import Patch

    pockets = report["pockets"]
    big_six = report["kind"] == BIG_SIX
    expected, low, high = band(report)
    observed = [p["observed"] for p in pockets]
    outside = [o < lo or o > hi for o, lo, hi in zip(observed, low, high, strict=True)]
    faces = [BIG_SIX_COLOUR if big_six else POCKET_COLOURS[colour(p["label"])] for p in pockets]
    xs = list(range(len(pockets)))
    edges = [i - 0.5 for i in range(len(pockets) + 1)]  # each cell's bar, edge to edge
    z = NormalDist().inv_cdf(1 - report["level"] / 2)
    axes.fill_between(
        edges,
        [*low, low[-1]],
        [*high, high[-1]],
        step="post",
        color=BAND_COLOUR,
        alpha=0.3,
        zorder=1,
        linewidth=0,
        label=f"expected ± {z:.2f} sd (level {report['level']})",
    )
    bars = axes.bar(xs, observed, color=faces, zorder=2)
    for bar, out in zip(bars, outside, strict=True):
        if out:
            bar.set_hatch(OUTSIDE_HATCH)
            bar.set_edgecolor(OUTSIDE_EDGE)
            bar.set_linewidth(1.5)
    # A marker at the top of each bar outside, pointing the way it is out: seen even on
    # a bar of height zero.
    for above, marker in ((True, "^"), (False, "v")):
        at = [
            (x, o)
            for x, o, out, e in zip(xs, observed, outside, expected, strict=True)
            if out and (o > e) is above
        ]
        if at:
            axes.scatter(
                [x for x, _ in at],
                [o for _, o in at],
                marker=marker,
                s=36,
                color=OUTSIDE_EDGE,
                edgecolors="black",
                zorder=4,
                clip_on=False,
            )
    axes.step(
        edges,
        [*expected, expected[-1]],
        where="post",
        color=BAND_COLOUR,
        zorder=3,
        label="expected",
    )
    axes.set_xticks(xs, [p["label"] for p in pockets], rotation=0 if big_six else 90, fontsize=7)
    axes.set_xlabel("symbol" if big_six else "pocket, in the wheel's physical order")
    axes.set_ylabel("results")
    axes.set_ylim(bottom=0, top=max([*high, *observed, 1.0]) * 1.08)
    handles, _ = axes.get_legend_handles_labels()
    marked = Patch(
        facecolor="white",
        edgecolor=OUTSIDE_EDGE,
        hatch=OUTSIDE_HATCH,
        label=f"outside the band ({sum(outside)})",
    )
    axes.legend(handles=[*handles, marked], fontsize=7)


def write_chart(table: str, report: dict[str, Any], path: Path) -> None:
    """Write the chart of a `wheel_report` as a PNG file at `path`."""
    figure = draw_chart(table, report)
    from matplotlib import pyplot

    try:
        figure.savefig(path, format="png")
    finally:
        pyplot.close(figure)
