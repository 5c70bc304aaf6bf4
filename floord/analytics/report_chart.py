"""The PNG of `floord report wheel --png`: pocket frequencies against the expected band.

One bar per pocket (per symbol on a Big Six wheel), in the wheel's physical order so a
biased run of neighbouring pockets shows as a hump; the line is the fair expectation and
the shaded band its two-sided (1 - level) range for a single pocket, from the normal
approximation of the binomial count. matplotlib runs with the Agg backend: no display.
"""

from __future__ import annotations

import math
from pathlib import Path
from statistics import NormalDist
from typing import Any


def write_chart(table: str, report: dict[str, Any], path: Path) -> None:
    """Write the pocket-frequency chart of a `wheel_report` as a PNG file at `path`."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    n = report["results"]
    pockets = report["pockets"]
    z = NormalDist().inv_cdf(1 - report["level"] / 2)
    xs = range(len(pockets))
    expected = [p["probability"] * n for p in pockets]
    spread = [z * math.sqrt(n * p["probability"] * (1 - p["probability"])) for p in pockets]
    figure, axes = pyplot.subplots(figsize=(max(6.0, 0.3 * len(pockets)), 4.0))
    try:
        axes.bar(xs, [p["observed"] for p in pockets], color="tab:blue", label="observed")
        edges = [i - 0.5 for i in range(len(pockets) + 1)]  # each pocket's bar, edge to edge
        low = [e - s for e, s in zip(expected, spread, strict=True)]
        high = [e + s for e, s in zip(expected, spread, strict=True)]
        axes.fill_between(
            edges,
            [*low, low[-1]],
            [*high, high[-1]],
            step="post",
            color="tab:orange",
            alpha=0.3,
            label=f"expected ± {z:.2f} sd (level {report['level']})",
        )
        axes.step(edges, [*expected, expected[-1]], where="post", color="tab:orange",
                  label="expected")  # fmt: skip
        axes.set_xticks(list(xs), [p["label"] for p in pockets], rotation=90, fontsize=7)
        axes.set_xlabel("pocket, in the wheel's physical order")
        axes.set_ylabel("results")
        axes.set_title(f"{table}: {report['kind']} wheel, {n} results")
        axes.legend(fontsize=7)
        figure.tight_layout()
        figure.savefig(path, format="png")
    finally:
        pyplot.close(figure)
