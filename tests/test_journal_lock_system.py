"""One writer per journal across processes: a holder in another process is named with
its command line, a SIGKILLed holder leaves no stale lock, and neither an exec'd nor a
forked child keeps the lock. The in-process checks are in `test_journal_lock.py`.
"""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from floord.journal.lock import (
    JournalInUse,
    JournalLock,
    holder_of,
    lock_path,
    read_holder,
)
from floord.journal.store import Journal

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
