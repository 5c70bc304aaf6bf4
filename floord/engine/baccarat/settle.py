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
        **settlement_order(rules, wagers),
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


def _flat(wagers: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(name, wager) of every wager, the Dragon Bonus on each hand as `dragon_bonus.<hand>`."""
    out: list[tuple[str, dict[str, Any]]] = []
    for name, body in wagers.items():
        if name == "dragon_bonus":
            out += [(f"dragon_bonus.{side}", w) for side, w in body.items()]
        else:
            out.append((name, body))
    return out


def settlement_order(rules: BaccaratRules, wagers: dict[str, Any]) -> dict[str, Any]:
    """The order of § 545.12(b): losing wagers collected; then, from the highest numbered
    player position with a winning wager down, that player's vigorish marked or
    collected (none at EZ Baccarat) and immediately his winning wager paid.

    Step 1 lists the losing wagers; step 2 the vigorish (only when a Banker's Hand wager
    won and vigorish is charged); step 3 the payouts. Steps 2 and 3 are taken position
    by position, highest numbered first (`by_position`), the vigorish before the payout.
    """
    flat = _flat(wagers)
    losing = [{"wager": name} for name, w in flat if w["outcome"] == "lose"]
    winning = [{"wager": name, "odds": w["odds"]} for name, w in flat if w["outcome"] == "win"]
    steps: list[dict[str, Any]] = [{"step": 1, "action": "collect", "wagers": losing}]
    banker = wagers["banker"]
    if banker["outcome"] == "win" and banker.get("vigorish_percent") is not None:
        steps.append(
            {
                "step": 2,
                "action": "vigorish",
                "wagers": [{"wager": "banker", "percent": banker["vigorish_percent"]}],
                "by_position": "highest_first",
                "collection": rules.vigorish_collection,
            }
        )
    steps.append(
        {"step": len(steps) + 1, "action": "pay", "wagers": winning, "by_position": "highest_first"}
    )
    return {"settlement": steps, "settlement_rule": rules.cite("settlement"), **_note(rules)}


def _note(rules: BaccaratRules) -> dict[str, str]:
    note = rules.note("settlement")
    return {"settlement_note": note["rule_note"]} if note else {}
