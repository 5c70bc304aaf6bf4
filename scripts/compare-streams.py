"""Compare golden event streams recorded before and after a change.

Suite mode: two directories written by `pytest --record-streams DIR`. Each test is
identical, differs (with the first differing line), missing (recorded before, not after)
or new. Tests known to be nondeterministic (a file of node ids, `#` comments) are listed
in their own section with their status; they do not fail the comparison. Two recordings
of the same tree give that list: `--write-nondeterministic FILE` (the tests that differ,
and those that failed in either run).

    python scripts/compare-streams.py BEFORE AFTER [--nondeterministic FILE]
        [--rename OLD=NEW ...] [--write-nondeterministic FILE] [--verbose]

Demo mode: random play differs run to run, so a demo is compared by summary: the set of
(event type, rule citation, source) triples, and per table the count of each event type,
against the range over one or more "before" dumps (`scripts/golden_journal.py`).

    python scripts/compare-streams.py --demo BEFORE.jsonl [BEFORE2.jsonl ...] --after AFTER.jsonl

Exit status: 0 when nothing fails, 1 when something does, 2 on bad input. Stdlib only.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

IDENTICAL, DIFFERS, MISSING, NEW = "identical", "differs", "missing", "new"


@dataclass
class Recording:
    """One test's recorded lines (the header first), keyed by node id."""

    nodeid: str
    lines: list[str]


def load_dir(folder: Path, renames: list[tuple[str, str]] | None = None) -> dict[str, Recording]:
    """Every recording in `folder`, by node id (renames applied to node id prefixes)."""
    out: dict[str, Recording] = {}
    for path in sorted(folder.glob("*.jsonl")):
        lines = path.read_text(encoding="utf-8").splitlines()
        if not lines:
            continue
        header = json.loads(lines[0])
        nodeid = str(header.get("nodeid", path.stem))
        for old, new in renames or []:
            if nodeid.startswith(old):
                nodeid = new + nodeid[len(old) :]
                header["nodeid"] = nodeid
                lines[0] = json.dumps(header)
                break
        out[nodeid] = Recording(nodeid, lines)
    return out


def first_difference(before: list[str], after: list[str]) -> tuple[int, str, str] | None:
    """(1-based line number, before line, after line) of the first difference, or None."""
    for i in range(max(len(before), len(after))):
        b = before[i] if i < len(before) else "<end of recording>"
        a = after[i] if i < len(after) else "<end of recording>"
        if a != b:
            return (i + 1, b, a)
    return None


def compare(
    before: dict[str, Recording], after: dict[str, Recording]
) -> dict[str, tuple[str, tuple[int, str, str] | None]]:
    """Per node id: (status, first difference or None)."""
    result: dict[str, tuple[str, tuple[int, str, str] | None]] = {}
    for nodeid in sorted(set(before) | set(after)):
        if nodeid not in after:
            result[nodeid] = (MISSING, None)
        elif nodeid not in before:
            result[nodeid] = (NEW, None)
        else:
            diff = first_difference(before[nodeid].lines, after[nodeid].lines)
            result[nodeid] = (IDENTICAL, None) if diff is None else (DIFFERS, diff)
    return result


def read_list(path: Path) -> set[str]:
    """Node ids, one a line; blank lines and `#` comments ignored."""
    items = (line.split("#", 1)[0].strip() for line in path.read_text().splitlines())
    return {item for item in items if item}


def passed(rec: Recording | None) -> bool:
    """True if the recording exists and its test passed (or was skipped)."""
    if rec is None:
        return False
    return json.loads(rec.lines[0]).get("outcome") in ("passed", "skipped")


def has_events(rec: Recording) -> bool:
    return len(rec.lines) > 1


def _clip(text: str, width: int = 400) -> str:
    return text if len(text) <= width else text[:width] + " ..."


def report_suite(
    result: dict[str, tuple[str, tuple[int, str, str] | None]],
    before: dict[str, Recording],
    known: set[str],
    verbose: bool,
) -> int:
    """Print the comparison; return how many deterministic tests differ or are missing."""
    failures = 0
    sections: dict[str, list[str]] = {"deterministic": [], "nondeterministic": []}
    counts: Counter[tuple[str, str]] = Counter()
    for nodeid, (status, diff) in result.items():
        section = "nondeterministic" if nodeid in known else "deterministic"
        counts[(section, status)] += 1
        if section == "deterministic" and status in (DIFFERS, MISSING):
            failures += 1
        if status == IDENTICAL and not verbose and section == "deterministic":
            continue
        line = f"{status:9} {nodeid}"
        if diff is not None:
            n, b, a = diff
            line += (
                f"\n          line {n}\n          before: {_clip(b)}\n          after:  {_clip(a)}"
            )
        sections[section].append(line)
    for section in ("deterministic", "nondeterministic"):
        summary = ", ".join(
            f"{counts[(section, s)]} {s}" for s in (IDENTICAL, DIFFERS, MISSING, NEW)
        )
        print(f"== {section} tests: {summary}")
        for line in sections[section]:
            print(line)
    with_events = sum(1 for r in before.values() if has_events(r))
    print(f"== {len(before)} tests recorded before, {with_events} of them wrote journal events")
    print("== FAIL" if failures else "== OK: every deterministic test recorded the same streams")
    return failures


# --- demo mode -------------------------------------------------------------------------


@dataclass
class DemoSummary:
    """What a demo run decided, without the luck of the draw."""

    triples: set[tuple[str, str, str]]
    counts: dict[str, Counter[str]]  # table -> event type -> count


def summarise(path: Path) -> DemoSummary:
    """The summary of one dumped demo journal (table streams and device streams alike)."""
    triples: set[tuple[str, str, str]] = set()
    counts: dict[str, Counter[str]] = {}
    for text in path.read_text(encoding="utf-8").splitlines():
        record: dict[str, Any] = json.loads(text)
        if record.get("kind") != "event":
            continue
        triples.add((str(record["type"]), str(record.get("rule")), str(record["source"])))
        key = str(record["stream"])
        counts.setdefault(key, Counter())[str(record["type"])] += 1
    return DemoSummary(triples, counts)


def compare_demo(befores: list[DemoSummary], after: DemoSummary, slack: float) -> list[str]:
    """Lines that say what differs; a line starting `FAIL` fails the comparison.

    A triple after that no run before had is a new decision (a changed citation, type or
    source): FAIL. A triple every run before had (at least two runs) and after lacks:
    FAIL; with one run before it is only a note. A triple only some runs had (a rare
    event) and after lacks: note. A per-stream count outside
    [min/(1+slack), max*(1+slack)] of the runs before: note (random play).
    """
    out: list[str] = []
    seen = set().union(*(b.triples for b in befores))
    always = set.intersection(*(b.triples for b in befores))
    for t in sorted(after.triples - seen):
        out.append(f"FAIL new (type, rule, source): {t}")
    verdict = "FAIL" if len(befores) > 1 else "note"
    for t in sorted(always - after.triples):
        out.append(f"{verdict} missing (type, rule, source), in every run before: {t}")
    for t in sorted((seen - always) - after.triples):
        out.append(f"note rare triple not seen after: {t}")
    streams = sorted(set().union(*(b.counts for b in befores)) | set(after.counts))
    for stream in streams:
        types = set().union(*(b.counts.get(stream, Counter()) for b in befores))
        types |= set(after.counts.get(stream, Counter()))
        for etype in sorted(types):
            seen_counts = [b.counts.get(stream, Counter())[etype] for b in befores]
            low, high = min(seen_counts) / (1 + slack), max(seen_counts) * (1 + slack)
            n = after.counts.get(stream, Counter())[etype]
            if not low <= n <= high:
                out.append(
                    f"note {stream} {etype}: {n} after, {min(seen_counts)}..{max(seen_counts)}"
                    " before"
                )
    return out


def _suite(ns: argparse.Namespace) -> int:
    renames = []
    for item in ns.rename:
        old, sep, new = item.partition("=")
        if not sep:
            print(f"--rename wants OLD=NEW, not {item!r}", file=sys.stderr)
            return 2
        renames.append((old, new))
    for folder in (ns.before, ns.after):
        if not folder.is_dir():
            print(f"not a directory: {folder}", file=sys.stderr)
            return 2
    before = load_dir(ns.before, renames)
    after = load_dir(ns.after)
    known = read_list(ns.nondeterministic) if ns.nondeterministic else set()
    result = compare(before, after)
    if ns.write_nondeterministic:
        # A test that failed in either run stopped part-way: its streams are no reference.
        unsure = [
            n
            for n, (s, _) in result.items()
            if s == DIFFERS or not (passed(before.get(n)) and passed(after.get(n)))
        ]
        header = f"# tests whose streams differ between {ns.before} and {ns.after}, or that"
        header += " did not pass in one of them\n"
        ns.write_nondeterministic.write_text(header + "".join(f"{n}\n" for n in unsure))
    return 1 if report_suite(result, before, known, ns.verbose) else 0


def _demo(ns: argparse.Namespace) -> int:
    if ns.after is None or not ns.after.is_file() or not all(p.is_file() for p in ns.before):
        print("--demo wants BEFORE.jsonl files and --after AFTER.jsonl", file=sys.stderr)
        return 2
    lines = compare_demo([summarise(p) for p in ns.before], summarise(ns.after), ns.slack)
    for line in lines:
        print(line)
    failed = any(line.startswith("FAIL") for line in lines)
    print("== FAIL" if failed else "== OK: the demo made the same kinds of decisions")
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path, nargs="+", help="directory (or demo dumps)")
    parser.add_argument("--after", type=Path, help="the directory or dump after the change")
    parser.add_argument("--demo", action="store_true", help="compare demo dumps by summary")
    parser.add_argument("--nondeterministic", type=Path, help="known nondeterministic tests")
    parser.add_argument("--write-nondeterministic", type=Path, help="write the differing tests")
    parser.add_argument("--rename", action="append", default=[], help="OLD=NEW node id prefix")
    parser.add_argument("--slack", type=float, default=0.5, help="demo count tolerance (0.5)")
    parser.add_argument("-v", "--verbose", action="store_true", help="list identical tests too")
    ns = parser.parse_args(argv)
    if ns.demo:
        return _demo(ns)
    if len(ns.before) == 2 and ns.after is None:
        ns.before, ns.after = ns.before[0], ns.before[1]
    elif len(ns.before) == 1 and ns.after is not None:
        ns.before = ns.before[0]
    else:
        print("suite mode wants BEFORE AFTER (two directories)", file=sys.stderr)
        return 2
    return _suite(ns)


if __name__ == "__main__":
    sys.exit(main())
