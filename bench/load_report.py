"""The load bench's report: its figures as a JSON-able dict, and as the lines it prints.

`bench.load_tables` runs the floor and reads the processes; this turns what it read into
the figures `bench/results/load-*.json` holds and `docs/benchmarks.md` quotes, so the
JSON and the printed report say the same.
"""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from typing import Any

from bench.load_console import Window, percentile
from bench.proc_stats import machine


def _ms(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def report(
    ns: argparse.Namespace,
    daemons: int,
    opened: int,
    alive: int,
    elapsed: float,
    window: Window,
    before: dict[str, Any],
    after: dict[str, Any],
) -> dict[str, Any]:
    """The figures of one run, as a JSON-able dict."""

    def cpu_percent(key: str) -> float:
        return round(100.0 * (after[key][0] - before[key][0]) / elapsed, 1)

    daemon_cpu = cpu_percent("daemons")
    rss, peak = after["daemons"][1], after["daemons"][2]
    return {
        "date": datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        "machine": machine(),
        "broker": "nats-cluster (3 nodes)" if ns.nats_cluster else "mosquitto",
        "tables": ns.tables,
        "tables_open": opened,
        "daemons": daemons,
        "daemons_alive_at_end": alive,
        "speed": ns.speed,
        "seconds": round(elapsed, 1),
        "events_per_s": {
            "table_records": round(window.table_events / elapsed, 1),
            "device_streams": round(window.device_events / elapsed, 1),
            "all_messages": round(window.messages / elapsed, 1),
            "per_table": round(
                (window.table_events + window.device_events) / elapsed / ns.tables, 3
            ),
        },
        "results": window.types.get("roulette.result", 0),
        "lag_ms": {
            "events": len(window.lags_ms),
            "p50": _ms(percentile(window.lags_ms, 0.50)),
            "p99": _ms(percentile(window.lags_ms, 0.99)),
            "max": _ms(max(window.lags_ms, default=None)),
            "table_record_p99": _ms(percentile(window.table_lags_ms, 0.99)),
        },
        "cpu_percent_of_one_core": {
            "daemons": daemon_cpu,
            "per_daemon": round(daemon_cpu / max(daemons, 1), 1),
            "per_table": round(daemon_cpu / ns.tables, 3),
            "simulators": cpu_percent("sims"),
            "broker": cpu_percent("broker"),
            "console": cpu_percent("console"),
        },
        "rss_mib": {
            "daemons": round(rss, 1),
            "per_daemon": round(rss / max(daemons, 1), 1),
            "per_table": round(rss / ns.tables, 2),
            "daemons_peak": round(peak, 1),
            "broker": round(after["broker"][1], 1),
        },
        "event_types": dict(window.types.most_common()),
    }


def print_report(figures: dict[str, Any]) -> None:
    e, lag = figures["events_per_s"], figures["lag_ms"]
    cpu, mem = figures["cpu_percent_of_one_core"], figures["rss_mib"]
    lines = [
        f"floord load bench, {figures['date']}, {figures['machine']['cpu']} "
        f"({figures['machine']['cores']} cores)",
        f"  tables {figures['tables']} ({figures['tables_open']} open) in "
        f"{figures['daemons']} daemons, {figures['seconds']} s measured, "
        f"{figures['results']} roulette results",
        f"  events/s: {e['table_records']} table records + {e['device_streams']} device "
        f"streams ({e['per_table']} per table); {e['all_messages']} messages/s in all",
        f"  console lag ms: p50 {lag['p50']}, p99 {lag['p99']}, max {lag['max']} "
        f"({lag['events']} events)",
        f"  CPU % of a core: daemons {cpu['daemons']} ({cpu['per_daemon']} each, "
        f"{cpu['per_table']} a table); wheels {cpu['simulators']}, broker {cpu['broker']}, "
        f"console {cpu['console']}",
        f"  RSS MiB: daemons {mem['daemons']} ({mem['per_daemon']} each, {mem['per_table']} a "
        f"table, peak {mem['daemons_peak']}); broker {mem['broker']}",
        f"  daemons alive at the end: {figures['daemons_alive_at_end']}/{figures['daemons']}; "
        f"load average {figures['machine']['load_average']}",
    ]
    for tree, each in (figures.get("by_tree") or {}).items():
        lines.append(
            f"  {tree}: {each['tables']} tables, CPU {each['cpu_percent_per_table']} % of a "
            f"core a table, RSS {each['rss_mib_per_table']} MiB a table"
        )
    web = figures.get("web")
    if web:
        tile = web["tile_lag_ms"]
        sock, page = tile["to_the_pages_socket"], tile["socket_to_tile"]
        lines += [
            f"  browser console ({web['browsers']} pages): ts -> tile ms p50 {tile['p50']}, "
            f"p99 {tile['p99']}, max {tile['max']} ({web['tile_updates_seen']} tile updates, "
            f"{tile['over_1s']} over 1 s); ts -> the page's socket p50 {sock['p50']}, p99 "
            f"{sock['p99']}; socket -> tile p50 {page['p50']}, p99 {page['p99']}",
            f"  floord web: CPU % of a core {web['web_cpu_percent_of_one_core']}, RSS "
            f"{web['web_rss_mib']} MiB, waited for a core "
            f"{web['web_waited_for_a_core_ms_per_s']} ms a second; the browsers' CPU % "
            f"{web['browsers_cpu_percent_of_one_core']}",
        ]
    archived = figures.get("archive")
    if archived:
        alag, acpu = archived["lag_ts_to_row_ms"], archived["cpu_percent_of_one_core"]
        lines.append(
            f"  archive ({archived['database']}): ts -> row ms p50 {alag['p50']}, p99 "
            f"{alag['p99']}, max {alag['max']} ({archived['events_stored_in_window']} events); "
            f"CPU % archive {acpu.get('archive')}, database {acpu.get('database')}; "
            f"{archived['bytes_per_event']} B an event, {archived['mib_per_table_day']} MiB "
            "a table-day"
        )
        own = archived.get("own_word") or {}
        lines.append(
            f"  archive's own word: receipt -> commit p99 {own.get('lag_p99_s')} s, a commit "
            f"p99 {own.get('commit_p99_s')} s; {archived.get('held_at_end')} events held, "
            f"{archived.get('journaled')} journaled"
        )
    print("\n".join(lines), flush=True)
