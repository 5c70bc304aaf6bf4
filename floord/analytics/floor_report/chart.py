"""The PNG of `floord report floor --png`: what a floor manager would rather look at.

Three panels: rounds per hour by table (bars, the hours open written on each), the
minutes halted by cause (horizontal bars, the number of halts written beside), and each
surveillance alert's minutes to acknowledgement in the order raised (an alert still
open at the period's end is marked at the top of the panel). matplotlib, Agg backend.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


def write_floor_chart(report: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    figure, (rate, halts, acks) = pyplot.subplots(3, 1, figsize=(10, 11))
    try:
        tables = report["tables"]
        names = [f"{t['site']}/{t['table']}" for t in tables]
        values = [t["rounds_per_hour"] or 0.0 for t in tables]
        bars = rate.bar(names, values, color="#2f6db5")
        for bar, t in zip(bars, tables, strict=True):
            rate.annotate(
                f"{t['hours_open']} h open",
                (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                ha="center",
                va="bottom",
                fontsize=8,
            )
        rate.set_ylabel("rounds per hour open")
        rate.set_title(
            f"floor {report['from'] or 'start'} to {report['to'] or 'end'}: "
            "rounds per hour by table"
        )
        causes = report["halt_causes"]
        halts.barh([c["cause"] for c in causes], [c["minutes"] for c in causes], color="#c8102e")
        for i, c in enumerate(causes):
            halts.annotate(f" {c['halts']} halt(s)", (c["minutes"], i), va="center", fontsize=8)
        halts.set_xlabel("minutes halted")
        halts.set_title("halts by cause")
        alerts = report["alerts"]
        waits = [a["minutes_to_ack"] for a in alerts]
        top = max([w for w in waits if w is not None], default=1.0)
        labels = [f"{a['table']} {a['id']}" for a in alerts]
        acks.bar(
            labels,
            [w if w is not None else top for w in waits],
            color=["#00843d" if w is not None else "gold" for w in waits],
        )
        acks.set_ylabel("minutes to acknowledge")
        s = report["alert_summary"]
        acks.set_title(f"surveillance alerts: {s['raised']} raised, {s['open']} open (gold)")
        acks.tick_params(axis="x", labelrotation=60, labelsize=7)
        rate.tick_params(axis="x", labelrotation=30, labelsize=8)
        figure.tight_layout()
        figure.savefig(path, dpi=100)
    finally:
        pyplot.close(figure)
