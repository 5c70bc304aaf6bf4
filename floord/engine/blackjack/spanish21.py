"""Spanish 21's additional payouts: the Rules Submission's pay table, and who may have one.

Chapter 551 pays "additional payouts" under § 551.6(g) and (h), which floord's sources
(40 Pa.B. 2959) do not contain: the paragraphs that name the hands and their odds are
not in the seeds, so floord takes them from the table's Rules Submission
(`rules.spanish21_payouts`, checked by `floord check`) and cites the paragraph each entry
says it stands on. What the seeds do say is who is not eligible:

- § 551.2(g)(1): the sign explains "That doubled down hands are not eligible for the
  additional payouts in § 551.6(g) and (h)."
- § 551.12(e): "The additional payouts provided in § 551.6(h) (relating to wagers; payout
  odds) are not applicable to a winning wager on a split hand."

An entry describes a winning hand of 21: its number of cards (`cards` exactly, or
`min_cards` at least), and/or its ranks (`ranks`, in any order) and suits (`suits`:
`any`, `mixed` (not all one suit), `same` (one suit) or `spades`). The first entry a
hand matches is its additional payout, so the Rules Submission lists the best first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from floord.contract import cite

PARAGRAPHS = ("551.6(g)", "551.6(h)")
SUIT_RULES = ("any", "mixed", "same", "spades")
RANK_NAMES = "A23456789JQK"  # no tens in a Spanish 21 deck (§ 551.3(a))
FIELDS = ("name", "paragraph", "odds", "cards", "min_cards", "ranks", "suits")
_ODDS = re.compile(r"^[1-9][0-9]* to [1-9][0-9]*$")


@dataclass(frozen=True)
class Payout:
    """One entry of the pay table."""

    name: str
    paragraph: str
    odds: str
    cards: int | None = None
    min_cards: int | None = None
    ranks: tuple[str, ...] | None = None
    suits: str = "any"

    def matches(self, cards: list[str]) -> bool:
        if self.cards is not None and len(cards) != self.cards:
            return False
        if self.min_cards is not None and len(cards) < self.min_cards:
            return False
        if self.ranks is not None and sorted(c[0] for c in cards) != sorted(self.ranks):
            return False
        suits = {c[1] for c in cards}
        if self.suits == "same":
            return len(suits) == 1
        if self.suits == "spades":
            return suits == {"S"}
        if self.suits == "mixed":
            return len(suits) > 1
        return True


def pay_table_problems(game: str, raw: Any) -> list[tuple[str, str]]:
    """(key under `spanish21_payouts`, what was expected and found) for each problem."""
    if raw is None:
        return []
    if game != "spanish21":
        return [("", f"only on a Spanish 21 table (§ 551.6) expected, found game {game!r}")]
    if not isinstance(raw, list):
        return [("", f"a list of payouts expected, found {type(raw).__name__}")]
    problems: list[tuple[str, str]] = []
    names: set[str] = set()
    for i, entry in enumerate(raw):
        if not isinstance(entry, dict):
            problems.append((f".{i}", f"a mapping expected, found {type(entry).__name__}"))
            continue
        problems += [
            (f".{i}.{k}", "a known key expected (unknown key)")
            for k in sorted(map(str, set(entry) - set(FIELDS)))
        ]
        problems += [(f".{i}{key}", said) for key, said in _entry_problems(entry)]
        name = entry.get("name")
        if isinstance(name, str) and name in names:
            problems.append((f".{i}.name", f"a unique name expected, found {name!r} twice"))
        names.add(str(name))
    return problems


def _entry_problems(entry: dict[str, Any]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    name = entry.get("name")
    if not isinstance(name, str) or not re.fullmatch(r"[a-z0-9_]{1,40}", name):
        out.append((".name", f"a name of a-z, 0-9 and _ expected, found {name!r}"))
    if entry.get("paragraph") not in PARAGRAPHS:
        out.append(
            (".paragraph", f"'551.6(g)' or '551.6(h)' expected, found {entry.get('paragraph')!r}")
        )
    odds = entry.get("odds")
    if not isinstance(odds, str) or not _ODDS.match(odds):
        out.append((".odds", f"odds such as '3 to 2' expected, found {odds!r}"))
    for key in ("cards", "min_cards"):
        value = entry.get(key)
        if value is not None and (type(value) is not int or not 2 <= value <= 21):
            out.append((f".{key}", f"a number of cards from 2 to 21 expected, found {value!r}"))
    ranks = entry.get("ranks")
    if ranks is not None and (
        not isinstance(ranks, list)
        or not ranks
        or not all(isinstance(r, str) and len(r) == 1 and r in RANK_NAMES for r in ranks)
    ):
        out.append(
            (".ranks", f"a list of ranks of {', '.join(RANK_NAMES)} expected, found {ranks!r}")
        )
    if entry.get("suits", "any") not in SUIT_RULES:
        out.append(
            (".suits", f"one of {', '.join(SUIT_RULES)} expected, found {entry.get('suits')!r}")
        )
    if all(entry.get(k) is None for k in ("cards", "min_cards", "ranks")):
        out.append(
            ("", "cards, min_cards or ranks expected (which hands of 21 it pays), found none")
        )
    return out


def read_pay_table(game: str, raw: Any) -> tuple[Payout, ...]:
    """The validated pay table; ValueError naming the first problem."""
    problems = pay_table_problems(game, raw)
    if problems:
        key, said = problems[0]
        raise ValueError(f"spanish21_payouts{key}: {said}")
    return tuple(
        Payout(
            name=e["name"],
            paragraph=e["paragraph"],
            odds=e["odds"],
            cards=e.get("cards"),
            min_cards=e.get("min_cards"),
            ranks=tuple(e["ranks"]) if e.get("ranks") is not None else None,
            suits=e.get("suits", "any"),
        )
        for e in raw or ()
    )


def additional_payout(
    table: tuple[Payout, ...], hand: dict[str, Any], total: int, outcome: str
) -> dict[str, Any]:
    """`{"additional_payout": ...}` for a winning hand of 21 the pay table names, or
    `{"additional_payout_refused": ...}` when the hand is not eligible; else {}."""
    if outcome != "win" or total != 21:
        return {}
    entry = next((p for p in table if p.matches(hand["cards"])), None)
    if entry is None:
        return {}
    body = {"name": entry.name, "odds": entry.odds, "rule": cite(entry.paragraph)}
    if hand["doubled"]:
        return {
            "additional_payout_refused": {
                **body,
                "why": "a doubled down hand",
                "refused_rule": cite("551.2(g)(1)"),
            }
        }
    if hand["from_split"] and entry.paragraph == "551.6(h)":
        return {
            "additional_payout_refused": {
                **body,
                "why": "a split hand",
                "refused_rule": cite("551.12(e)"),
            }
        }
    return {"additional_payout": body}
