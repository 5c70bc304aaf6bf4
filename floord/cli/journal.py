"""`floord journal verify | export | verify-bundle | copy | retire` (docs/journal.md);
`backup` and `restore` are `floord.cli.journal_backup`'s, evidence bundles (`export
--table`, `verify-bundle`) `floord.cli.journal_bundle`'s.

The auditor's three only read the journal (a `mode=ro` connection), so they are safe to
run on the daemon's live file as well as on a copy. Exit codes: 0 done (for `verify`:
every chain is whole), 1 a broken chain, 2 the journal could not be read as asked.
`retire` writes, on the record, with the daemon stopped: it sets aside a table's state
that no longer fits its config (`floord.processes.retire`); 1 when refused.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from floord.cli import journal_backup
from floord.journal.audit import AuditError, copy_journal, describe, export_journal, verify_journal


def register(sub: Any) -> None:
    """Add `floord journal ...` to the `floord` command line."""
    journal = sub.add_parser("journal", help="verify, export or copy the journal (auditors)")
    what = journal.add_subparsers(dest="journal", required=True, metavar="ACTION")

    verify = what.add_parser("verify", help="prove every stream's hash chain; name a break")
    verify.add_argument("--db", required=True, type=Path, help="the journal file (or a copy)")
    verify.add_argument("--stream", help="only this stream (e.g. RL-01 or RL-01/devices/wheel)")
    verify.set_defaults(handler=_verify)

    export = what.add_parser(
        "export",
        help="stored event bodies in a time window, JSON lines; with --table, an evidence "
        "bundle (one file, checked offline by verify-bundle)",
    )
    export.add_argument("--db", required=True, type=Path)
    export.add_argument(
        "--from", dest="start", help="ISO 8601, included (required without --round)"
    )
    export.add_argument("--to", dest="end", help="ISO 8601, excluded (required without --round)")
    export.add_argument("--stream", help="only this stream")
    export.add_argument("--out", type=Path, help="write here (default: standard output)")
    export.add_argument(
        "--table", help="an evidence bundle of this table's streams (needs --out FILE)"
    )
    export.add_argument("--round", help="with --table: the events of this round")
    export.add_argument(
        "-c",
        "--config",
        type=Path,
        help="with --table: the config the daemon runs with (default: the one named on the "
        "command line the journal's lock file records)",
    )
    export.set_defaults(handler=_export, export_parser=export)

    bundle = what.add_parser(
        "verify-bundle", help="check an evidence bundle offline: no daemon, no config"
    )
    bundle.add_argument("file", type=Path, metavar="FILE", help="the bundle (a .zip)")
    bundle.add_argument(
        "--db",
        type=Path,
        help="also compare each stream's head with this journal (live, read-only, or a copy)",
    )
    bundle.set_defaults(handler=_verify_bundle)

    copy = what.add_parser("copy", help="a consistent copy of a live journal (backup API)")
    copy.add_argument("--db", required=True, type=Path)
    copy.add_argument("--out", required=True, type=Path, help="a new file (never overwritten)")
    copy.set_defaults(handler=_copy)

    retire = what.add_parser(
        "retire",
        help="set aside a table's state that no longer fits its config, on the record "
        "(stop floord first)",
    )
    retire.add_argument("-c", "--config", required=True, type=Path, help="the box's config")
    retire.add_argument("--table", required=True, help="the table whose state is retired")
    retire.add_argument("--as", dest="operator", required=True, help="who (a floorperson+)")
    retire.add_argument("--reason", required=True, help="why, for the record")
    retire.set_defaults(handler=_retire)

    journal_backup.register(what)


def _verify(ns: argparse.Namespace) -> int:
    try:
        report = verify_journal(ns.db, ns.stream)
    except AuditError as exc:
        print(f"floord journal verify: {exc}", file=sys.stderr)
        return 2
    print(describe(report, ns.db))
    return 1 if report.broken is not None else 0


def _export(ns: argparse.Namespace) -> int:
    if ns.table is not None:
        from floord.cli.journal_bundle import export_bundle_command

        return export_bundle_command(ns)
    # Without --table, the JSON lines export as it always was: argparse's own refusal.
    if ns.round is not None or ns.config is not None:
        ns.export_parser.error("--round and --config go with --table (an evidence bundle)")
    if ns.start is None or ns.end is None:
        ns.export_parser.error("the following arguments are required: --from, --to")
    try:
        if ns.out is None:
            count = export_journal(ns.db, ns.start, ns.end, sys.stdout, ns.stream)
        else:
            if ns.out.exists():
                raise AuditError(f"{ns.out} already exists; export never overwrites a file")
            try:
                with ns.out.open("x", encoding="utf-8", newline="\n") as out:
                    count = export_journal(ns.db, ns.start, ns.end, out, ns.stream)
            except AuditError:
                ns.out.unlink(missing_ok=True)  # no half-written export left behind
                raise
    except (AuditError, OSError) as exc:
        print(f"floord journal export: {exc}", file=sys.stderr)
        return 2
    print(f"exported {count} events", file=sys.stderr)
    return 0


def _verify_bundle(ns: argparse.Namespace) -> int:
    from floord.cli.journal_bundle import verify_bundle_command

    return verify_bundle_command(ns)


def _copy(ns: argparse.Namespace) -> int:
    try:
        pages = copy_journal(ns.db, ns.out)
    except AuditError as exc:
        print(f"floord journal copy: {exc}", file=sys.stderr)
        return 2
    print(f"{ns.db} copied to {ns.out} ({pages} pages)")
    return 0


def _retire(ns: argparse.Namespace) -> int:
    from floord.config.load import ConfigError, load_config
    from floord.journal.store import JournalError
    from floord.processes.retire import retire_table
    from floord.system.ownership import root_refusal

    try:
        loaded = load_config(ns.config)
        if refusal := root_refusal(loaded.journal_path, ns.argv):
            print(f"floord journal retire: {refusal}", file=sys.stderr)
            return 1
        event = retire_table(loaded, ns.table, ns.operator, ns.reason)
    except ConfigError as exc:
        print("\n".join(exc.problems), file=sys.stderr)
        return 1
    except (KeyError, ValueError, OSError, JournalError) as exc:
        text = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"floord journal retire: {text}", file=sys.stderr)
        return 1
    print(
        f"{ns.table}: state retired on the record (table.retired, seq {event.seq}); "
        "it starts as a new table: inspect and open it"
    )
    return 0
