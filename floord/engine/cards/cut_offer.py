"""A shuffled stack offered to the players to be cut, as the dealer's `cut` records it.

Blackjack and Spanish 21 (§ 549.6(b)-(d), § 551.5(b)-(d)) and the Baccarat family
(§ 541.5(c), (d), § 543.5(c), (d), § 545.5(b), (c)) say the same things in their own
words: the stack is offered first to one player, then to each other player around the
table until one accepts; if none accepts, the dealer cuts; the cutting card (Blackjack)
or cover card (Baccarat) goes in at least 10 cards from the top or the bottom. A
floorperson or above may require a recut (§ 549.6(f), § 551.5(f), § 54x.5(f), § 545.5(e)),
made by the person the game's paragraph names.

No device sees the offer, so the dealer's `cut` says it: `by` (player or dealer), `box`
(the accepting player's betting area or seat), `declined` (the boxes that refused, in
the order they were offered). floord checks the order against what it knows of whom the
cut is offered to first (`offer`) and the direction of play (`Order`), and the position
against the stack's size; at the load, against the shoe's own count. Each game gives its
citations as `CutRules`. War (§ 567.5(d)) checks its cover card with `size_problem`;
Pai Gow Poker (§ 561.5(d)) takes its offer from here, Mississippi Stud (§ 571.5(d)) its minimum.
Pure.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from floord.engine.core.command_checks import whole

CUT_MIN = 10  # "at least 10 cards in from the top or bottom of the stack"
CUT_ARGS = ("cards", "by", "box", "declined")
# How the other players are offered the cut after the first: "up" (Blackjack: clockwise
# is from the dealer's left to the dealer's right, box 1 first, § 549.7(e), and on around
# the table); "highest_first" (Baccarat: the offer begins with the highest numbered
# position, §§ 541.5(c), 543.5(c), 545.5(b); floord knows no seat plan, so it checks only
# that no position offered is numbered higher than the first); "any" (floord knows
# neither the first person nor the direction: only distinct positions are checked);
# "down" (Pai Gow Poker, § 561.5(d)(2): from the farthest right player, box numbers
# falling, counterclockwise: no box offered numbered higher than the one before).
Order = Literal["up", "highest_first", "any", "down"]


class CutRefused(ValueError):
    """A `cut` the rules refuse: `key` names the paragraph (the game's citation key)."""

    def __init__(self, reason: str, key: str) -> None:
        super().__init__(reason)
        self.key = key


@dataclass(frozen=True)
class CutRules:
    """A game's words for the cut: the keys of its citations and its seats."""

    positions: int  # the highest box or seat number
    order: Order
    card: str  # "cutting card" or "cover card"
    offer_key: str  # whom the cut is offered to, and in which order
    declined_key: str  # no player accepts: the dealer cuts
    cards_key: str  # at least 10 cards in from the top or the bottom
    recut_key: str


def offer(
    why: str, to: str, rule: str, box: int | None = None, after: int | None = None
) -> dict[str, Any]:
    """Whom the next cut is offered to first: `to` in words, `box` when floord knows it,
    `after` for a recut made by the next person entitled (the box that last cut)."""
    return {"why": why, "to": to, "box": box, "after": after, "rule": rule}


def size_problem(cards: object, stack: int, card: str = "cutting card") -> str | None:
    """The card at least `CUT_MIN` cards in from the top or the bottom of `stack`."""
    high = stack - CUT_MIN
    if whole(cards) and CUT_MIN <= cards <= high:
        return None
    return (
        f"cards (above the {card}) must be {CUT_MIN}..{high}: at least {CUT_MIN} in from "
        f"the top or the bottom of {stack}, found {cards!r}"
    )


def _clockwise(first: int, box: int, positions: int) -> int:
    return (box - first) % positions


def _order_problem(seq: list[int], first: dict[str, Any] | None, rules: CutRules) -> str | None:
    """Why the boxes offered, in order, break the offer of the game's paragraph."""
    designated = first.get("box") if first else None
    after = first.get("after") if first else None
    if designated is not None and seq and seq[0] != designated:
        return (
            f"the cut is offered first to {first['to'] if first else ''} (box {designated}), "
            f"found box {seq[0]} first"
        )
    if after is not None and seq and seq[0] == after:
        return f"the recut is made by the next person entitled to cut, not box {after} who last cut"
    if rules.order == "up" and seq:
        steps = [_clockwise(seq[0], b, rules.positions) for b in seq]
        if steps != sorted(steps):
            return (
                f"the cut is offered to each other player clockwise around the table, found {seq}"
            )
    if rules.order == "down" and seq != sorted(seq, reverse=True):
        return (
            f"the offer goes from the farthest right player counterclockwise, box numbers "
            f"falling, found {seq}"
        )
    if rules.order == "highest_first" and seq and max(seq) != seq[0] and designated is None:
        return (
            f"the offer begins with the player in the highest numbered position, found "
            f"{seq} (box {max(seq)} is higher than box {seq[0]})"
        )
    return None


def read_cut(
    args: dict[str, Any], stack: int, first: dict[str, Any] | None, rules: CutRules
) -> dict[str, Any]:
    """The cut the dealer records, checked; CutRefused names what is wrong and where."""
    by, box, declined = args.get("by"), args.get("box"), args.get("declined", [])
    if by not in ("player", "dealer"):
        raise CutRefused(
            f"by must be player (with box) or dealer (no player accepted), found {by!r}",
            rules.declined_key,
        )
    n = rules.positions
    if by == "player" and not (whole(box) and 1 <= box <= n):
        raise CutRefused(f"a player's cut names the player's box 1..{n}", rules.offer_key)
    if by == "dealer" and box is not None:
        raise CutRefused("the dealer's cut names no box", rules.declined_key)
    boxes_ok = isinstance(declined, list) and all(whole(b) and 1 <= b <= n for b in declined)
    seq = [*declined, box] if by == "player" and boxes_ok else list(declined) if boxes_ok else []
    if not boxes_ok or len(set(seq)) != len(seq):
        raise CutRefused(
            f"declined must list the distinct boxes 1..{n} that refused the cut, in the "
            f"order offered (not the box that cut), found {declined!r}",
            rules.offer_key,
        )
    if by == "dealer" and first is not None and first.get("box") is not None and not seq:
        raise CutRefused(
            f"the cut is offered to {first['to']} (box {first['box']}) before the dealer "
            "cuts: declined names who refused",
            rules.offer_key,
        )
    if (problem := _order_problem(seq, first, rules)) is not None:
        raise CutRefused(problem, rules.offer_key)
    if (problem := size_problem(args.get("cards"), stack, rules.card)) is not None:
        raise CutRefused(problem, rules.cards_key)
    designated = None
    if first is not None and first.get("box") is not None and by == "player":
        designated = box == first["box"]
    return {
        "cards": args["cards"],
        "by": by,
        "box": box,
        "declined": list(declined),
        "stack": stack,
        "offered_to": first,
        "designated": designated,
    }


def counted_problem(cut: dict[str, Any] | None, counted: object) -> dict[str, Any] | None:
    """A cut recorded against the table's decks, checked again against the stack the
    shoe counted at the load: the violation's data, or None."""
    if cut is None or not whole(counted) or counted == cut.get("stack"):
        return None
    assert isinstance(counted, int)
    if (problem := size_problem(cut["cards"], counted)) is None:
        return None
    return {
        "what": "cut_too_near_the_end",
        "cards": cut["cards"],
        "count": counted,
        "detail": f"the shoe counted {counted} cards: {problem}",
    }
