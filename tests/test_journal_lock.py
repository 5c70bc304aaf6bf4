"""One writer per journal (`floord.journal.lock`): the lock file, its refusal, its release.

Fast tests of the lock itself: within one process, against a real second process (one
that holds it, one killed with SIGKILL while holding it), across exec and fork.
"""

from __future__ import annotations

import fcntl
import os
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from floord.journal.lock import (
    JournalInUse,
    JournalLock,
    command_line,
    holder_of,
    lock_path,
    read_holder,
)
from floord.journal.store import Journal, JournalError

pytestmark = pytest.mark.system

# A second process that takes the journal's lock, says so, and holds it until killed.
HOLDER = """
import sys, time
from pathlib import Path
from floord.journal.lock import JournalLock
lock = JournalLock(Path(sys.argv[1]))
print("held", flush=True)
time.sleep(60)
"""


@pytest.fixture
def holder(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], Path]]:
    """Another process holding the lock of `tmp_path/floord.db`, killed at the end."""
    journal = tmp_path / "floord.db"
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(journal), "--as", "holder"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "held"
        yield proc, journal
    finally:
        proc.kill()
        proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()


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


def test_another_process_holding_it_is_named_with_its_command_line(
    holder: tuple[subprocess.Popen[str], Path],
) -> None:
    proc, journal = holder
    with pytest.raises(JournalInUse) as refused:
        Journal(journal)
    assert f"is in use by pid {proc.pid} (python3 -c ... " in str(refused.value).replace(
        Path(sys.executable).name, "python3"
    )
    assert "--as holder, since " in str(refused.value)
    # `floord check` asks without taking it: who holds it, from the kernel's lock table.
    seen = holder_of(journal)
    assert seen is not None and seen.pid == proc.pid


def test_a_holder_killed_with_sigkill_leaves_no_stale_lock(
    holder: tuple[subprocess.Popen[str], Path],
) -> None:
    proc, journal = holder
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert holder_of(journal) is None
    # Its details are still in the file; the lock is free all the same.
    assert read_holder(lock_path(journal)) is not None
    JournalLock(journal).release()


def test_holder_of_a_free_or_missing_lock_is_none(tmp_path: Path) -> None:
    assert holder_of(tmp_path / "none.db") is None
    JournalLock(tmp_path / "floord.db").release()
    assert holder_of(tmp_path / "floord.db") is None


def test_an_exec_child_does_not_inherit_the_lock(tmp_path: Path) -> None:
    journal = tmp_path / "floord.db"
    lock = JournalLock(journal)
    assert lock._fd is not None
    assert fcntl.fcntl(lock._fd, fcntl.F_GETFD) & fcntl.FD_CLOEXEC
    # close_fds=False: only close-on-exec keeps the descriptor out of the child.
    child = subprocess.Popen(["sleep", "30"], close_fds=False)
    try:
        lock.release()
        JournalLock(journal).release()  # the child holds nothing
    finally:
        child.kill()
        child.wait()


def test_a_forked_child_does_not_keep_the_lock(tmp_path: Path) -> None:
    journal = tmp_path / "floord.db"
    lock = JournalLock(journal)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: says it is there, lives on a while, releases nothing itself
        os.write(write, b"x")
        time.sleep(3)
        os._exit(0)
    os.close(write)
    try:
        assert os.read(read, 1) == b"x"  # past the fork's hooks in the child
        lock.release()
        JournalLock(journal).release()  # the child's copy was closed when it was made
    finally:
        os.close(read)
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)


@pytest.mark.parametrize("left", ["", '{"pid": 1, "command": "floord run", "since": "x"}\n'])
def test_a_holder_that_has_not_written_its_details_yet_is_named_by_the_kernel(
    tmp_path: Path, left: str
) -> None:
    """The file empty, or still naming the holder before (SIGKILLed): the pid that holds
    the lock is the kernel's, never the file's stale word."""
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
