"""Why a Roulette round is void where the regulation is silent, and what a void spin
may still do.

Chapter 531 voids a spin for the irregularities of § 531.7 and § 531.5(c)(2)
(`irregularities.py`); floord voids a round by its own policy when the wheel starts
another game or goes idle without a number. Either way the engine remembers the last
spin declared void, so that a late launch of it opens no round and its number is no
result, unless the void called for that same spin to be spun again (§ 531.7(a),
§ 531.5(c)(2)). The records and the decision on a relaunch are kept here, as data.
"""

from __future__ import annotations

from typing import Any

SUPERSEDED_POLICY = (
    "floord policy, not a regulation: a round whose wheel started a new game without "
    "reporting a number is void"
)
IDLE_POLICY = (
    "floord policy, not a regulation: a round whose wheel went idle without reporting a "
    "number is void"
)
VOIDED_SPIN_POLICY = (
    "floord policy, not a regulation: a spin declared void stays void (its launch opens no "
    "round, its number is no result) unless its void called for the same spin to be spun "
    "again; the wheel's next game is the next round"
)


def voided_spin(
    round_id: str | None, spin: Any, reason: str, rule: str | None, spun_again: bool
) -> dict[str, Any]:
    """The engine's record of the last spin declared void (kept in the snapshot)."""
    return {
        "round": round_id,
        "spin": spin,
        "reason": reason,
        "rule": rule,
        "spun_again": spun_again,
    }


def launch_after_void(voided: dict[str, Any] | None, spin: Any) -> dict[str, Any] | None:
    """The violation's fields when a launch of a spin already declared void must open no
    round (floord policy: the regulation is silent on a spin voided by a restart, a halt
    or a close); None when it may. A void that called for the spin to be spun again
    (§ 531.7(a), § 531.5(c)(2)) lets one launch through: `voided` then records that the
    re-spin was taken, so a further launch is refused. Only `wheel.game_started` begins
    a new game, even one that reuses the number."""
    if voided is None or spin is None or voided.get("spin") != spin:
        return None
    if voided.get("spun_again") is True:
        voided["spun_again"] = False
        return None
    return {
        "spin": spin,
        "voided_round": voided.get("round"),
        "voided_reason": voided.get("reason"),
        "detail": "the spin was already declared void: its launch opens no round",
    }
