"""Whether a dealing shoe's identification fits its table's card recognition setting.

Baccarat and Mississippi Stud tables both say in `shoe_reports_cards` whether their shoe
reads the cards; a shoe that says otherwise is refused with the same words in both.
"""

from __future__ import annotations

from typing import Any

from floord.engine.core.devices import capability_problem


def shoe_recognition_problem(
    identity: dict[str, Any], *, device: str, recognition: bool | None
) -> str | None:
    """The problem with a device that disagrees with `shoe_reports_cards`, or None.

    `device` names the device in the message when it has no capabilities list;
    `recognition` None (a table dealt without a shoe) checks only the list."""

    def mismatch(reads: bool) -> str:
        said = "reads" if reads else "does not read"
        return (
            f"the shoe says it {said} cards; the table is configured with "
            f"shoe_reports_cards={recognition}"
        )

    return capability_problem(
        identity,
        device=device,
        capability="recognition",
        configured=recognition,
        mismatch=mismatch,
    )
