"""A journal in a read-only directory raises `JournalError`: opened in a forked child (as
`nobody` when the suite runs as root, whom a directory's mode does not stop). The rest
is in `test_journal.py`.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from floord.journal.store import Journal, JournalError

pytestmark = pytest.mark.system


def _open_in_child(paths: list[Path], as_nobody: bool) -> int:
    """Try each path in a forked child; its exit code counts the JournalErrors (255: other)."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child
        code = 255
        try:
            if as_nobody:
                os.setgroups([])
                os.setgid(65534)
                os.setuid(65534)
            code = 0
            for p in paths:
                try:
                    Journal(p).close()
                except JournalError as exc:
                    if str(exc).startswith(f"journal {p}"):
                        code += 1
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def test_a_journal_in_a_read_only_directory_raises_journal_error() -> None:
    """Root ignores directory permissions, so the attempt runs as `nobody` then."""
    base = Path(tempfile.mkdtemp(prefix="floord-ro-"))
    try:
        base.chmod(0o755)
        readonly = base / "ro"
        readonly.mkdir()
        readonly.chmod(0o555)
        paths = [readonly / "floord.db", readonly / "sub" / "floord.db"]
        assert _open_in_child(paths, as_nobody=os.geteuid() == 0) == len(paths)
        assert list(readonly.iterdir()) == []
    finally:
        (base / "ro").chmod(0o755)
        for p in sorted(base.rglob("*"), reverse=True):
            p.rmdir() if p.is_dir() else p.unlink()
        base.rmdir()
