"""The cut of a Mississippi Stud deck shuffled by hand (58 Pa. Code § 571.5(c)-(e))."""

from __future__ import annotations

import pytest
from test_engine_stud_support import make_table

from floord.contract import EventType, cite

pytestmark = pytest.mark.unit


def _cut_events(out):
    return [d for d in out.output.events if d.type == EventType.CARDS_CUT]


def test_cards_shuffled_by_hand_are_cut_before_they_are_dealt_571_5_c_2_d() -> None:
    """§ 571.5(c): "After the cards have been shuffled and stacked, the dealer shall do the
    following: ... (2) If the cards were shuffled manually or were preshuffled, cut the cards
    in accordance with subsection (d)." (d)(1)(ii): "Taking a stack of at least ten cards
    from the top of the deck and placing them on top of the cover card." """
    t = make_table(shuffler="none")
    t.ready()
    assert t.play_round({1: "AS KS"}, "QS JS TS").ok
    t.device(EventType.SHOE_LOADED, {"side": None, "cards": None})
    refused = t.start(1)
    assert not refused.ok and refused.rule == cite("571.5(c)(2)")
    for cards in (9, 52, "20"):
        short = t.dealer("cut", {"cards": cards})
        assert not short.ok and short.rule == cite("571.5(d)(1)(ii)"), cards
    by_player = t.dealer("cut", {"cards": 20, "by": "player"})
    assert not by_player.ok and by_player.rule == cite("571.5(d)")
    cut = t.dealer("cut", {"cards": 20})
    [event] = _cut_events(cut)
    assert event.rule == cite("571.5(d)") and event.data["cards"] == 20
    assert not t.dealer("cut", {"cards": 30}).ok  # already cut
    started = t.start(1)
    assert started.ok, started.error
    [rnd] = [d for d in started.output.events if d.type == EventType.ROUND_STARTED]
    assert rnd.data["cut"] == {"cards": 20, "by": "dealer"}


def test_cards_from_the_automated_shuffler_are_dealt_without_a_cut_571_5_c_1() -> None:
    """§ 571.5(c)(1): "If the cards were shuffled using an automated card shuffling device,
    deal or deliver the cards in accordance with § 571.8, § 571.9 or § 571.10." """
    t = make_table()
    t.ready()
    refused = t.dealer("cut", {"cards": 20})
    assert not refused.ok and refused.rule == cite("571.5(c)(1)")
    started = t.start(1)
    assert started.ok, started.error


def test_a_floorperson_may_require_a_recut_before_any_card_is_dealt_571_5_e() -> None:
    """§ 571.5(e): "Notwithstanding subsection (d), after the cards have been cut and before
    any cards have been dealt, a floorperson or above may require the cards to be recut if
    he determines that the cut was performed improperly or in any way that might affect the
    integrity or fairness of the game." """
    t = make_table(shuffler="none")
    t.ready()  # shuffled by hand, cut, loaded
    by_dealer = t.dealer("recut", {"reason": "one-handed?"})
    assert not by_dealer.ok and by_dealer.rule == cite("571.5(e)")
    assert t.command("recut", {"reason": "two hands used"}).ok
    refused = t.start(1)
    assert not refused.ok and refused.rule == cite("571.5(c)(2)")
    again = t.dealer("cut", {"cards": 15})
    [event] = _cut_events(again)
    assert event.rule == cite("571.5(e)") and event.data["recut"] is True
    assert t.start(1).ok
    late = t.command("recut", {"reason": "too late"})
    assert not late.ok


def test_a_cut_survives_a_restart() -> None:
    t = make_table(shuffler="none")
    t.ready()
    t2 = make_table(shuffler="none", snapshot=t.engine.snapshot())
    assert t2.engine.stack == {"cut": {"cards": 20, "by": "dealer"}}
