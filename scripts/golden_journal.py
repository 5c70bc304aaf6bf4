"""Dump floord journals as normalised event streams, for golden before/after comparison.

A refactor that must not change behaviour is checked by recording what the suite and the
demo write to their journals before and after it, and comparing (compare-streams.py).
The raw record cannot be compared as it is: timestamps, hashes (which cover the
timestamps), command ids, signatures, pty names, ports and temporary paths change from
run to run. This module keeps what the daemon decided (stream, seq, type, source, rule,
round, data, and each table's snapshot) and replaces those run-specific values by
placeholders. Random identifiers become `<id:N>`, numbered by first appearance, so that
"the same id twice" survives normalisation.

Stdlib only, and it reads the SQLite file directly rather than through floord's
`Journal` class: the tool must work unchanged on both sides of a refactor that moves
that class. Usage: `python scripts/golden_journal.py JOURNAL [JOURNAL ...] [-o OUT]`.
"""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
import sys
from collections.abc import Iterable, Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

SQLITE_MAGIC = b"SQLite format 3\x00"

# Body keys that are never compared: wall-clock (`ts`) and the chain over it.
DROPPED_KEYS = ("ts", "prev", "hash")
# Keys inside `data` whose value is wall-clock, random or a secret, whatever it looks like.
VOLATILE_KEYS = {
    "ts": "<ts>",
    "first_ts": "<ts>",
    "last_ts": "<ts>",
    "since": "<ts>",
    "until": "<ts>",
    "pruned_before": "<ts>",
    "sig": "<sig>",
    "signature": "<sig>",
    "nonce": "<nonce>",
    "salt": "<salt>",
    "pid": "<pid>",
    "port": "<port>",
}

_TS = re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)?")
_UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")
_HEX64 = re.compile(r"\b[0-9a-f]{64}\b")
_HEX32 = re.compile(r"\b[0-9a-f]{32}\b")
_HEX12 = re.compile(r"(?<=-)[0-9a-f]{12}\b")  # operator_client's "floord-cmd-<12 hex>"
_PTY = re.compile(r"/dev/pts/\d+")
_TMP = re.compile(r"(?:/tmp|/dev/shm|/var/tmp)/[^\s\"',;:)]+")
_HOSTPORT = re.compile(r"((?:127\.0\.0\.1|localhost|\[::1\]|0\.0\.0\.0)):\d{2,5}\b")


class Normaliser:
    """Placeholders for one dump: ids are numbered in order of first appearance."""

    def __init__(self, roots: Iterable[str] = ()) -> None:
        # Longest first, so a nested root is replaced before its parent.
        self.roots = sorted({r for r in roots if r}, key=len, reverse=True)
        self.ids: dict[str, str] = {}

    def _id(self, raw: str) -> str:
        if raw not in self.ids:
            self.ids[raw] = f"<id:{len(self.ids) + 1}>"
        return self.ids[raw]

    def text(self, value: str) -> str:
        """A string with its run-specific parts replaced."""
        for root in self.roots:
            value = value.replace(root, "<tmp>")
        value = _TMP.sub("<tmp>", value)
        value = _PTY.sub("/dev/pts/<n>", value)
        value = _HOSTPORT.sub(r"\1:<port>", value)
        value = _TS.sub("<ts>", value)
        value = _HEX64.sub("<hex64>", value)
        value = _UUID.sub(lambda m: self._id(m.group(0)), value)
        value = _HEX32.sub(lambda m: self._id(m.group(0)), value)
        return _HEX12.sub(lambda m: self._id(m.group(0)), value)

    def value(self, value: Any, key: str | None = None) -> Any:
        """Any JSON value, recursively; `key` is the name it was found under."""
        if key in VOLATILE_KEYS and value is not None:
            return VOLATILE_KEYS[key]
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {k: self.value(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [self.value(v) for v in value]
        return value

    def event(self, body: dict[str, Any], journal: str) -> dict[str, Any]:
        """One stored envelope as a golden record (keys in a fixed order)."""
        out: dict[str, Any] = {"journal": journal, "kind": "event"}
        for key in ("stream", "site", "table", "seq", "type", "source", "rule", "round", "v"):
            if key in body:
                out[key] = self.value(body[key], None if key == "seq" else key)
        out["data"] = self.value(body.get("data") or {})
        extra = sorted(set(body) - set(out) - set(DROPPED_KEYS) - {"data"})
        for key in extra:  # a field added to the envelope shows up, it is not dropped
            out[key] = self.value(body[key], key)
        return out


def is_sqlite(path: Path) -> bool:
    """True if the file starts with SQLite's header."""
    try:
        with path.open("rb") as handle:
            return handle.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except OSError:
        return False


def is_journal(path: Path) -> bool:
    """A SQLite file with floord's `events` table (other SQLite files are not journals)."""
    if not is_sqlite(path):
        return False
    try:
        with closing(_connect(path)) as db:
            row = db.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'events'"
            ).fetchone()
    except sqlite3.Error:
        return False
    return row is not None


def find_journals(root: Path) -> list[Path]:
    """Every floord journal under `root`, sorted by path."""
    if not root.is_dir():
        return []
    return sorted(p for p in root.rglob("*") if p.is_file() and is_journal(p))


def _connect(path: Path) -> sqlite3.Connection:
    # Read-only: the dump never changes the file, and (WAL being read, not ignored) it
    # still sees the committed events of a daemon that was killed without closing.
    uri = f"{path.resolve().as_uri()}?mode=ro"
    return sqlite3.connect(uri, uri=True, timeout=5.0)


def journal_records(path: Path, name: str, norm: Normaliser) -> Iterator[dict[str, Any]]:
    """The normalised events (by stream, then seq) and snapshots of one journal file."""
    with closing(_connect(path)) as db:
        rows = db.execute("SELECT stream, seq, body FROM events ORDER BY stream, seq").fetchall()
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        snaps = (
            db.execute("SELECT table_id, state FROM snapshots ORDER BY table_id").fetchall()
            if "snapshots" in tables
            else []
        )
    for stream, seq, body in rows:
        try:
            parsed = json.loads(body)
        except ValueError:
            yield {"journal": name, "kind": "undecodable", "stream": stream, "seq": seq}
            continue
        yield norm.event({"stream": stream, **parsed, "seq": seq}, name)
    for table_id, state in snaps:
        try:
            parsed_state: Any = json.loads(state)
        except ValueError:
            parsed_state = "<undecodable>"
        yield {
            "journal": name,
            "kind": "snapshot",
            "table": table_id,
            "state": norm.value(parsed_state),
        }


def dump_lines(journals: list[tuple[Path, str]], roots: Iterable[str] = ()) -> list[str]:
    """JSON lines for several journals (path, name-in-the-dump), one Normaliser for all."""
    norm = Normaliser(roots)
    lines: list[str] = []
    for path, name in journals:
        for record in journal_records(path, name, norm):
            lines.append(json.dumps(record, sort_keys=False, ensure_ascii=False))
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("journals", nargs="+", type=Path, help="journal files (SQLite)")
    parser.add_argument("-o", "--out", type=Path, help="write here instead of stdout")
    ns = parser.parse_args(argv)
    missing = [str(p) for p in ns.journals if not is_journal(p)]
    if missing:
        print(f"not a floord journal: {', '.join(missing)}", file=sys.stderr)
        return 2
    roots = {str(p.resolve().parent) for p in ns.journals}
    lines = dump_lines([(p, p.name) for p in ns.journals], roots)
    text = "".join(line + "\n" for line in lines)
    if ns.out:
        ns.out.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
