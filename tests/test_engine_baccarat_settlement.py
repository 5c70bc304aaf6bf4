"""Baccarat's "no more bets", settlement order and deferred vigorish.

58 Pa. Code § 543.9(b), § 545.8(c), § 545.12(b), § 545.13(f).
"""

from __future__ import annotations

import pytest
from test_engine_baccarat_support import make_table, result, violations

from floord.contract import cite

pytestmark = pytest.mark.unit

BANKER_WINS = ("2S", "7H", "4D", "KC")  # P 6 stands, B 7 stands
PLAYER_WINS = ("7S", "2H", "KD", "4C")  # P 7 stands, B 6 stands


def _table(game: str = "baccarat", **over):
    t = make_table(game, **over)
    t.ready()
    return t


def test_no_more_bets_is_on_the_record_before_the_first_card_545_8_c() -> None:
    """§ 545.8(c): "No wager at Baccarat may be made, increased or withdrawn after the
    dealer calling the game has announced ''no more bets.''" § 543.9(b) (Midibaccarat):
    "Prior to dealing any cards, the dealer calling the game shall announce ''no more
    bets.''"

    The dealer's `no_more_bets` is the record of the announcement; the first card of a
    coup dealt without it is a violation (once a coup), and the coup goes on.
    """
    t = _table()
    assert t.start(announce=False).ok
    [late] = violations(t.draw("2S"))
    assert late.data["what"] == "card_before_no_more_bets" and late.data["card"] == "2S"
    assert late.rule == cite("545.8(c)")
    assert violations(t.draws("7H", "4D", "KC")) == []
    refused = t.dealer("no_more_bets")
    assert not refused.ok and "prior to dealing any cards" in (refused.error or "")
    assert refused.rule == cite("545.8(c)")
    ended = t.end()
    assert result(ended.output)["irregularities"] == ["card_before_no_more_bets"]

    announced = t.start(announce=False)
    assert announced.ok
    assert t.dealer("no_more_bets").ok
    again = t.dealer("no_more_bets")
    assert not again.ok and "already" in (again.error or "")
    assert violations(t.draws(*BANKER_WINS)) == []
    assert result(t.end().output)["irregularities"] == []

    assert not t.dealer("no_more_bets").ok  # no coup in play

    midi = _table("midibaccarat")
    midi.start(announce=False)
    [late] = violations(midi.draw("2S"))
    assert late.rule == cite("543.9(b)") and "rule_note" not in late.data
    mini = _table("minibaccarat")
    mini.start(announce=False)
    [late] = violations(mini.draw("2S"))
    assert late.rule == cite("545.8(c)") and "chapter 541" in late.data["rule_note"]


def test_losers_are_collected_then_vigorish_then_winners_paid_545_12_b() -> None:
    """§ 545.12(b): "After the result of the round is announced, the dealer or dealers
    responsible for the wagers on the table shall first collect each losing wager. After
    the losing wagers are collected, the dealer or dealers responsible for the wagers on
    the table shall, starting at the highest numbered player position at which a winning
    wager is located, mark or collect the vigorish owed by that player, unless the table
    is designated for play as an EZ Baccarat table in which vigorish is not collected.
    Immediately thereafter, the dealer shall pay that player's winning wager and then,
    proceeding in descending order to the next highest numbered player position at which
    a winning wager is located, repeat this procedure until the vigorish owed by each
    player is either marked or collected and each winning wager is paid."
    """
    body = result(_table(vigorish_percent=4).coup(*BANKER_WINS))
    collect, vig, pay = body["settlement"]
    assert (collect["step"], collect["action"]) == (1, "collect")
    assert collect["wagers"] == [{"wager": "player"}, {"wager": "tie"}]
    assert (vig["step"], vig["action"], vig["by_position"]) == (2, "vigorish", "highest_first")
    assert vig["wagers"] == [{"wager": "banker", "percent": 4}]
    assert vig["collection"] == "at_payout"
    assert (pay["step"], pay["action"], pay["by_position"]) == (3, "pay", "highest_first")
    assert pay["wagers"] == [{"wager": "banker", "odds": "1 to 1"}]
    assert body["settlement_rule"] == cite("545.12(b)") and "settlement_note" not in body

    body = result(_table().coup(*PLAYER_WINS))  # no vigorish owed: collect, then pay
    assert [s["action"] for s in body["settlement"]] == ["collect", "pay"]
    assert body["settlement"][1]["wagers"] == [{"wager": "player", "odds": "1 to 1"}]

    ez = result(_table(ez_baccarat=True, vigorish_percent=None).coup(*BANKER_WINS))
    assert [s["action"] for s in ez["settlement"]] == ["collect", "pay"]  # EZ: no vigorish
    assert {"wager": "dragon_7_insurance"} in ez["settlement"][0]["wagers"]

    mini = result(_table("minibaccarat", dragon_bonus_table="A").coup(*BANKER_WINS))
    assert {"wager": "dragon_bonus.player"} in mini["settlement"][0]["wagers"]
    assert mini["settlement_rule"] == cite("545.12(b)")
    assert "chapter 541" in mini["settlement_note"]


def test_outstanding_vigorish_is_collected_before_a_new_shoe_545_13_f() -> None:
    """§ 545.13(f): "A dealer, in accordance with the option selected in the certificate
    holders Rules Submission under § 521.2, may collect the vigorish from a player at the
    time the winning payout is made or may defer the collection of the vigorish to a
    later time; provided, however, that outstanding vigorish shall be collected prior to
    beginning play with a new dealing shoe of cards or when the player leaves the gaming
    table, whichever occurs first."
    """
    t = _table(vigorish_collection="deferred")
    t.coup(*BANKER_WINS)
    assert t.start().ok  # the same shoe: the vigorish may stay deferred
    t.draws(*PLAYER_WINS)
    assert t.end().ok
    t.load()
    refused = t.start()
    assert not refused.ok and refused.rule == cite("545.13(f)")
    assert "vigorish_collected" in (refused.error or "")
    restored = make_table(snapshot=t.engine.snapshot(), vigorish_collection="deferred")
    assert not restored.start().ok  # a restart does not forget it
    assert t.dealer("vigorish_collected").ok
    assert t.start().ok
    assert not t.dealer("vigorish_collected").ok  # between coups only

    for over in ({}, {"vigorish_collection": "at_payout"}):  # collected with the payout
        paid = _table(**over)
        paid.coup(*BANKER_WINS)
        paid.load()
        assert paid.start().ok
    no_banker_win = _table(vigorish_collection="deferred")
    no_banker_win.coup(*PLAYER_WINS)
    no_banker_win.load()
    assert no_banker_win.start().ok
