"""The cut and the card counts a Blackjack or Spanish 21 shoe reports.

58 Pa. Code § 549.3(a), (c), § 549.6(e), § 549.7(k)(2); § 551.3(a), § 551.5(e),
§ 551.8(j)(2) for Spanish 21. The shoe says how many cards a stack holds and how many
came out before the cutting card; floord checks both against the table's decks.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from pydantic import ValidationError
from test_engine_blackjack_support import make_table, of_type, violations

from floord.contract import EventType, cite
from floord.games.blackjack import CardTableRules

pytestmark = pytest.mark.unit

SIX_DECKS = 6 * 52


def _cut(t, count, side=None):
    return t.device(EventType.SHOE_CUTTING_CARD, {"count": count, "side": side})


def _load(t, cards, side=None):
    assert t.cut(side).ok
    out = t.device(EventType.SHOE_LOADED, {"side": side, "cards": cards})
    t.drawn = 0
    return out


def _round(t, cards=("TS", "7D", "9C", "8S")):
    assert t.start(1).ok
    out = t.draws(*cards)
    assert t.decide(1, "stand").ok
    assert t.dealer("dealer_turn").ok
    end = t.dealer("round_end")
    assert end.ok, end.error
    out.extend(end.output)
    return out


def test_cutting_card_behind_a_quarter_of_the_stack_549_6_e() -> None:
    """§ 549.6(e): "The dealer shall then take the entire stack of cards that was just cut
    and align them along the side of the dealing shoe which has a mark that will allow the
    dealer to insert the cutting card in the stack at a position at least approximately
    one-quarter of the way in from the bottom of the stack."
    """
    t = make_table()
    t.ready(load=False)
    _load(t, SIX_DECKS)
    t.draw("2C")  # the burn card
    # 312 cards: a quarter is 78, less a quarter deck (13): 65 behind is the least.
    assert _cut(t, SIX_DECKS - 65).events == []
    t = make_table()
    t.ready(load=False)
    _load(t, SIX_DECKS)
    v = violations(_cut(t, SIX_DECKS - 40))
    assert len(v) == 1 and v[0].rule == cite("549.6(e)")
    assert v[0].data["what"] == "cutting_card_too_deep"
    assert (v[0].data["behind"], v[0].data["least"], v[0].data["stack"]) == (40, 65, 312)
    assert "approximately" in v[0].data["reading"]
    # Only the stack's first cutting card is the cut; the round goes on as § 549.7(k) says.
    assert violations(_cut(t, SIX_DECKS - 39)) == []


def test_the_quarter_counts_the_configured_decks_when_the_shoe_does_not_count() -> None:
    """§ 549.6(e): the cutting card "at least approximately one-quarter of the way in from
    the bottom of the stack": with no count from the shoe the stack is the table's decks.
    """
    t = make_table()
    t.ready()  # loaded with cards: null
    v = violations(_cut(t, 300))
    assert v[0].rule == cite("549.6(e)") and v[0].data["stack"] == SIX_DECKS


def test_spanish21_cut_cites_551_5_e_and_counts_48_card_decks() -> None:
    """§ 551.5(e): "... insert the cutting card in the stack at a position at least
    approximately one-quarter of the way in from the bottom of the stack." Spanish 21's
    decks hold 48 cards (§ 551.3(a))."""
    t = make_table("spanish21", decks=6)
    t.ready(load=False)
    _load(t, 6 * 48)
    assert _cut(t, 6 * 48 - 62).events == []  # 72 less 12 = 60 behind is enough
    t = make_table("spanish21", decks=6)
    t.ready(load=False)
    _load(t, 6 * 48)
    assert violations(_cut(t, 6 * 48 - 59))[0].rule == cite("551.5(e)")


def test_a_double_shoe_side_is_half_the_decks() -> None:
    """§ 549.3(c): "the same number of decks used in each side of the double shoe"; each
    side's cutting card is checked against that side's stack (§ 549.6(e))."""
    t = make_table(shoe="double", decks=4, hearts_diamonds_side="left")
    t.ready(load=False)
    assert violations(_load(t, 104, "left")) == []
    v = violations(_cut(t, 100, "left"))
    assert v[0].data["stack"] == 104 and v[0].data["side"] == "left"


def test_the_stack_after_a_cutting_card_has_every_card_549_7_k_2() -> None:
    """§ 549.7(k)(2)(i): "Whenever a single dealing shoe is used, the dealer shall remove
    the cards remaining in the shoe and place them in the discard rack to ensure that no
    cards are missing." The cards remaining are recorded; the next stack is counted."""
    t = make_table()
    t.ready(load=False)
    _load(t, SIX_DECKS)
    t.draw("2C")
    _cut(t, 1)
    out = _round(t)
    shuffle = of_type(out, EventType.CARDS_SHUFFLE_REQUIRED)[0]
    assert shuffle.data["remaining"] == SIX_DECKS - 5  # a burn and four cards dealt
    v = violations(_load(t, SIX_DECKS - 1))
    assert len(v) == 1 and v[0].rule == cite("549.7(k)(2)")
    assert (v[0].data["what"], v[0].data["count"], v[0].data["expected"]) == (
        "cards_missing",
        SIX_DECKS - 1,
        SIX_DECKS,
    )


def test_spanish21_missing_cards_cite_551_8_j_2() -> None:
    """§ 551.8(j)(2): "Remove the cards remaining in the shoe and place them in the discard
    rack to ensure that no cards are missing." """
    t = make_table("spanish21", decks=6)
    t.ready()
    _cut(t, 0)
    _round(t)
    v = violations(_load(t, 6 * 48 + 1))
    assert v[0].rule == cite("551.8(j)(2)") and v[0].data["what"] == "cards_extra"


def test_any_other_stack_is_counted_against_the_decks_as_policy() -> None:
    """A stack loaded after new decks: no paragraph of the seeds counts it, floord does."""
    t = make_table()
    t.ready(load=False)
    v = violations(_load(t, SIX_DECKS - 2))
    assert v[0].rule is None and "policy" in v[0].data
    assert v[0].data["what"] == "cards_missing"
    assert violations(_load(t, SIX_DECKS)) == []


def test_a_shoe_that_runs_out_without_its_cutting_card_549_3_a() -> None:
    """§ 549.3(a): "Blackjack shall also be played with at least one cutting card,
    approved by the Bureau of Gaming Operations." """
    t = make_table()
    t.ready()
    v = violations(t.device(EventType.SHOE_EMPTY, {"side": None}))
    assert v[0].rule == cite("549.3(a)") and v[0].data["what"] == "no_cutting_card"
    # With its cutting card out, running out is no violation.
    t = make_table()
    t.ready()
    _cut(t, 0)
    _round(t)
    assert violations(t.device(EventType.SHOE_EMPTY, {"side": None})) == []


def test_each_side_of_a_double_shoe_has_its_cutting_card_549_3_c() -> None:
    """§ 549.3(c): "In addition, a separate cutting card shall be used in each side of the
    shoe." """
    t = make_table(shoe="double", decks=2, hearts_diamonds_side="left")
    t.ready(load=False)
    t.load("left")
    t.load("right")
    _cut(t, 0, "left")
    v = violations(t.device(EventType.SHOE_EMPTY, {"side": "right"}))
    assert v[0].rule == cite("549.3(c)") and v[0].data["side"] == "right"


def test_spanish21_shoe_without_cutting_card_cites_551_3_a() -> None:
    """§ 551.3(a): "Spanish 21 shall also be played with at least one cutting card." """
    t = make_table("spanish21", decks=6)
    t.ready()
    v = violations(t.device(EventType.SHOE_EMPTY, {"side": None}))
    assert v[0].rule == cite("551.3(a)")


def test_no_gaming_activity_past_the_idle_time_requires_a_reshuffle_549_6_h() -> None:
    """§ 549.6(h): "If there is no gaming activity at a Blackjack table which is open for
    gaming, the cards shall be removed from the dealing shoe and the discard rack, and
    spread out on the table for inspection, either face up or face down." and (h)(1)
    "... stacked, then shuffled and cut in accordance with this section." """
    t = make_table(idle_minutes=20)
    t.ready()
    _round(t)
    t.clock.now += timedelta(minutes=10)
    assert of_type(t.engine.tick(t.clock.now), EventType.CARDS_SHUFFLE_REQUIRED) == []
    t.clock.now += timedelta(minutes=11)
    out = t.engine.tick(t.clock.now)
    (shuffle,) = of_type(out, EventType.CARDS_SHUFFLE_REQUIRED)
    assert shuffle.rule == cite("549.6(h)") and shuffle.data["reason"] == "no_gaming_activity"
    assert shuffle.data["idle_minutes"] == 20
    assert t.engine.tick(t.clock.now).events == []  # said once
    refused = t.start(1)
    assert not refused.ok and refused.rule == cite("549.6(h)")
    t.load()  # spread, inspected, shuffled, cut and loaded again; burned
    assert t.start(1).ok


def test_spanish21_idle_table_cites_551_5_h_and_no_option_means_not_watched() -> None:
    """§ 551.5(h): "If there is no gaming activity at a Spanish 21 table which is open for
    gaming, the cards shall be removed from the dealing shoe and the discard rack ..." """
    t = make_table("spanish21", decks=6, idle_minutes=5)
    t.ready()
    t.clock.now += timedelta(minutes=6)
    assert of_type(t.engine.tick(t.clock.now), EventType.CARDS_SHUFFLE_REQUIRED)[0].rule == cite(
        "551.5(h)"
    )
    t = make_table()
    t.ready()
    t.clock.now += timedelta(hours=3)
    assert of_type(t.engine.tick(t.clock.now), EventType.CARDS_SHUFFLE_REQUIRED) == []


def test_check_validates_idle_minutes() -> None:
    """The idle time is a Rules Submission option: whole minutes, 1 to 1440, or unset."""
    assert CardTableRules(decks=6, idle_minutes=30).idle_minutes == 30
    assert CardTableRules(decks=6).idle_minutes is None
    for bad in (0, -5, 1441, "ten"):
        with pytest.raises(ValidationError):
            CardTableRules(decks=6, idle_minutes=bad)
