"""`floord journal backup | restore` (docs/journal.md, docs/deployment.md "Backup and restore").

`backup` only reads the journal (as `copy` does), so it runs beside the daemon; exit 0
with one line naming each stream's head and the copy's SHA-256, 2 when no verified
backup could be taken (nothing is left behind). `restore` writes a journal: it takes
the journal's writer lock (refused while a daemon holds it) and, as root, refuses where
the journal's folder belongs to the service user; exit 0 restored, 1 refused.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def register(what: Any) -> None:
    """Add `backup` and `restore` to `floord journal`."""
    backup = what.add_parser(
        "backup", help="a verified copy of a live journal, put in place only once it verifies"
    )
    backup.add_argument("--db", required=True, type=Path, help="the journal (the daemon's)")
    backup.add_argument(
        "--out",
        required=True,
        help="a new file, or a folder (ending in /) where it is named journal-<UTC time>.db",
    )
    backup.add_argument(
        "--keep",
        type=int,
        metavar="N",
        help="with a folder: keep its N newest backups of this journal, delete the older",
    )
    backup.set_defaults(handler=_backup)

    restore = what.add_parser(
        "restore", help="put a verified backup in a journal's place (stop floord first)"
    )
    restore.add_argument("backup", type=Path, help="the backup file")
    restore.add_argument("--journal", required=True, type=Path, help="the journal to restore")
    restore.add_argument(
        "--force",
        action="store_true",
        help="restore even over a journal newer than the backup (it is set aside, not lost)",
    )
    restore.set_defaults(handler=_restore)


def _backup(ns: argparse.Namespace) -> int:
    from floord.journal.backup import BackupError, take_backup

    try:
        done = take_backup(ns.db, ns.out, ns.keep)
    except BackupError as exc:
        print(f"floord journal backup: {exc}", file=sys.stderr)
        return 2
    print(done.describe(ns.db))
    return 0


def _restore(ns: argparse.Namespace) -> int:
    from floord.journal.errors import JournalError
    from floord.journal.restore import RestoreError, restore_journal
    from floord.system.ownership import root_refusal

    if refusal := root_refusal(ns.journal, ns.argv):
        print(f"floord journal restore: {refusal}", file=sys.stderr)
        return 1
    try:
        done = restore_journal(ns.backup, ns.journal, force=ns.force)
    except (RestoreError, JournalError) as exc:
        print(f"floord journal restore: {exc}", file=sys.stderr)
        return 1
    print(done.describe(ns.backup))
    return 0
