"""Who may write a journal: root is refused where the folder belongs to another user.

On a table box the journal's folder (/var/lib/floord) belongs to the service user
(`floord`, systemd/floord.sysusers.conf) and the unit runs as that user. A `floord run`
typed as root on that box would work, and leave a journal, its -wal and -shm files and
the adapters' journals owned by root, mode 0600 (UMask=0077): the next start of the
unit, as floord, cannot open them, and the table stays halted until someone finds out
why. So every command that writes a journal (`run`, `adapter`, `journal retire`,
`demo --journal`) asks `root_refusal` first and, as root, refuses to write where
another user owns the journal or its folder, naming the owner and the command to type
instead. Refusing rather than dropping to that user: a refusal changes nothing on the
box and says what to do, where dropping privileges from inside a Python process would
leave the config, the keys and the log as root opened them, and would hide the mistake.

A rig running as root in a folder root owns is allowed: nothing there belongs to a
service user. `floord check` writes nothing (it reads the journal read-only), so it
runs as anyone who can read the config.
"""

from __future__ import annotations

import os
import pwd
import shlex
from collections.abc import Sequence
from pathlib import Path


def owner_name(uid: int) -> str:
    """The user's name, or `#UID` (sudo's form) for a uid with no passwd entry."""
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"#{uid}"


def _foreign_owner(journal: Path) -> tuple[Path, int] | None:
    """The first of the journal's files and its folder (the nearest one that exists, the
    one a new journal is made in) owned by a user other than root, with its uid."""
    candidates = [journal, Path(f"{journal}-wal"), Path(f"{journal}-shm")]
    folder = journal.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    for path in [*candidates, folder]:
        try:
            uid = path.stat().st_uid
        except OSError:
            continue
        if uid != 0:
            return path, uid
    return None


def root_refusal(journal: Path, argv: Sequence[str], euid: int | None = None) -> str | None:
    """One line refusing to write `journal` as root where another user owns it or its
    folder, or None (not root, or nothing there belongs to another user). `argv` is the
    command's arguments after `floord`, repeated in the line to type instead."""
    if (os.geteuid() if euid is None else euid) != 0:
        return None
    found = _foreign_owner(journal)
    if found is None:
        return None
    path, uid = found
    name = owner_name(uid)
    command = shlex.join(["sudo", "-u", name, "floord", *argv])
    return (
        f"refused as root: {path} belongs to {name}, and files root writes there would "
        f"stop floord running as {name} from opening the journal; run it as {name}: {command}"
    )
