"""A real tmpfs (mount, umount) that fills mid-round leaves a consistent record. The same
on a simulated full disk is in `test_journal_full_round.py`.
"""

from __future__ import annotations

import contextlib
import errno
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_journal_disk_full import make_runner, table_events
from test_journal_full_round import (
    check_consistent,
    play_into_a_full_disk,
    refuse_more_then_recover,
)

from floord.contract import EventType
from floord.journal.audit import verify_journal
from floord.journal.store import DISK_FULL

pytestmark = pytest.mark.system


@contextlib.contextmanager
def small_filesystem(where: Path) -> Iterator[Path]:
    """A 4 MiB tmpfs mounted at `where`; skips the test where it cannot be mounted."""
    where.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root; the max_page_count test covers this")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(where)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip() or done.returncode}")
    try:
        yield where
    finally:
        subprocess.run(["umount", str(where)], check=False)


def fill_up(filler: Path) -> None:
    """Write `filler` until the filesystem has no block left (ENOSPC)."""
    with filler.open("wb", buffering=0) as out:
        for size in (65536, 4096, 512, 1):
            try:
                while True:
                    out.write(b"\0" * size)
            except OSError as exc:
                assert exc.errno == errno.ENOSPC, exc


def test_a_tmpfs_filled_mid_round_leaves_a_consistent_record(tmp_path: Path) -> None:
    with small_filesystem(tmp_path / "small") as mnt:
        path = mnt / "journal.db"
        filler = mnt / "filler"
        runner, journal, clock, _ = make_runner(path)
        try:
            refused, code = play_into_a_full_disk(runner, clock, lambda: fill_up(filler))
            # Spin 2's launch would have started round 0002: it is refused, not voided.
            assert (refused, code) == (EventType.WHEEL_BALL_LAUNCHED, DISK_FULL)
            assert runner.engine.current_round is None
            refuse_more_then_recover(runner, clock, filler.unlink)
            check_consistent(runner, path, refused)
            [halt] = [e for e in table_events(path, runner.table) if e["type"] == "table.halted"]
            named = halt["data"]["unrecorded_inputs"]
            assert [n["type"] for n in named] == [
                refused,
                EventType.WHEEL_NO_MORE_BETS,
            ]
        finally:
            journal.close()
        assert verify_journal(path).broken is None
