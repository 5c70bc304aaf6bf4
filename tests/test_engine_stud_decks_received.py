"""Decks received at a Mississippi Stud table: inspected, verified, then used (§ 571.4).

A receipt (`decks_received`, or the floorperson's `change_decks` for the 4 and 8 hour
changes of § 571.3(c)) is on the record before the decks are used; the dealer inspects
them (two decks each on its own) and the floorperson verifies; until then a shuffle or a
shoe load of them does not count and no round starts. Also here: one deck only in the
discard rack (§ 571.3(b)(5)), no gaming activity (§ 571.5(f)) and a counting shuffler
that reports no count (floord policy).
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from pydantic import ValidationError
from test_engine_stud_support import SHUFFLER, make_table, of_type

from floord.contract import EventType, cite
from floord.engine.cards.deck_book import COUNT_MISSING_POLICY
from floord.engine.stud.rules import StudRules
from floord.games.stud import StudRulesConfig as ConfigRules

pytestmark = pytest.mark.unit

RECEIVED = {"preinspected_preshuffled": False}
LOADED = {"side": None, "cards": None}
SPREAD = {"defects_found": False, "washed": True}


def _open(**over):
    t = make_table(**over)
    t.connect("shoe-1", ["recognition"])
    if t.engine.shuffler_device:
        t.connect(SHUFFLER, [])
    assert t.command("inspect", {"checklist": {"cards_inspected": True, "cards_verified": True}}).ok
    assert t.command("open").ok
    return t


def _violations(out):
    return of_type(out, EventType.PROCEDURE_VIOLATION)


def test_decks_received_are_inspected_and_verified_before_any_use_571_4_a_b() -> None:
    """§ 571.4(a): "Except as provided in subsection (e), after receiving the cards at the
    table, the dealer shall inspect the cards for defects." (b): "Following the inspection
    of the cards by the dealer and the verification by the floorperson assigned to the
    table, ..." """
    t = _open()
    received = t.command("decks_received", RECEIVED)
    assert received.ok, received.error
    [event] = of_type(received.output, EventType.CARDS_DECKS_RECEIVED)
    assert event.rule == cite("571.4(a)") and event.data["inspection"] == "required"
    assert event.data["deck_rule"] == cite("571.3(c)(2)") and event.data["decks"] == 1
    # Shuffled and loaded before the inspection: violations, and neither counts.
    out = t.prepare()
    steps = sorted(v.data["step"] for v in _violations(out))
    assert steps == ["shoe load", "shuffle"]
    assert all(v.rule == cite("571.4(a)") for v in _violations(out))
    refused = t.start(1)
    assert not refused.ok and refused.rule == cite("571.4(a)")
    assert "not been inspected by the dealer" in refused.error
    inspected = t.dealer("decks_inspected", {"defects_found": False})
    [step] = of_type(inspected.output, EventType.CARDS_DECKS_INSPECTED)
    assert step.rule == cite("571.4(a)") and step.data["cleared"] is False
    verified = t.command("decks_inspected", {"defects_found": False})
    [step] = of_type(verified.output, EventType.CARDS_DECKS_INSPECTED)
    assert step.rule == cite("571.4(b)") and step.data["cleared"] is False
    assert t.dealer("decks_spread", SPREAD).ok  # (b), (c): spread, washed, stacked
    assert not t.start(1).ok  # the early shuffle and load did not count
    assert _violations(t.prepare()) == []
    assert t.start(1).ok


def test_two_decks_are_each_inspected_separately_571_4_d() -> None:
    """§ 571.4(d): "If a certificate holder uses an automated card shuffling device to play
    the game and two decks of cards are received at the table ..., each deck of cards
    shall be separately spread, inspected, verified, ..." """
    t = _open(decks=2, deck_backs=["red", "blue"])
    assert "receives 2 deck(s)" in t.command("decks_received", {**RECEIVED, "decks": 1}).error
    assert t.command("decks_received", RECEIVED).ok
    lumped = t.dealer("decks_inspected", {"defects_found": False})
    assert not lumped.ok and "each deck is inspected separately" in lumped.error
    assert lumped.rule == cite("571.4(a)")
    inspected = t.dealer("decks_inspected", {"defects_found": False, "decks": 2})
    [step] = of_type(inspected.output, EventType.CARDS_DECKS_INSPECTED)
    assert step.rule == cite("571.4(d)") and step.data["decks"] == 2
    assert t.command("decks_inspected", {"defects_found": False}).ok
    for deck in ("red", "blue"):
        assert t.dealer("decks_spread", {**SPREAD, "deck": deck}).ok
    t.prepare()
    assert t.start(1).ok


def test_the_cards_are_spread_after_the_verification_then_washed_and_stacked_571_4_b_c() -> None:
    """§ 571.4(b): "Following the inspection of the cards by the dealer and the verification
    by the floorperson assigned to the table, the cards shall be spread out face up on the
    table for visual inspection by the first player to arrive at the table." (c): "After
    the first player arriving at the table is afforded an opportunity to visually inspect
    the cards, the cards shall be turned face down on the table, mixed thoroughly by a
    washing of the cards and stacked. Once the cards have been stacked, they shall be
    shuffled in accordance with § 571.5" """
    t = _open()
    t.command("decks_received", RECEIVED)
    t.dealer("decks_inspected", {"defects_found": False})
    early = t.dealer("decks_spread", SPREAD)
    assert not early.ok and early.rule == cite("571.4(b)") and "verification" in early.error
    verified = t.command("decks_inspected", {"defects_found": False})
    [step] = of_type(verified.output, EventType.CARDS_DECKS_INSPECTED)
    assert step.data["to_spread"] == [{}]
    # Verified, not yet stacked: the shuffle and the load do not count, under (b).
    out = t.prepare()
    assert sorted(v.data["step"] for v in _violations(out)) == ["shoe load", "shuffle"]
    assert all(v.rule == cite("571.4(b)") for v in _violations(out))
    refused = t.start(1)
    assert not refused.ok and refused.rule == cite("571.4(b)") and "spread" in refused.error
    assert "the dealer spreads" in t.command("decks_spread", SPREAD).error
    unwashed = t.dealer("decks_spread", {**SPREAD, "washed": False})
    assert not unwashed.ok and unwashed.rule == cite("571.4(c)")
    spread = t.dealer("decks_spread", SPREAD)
    [event] = of_type(spread.output, EventType.CARDS_DECKS_SPREAD)
    assert event.rule == cite("571.4(b)") and event.data["wash_rule"] == cite("571.4(c)")
    assert event.data["cleared"] is True
    assert _violations(t.prepare()) == []
    assert t.start(1).ok


def test_two_decks_are_each_spread_separately_571_4_d() -> None:
    """§ 571.4(d): "... each deck of cards shall be separately spread, inspected, verified,
    spread, inspected, mixed, stacked and shuffled in accordance with subsections (a)—(c)."
    One `decks_spread` per deck, named by its back; a deck's spread is on the record alone."""
    t = _open(decks=2, deck_backs=["red", "blue"])
    t.command("decks_received", RECEIVED)
    t.dealer("decks_inspected", {"defects_found": False, "decks": 2})
    verified = t.command("decks_inspected", {"defects_found": False})
    [step] = of_type(verified.output, EventType.CARDS_DECKS_INSPECTED)
    assert step.data["to_spread"] == [{"deck": "red"}, {"deck": "blue"}]
    together = t.dealer("decks_spread", SPREAD)
    assert not together.ok and together.rule == cite("571.4(d)") and "by part" in together.error
    assert "by part" in t.dealer("decks_spread", {**SPREAD, "deck": "green"}).error
    red = t.dealer("decks_spread", {**SPREAD, "deck": "red"})
    [event] = of_type(red.output, EventType.CARDS_DECKS_SPREAD)
    assert event.rule == cite("571.4(d)") and event.data["deck"] == "red"
    assert event.data["to_spread"] == [{"deck": "blue"}] and event.data["cleared"] is False
    refused = t.start(1)
    assert not refused.ok and refused.rule == cite("571.4(d)") and "deck blue" in refused.error
    restored = make_table(decks=2, deck_backs=["red", "blue"], snapshot=t.engine.snapshot())
    assert "already spread" in restored.dealer("decks_spread", {**SPREAD, "deck": "red"}).error
    blue = t.dealer("decks_spread", {**SPREAD, "deck": "blue"})
    [event] = of_type(blue.output, EventType.CARDS_DECKS_SPREAD)
    assert event.data["cleared"] is True


def test_preinspected_decks_are_recorded_and_change_decks_assumes_nothing_571_4_e() -> None:
    """§ 571.4(e): "If the decks of cards received at the table are pre- inspected and
    preshuffled in accordance with § 523.16(u) or (v) ..., subsections (a)—(d) do not
    apply." `decks_received` must say which; a `change_decks` that does not say is
    inspected."""
    t = _open()
    refused = t.command("decks_received", {})
    assert not refused.ok and "never assumed" in refused.error
    received = t.command("decks_received", {"preinspected_preshuffled": True})
    [event] = of_type(received.output, EventType.CARDS_DECKS_RECEIVED)
    assert event.rule == cite("571.4(e)") and event.data["inspection"] == "not_required"
    assert "preinspected" in t.dealer("decks_inspected", {"defects_found": False}).error
    t.prepare()
    assert t.start(1).ok
    t = _open()
    changed = t.command("change_decks")
    [event] = of_type(changed.output, EventType.CARDS_DECKS_CHANGED)
    assert event.rule == cite("571.3(c)(2)") and event.data["inspection"] == "required"
    assert event.data["preinspected_preshuffled"] is None
    t.prepare()
    assert "not been inspected" in t.start(1).error
    assert "unknown argument" in t.command("change_decks", {"decks_new": 1}).error


def test_the_4_and_8_hour_clock_runs_from_the_receipt_571_3_c() -> None:
    """§ 571.3(c): the decks "shall be changed at least: (1) Every 4 hours if the cards
    are dealt by hand. (2) Every 8 hours if the cards are dealt from a manual or automated
    dealing shoe." The clock starts at the receipt, not at the inspection."""
    t = _open()
    received_at = t.clock.now
    t.command("decks_received", RECEIVED)
    t.clock.now += timedelta(hours=1)
    t.inspect_decks(1)
    t.prepare()
    assert t.engine.snapshot()["decks"]["decks_opened_at"].startswith(
        received_at.strftime("%Y-%m-%dT%H:%M")
    )
    t.clock.now = received_at + timedelta(hours=8, seconds=1)
    refused = t.start(1)
    assert not refused.ok and refused.rule == cite("571.3(c)(2)")
    t.new_decks()
    t.prepare()
    assert t.start(1).ok


def test_defects_reject_the_decks_and_the_receipt_survives_a_snapshot_571_4_a() -> None:
    """§ 571.4(a): the dealer "shall inspect the cards for defects": defective decks are
    not used; only new ones clear the table. A restart restores the receipt exactly."""
    t = _open()
    t.command("decks_received", RECEIVED)
    restored = make_table(snapshot=t.engine.snapshot(), clock=t.clock)
    assert restored.engine.decks.receipt == t.engine.decks.receipt
    assert restored.dealer("decks_inspected", {"defects_found": True}).ok
    assert "rejected for defects" in restored.start(1).error
    assert "rejected" in restored.command("decks_inspected", {"defects_found": False}).error
    assert restored.command("decks_received", {"preinspected_preshuffled": True}).ok


def test_only_one_deck_in_the_discard_rack_571_3_b_5() -> None:
    """§ 571.3(b)(5): "The cards from only one deck shall be placed in the discard rack at
    any given time." The stub goes to the rack when the deal ends (§ 571.8(e)); a deck
    dealt last round that has not gone into the shuffler is still there."""
    t = make_table(decks=2, deck_backs=["red", "blue"])
    t.ready()  # red shuffled and loaded
    assert t.play_round({1: "AS KS"}, "QS JS TS").ok
    t.prepare(deck="blue")  # red, dealt last round, is not put into the shuffler
    assert t.start(1).ok
    assert t.dealer("no_more_bets").ok
    t.draws("2S", "3S", "4S", "5S", "6S")
    out = t.decide(1, "play1").output
    [v] = _violations(out)
    assert v.rule == cite("571.3(b)(5)") and v.data["what"] == "two_decks_in_discard_rack"
    assert v.data["other_deck"] == "red"
    assert _violations(t.dealer("no_more_bets").output) == []  # once a round
    # The next round: blue, dealt, goes into the shuffler at once: one deck in the rack.
    t2 = make_table(decks=2, deck_backs=["red", "blue"])
    t2.ready()
    assert t2.play_round({1: "AS KS"}, "QS JS TS").ok
    t2.prepare(deck="blue")
    t2.shuffler(EventType.SHUFFLER_SHUFFLE_STARTED, {"batch": "red"})
    assert t2.start(1).ok and t2.dealer("no_more_bets").ok
    t2.draws("2S", "3S", "4S", "5S", "6S")
    assert _violations(t2.decide(1, "play1").output) == []


def test_no_gaming_activity_reshuffles_the_shoe_571_5_f() -> None:
    """§ 571.5(f): "If there is no gaming activity at a Mississippi Stud table that is open
    for gaming, the cards shall be removed from the dealing shoe and the discard rack, and
    spread out on the table face down ... the procedures in § 571.4(c) ... and this section
    shall be completed." """
    t = make_table(idle_minutes=20)
    t.ready()
    assert t.play_round({1: "AS KS"}, "QS JS TS").ok
    t.prepare()
    t.clock.now += timedelta(minutes=19)
    assert of_type(t.engine.tick(t.clock.now), EventType.CARDS_SHUFFLE_REQUIRED) == []
    t.clock.now += timedelta(minutes=2)
    [shuffle] = of_type(t.engine.tick(t.clock.now), EventType.CARDS_SHUFFLE_REQUIRED)
    assert shuffle.rule == cite("571.5(f)") and shuffle.data["reason"] == "no_gaming_activity"
    assert shuffle.data["idle_minutes"] == 20 and shuffle.data["decks"] == ["deck"]
    assert t.engine.tick(t.clock.now).events == []  # once
    refused = t.start(1)
    assert not refused.ok and refused.rule == cite("571.5(f)")
    restored = make_table(idle_minutes=20, snapshot=t.engine.snapshot(), clock=t.clock)
    assert restored.engine.decks.idle_since == t.engine.decks.idle_since
    t.prepare()  # washed, stacked, shuffled and loaded again
    assert t.start(1).ok


def test_idle_minutes_is_checked_and_absent_means_not_watched_571_5_f() -> None:
    """The idle time is a Rules Submission option (§ 571.5(f) names no time)."""
    assert StudRules(idle_minutes=45).idle_minutes == 45
    for bad in (0, 1441, "ten", True):
        with pytest.raises(ValueError, match=r"571\.5\(f\)"):
            StudRules(idle_minutes=bad)
    for bad in (0, 1441):
        with pytest.raises(ValidationError):
            ConfigRules(idle_minutes=bad)
    t = make_table()
    t.ready()
    t.clock.now += timedelta(hours=3)
    assert of_type(t.engine.tick(t.clock.now), EventType.CARDS_SHUFFLE_REQUIRED) == []


def test_a_counting_shuffler_without_its_count_is_shuffled_again_under_policy() -> None:
    """§ 571.5(b) rules on a shuffler "that counts the number of cards in the deck after
    the completion of each shuffle and indicates whether 52 cards are present" when it
    "reveals that an incorrect number of cards are present"; it says nothing of one that
    reports no count. floord's policy: the shuffle does not count."""
    t = make_table()
    t.ready()
    assert t.play_round({1: "AS KS"}, "QS JS TS").ok
    t.shuffler(EventType.SHUFFLER_SHUFFLE_STARTED, {"batch": "deck"})
    out = t.shuffler(EventType.SHUFFLER_SHUFFLE_COMPLETED, {"batch": "deck", "cards": None})
    [v] = _violations(out)
    assert v.rule is None and v.data["policy"] == COUNT_MISSING_POLICY
    assert v.data["what"] == "shuffle_count_missing" and v.data["basis"] == cite("571.5(b)")
    t.device(EventType.SHOE_LOADED, LOADED)
    refused = t.start(1)
    assert not refused.ok and refused.rule == cite("571.5(a)")
    t.prepare()
    assert t.start(1).ok


def test_preshuffled_decks_are_still_shuffled_by_the_table_before_dealing_571_5_a() -> None:
    """§ 571.5(a): "Immediately prior to the beginning of play, unless the cards were
    preshuffled in accordance with § 523.16 (u) or (v) ..., and after each round of play
    has been completed, the dealer shall shuffle the cards". The shuffle before play is
    not required of preshuffled decks, so the refusal to deal them before the table's
    automated shuffler has shuffled them is floord's reading (docs/rules.md, "Readings"),
    never § 571.5(a); after a round the deck is shuffled again under (a)."""
    t = _open()
    assert t.command("decks_received", {"preinspected_preshuffled": True}).ok
    refused = t.start(1)
    assert not refused.ok and "no shuffled deck is ready" in (refused.error or "")
    assert "floord policy, not a regulation" in (refused.error or "")
    assert refused.rule != cite("571.5(a)")
    t.device(EventType.SHOE_LOADED, LOADED)  # the shoe loaded: the preshuffle alone stays
    refused = t.start(1)
    assert not refused.ok and refused.rule is None
    t.prepare()
    assert t.start(1).ok
    assert t.dealer("no_more_bets").ok
    t.draws("AS", "KS", "QS", "JS", "TS")
    for card in (1, 2, 3):
        assert t.street({1: "play1"}, card).ok
    assert t.dealer("round_end").ok
    t.device(EventType.SHOE_LOADED, LOADED)
    after_a_round = t.start(1)
    assert not after_a_round.ok and after_a_round.rule == cite("571.5(a)")


def test_preshuffled_decks_without_a_shuffler_are_cut_and_dealt_unshuffled_571_5_a_c_2() -> None:
    """§ 571.5(c)(2): "If the cards were shuffled manually or were preshuffled, cut the
    cards in accordance with subsection (d)." Without an automated shuffler in use the
    preshuffled deck is cut, placed in the shoe and dealt; no shuffle is asked of it."""
    t = _open(shuffler="none")
    assert t.command("decks_received", {"preinspected_preshuffled": True}).ok
    refused = t.start(1)
    assert not refused.ok and "are cut before they are dealt" in (refused.error or "")
    assert "no shuffled deck" not in (refused.error or "")
    assert t.dealer("cut", {"cards": 20}).ok
    t.device(EventType.SHOE_LOADED, LOADED)
    assert t.start(1).ok
