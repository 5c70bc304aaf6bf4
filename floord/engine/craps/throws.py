"""How a throw the dice tracker reports is judged (58 Pa. Code § 537.9, § 537.10(a), (b)).

The device reports what it saw (docs/protocols/dice-tracker.md); the judgement is here:
- § 537.9(a): a die off the table, or one die at rest on the other, makes the roll
  invalid, whoever is at the table: the engine voids it.
- § 537.10(b): a die resting on more than one side (`cocked_multi`) voids the roll.
- § 537.9(b)(1)-(4): dice not out of the hand together, a die short of the far end, on
  the bank, in the dice cup or on a rail are reasons the persons of § 537.9(d) *may* call
  "no roll": a permission, not the device's verdict, so the throw is held for their call
  (`call_roll` or `no_roll`). A cocked die (§ 537.10(b): the face opposite its resting
  side) is held too, floord's policy, so a disputed face can be decided (§ 537.10(c))
  before the roll is called.
- § 537.10(a): otherwise the roll is called at once: the sum of the skyward faces.
A throw the device could not read (a face missing where the grammar needs one) is held
for a person's call as well, under floord's strict policy, and so is one with a die whose
id it could not read (`UNIDENTIFIED_POLICY`): the table goes on, where a device fault
would halt it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from floord.contract import cite

# § 537.9(b): the reasons for "no roll" a device can see, and the paragraph of each.
SEEN_REASONS = {
    "not_together": "537.9(b)(1)",
    "far_end": "537.9(b)(2)",
    "bank": "537.9(b)(3)",
    "cup_or_rail": "537.9(b)(4)",
}
# Every reason a person may give (§ 537.9(b)(1)-(6)).
NO_ROLL_REASONS = {**SEEN_REASONS, "cheating": "537.9(b)(5)", "improper": "537.9(b)(6)"}
UNIDENTIFIED_POLICY = (
    "floord policy, not a regulation: a die whose id the tracker could not read may not be "
    "of the set (§ 537.7(a)) or the shooter's (§ 537.7(c)): the throw is for a person's call"
)
COCKED_POLICY = (
    "floord policy, not a regulation: a throw with a cocked die is held for the "
    "stickperson's call so a disputed face can be decided first (§ 537.10(b), (c))"
)


@dataclass
class Judgement:
    """What a throw is: `void` under `rule`, `held` for `reasons`, or a roll of `faces`."""

    faces: list[int | None]
    ids: list[str | None]
    void: tuple[str, str] | None = None  # (reason, paragraph)
    held: list[dict[str, Any]] = field(default_factory=list)

    @property
    def total(self) -> int | None:
        if any(f is None for f in self.faces):
            return None
        return sum(f for f in self.faces if f is not None)


def _die(raw: Any) -> dict[str, Any]:
    return raw if isinstance(raw, dict) else {}


def judge(data: dict[str, Any]) -> Judgement:
    """The judgement of one `dice.throw` body of two dice."""
    dice = [_die(d) for d in data.get("dice") or []]
    faces = [d.get("face") if isinstance(d.get("face"), int) else None for d in dice]
    ids = [d.get("id") if isinstance(d.get("id"), str) else None for d in dice]
    j = Judgement(faces, ids)
    rests = [d.get("rest") for d in dice]
    if "off" in rests:
        j.void = ("off_the_table", "537.9(a)")
        return j
    if "die" in rests:
        j.void = ("die_on_die", "537.9(a)")
        return j
    if any(d.get("lie") == "cocked_multi" for d in dice):
        j.void = ("resting_on_more_than_one_side", "537.10(b)")
        return j
    if len(dice) != 2:
        j.held.append(
            {
                "reason": "two_dice_expected",
                "found": len(dice),
                "policy": "floord policy, not a regulation: a throw floord cannot "
                "read is for a person to call",
            }
        )
        return j
    if data.get("together") is False:
        j.held.append({"reason": "not_together", "rule": cite(SEEN_REASONS["not_together"])})
    if any(d.get("far_end") is False for d in dice):
        j.held.append({"reason": "far_end", "rule": cite(SEEN_REASONS["far_end"])})
    if "bank" in rests:
        j.held.append({"reason": "bank", "rule": cite(SEEN_REASONS["bank"])})
    if "cup" in rests or "rail" in rests:
        j.held.append({"reason": "cup_or_rail", "rule": cite(SEEN_REASONS["cup_or_rail"])})
    if any(d.get("lie") == "cocked" for d in dice):
        j.held.append({"reason": "cocked", "policy": COCKED_POLICY})
    if any(i is None for i in j.ids):
        j.held.append({"reason": "die_not_identified", "policy": UNIDENTIFIED_POLICY})
    if j.total is None:
        j.held.append(
            {
                "reason": "face_not_read",
                "policy": "floord policy, not a regulation: a throw floord cannot "
                "read is for a person to call",
            }
        )
    return j


def held_record(
    throw: Any, j: Judgement, held: list[dict[str, Any]]
) -> tuple[dict[str, Any], str | None]:
    """A throw held for a person's call: the `craps.throw_held` body and its rule, the
    first reason's paragraph (a throw held under policy alone names the first policy)."""
    body = {
        "throw": throw,
        "faces": j.faces,
        "dice": j.ids,
        "total": j.total,
        "reasons": held,
        "awaiting": ["call_roll", "no_roll", "face_ruling"],
    }
    rule = next((h["rule"] for h in held if "rule" in h), None)
    if rule is None:
        body["policy"] = held[0]["policy"]
    return body, rule
