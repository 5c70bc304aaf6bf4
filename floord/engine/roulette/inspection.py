"""The Roulette table's inspection checklist (58 Pa. Code § 531.3).

Apart from the engine so that the config's game definition and the engine read the one
checklist, and the engine module stays about what happens at the wheel.
"""

from __future__ import annotations

from floord.contract import cite
from floord.engine.core.inspection import InspectionSpec


def roulette_inspection(wheel: str) -> InspectionSpec:
    """The § 531.3(a) checklist, with the ball of § 531.2 beside its magnet test (a)(4);
    item (5) applies to a double zero wheel used as single."""
    items = {
        "no_magnet_or_contrivance": cite("531.3(a)(1)"),
        "wheel_level_and_free": cite("531.3(a)(2)"),
        "parts_secure": cite("531.3(a)(3)"),
        "ball_nonmagnetic": cite("531.3(a)(4)"),
        # § 531.2: the ball wholly nonmetallic, 12/16 to 14/16 of an inch in diameter.
        "ball_nonmetallic_and_size": cite("531.2"),
    }
    if wheel == "double_zero_as_single":
        items["layout_and_signage"] = cite("531.3(a)(5)")
    # Every opening is preceded by an inspection: a table closed (its wheel covered and
    # locked, § 531.3(f)) and reopened the same gaming day is inspected again.
    return InspectionSpec(items=items, rule=cite("531.3(a)"), per_opening=cite("531.3(f)"))
