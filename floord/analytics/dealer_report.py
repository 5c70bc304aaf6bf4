"""The dealer signature part of `floord report wheel`: per dealer, from the journal.

For every dealer who signed in (`dealer_in`) at a wheel whose sensor reports the release
pocket, the report gives the spins counted, the chi-square test of release-to-result
distances against uniform over all of them, and the alerts the live test would have
raised (replaying `DealerSignature` over the same results, so report and live watch
agree). Spins without a dealer or a release pocket are left out, and counted as such.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

from floord.analytics.dealer_signature import DealerSignature
from floord.analytics.sliding_chi_square import MIN_EXPECTED, evaluate


def dealer_report(
    kind: str, order: Sequence[str], window: int, level: float, bins: int, results: Sequence[Any]
) -> dict[str, Any]:
    """`results` are `WheelResult`s in journal order; bins 0 means the test is off."""
    signed = [r for r in results if r.dealer and r.release]
    unsigned = len(results) - len(signed)
    report: dict[str, Any] = {
        "bins": bins,
        "window": window,
        "unsigned": unsigned,
        "dealers": [],
        "alerts": [],
    }
    if not bins:
        return report
    live = DealerSignature(kind, order, window, level, bins)
    categories = live.categories
    per_dealer: dict[str, Counter[int]] = defaultdict(Counter)
    for r in signed:
        per_dealer[r.dealer][live.arc(r.release, r.result)] += 1
        for alert in live.add(r.dealer, r.release, r.result):
            report["alerts"].append({**alert, "seq": r.seq, "ts": r.ts})
    least = min(c.probability for c in categories)
    for dealer in sorted(per_dealer):
        counts = per_dealer[dealer]
        n = sum(counts.values())
        entry: dict[str, Any] = {"dealer": dealer, "spins": n}
        if n * least < MIN_EXPECTED:
            entry["too_few"] = f"{n} spins, {MIN_EXPECTED / least:.0f} needed"
        else:
            test = evaluate("dealer_signature", categories, [counts[i] for i in range(bins)], n)
            entry["test"] = {**test, "level": level, "below_level": test["p_value"] < level}
        report["dealers"].append(entry)
    return report


def format_dealer_report(report: dict[str, Any]) -> list[str]:
    if not report["bins"]:
        return ["dealer signature test: off"]
    lines = [
        f"dealer signature ({report['bins']} arcs of release-to-result distance; "
        f"{report['unsigned']} result(s) without a dealer or a release pocket)"
    ]
    for entry in report["dealers"]:
        if "too_few" in entry:
            lines.append(f"  {entry['dealer']}: too few spins ({entry['too_few']})")
            continue
        t = entry["test"]
        verdict = "BELOW LEVEL" if t["below_level"] else "ok"
        top = ", ".join(c["label"] for c in t["over_represented"])
        lines.append(
            f"  {entry['dealer']}: {entry['spins']} spins, chi-square {t['statistic']:.3f}, "
            f"dof {t['dof']}, p {t['p_value']:.4g} ({verdict} at {t['level']})"
            + (f"; distances over-represented: {top}" if top else "")
        )
    for a in report["alerts"]:
        lines.append(f"  alert {a['ts']} seq {a['seq']}: {a['dealer']} p {a['p_value']:.4g}")
    return lines
