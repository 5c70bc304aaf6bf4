"""Decks received at a carnival poker table: inspected, verified, then shuffled (§ 55x.4).

A receipt (`decks_received`, or the floorperson's `change_decks`) is on the record before
the decks are used, as at Mississippi Stud and Baccarat (`floord.engine.cards.deck_receipt`):
the dealer inspects them (two decks each on its own) and the floorperson verifies; until
then a shuffle of them does not count (the shuffler's is a violation, the dealer's own is
refused) and no round starts. Decks received preinspected and preshuffled are exempt and
are cut, not shuffled. No chapter in the seeds gives these games a deck-change period.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from test_engine_carnival import make_table, rule

from floord.contract import EventType
from floord.engine.carnival.rules import GAMES

pytestmark = pytest.mark.unit

RECEIVED = {"preinspected_preshuffled": False}
CLEAN = {"defects_found": False}


def _of(out, type):
    return [d for d in out.events if d.type == type]


@pytest.mark.parametrize("game", GAMES)
def test_decks_received_are_inspected_and_verified_before_any_shuffle_55x_4_a_b(game) -> None:
    """§ 555.4(a) (and § 557.4(a), § 559.4(a), § 561.4(a), § 563.4(a), § 565.4(a)):
    "After receiving one or more decks of cards at the table, the dealer shall inspect the
    cards for any defects." (b): "Following the inspection of the cards by the dealer and
    the verification by the floorperson assigned to the table, the cards shall be spread
    out face up ..." (c): "... Once the cards have been stacked, they shall be shuffled"."""
    t = make_table(game)
    t.ready()
    received = t.command("decks_received", RECEIVED)
    assert received.ok, received.error
    [event] = _of(received.output, EventType.CARDS_DECKS_RECEIVED)
    assert event.rule == rule(game, "4(a)") and event.data["inspection"] == "required"
    assert event.data["decks"] == 1 and event.data["due_at"] is None
    assert event.data["deck_rule"] is None  # no deck-change period in the seeds
    # The shuffler shuffles them before the inspection: a violation, and it does not count.
    [v] = _of(t.shuffle(), EventType.PROCEDURE_VIOLATION)
    assert v.data["what"] == "decks_not_inspected" and v.rule == rule(game, "4(a)")
    refused = t.dealer("round_start", {"boxes": [1]})
    assert not refused.ok and refused.rule == rule(game, "4(a)")
    assert "not been inspected by the dealer" in refused.error
    inspected = t.dealer("decks_inspected", CLEAN)
    [step] = _of(inspected.output, EventType.CARDS_DECKS_INSPECTED)
    assert step.rule == rule(game, "4(a)") and step.data["cleared"] is False
    assert "verified" in t.dealer("round_start", {"boxes": [1]}).error
    same = t.command("decks_inspected", CLEAN, role="dealer")
    assert not same.ok and "already inspected" in same.error
    verified = t.command("decks_inspected", CLEAN)
    [step] = _of(verified.output, EventType.CARDS_DECKS_INSPECTED)
    assert step.rule == rule(game, "4(b)") and step.data["cleared"] is True
    assert not t.dealer("round_start", {"boxes": [1]}).ok  # the early shuffle did not count
    assert not _of(t.shuffle(), EventType.PROCEDURE_VIOLATION)
    assert t.dealer("round_start", {"boxes": [1]}).ok


def test_a_hand_shuffle_waits_for_the_inspection_555_4_c() -> None:
    """§ 555.4(c): the cards are shuffled once inspected, verified, spread, washed and
    stacked; with no shuffler the dealer's `shuffle` of uninspected decks is refused."""
    t = make_table("caribbean_stud", shuffler="none")
    t.ready()
    assert t.command("change_decks").ok
    refused = t.dealer("shuffle")
    assert not refused.ok and refused.rule == rule("caribbean_stud", "4(a)")
    t.dealer("decks_inspected", CLEAN)
    t.command("decks_inspected", CLEAN)
    assert t.dealer("shuffle").ok and t.dealer("cut", {"cards": 20}).ok
    assert t.dealer("round_start", {"boxes": [1]}).ok


@pytest.mark.parametrize("game", ["let_it_ride", "pai_gow_poker"])
def test_two_decks_are_each_inspected_separately_55x_4_d(game) -> None:
    """§ 559.4(d): "If a certificate holder uses an automated card shuffling device to play
    the game and two decks of cards are received at the table ..., each deck of cards shall
    be separately spread, inspected, verified, ..." (§ 561.4(d) the same)."""
    t = make_table(game, decks=2, deck_backs=["red", "blue"])
    t.ready()
    assert "receives 2 deck(s)" in t.command("decks_received", {**RECEIVED, "decks": 1}).error
    assert t.command("decks_received", RECEIVED).ok
    lumped = t.dealer("decks_inspected", CLEAN)
    assert not lumped.ok and "each deck is inspected separately" in lumped.error
    assert lumped.rule == rule(game, "4(a)")
    inspected = t.dealer("decks_inspected", {**CLEAN, "decks": 2})
    [step] = _of(inspected.output, EventType.CARDS_DECKS_INSPECTED)
    assert step.rule == rule(game, "4(d)") and step.data["decks"] == 2
    assert t.command("decks_inspected", CLEAN).ok
    t.shuffle(batch="red")
    assert t.dealer("round_start", {"boxes": [1]}).ok


@pytest.mark.parametrize("game", ["four_card_poker", "pai_gow_poker"])
def test_preinspected_decks_are_recorded_cut_and_never_assumed_55x_4_e(game) -> None:
    """§ 557.4(e): "If the decks of cards received at the table are preinspected and
    preshuffled in accordance with § 523.16(u) or (v) ..., the requirements in subsections
    (a)—(d) do not apply." § 557.5(a): shuffled before play "unless the cards were
    preshuffled"; (c)(2): cards "preshuffled" are cut. `decks_received` must say which; a
    `change_decks` that does not say is inspected."""
    t = make_table(game)
    t.ready()
    refused = t.command("decks_received", {})
    assert not refused.ok and "never assumed" in refused.error
    received = t.command("decks_received", {"preinspected_preshuffled": True})
    [event] = _of(received.output, EventType.CARDS_DECKS_RECEIVED)
    assert event.rule == rule(game, "4(e)") and event.data["inspection"] == "not_required"
    assert "preinspected" in t.dealer("decks_inspected", CLEAN).error
    cut = t.dealer("round_start", {"boxes": [1]})
    assert not cut.ok and cut.rule == rule(
        game, "5(b)(2)" if game == "pai_gow_poker" else "5(c)(2)"
    )
    by = {"by": "dealer"} if game == "pai_gow_poker" else {}
    assert t.dealer("cut", {"cards": 12, **by}).ok
    [started] = t.dealer("round_start", {"boxes": [1]}).output.events
    assert started.data["shuffled"] == "preshuffled"
    t.dealer("round_end")
    changed = t.command("change_decks")
    [event] = _of(changed.output, EventType.CARDS_DECKS_CHANGED)
    assert event.rule == rule(game, "4(a)") and event.data["inspection"] == "required"
    assert event.data["preinspected_preshuffled"] is None and event.data["preshuffled"] is False
    t.shuffle(cards=t.engine.rules.deck_size)
    assert "not been inspected" in t.dealer("round_start", {"boxes": [1]}).error
    mixed = t.command("change_decks", {"preshuffled": True, "preinspected_preshuffled": False})
    assert not mixed.ok and "different" in mixed.error
    assert "unknown argument" in t.command("change_decks", {"decks_new": 1}).error


def test_decks_with_defects_are_rejected_and_the_receipt_survives_a_snapshot_565_4_a() -> None:
    """§ 565.4(a): the dealer inspects "the cards for any defects": a set with defects is
    not used; only another receipt clears the table. The receipt is in the snapshot."""
    t = make_table("three_card_poker")
    t.ready()
    t.command("decks_received", RECEIVED)
    t.dealer("decks_inspected", CLEAN)
    again = make_table("three_card_poker", snapshot=t.engine.snapshot())
    assert again.engine.decks.receipt == t.engine.decks.receipt
    [step] = _of(
        again.command("decks_inspected", {"defects_found": True}).output,
        EventType.CARDS_DECKS_INSPECTED,
    )
    assert step.data["cleared"] is False
    again.shuffle()
    refused = again.dealer("round_start", {"boxes": [1]})
    assert not refused.ok and "rejected for defects" in refused.error
    assert "rejected" in again.dealer("decks_inspected", CLEAN).error
    again.new_decks()
    again.shuffle()
    assert again.dealer("round_start", {"boxes": [1]}).ok


def test_no_deck_change_period_runs_from_the_receipt_563_4() -> None:
    """The seeds hold only § 563.4 and § 563.5 of chapter 563: no paragraph in them says
    how often these decks are changed (§ 563.3 is referred to, not contained), so the
    receipt starts no clock and decks received a day ago still deal."""
    t = make_table("texas_holdem_bonus")
    t.ready()
    t.new_decks()
    t.clock.now += timedelta(hours=30)
    t.shuffle()
    assert t.dealer("round_start", {"boxes": [1]}).ok
    assert not t.engine.tick(t.clock.step()).events
