"""The Roulette wheel and layout as data: pocket orders, colours and the wagers on offer.

Everything here is a fact of 58 Pa. Code chapter 531, written once so that the engine,
the tests and `docs/rules.md` read the same table:

- the clockwise pocket orders of § 531.1(b) (single zero) and § 531.1(c) (double zero);
- the colours: zeros green, 1 to 36 red or black, alternating around both wheels;
- every wager of § 531.4(e) that a layout offers, with the minimum payout odds of
  § 531.5(a); the wagers a number wins are simply the offered wagers holding it, so
  the even-money losses on 0 and 00 (§ 531.5(b), § 531.5(c)(3)) follow from the data.

The layout's geometry (§ 531.1(e) leaves the layout to the Bureau's approval) is the
usual one: numbers in twelve rows of three (row r holds 3r-2, 3r-1, 3r), columns
running down the table. On a single-zero layout the 0 box borders 1, 2 and 3; on a
double-zero layout the 0 box borders 1 and 2, the 00 box borders 2 and 3, and 0 borders
00. Three-number wagers with a zero are only the groups § 531.4(e)(3)(i) names (0-1-2,
0-2-00, 00-2-3) and four-number wagers only corners of the 1-36 grid, because those are
the wagers the regulation lists. A double-zero wheel used as a single-zero wheel
(§ 531.1(d)) has its 00 box covered: no wager holds 00 there.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from floord.contract import cite
from floord.engine.core.copies import Fixed

WHEEL_KINDS: tuple[str, ...] = ("single_zero", "double_zero", "double_zero_as_single")

# § 531.1(b), § 531.1(c): the pockets clockwise from 0, as the paragraphs list them.
_SINGLE_ZERO_TEXT = (
    "0 32 15 19 4 21 2 25 17 34 6 27 13 36 11 30 8 23 10 5 24 16 33 1 20 14 31 9 22 18 29 7 "
    "28 12 35 3 26"
)
_DOUBLE_ZERO_TEXT = (
    "0 28 9 26 30 11 7 20 32 17 5 22 34 15 3 24 36 13 1 00 27 10 25 29 12 8 19 31 18 6 21 "
    "33 16 4 23 35 14 2"
)
SINGLE_ZERO_ORDER: tuple[str, ...] = tuple(_SINGLE_ZERO_TEXT.split(" "))
DOUBLE_ZERO_ORDER: tuple[str, ...] = tuple(_DOUBLE_ZERO_TEXT.split(" "))

RED: frozenset[int] = frozenset({1, 3, 5, 7, 9, 12, 14, 16, 18, 19, 21, 23, 25, 27, 30, 32, 34, 36})
ZEROS: frozenset[str] = frozenset({"0", "00"})
EVEN_MONEY_WAGERS: tuple[str, ...] = ("red", "black", "odd", "even", "1-18", "19-36")

# § 531.5(a): the minimum payout odds of each wager.
ODDS: dict[str, str] = {
    "straight": "35 to 1",
    "split": "17 to 1",
    "three_numbers": "11 to 1",
    "four_numbers": "8 to 1",
    "first_five": "6 to 1",
    "six_numbers": "5 to 1",
    "column": "2 to 1",
    "dozen": "2 to 1",
    "red": "1 to 1",
    "black": "1 to 1",
    "odd": "1 to 1",
    "even": "1 to 1",
    "1-18": "1 to 1",
    "19-36": "1 to 1",
}

# § 531.4(e): the paragraph that defines each wager.
WAGER_SECTION: dict[str, str] = {
    "straight": "531.4(e)(1)",
    "split": "531.4(e)(2)",
    "three_numbers": "531.4(e)(3)",
    "four_numbers": "531.4(e)(4)",
    "first_five": "531.4(e)(5)",
    "six_numbers": "531.4(e)(6)",
    "column": "531.4(e)(7)",
    "dozen": "531.4(e)(8)",
    "red": "531.4(e)(9)",
    "black": "531.4(e)(10)",
    "odd": "531.4(e)(11)",
    "even": "531.4(e)(12)",
    "1-18": "531.4(e)(13)",
    "19-36": "531.4(e)(14)",
}
ZERO_GROUP_SECTION = "531.4(e)(3)(i)"


@dataclass(frozen=True)
class WheelSpec(Fixed):
    """One wheel kind: its pockets in clockwise order and the rules that govern it."""

    kind: str
    order: tuple[str, ...]
    layout_section: str  # the § 531.1 paragraph the wheel must satisfy
    even_money_section: str  # the paragraph under which 0 (and 00) lose even money
    zeros_offered: tuple[str, ...]  # the zeros a player may wager on

    @property
    def pockets(self) -> int:
        return len(self.order)

    @property
    def double_zero(self) -> bool:
        return "00" in self.order

    def identity_problem(self, identity: dict[str, Any]) -> str | None:
        """Why a wheel that identifies with `identity` cannot be this kind's wheel (its
        pocket count, § 531.1(b)-(d)); None when it can."""
        pockets = identity.get("pockets")
        if isinstance(pockets, int) and not isinstance(pockets, bool):
            if pockets == self.pockets:
                return None
            found = f"{pockets} pockets"
        else:
            found = f"no pocket count ({pockets!r})"
        return (
            f"the wheel reports {found}; a {self.kind} table needs a wheel of "
            f"{self.pockets} pockets ({cite(self.layout_section)})"
        )


_SPECS: dict[str, WheelSpec] = {
    "single_zero": WheelSpec("single_zero", SINGLE_ZERO_ORDER, "531.1(b)", "531.5(b)", ("0",)),
    "double_zero": WheelSpec("double_zero", DOUBLE_ZERO_ORDER, "531.1(c)", "531.5(b)", ("0", "00")),
    "double_zero_as_single": WheelSpec(
        "double_zero_as_single", DOUBLE_ZERO_ORDER, "531.1(d)", "531.5(c)(3)", ("0",)
    ),
}


def wheel_spec(kind: str) -> WheelSpec:
    """The spec of a wheel kind; an unknown kind is a clear error."""
    try:
        return _SPECS[kind]
    except KeyError:
        raise ValueError(
            f"unknown wheel kind {kind!r}: one of {', '.join(WHEEL_KINDS)} expected"
        ) from None


def colour(number: str) -> str:
    """`green` for 0 and 00, else `red` or `black` as on the wheel's ring."""
    if number in ZEROS:
        return "green"
    return "red" if int(number) in RED else "black"


def pocket_index(kind: str, number: str) -> int:
    """The clockwise position of `number` on the wheel, 0 being the zero pocket."""
    return wheel_spec(kind).order.index(number)


def on_wheel(kind: str, number: object) -> bool:
    """Whether the wheel has a pocket marked `number` (a string such as "00" or "17")."""
    return isinstance(number, str) and number in wheel_spec(kind).order


def _sort_key(number: str) -> int:
    """Layout order: 0, then 00, then 1 to 36."""
    if number == "0":
        return -2
    if number == "00":
        return -1
    return int(number)


@dataclass(frozen=True)
class Wager:
    """One wager position on the layout: its kind, the numbers it covers, its odds."""

    name: str
    numbers: tuple[str, ...]
    section: str

    @property
    def odds(self) -> str:
        return ODDS[self.name]

    def to_dict(self) -> dict[str, Any]:
        return {
            "wager": self.name,
            "numbers": list(self.numbers),
            "odds": self.odds,
            "rule": cite(self.section),
        }


def _wager(name: str, numbers: list[int | str], section: str | None = None) -> Wager:
    texts = sorted((str(n) for n in numbers), key=_sort_key)
    return Wager(name, tuple(texts), section or WAGER_SECTION[name])


def _grid_wagers() -> list[Wager]:
    """Wagers on the 1-36 grid, the same on every layout."""
    wagers: list[Wager] = [_wager("straight", [n]) for n in range(1, 37)]
    for n in range(1, 37):
        if n % 3 != 0:
            wagers.append(_wager("split", [n, n + 1]))
        if n <= 33:
            wagers.append(_wager("split", [n, n + 3]))
    for row in range(1, 13):
        wagers.append(_wager("three_numbers", [3 * row - 2, 3 * row - 1, 3 * row]))
    for n in range(1, 33):
        if n % 3 != 0:
            wagers.append(_wager("four_numbers", [n, n + 1, n + 3, n + 4]))
    for row in range(1, 12):
        first = 3 * row - 2
        wagers.append(_wager("six_numbers", list(range(first, first + 6))))
    for col in range(1, 4):
        wagers.append(_wager("column", list(range(col, 37, 3))))
    for dozen in range(3):
        wagers.append(_wager("dozen", list(range(12 * dozen + 1, 12 * dozen + 13))))
    numbers = range(1, 37)
    wagers.append(_wager("red", [n for n in numbers if n in RED]))
    wagers.append(_wager("black", [n for n in numbers if n not in RED]))
    wagers.append(_wager("odd", [n for n in numbers if n % 2]))
    wagers.append(_wager("even", [n for n in numbers if not n % 2]))
    wagers.append(_wager("1-18", list(range(1, 19))))
    wagers.append(_wager("19-36", list(range(19, 37))))
    return wagers


def _zero_wagers(kind: str) -> list[Wager]:
    """Wagers that hold a zero; they differ between the single- and double-zero layouts."""
    if kind == "single_zero":
        return [
            _wager("straight", ["0"]),
            _wager("split", ["0", 1]),
            _wager("split", ["0", 2]),
            _wager("split", ["0", 3]),
            _wager("three_numbers", ["0", 1, 2], ZERO_GROUP_SECTION),
        ]
    zero_only = [
        _wager("straight", ["0"]),
        _wager("split", ["0", 1]),
        _wager("split", ["0", 2]),
        _wager("three_numbers", ["0", 1, 2], ZERO_GROUP_SECTION),
    ]
    if kind == "double_zero_as_single":
        return zero_only  # § 531.1(d)(1): the 00 box is covered
    return [
        *zero_only,
        _wager("straight", ["00"]),
        _wager("split", ["0", "00"]),
        _wager("split", ["00", 2]),
        _wager("split", ["00", 3]),
        _wager("three_numbers", ["0", 2, "00"], ZERO_GROUP_SECTION),
        _wager("three_numbers", ["00", 2, 3], ZERO_GROUP_SECTION),
        _wager("first_five", ["0", "00", 1, 2, 3]),
    ]


_ORDER_OF_KINDS = {name: i for i, name in enumerate(ODDS)}


@cache
def offered_wagers(kind: str) -> tuple[Wager, ...]:
    """Every wager position on the layout of a wheel kind, in § 531.4(e) order."""
    wheel_spec(kind)
    wagers = [*_zero_wagers(kind), *_grid_wagers()]
    wagers.sort(key=lambda w: (_ORDER_OF_KINDS[w.name], [_sort_key(n) for n in w.numbers]))
    return tuple(wagers)


def winning_wagers(kind: str, number: str) -> list[Wager]:
    """The wagers that win when the ball rests in `number`: the offered ones holding it."""
    if not on_wheel(kind, number):
        raise ValueError(f"{number!r} is not a pocket of a {kind} wheel")
    return [w for w in offered_wagers(kind) if number in w.numbers]


def loses_even_money(number: str) -> bool:
    """§ 531.5(b) and (c)(3): red, black, odd, even, 1-18 and 19-36 lose on 0 and 00."""
    return number in ZEROS


def settlement_order(kind: str, winning: int) -> dict[str, Any]:
    """The order of settlement after the point marker is placed (§ 531.6(d)).

    "After placing the point marker on the layout, the dealer shall first collect all
    losing wagers and then pay off all winning wagers." The winners are listed in the
    result's `winning_wagers`; the losers are every other wager position of the layout,
    counted here rather than listed (some 140 positions a spin).
    """
    return {
        "settlement": [
            {
                "step": 1,
                "action": "collect",
                "of": "losing_wagers",
                "count": len(offered_wagers(kind)) - winning,
            },
            {"step": 2, "action": "pay", "of": "winning_wagers", "count": winning},
        ],
        "settlement_rule": cite("531.6(d)"),
    }
