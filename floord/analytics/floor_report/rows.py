"""The rows the floor report lists as they happened: the § 531.3(e) inspection log, the
deck receipts and inspections, and what an alert was raised about."""

from __future__ import annotations

from typing import Any

from floord.contract import EventType as E


def subject(data: dict[str, Any]) -> str | None:
    for key in ("dealer", "die", "shooter", "dice_set", "wheel"):
        if data.get(key) is not None:
            return f"{key} {data[key]}"
    return None


def log_row(
    kind: str, where: dict[str, Any], event: dict[str, Any], data: dict[str, Any]
) -> dict[str, Any]:
    """One row of the § 531.3(e) log: an inspection, a wheel's adjustment or replacement,
    a ball put into play."""
    row = {
        **where,
        "what": "",
        "by": data.get("by"),
        "role": data.get("role"),
        "licence": data.get("licence"),
        "passed": None,
        "detail": "",
        "rule": event.get("rule"),
    }
    if kind == E.OPERATOR_INSPECTION:
        failed = data.get("failed_items") or []
        answers = data.get("answers") or {}
        row.update(
            what="inspection",
            passed=data.get("passed"),
            detail="; ".join(
                x
                for x in (
                    f"failed: {', '.join(map(str, failed))}" if failed else "",
                    f"the inspection {answers.get('rule')} requires" if answers else "",
                    str(data.get("note") or ""),
                )
                if x
            ),
        )
    elif kind == E.ROULETTE_WHEEL_SERVICE:
        witness = data.get("security_witness")
        row.update(
            what=str(data.get("kind")),
            detail="; ".join(
                x
                for x in (
                    f"{data.get('part') or ''}: {data.get('description') or ''}".strip(": "),
                    f"witness {witness} ({data.get('security_licence')})" if witness else "",
                    "inspection required" if data.get("inspection_required") else "",
                )
                if x
            ),
        )
    else:
        row.update(
            what="ball replaced",
            passed=bool(data.get("nonmetallic")) and bool(data.get("nonmagnetic")),
            detail=f"diameter {data.get('diameter_sixteenths')}/16 in",
        )
    return row


def deck_row(
    kind: str, where: dict[str, Any], event: dict[str, Any], data: dict[str, Any]
) -> dict[str, Any]:
    what = {
        E.CARDS_DECKS_RECEIVED.value: "received",
        E.CARDS_DECKS_CHANGED.value: "changed",
        E.CARDS_DECKS_INSPECTED.value: str(data.get("step") or "inspected"),
        E.CARDS_DECKS_SPREAD.value: "spread",
        E.CARDS_DECK_REMOVED.value: "removed",
    }[kind]
    defects = data.get("defects_found")
    return {
        **where,
        "what": what,
        "by": data.get("by"),
        "role": data.get("role"),
        "decks": data.get("decks"),
        "inspection": data.get("inspection"),
        "defects_found": defects,
        "cleared": data.get("cleared"),
        "reason": data.get("reason"),
        "rule": event.get("rule"),
    }
