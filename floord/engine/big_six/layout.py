"""The Big Six wheel's layout: 54 sections, their pay classes and the odds they pay.

58 Pa. Code § 533.1(a) fixes how many sections of each kind a wheel has, § 533.1(b) their
clockwise order (section index 0 is the joker, index i + 1 lies clockwise of index i),
§ 533.1(c) lets approved themed symbols stand in for the dollar symbols, and § 533.3(a)
the minimum odds of each kind. A table's layout is configuration, so it is checked here,
once, with every problem named: `floord check` and the engine use the same check.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from floord.contract import cite

SECTIONS = 54  # § 533.1(a)
# The pay classes of § 533.1(a), with the minimum odds "to 1" of § 533.3(a).
PAY_ODDS: dict[str, int] = {
    "$1": 1,
    "$2": 2,
    "$5": 5,
    "$10": 10,
    "$20": 20,
    "flag": 45,
    "joker": 45,
}
CLASS_COUNTS: dict[str, int] = {
    "$1": 23,
    "$2": 15,
    "$5": 8,
    "$10": 4,
    "$20": 2,
    "flag": 1,
    "joker": 1,
}
# § 533.1(b), clockwise from the joker; "flag" is the flag, name or logo.
_ORDER_TEXT = (
    "joker $1 $2 $1 $5 $2 $1 $10 $1 $5 $1 $2 $1 $20 $1 $2 $1 $5 $2 $1 $10 $1 $2 $5 $1 $2 $1 "
    "flag $2 $5 $2 $1 $2 $1 $10 $1 $5 $1 $2 $1 $20 $1 $2 $1 $5 $2 $1 $10 $1 $2 $5 $1 $2 $1"
)
ORDER_533_1_B: tuple[str, ...] = tuple(_ORDER_TEXT.split(" "))
MAX_SYMBOL_LENGTH = 32


@dataclass(frozen=True)
class Section:
    """One section of the wheel: its clockwise index, the symbol shown and its pay class."""

    index: int
    symbol: str
    pay_class: str

    @property
    def odds(self) -> int:
        return PAY_ODDS[self.pay_class]


@dataclass(frozen=True)
class BigSixLayout:
    """A checked layout: the wheel's 54 sections and the symbol of each pay class."""

    sections: tuple[Section, ...]
    symbols: dict[str, str]  # symbol -> pay class

    def section(self, index: int) -> Section:
        return self.sections[index]

    def symbol_of(self, pay_class: str) -> str:
        return next(s for s, c in self.symbols.items() if c == pay_class)


def read_layout(layout: list[str] | None, symbols: dict[str, str] | None) -> BigSixLayout:
    """Check a configured layout; a ValueError lists every problem with its citation.

    `layout` is the 54 symbols clockwise from the joker (default: § 533.1(b)); `symbols`
    maps each themed symbol (§ 533.1(c)) to the pay class it stands for. A pay class is
    shown by one symbol only, since the layout has one wager space per symbol
    (§ 533.1(g)(2)); a symbol not in `symbols` must be a pay class's own name.
    """
    wheel = list(ORDER_533_1_B) if layout is None else list(layout)
    mapping = dict(symbols or {})
    problems: list[str] = []
    for symbol, pay_class in mapping.items():
        if pay_class not in PAY_ODDS:
            problems.append(
                f"symbols.{symbol}: one of {', '.join(PAY_ODDS)} expected "
                f"({cite('533.1(c)')}), found {pay_class!r}"
            )
        if symbol in PAY_ODDS and symbol != pay_class:
            problems.append(
                f"symbols.{symbol}: a pay class's own name cannot stand for {pay_class!r}"
            )
    bad = [
        s for s in wheel if not isinstance(s, str) or not s.strip() or len(s) > MAX_SYMBOL_LENGTH
    ]
    if bad:
        problems.append(
            f"layout: symbols of 1 to {MAX_SYMBOL_LENGTH} characters expected, found {bad!r}"
        )
    if len(wheel) != SECTIONS:
        problems.append(
            f"layout: {SECTIONS} sections expected ({cite('533.1(a)')}), found {len(wheel)}"
        )
    if problems:
        raise ValueError("; ".join(problems))
    unknown = sorted({s for s in wheel if s not in mapping and s not in PAY_ODDS})
    if unknown:
        raise ValueError(
            f"layout: symbols that are pay classes ({', '.join(PAY_ODDS)}) or mapped in "
            f"symbols ({cite('533.1(c)')}) expected, found {unknown}"
        )
    classes = [mapping.get(s, s) for s in wheel]
    counts = Counter(classes)
    for pay_class, wanted in CLASS_COUNTS.items():
        if counts[pay_class] != wanted:
            problems.append(
                f"layout: {wanted} section(s) of {pay_class} expected ({cite('533.1(a)')}), "
                f"found {counts[pay_class]}"
            )
    if not problems:
        wrong = [
            i
            for i, (got, want) in enumerate(zip(classes, ORDER_533_1_B, strict=True))
            if got != want
        ]
        if wrong:
            i = wrong[0]
            problems.append(
                f"layout: the clockwise order of {cite('533.1(b)')} from the joker expected; "
                f"section {i} is {wheel[i]!r} ({classes[i]}), {ORDER_533_1_B[i]} expected"
            )
    shown: dict[str, set[str]] = {}
    for symbol, pay_class in zip(wheel, classes, strict=True):
        shown.setdefault(pay_class, set()).add(symbol)
    for pay_class, names in sorted(shown.items()):
        if len(names) > 1:
            problems.append(
                f"layout: one symbol per pay class expected (one wager space each, "
                f"{cite('533.1(g)(2)')}), found {pay_class} shown as {sorted(names)}"
            )
    unused = sorted(set(mapping) - set(wheel))
    if unused:
        problems.append(
            f"symbols: every mapped symbol on the wheel expected, found unused {unused}"
        )
    if problems:
        raise ValueError("; ".join(problems))
    sections = tuple(Section(i, s, c) for i, (s, c) in enumerate(zip(wheel, classes, strict=True)))
    return BigSixLayout(sections, {s: c for c, names in shown.items() for s in names})
