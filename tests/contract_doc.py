"""Reads the payload tables of `docs/contract.md` and compares them with emitted events.

The event types table gives each type's `data` as its first code span, `{a, b, c?}`:
every key the payload has, a `?` marking one that is present only sometimes (the
text after the span says when). A value may follow a key (`hand: "player"|"banker"`,
`wagers: [{wager, odds}]`); only the top-level keys are compared.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

CONTRACT_MD = Path(__file__).resolve().parent.parent / "docs" / "contract.md"
SECTION = "### Event types"
_CODE = re.compile(r"`([^`]*)`")


@dataclass(frozen=True)
class Payload:
    """One documented payload: the keys always present, and those sometimes present."""

    required: frozenset[str]
    optional: frozenset[str]

    @property
    def keys(self) -> frozenset[str]:
        return self.required | self.optional


def top_level_keys(span: str) -> list[str]:
    """`{a, b: [{c, d}], e?}` -> `["a", "b", "e?"]`: keys at depth 0 of the braces."""
    text = span.strip()
    if not (text.startswith("{") and text.endswith("}")):
        raise ValueError(f"a payload like {{a, b?}} expected, found {span!r}")
    parts, depth, quoted, current = [], 0, False, ""
    for char in text[1:-1]:
        if char == '"':
            quoted = not quoted
        elif not quoted and char in "[{(":
            depth += 1
        elif not quoted and char in "]})":
            depth -= 1
        if char == "," and depth == 0 and not quoted:
            parts.append(current)
            current = ""
        else:
            current += char
    if current.strip():
        parts.append(current)
    return [p.split(":", 1)[0].strip() for p in parts if p.strip()]


def _cells(line: str) -> list[str]:
    # The data cell may hold `|` inside a code span: split off the first two cells only.
    return [c.strip() for c in line.strip().strip("|").split(" | ", 2)]


def documented_payloads(text: str | None = None) -> dict[str, Payload]:
    """Event type -> its documented payload, from the event types table."""
    text = CONTRACT_MD.read_text() if text is None else text
    lines = text.splitlines()
    start = lines.index(SECTION)
    out: dict[str, Payload] = {}
    for line in lines[start + 1 :]:
        if line.startswith("#"):
            break
        if not line.startswith("| `"):
            continue
        types_cell, _source, data_cell = _cells(line)
        spans = [s for s in _CODE.findall(data_cell) if s.startswith("{")]
        if not spans:
            raise ValueError(f"a row without a {{...}} payload: {line!r}")
        keys = top_level_keys(spans[0])
        payload = Payload(
            required=frozenset(k for k in keys if not k.endswith("?")),
            optional=frozenset(k[:-1] for k in keys if k.endswith("?")),
        )
        for etype in _CODE.findall(types_cell):
            if etype in out:
                raise ValueError(f"{etype} has two rows")
            out[etype] = payload
    return out


def compare(documented: dict[str, Payload], emitted: dict[str, list[list[str]]]) -> list[str]:
    """Every way the emitted shapes and the documented payloads disagree, one per line."""
    problems: list[str] = []
    for etype, shapes in sorted(emitted.items()):
        doc = documented.get(etype)
        if doc is None:
            union = sorted({k for shape in shapes for k in shape})
            problems.append(
                f"{etype}: emitted but has no row in docs/contract.md "
                f"(seen keys: {{{', '.join(union)}}})"
            )
            continue
        seen: set[str] = set()
        for shape in shapes:
            keys = set(shape)
            seen |= keys
            extra = sorted(keys - doc.keys)
            if extra:
                problems.append(f"{etype}: emitted field(s) {extra} not documented")
            missing = sorted(doc.required - keys)
            if missing:
                problems.append(
                    f"{etype}: documented field(s) {missing} missing from an emitted "
                    f"payload {sorted(keys)} (mark them optional with `?` if that is right)"
                )
        never = sorted(doc.optional - seen)
        if never:
            problems.append(f"{etype}: optional field(s) {never} never emitted")
    return problems
