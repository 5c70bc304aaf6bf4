"""`floord status -c CONFIG [--json] [--broker-timeout S]`: the box at a glance.

Exit code 0 when the journal was read (the broker's view is added when the broker
answers in time, and its absence is said), 0 when only the broker was read, 2 when
neither could be read, 1 for a config that cannot be used.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from floord.tools.status import BoxStatus, TableStatus, open_alerts, table_state
from floord.watch.shuffle_sentences import shuffle_alert


def register(sub: Any) -> None:
    """Add `floord status` to the `floord` subcommands."""
    parser = sub.add_parser(
        "status", help="each table's state, halts, open alerts, devices and publish backlog"
    )
    parser.add_argument("-c", "--config", required=True, type=Path)
    parser.add_argument("--json", action="store_true", help="one JSON object instead of text")
    parser.add_argument(
        "--broker-timeout",
        type=float,
        default=3.0,
        metavar="S",
        help="give up on the broker after S seconds and show the journal's view (default 3)",
    )
    parser.set_defaults(handler=run_status)


def run_status(ns: argparse.Namespace) -> int:
    from floord.config.load import ConfigError, load_config
    from floord.tools.status import gather_status

    if ns.broker_timeout <= 0:
        print("floord status: --broker-timeout must be more than 0", file=sys.stderr)
        return 1
    try:
        loaded = load_config(ns.config)
    except ConfigError as exc:
        print("\n".join(exc.problems), file=sys.stderr)
        return 1
    box = gather_status(loaded, ns.broker_timeout)
    if ns.json:
        print(json.dumps(box.as_json(), indent=2))
    else:
        print(describe(box))
    return 0 if box.journal_read or box.broker_read else 2


def describe(box: BoxStatus) -> str:
    """The text form: one block per table, sources and their problems first."""
    lines = [f"site {box.site}"]
    if box.journal_read:
        lines.append(f"journal {box.journal_path}: read")
    else:
        lines.append(f"journal: NOT READ: {box.journal_error}")
    if box.broker_read:
        lines.append(f"broker {box.broker_node or box.broker_url}: read")
        if box.broker_refused:
            lines.append(
                "broker refused this login's subscription to: "
                + ", ".join(box.broker_refused)
                + " (run floord acl again: a box's login reads its own retained topics)"
            )
    else:
        lines.append(f"broker: NOT READ: {box.broker_error} (journal's view only)")
    for table in box.tables:
        lines.append("")
        lines += _table_lines(table, box)
    return "\n".join(lines)


def _table_lines(table: TableStatus, box: BoxStatus) -> list[str]:
    state = table_state(table)
    shown = state["state"] or "unknown"
    source = f" (from the {state['source']})" if state["source"] else ""
    lines = [f"table {table.id} ({table.game}): {shown}{source}"]
    if box.broker_read:
        status = table.status
        if status is None:
            lines.append("  daemon: no status on the broker")
        else:
            online = "online" if status.get("online") else "OFFLINE"
            lines.append(f"  daemon: {online} ({status.get('reason')}, {status.get('ts')})")
    for reason in state["halt_reasons"]:
        if not isinstance(reason, dict):
            continue
        where = f" [{reason.get('device')}]" if reason.get("device") else ""
        since = f" since {reason.get('since')}" if reason.get("since") else ""
        lines.append(f"  halt: {reason.get('code')}{where}: {reason.get('detail')}{since}")
    alerts = open_alerts(table)
    if alerts["source"] is not None and not alerts["alerts"]:
        lines.append(f"  alerts: none open (from the {alerts['source']})")
    lines += [f"  {describe_alert(a)}" for a in alerts["alerts"]]
    if table.backlog is not None:
        lines.append(f"  backlog: {table.backlog} event(s) not yet acknowledged by the broker")
    for device in table.devices:
        if device.last_seq is None:
            heard = "journal not read"
        elif device.last_type is None:
            heard = "nothing recorded"
        else:
            heard = f"last {device.last_type} at {device.last_ts} (seq {device.last_seq})"
        avail = ""
        if device.broker is not None:
            avail = ", online" if device.broker.get("online") else ", offline"
        lines.append(f"  device {device.id}: {heard}{avail}")
    return lines


def describe_alert(alert: dict[str, Any]) -> str:
    """One open surveillance alert, and what closes it (`ack_alert`, from a supervisor or
    security); numbers to three significant digits. A shuffle alert is about a shoe, and
    says so as the console does."""
    if alert.get("test") in ("result_disputed", "result_silent"):
        detail = f" ({alert['detail']})" if alert.get("detail") else ""
        return (
            f"alert {alert.get('id')} OPEN: {str(alert.get('test')).replace('_', ' ')}, round "
            f"{alert.get('round')}{detail}; close with ack_alert alert={alert.get('id')}"
        )
    if "shoe" in alert:
        text = shuffle_alert(alert).replace(
            f"alert {alert.get('id')}:", f"alert {alert.get('id')} OPEN:", 1
        )
        return f"{text}; close with ack_alert alert={alert.get('id')}"
    if isinstance(alert.get("summary"), str):  # pace and spin physics: no p-value
        return (
            f"alert {alert.get('id')} OPEN: {alert.get('test')} test: {alert['summary']}; "
            f"close with ack_alert alert={alert.get('id')}"
        )
    who = f" for dealer {alert['dealer']}" if alert.get("dealer") else ""
    at = f", at result {alert['spins']}" if alert.get("spins") else ""
    cells = alert.get("over_represented")
    top = ", ".join(
        f"{c.get('label')} ({c.get('observed')} vs {_number(c.get('expected'))})"
        for c in (cells if isinstance(cells, list) else [])
        if isinstance(c, dict)
    )
    return (
        f"alert {alert.get('id')} OPEN: {alert.get('test')} test{who}, "
        f"p {_number(alert.get('p_value'))} below {alert.get('level')} over the last "
        f"{alert.get('window')} results{at}"
        + (f"; over-represented: {top}" if top else "")
        + f"; close with ack_alert alert={alert.get('id')}"
    )


def _number(value: Any) -> str:
    return f"{value:.3g}" if isinstance(value, int | float) else "?"
