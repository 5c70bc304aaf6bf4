"""What a called roll decides (58 Pa. Code § 537.3(a)) and at what odds (§ 537.5, § 537.6)."""

from __future__ import annotations

import pytest

from floord.contract import cite
from floord.engine.craps.rules import MINIMUM_ODDS, PayTable, payout_problems
from floord.engine.craps.wagers import resolve

pytestmark = pytest.mark.unit

PAYS = PayTable()


def names(body: dict, kind: str) -> set[str]:
    return {w["wager"] for w in body[kind]}


def entry(body: dict, kind: str, wager: str) -> dict:
    return next(w for w in body[kind] if w["wager"] == wager)


def test_pass_and_dont_pass_on_the_come_out_537_3_a_1_and_2() -> None:
    """§ 537.3(a)(1)(i)(A): a Pass Bet wins on "a total of 7 or 11"; (ii)(A) loses on "2, 3
    or 12"; (a)(2)(iii): "If a total of 12 is thrown on the come out roll, a Don't Pass Bet
    shall be void"."""
    seven = resolve(3, 4, None, PAYS)
    assert {"pass_line"} <= names(seven, "win") and {"dont_pass"} <= names(seven, "lose")
    assert entry(seven, "win", "pass_line")["rule"] == cite("537.3(a)(1)")
    three = resolve(1, 2, None, PAYS)
    assert "dont_pass" in names(three, "win") and "pass_line" in names(three, "lose")
    twelve = resolve(6, 6, None, PAYS)
    assert entry(twelve, "returned", "dont_pass")["rule"] == cite("537.3(a)(2)(iii)")


def test_the_point_made_or_a_7_first_537_3_a_1_i_b_and_ii_b() -> None:
    """§ 537.3(a)(1)(i)(B): the point "thrown again before a 7" wins, with the odds of
    § 537.6(a); (ii)(B): "a 7 is subsequently thrown" loses; the Don't odds are § 537.6(b)."""
    made = resolve(3, 3, 6, PAYS)
    won = entry(made, "win", "pass_line")
    assert won["odds"] == "1 to 1" and won["odds_wager"] == "6 to 5"
    assert won["odds_rule"] == cite("537.6(a)")
    out = resolve(3, 4, 4, PAYS)
    assert entry(out, "win", "dont_pass")["odds_wager"] == "1 to 2"
    assert "pass_line" in names(out, "lose")
    neither = resolve(2, 3, 6, PAYS)
    assert "pass_line" not in names(neither, "win") | names(neither, "lose")


def test_come_and_dont_come_537_3_a_3_and_4() -> None:
    """§ 537.3(a)(3): a 4-10 after a Come Bet moves it "into the numbered box"; (i)(A) 7 or
    11 wins; (a)(4)(iii): a 12 voids a Don't Come Bet; a come point decided by the number
    again or a 7 (§ 537.6(c), (d) odds)."""
    moved = resolve(4, 4, 5, PAYS)
    assert entry(moved, "moved", "come")["to"] == "come_8"
    assert entry(moved, "win", "come_8")["odds_wager"] == "6 to 5"
    assert "dont_come_8" in names(moved, "lose")
    assert "come" in names(resolve(5, 6, 5, PAYS), "win")
    assert "dont_come" in names(resolve(6, 6, 5, PAYS), "returned")
    seven = resolve(3, 4, 5, PAYS)
    assert {f"come_{n}" for n in (4, 5, 6, 8, 9, 10)} <= names(seven, "lose")
    assert entry(seven, "win", "dont_come_9")["odds_wager"] == "2 to 3"
    assert "come" not in names(resolve(3, 4, None, PAYS), "win")  # no Come Bet on a come out


def test_place_bets_inactive_on_the_come_out_537_3_a_5_and_6() -> None:
    """§ 537.3(a)(5): "A Place Bet to Win shall be inactive on a come out roll unless called
    'on'"; (i) wins when the number comes before a 7; (a)(6) the reverse, § 537.5(b) odds."""
    assert "place_win_6" in names(resolve(2, 4, None, PAYS), "inactive")
    win = resolve(2, 4, 8, PAYS)
    assert entry(win, "win", "place_win_6")["odds"] == "7 to 6"
    assert "place_lose_6" in names(win, "lose")
    seven = resolve(1, 6, 8, PAYS)
    assert entry(seven, "win", "place_lose_4")["odds"] == "5 to 11"
    assert "place_win_10" in names(seven, "lose")


def test_hardways_537_3_a_7_to_10() -> None:
    """§ 537.3(a)(8): a Six the Hardway "shall win if a total of 6 is thrown with a 3
    appearing on each die"; (ii) loses on a 6 thrown another way or a 7."""
    assert entry(resolve(3, 3, 8, PAYS), "win", "hard_6")["odds"] == "9 to 1"
    assert "hard_6" in names(resolve(2, 4, 8, PAYS), "lose")
    assert {"hard_4", "hard_6", "hard_8", "hard_10"} <= names(resolve(2, 5, 8, PAYS), "lose")
    assert "hard_8" not in names(resolve(2, 4, 8, PAYS), "lose")


def test_one_roll_bets_537_3_a_11_to_39() -> None:
    """§ 537.3(a)(11)-(39): the field, any seven, any craps, 2, 3, 12, 11, C and E, horn,
    whirl, the hops and the 6-7-8, each decided by the next roll."""
    two = resolve(1, 1, None, PAYS)
    assert entry(two, "win", "field")["odds"] == "2 to 1"  # § 537.5(b): on a 2 or 12
    assert entry(two, "win", "craps_2")["odds"] == "30 to 1"
    ce = entry(two, "win", "c_and_e")
    assert ce["paid_as"] == [{"part": "any_craps", "share": "1/2", "odds": "7 to 1"}]
    assert ce["paid_rule"] == cite("537.5(c)")
    horn = entry(two, "win", "horn")["paid_as"]
    assert horn == [{"part": "craps_2", "share": "1/4", "odds": "30 to 1"}]
    seven = resolve(3, 4, None, PAYS)
    assert entry(seven, "win", "whirl")["paid_as"][0]["part"] == "any_seven"
    assert entry(seven, "win", "hop_3_4")["odds"] == "15 to 1"
    assert {"field", "horn", "any_craps", "hop_2_5"} <= names(seven, "lose")
    assert entry(resolve(4, 4, 5, PAYS), "win", "six_seven_eight")["odds"] == "2 to 1"
    assert entry(resolve(2, 2, 5, PAYS), "win", "hop_2_2")["odds"] == "30 to 1"
    assert "six_seven_eight" in names(resolve(2, 3, 5, PAYS), "lose")


def test_a_lay_bet_is_decided_as_the_place_bet_to_lose_537_5a_b() -> None:
    """§ 537.5a(b): "a Lay Bet to receive true odds on the Place Bet to Lose"; the pay table
    after "as follows:" is not in floord's sources, so no odds are stated."""
    seven = resolve(1, 6, 9, PAYS, lay_bets=True)
    assert entry(seven, "win", "lay_4")["rule"] == cite("537.5a(b)")
    assert "lay_9" in names(resolve(4, 5, 6, PAYS, lay_bets=True), "lose")
    assert "lay_4" not in names(resolve(1, 6, 9, PAYS), "win")


def test_submitted_odds_below_the_minimum_are_refused_537_5_b_and_g() -> None:
    """§ 537.5(b): payout odds "may not be less than the following"; (a): stated with
    "to"; § 537.5(g): a Fire Bet at no less than the preselected Table A or B."""
    assert payout_problems({"place_win_6": "7 to 6", "hard_4": "8 to 1"}, "A", {}) == []
    low = payout_problems({"place_win_6": "1 to 1"}, None, {})
    assert low == [f"payout_odds.place_win_6: 1 to 1 is below the minimum 7 to 6 of "
                   f"{cite('537.5(b)')}"]  # fmt: skip
    assert "537.5(a)" in payout_problems({"field": "2 for 1"}, None, {})[0]
    assert "not a wager" in payout_problems({"big_red": "4 to 1"}, None, {})[0]
    fire = payout_problems({}, "B", {4: 24})
    assert fire == [f"fire_bet_odds.4: 24 to 1 is below 39 to 1, Table B of {cite('537.5(g)')}"]
    assert PayTable({"hard_4": "8 to 1"}).of("hard_4") == "8 to 1"
    assert set(MINIMUM_ODDS) >= {"pass_line", "hop_4_6", "six_seven_eight_pair"}


def test_the_whirl_bet_on_a_horn_number_is_one_unit_of_five_537_5_f_and_d() -> None:
    """§ 537.5(f): "A Whirl Bet shall be paid as if it was two separate wagers with four
    units wagered as a Horn Bet and one unit wagered as an Any Seven Bet"; § 537.5(d): "A
    Horn Bet shall be paid as if it were four separate wagers on the 2, 3, 11 and 12, each
    of which equaling 25% of the Horn Bet". On a 2 one unit of the five wins at the 2's
    odds; the other three Horn units and the Any Seven unit lose."""
    whirl = entry(resolve(1, 1, None, PAYS), "win", "whirl")
    assert whirl["paid_rule"] == cite("537.5(f)")
    assert whirl["paid_as"] == [
        {"part": "craps_2", "share": "1/5", "odds": "30 to 1", "via": "horn",
         "via_rule": cite("537.5(d)")},
    ]  # fmt: skip
    assert whirl["lost_as"] == [
        {"part": "craps_3", "share": "1/5"},
        {"part": "eleven", "share": "1/5"},
        {"part": "craps_12", "share": "1/5"},
        {"part": "any_seven", "share": "1/5"},
    ]
    eleven = entry(resolve(5, 6, 8, PAYS), "win", "whirl")["paid_as"]
    assert [(p["part"], p["share"], p["odds"]) for p in eleven] == [("eleven", "1/5", "15 to 1")]
    seven = entry(resolve(3, 4, 8, PAYS), "win", "whirl")
    assert seven["paid_as"] == [{"part": "any_seven", "share": "1/5", "odds": "4 to 1"}]
    assert len(seven["lost_as"]) == 4
    assert "whirl" in names(resolve(2, 2, 8, PAYS), "lose")
