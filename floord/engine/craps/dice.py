"""The dice at a Craps or Mini-Craps table (58 Pa. Code § 537.7) and the tracker that sees them.

What a table needs before a throw counts, apart from the throw itself: the § 537.2
inspection, a dice tracker that reports what floord judges a throw from, a set of at
least five dice at the table (§ 537.7(a)), and the record of the set and of the two
dice the shooter selects (§ 537.7(c)). The engine's round flow uses these to open the
table and to check a throw's dice; keeping them here leaves it the throws and their calls.
"""

from __future__ import annotations

from typing import Any

from floord.contract import cite
from floord.engine.core.inspection import InspectionSpec

MIN_SET = 5  # § 537.7(a)
NEEDED_CAPABILITIES = ("die_ids", "rest")
TRACKER_POLICY = (
    "floord policy, not a regulation: ch. 537 speaks of no device; floord plays a Craps "
    "table only on a dice tracker that reports each die's id and where it came to rest, "
    "what it needs to judge § 537.7(a) and § 537.9(a) from the throw"
)


def craps_inspection() -> InspectionSpec:
    """The § 537.2 characteristics checked before opening (floord policy: ch. 537 has no
    inspection paragraph, but a table must not open on a layout it does not describe)."""
    return InspectionSpec(
        items={
            "layout_approved": cite("537.2(d)"),
            "no_call_bets_shown": cite("537.2(d)(3)"),
            "drop_box_and_tip_box": cite("537.2(e)"),
        },
        rule=cite("537.2"),
    )


def tracker_problem(identity: dict[str, Any]) -> str | None:
    """Why the identified device is not a tracker floord can judge a throw from, or None."""
    caps = identity.get("capabilities")
    missing = [c for c in NEEDED_CAPABILITIES if not (isinstance(caps, list) and c in caps)]
    if not missing:
        return None
    return (
        f"the dice tracker does not report {', '.join(missing)} (capabilities {caps!r}): "
        "floord judges a Craps throw from where each die came to rest and which dice "
        "were thrown"
    )


def set_shortfall(dice_set: list[str]) -> list[str]:
    """Why the table may not open on `dice_set`: fewer than five dice (§ 537.7(a))."""
    if len(dice_set) >= MIN_SET:
        return []
    return [
        f"a set of at least {MIN_SET} dice must be at the table ({cite('537.7(a)')}); "
        f"the tracker sees {len(dice_set)}"
    ]


def _dice(data: dict[str, Any]) -> list[str]:
    return [d for d in data.get("dice") or [] if isinstance(d, str)]


def set_record(before: list[str], data: dict[str, Any]) -> tuple[list[str], dict[str, Any]]:
    """§ 537.7(a): the set the tracker reports, and its record naming each die replaced
    or removed since `before`."""
    dice = _dice(data)
    added = [d for d in dice if d not in before]
    removed = [d for d in before if d not in dice]
    body = {
        "action": "set",
        "dice": dice,
        "added": added,
        "removed": removed,
        "replaced": bool(added and removed),
    }
    return dice, body


def selected_record(data: dict[str, Any], seat: int | None) -> tuple[list[str], dict[str, Any]]:
    """§ 537.7(c), § 537.11(d): the two dice the shooter at `seat` selects and retains."""
    dice = _dice(data)
    return dice, {"action": "selected", "dice": dice, "shooter": seat}
