"""Sequence bookkeeping of one event stream: what is new, what fills a gap, what is a copy.

floord numbers each stream 1, 2, 3, ... and delivers at least once, so a subscriber must
drop a `seq` it already has and notice one that never came. A console joins a stream in
the middle, so the first `seq` it sees is its baseline: nothing before it is missing.
Missing numbers are kept as ranges, so a long outage costs two integers, not millions.
"""

from __future__ import annotations

from dataclasses import dataclass, field

NEW = "new"
FILL = "fill"
DUPLICATE = "duplicate"


@dataclass(frozen=True)
class Seen:
    """What one `seq` was: `new` (may open `gap`), `fill` (closes a hole) or `duplicate`."""

    kind: str
    gap: tuple[int, int] | None = None


@dataclass
class SeqTracker:
    """The highest `seq` seen on a stream and the ranges below it that never arrived."""

    high: int | None = None
    missing: list[tuple[int, int]] = field(default_factory=list)

    def accept(self, seq: int) -> Seen:
        if isinstance(seq, bool) or not isinstance(seq, int) or seq < 1:
            raise ValueError(f"seq must be a positive integer, found {seq!r}")
        if self.high is None:
            self.high = seq
            return Seen(NEW)
        if seq > self.high:
            gap = (self.high + 1, seq - 1) if seq > self.high + 1 else None
            if gap is not None:
                self.missing.append(gap)
            self.high = seq
            return Seen(NEW, gap)
        for index, (lo, hi) in enumerate(self.missing):
            if lo <= seq <= hi:
                pieces = [(a, b) for a, b in ((lo, seq - 1), (seq + 1, hi)) if a <= b]
                self.missing[index : index + 1] = pieces
                return Seen(FILL)
        return Seen(DUPLICATE)

    def restart(self, after: int) -> None:
        """The stream goes on after `after` (its journal was restored from a backup): the
        seqs seen past it belong to the replaced record, so the next ones are new; the
        gaps up to it stay."""
        self.high = after
        self.missing = [(lo, min(hi, after)) for lo, hi in self.missing if lo <= after]

    @property
    def complete(self) -> bool:
        return not self.missing

    def missing_count(self) -> int:
        return sum(hi - lo + 1 for lo, hi in self.missing)

    def describe(self) -> str:
        """`5..7, 12` : the missing numbers, for a person."""
        return ", ".join(str(lo) if lo == hi else f"{lo}..{hi}" for lo, hi in self.missing)
