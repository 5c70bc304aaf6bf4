"""The surveillance alert a result held for a ruling raises.

A table with a second source holds a result when its sources disagree
(`result.disputed`) or, set to `hold`, when the second is silent (`result.silent` with
`held`): the round is not settled until a floorperson rules, so surveillance is told
with an alert that stays open until acknowledged, as a wheel test's does. The alert has
the statistics' fields of the contract, null (it is no test), and names the round and
what each source reported.
"""

from __future__ import annotations

from typing import Any

from floord.contract import EventType
from floord.engine.core.types import Decision

NO_STATISTIC = dict.fromkeys(("statistic", "dof", "p_value", "level", "window", "over_represented"))


def held_results(decisions: list[Decision]) -> list[tuple[Decision, dict[str, Any]]]:
    """(the decision, the alert it raises) for each decision that holds a result."""
    found = []
    for d in decisions:
        data = d.data
        if d.type == EventType.RESULT_DISPUTED:
            test, second = "result_disputed", data.get("second")
        elif d.type == EventType.RESULT_SILENT and data.get("held") is True:
            test, second = "result_silent", None
        else:
            continue
        alert = {
            "test": test,
            **NO_STATISTIC,
            "round": d.round,
            "primary": data.get("primary"),
            "second": second,
            "detail": data.get("detail"),
        }
        found.append((d, alert))
    return found
