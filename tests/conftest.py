"""Shared fixtures (a real Mosquitto broker per test that asks for one) and the tiers.

Every test file declares its tier in a module-level `pytestmark`: `pytest.mark.unit`
(pure, in one process) or `pytest.mark.system` (a broker, a pty, a subprocess, a daemon,
real sockets, a package built or installed). `make check` runs the unit tier alone, so a
file that forgot its tier would silently drop out of it: collection refuses such a file.
"""

from __future__ import annotations

import gc
import sys
import threading
import time
from collections.abc import Generator, Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from nats_support import Node
from support import Broker

# `--record-streams DIR`: golden event streams for before/after comparison.
pytest_plugins = ["golden_streams"]


TIERS = ("unit", "system")


def _declared_tiers(module: object) -> list[str]:
    """The tiers a test module's own `pytestmark` names (a mark or a list of marks)."""
    marks = getattr(module, "pytestmark", [])
    marks = marks if isinstance(marks, list) else [marks]
    return [
        m.name
        for m in marks
        if isinstance(m, pytest.Mark | pytest.MarkDecorator) and m.name in TIERS
    ]


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(
    collector: pytest.Collector,
) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
    """A test file that collects tests but does not declare exactly one tier is a
    collection error naming it (under xdist too), whatever `-m` later selects: a file with
    no tier would otherwise drop out of `make check` unseen."""
    report = yield
    if not isinstance(collector, pytest.Module) or not report.passed or not report.result:
        return report
    tiers = _declared_tiers(collector.obj)
    if len(tiers) != 1:
        found = "no tier" if not tiers else "both tiers: " + ", ".join(tiers)
        report.outcome = "failed"
        report.longrepr = (
            f"{collector.path.name}: {found}. Every test file declares one tier in a "
            "module-level `pytestmark`: `pytestmark = pytest.mark.unit` (pure, in one "
            "process) or `pytestmark = pytest.mark.system` (a broker, a pty, a subprocess, "
            "a daemon, real sockets, a package); see tests/conftest.py"
        )
    return report


@pytest.fixture
def node(tmp_path: Path) -> Iterator[Node]:
    """One nats-server (JetStream and MQTT) for a test, killed when it ends; a test that
    needs it is marked `requires_nats` (`nats_support`)."""
    made = Node(tmp_path)
    try:
        yield made
    finally:
        made.close()


@pytest.fixture
def broker() -> Iterator[Broker]:
    """A running Mosquitto on a free loopback port, killed when the test ends."""
    b = Broker()
    b.start()
    try:
        yield b
    finally:
        b.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """A failed test shows what its floord processes logged (their stderr's last lines):
    a daemon's state lines say what it was doing when the test gave up waiting."""
    outcome = yield
    report = outcome.get_result()
    if report.when != "call" or not report.failed:
        return
    from e2e_support import started_logs

    for args, tail in started_logs():
        if tail.strip():
            report.sections.append((f"floord {args}: stderr (last lines)", tail))


@pytest.fixture(autouse=True)
def _no_floord_process_left() -> Iterator[None]:
    """A test that fails before its own `finally` kills its simulators or daemons still
    leaves no floord process behind: every child started through `e2e_support.Process`
    is killed after the test."""
    yield
    from e2e_support import reap_leftovers

    reap_leftovers()


@pytest.fixture(autouse=True)
def _floords_logging() -> None:
    """Every test starts with the logging a floord process sets up (`configure_logging`'s
    defaults: info and above, one JSON line each off a terminal), whatever a test before it
    in the same worker configured. A CLI command run in-process configures its own
    (`floord demo` logs errors only), and a later test capturing lines would otherwise
    depend on which tests xdist gave its worker first."""
    from floord.system.logs import configure_logging

    configure_logging()


@pytest.fixture(autouse=True)
def _heap_unfrozen() -> Iterator[None]:
    """A daemon run in the test's process freezes the heap once it is ready
    (`floord.processes.long_lived`): it is unfrozen after the test, so what the test built
    is collected as ever and no test depends on which ran before it in its worker."""
    yield
    gc.unfreeze()


def _journal_threads() -> set[threading.Thread]:
    return {t for t in threading.enumerate() if t.name.startswith("journal ") and t.is_alive()}


@pytest.fixture(autouse=True)
def _no_journal_thread_left() -> Iterator[None]:
    """Every journal a test opened ends its thread (`floord.journal.writer`): closed, or
    dropped and collected. A thread still alive two seconds after the test fails it."""
    before = _journal_threads()
    yield
    deadline = time.monotonic() + 2.0
    while left := _journal_threads() - before:
        if time.monotonic() > deadline:
            names = sorted(t.name for t in left)
            pytest.fail(f"journal threads left running after the test: {names}")
        gc.collect()
        time.sleep(0.02)
