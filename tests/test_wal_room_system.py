"""The WAL's room on disks that refuse it: under a file size limit (in a child process) the
journal still opens, and on a tmpfs short of space no room is taken. The rest is in
`test_wal_room.py`.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from test_journal_full_round_system import small_filesystem
from test_wal_room import FULL, build

from floord.journal.store import Journal

pytestmark = pytest.mark.system


def test_a_disk_that_refuses_the_room_still_opens_the_journal(tmp_path: Path) -> None:
    """A file size limit of 1 MB (as a full disk would, `EFBIG` for `ENOSPC`): the
    zeros stop short, and the journal opens and records all the same."""
    script = textwrap.dedent(
        f"""
        import resource, signal
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, resource.RLIM_INFINITY))
        from floord.contract import Envelope
        from floord.journal.store import Journal
        def build(seq):
            return Envelope(site="s1", table="t1", seq=seq, ts="2026-01-01T00:00:00.000Z",
                            type="x.y", source="t1", data={{}})
        j = Journal({str(tmp_path / "j.db")!r})
        j.append("t1", build)
        j.append("t1", build)
        import os
        print(j.last_seq("t1"), os.path.getsize({str(tmp_path / "j.db-wal")!r}))
        j.close()
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    seq, wal_size = done.stdout.split()
    assert seq == "2"
    assert int(wal_size) <= 1 << 20 < FULL  # the room was refused


def test_no_room_is_taken_on_a_disk_short_of_space(tmp_path: Path) -> None:
    """On a 4 MiB file system the zeros would leave no room for anything else, and a
    disk that fills would be met frames after the commit that filled it: the WAL grows
    as SQLite needs it instead."""
    with small_filesystem(tmp_path / "small") as mnt:
        path = mnt / "j.db"
        journal = Journal(path)
        try:
            journal.append("t1", build)
            assert 0 < Path(f"{path}-wal").stat().st_size < FULL
        finally:
            journal.close()
