"""One stream of an evidence bundle checked: its chain from the event before the range,
through the range, to the head the manifest names, and the range's two ends.

A stream's entry in the manifest (`StreamEntry`) says where its range lies (`first_seq`
..`last_seq`, or none), how the chain reaches it (`start`: after the event `before_seq`,
which is the first line of `links`; at the genesis; or after events pruned under
retention, whose last hash is `anchor`) and where it ends (`head`). The lines of
`links` after the event before the range are the events `after_first_seq`..`head`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from floord.contract import format_ts, parse_ts
from floord.journal.chain import Anchor, verify_bodies
from floord.untrusted import read_json

STARTS = ("event", "genesis", "pruned")


def _int(value: Any, name: str, *, none: bool = False) -> int | None:
    if value is None and none:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"{name}: a seq number expected, found {value!r}")
    return value


def _str(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{name}: text expected, found {value!r}")
    return value


@dataclass(frozen=True)
class StreamEntry:
    """A stream's entry of the manifest, its types checked."""

    stream: str
    select: dict[str, str]
    events_member: str
    first: int | None
    last: int | None
    count: int
    start: str
    before: int | None
    anchor: tuple[int, str] | None
    links_member: str
    after_first: int | None
    after_last: int | None
    head: tuple[int, str]

    @classmethod
    def read(cls, raw: Any) -> StreamEntry:
        """The entry from the manifest's JSON; ValueError/KeyError/TypeError naming the
        field when it is not of its form."""
        events, links, head = raw["events"], raw["links"], raw["head"]
        select = raw["select"]
        if (
            not isinstance(select, dict)
            or set(select) not in ({"round"}, {"from", "to"})
            or not all(isinstance(v, str) for v in select.values())
        ):
            raise ValueError(f"select: {{round}} or {{from, to}} expected, found {select!r}")
        start = _str(raw["start"], "start")
        if start not in STARTS:
            raise ValueError(f"start: one of {', '.join(STARTS)} expected, found {start!r}")
        anchor = None
        if start == "pruned":
            found = raw["anchor"]
            anchor = (
                int(_int(found["seq"], "anchor.seq") or 0),
                _str(found["hash"], "anchor.hash"),
            )
        return cls(
            stream=_str(raw["stream"], "stream"),
            select=select,
            events_member=_str(events["member"], "events.member"),
            first=_int(events["first_seq"], "events.first_seq", none=True),
            last=_int(events["last_seq"], "events.last_seq", none=True),
            count=int(_int(events["count"], "events.count") or 0),
            start=start,
            before=_int(raw["before_seq"], "before_seq", none=True),
            anchor=anchor,
            links_member=_str(links["member"], "links.member"),
            after_first=_int(links["after_first_seq"], "links.after_first_seq", none=True),
            after_last=_int(links["after_last_seq"], "links.after_last_seq", none=True),
            head=(int(_int(head["seq"], "head.seq") or 0), _str(head["hash"], "head.hash")),
        )

    def gap(self) -> int:
        """The seq the range follows."""
        if self.start == "event":
            return self.before or 0
        if self.start == "pruned" and self.anchor is not None:
            return self.anchor[0]
        return 0


def _lines(data: bytes | None) -> list[str] | None:
    if data is None:
        return None
    text = data.decode("utf-8", errors="replace")
    lines = text.split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines


def _body(line: str) -> dict[str, Any]:
    try:
        body = read_json(line)
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


def _seq(line: str, at: int) -> int:
    seq = _body(line).get("seq")
    return seq if isinstance(seq, int) and not isinstance(seq, bool) else at


def _inside(select: dict[str, str], body: dict[str, Any]) -> bool | None:
    """Whether an event falls in the selection (None: its ts cannot be read)."""
    if "round" in select:
        return bool(body.get("round") == select["round"])
    try:
        ts = format_ts(parse_ts(str(body["ts"])))
    except (KeyError, ValueError):
        return None
    return select["from"] <= ts < select["to"]


def _layout(entry: StreamEntry, range_lines: int, link_lines: int) -> list[dict[str, Any]]:
    """What is wrong with the entry's numbers, against each other and the members."""
    found = []

    def wrong(member: str, detail: str) -> None:
        found.append({"member": member, "kind": "count", "detail": detail, "stream": entry.stream})

    gap = entry.gap()
    if entry.start == "event" and entry.before is None:
        wrong("manifest.json", "start is `event` but no before_seq is given")
    if entry.first is None:
        if entry.last is not None or entry.count:
            wrong("manifest.json", "an empty range with a last_seq or a count")
        expected_after = gap + 1
    else:
        if entry.first != gap + 1 or entry.last is None or entry.last < entry.first:
            wrong(
                "manifest.json", f"the range {entry.first}..{entry.last} does not follow seq {gap}"
            )
        elif entry.count != entry.last - entry.first + 1:
            wrong("manifest.json", f"count {entry.count} for seq {entry.first}..{entry.last}")
        expected_after = (entry.last or 0) + 1
    if range_lines != entry.count:
        wrong(entry.events_member, f"{range_lines} lines, the manifest counts {entry.count}")
    head_seq = entry.head[0]
    if entry.after_first is None:
        after = 0
        if expected_after <= head_seq:
            wrong(
                "manifest.json", f"no links from seq {expected_after} to the head, seq {head_seq}"
            )
    else:
        after = (entry.after_last or 0) - entry.after_first + 1
        if entry.after_first != expected_after or entry.after_last != head_seq:
            wrong(
                "manifest.json",
                f"links {entry.after_first}..{entry.after_last} do not run from seq "
                f"{expected_after} to the head, seq {head_seq}",
            )
    before = 1 if entry.start == "event" else 0
    if link_lines != before + after:
        wrong(entry.links_member, f"{link_lines} lines, the manifest says {before + after}")
    return found


def _boundaries(
    entry: StreamEntry,
    before: dict[str, Any] | None,
    bodies: list[dict[str, Any]],
    after: dict[str, Any] | None,
) -> list[dict[str, Any]]:
    """The range's ends against its selection: first and last in it, the neighbours out."""
    found = []

    def boundary(member: str, seq: int | None, detail: str) -> None:
        found.append(
            {
                "member": member,
                "kind": "boundary",
                "detail": detail,
                "stream": entry.stream,
                "seq": seq,
            }
        )

    if bodies:
        if _inside(entry.select, bodies[0]) is not True:
            boundary(
                entry.events_member,
                entry.first,
                f"the range's first event is outside {entry.select}",
            )
        if _inside(entry.select, bodies[-1]) is not True:
            boundary(
                entry.events_member, entry.last, f"the range's last event is outside {entry.select}"
            )
    elif "round" in entry.select:
        boundary(entry.events_member, None, "the range of a round holds no event")
    if before is not None and _inside(entry.select, before) is not False:
        boundary(
            entry.links_member,
            entry.before,
            f"the event before the range falls in {entry.select}: the range starts later "
            "than its selection does",
        )
    if after is not None and _inside(entry.select, after) is not False:
        boundary(
            entry.links_member,
            entry.after_first,
            f"the event after the range falls in {entry.select}: the range ends earlier "
            "than its selection does",
        )
    return found


def check_stream(
    entry: StreamEntry, members: dict[str, bytes], site: str, table: str
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[int, str]]:
    """The problems of one stream (as `Problem` fields), the range's parsed bodies, and
    every line of the stream by the seq it was checked as."""
    range_lines, link_lines = (
        _lines(members.get(entry.events_member)),
        _lines(members.get(entry.links_member)),
    )
    found: list[dict[str, Any]] = []
    for name, lines in ((entry.events_member, range_lines), (entry.links_member, link_lines)):
        if lines is None:
            found.append(
                {
                    "member": name,
                    "kind": "missing",
                    "detail": "the manifest names it; it is not here",
                    "stream": entry.stream,
                }
            )
    if range_lines is None or link_lines is None:
        return found, [], {}
    found += _layout(entry, len(range_lines), len(link_lines))
    has_before = entry.start == "event" and bool(link_lines)
    before_line = link_lines[0] if has_before else None
    after_lines = link_lines[1:] if has_before else link_lines
    gap = entry.gap()
    # Each line at the seq it says it is (else where the manifest puts it): a line taken
    # out then shows as the gap it leaves, a line renumbered as an edit.
    first = entry.first if entry.first is not None else gap + 1
    after_first = entry.after_first if entry.after_first is not None else first + len(range_lines)
    placed = [(gap, before_line, entry.links_member)] if before_line is not None else []
    placed += [(first + i, line, entry.events_member) for i, line in enumerate(range_lines)]
    placed += [(after_first + i, line, entry.links_member) for i, line in enumerate(after_lines)]
    rows = [(entry.stream, _seq(line, at), line) for at, line, _ in placed]
    member_of = {seq: member for (_, seq, _), (_, _, member) in zip(rows, placed, strict=True)}
    anchor = None
    if before_line is not None:
        prev = _body(before_line).get("prev")
        anchor = Anchor(gap - 1, prev if isinstance(prev, str) else "")
    elif entry.anchor is not None:
        anchor = Anchor(*entry.anchor)
    broken = verify_bodies(
        rows, anchors={entry.stream: anchor} if anchor else None, heads={entry.stream: entry.head}
    )
    if broken is not None:
        found.append(
            {
                "member": member_of.get(broken.seq, entry.links_member),
                "kind": broken.kind,
                "detail": broken.detail,
                "stream": entry.stream,
                "seq": broken.seq,
            }
        )
    for _, seq, line in rows:
        body = _body(line)
        if body and (body.get("site") != site or body.get("table") != table):
            found.append(
                {
                    "member": member_of[seq],
                    "kind": "foreign",
                    "detail": f"an event of {body.get('site')}/{body.get('table')} in the "
                    f"bundle of {site}/{table}",
                    "stream": entry.stream,
                    "seq": seq,
                }
            )
    bodies = [_body(line) for line in range_lines]
    before_body = _body(before_line) if before_line is not None else None
    after_body = _body(after_lines[0]) if after_lines else None
    found += _boundaries(entry, before_body, bodies, after_body)
    return found, bodies, {seq: line for _, seq, line in rows}
