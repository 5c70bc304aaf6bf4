"""`floord journal export --table ...` and `floord journal verify-bundle FILE`: evidence
bundles (docs/journal.md, "Evidence bundles").

The export reads the journal read-only (no writer's lock: beside a running daemon) and
takes the config the daemon runs with (`-c`, or the one named on the command line the
journal's lock file records) and the profile files of the table's devices, each with its
SHA-256. It checks the bundle it wrote as `verify-bundle` would. Exit codes: 0 written
and whole; 1 written but it does not verify (kept: the break is evidence too); 2 not
written (the journal, the config or the options could not be used as asked).

`verify-bundle` needs nothing but the file: exit 0 whole, 1 a problem named (member,
stream, seq, what), 2 no file. With `--db` it also compares each head the bundle names
with that journal (read-only): 1 when the journal does not hold one.
"""

from __future__ import annotations

import argparse
import hashlib
import shlex
import sys
from datetime import UTC, datetime
from itertools import pairwise
from pathlib import Path
from typing import Any

from floord import __version__
from floord.journal.audit import AuditError
from floord.journal.bundle_export import Attachment, ExportSummary, Selection, export_bundle
from floord.journal.bundle_verify import BundleReport, BundleUnreadable, verify_bundle
from floord.journal.bundle_witness import compare_heads, differing_fields, stored_bodies
from floord.journal.lock import lock_path, read_holder
from floord.profile_sources import ProfileShelf, profile_sources, site_directory
from floord.profiles import ProfileError
from floord.untrusted import read_json
from floord.yaml_files import YamlFileError, read_yaml

NO_CONFIG = (
    "give -c CONFIG, the config the daemon runs with (the journal's lock file names none "
    "with a full path)"
)


def _selection(ns: argparse.Namespace) -> Selection:
    if ns.round is not None:
        if ns.start is not None or ns.end is not None:
            raise AuditError("--round or --from/--to, not both")
        return Selection(round=ns.round)
    if ns.start is None or ns.end is None:
        raise AuditError("an evidence bundle needs --round R, or --from TS and --to TS")
    return Selection.window(ns.start, ns.end)


def _config_path(ns: argparse.Namespace) -> tuple[Path, str]:
    """The config to put in the bundle, and how it was found."""
    if ns.config is not None:
        return Path(ns.config).resolve(), "given with --config"
    holder = read_holder(lock_path(Path(ns.db)))
    if holder is not None:
        try:
            words = shlex.split(holder.command)
        except ValueError:
            words = []
        for flag, value in pairwise(words):
            if flag in ("-c", "--config") and Path(value).is_absolute():
                return Path(value), f"named by the journal's lock file ({holder.command})"
    raise AuditError(NO_CONFIG)


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _read(path: Path, what: str) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise AuditError(f"{what} {path}: cannot read it: {exc}") from exc


def _table_devices(config: Path, raw: Any, table: str) -> list[tuple[str, str]]:
    """(device id, profile name) of `table` in the config as written."""
    tables = raw.get("tables") if isinstance(raw, dict) else None
    for entry in tables if isinstance(tables, list) else []:
        if isinstance(entry, dict) and entry.get("id") == table:
            devices = entry.get("devices")
            return [
                (str(d.get("id")), str(d.get("profile")))
                for d in (devices if isinstance(devices, list) else [])
                if isinstance(d, dict)
            ]
    raise AuditError(f"{config}: no table {table!r} in it; give the config that has it (-c)")


def attachments_for(
    config: Path, found: str, table: str
) -> tuple[dict[str, Any], list[Attachment]]:
    """The manifest's `config`, `floor_rules` and `profiles` entries, and their files."""
    data = _read(config, "config")
    try:
        raw = read_yaml(config)
    except YamlFileError as exc:
        raise AuditError(str(exc)) from exc
    devices = _table_devices(config, raw, table)
    member = f"config/{config.name}"
    about: dict[str, Any] = {
        "config": {
            "path": str(config),
            "found": found,
            "member": member,
            "sha256": _sha256(data),
            "devices": [device for device, _ in devices],
        },
        "floor_rules": None,
        "profiles": [],
    }
    files = [Attachment(member, data)]
    rules = raw.get("floor_rules") if isinstance(raw, dict) else None
    if isinstance(rules, str):
        path = Path(rules) if Path(rules).is_absolute() else config.parent / rules
        rules_data = _read(path, "floor rules")
        rules_member = f"floor_rules/{path.name}"
        about["floor_rules"] = {
            "path": str(path),
            "member": rules_member,
            "sha256": _sha256(rules_data),
        }
        files.append(Attachment(rules_member, rules_data))
    shelf = _shelf(config, raw)
    for device, name in devices:
        try:
            found_profile = shelf.open(name)
        except ProfileError as exc:
            raise AuditError(f"{config}: device {device}'s profile: {exc}") from exc
        path = found_profile.path
        profile = _read(path, f"{config}: device {device}'s profile")
        profile_member = f"profiles/{device}/{path.name}"
        about["profiles"].append(
            {
                "device": device,
                "profile": name,
                "origin": found_profile.origin,
                "path": str(path.resolve()),
                "overrides": None
                if found_profile.overrides is None
                else str(found_profile.overrides),
                "member": profile_member,
                "sha256": _sha256(profile),
            }
        )
        files.append(Attachment(profile_member, profile))
    return about, files


def _shelf(config: Path, raw: Any) -> ProfileShelf:
    """The profiles the daemon looks the config's names up in: its `site_profiles`
    (relative to the config) or the .deb's site directory, then the packaged ones."""
    site = raw.get("site_profiles") if isinstance(raw, dict) else None
    directory = None
    if isinstance(site, str):
        directory = Path(site) if Path(site).is_absolute() else config.parent / site
    return ProfileShelf(profile_sources(site_directory(directory)))


def _describe_streams(report: BundleReport) -> list[str]:
    lines = []
    for entry in report.streams:
        if entry.first is None:
            span = f"no event in the range (it lies after seq {entry.gap()})"
        else:
            span = f"seq {entry.first}..{entry.last} ({entry.count} events)"
        lines.append(f"  {entry.stream}: {span}, head seq {entry.head[0]} {entry.head[1][:16]}")
    return lines


def _what(manifest: dict[str, Any]) -> str:
    selection = manifest.get("selection") or {}
    if "round" in selection:
        chosen = f"round {selection['round']}"
    else:
        chosen = f"{selection.get('from')} to {selection.get('to')}"
    return f"table {manifest.get('table')} (site {manifest.get('site')}), {chosen}"


def describe_bundle(report: BundleReport, path: Path) -> str:
    """What `verify-bundle` prints: whole (and what the bundle proves) or each problem."""
    if report.problems:
        lines = [f"{path}: BROKEN: {len(report.problems)} problem(s)"]
        return "\n".join(lines + [f"  {p}" for p in report.problems])
    manifest = report.manifest or {}
    events = sum(e.count for e in report.streams)
    profiles = len(manifest.get("profiles") or [])
    config = "config and " if manifest.get("config") else "no config, "
    lines = [
        f"{path}: whole: {_what(manifest)}: {events} events in {len(report.streams)} streams, "
        f"each chained to its head; {config}{profiles} profile(s) as hashed",
        *_describe_streams(report),
        *(f"  {note}" for note in report.notes),
        f"the heads are the journal's at {manifest.get('exported_at')}: the range is unedited "
        "if the journal (or a copy, or the chain seen on MQTT) holds these heads (--db)",
    ]
    return "\n".join(lines)


def _written(summary: ExportSummary, out: Path) -> str:
    digest = _sha256(out.read_bytes())
    return (
        f"{out}: {_what(summary.manifest)}: {summary.events} events in "
        f"{len(summary.streams)} streams, each with its links to the head\n"
        f"{digest}  {out.name}"
    )


def export_bundle_command(ns: argparse.Namespace) -> int:
    """`floord journal export --table T (--round R | --from TS --to TS) --out FILE`."""
    out: Path | None = ns.out
    created = False
    try:
        selection = _selection(ns)
        if out is None:
            raise AuditError("an evidence bundle is a file: give --out FILE")
        if ns.stream is not None:
            raise AuditError("--stream is for the JSON lines export; a bundle holds the table's")
        config, found = _config_path(ns)
        about, attachments = attachments_for(config, found, ns.table)
        try:
            handle = out.open("xb")
        except FileExistsError as exc:
            raise AuditError(f"{out} already exists; export never overwrites a file") from exc
        created = True
        with handle:
            summary = export_bundle(
                ns.db,
                ns.table,
                selection,
                handle,
                now=datetime.now(UTC),
                version=__version__,
                attachments=attachments,
                about=about,
            )
    except (AuditError, OSError) as exc:
        if created and out is not None:
            out.unlink(missing_ok=True)  # no half-written bundle left behind
        print(f"floord journal export: {exc}", file=sys.stderr)
        return 2
    print(_written(summary, out))
    report = verify_bundle(out)
    if not report.whole:
        print(describe_bundle(report, out), file=sys.stderr)
        return 1
    return 0


def _name_edited_fields(report: BundleReport, ns: argparse.Namespace) -> int:
    """With --db, each edited event of a broken bundle against the journal's own: which
    fields differ (a hash says only that something did). An event whose hash was made
    again shows as the next one's `prev_mismatch`: both are compared. Exit 1, or 2 if
    the journal cannot be read."""
    wanted: list[tuple[str, int]] = []
    for p in report.problems:
        if p.stream is not None and p.seq and p.kind in ("edited", "prev_mismatch"):
            seqs = [p.seq - 1, p.seq] if p.kind == "prev_mismatch" else [p.seq]
            wanted += [(p.stream, seq) for seq in seqs if (p.stream, seq) not in wanted]
    if not wanted:
        return 1
    try:
        held = stored_bodies(ns.db, wanted)
    except AuditError as exc:
        print(f"floord journal verify-bundle: {exc}", file=sys.stderr)
        return 2
    for key in wanted:
        ours, theirs = _decoded(report.bodies.get(key)), _decoded(held.get(key))
        where = f"  stream {key[0]!r} seq {key[1]}:"
        if ours is None or theirs is None:
            print(f"{where} not in both the bundle and {ns.db} to compare")
            continue
        fields = differing_fields(ours, theirs)
        print(f"{where} differs from {ns.db} in {', '.join(fields) or 'nothing'}")
    return 1


def _decoded(line: str | None) -> Any:
    try:
        return None if line is None else read_json(line)
    except ValueError:
        return None


def verify_bundle_command(ns: argparse.Namespace) -> int:
    """`floord journal verify-bundle FILE`."""
    try:
        report = verify_bundle(ns.file)
    except BundleUnreadable as exc:
        print(f"floord journal verify-bundle: {exc}", file=sys.stderr)
        return 2
    print(describe_bundle(report, ns.file))
    if not report.whole:
        if ns.db is not None:
            return _name_edited_fields(report, ns)
        return 1
    if ns.db is None:
        return 0
    heads = {entry.stream: entry.head for entry in report.streams}
    try:
        differ = compare_heads(ns.db, heads)
    except AuditError as exc:
        print(f"floord journal verify-bundle: {exc}", file=sys.stderr)
        return 2
    if differ:
        print(f"{ns.db}: does NOT hold the bundle's heads:")
        print("\n".join(f"  {stream}: {problem}" for stream, problem in differ))
        return 1
    print(f"{ns.db}: holds every head: the range is as this journal recorded it")
    return 0
