"""The result of a coup and what each wager does: §§ 545.8, 545.12(a), 545.13, 541.13(d).

- Banker's Hand wager: wins on a higher count, 1 to 1 less the vigorish of the Rules
  Submission (4 % or 5 %, § 545.13(c)); on an EZ Baccarat table no vigorish, and a
  Dragon 7 makes it tie and be returned (§ 545.8(a)(1)(i), (iii));
- Player's Hand wager: 1 to 1 (§ 545.13(a)); both hand wagers tie on equal counts;
- Tie Wager: wins on equal counts, at least 8 to 1 (§ 545.13(b));
- Dragon 7 Insurance (EZ Baccarat only): wins on a Dragon 7, 40 to 1 (§ 545.13(d));
- Dragon Bonus (Minibaccarat, § 541.13(d)), on each hand: a natural winner 1 to 1, a
  natural tie a push, a non-natural win by 4 to 9 points at the odds of table A, B or
  C; anything else loses.
"""

from __future__ import annotations

from typing import Any

from floord.engine.baccarat.rules import BaccaratRules
from floord.engine.baccarat.tableau import BANKER, PLAYER, is_dragon_7, is_natural, point_count

# Win by N points -> odds "to 1", per table (§ 541.13(d)).
DRAGON_BONUS_ODDS: dict[str, dict[int, int]] = {
    "A": {9: 30, 8: 10, 7: 6, 6: 4, 5: 2, 4: 1},
    "B": {9: 20, 8: 8, 7: 7, 6: 4, 5: 3, 4: 1},
    "C": {9: 30, 8: 10, 7: 4, 6: 4, 5: 2, 4: 2},
}


def hand_body(cards: list[str]) -> dict[str, Any]:
    return {"cards": list(cards), "total": point_count(cards), "natural": is_natural(cards)}


def _wager(rules: BaccaratRules, outcome: str, key: str, odds: str | None) -> dict[str, Any]:
    return {
        "outcome": outcome,
        "odds": odds if outcome == "win" else None,
        "rule": rules.cite(key),
    }


def settle(rules: BaccaratRules, player: list[str], banker: list[str]) -> dict[str, Any]:
    """The `baccarat.result` body of a complete coup."""
    p, b = point_count(player), point_count(banker)
    winner = PLAYER if p > b else BANKER if b > p else "tie"
    dragon_7 = rules.ez_baccarat and is_dragon_7(player, banker)
    # § 545.8(a)(1)(iii): on an EZ table a Dragon 7 makes the Banker's wager tie.
    banker_outcome = "push" if dragon_7 else {BANKER: "win", PLAYER: "lose", "tie": "push"}[winner]
    player_outcome = {PLAYER: "win", BANKER: "lose", "tie": "push"}[winner]
    banker_wager = _wager(rules, banker_outcome, "dragon_7" if dragon_7 else "wagers", "1 to 1")
    banker_wager["vigorish_percent"] = (
        rules.vigorish_percent if banker_outcome == "win" and not rules.ez_baccarat else None
    )
    banker_wager["vigorish_rule"] = rules.cite("vigorish")
    wagers: dict[str, Any] = {
        "banker": banker_wager,
        "player": _wager(rules, player_outcome, "player_pays", "1 to 1"),
        "tie": _wager(
            rules, "win" if winner == "tie" else "lose", "tie_pays", f"{rules.tie_pays} to 1"
        ),
    }
    if rules.ez_baccarat:
        wagers["dragon_7_insurance"] = _wager(
            rules, "win" if dragon_7 else "lose", "dragon_7_insurance", "40 to 1"
        )
    if rules.dragon_bonus_table is not None:
        wagers["dragon_bonus"] = {
            side: dragon_bonus(rules, side, player, banker) for side in (PLAYER, BANKER)
        }
    if dragon_7:
        announcement = "Dragon 7"
    elif winner == "tie":
        announcement = "tie hand"
    else:
        announcement = f"{winner.capitalize()} wins, {max(p, b)} over {min(p, b)}"
    return {
        "winner": winner,
        "player": hand_body(player),
        "banker": hand_body(banker),
        "margin": abs(p - b),
        "natural": is_natural(player) or is_natural(banker),
        "dragon_7": dragon_7,
        "announcement": announcement,
        "announcement_rule": rules.cite("announce"),
        "ez_baccarat": rules.ez_baccarat,
        "vigorish_percent": rules.vigorish_percent,
        "wagers": wagers,
    }


def dragon_bonus(
    rules: BaccaratRules, side: str, player: list[str], banker: list[str]
) -> dict[str, Any]:
    """A Dragon Bonus Wager on `side` (§ 541.13(d)); never charged vigorish."""
    table = rules.dragon_bonus_table
    assert table is not None
    mine, other = (player, banker) if side == PLAYER else (banker, player)
    margin = point_count(mine) - point_count(other)
    body: dict[str, Any] = {"table": table, "margin": margin, "rule": rules.cite("dragon_bonus")}
    if margin == 0:
        push = is_natural(mine) and is_natural(other)
        return {
            **body,
            "outcome": "push" if push else "lose",
            "odds": None,
            "why": "natural tie" if push else "tie without naturals",
        }
    if margin < 0:
        return {**body, "outcome": "lose", "odds": None, "why": "the hand lost"}
    if is_natural(mine):
        return {**body, "outcome": "win", "odds": "1 to 1", "why": "natural winner"}
    odds = DRAGON_BONUS_ODDS[table].get(margin)
    if odds is None:
        return {**body, "outcome": "lose", "odds": None, "why": f"won by {margin}, under 4"}
    return {**body, "outcome": "win", "odds": f"{odds} to 1", "why": f"won by {margin} points"}
