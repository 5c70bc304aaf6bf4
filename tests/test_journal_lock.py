"""One writer per journal (`floord.journal.lock`): the lock file, its refusal, its release.

The lock within one process, its file, and how a holder is named. Against a real second
process (one that holds it, one killed with SIGKILL while holding it), across exec and
fork: `test_journal_lock_system.py`.
"""

from __future__ import annotations

import fcntl
import os
import stat
import sys
from pathlib import Path

import pytest

import floord.journal.lock as lock_module
from floord.journal.lock import (
    JournalInUse,
    JournalLock,
    command_line,
    holder_of,
    lock_path,
    read_holder,
)
from floord.journal.store import Journal, JournalError

pytestmark = pytest.mark.unit


def test_a_second_lock_in_the_same_process_is_refused_naming_the_holder(tmp_path: Path) -> None:
    journal = tmp_path / "floord.db"
    first = JournalLock(journal)
    try:
        with pytest.raises(JournalInUse) as refused:
            JournalLock(journal)
        text = str(refused.value)
        assert text.startswith(f"journal {journal} is in use by pid {os.getpid()} (")
        assert text.endswith("Z); one writer per journal")
        assert f"({command_line()}, since " in text
        assert isinstance(refused.value, JournalError)  # the CLI's expected failures
        assert refused.value.holder is not None and refused.value.holder.pid == os.getpid()
    finally:
        first.release()
    again = JournalLock(journal)  # released: the next writer gets it at once
    again.release()
    again.release()  # a second release does nothing


def test_a_holder_started_with_a_long_command_line_is_named_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Details longer than a page (a process started with hundreds of arguments) are
    read whole by the refused opener, not cut short into text that names no one."""
    monkeypatch.setattr(
        sys, "argv", ["floord", "run", *[f"/srv/tables/{n}.yaml" for n in range(600)]]
    )
    journal = tmp_path / "floord.db"
    first = JournalLock(journal)
    try:
        assert lock_path(journal).stat().st_size > 8192
        with pytest.raises(JournalInUse) as refused:
            JournalLock(journal)
    finally:
        first.release()
    holder = refused.value.holder
    assert holder is not None and holder.pid == os.getpid()
    assert holder.command == command_line() and holder.command.endswith("/srv/tables/599.yaml")


def test_the_lock_file_is_beside_the_journal_0640_and_kept(tmp_path: Path) -> None:
    journal = tmp_path / "floord.db"
    old = os.umask(0o022)
    try:
        lock = JournalLock(journal)
    finally:
        os.umask(old)
    assert lock.path == lock_path(journal) == tmp_path / "floord.db.lock"
    assert stat.S_IMODE(lock.path.stat().st_mode) == 0o640
    details = read_holder(lock.path)
    assert details is not None and details.pid == os.getpid() and details.host
    lock.release()
    # Never deleted: a lock file removed under a waiting opener lets two writers in.
    assert lock.path.exists()


def test_journal_takes_the_lock_and_close_releases_it(tmp_path: Path) -> None:
    path = tmp_path / "floord.db"
    journal = Journal(path)
    try:
        with pytest.raises(JournalInUse):
            Journal(path)
        # A reader never takes it: read-only beside the writer works.
        reader = Journal.open_readonly(path)
        reader.close()
    finally:
        journal.close()
    Journal(path).close()


def test_a_refused_journal_opens_nothing(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    lock = JournalLock(path)
    try:
        with pytest.raises(JournalInUse):
            Journal(path)
        assert not path.exists()  # refused before SQLite made the file
    finally:
        lock.release()


def test_holder_of_a_free_or_missing_lock_is_none(tmp_path: Path) -> None:
    assert holder_of(tmp_path / "none.db") is None
    JournalLock(tmp_path / "floord.db").release()
    assert holder_of(tmp_path / "floord.db") is None


@pytest.mark.parametrize("left", ["", '{"pid": 1, "command": "floord run", "since": "x"}\n'])
def test_a_holder_that_has_not_written_its_details_yet_is_named_by_the_kernel(
    tmp_path: Path, left: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file empty, or still naming the holder before (SIGKILLed): the pid that holds
    the lock is the kernel's, never the file's stale word. The details never come here,
    so the refused opener's wait for them is made short."""
    monkeypatch.setattr(lock_module, "DETAILS_WAIT_S", 0.05)
    journal = tmp_path / "floord.db"
    lock_path(journal).write_text(left)
    fd = os.open(lock_path(journal), os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # taken, details not written
        with pytest.raises(JournalInUse) as refused:
            JournalLock(journal)
        assert str(refused.value) == (
            f"journal {journal} is in use by pid {os.getpid()} (command line not recorded, "
            "since unknown); one writer per journal"
        )
    finally:
        os.close(fd)


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["/usr/lib/python3/dist-packages/floord/__main__.py", "run", "-c", "f.yaml"],
         "floord run -c f.yaml"),
        (["/usr/bin/floord", "adapter", "-c", "/etc/floord/a b.yaml"],
         "floord adapter -c '/etc/floord/a b.yaml'"),
        ([], "command line unknown"),
        (["-c", "a b"], f"{Path(sys.executable).name} -c ... 'a b'"),
    ],
)  # fmt: skip
def test_command_line_reads_as_typed(argv: list[str], said: str) -> None:
    assert command_line(argv) == said
