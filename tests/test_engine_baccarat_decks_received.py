"""Decks received at a Baccarat-family table are inspected deck by deck before use.

58 Pa. Code § 541.4(a), § 543.4(a), § 545.4(a): the dealer sorts and inspects each deck
separately, face down, and the floorperson assigned to the table verifies the inspection;
decks received preinspected and preshuffled are exempt (§ 541.4(e), § 543.4(d),
§ 545.4(d)), as the receipt must say. Until then a stack of them does not count as
loaded and no coup starts. § 541.5(h): no gaming activity at a Minibaccarat table.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from pydantic import ValidationError
from test_engine_baccarat_support import make_table, of_type, violations

from floord.contract import EventType, cite
from floord.engine.baccarat.rules import BaccaratRules, RulesError
from floord.games.baccarat import BaccaratRulesConfig as ConfigRules

pytestmark = pytest.mark.unit

RECEIVED = {"preinspected_preshuffled": False, "decks": 8}
INSPECTION = {"minibaccarat": "541.4(a)", "midibaccarat": "543.4(a)", "baccarat": "545.4(a)"}
LOADED = {"side": None, "cards": 416}
PREINSPECTED = {"minibaccarat": "541.4(e)", "midibaccarat": "543.4(d)", "baccarat": "545.4(d)"}


@pytest.mark.parametrize("game", ["minibaccarat", "midibaccarat", "baccarat"])
def test_decks_received_are_sorted_inspected_and_verified_before_use_54x_4_a(game: str) -> None:
    """§ 545.4(a): "After receiving the six or more decks of cards at the table, the dealer
    calling the game shall sort and inspect each deck of cards separately, face down and
    the floorperson assigned to the table shall verify the inspection." (§ 541.4(a) and
    § 543.4(a) say the same.)"""
    t = make_table(game)
    t.ready(load=False)
    received = t.command("decks_received", RECEIVED)
    assert received.ok, received.error
    [event] = of_type(received.output, EventType.CARDS_DECKS_RECEIVED)
    assert event.rule == cite(INSPECTION[game]) and event.data["inspection"] == "required"
    # A stack loaded before the inspection is a violation and does not count.
    t.cut_if_due()
    [stale] = violations(t.device(EventType.SHOE_LOADED, LOADED))
    assert stale.data["what"] == "decks_not_inspected" and stale.rule == cite(INSPECTION[game])
    refused = t.start()
    assert not refused.ok and refused.rule == cite(INSPECTION[game])
    assert "not been inspected by the dealer" in refused.error
    # Each deck separately: the dealer says how many decks were inspected, all eight.
    lumped = t.dealer("decks_inspected", {"defects_found": False})
    assert not lumped.ok and "each deck is inspected separately" in lumped.error
    seven = t.dealer("decks_inspected", {"defects_found": False, "decks": 7})
    assert not seven.ok and "(8 received), found 7" in seven.error
    inspected = t.dealer("decks_inspected", {"defects_found": False, "decks": 8})
    assert inspected.ok, inspected.error
    [step] = of_type(inspected.output, EventType.CARDS_DECKS_INSPECTED)
    assert step.rule == cite(INSPECTION[game]) and step.data["decks"] == 8
    assert step.data["cleared"] is False
    assert "not been verified" in t.start().error
    verified = t.command("decks_inspected", {"defects_found": False})
    [step] = of_type(verified.output, EventType.CARDS_DECKS_INSPECTED)
    assert step.rule == cite(INSPECTION[game]) and step.data["step"] == "verified"
    assert step.data["cleared"] is False and step.data["to_spread"] == [{}]
    assert t.dealer("decks_spread", {"defects_found": False, "washed": True}).ok
    t.load()
    assert t.start().ok


SPREAD = {"minibaccarat": "541.4(", "midibaccarat": "543.4(", "baccarat": "545.4("}


@pytest.mark.parametrize("game", ["minibaccarat", "midibaccarat", "baccarat"])
def test_decks_are_spread_after_the_verification_then_washed_and_stacked_54x_4_b_c(
    game: str,
) -> None:
    """§ 545.4(b): "Following the inspection of the cards by the dealer and the verification
    by the floorperson assigned to the table, the cards shall be spread out face up on the
    table for visual inspection by the first player to arrive at the table." (c): "After the
    first player is afforded an opportunity to visually inspect the cards, the cards shall
    be turned face down on the table, mixed thoroughly by a washing of the cards and
    stacked." (§ 541.4(b), (c) and § 543.4(b), (c) say the same, in rows.)"""
    para = SPREAD[game]
    t = make_table(game)
    t.ready(load=False)
    assert t.command("decks_received", RECEIVED).ok
    ok = {"defects_found": False, "washed": True}
    assert "none yet" in t.dealer("decks_spread", ok).error
    assert t.dealer("decks_inspected", {"defects_found": False, "decks": 8}).ok
    early = t.dealer("decks_spread", ok)
    assert not early.ok and "verification" in early.error and early.rule == cite(para + "b)")
    assert t.command("decks_inspected", {"defects_found": False}).ok
    # Verified, not spread: a stack loaded does not count and no coup starts, under (b).
    t.cut_if_due()
    [stale] = violations(t.device(EventType.SHOE_LOADED, LOADED))
    assert stale.rule == cite(para + "b)") and stale.data["what"] == "decks_not_inspected"
    refused = t.start()
    assert not refused.ok and refused.rule == cite(para + "b)") and "spread" in refused.error
    assert "the dealer spreads" in t.command("decks_spread", ok).error
    unwashed = t.dealer("decks_spread", {**ok, "washed": False})
    assert not unwashed.ok and unwashed.rule == cite(para + "c)")
    spread = t.dealer("decks_spread", ok)
    [event] = of_type(spread.output, EventType.CARDS_DECKS_SPREAD)
    assert event.rule == cite(para + "b)") and event.data["wash_rule"] == cite(para + "c)")
    assert event.data["cleared"] is True and event.data["washed"] is True
    restored = make_table(game, snapshot=t.engine.snapshot(), clock=t.clock)
    assert "already spread" in restored.dealer("decks_spread", ok).error
    t.load()
    assert t.start().ok


@pytest.mark.parametrize("game", ["minibaccarat", "midibaccarat", "baccarat"])
def test_preinspected_and_preshuffled_decks_are_recorded_not_assumed_54x_4_d_e(game: str) -> None:
    """§ 545.4(d): "If the decks of cards received at the table are preinspected and
    preshuffled in accordance with § 523.16(u) or (v) ..., the requirements in subsections
    (a)—(c) do not apply." (§ 543.4(d); § 541.4(e): "(a)—(d)".) The receipt says which."""
    t = make_table(game)
    t.ready(load=False)
    refused = t.command("decks_received", {"decks": 8})
    assert not refused.ok and "never assumed" in refused.error
    assert refused.rule == cite(INSPECTION[game])
    wrong = t.command("decks_received", {"preinspected_preshuffled": True, "decks": 6})
    assert not wrong.ok and "receives 8 deck(s)" in wrong.error
    received = t.command("decks_received", {"preinspected_preshuffled": True})
    [event] = of_type(received.output, EventType.CARDS_DECKS_RECEIVED)
    assert event.rule == cite(PREINSPECTED[game]) and event.data["inspection"] == "not_required"
    assert event.data["decks"] == 8  # the table's decks when the receipt names none
    assert "preinspected" in t.dealer("decks_inspected", {"defects_found": False}).error
    t.load()
    assert t.start().ok


def test_change_decks_is_a_receipt_whose_exemption_is_never_assumed_545_4_a() -> None:
    """§ 545.10(e): after the cover card's last hand "the cards shall be replaced with new
    decks of cards"; those are decks received at the table, inspected under § 545.4(a)."""
    t = make_table("baccarat")
    t.ready(load=False)
    changed = t.command("change_decks")
    [event] = of_type(changed.output, EventType.CARDS_DECKS_CHANGED)
    assert event.data["inspection"] == "required" and event.data["preinspected_preshuffled"] is None
    assert t.engine.snapshot()["shoe"]["receipt"]["preinspected_preshuffled"] is None
    t.cut_if_due()
    [stale] = violations(t.device(EventType.SHOE_LOADED, LOADED))
    assert stale.data["what"] == "decks_not_inspected"
    # Defects found: the set is rejected and only another receipt clears the table.
    assert t.dealer("decks_inspected", {"defects_found": True, "decks": 8}).ok
    assert "rejected for defects" in t.start().error
    assert t.command("change_decks", {"preinspected_preshuffled": True}).ok
    t.load()
    assert t.start().ok


def test_the_receipt_survives_a_snapshot_545_4_a() -> None:
    """A restart restores the inspection exactly where it stood (§ 545.4(a))."""
    t = make_table("baccarat")
    t.ready(load=False)
    t.command("decks_received", RECEIVED)
    assert t.dealer("decks_inspected", {"defects_found": False, "decks": 8}).ok
    restored = make_table("baccarat", snapshot=t.engine.snapshot(), clock=t.clock)
    assert restored.engine.snapshot()["shoe"]["receipt"] == t.engine.snapshot()["shoe"]["receipt"]
    assert "not been verified" in restored.start().error
    assert restored.command("decks_inspected", {"defects_found": False}).ok


def test_no_gaming_activity_at_minibaccarat_requires_a_reshuffle_541_5_h() -> None:
    """§ 541.5(h): "If there is no gaming activity at a Minibaccarat table which is open for
    gaming, the cards shall be removed from the dealing shoe and the discard rack, and
    spread out on the table ..." and (h)(1): "... mixed thoroughly by a washing of the
    cards, stacked, then shuffled and cut in accordance with this section." """
    t = make_table("minibaccarat", idle_minutes=15)
    t.ready()
    t.coup("3S", "2H", "KD", "2C", "2D", "3H", "9S")
    t.clock.now += timedelta(minutes=14)
    assert of_type(t.engine.tick(t.clock.now), EventType.CARDS_SHUFFLE_REQUIRED) == []
    t.clock.now += timedelta(minutes=2)
    [shuffle] = of_type(t.engine.tick(t.clock.now), EventType.CARDS_SHUFFLE_REQUIRED)
    assert shuffle.rule == cite("541.5(h)") and shuffle.data["reason"] == "no_gaming_activity"
    assert shuffle.data["idle_minutes"] == 15
    assert t.engine.tick(t.clock.now).events == []  # said once
    refused = t.start()
    assert not refused.ok and refused.rule == cite("541.5(h)")
    restored = make_table("minibaccarat", idle_minutes=15, snapshot=t.engine.snapshot())
    assert restored.engine.shoe.shuffle_required == "no_gaming_activity"
    t.load()  # spread, washed, shuffled, cut, loaded and burned again
    assert t.start().ok


def test_idle_minutes_is_minibaccarats_and_checked_541_5_h() -> None:
    """Only chapter 541 has the no-gaming-activity paragraph in floord's sources (§ 541.5(h));
    chapters 543 and 545 have none, so the option is refused there."""
    assert BaccaratRules("minibaccarat", idle_minutes=30).idle_minutes == 30
    for game in ("midibaccarat", "baccarat"):
        with pytest.raises(RulesError, match=r"541\.5\(h\)"):
            BaccaratRules(game, idle_minutes=30)
    for bad in (0, 1441, True):
        with pytest.raises(RulesError):
            BaccaratRules("minibaccarat", idle_minutes=bad)
        if not isinstance(bad, bool):
            with pytest.raises(ValidationError):
                ConfigRules(idle_minutes=bad)
    t = make_table("minibaccarat")  # no option: not watched
    t.ready()
    t.clock.now += timedelta(hours=5)
    assert t.engine.tick(t.clock.now).events == []
