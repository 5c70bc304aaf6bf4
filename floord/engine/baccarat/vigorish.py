"""Deferred vigorish: collected before play begins with a new shoe (58 Pa. Code § 545.13(f)).

"A dealer, in accordance with the option selected in the certificate holders Rules
Submission under § 521.2, may collect the vigorish from a player at the time the winning
payout is made or may defer the collection of the vigorish to a later time; provided,
however, that outstanding vigorish shall be collected prior to beginning play with a new
dealing shoe of cards or when the player leaves the gaming table, whichever occurs first."

floord sees no chips: it knows a Banker's Hand wager won (so vigorish may be owed), not
who wagered. On a table whose Rules Submission defers the vigorish (`vigorish_collection:
deferred`), a shoe in which the Banker's Hand won with vigorish charged leaves vigorish
possibly outstanding; once a new shoe is loaded, no coup starts until the dealer records
`vigorish_collected`. A player leaving the table is not seen by any device: the dealer
may record `vigorish_collected` between coups at any time, which floord records only.
"""

from __future__ import annotations

from typing import Any

from floord.engine.baccarat.rules import BaccaratRules


class VigorishBook:
    """Whether vigorish may be outstanding, and whether it must be collected before play."""

    def __init__(self, rules: BaccaratRules) -> None:
        self.rules = rules
        self.outstanding = False  # a Banker's Hand wager won with deferred vigorish
        self.due = False  # ... and a new shoe is loaded since

    @property
    def deferred(self) -> bool:
        return self.rules.vigorish_collection == "deferred" and not self.rules.ez_baccarat

    def settled(self, result: dict[str, Any]) -> None:
        """A coup's `baccarat.result` body: vigorish is owed when the Banker's Hand won."""
        banker = result["wagers"]["banker"]
        if self.deferred and banker["outcome"] == "win" and banker["vigorish_percent"]:
            self.outstanding = True

    def shoe_loaded(self) -> None:
        """A new dealing shoe: what was outstanding must be collected before play."""
        if self.outstanding:
            self.due = True

    def collected(self) -> None:
        self.outstanding = self.due = False

    def start_problem(self) -> tuple[str, str] | None:
        """(citation, sentence) when the new shoe may not be played yet."""
        if not self.due:
            return None
        return (
            self.rules.cite("deferred_vigorish"),
            "outstanding vigorish is collected before play begins with a new dealing shoe "
            "(the dealer records vigorish_collected)",
        )

    def snapshot(self) -> dict[str, bool]:
        return {"outstanding": self.outstanding, "due": self.due}

    def restore(self, body: dict[str, Any] | None) -> None:
        body = body or {}
        self.outstanding = bool(body.get("outstanding", False))
        self.due = bool(body.get("due", False))
