"""One writer per journal: an exclusive `flock` on `<journal>.lock`, held while it is open.

Two processes writing one journal interleave two records of one table (two
`daemon.started`, a halt from one and results from the other) and the chain of each
stream says nothing of it. So every opening for writing (`floord run`, `floord adapter`,
`floord journal retire`, `floord demo --journal`) takes this lock first, and a second
writer is refused with the holder's pid, its command line and when it took the lock
(`JournalInUse`); the read-only tools open the journal `mode=ro` and never take it.

Why a separate file and `flock`: SQLite holds POSIX (`fcntl`) locks on the journal and
its -wal and -shm files, and closing any descriptor of one of those files drops all of
the process's POSIX locks on it (docs/journal.md, "Checkpoints on their own thread").
`flock` locks belong to the open file description, not the process: the kernel releases
them when the holder's last descriptor closes, so a holder killed with SIGKILL never
leaves a stale lock behind, and a second opening within one process conflicts too. The
descriptor is close-on-exec and closed in a forked child, so no child inherits the lock.

The file is never deleted (deleting a lock file another process has open lets two
holders lock two different files); what it says (`LockHolder`) is rewritten by each
holder and is information only: the lock is the kernel's.
"""

from __future__ import annotations

import fcntl
import json
import os
import shlex
import socket
import sys
import time
import weakref
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from floord.journal.errors import JournalError
from floord.untrusted import read_json

LOCK_SUFFIX = ".lock"
LOCK_MODE = 0o640
# How long a refused opener waits for the holder's details to be written (the holder
# writes them just after it takes the lock).
DETAILS_WAIT_S = 0.5
NOT_RECORDED = "command line not recorded"

# The locks this process holds: closed in a child made by fork, which must not hold them.
_HELD: weakref.WeakSet[JournalLock] = weakref.WeakSet()


class JournalInUse(JournalError):
    """Another writer holds the journal's lock: nothing was opened or written."""

    def __init__(self, journal: Path, holder: LockHolder | None) -> None:
        who = holder.describe() if holder is not None else "another process"
        super().__init__(f"journal {journal} is in use by {who}; one writer per journal")
        self.journal = journal
        self.holder = holder


@dataclass(frozen=True)
class LockHolder:
    """What a holder wrote into the lock file: who it is, how it was started, since when."""

    pid: int
    command: str
    since: str
    host: str = ""

    def describe(self) -> str:
        """`pid 1234 (floord run -c /etc/floord/floord.yaml, since 2026-...Z)`."""
        return f"pid {self.pid} ({self.command}, since {self.since})"

    def text(self) -> str:
        return json.dumps(
            {"pid": self.pid, "command": self.command, "since": self.since, "host": self.host}
        )


def lock_path(journal: Path) -> Path:
    """`<journal>.lock`, beside the journal (in the folder its writer may write)."""
    return journal.with_name(journal.name + LOCK_SUFFIX)


def command_line(argv: list[str] | None = None) -> str:
    """How this process was started, as an operator would type it: `python -m floord ...`
    and the `floord` script both read `floord ...`."""
    words = list(sys.argv if argv is None else argv)
    if not words:
        return "command line unknown"
    if words[0] == "-c":  # `python -c CODE ARGS`: the code is not in argv
        return shlex.join([Path(sys.executable).name, "-c", "...", *words[1:]])
    program = Path(words[0])
    name = program.parent.name if program.name == "__main__.py" else program.name
    return shlex.join([name or words[0], *words[1:]])


def this_process() -> LockHolder:
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return LockHolder(os.getpid(), command_line(), now, socket.gethostname())


class JournalLock:
    """The lock of one journal, taken at construction; `release` ends it."""

    def __init__(self, journal: Path) -> None:
        self.journal = journal
        self.path = lock_path(journal)
        self._fd: int | None = None
        flags = os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW
        try:
            fd = os.open(self.path, flags, LOCK_MODE)
        except OSError as exc:
            raise JournalError(f"journal {journal}: cannot open its lock file: {exc}") from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _wait_for_details(fd, self.path)
            os.close(fd)
            raise JournalInUse(journal, holder) from None
        except OSError as exc:
            os.close(fd)
            raise JournalError(f"journal {journal}: cannot lock {self.path}: {exc}") from exc
        self._fd = fd
        try:
            data = (this_process().text() + "\n").encode()
            os.ftruncate(fd, 0)
            os.pwrite(fd, data, 0)
        except OSError as exc:
            self.release()
            raise JournalError(f"journal {journal}: cannot write its lock file: {exc}") from exc
        _HELD.add(self)

    def release(self) -> None:
        """Let the next writer in (a second release does nothing). The details stay in the
        file: only the kernel's lock says whether it is held."""
        fd, self._fd = self._fd, None
        _HELD.discard(self)
        if fd is not None:
            os.close(fd)

    def __del__(self) -> None:
        self.release()

    def forget_in_child(self) -> None:
        """In a forked child: close this process's copy of the descriptor (the
        parent's copy keeps the lock)."""
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)


def read_holder(path: Path) -> LockHolder | None:
    """The details a lock file holds (None: empty, unreadable or not floord's)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    return _parse(text)


def holder_of(journal: Path) -> LockHolder | None:
    """Who holds the journal's lock now, without taking it (`floord check`): the kernel's
    table of locks says whether the lock file is locked and by which pid, the file says
    how that process was started. None when it is free or cannot be told."""
    path = lock_path(journal)
    pid = _locked_by(path)
    if pid is None:
        return None
    details = read_holder(path)
    if details is not None and details.pid == pid:
        return details
    return LockHolder(pid, NOT_RECORDED, "unknown")


def _locked_by(path: Path) -> int | None:
    """The pid holding a `flock` on `path`, from `/proc/locks` (Linux); None when there
    is none, or it cannot be read."""
    try:
        stat = path.stat()
        table = Path("/proc/locks").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    device = f"{os.major(stat.st_dev):02x}:{os.minor(stat.st_dev):02x}:{stat.st_ino}"
    for line in table.splitlines():
        fields = line.split()
        # `1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF`
        if len(fields) >= 6 and fields[1] == "FLOCK" and fields[5] == device:
            return int(fields[4]) if fields[4].isdigit() else None
    return None


def _parse(text: str) -> LockHolder | None:
    try:
        body = read_json(text)
    except ValueError:
        return None
    if not isinstance(body, dict) or not isinstance(body.get("pid"), int):
        return None
    command, since = str(body.get("command", "?")), str(body.get("since", "?"))
    return LockHolder(body["pid"], command, since, str(body.get("host", "")))


def _wait_for_details(fd: int, path: Path) -> LockHolder | None:
    """The holder's details, read through the refused opener's own descriptor; waits a
    moment for a holder that has just taken the lock to write them (until then the file
    is empty, or still names the holder before it, which the kernel's pid tells)."""
    deadline = time.monotonic() + DETAILS_WAIT_S
    while True:
        try:
            holder = _parse(_read_all(fd).decode("utf-8", "replace"))
        except OSError:
            holder = None
        pid = _locked_by(path)
        if holder is not None and pid in (None, holder.pid):
            return holder
        if time.monotonic() >= deadline:
            return holder if pid is None else LockHolder(pid, NOT_RECORDED, "unknown")
        time.sleep(0.02)


def _read_all(fd: int) -> bytes:
    """The lock file's whole text through `fd`, however long the holder's command line
    (a daemon started with many arguments writes more than one page of details)."""
    chunks: list[bytes] = []
    offset = 0
    while chunk := os.pread(fd, 65536, offset):
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)


def _close_in_child() -> None:
    for lock in list(_HELD):
        lock.forget_in_child()
    _HELD.clear()


os.register_at_fork(after_in_child=_close_in_child)
