"""`floord run` imports what the daemon needs, not what only another verb does.

A table box starts its daemon at every boot and keeps it resident: the console, the
reports, the demo, the simulators, the tools and their libraries stay out of its start
and its memory. The real process is started (`python -m floord run`) with Python's
import-time report on, and the environment its unit sets (`systemd/floord.service`), and
every module it loaded by the time it is ready is read from that report.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from e2e_support import Process, write_config
from support import Broker
from test_systemd_units import unit_environment

pytestmark = pytest.mark.system

# Modules (and packages, with everything under them) the daemon must never load.
NOT_RUN = (
    "textual",
    # structlog's own attempt at `rich` is in the report even as it fails (its import is
    # refused, floord.system.log_library), so the modules an import of it would load.
    "rich.console",
    "rich.traceback",
    "pygments",
    "matplotlib",
    "amqtt",
    "numpy",
    "scipy",
    "bcrypt",
    "prometheus_client",
    "floord.metrics.collectors",
    "floord.metrics.server",
    "floord.processes.daemon_metrics",
    "simulators",
    "floord_demo",
    "floord.watch",
    "floord.tools",
    "floord.cli.acl",
    "floord.cli.adapter",
    "floord.cli.capture",
    "floord.cli.dice_report",
    "floord.cli.journal",
    "floord.cli.profiles",
    "floord.cli.report",
    "floord.analytics.dealer_report",
    "floord.cli.status",
    "floord.cli.udev",
    "floord.journal.audit",
    "floord.operator.client",
    "floord.processes.profile_catalogue",
    # The browser console and the floor's archive: processes of their own, and extras.
    "aiohttp",
    "psycopg",
    "floord.web",
    "floord.archive",
    "floord.cli.web",
    "floord.cli.archive",
    "floord.cli.sim",
    # The other verbs' arguments: `floord run` builds its own parser alone.
    "floord.cli.command_args",
    "floord.cli.report_args",
    # The reports, read from journals or the archive by `floord report`.
    "floord.cli.floor_report",
    "floord.cli.shuffle_report",
    "floord.cli.journal_bundle",
    "floord.cli.journal_backup",
    "floord.analytics.floor_report",
    "floord.analytics.report_chart",
    # The live tests of kinds a roulette table does not run: imported by
    # `floord.processes.table_watchers` for a table that runs them.
    "floord.analytics.dice_report",
    "floord.analytics.dice_watch",
    "floord.analytics.shuffle_report",
    "floord.analytics.shuffle_watch",
    "floord.analytics.shuffle_stats",
    "floord.games.shuffle",
    "floord.processes.shuffle_start",
    "floord.table.dice_surveillance",
    "floord.table.shuffle_surveillance",
    # The "did you mean" of a config that is wrong (`floord.problem_lines`).
    "difflib",
)
# Python's build configuration (its module's name ends with the platform's): zoneinfo
# reads its folders from the unit's PYTHONTZPATH instead (docs/benchmarks.md, "Memory
# at start").
BUILD_CONFIGURATION = "_sysconfigdata_"


def _loaded(report: str) -> set[str]:
    """The modules named in a `-X importtime` report."""
    return {
        line.rsplit("|", 1)[1].strip()
        for line in report.splitlines()
        if line.startswith("import time:") and "|" in line
    }


def test_run_loads_none_of_the_other_verbs_modules(
    tmp_path: Path, broker: Broker, monkeypatch: pytest.MonkeyPatch
) -> None:
    leader, follower = os.openpty()  # the wheel's port: open, silent
    try:
        config = write_config(tmp_path, broker.url, os.ttyname(follower))
        monkeypatch.setenv("PYTHONPROFILEIMPORTTIME", "1")
        for key, value in unit_environment("floord.service").items():  # as a box runs it
            monkeypatch.setenv(key, value)
        daemon = Process(["run", "-c", str(config)])
        try:
            deadline = time.monotonic() + 60
            while "floord ready" not in (text := _stderr(daemon)):
                assert daemon.proc.poll() is None, daemon.stderr_tail()
                assert time.monotonic() < deadline, "the daemon never said it was ready"
                time.sleep(0.1)
        finally:
            daemon.terminate()
    finally:
        os.close(leader)
        os.close(follower)
    loaded = _loaded(text)
    assert "floord.processes.daemon" in loaded and "floord.table.runner" in loaded
    assert {"floord.processes.table_watchers", "floord.table.surveillance"} <= loaded
    assert "zoneinfo" in loaded  # the gaming day's, from the unit's folders
    assert not any(name.startswith(BUILD_CONFIGURATION) for name in loaded)
    unwanted = sorted(
        name for name in loaded if any(name == n or name.startswith(n + ".") for n in NOT_RUN)
    )
    assert unwanted == []


def _stderr(process: Process) -> str:
    process.stderr.seek(0)
    return process.stderr.read().decode("utf-8", "replace")
