"""The floor report as text for a person, and as CSV, one section a file, for a
spreadsheet."""

from __future__ import annotations

import csv
import io
from typing import Any

# Each section's columns, in order: the CSV's header, written for an empty section too.
COLUMNS: dict[str, tuple[str, ...]] = {
    "tables": (
        "site",
        "table",
        "game",
        "rounds",
        "rounds_started",
        "rounds_voided",
        "hours_open",
        "rounds_per_hour",
        "halts",
        "minutes_halted",
        "violations",
        "refused",
    ),
    "dealers": ("dealer", "site", "table", "rounds", "hours", "rounds_per_hour"),
    "dealer_totals": ("dealer", "rounds", "hours", "rounds_per_hour", "tables"),
    "halt_causes": ("cause", "halts", "minutes"),
    "halts": (
        "site",
        "table",
        "cause",
        "halted_at",
        "resumed_at",
        "minutes",
        "also",
        "resumed_by",
        "reason",
    ),
    "alerts": (
        "site",
        "table",
        "ts",
        "id",
        "test",
        "p_value",
        "level",
        "subject",
        "acknowledged_by",
        "acknowledged_at",
        "minutes_to_ack",
        "note",
    ),
    "inspections": (
        "site",
        "table",
        "ts",
        "what",
        "by",
        "role",
        "licence",
        "passed",
        "detail",
        "rule",
    ),
    "decks": (
        "site",
        "table",
        "ts",
        "what",
        "by",
        "role",
        "decks",
        "inspection",
        "defects_found",
        "cleared",
        "reason",
        "rule",
    ),
    "violations": ("site", "table", "what", "rule", "count"),
    "refused": ("site", "table", "code", "command", "rule", "count"),
}
SECTIONS = tuple(COLUMNS)


def _n(value: Any) -> str:
    return "-" if value is None else str(value)


def _grid(head: list[str], rows: list[list[Any]]) -> list[str]:
    cells = [head, *[[_n(c) for c in row] for row in rows]]
    widths = [max(len(r[i]) for r in cells) for i in range(len(head))]
    return [
        "  " + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in cells
    ]


def format_floor_report(report: dict[str, Any]) -> str:
    """Every section of the report, as tables of text."""
    span = f"from {report['from'] or 'the start'} to {report['to'] or 'the end'}"
    lines = [
        f"floor report {span}: {len(report['tables'])} table(s), "
        f"{report['events']} event(s) counted"
    ]
    lines += ["", "tables (rounds: round.ended; hours open: table open, not halted, daemon up)"]
    lines += _grid(
        [
            "site",
            "table",
            "game",
            "rounds",
            "voided",
            "hours open",
            "rounds/h",
            "halts",
            "min halted",
            "violations",
            "refused",
        ],
        [
            [
                t["site"],
                t["table"],
                t["game"],
                t["rounds"],
                t["rounds_voided"],
                t["hours_open"],
                t["rounds_per_hour"],
                t["halts"],
                t["minutes_halted"],
                t["violations"],
                t["refused"],
            ]
            for t in report["tables"]
        ],
    )
    lines += ["", "dealers (signed in with dealer_in; hours: their table open)"]
    lines += _grid(
        ["dealer", "rounds", "hours", "rounds/h", "tables"],
        [
            [d["dealer"], d["rounds"], d["hours"], d["rounds_per_hour"], ", ".join(d["tables"])]
            for d in report["dealer_totals"]
        ],
    )
    lines += ["", "halts by cause (minutes: from the halt to its resume, under its first cause)"]
    lines += _grid(
        ["cause", "halts", "minutes"],
        [[c["cause"], c["halts"], c["minutes"]] for c in report["halt_causes"]],
    )
    lines += ["", "halts"]
    lines += _grid(
        ["halted", "table", "cause", "resumed", "minutes", "resumed by", "also"],
        [
            [
                h["halted_at"],
                h["table"],
                h["cause"],
                h["resumed_at"],
                h["minutes"],
                h["resumed_by"],
                ", ".join(h["also"]),
            ]
            for h in report["halts"]
        ],
    )
    s = report["alert_summary"]
    by = ", ".join(f"{who} {n}" for who, n in s["by"].items()) or "-"
    lines += [
        "",
        f"surveillance alerts: {s['raised']} raised, {s['acknowledged']} acknowledged "
        f"(by {by}), {s['open']} open; minutes to acknowledge: median "
        f"{_n(s['median_minutes_to_ack'])}, max {_n(s['max_minutes_to_ack'])}",
    ]
    lines += _grid(
        ["raised", "table", "id", "test", "subject", "p", "acknowledged by", "min to ack", "note"],
        [
            [
                a["ts"],
                a["table"],
                a["id"],
                a["test"],
                a["subject"],
                f"{a['p_value']:.3g}" if isinstance(a["p_value"], float) else a["p_value"],
                a["acknowledged_by"],
                a["minutes_to_ack"],
                a["note"],
            ]
            for a in report["alerts"]
        ],
    )
    lines += [
        "",
        "inspection log (58 Pa. Code § 531.3(e)): inspections, adjustments, replacements, balls",
    ]
    lines += _grid(
        ["time", "table", "what", "by", "role", "passed", "detail"],
        [
            [r["ts"], r["table"], r["what"], r["by"], r["role"], r["passed"], r["detail"]]
            for r in report["inspections"]
        ],
    )
    lines += ["", "deck receipts and inspections"]
    lines += _grid(
        ["time", "table", "what", "by", "decks", "inspection", "defects", "cleared"],
        [
            [
                r["ts"],
                r["table"],
                r["what"],
                r["by"],
                r["decks"],
                r["inspection"],
                r["defects_found"],
                r["cleared"],
            ]
            for r in report["decks"]
        ],
    )
    lines += ["", "procedure violations by kind"]
    lines += _grid(
        ["table", "what", "rule", "count"],
        [[v["table"], v["what"], v["rule"], v["count"]] for v in report["violations"]],
    )
    lines += ["", "commands refused (refused: by the engine, under the rule given)"]
    lines += _grid(
        ["table", "code", "command", "rule", "count"],
        [[r["table"], r["code"], r["command"], r["rule"], r["count"]] for r in report["refused"]],
    )
    return "\n".join(lines)


def floor_csv(report: dict[str, Any], section: str) -> str:
    """One section of the report as CSV, a header row first; lists joined by `;`."""
    if section not in SECTIONS:
        raise ValueError(f"no section {section!r}: one of {', '.join(SECTIONS)}")
    rows: list[dict[str, Any]] = report[section]
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS[section], lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow(
            {k: ";".join(map(str, v)) if isinstance(v, list) else v for k, v in row.items()}
        )
    return out.getvalue().rstrip("\n")
