"""Shoe, burn cards, double shoe, shuffler batches and the 24-hour deck change.

58 Pa. Code § 549.3(d), (e), § 549.6(g), § 549.7(c), (d), (k), § 549.15, § 549.16(a),
(f), (h); § 551.3(a), (c) for Spanish 21.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from test_engine_blackjack_support import SHUFFLER, make_table, of_type, types, violations

from floord.contract import EventType, cite

pytestmark = pytest.mark.unit


def _play_round(t, cards=("TS", "7D", "9C", "8S"), *, side=None):
    assert t.start(1).ok
    out = t.draws(*cards, side=side)
    assert t.decide(1, "stand").ok
    assert t.dealer("dealer_turn").ok
    end = t.dealer("round_end")
    assert end.ok, end.error
    out.extend(end.output)
    return out


def test_cutting_card_finishes_the_round_then_a_shuffle_is_required_549_7_k() -> None:
    t = make_table()
    t.ready()
    t.start(1)
    t.draws("TS", "7D")
    assert t.device(EventType.SHOE_CUTTING_CARD, {"count": 2, "side": None}).events == []
    t.draws("9C", "8S")
    t.decide(1, "stand")
    t.dealer("dealer_turn")
    out = t.dealer("round_end").output
    assert types(out)[-2:] == ["round.ended", "cards.shuffle_required"]
    shuffle = out.events[-1]
    assert shuffle.rule == cite("549.7(k)") and shuffle.data["also"] == cite("549.6(g)")
    refused = t.start(1)
    assert not refused.ok and refused.rule == cite("549.6(g)")
    t.load()  # reshuffled and loaded, burned
    assert t.start(1).ok


def test_cutting_card_first_in_the_shoe_still_deals_that_round_549_7_k_as_amended() -> None:
    t = make_table()
    t.ready()
    t.device(EventType.SHOE_CUTTING_CARD, {"count": 0, "side": None})
    out = _play_round(t)
    assert types(out)[-1] == "cards.shuffle_required"
    assert not t.start(1).ok


def test_spanish21_cites_551_8_j_for_the_cutting_card() -> None:
    t = make_table("spanish21")
    t.ready()
    t.device(EventType.SHOE_CUTTING_CARD, {"count": 0, "side": None})
    assert _play_round(t).events[-1].rule == cite("551.8(j)")


def test_insufficient_cards_reshuffle_burn_and_complete_the_round_549_16_f() -> None:
    t = make_table()
    t.ready()
    t.start(1)
    t.draws("TS", "7D")
    out = t.device(EventType.SHOE_EMPTY, {"side": None})
    event = of_type(out, EventType.CARDS_SHUFFLE_REQUIRED)[0]
    assert event.rule == cite("549.16(f)") and event.data["complete_round"] is True
    refused = t.dealer("round_end")
    assert not refused.ok and refused.rule == cite("549.16(f)")
    t.cut_if_due()
    t.device(EventType.SHOE_LOADED, {"side": None, "cards": None})
    assert t.draw("2H").events == []  # the burn after the shuffle
    out = t.draws("9C", "8S")
    assert [h.data["cards"] for h in of_type(out, EventType.BLACKJACK_HAND)] == [["TS", "9C"]]
    t.decide(1, "stand")
    t.dealer("dealer_turn")
    assert t.dealer("round_end").ok


def test_a_card_face_up_in_the_shoe_is_not_used_549_16_a() -> None:
    t = make_table()
    t.ready()
    t.start(1)
    v = violations(t.device(EventType.SHOE_CARD_FACE_UP, {"card": "QH", "side": None}))[0]
    assert v.rule == cite("549.16(a)")
    assert t.draw("QH").events == []  # taken out, not dealt
    hand = of_type(t.draw("5C"), EventType.BLACKJACK_HAND)[0]
    assert hand.data["cards"] == ["5C"]


def test_burn_card_after_each_load_and_each_new_dealer_549_7_c() -> None:
    t = make_table()
    t.ready(load=False)
    t.cut_if_due()
    t.device(EventType.SHOE_LOADED, {"side": None, "cards": None})
    refused = t.start(1)
    assert not refused.ok and refused.rule == cite("549.7(c)")
    assert t.draw("4D").events == []  # the burn
    assert t.start(1).ok
    t.draws("TS", "7D", "9C", "8S")
    assert not t.dealer("dealer_in").ok  # between rounds only
    t.decide(1, "stand")
    t.dealer("dealer_turn")
    t.dealer("round_end")
    assert t.dealer("dealer_in").ok
    assert t.start(1).rule == cite("549.7(c)")
    t.draw("3D")
    assert t.start(1).ok


def test_a_card_drawn_with_no_round_is_a_violation() -> None:
    t = make_table()
    t.ready()
    v = violations(t.draw("9D"))[0]
    assert v.rule == cite("549.7(e)") and v.data["what"] == "card_outside_round"


def _double():
    t = make_table(shoe="double", decks=2, hearts_diamonds_side="left")
    t.ready(load=False)
    t.load("left")
    t.load("right")
    return t


def test_double_shoe_determinant_card_549_7_d() -> None:
    t = _double()
    assert t.start(1).ok
    # A heart from the left side: it names the left side and is box 1's first card.
    out = t.draw("5H", side="left")
    assert of_type(out, EventType.BLACKJACK_HAND)[0].data["cards"] == ["5H"]
    out = t.draws("7D", "9C", "8S", side="left")
    assert violations(out) == []
    assert t.engine.snapshot()["round"]["hands"][0]["cards"] == ["5H", "9C"]
    t.decide(1, "stand")
    t.dealer("dealer_turn")
    t.dealer("round_end")
    # A spade from the left side: segregated; the round is dealt from the right.
    assert t.start(1).ok
    assert t.draw("5S", side="left").events == []
    assert t.engine.snapshot()["round"]["determinant"]["used_as"] == "segregated"
    t.draws("TH", "7D", side="right")
    v = violations(t.draw("9C", side="left"))
    assert v[0].rule == cite("549.16(h)") and v[0].data["round_side"] == "right"
    assert violations(t.draw("8S", side="left")) == []  # reported once, round goes on
    t.decide(1, "stand")
    t.dealer("dealer_turn")
    assert t.dealer("round_end").ok


def test_double_shoe_has_no_burn_and_reshuffles_only_the_cut_side() -> None:
    t = _double()
    assert t.engine.shoe.burn_due is None
    t.device(EventType.SHOE_CUTTING_CARD, {"count": 0, "side": "right"})
    _play_round(t, ("5H", "7D", "9C", "8S"), side="left")
    snap = t.engine.snapshot()["shoe"]["sides"]
    assert snap["right"]["shuffle_required"] == "cutting_card"
    assert snap["left"]["shuffle_required"] is None


def _batch_table(game: str = "blackjack"):
    t = make_table(
        game, shuffler_device=SHUFFLER, shuffler="batch", decks=6, batch_backs=["red", "blue"]
    )
    t.ready(load=False)
    return t


def _shuffler(t, type, **data):
    return t.device(type, data, SHUFFLER)


def _ready_batch(t, batch: str, cards: int = 156):
    _shuffler(t, EventType.SHUFFLER_SHUFFLE_STARTED, batch=batch)
    return _shuffler(t, EventType.SHUFFLER_SHUFFLE_COMPLETED, batch=batch, cards=cards)


def test_batches_alternate_and_only_one_is_in_the_discard_rack_549_3_d() -> None:
    t = _batch_table()
    _ready_batch(t, "red")
    _shuffler(t, EventType.SHUFFLER_BATCH_REMOVED, batch="red")
    _ready_batch(t, "blue")
    assert violations(t.load()) == []
    t.device(EventType.SHOE_CUTTING_CARD, {"count": 0, "side": None})
    _play_round(t)
    # The same batch again: not alternated.
    _ready_batch(t, "red")
    _shuffler(t, EventType.SHUFFLER_BATCH_REMOVED, batch="red")
    v = violations(t.load())
    assert v[0].rule == cite("549.3(d)(4)") and v[0].data["what"] == "batches_not_alternated"
    # Blue goes in the shoe while red's cards were never put back in the shuffler.
    t.device(EventType.SHOE_CUTTING_CARD, {"count": 0, "side": None})
    _play_round(t)
    _shuffler(t, EventType.SHUFFLER_BATCH_REMOVED, batch="blue")
    t.cut_if_due()
    t.device(EventType.SHOE_LOADED, {"side": None, "cards": None})
    v = violations(t.draw("2C"))
    assert v[0].rule == cite("549.3(d)(5)")


def test_a_batch_not_taken_from_the_shuffler_may_not_be_dealt_549_3_d_3() -> None:
    """§ 549.3(d)(3): "One batch of cards shall be shuffled and stored in the automated card
    shuffling device while the other batch is being dealt": a shoe loaded with no batch
    taken out of the shuffler is a violation, its first card is a violation, and no round
    starts on it, each citing (d)(3); a batch from the shuffler loaded after it deals."""
    t = _batch_table()
    _ready_batch(t, "red")
    t.cut_if_due()
    [loaded] = violations(t.device(EventType.SHOE_LOADED, {"side": None, "cards": None}))
    assert loaded.rule == cite("549.3(d)(3)") and loaded.data["what"] == "batch_not_from_shuffler"
    [drawn] = violations(t.draw("2C"))  # the burn card (§ 549.7(c)), from that batch
    assert drawn.rule == cite("549.3(d)(3)") and drawn.data["what"] == "card_from_refused_batch"
    assert drawn.data["reason"] == "not_from_shuffler"
    refused = t.start(1)
    assert not refused.ok and refused.rule == cite("549.3(d)(3)")
    assert "not_from_shuffler" in (refused.error or "")
    _shuffler(t, EventType.SHUFFLER_BATCH_REMOVED, batch="red")
    assert violations(t.load()) == []
    assert t.start(1).ok


def test_a_jammed_batch_in_the_shoe_refuses_the_round_under_floords_policy() -> None:
    """Ch. 549 says nothing of a jammed shuffler: the round refused on a jammed batch cites
    no paragraph (floord's policy, as the batch's own refusal says)."""
    t = _batch_table()
    _shuffler(t, EventType.SHUFFLER_SHUFFLE_STARTED, batch="red")
    _shuffler(t, EventType.SHUFFLER_JAM, batch="red", code=4, text="jam")
    _shuffler(t, EventType.SHUFFLER_BATCH_REMOVED, batch="red")
    t.load()  # and the burn card
    refused = t.start(1)
    assert not refused.ok and refused.rule is None and "jammed" in (refused.error or "")


def test_a_batch_with_the_wrong_card_count_is_refused_and_may_not_be_dealt() -> None:
    t = _batch_table()
    out = _ready_batch(t, "red", cards=155)
    refused = of_type(out, EventType.CARDS_BATCH_REFUSED)[0]
    assert refused.rule == cite("549.3(d)(1)") and refused.data["expected"] == 156
    _shuffler(t, EventType.SHUFFLER_BATCH_REMOVED, batch="red")
    t.cut_if_due()
    t.device(EventType.SHOE_LOADED, {"side": None, "cards": None})
    v = violations(t.draw("2C"))
    assert v[0].data["what"] == "card_from_refused_batch"
    assert not t.start(1).ok


def test_spanish21_batches_count_48_cards_a_deck_551_3_a() -> None:
    t = _batch_table("spanish21")
    assert types(_ready_batch(t, "red", cards=144)) == []  # 3 decks of 48
    refused = of_type(_ready_batch(t, "blue", cards=156), EventType.CARDS_BATCH_REFUSED)[0]
    assert refused.rule == cite("551.3(a)") and refused.data["expected"] == 144


def test_a_short_batch_is_refused_once_though_ready_repeats_its_count() -> None:
    t = _batch_table()
    refused = of_type(_ready_batch(t, "blue", cards=155), EventType.CARDS_BATCH_REFUSED)
    assert len(refused) == 1
    again = _shuffler(t, EventType.SHUFFLER_BATCH_READY, batch="blue", cards=155)
    assert of_type(again, EventType.CARDS_BATCH_REFUSED) == []


def test_a_jammed_batch_is_reshuffled_before_use() -> None:
    t = _batch_table()
    _shuffler(t, EventType.SHUFFLER_SHUFFLE_STARTED, batch="red")
    out = _shuffler(t, EventType.SHUFFLER_JAM, batch="red", code=4, text="jam")
    event = of_type(out, EventType.CARDS_BATCH_REFUSED)[0]
    assert event.rule is None and "not a regulation" in event.data["policy"]
    _shuffler(t, EventType.SHUFFLER_BATCH_REMOVED, batch="red")
    t.cut_if_due()
    t.device(EventType.SHOE_LOADED, {"side": None, "cards": None})
    assert violations(t.draw("2C"))[0].data["reason"] == "jam"
    _ready_batch(t, "blue")
    _shuffler(t, EventType.SHUFFLER_BATCH_REMOVED, batch="blue")
    t.load()
    assert t.start(1).ok


def test_a_shuffler_out_of_order_is_covered_before_hand_shuffling() -> None:
    t = _batch_table()
    out = _shuffler(t, EventType.SHUFFLER_OUT_OF_ORDER, code=2, text="motor")
    assert of_type(out, EventType.TABLE_WARNING)[0].data["what"] == "shuffler_out_of_order"
    v = violations(t.load())
    assert v[0].data["what"] == "hand_shuffle_with_shuffler_uncovered"
    refused = t.start(1)
    assert not refused.ok and "not covered" in refused.error
    assert t.command("cover_shuffler").ok
    assert violations(t.load()) == []
    assert t.start(1).ok


def test_continuous_shuffler_has_no_cutting_card_and_no_batches_549_15() -> None:
    t = make_table(shuffler_device=SHUFFLER, shuffler="continuous")
    t.ready(load=False)
    assert t.start(1).ok  # no shoe to load, no burn
    v = violations(t.device(EventType.SHOE_CUTTING_CARD, {"count": 3, "side": None}))
    assert v[0].rule == cite("549.15")
    v = violations(_shuffler(t, EventType.SHUFFLER_BATCH_REMOVED, batch="red"))
    assert v[0].rule == cite("549.15")
    assert t.command("reshuffle", {"reason": "x"}).rule == cite("549.15")


def test_the_floorperson_may_order_a_reshuffle_after_a_round_549_6_g() -> None:
    t = make_table()
    t.ready()
    t.start(1)
    refused = t.command("reshuffle", {"reason": "suspected count"})
    assert not refused.ok and refused.rule == cite("549.6(g)")
    t.draws("TS", "7D", "9C", "8S")
    t.decide(1, "stand")
    t.dealer("dealer_turn")
    t.dealer("round_end")
    out = t.command("reshuffle", {"reason": "suspected count"}).output
    assert of_type(out, EventType.CARDS_SHUFFLE_REQUIRED)[0].rule == cite("549.6(g)")
    assert not t.start(1).ok


def test_decks_are_changed_every_24_hours_with_a_warning_549_3_e() -> None:
    t = make_table()
    t.ready()
    opened = t.clock.now
    t.clock.now = opened + timedelta(hours=22, minutes=59)
    assert t.engine.tick(t.clock.now).events == []
    t.clock.now = opened + timedelta(hours=23, minutes=1)
    out = t.engine.tick(t.clock.now)
    warning = of_type(out, EventType.TABLE_WARNING)[0]
    assert warning.data["what"] == "deck_change_due" and warning.rule == cite("549.3(e)")
    assert t.engine.tick(t.clock.step()).events == []  # once
    # A new gaming day began (06:00 New York): the reader is inspected and tested again.
    assert not t.start(1).ok
    assert t.inspect().ok
    t.reader(EventType.READER_SELF_TEST, {"passed": True})
    assert t.start(1).ok  # still within the 24 hours
    t.draws("TS", "7D", "9C", "8S")
    t.decide(1, "stand")
    t.dealer("dealer_turn")
    t.dealer("round_end")
    t.clock.now = opened + timedelta(hours=24, minutes=1)
    refused = t.start(1)
    assert not refused.ok and refused.rule == cite("549.3(e)")
    changed = t.command("change_decks").output.events[0]
    assert changed.type == EventType.CARDS_DECKS_CHANGED and changed.rule == cite("549.3(e)")
    t.inspect_decks()  # the new decks are a receipt (§ 549.5(a))
    t.load()
    assert t.start(1).ok


def test_spanish21_deck_change_cites_551_3_c_and_needs_a_record() -> None:
    t = make_table("spanish21")
    t.connect_all()
    t.inspect()
    t.command("open")
    t.reader(EventType.READER_SELF_TEST, {"passed": True})
    refused = t.start(1)
    assert not refused.ok and refused.rule == cite("551.3(c)")
