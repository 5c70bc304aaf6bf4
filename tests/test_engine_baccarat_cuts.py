"""The Baccarat family's cover card position, from the shoe's counts.

58 Pa. Code § 541.5(e), § 543.5(e), § 545.5(d): after the cut the dealer inserts a cover
card at least 14 cards above the bottom of the stack. The shoe reports how many cards
came out before it (`shoe.cutting_card {count}`) and how many it was loaded with.
"""

from __future__ import annotations

import pytest
from test_engine_baccarat_support import make_table, violations

from floord.contract import EventType, cite

pytestmark = pytest.mark.unit


def _cover(t, count):
    return t.device(EventType.SHOE_CUTTING_CARD, {"count": count, "side": None})


def test_cover_card_at_least_14_above_the_bottom_545_5_d() -> None:
    """§ 545.5(d): "The dealer shall then insert the second cover card in a position at
    least 14 cards above the bottom of the stack." """
    t = make_table()
    t.ready()  # 416 cards loaded
    assert violations(_cover(t, 416 - 14)) == []
    t = make_table()
    t.ready()
    v = violations(_cover(t, 416 - 13))
    assert len(v) == 1 and v[0].rule == cite("545.5(d)")
    assert v[0].data["what"] == "cover_card_too_deep"
    assert (v[0].data["behind"], v[0].data["least"], v[0].data["stack"]) == (13, 14, 416)
    # The other cover card, at the very bottom, is not the one inserted 14 above it.
    assert violations(_cover(t, 416)) == []


@pytest.mark.parametrize(
    ("game", "section"), [("minibaccarat", "541.5(e)"), ("midibaccarat", "543.5(e)")]
)
def test_mini_and_midibaccarat_cite_their_own_chapter(game: str, section: str) -> None:
    """§ 541.5(e), § 543.5(e): "The dealer shall then insert the second cover card in a
    position at least 14 cards above the bottom of the stack, and the second cover card at
    the bottom of the stack." """
    t = make_table(game)
    t.ready()
    assert violations(_cover(t, 410))[0].rule == cite(section)


def test_a_shoe_that_does_not_count_its_stack_is_taken_as_the_decks() -> None:
    """§ 545.5(d), the cover card "at least 14 cards above the bottom of the stack": with
    no count from the shoe, the stack is the table's decks (8 x 52 here)."""
    t = make_table()
    t.ready(load=False)
    t.cut_if_due()
    t.device(EventType.SHOE_LOADED, {"side": None, "cards": None})
    assert violations(_cover(t, 405))[0].data["stack"] == 416


@pytest.mark.parametrize("game", ["minibaccarat", "midibaccarat", "baccarat"])
def test_a_stack_that_is_not_the_tables_decks_is_a_violation_under_policy(game: str) -> None:
    """No paragraph of chapters 541, 543 or 545 in the seeds counts the stack loaded, so a
    counted stack other than the table's decks (8 x 52 here) is floord's policy, uncited,
    as at Blackjack outside § 549.7(k)(2); the stack still counts as loaded."""
    t = make_table(game)
    t.ready(load=False)
    t.cut_if_due()
    [short] = violations(t.device(EventType.SHOE_LOADED, {"side": None, "cards": 415}))
    assert short.rule is None and short.data["policy"]
    assert (short.data["what"], short.data["count"], short.data["expected"]) == (
        "cards_missing",
        415,
        416,
    )
    t.cut_if_due()
    [extra] = violations(t.device(EventType.SHOE_LOADED, {"side": None, "cards": 417}))
    assert extra.data["what"] == "cards_extra"
    t.cut_if_due()
    assert violations(t.device(EventType.SHOE_LOADED, {"side": None, "cards": 416})) == []
    assert t.engine.shoe.loaded
