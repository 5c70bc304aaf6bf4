"""The burn after each load and the cover card: § 541.5(g), § 543.5(g), § 545.5(f),
§ 541.10(e), § 543.10(e), § 545.10(e)."""

from __future__ import annotations

import pytest
from test_engine_baccarat_support import make_table, of_type, types, violations

from floord.contract import EventType, cite

pytestmark = pytest.mark.unit

BURN = {"minibaccarat": "541.5(g)", "midibaccarat": "543.5(g)", "baccarat": "545.5(f)"}
COVER = {"minibaccarat": "541.10(e)", "midibaccarat": "543.10(e)", "baccarat": "545.10(e)"}
COUP = ("7S", "2H", "KD", "4C", "KH")  # Player 7, Banker 6: no third card


@pytest.mark.parametrize("game", list(BURN))
@pytest.mark.parametrize(("first", "count"), [("AS", 2), ("7D", 8), ("TH", 11), ("QC", 11)])
def test_the_burn_is_checked_card_by_card(game, first, count) -> None:
    t = make_table(game)
    t.ready(load=False)
    t.cut_if_due()
    t.device(EventType.SHOE_LOADED, {"side": None, "cards": 416})
    refused = t.start()
    assert not refused.ok and refused.rule == cite(BURN[game])
    for position in range(1, count + 1):
        [burn] = of_type(t.draw(first if position == 1 else "5S"), EventType.CARDS_BURN)
        assert burn.rule == cite(BURN[game])
        assert burn.data["position"] == position and burn.data["burn_count"] == count
        assert burn.data["first_card"] == first
        assert burn.data["complete"] is (position == count)
        if position < count:
            refused = t.start()
            assert not refused.ok and refused.rule == cite(BURN[game])
            assert f"{position} of {count}" in refused.error
    assert t.start().ok
    hands = of_type(t.draw("9S"), EventType.BACCARAT_HAND)
    assert hands and hands[0].data["hand"] == "player"  # the burn took no coup card


def test_a_manual_shoe_burns_at_least_two_cards_before_the_first_coup() -> None:
    t = make_table(recognition=False)
    t.ready(load=False)
    t.cut_if_due()
    t.device(EventType.SHOE_LOADED, {"side": None, "cards": None})
    [burn] = of_type(t.draw(None), EventType.CARDS_BURN)
    assert burn.data["burn_count"] is None and burn.data["complete"] is False
    refused = t.start()
    assert not refused.ok and refused.rule == cite("545.5(f)")
    t.draw(None)
    assert t.start().ok
    out = t.draws(None, None, None, None)
    assert not out.events
    end = t.end().output
    assert of_type(end, EventType.ROUND_ENDED)[0].data["outcome"] == "not_called"
    assert not of_type(end, EventType.BACCARAT_RESULT)


def test_a_manual_shoe_flags_more_than_eleven_burn_cards_and_seven_coup_cards() -> None:
    t = make_table(recognition=False)
    t.ready(load=False)
    t.cut_if_due()
    t.device(EventType.SHOE_LOADED, {"side": None, "cards": None})
    out = t.draws(*[None] * 12)
    [too_many] = violations(out)
    assert too_many.data["what"] == "too_many_burn_cards" and too_many.rule == cite("545.5(f)")
    t.start()
    [seventh] = violations(t.draws(*[None] * 7))
    assert seventh.data["what"] == "seventh_card" and seventh.rule == cite("545.10(d)")


def test_a_card_outside_a_coup_is_a_violation() -> None:
    t = make_table()
    t.ready()
    [wrong] = violations(t.draw("5H"))
    assert wrong.data["what"] == "card_outside_round" and wrong.rule == cite("545.9")


@pytest.mark.parametrize("game", list(COVER))
def test_cover_card_during_play_last_hand_then_reshuffle_or_new_decks(game) -> None:
    t = make_table(game)
    t.ready()
    t.coup(*COUP)
    assert t.start().ok
    t.draws("7S", "2H")
    assert t.device(EventType.SHOE_CUTTING_CARD, {"count": 60, "side": None}).events == []
    t.draws("KD", "4C")
    out = t.end().output
    assert types(out)[-2:] == ["round.ended", "cards.last_hand"]
    last = out.events[-1]
    assert last.rule == cite(COVER[game]) and last.data["announce"] == "last hand"
    # One more hand, then the cards are reshuffled (541) or replaced (543, 545).
    out = t.coup(*COUP)
    assert of_type(out, EventType.ROUND_STARTED)[0].data["last_hand"] is True
    [shuffle] = of_type(out, EventType.CARDS_SHUFFLE_REQUIRED)
    assert shuffle.rule == cite(COVER[game]) and shuffle.data["reason"] == "cover_card"
    new_decks = game != "minibaccarat"
    assert shuffle.data["new_decks"] is new_decks
    refused = t.start()
    assert not refused.ok and refused.rule == cite(COVER[game])
    if new_decks:
        [stale] = violations(t.load())
        assert stale.data["what"] == "decks_not_replaced" and stale.rule == cite(COVER[game])
        assert not t.start().ok
        changed = t.command("change_decks")
        [event] = changed.output.events
        assert event.type == EventType.CARDS_DECKS_CHANGED and event.rule == cite(COVER[game])
        assert event.data["inspection"] == "required"  # received: inspected before use
        t.inspect_decks(8)
        assert not t.start().ok  # the new decks are loaded and burned first
    t.load()
    assert t.start().ok


def test_cover_card_as_the_first_card_of_a_round_545_10_e() -> None:
    t = make_table()
    t.ready()
    t.device(EventType.SHOE_CUTTING_CARD, {"count": 40, "side": None})
    out = t.coup(*COUP)
    assert of_type(out, EventType.ROUND_STARTED)[0].data["cover_card"] is True
    assert types(out)[-1] == "cards.last_hand"
    out = t.coup(*COUP)
    assert types(out)[-1] == "cards.shuffle_required"
    assert not t.start().ok


def test_a_second_cover_card_changes_nothing_and_a_void_completes_the_hand() -> None:
    t = make_table("minibaccarat")
    t.ready()
    t.start()
    t.device(EventType.SHOE_CUTTING_CARD, {"count": 60, "side": None})
    t.device(EventType.SHOE_CUTTING_CARD, {"count": 61, "side": None})
    out = t.command("close").output
    assert types(out) == ["table.closed", "round.voided", "cards.last_hand"]


def test_floorperson_reshuffle_between_coups_is_floords_policy() -> None:
    """§ 541.5(c): "After shuffling the cards and, when applicable, reshuffling them, the
    dealer shall offer the stack of cards ... to the players to be cut." It says who cuts,
    not that a floorperson may order a reshuffle; the order is floord's policy, uncited
    (this test once asserted § 541.5(c))."""
    t = make_table("minibaccarat")
    t.ready()
    t.start()
    refused = t.command("reshuffle", {"reason": "player asked"})
    assert not refused.ok and refused.rule is None
    t.draws(*COUP)
    t.end()
    done = t.command("reshuffle", {"reason": "player asked"})
    order = done.output.events[0]
    assert done.ok and order.rule is None and "not a regulation" in order.data["policy"]
    refused = t.start()
    assert not refused.ok and refused.rule is None
    assert not t.start().ok
    t.load()
    assert t.start().ok


def test_shoe_running_out_requires_a_shuffle_under_floords_policy() -> None:
    t = make_table()
    t.ready()
    t.start()
    out = t.device(EventType.SHOE_EMPTY, {"side": None})
    assert [v.data["what"] for v in violations(out)] == ["shoe_empty_mid_round"]
    [shuffle] = of_type(out, EventType.CARDS_SHUFFLE_REQUIRED)
    assert shuffle.rule is None and "not a regulation" in shuffle.data["policy"]
