"""Mississippi Stud decks: the shuffler's count, jams, two decks, the stub, deck changes."""

from __future__ import annotations

from datetime import timedelta

import pytest
from test_engine_stud_support import make_table, of_type

from floord.contract import EventType, cite

pytestmark = pytest.mark.unit


def test_a_counting_shuffler_reporting_51_cards_removes_the_deck_571_5_b() -> None:
    t = make_table()
    t.ready()
    assert t.play_round({1: "AS KS"}, "QS JS TS").ok
    out = t.prepare(cards=51)
    [removed] = of_type(out, EventType.CARDS_DECK_REMOVED)
    assert removed.rule == cite("571.5(b)") and removed.data["cards"] == 51
    refused = t.start(1)
    assert not refused.ok and refused.rule == cite("571.5(b)") and "change_decks" in refused.error
    t.new_decks()
    t.prepare()
    assert t.start(1).ok


def test_a_non_counting_shuffler_does_not_remove_on_its_count() -> None:
    t = make_table(shuffler="non_counting")
    t.ready()
    out = t.prepare(cards=51)
    assert not of_type(out, EventType.CARDS_DECK_REMOVED)


def test_the_deck_is_shuffled_after_every_round_571_5_a() -> None:
    t = make_table()
    t.ready()
    assert t.play_round({1: "AS KS"}, "QS JS TS").ok
    t.device(EventType.SHOE_LOADED, {"side": None, "cards": None})
    refused = t.start(1)
    assert not refused.ok and refused.rule == cite("571.5(a)")


def test_a_shoe_not_loaded_since_the_last_round_refuses_571_8_a() -> None:
    t = make_table(shuffler="none")
    t.ready()
    assert t.play_round({1: "AS KS"}, "QS JS TS").ok
    refused = t.start(1)
    assert not refused.ok and refused.rule == cite("571.8(a)")
    t.prepare()
    assert t.start(1).ok


def test_a_jam_or_an_unfinished_shuffle_means_a_reshuffle_571_13_e() -> None:
    t = make_table()
    t.ready()
    assert t.play_round({1: "AS KS"}, "QS JS TS").ok
    t.shuffler(EventType.SHUFFLER_SHUFFLE_STARTED, {"batch": "deck"})
    out = t.shuffler(EventType.SHUFFLER_JAM, {"batch": None, "code": 7, "text": "jam"})
    [due] = of_type(out, EventType.CARDS_SHUFFLE_REQUIRED)
    assert due.rule == cite("571.13(e)") and due.data["reason"] == "shuffler_jam"
    t.device(EventType.SHOE_LOADED, {"side": None, "cards": None})
    refused = t.start(1)
    assert not refused.ok and refused.rule == cite("571.13(e)")
    t.shuffler(EventType.SHUFFLER_SHUFFLE_STARTED, {"batch": "deck"})
    out = t.shuffler(EventType.SHUFFLER_BATCH_REMOVED, {"batch": "deck"})
    [due] = of_type(out, EventType.CARDS_SHUFFLE_REQUIRED)
    assert due.rule == cite("571.13(e)") and due.data["reason"] == "shuffle_unfinished"
    t.prepare()
    assert t.start(1).ok


def test_an_out_of_order_shuffler_is_covered_before_hand_shuffling_571_13_g() -> None:
    t = make_table()
    t.ready()
    assert t.play_round({1: "AS KS"}, "QS JS TS").ok
    out = t.shuffler(EventType.SHUFFLER_OUT_OF_ORDER, {"code": 5, "text": "motor"})
    [warn] = of_type(out, EventType.TABLE_WARNING)
    assert warn.rule == cite("571.13(g)")
    loaded = t.device(EventType.SHOE_LOADED, {"side": None, "cards": None})
    [v] = of_type(loaded, EventType.PROCEDURE_VIOLATION)
    assert v.rule == cite("571.13(g)")
    refused = t.start(1)
    assert not refused.ok and refused.rule == cite("571.13(g)")
    assert t.command("cover_shuffler").ok
    assert t.dealer("cut", {"cards": 20}).ok  # shuffled by hand: cut (§ 571.5(c)(2))
    assert t.start(1).ok  # shuffled by hand, cut, loaded, the shuffler covered


def test_dealing_from_the_hand_needs_a_working_shuffler_571_9_a_1() -> None:
    t = make_table(dealing="hand", recognition=False)
    t.ready()
    t.shuffler(EventType.SHUFFLER_OUT_OF_ORDER, {"code": 5, "text": "motor"})
    assert t.command("cover_shuffler").ok
    refused = t.start(1)
    assert not refused.ok and refused.rule == cite("571.9(a)(1)")


def test_two_decks_alternate_571_3_b() -> None:
    t = make_table(decks=2, deck_backs=["red", "blue"])
    t.ready()  # red shuffled and loaded
    assert t.play_round({1: "AS KS"}, "QS JS TS").ok
    t.prepare(deck="red")  # the same deck again
    refused = t.start(1)
    assert not refused.ok and refused.rule == cite("571.3(b)(4)")
    t.prepare(deck="blue")
    started = t.start(1)
    assert started.ok
    [rs] = of_type(started.output, EventType.ROUND_STARTED)
    assert rs.data["deck"] == "blue"
    out = t.shuffler(EventType.SHUFFLER_SHUFFLE_STARTED, {"batch": "blue"})
    [v] = of_type(out, EventType.PROCEDURE_VIOLATION)
    assert v.rule == cite("571.3(b)(3)")


def test_two_decks_need_a_shuffler_and_two_back_colours() -> None:
    import pytest

    with pytest.raises(ValueError, match=r"571\.3\(b\)"):
        make_table(shuffler="none", decks=2, deck_backs=["red", "blue"])
    with pytest.raises(ValueError, match=r"571\.3\(b\)\(2\)"):
        make_table(decks=2, deck_backs=["red", "red"])


def test_decks_changed_every_8_hours_from_a_shoe_571_3_c_2() -> None:
    t = make_table()
    t.ready()
    t.clock.now += timedelta(hours=7, minutes=31)
    [warn] = t.engine.tick(t.clock.step()).events
    assert warn.rule == cite("571.3(c)(2)") and warn.data["what"] == "deck_change_due"
    assert not t.engine.tick(t.clock.step()).events  # once
    t.clock.now += timedelta(minutes=30)
    refused = t.start(1)
    assert not refused.ok and refused.rule == cite("571.3(c)(2)")


def test_decks_changed_every_4_hours_by_hand_571_3_c_1() -> None:
    t = make_table(dealing="hand", recognition=False)
    t.ready()
    t.clock.now += timedelta(hours=4)
    refused = t.start(1)
    assert not refused.ok and refused.rule == cite("571.3(c)(1)")
    [changed] = t.command("change_decks").output.events
    assert changed.rule == cite("571.3(c)(1)")


def test_no_play_before_a_deck_change_is_recorded() -> None:
    t = make_table()
    t.connect("shoe-1", ["recognition"])
    t.connect("shuffler-1", [])
    assert t.command("inspect", {"checklist": {"cards_inspected": True, "cards_verified": True}}).ok
    assert t.command("open").ok
    refused = t.start(1)
    assert not refused.ok and refused.rule == cite("571.3(c)(2)")


def _four_rounds(t) -> None:
    for _ in range(4):
        t.prepare()
        assert t.start(1).ok
        assert t.dealer("no_more_bets").ok
        t.draws("AS", "KS", "QS", "JS", "TS")
        for card in (1, 2, 3):
            assert t.street({1: "play1"}, card).ok
        assert t.dealer("round_end").ok


def _fifth_round_dealt(t) -> None:
    t.prepare()
    assert t.start(1, 2).ok
    assert t.dealer("no_more_bets").ok
    t.draws("AS", "KS", "2C", "3D", "QS", "JS", "TS")


def test_stub_counted_every_5_rounds_without_a_counting_shuffler_571_8_f() -> None:
    t = make_table(shuffler="none")
    t.connect("shoe-1", ["recognition"])
    assert t.command("inspect", {"checklist": {"cards_inspected": True, "cards_verified": True}}).ok
    assert t.command("open").ok
    t.new_decks()
    _four_rounds(t)
    _fifth_round_dealt(t)
    t.decide(1, "fold")
    t.decide(2, "fold")
    refused = t.dealer("round_end")
    assert not refused.ok and refused.rule == cite("571.8(f)")
    assert t.dealer("stub_count", {"cards": 52 - 4 - 3}).ok
    assert t.dealer("round_end").ok
    assert t.engine.decks.rounds_uncounted == 0


def test_a_counting_shuffler_needs_no_stub_count() -> None:
    t = make_table()
    t.ready()
    t.engine.decks.rounds_uncounted = 9
    t.batch = 0
    _fifth_round_dealt(t)
    t.decide(1, "fold")
    t.decide(2, "fold")
    assert t.dealer("round_end").ok


def test_a_wrong_stub_count_voids_and_misdealt_or_not_decides_the_deck_571_8_h() -> None:
    t = make_table(shuffler="none")
    t.connect("shoe-1", ["recognition"])
    assert t.command("inspect", {"checklist": {"cards_inspected": True, "cards_verified": True}}).ok
    assert t.command("open").ok
    t.new_decks()
    _fifth_round_dealt(t)
    asks = t.dealer("stub_count", {"cards": 44})
    assert not asks.ok and asks.rule == cite("571.8(h)") and "misdealt" in asks.error
    misdeal = t.dealer("stub_count", {"cards": 44, "misdealt": True})
    [void] = of_type(misdeal.output, EventType.ROUND_VOIDED)
    assert void.rule == cite("571.8(h)")
    assert of_type(misdeal.output, EventType.CARDS_SHUFFLE_REQUIRED)
    _fifth_round_dealt(t)
    short = t.dealer("stub_count", {"cards": 44, "misdealt": False})
    [removed] = of_type(short.output, EventType.CARDS_DECK_REMOVED)
    assert removed.rule == cite("571.8(h)")
    t.prepare()
    refused = t.start(1)
    assert not refused.ok and refused.rule == cite("571.8(h)")


def test_stub_rules_cite_the_tables_dealing_procedure() -> None:
    t = make_table(dealing="automated_shoe", shuffler="non_counting")
    t.ready()
    assert t.start(1).ok
    assert t.dealer("no_more_bets").ok
    t.draws("AS", "KS")
    refused = t.dealer("stub_count", {"cards": 40})
    assert refused.rule == cite("571.10(f)")
