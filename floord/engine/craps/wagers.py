"""Which wagers a called roll decides (58 Pa. Code § 537.3(a), § 537.10(d)), and at what odds.

floord sees the dice, not the chips: the result names every kind of wager of § 537.3(a)
and what this roll does to it on the layout as it stands (the come out point or none):
`win` (with the odds paid, § 537.5, § 537.6), `lose`, `returned` (void: a Don't bet on a
12), `moved` (a Come or Don't Come Bet to its come point) and `inactive` (a Place Bet on
a come out roll, unless called "on"). Wagers the roll leaves standing are not named.
Each entry cites its paragraph of § 537.3(a). The Fire Bet is the shooter's book's
(`fire.py`), not a single roll's.
"""

from __future__ import annotations

from typing import Any

from floord.contract import cite
from floord.engine.craps.rules import LAY_ODDS, POINTS, TAKE_ODDS, PayTable, odds_text

HARDWAYS = {4: "537.3(a)(7)", 6: "537.3(a)(8)", 8: "537.3(a)(9)", 10: "537.3(a)(10)"}
HOPS = {
    (2, 2): "22",
    (3, 3): "23",
    (4, 4): "24",
    (5, 5): "25",
    (1, 3): "26",
    (1, 4): "27",
    (2, 3): "28",
    (1, 5): "29",
    (2, 4): "30",
    (1, 6): "31",
    (2, 5): "32",
    (3, 4): "33",
    (2, 6): "34",
    (3, 5): "35",
    (3, 6): "36",
    (4, 5): "37",
    (4, 6): "38",
}
# One-roll bets: (name, paragraph of § 537.3(a), totals that win).
ONE_ROLL = (
    ("any_seven", "12", {7}),
    ("any_craps", "13", {2, 3, 12}),
    ("craps_2", "14", {2}),
    ("craps_3", "15", {3}),
    ("craps_12", "16", {12}),
    ("eleven", "17", {11}),
)
# Composite one-roll bets paid as their parts (§ 537.5(c)-(f)): (name, paragraph of
# § 537.3(a), paragraph of § 537.5, the parts as (wager, share of the bet)). The Whirl
# Bet's four units on the Horn (§ 537.5(f)) are themselves paid as four wagers of a
# quarter each (§ 537.5(d)): one fifth of the Whirl on each of 2, 3, 11 and 12, and one
# fifth on Any Seven.
HORN_PARTS = [("craps_2", "1/4"), ("craps_3", "1/4"), ("eleven", "1/4"), ("craps_12", "1/4")]
WHIRL_PARTS = [
    ("craps_2", "1/5"),
    ("craps_3", "1/5"),
    ("eleven", "1/5"),
    ("craps_12", "1/5"),
    ("any_seven", "1/5"),
]
COMPOSITE = (
    ("c_and_e", "18", "537.5(c)", [("any_craps", "1/2"), ("eleven", "1/2")]),
    ("horn", "19", "537.5(d)", HORN_PARTS),
    ("whirl", "21", "537.5(f)", WHIRL_PARTS),
)
HORN_TOTALS = {2: "craps_2", 3: "craps_3", 11: "eleven", 12: "craps_12"}
# The Whirl's parts that are the Horn's, paid under § 537.5(d) as well as (f).
WHIRL_HORN = {"craps_2", "craps_3", "eleven", "craps_12"}


class Outcomes:
    """The result's lists, filled in the order of § 537.3(a)."""

    def __init__(self) -> None:
        self.body: dict[str, list[dict[str, Any]]] = {
            "win": [],
            "lose": [],
            "returned": [],
            "moved": [],
            "inactive": [],
        }

    def add(self, kind: str, wager: str, paragraph: str, **more: Any) -> None:
        self.body[kind].append({"wager": wager, "rule": cite(paragraph), **more})


def _line_bets(out: Outcomes, total: int, point: int | None, pays: PayTable) -> None:
    """Pass and Don't Pass (§ 537.3(a)(1), (2)); Come and Don't Come (§ 537.3(a)(3), (4))."""
    pass_p, dont_p = "537.3(a)(1)", "537.3(a)(2)"
    if point is None:
        if total in (7, 11):
            out.add("win", "pass_line", pass_p, odds=pays.of("pass_line"))
            out.add("lose", "dont_pass", dont_p)
        elif total in (2, 3):
            out.add("lose", "pass_line", pass_p)
            out.add("win", "dont_pass", dont_p, odds=pays.of("dont_pass"))
        elif total == 12:
            out.add("lose", "pass_line", pass_p)
            out.add("returned", "dont_pass", "537.3(a)(2)(iii)")
    elif total == point:
        out.add(
            "win",
            "pass_line",
            pass_p,
            odds=pays.of("pass_line"),
            odds_wager=odds_text(TAKE_ODDS[point]),
            odds_rule=cite("537.6(a)"),
        )
        out.add("lose", "dont_pass", dont_p)
    elif total == 7:
        out.add("lose", "pass_line", pass_p)
        out.add(
            "win",
            "dont_pass",
            dont_p,
            odds=pays.of("dont_pass"),
            odds_wager=odds_text(LAY_ODDS[point]),
            odds_rule=cite("537.6(b)"),
        )
    _come_points(out, total, pays)
    if point is None:
        return
    # A Come Bet is made after the come out roll: on the layout only while a point is on.
    come, dont = "537.3(a)(3)", "537.3(a)(4)"
    if total in (7, 11):
        out.add("win", "come", come, odds=pays.of("come"))
        out.add("lose", "dont_come", dont)
    elif total in (2, 3):
        out.add("lose", "come", come)
        out.add("win", "dont_come", dont, odds=pays.of("dont_come"))
    elif total == 12:
        out.add("lose", "come", come)
        out.add("returned", "dont_come", "537.3(a)(4)(iii)")
    else:
        out.add("moved", "come", come, to=f"come_{total}")
        out.add("moved", "dont_come", dont, to=f"dont_come_{total}")


def _come_points(out: Outcomes, total: int, pays: PayTable) -> None:
    """Come and Don't Come Bets already on a come point (§ 537.3(a)(3)(i)(B), (4)(i)(B))."""
    if total == 7:
        for n in POINTS:
            out.add("lose", f"come_{n}", "537.3(a)(3)(ii)(B)")
            out.add(
                "win",
                f"dont_come_{n}",
                "537.3(a)(4)(i)(B)",
                odds=pays.of("dont_come"),
                odds_wager=odds_text(LAY_ODDS[n]),
                odds_rule=cite("537.6(d)"),
            )
    elif total in POINTS:
        out.add(
            "win",
            f"come_{total}",
            "537.3(a)(3)(i)(B)",
            odds=pays.of("come"),
            odds_wager=odds_text(TAKE_ODDS[total]),
            odds_rule=cite("537.6(c)"),
        )
        out.add("lose", f"dont_come_{total}", "537.3(a)(4)(ii)(B)")


def _place_bets(
    out: Outcomes, total: int, point: int | None, pays: PayTable, lay_bets: bool
) -> None:
    """Place Bets to Win and to Lose (§ 537.3(a)(5), (6)); inactive on a come out roll
    unless called "on". A Lay Bet (§ 537.5a(b)) is decided as the Place Bet to Lose."""
    if point is None and (total == 7 or total in POINTS):
        for n in POINTS:
            out.add("inactive", f"place_win_{n}", "537.3(a)(5)")
            out.add("inactive", f"place_lose_{n}", "537.3(a)(6)")
        return
    if total == 7:
        for n in POINTS:
            out.add("lose", f"place_win_{n}", "537.3(a)(5)(ii)")
            out.add("win", f"place_lose_{n}", "537.3(a)(6)(i)", odds=pays.of(f"place_lose_{n}"))
            if lay_bets:
                out.add(
                    "win", f"lay_{n}", "537.5a(b)", odds="true odds (pay table not in the seeds)"
                )
    elif total in POINTS:
        out.add("win", f"place_win_{total}", "537.3(a)(5)(i)", odds=pays.of(f"place_win_{total}"))
        out.add("lose", f"place_lose_{total}", "537.3(a)(6)(ii)")
        if lay_bets:
            out.add("lose", f"lay_{total}", "537.5a(b)")


def _hardways(out: Outcomes, d1: int, d2: int, pays: PayTable) -> None:
    """§ 537.3(a)(7)-(10): the hard number wins; the easy number or any 7 loses."""
    total = d1 + d2
    for n, paragraph in HARDWAYS.items():
        if total == 7 or (total == n and d1 != d2):
            out.add("lose", f"hard_{n}", f"{paragraph}(ii)")
        elif total == n:
            out.add("win", f"hard_{n}", f"{paragraph}(i)", odds=pays.of(f"hard_{n}"))


def _one_roll(out: Outcomes, d1: int, d2: int, pays: PayTable) -> None:
    """The one-roll bets of § 537.3(a)(11)-(39)."""
    total = d1 + d2
    if total in (2, 3, 4, 9, 10, 11, 12):
        key = "field_2_or_12" if total in (2, 12) else "field"
        out.add("win", "field", "537.3(a)(11)(i)", odds=pays.of(key))
    else:
        out.add("lose", "field", "537.3(a)(11)(ii)")
    for name, paragraph, wins in ONE_ROLL:
        if total in wins:
            out.add("win", name, f"537.3(a)({paragraph})(i)", odds=pays.of(name))
        else:
            out.add("lose", name, f"537.3(a)({paragraph})(ii)")
    winners = {"any_craps"} if total in (2, 3, 12) else set()
    winners |= {HORN_TOTALS[total]} if total in HORN_TOTALS else set()
    winners |= {"any_seven"} if total == 7 else set()
    for name, paragraph, paid_as, parts in COMPOSITE:
        won = [p for p in parts if p[0] in winners]
        if not won:
            out.add("lose", name, f"537.3(a)({paragraph})(ii)")
            continue
        paid = [
            {
                "part": p,
                "share": share,
                "odds": pays.of(p),
                **(
                    {"via": "horn", "via_rule": cite("537.5(d)")}
                    if name == "whirl" and p in WHIRL_HORN
                    else {}
                ),
            }
            for p, share in won
        ]
        lost = [{"part": p, "share": share} for p, share in parts if p not in winners]
        out.add(
            "win",
            name,
            f"537.3(a)({paragraph})(i)",
            paid_as=paid,
            lost_as=lost,
            paid_rule=cite(paid_as),
        )
    pair = (min(d1, d2), max(d1, d2))
    for dice, paragraph in HOPS.items():
        name = f"hop_{dice[0]}_{dice[1]}"
        if dice == pair:
            out.add("win", name, f"537.3(a)({paragraph})(i)", odds=pays.of(name))
        else:
            out.add("lose", name, f"537.3(a)({paragraph})(ii)")
    if total in (6, 7, 8):
        key = "six_seven_eight_pair" if total != 7 and d1 == d2 else "six_seven_eight"
        out.add("win", "six_seven_eight", "537.3(a)(39)(i)", odds=pays.of(key))
    else:
        out.add("lose", "six_seven_eight", "537.3(a)(39)(ii)")


def resolve(
    d1: int, d2: int, point: int | None, pays: PayTable, lay_bets: bool = False
) -> dict[str, list[dict[str, Any]]]:
    """What the roll of faces `d1`, `d2` decides with `point` (None: a come out roll)."""
    out = Outcomes()
    total = d1 + d2
    _line_bets(out, total, point, pays)
    _place_bets(out, total, point, pays, lay_bets)
    _hardways(out, d1, d2, pays)
    _one_roll(out, d1, d2, pays)
    return out.body
