"""How every game builds a decision: under a cited rule, or as floord's stated policy.

A decision either stands on a regulation (its `rule` is the citation) or on floord's
own policy (its `rule` is null and `data.policy` says which); the games differ only in
how they find a citation, so the builders live here once. `ruled` and `violation` take
any rules object that cites a short key and says when it borrows another chapter's rule
(`GameRules`, `BaccaratRules`).
"""

from __future__ import annotations

from typing import Any, Protocol

from floord.contract import EventType
from floord.engine.core.types import Decision

STRICT_POLICY = "floord policy, not a regulation: what floord does not understand is recorded"


class CitingRules(Protocol):
    """A game's rules as `ruled` reads them: a citation and any borrowing note per key."""

    def cite(self, key: str) -> str: ...

    def note(self, key: str) -> dict[str, str]: ...


def decision(type: EventType, rule: str | None, round_id: str | None, **data: Any) -> Decision:
    return Decision(type, data, rule, round_id)


def policy_decision(type: EventType, policy: str, round_id: str | None, **data: Any) -> Decision:
    """A decision that is floord's policy: `rule` null and the policy said in data."""
    return Decision(type, {**data, "policy": policy}, None, round_id)


def strict(what: str, round_id: str | None, **data: Any) -> Decision:
    """A `procedure.violation` of what floord does not understand (floord's strict policy)."""
    return policy_decision(
        EventType.PROCEDURE_VIOLATION, STRICT_POLICY, round_id, what=what, **data
    )


def ruled(
    rules: CitingRules, type: EventType, key: str, round_id: str | None, **data: Any
) -> Decision:
    """A decision taken under the rule `key`, with its citation and any borrowing note."""
    return Decision(type, {**data, **rules.note(key)}, rules.cite(key), round_id)


def violation(
    rules: CitingRules, key: str, what: str, round_id: str | None, **data: Any
) -> Decision:
    """A `procedure.violation` of the rule `key`."""
    return ruled(rules, EventType.PROCEDURE_VIOLATION, key, round_id, what=what, **data)
