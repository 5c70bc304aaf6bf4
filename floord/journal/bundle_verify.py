"""Check an evidence bundle with nothing but the file: no daemon, no config, no journal.

What is checked, in order (docs/journal.md, "Evidence bundles"): the zip's own CRC of
each member; every member against `SHA256SUMS` and against the manifest's `members`;
the manifest's form; then each stream: its events' hashes recomputed, every `prev`
link from the event before the range through the range to the head the manifest names,
the run of seq without a gap, that the range starts and ends where its selection says
(the events on either side of it fall outside it), and that every device the table's
range names has its stream in the bundle; and the config's and profiles' hashes.

Every problem names the member it is in and, for an event, the stream and seq. The
walk along a stream is `floord.journal.chain.verify_bodies`, the one `journal verify`
makes of the whole journal.
"""

from __future__ import annotations

import hashlib
import zipfile
import zlib
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from floord.contract import format_ts, parse_ts
from floord.journal.bundle_format import FORMAT, FORMAT_VERSION, MANIFEST, SUMS, parse_sums
from floord.journal.bundle_streams import StreamEntry, check_stream
from floord.untrusted import read_json


class BundleUnreadable(ValueError):
    """There is no bundle to check at that path (missing, or a folder)."""


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a bundle: where (member, and stream and seq for an event),
    what kind (`damaged`, `hash_mismatch`, `missing`, `unlisted`, `unreadable`,
    `format`, `selection`, `boundary`, `foreign`, `missing_stream`, `count`, or a
    chain break's kind: `edited`, `prev_mismatch`, `deleted`, ...) and the detail."""

    member: str
    kind: str
    detail: str
    stream: str | None = None
    seq: int | None = None

    def __str__(self) -> str:
        where = ""
        if self.stream is not None:
            where = f" stream {self.stream!r}" + (f" seq {self.seq}" if self.seq else "")
        return f"{self.member}:{where} {self.kind}: {self.detail}"


@dataclass
class BundleReport:
    """What `verify_bundle` found: its problems (none: the bundle is whole) and, when the
    manifest could be read, the manifest and each stream's entry."""

    problems: list[Problem] = field(default_factory=list)
    manifest: dict[str, Any] | None = None
    streams: list[StreamEntry] = field(default_factory=list)
    # Each event line of the bundle, by (stream, seq), as the check read it.
    bodies: dict[tuple[str, int], str] = field(default_factory=dict)
    # What a whole bundle says besides: each profile file against the record's.
    notes: list[str] = field(default_factory=list)

    @property
    def whole(self) -> bool:
        return not self.problems


def _short(digest: str | None) -> str:
    return "none" if digest is None else digest[:16]


def _read_members(zf: zipfile.ZipFile, report: BundleReport) -> dict[str, bytes]:
    members: dict[str, bytes] = {}
    for info in zf.infolist():
        if info.filename in members:
            report.problems.append(
                Problem(info.filename, "duplicated", "the zip holds two members of this name")
            )
            continue
        try:
            members[info.filename] = zf.read(info)
        except (
            zipfile.BadZipFile,
            zlib.error,
            EOFError,
            OSError,
            ValueError,
            RuntimeError,  # encrypted: a floord bundle never is
            NotImplementedError,  # a compression method zipfile cannot read
        ) as exc:
            report.problems.append(
                Problem(
                    info.filename,
                    "damaged",
                    f"the zip's own check of its bytes fails ({exc}): the file was changed "
                    "or damaged",
                )
            )
    return members


def _check_hashes(
    members: dict[str, bytes],
    sums: dict[str, str] | None,
    listed: dict[str, str] | None,
    report: BundleReport,
) -> None:
    """Every member's SHA-256 against SHA256SUMS and the manifest's `members` (each that
    could be read)."""
    for name in sorted(set(sums or {}) | set(listed or {}) | set(members)):
        if name == SUMS:
            continue
        if name not in members:
            if not any(p.member == name for p in report.problems):
                report.problems.append(
                    Problem(name, "missing", "the manifest or SHA256SUMS lists it; it is not here")
                )
            continue
        actual = hashlib.sha256(members[name]).hexdigest()
        wants = {}
        if sums is not None:
            wants["SHA256SUMS"] = sums.get(name)
        if listed is not None and name != MANIFEST:
            wants["the manifest"] = listed.get(name)
        wrong = {who: want for who, want in wants.items() if want != actual}
        if not wrong:
            continue
        if all(want is None for want in wrong.values()):
            who = " and ".join(wrong)
            report.problems.append(Problem(name, "unlisted", f"not listed in {who}"))
            continue
        said = ", ".join(f"{who} lists {_short(want)}" for who, want in wrong.items())
        report.problems.append(
            Problem(name, "hash_mismatch", f"its SHA-256 is {_short(actual)}, {said}: changed")
        )


def _manifest(members: dict[str, bytes], report: BundleReport) -> dict[str, Any] | None:
    data = members.get(MANIFEST)
    if data is None:
        if not any(p.member == MANIFEST for p in report.problems):
            report.problems.append(Problem(MANIFEST, "missing", "the bundle has no manifest"))
        return None
    try:
        manifest = read_json(data.decode("utf-8"))
    except ValueError as exc:
        report.problems.append(Problem(MANIFEST, "unreadable", f"not JSON ({exc})"))
        return None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        report.problems.append(Problem(MANIFEST, "format", f"not a {FORMAT}'s manifest"))
        return None
    version = manifest.get("format_version")
    if not isinstance(version, int) or version > FORMAT_VERSION or version < 1:
        report.problems.append(
            Problem(
                MANIFEST,
                "format",
                f"format_version {version!r}: this floord reads version {FORMAT_VERSION}",
            )
        )
        return None
    for key, kind, said in (("profiles", list, "a list"), ("selection", dict, "an object")):
        if manifest.get(key) is not None and not isinstance(manifest[key], kind):
            report.problems.append(Problem(MANIFEST, "format", f"`{key}` is not {said}"))
            return None
    return manifest


def _profiles(manifest: dict[str, Any]) -> list[Any]:
    profiles = manifest.get("profiles")
    return profiles if isinstance(profiles, list) else []


def _check_attachments(
    manifest: dict[str, Any], members: dict[str, bytes], report: BundleReport
) -> None:
    """The config's, floor rules' and profiles' own entries name their member's hash."""
    entries = [manifest.get("config"), manifest.get("floor_rules"), *_profiles(manifest)]
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        member, want = entry.get("member"), entry.get("sha256")
        if not isinstance(member, str) or member not in members:
            report.problems.append(
                Problem(str(member), "missing", "the manifest names this file; it is not here")
            )
            continue
        actual = hashlib.sha256(members[member]).hexdigest()
        if actual != want and not any(p.member == member for p in report.problems):
            report.problems.append(
                Problem(
                    member,
                    "hash_mismatch",
                    f"its SHA-256 is {_short(actual)}, its entry in the manifest says "
                    f"{_short(want if isinstance(want, str) else None)}: changed",
                )
            )


def _round_window(table: StreamEntry, bodies: list[dict[str, Any]]) -> dict[str, str] | None:
    """The time the device streams of a round bundle cover: from the round's first event
    on the table stream to its last, that one included."""
    if not bodies:
        return None
    try:
        high = parse_ts(str(bodies[-1]["ts"])) + timedelta(microseconds=1)
        return {"from": format_ts(parse_ts(str(bodies[0]["ts"]))), "to": format_ts(high)}
    except (KeyError, ValueError):
        return None


def _check_streams(
    manifest: dict[str, Any], members: dict[str, bytes], report: BundleReport
) -> None:
    table, site = manifest.get("table"), manifest.get("site")
    raw = manifest.get("streams")
    if not isinstance(table, str) or not isinstance(site, str) or not isinstance(raw, list):
        report.problems.append(
            Problem(MANIFEST, "unreadable", "`table`, `site` and `streams` expected")
        )
        return
    entries = []
    for index, item in enumerate(raw):
        try:
            entries.append(StreamEntry.read(item))
        except (KeyError, TypeError, ValueError) as exc:
            report.problems.append(Problem(MANIFEST, "unreadable", f"streams[{index}]: {exc}"))
    report.streams = entries
    names = [e.stream for e in entries]
    if table not in names:
        report.problems.append(Problem(MANIFEST, "missing_stream", f"no entry for {table}"))
        return
    selection = manifest.get("selection")
    checked: dict[str, list[dict[str, Any]]] = {}
    for entry in [e for e in entries if e.stream == table] + [
        e for e in entries if e.stream != table
    ]:
        if entry.stream != table and not entry.stream.startswith(f"{table}/devices/"):
            report.problems.append(
                Problem(MANIFEST, "foreign", f"stream {entry.stream!r} is not table {table}'s")
            )
            continue
        want = selection
        if entry.stream != table and isinstance(selection, dict) and "round" in selection:
            want = _round_window(entry, checked.get(table, []))
        if want is not None and entry.select != want:
            report.problems.append(
                Problem(
                    MANIFEST,
                    "selection",
                    f"stream {entry.stream!r} selects {entry.select}, the bundle's selection "
                    f"means {want}",
                )
            )
        found, bodies, by_seq = check_stream(entry, members, site, table)
        checked[entry.stream] = bodies
        report.bodies.update({(entry.stream, seq): line for seq, line in by_seq.items()})
        named = {p.member for p in report.problems}  # a damaged member is not missing too
        report.problems.extend(
            Problem(**p) for p in found if not (p["kind"] == "missing" and p["member"] in named)
        )
    for source in sorted({str(b.get("source")) for b in checked.get(table, [])}):
        if source in ("engine", "daemon") or source.startswith("operator:"):
            continue
        if f"{table}/devices/{source}" not in names:
            report.problems.append(
                Problem(
                    MANIFEST,
                    "missing_stream",
                    f"the table's range has events of device {source!r}, whose stream "
                    f"{table}/devices/{source} is not in the bundle",
                )
            )


def _check_started(manifest: dict[str, Any], report: BundleReport) -> None:
    """The manifest's `started` against the table's `daemon.started` it names (when the
    bundle holds it), and each profile file against what that start recorded."""
    started, table = manifest.get("started"), manifest.get("table")
    if not isinstance(started, dict) or not isinstance(table, str):
        return
    seq = started.get("seq")
    line = report.bodies.get((table, seq)) if isinstance(seq, int) else None
    where = "before the range: the manifest's word for it"
    if line is not None:
        try:
            body = read_json(line)
        except ValueError:
            body = None
        body = body if isinstance(body, dict) else {}
        data = body["data"] if isinstance(body.get("data"), dict) else {}
        said = {
            "type": body.get("type"),
            "ts": body.get("ts"),
            "version": data.get("version"),
            "profiles": data.get("profiles"),
        }
        wanted = {k: started.get(k) for k in ("ts", "version", "profiles")}
        if said != {"type": "daemon.started", **wanted}:
            report.problems.append(
                Problem(
                    MANIFEST,
                    "started_mismatch",
                    f"`started` is not what the table's seq {seq} says (a daemon.started)",
                )
            )
            return
        where = "in the bundle"
    profiles = started.get("profiles")
    recorded: dict[str, Any] = profiles if isinstance(profiles, dict) else {}
    for entry in _profiles(manifest):
        if not isinstance(entry, dict):
            continue
        device, mine = entry.get("device"), entry.get("sha256")
        record = recorded.get(device) if isinstance(device, str) else None
        start = f"the daemon.started of seq {seq} ({where})"
        if not isinstance(record, dict):
            report.notes.append(f"profile of {device}: {start} records none")
        elif record.get("sha256") == mine:
            report.notes.append(f"profile of {device}: the file {start} recorded")
        else:
            report.notes.append(
                f"profile of {device}: NOT the file {start} recorded "
                f"({_short(record.get('sha256'))}): changed since that start"
            )


def verify_bundle(path: Path) -> BundleReport:
    """Check the bundle at `path` offline; `BundleUnreadable` when there is no file."""
    path = Path(path)
    if not path.is_file():
        raise BundleUnreadable(f"no bundle at {path}")
    report = BundleReport()
    try:
        zf = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        report.problems.append(Problem(path.name, "unreadable", f"not a zip file ({exc})"))
        return report
    with zf:
        members = _read_members(zf, report)
    sums_data = members.get(SUMS)
    sums = parse_sums(sums_data) if sums_data is not None else None
    if sums is None:
        kind = "missing" if sums_data is None else "unreadable"
        report.problems.append(
            Problem(SUMS, kind, "a `<sha256>  <member>` line per member expected")
        )
    manifest = _manifest(members, report)
    listed = manifest.get("members") if manifest is not None else None
    _check_hashes(members, sums, listed if isinstance(listed, dict) else None, report)
    if manifest is None:
        return report
    report.manifest = manifest
    _check_attachments(manifest, members, report)
    _check_streams(manifest, members, report)
    _check_started(manifest, report)
    return report
