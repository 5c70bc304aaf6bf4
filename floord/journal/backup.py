"""`floord journal backup`: a verified copy of a live journal, kept only once it verifies.

The copy is `journal copy`'s (`audit.copy_journal`: SQLite's online backup API through a
read-only connection, so one consistent state of the journal while the daemon writes,
never blocking it). It is taken into a hidden file beside the target, its whole chain
is walked (`audit.verify_journal`), and only a copy that verifies is put in place, by a
hard link that never replaces an existing file: the target either does not exist or is
a whole, verified backup, never a partial one. A copy that does not verify is deleted.

A folder target gets a timestamped name (`journal-20261204T033000Z.db`, from the
journal's own name), and `keep` then deletes the oldest backups of that journal in the
folder beyond the newest `keep`, after the new one is in place. Only files with that
exact form of name are counted or deleted.

The copy has the journal's permission bits, and, when taken as root, its owner: a
backup is as private as the journal it copies (dealt and hole cards included).
"""

from __future__ import annotations

import hashlib
import os
import re
import sqlite3
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from floord.journal.audit import AuditError, copy_journal, open_readonly, verify_journal

STAMP = "%Y%m%dT%H%M%SZ"
_STAMP_RE = r"\d{8}T\d{6}Z"


class BackupError(ValueError):
    """The backup could not be taken, or did not verify: nothing was left behind."""


@dataclass(frozen=True)
class Head:
    """A stream's chain head: its last seq and that event's hash."""

    seq: int
    hash: str | None


@dataclass(frozen=True)
class Backup:
    """A backup put in place: where, what it holds, its file's SHA-256, what `keep` removed."""

    path: Path
    heads: dict[str, Head]
    events: int
    sha256: str
    removed: list[Path] = field(default_factory=list)

    def describe(self, journal: Path) -> str:
        """One line: the file, each stream's head seq and hash, the file's SHA-256."""
        heads = ", ".join(
            f"{s} seq {h.seq} {(h.hash or '')[:16]}" for s, h in sorted(self.heads.items())
        )
        removed = f"; {len(self.removed)} older removed (--keep)" if self.removed else ""
        return (
            f"{journal} backed up to {self.path}: whole, {self.events} events in "
            f"{len(self.heads)} streams; heads: {heads or 'none'}; sha256 {self.sha256}"
            f"{removed}"
        )


def read_heads(path: Path) -> dict[str, Head]:
    """Every stream's chain head as `streams` records it, read-only."""
    db = open_readonly(path)
    try:
        return {
            s: Head(int(seq), h)
            for s, seq, h in db.execute("SELECT stream, last_seq, last_hash FROM streams")
        }
    except sqlite3.Error as exc:
        raise AuditError(f"journal {path}: cannot read its chain heads: {exc}") from exc
    finally:
        db.close()


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def backup_name(journal: Path, now: datetime) -> str:
    """`journal-20261204T033000Z.db` for `/var/lib/floord/journal.db` at that UTC time."""
    return f"{journal.stem}-{now.astimezone(UTC).strftime(STAMP)}{journal.suffix}"


def is_folder_target(out: Path | str) -> bool:
    """A target that names a folder: one that exists as a folder, or ends in `/`."""
    return str(out).endswith(os.sep) or Path(out).is_dir()


def kept_backups(folder: Path, journal: Path) -> list[Path]:
    """The backups of `journal` in `folder` (by their timestamped name), oldest first."""
    pattern = re.compile(
        rf"{re.escape(journal.stem)}-{_STAMP_RE}{re.escape(journal.suffix)}", re.ASCII
    )
    found = [p for p in folder.iterdir() if pattern.fullmatch(p.name) and p.is_file()]
    return sorted(found, key=lambda p: p.name)


def to_remove(backups: list[Path], keep: int) -> list[Path]:
    """The oldest of `backups` (oldest first) beyond the newest `keep`."""
    if keep < 1:
        raise ValueError(f"keep must be at least 1, not {keep}")
    return backups[: max(0, len(backups) - keep)]


def take_backup(
    journal: Path, out: Path | str, keep: int | None = None, now: datetime | None = None
) -> Backup:
    """Copy `journal` (live or not) to `out`, verify the copy, put it in place; with a
    folder `out` name it by the time and apply `keep`. Raises `BackupError`."""
    journal, folder_target, folder = Path(journal), is_folder_target(out), Path(out)
    if keep is not None and not folder_target:
        raise BackupError(f"--keep needs a folder as --out (one ending in /), not {folder}")
    if keep is not None and keep < 1:
        raise BackupError(f"--keep must be at least 1, not {keep}")
    target = folder / backup_name(journal, now or datetime.now(UTC)) if folder_target else folder
    if not target.parent.is_dir():
        raise BackupError(f"no folder {target.parent} for the backup")
    if target.exists():
        raise BackupError(f"{target} already exists; a backup never overwrites a file")
    partial = target.with_name(f".{target.name}.partial-{os.getpid()}")
    partial.unlink(missing_ok=True)
    try:
        try:
            copy_journal(journal, partial)
            report = verify_journal(partial)
        except AuditError as exc:
            raise BackupError(str(exc)) from exc
        if report.broken is not None:
            raise BackupError(
                f"the copy of {journal} does not verify ({report.broken}); no backup kept"
            )
        heads = read_heads(partial)
        _as_the_journal(journal, partial)
        fsync_path(partial)
        digest = file_sha256(partial)
        try:
            os.link(partial, target)  # never replaces: FileExistsError if one appeared
        except FileExistsError:
            raise BackupError(
                f"{target} already exists; a backup never overwrites a file"
            ) from None
        except OSError as exc:
            raise BackupError(f"cannot put the backup in place at {target}: {exc}") from exc
    except (BackupError, OSError) as exc:
        partial.unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise BackupError(f"cannot back up {journal} to {target}: {exc}") from exc
        raise
    partial.unlink(missing_ok=True)
    fsync_path(target.parent)
    removed: list[Path] = []
    if keep is not None:
        for old in to_remove(kept_backups(target.parent, journal), keep):
            if old != target:
                old.unlink(missing_ok=True)
                removed.append(old)
        if removed:
            fsync_path(target.parent)
    return Backup(target, heads, report.events, digest, removed)


def _as_the_journal(journal: Path, copy: Path) -> None:
    """The journal's permission bits on the copy, and its owner when root took it."""
    mode = journal.stat()
    os.chmod(copy, mode.st_mode & 0o777)
    if os.geteuid() == 0:
        os.chown(copy, mode.st_uid, mode.st_gid)


def fsync_path(path: Path) -> None:
    """fsync a file or a folder (its entries: a rename or link survives a power cut)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
