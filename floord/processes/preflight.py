"""What `floord run` would refuse that the config alone cannot show: `floord check` asks it.

`load_config` checks the file (keys, values, ports, secrets, the journal's path). `run`
then builds more: every device's driver with its profile's quirks and the table's
options, and every table's engine from its last snapshot in the journal. A custom
profile's mistyped quirk, or a table whose game or wheel was changed in the config while
its journal holds the old one's state, passes the file's checks and stops `run` (under
systemd: a restart loop of the whole box). So `check` builds the same things, reading
the journal read-only (`mode=ro`: safe beside a running daemon, nothing is created or
migrated), and says how to retire a table's old state deliberately.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from floord.adapters.local import load_driver
from floord.config.load import LoadedConfig
from floord.config.tables import TableConfig
from floord.engine.core.snapshots import SnapshotError
from floord.journal.lock import holder_of
from floord.journal.readers import older_schema_problem, schema_version
from floord.journal.store import SCHEMA_VERSION, Journal, JournalError
from floord.processes.table_units import build_engine, driver_options
from floord.profile_sources import ProfileShelf
from floord.profiles import ProfileError

# What a driver's constructor raises on a profile it cannot use: a bad quirk is a
# ValueError; a `driver:` naming no module or a module without DRIVER the others.
DRIVER_ERRORS = (ValueError, TypeError, KeyError, ImportError, AttributeError)


def run_problems(loaded: LoadedConfig) -> list[str]:
    """One `FILE: KEY.PATH: expected, found` line per thing `run` would refuse."""
    problems: list[str] = []
    for t, table in enumerate(loaded.config.tables):
        problems += _driver_problems(loaded.path, t, table, loaded.profiles)
    return problems + journal_problems(loaded)


def _driver_problems(path: Path, t: int, table: TableConfig, profiles: ProfileShelf) -> list[str]:
    """Build each device's driver as its adapter will (a remote one on its own box)."""
    problems = []
    for d, device in enumerate(table.devices):
        try:
            profile = profiles.load(device.profile)
            load_driver(profile, driver_options(table, profile.family))
        except (ProfileError, *DRIVER_ERRORS) as exc:
            text = "; ".join(line.strip() for line in str(exc).splitlines() if line.strip())
            problems.append(
                f"{path}: tables.{t}.devices.{d}.profile: a profile its driver accepts "
                f"expected, found: {text or type(exc).__name__}"
            )
    return problems


def journal_problems(loaded: LoadedConfig) -> list[str]:
    """The journal, if it exists: readable, of a schema `run` opens, and each table's
    snapshot one its engine restores. A journal not yet created is a fresh start."""
    path, where = loaded.journal_path, f"{loaded.path}: journal"
    if not path.exists():
        return []
    try:
        journal = Journal.open_readonly(path)
    except JournalError as exc:
        return [f"{where}: a journal floord can read expected, found: {exc}"]
    try:
        version = schema_version(path)
        if version not in {str(v) for v in range(1, SCHEMA_VERSION + 1)}:
            return [
                f"{where}: a journal of schema version {SCHEMA_VERSION} or older expected, "
                f"found version {version!r} in {path} (written by a newer floord?)"
            ]
        older = older_schema_problem(path)
        if older is not None:
            expected = "a journal floord can bring up to its schema expected"
            return [f"{where}: {expected}, found: {older}"]
        problems = []
        for t, table in enumerate(loaded.config.tables):
            problems += _snapshot_problems(loaded, journal, t, table)
        return problems
    except JournalError as exc:
        return [f"{where}: a journal floord can read expected, found: {exc}"]
    finally:
        journal.close()


def _snapshot_problems(
    loaded: LoadedConfig, journal: Journal, t: int, table: TableConfig
) -> list[str]:
    snapshot = journal.load_snapshot(table.id)
    if snapshot is None:
        return []
    try:
        build_engine(table, loaded, snapshot)
    except SnapshotError as exc:
        return [
            f"{loaded.path}: tables.{t}: a table whose journal state fits its config "
            f"expected, found: {exc} "
            f"(to start {table.id} afresh, stop floord and retire that state, on the "
            f"record: {retire_command(loaded.path, table.id)})"
        ]
    return []


def journal_in_use(loaded: LoadedConfig) -> str | None:
    """A note, not a problem: the journal's writer lock is held (a daemon is running on
    it, as it normally is when a new config is checked). Asked of the kernel without
    taking the lock (`floord.journal.lock.holder_of`), so `check` never stands in the
    way of a start."""
    holder = holder_of(loaded.journal_path)
    if holder is None:
        return None
    return (
        f"{loaded.path}: note: journal {loaded.journal_path} is in use by "
        f"{holder.describe()}; a second `floord run` on it is refused while that one runs"
    )


def retire_command(config: Path, table: str) -> str:
    """The command line that retires a table's state (`floord journal retire`)."""
    words = ["floord", "journal", "retire", "-c", str(config), "--table", table]
    return shlex.join(words) + " --as OPERATOR --reason TEXT"
