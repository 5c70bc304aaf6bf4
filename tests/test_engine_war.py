"""War (58 Pa. Code ch. 567): opening, shuffle, the players' cut, the shoe's cover cards.

Each test quotes the paragraph it checks; our seeds hold § 567.4 and § 567.5 only.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import time, timedelta
from typing import Any

import pytest
from test_engine_support import Clock

from floord.contract import EventType, cite
from floord.engine import SnapshotError
from floord.engine.core.types import CommandOutcome, Decision, EngineOutput, VerifiedCommand
from floord.engine.war.engine import WarEngine
from floord.engine.war.rules import WarRules

pytestmark = pytest.mark.unit

SHOE, SHUFFLER = "shoe-1", "shuffler-1"
STACK = 6 * 52


@dataclass
class Table:
    engine: WarEngine
    clock: Clock = field(default_factory=Clock)

    def device(self, device: str, type: str, data: dict[str, Any] | None = None) -> EngineOutput:
        return self.engine.on_device_event(device, type, data or {}, self.clock.step())

    def shoe(self, type: str, data: dict[str, Any] | None = None) -> EngineOutput:
        return self.device(SHOE, type, data)

    def command(
        self, name: str, args: dict[str, Any] | None = None, role: str = "floorperson"
    ) -> CommandOutcome:
        by = {"dealer": "d1", "supervisor": "sv1"}.get(role, "fp1")
        cmd = VerifiedCommand(f"c{self.clock.now.timestamp()}", name, by, role, args or {})
        return self.engine.on_command(cmd, self.clock.step())

    def dealer(self, name: str, args: dict[str, Any] | None = None) -> CommandOutcome:
        return self.command(name, args, role="dealer")

    def ready(self) -> None:
        for device in (SHOE, self.engine.shuffler_device):
            if device:
                self.device(device, EventType.DEVICE_ONLINE)
                self.device(device, EventType.DEVICE_IDENTIFIED, {"capabilities": []})
        checklist = {k: True for k in self.engine.table.spec.items}
        assert self.command("inspect", {"checklist": checklist}).ok
        assert self.command("open").ok

    def cut(self, cards: int = 100, by: str = "player", box: int | None = 1) -> Decision:
        args: dict[str, Any] = {"cards": cards, "by": by}
        if box is not None:
            args["box"] = box
        outcome = self.dealer("cut", args)
        assert outcome.ok, outcome
        [made] = outcome.output.events
        return made

    def new_shoe(self, cards: int = STACK) -> None:
        """Shuffled by hand, cut by box 1's player, loaded."""
        assert self.dealer("shuffle").ok
        self.cut()
        assert not self.shoe(EventType.SHOE_LOADED, {"cards": cards}).events


def make_table(
    shuffler: str = "none", snapshot: dict[str, Any] | None = None, **over: Any
) -> Table:
    device = None if shuffler == "none" else SHUFFLER
    return Table(
        WarEngine(
            "WR1",
            rules=WarRules(shuffler=shuffler, **over),
            shoe_device=SHOE,
            shuffler_device=device,
            required_devices=[SHOE, device] if device else [SHOE],
            gaming_day_starts=time(6, 0),
            timezone="America/New_York",
            snapshot=snapshot,
        )
    )


@pytest.mark.parametrize(
    ("over", "match"),
    [
        ({"decks": 5}, r"567\.4\(a\)"),
        ({"decks": 17}, "at most"),
        ({"boxes": 8}, "boxes must be"),
        ({"shuffler": "continuous"}, "shuffler must be"),
        ({"idle_minutes": 0}, r"567\.5\(h\)"),
    ],
)
def test_bad_rules_are_refused_at_construction(over, match) -> None:
    with pytest.raises(ValueError, match=match):
        make_table(**over)


def test_the_opening_checklist_cites_567_4_a_to_d() -> None:
    """§ 567.4(a): "... the dealer shall sort and inspect each deck of cards separately,
    face down, and the floorperson assigned to the table shall verify the inspection."
    (b) spread face up for the first player; (c) washed and stacked; (d) with an automated
    shuffling device, "all the decks in one batch ... spread ... separate from the decks
    in the other batch\""""
    t = make_table()
    assert t.engine.table.spec.items == {
        "decks_sorted_and_inspected": cite("567.4(a)"),
        "cards_spread_for_first_player": cite("567.4(b)"),
        "cards_washed_and_stacked": cite("567.4(c)"),
    }
    items = make_table("automated").engine.table.spec.items
    assert items["batches_spread_separately"] == cite("567.4(d)")
    checklist = {k: True for k in t.engine.table.spec.items}
    refused = t.command("inspect", {"checklist": checklist}, role="dealer")
    assert not refused.ok and refused.rule == cite("567.4(a)")
    [log] = t.command("inspect", {"checklist": checklist}).output.events
    assert log.type == EventType.OPERATOR_INSPECTION and log.rule == cite("567.4(a)")


def test_each_deck_received_is_inspected_separately_and_verified_567_4_a() -> None:
    """§ 567.4(a): six or more decks received; each deck sorted and inspected separately;
    the floorperson verifies. Until then no shuffle or load counts."""
    t = make_table()
    t.ready()
    assert not t.command("decks_received", {"preinspected_preshuffled": False, "decks": 4}).ok
    [got] = t.command("decks_received", {"preinspected_preshuffled": False}).output.events
    assert got.type == EventType.CARDS_DECKS_RECEIVED and got.rule == cite("567.4(a)")
    assert got.data["decks"] == 6 and got.data["inspection"] == "required"
    refused = t.dealer("shuffle")
    assert not refused.ok and refused.rule == cite("567.4(a)")
    whole = t.dealer("decks_inspected", {"defects_found": False})
    assert not whole.ok and "separately" in whole.error
    assert t.dealer("decks_inspected", {"defects_found": False, "decks": 6}).ok
    [ok] = t.command("decks_inspected", {"defects_found": False}).output.events
    assert ok.data["step"] == "verified" and ok.data["cleared"] and ok.rule == cite("567.4(a)")
    refused = t.dealer("round_start", {"boxes": [1]})
    assert not refused.ok and refused.rule == cite("567.5(a)")
    t.new_shoe()
    assert t.dealer("round_start", {"boxes": [1, 2]}).ok


def test_preinspected_and_preshuffled_decks_are_cut_and_loaded_567_4_e() -> None:
    """§ 567.4(e): decks "preinspected and preshuffled ... the requirements in subsections
    (a)—(d) do not apply"; § 567.5(a): no shuffle before play "unless the cards were
    preshuffled"; the cut of (b) still applies."""
    t = make_table()
    t.ready()
    [got] = t.command("decks_received", {"preinspected_preshuffled": True}).output.events
    assert got.rule == cite("567.4(e)")
    made = t.cut(40)
    assert made.type == EventType.CARDS_CUT and made.data["shuffled"] == "preshuffled"
    assert made.data["offered_to"]["rule"] == cite("567.5(b)(1)")
    assert not t.shoe(EventType.SHOE_LOADED, {"cards": STACK}).events
    assert t.dealer("round_start", {"boxes": [1]}).ok


def test_the_cards_are_shuffled_before_play_567_5_a() -> None:
    """§ 567.5(a): "Immediately prior to commencement of play, unless the cards were
    preshuffled ..., the dealer shall shuffle the cards ..." A stack loaded unshuffled
    does not count."""
    t = make_table()
    t.ready()
    refused = t.dealer("round_start", {"boxes": [1]})
    assert not refused.ok and refused.rule == cite("567.5(a)")
    assert not t.dealer("cut", {"cards": 20, "by": "dealer"}).ok
    [bad] = t.shoe(EventType.SHOE_LOADED, {"cards": STACK}).events
    assert bad.data["what"] == "stack_not_shuffled" and bad.rule == cite("567.5(a)")
    assert not t.dealer("round_start", {"boxes": [1]}).ok


def test_the_cut_is_offered_first_player_and_placed_10_cards_in_567_5_b_c_d() -> None:
    """§ 567.5(b)(1): the cut is offered to "The first player to the table, if the game is
    just beginning." (c): "If no player accepts the cut, the dealer shall cut the cards."
    (d): "... a cover card in the stack at least 10 cards in from the top or the bottom\""""
    t = make_table()
    t.ready()
    assert t.dealer("shuffle").ok
    for cards in (9, STACK - 9, "ten"):
        short = t.dealer("cut", {"cards": cards, "by": "player", "box": 2})
        assert not short.ok and short.rule == cite("567.5(d)")
    nobody = t.dealer("cut", {"cards": 20, "by": "player"})
    assert not nobody.ok and nobody.rule == cite("567.5(b)")
    assert not t.dealer("cut", {"cards": 20, "by": "house"}).ok
    made = t.cut(STACK - 10, by="dealer", box=None)
    assert made.rule == cite("567.5(d)") and made.data["also"] == cite("567.5(c)")
    assert made.data["offered_to"]["why"] == "first_player" and made.data["by"] == "dealer"
    again = t.dealer("cut", {"cards": 30, "by": "dealer"})
    assert not again.ok and again.rule == cite("567.5(f)")


def test_only_a_cut_stack_goes_into_the_shoe_567_5_e() -> None:
    """§ 567.5(e): "... The stack of cards shall then be inserted into the dealing shoe for
    commencement of play." A stack loaded before its cut does not count."""
    t = make_table()
    t.ready()
    assert t.dealer("shuffle").ok
    [bad] = t.shoe(EventType.SHOE_LOADED, {"cards": STACK}).events
    assert bad.data["what"] == "stack_not_cut" and bad.rule == cite("567.5(e)")
    refused = t.dealer("round_start", {"boxes": [1]})
    assert not refused.ok and refused.rule == cite("567.5(b)")
    t.cut(50, box=3)
    refused = t.dealer("round_start", {"boxes": [1]})
    assert not refused.ok and refused.rule == cite("567.5(e)")
    assert not t.shoe(EventType.SHOE_LOADED, {"cards": STACK}).events
    [started] = t.dealer("round_start", {"boxes": [3, 1]}).output.events
    assert started.type == EventType.ROUND_STARTED and started.data["boxes"] == [1, 3]
    assert started.data["shoe"] == STACK


def test_the_second_cover_card_about_a_quarter_from_the_bottom_567_5_e() -> None:
    """§ 567.5(e): "The dealer shall then insert the second cover card in the stack at a
    position at least approximately one-quarter of the way in from the bottom of the
    stack." The first cover card out of a load is that one (the cut's is at the bottom)."""
    t = make_table()
    t.ready()
    t.new_shoe()
    assert t.dealer("round_start", {"boxes": [1]}).ok
    [deep] = t.shoe(EventType.SHOE_CUTTING_CARD, {"count": 290}).events
    assert deep.data["what"] == "cover_card_too_deep" and deep.rule == cite("567.5(e)")
    assert (deep.data["behind"], deep.data["least"]) == (22, STACK // 4 - 13)
    assert deep.data["reading"]
    assert not t.shoe(EventType.SHOE_CUTTING_CARD, {"count": STACK}).events  # the bottom one
    u = make_table()
    u.ready()
    u.new_shoe()
    assert u.dealer("round_start", {"boxes": [1]}).ok
    assert not u.shoe(EventType.SHOE_CUTTING_CARD, {"count": 234}).events


def test_the_cover_card_ends_the_shoe_and_names_the_next_cutter_567_5_b_2_g() -> None:
    """§ 567.5(g): "A reshuffle of the cards in the shoe shall take place after the cover
    card is reached in the shoe as required under § 567.8(d) ..." (b)(2): the next cut is
    offered to "The player on whose betting area the cover card appeared during the last
    round of play." § 567.8(d) is not in our seeds: floord completes the round first."""
    t = make_table()
    t.ready()
    t.new_shoe()
    assert t.dealer("round_start", {"boxes": [2, 4]}).ok
    assert not t.shoe(EventType.SHOE_CUTTING_CARD, {"count": 230}).events
    where = t.dealer("round_end")
    assert not where.ok and where.rule == cite("567.5(b)(2)")
    assert not t.dealer("round_end", {"cover_card_at": 5}).ok  # not a box in the round
    ended, due = t.dealer("round_end", {"cover_card_at": 4}).output.events
    assert ended.type == EventType.ROUND_ENDED and ended.rule == cite("567.5(b)(2)")
    assert ended.data["next_cut"]["box"] == 4
    assert due.type == EventType.CARDS_SHUFFLE_REQUIRED and due.rule == cite("567.5(g)")
    assert due.data["reason"] == "cover_card" and "567.8(d)" in due.data["rule_note"]
    refused = t.dealer("round_start", {"boxes": [1]})
    assert not refused.ok and refused.rule == cite("567.5(g)")
    assert t.dealer("shuffle").ok
    made = t.cut(60, box=4)
    assert made.data["offered_to"]["rule"] == cite("567.5(b)(2)") and made.data["designated"]
    assert not t.shoe(EventType.SHOE_LOADED, {"cards": STACK}).events
    assert t.dealer("round_start", {"boxes": [1]}).ok
    assert not t.dealer("round_end", {"cover_card_at": 1}).ok  # no cover card this round
    [plain] = t.dealer("round_end").output.events
    assert plain.type == EventType.ROUND_ENDED and plain.data["policy"]


def test_a_cover_card_on_the_dealers_hand_gives_the_cut_to_the_far_right_567_5_b_3() -> None:
    """§ 567.5(b)(3): "The player at the farthest point to the right of the dealer if the
    cover card appeared on the dealer's hand during the last round of play.\""""
    t = make_table()
    t.ready()
    t.new_shoe()
    assert t.dealer("round_start", {"boxes": [1]}).ok
    t.shoe(EventType.SHOE_CUTTING_CARD, {"count": 240})
    ended, _ = t.dealer("round_end", {"cover_card_at": "dealer"}).output.events
    assert ended.rule == cite("567.5(b)(3)")
    assert t.dealer("shuffle").ok
    made = t.cut(70, box=7)
    assert made.data["offered_to"]["why"] == "dealer_hand" and made.data["designated"] is None


def test_a_recut_before_the_shoe_goes_to_the_far_right_player_567_5_f() -> None:
    """§ 567.5(f): "After the cards have been cut and before the cards have been placed in
    the dealing shoe, a floorperson or above may require the cards to be recut ... the
    cards shall be recut by the next person entitled to cut the cards, as determined under
    subsection (b)(4).\""""
    t = make_table()
    t.ready()
    none_yet = t.command("recut", {"reason": "exposed"})
    assert not none_yet.ok and none_yet.rule == cite("567.5(f)")
    assert t.dealer("shuffle").ok
    t.cut(80)
    by_dealer = t.command("recut", {"reason": "x"}, role="dealer")
    assert not by_dealer.ok and by_dealer.rule == cite("567.5(f)")
    assert not t.command("recut").ok
    assert t.command("recut", {"reason": "the cut was not clean"}, role="supervisor").ok
    made = t.cut(90, box=6)
    assert made.data["offered_to"]["rule"] == cite("567.5(b)(4)")
    assert not t.shoe(EventType.SHOE_LOADED, {"cards": STACK}).events
    late = t.command("recut", {"reason": "late"})
    assert not late.ok and late.rule == cite("567.5(f)")


def test_a_floorperson_directs_a_reshuffle_567_5_a_b_4() -> None:
    """§ 567.5(a): the cards are shuffled "when directed by a floorperson or above";
    (b)(4): the cut then goes to "The player at the farthest point to the right of the
    dealer if the reshuffle was initiated at the discretion of a floorperson or above.\""""
    t = make_table()
    t.ready()
    t.new_shoe()
    assert not t.command("reshuffle").ok
    [due] = t.command("reshuffle", {"reason": "pit request"}).output.events
    assert due.type == EventType.CARDS_SHUFFLE_REQUIRED and due.rule == cite("567.5(a)")
    assert due.data["reason"] == "floorperson"
    refused = t.dealer("round_start", {"boxes": [1]})
    assert not refused.ok and refused.rule == cite("567.5(a)")
    assert t.dealer("shuffle").ok
    assert t.cut(100, box=2).data["offered_to"]["rule"] == cite("567.5(b)(4)")


def test_no_gaming_activity_spreads_shuffles_and_cuts_again_567_5_h_1() -> None:
    """§ 567.5(h): "If there is no gaming activity at the War table, the cards shall be
    removed from the dealing shoe and the discard rack, and spread out ..." (1): "If there
    is no automated shuffling device in use, the cards shall be mixed thoroughly by a
    washing of the cards, stacked, then shuffled and cut in accordance with this section.\""""
    t = make_table(idle_minutes=10)
    t.ready()
    t.new_shoe()
    t.clock.now += timedelta(minutes=11)
    [due] = t.engine.tick(t.clock.now).events
    assert due.rule == cite("567.5(h)") and due.data["reason"] == "no_gaming_activity"
    assert "batch_in_shuffler" not in due.data
    assert t.engine.tick(t.clock.now).events == []
    refused = t.dealer("round_start", {"boxes": [1]})
    assert not refused.ok and refused.rule == cite("567.5(h)")
    t.new_shoe()
    assert t.dealer("round_start", {"boxes": [1]}).ok


def test_an_idle_table_with_a_shuffler_may_deal_the_batch_in_it_567_5_h_2() -> None:
    """§ 567.5(h)(2): "... the cards shall be stacked and placed into the automated
    shuffling device to be shuffled. The batch of cards already in the shuffler shall then
    be removed. Unless a player so requests, the batch ... need not be spread for
    inspection and reshuffled prior to being dealt ...\""""
    t = make_table("automated", idle_minutes=10)
    t.ready()
    assert not t.dealer("shuffle").ok  # the working shuffler shuffles
    done = {"batch": "A", "cards": 156}
    assert not t.device(SHUFFLER, EventType.SHUFFLER_SHUFFLE_COMPLETED, done).events
    assert not t.device(SHUFFLER, EventType.SHUFFLER_BATCH_READY, done).events
    made = t.cut(30, box=1)
    assert made.data["shuffled"] == "device" and made.data["stack"] == 156
    assert not t.device(SHUFFLER, EventType.SHUFFLER_BATCH_READY, done).events  # same batch
    assert not t.dealer("cut", {"cards": 147, "by": "dealer"}).ok
    assert not t.shoe(EventType.SHOE_LOADED, {"cards": 156}).events
    assert not t.device(SHUFFLER, EventType.SHUFFLER_SHUFFLE_COMPLETED, {"batch": "B"}).events
    t.clock.now += timedelta(minutes=11)
    [due] = t.engine.tick(t.clock.now).events
    assert due.rule == cite("567.5(h)") and due.data["also"] == cite("567.5(h)(2)")
    assert due.data["batch_in_shuffler"] == "B"
    t.cut(40, by="dealer", box=None)
    assert not t.shoe(EventType.SHOE_LOADED, {"cards": 156}).events
    assert t.dealer("round_start", {"boxes": [1]}).ok


def test_a_jam_means_the_batch_is_shuffled_again() -> None:
    t = make_table("automated")
    t.ready()
    t.device(SHUFFLER, EventType.SHUFFLER_SHUFFLE_COMPLETED, {"batch": "A", "cards": 156})
    [due] = t.device(SHUFFLER, EventType.SHUFFLER_JAM, {"batch": "A", "code": 2}).events
    assert due.rule == cite("567.5(a)") and due.data["reason"] == "shuffler_jam"
    assert not t.dealer("cut", {"cards": 30, "by": "dealer"}).ok


def test_a_shoe_that_runs_out_and_events_from_elsewhere_are_recorded() -> None:
    """§ 567.5(a): "after each dealing shoe of cards is dealt ... the dealer shall shuffle
    the cards": a shoe that runs out makes the shuffle due under (a), not floord's policy."""
    t = make_table()
    t.ready()
    t.new_shoe()
    assert t.dealer("round_start", {"boxes": [1]}).ok
    odd, due = t.shoe(EventType.SHOE_EMPTY).events
    assert odd.data["what"] == "shoe_empty_mid_round"
    assert due.rule == cite("567.5(a)") and "policy" not in due.data
    assert due.data["reason"] == "shoe_empty"
    [other] = t.device("x", EventType.SHOE_CARD_DRAWN, {"count": 1}).events
    assert other.data["what"] == "event_from_other_device"
    [none] = t.device(SHOE, EventType.SHUFFLER_JAM, {}).events
    assert none.data["what"] == "event_from_other_device"


def test_snapshot_round_trip_and_restart_voids_the_round() -> None:
    t = make_table(idle_minutes=30)
    t.ready()
    t.new_shoe()
    assert t.dealer("round_start", {"boxes": [1, 2]}).ok
    t.shoe(EventType.SHOE_CUTTING_CARD, {"count": 230})
    snap = json.loads(json.dumps(t.engine.snapshot()))
    again = make_table(snapshot=snap, idle_minutes=30)
    assert again.engine.snapshot() == snap == again.engine.public_state()
    voided, due = again.engine.after_restart(t.clock.step()).events
    assert voided.type == EventType.ROUND_VOIDED and voided.data["policy"]
    assert due.rule == cite("567.5(g)")
    with pytest.raises(SnapshotError):
        make_table(snapshot=dict(snap, game="poker"))
    with pytest.raises(SnapshotError):
        make_table(snapshot=dict(snap, shoe={**snap["shoe"], "due": "whenever"}))


def test_every_decision_carries_a_citation_or_a_policy() -> None:
    t = make_table("automated", idle_minutes=5)
    t.ready()
    outs = [t.command("decks_received", {"preinspected_preshuffled": False}).output]
    outs.append(t.device(SHUFFLER, EventType.SHUFFLER_SHUFFLE_COMPLETED, {"batch": "A"}))
    outs.append(t.dealer("decks_inspected", {"defects_found": False, "decks": 6}).output)
    outs.append(t.command("decks_inspected", {"defects_found": False}).output)
    outs.append(t.shoe(EventType.SHOE_LOADED, {"cards": 156}))
    outs.append(t.device(SHUFFLER, EventType.SHUFFLER_SHUFFLE_COMPLETED, {"batch": "A"}))
    outs.append(t.dealer("cut", {"cards": 20, "by": "dealer"}).output)
    outs.append(t.shoe(EventType.SHOE_LOADED, {"cards": 156}))
    outs.append(t.dealer("round_start", {"boxes": [1]}).output)
    outs.append(t.shoe(EventType.SHOE_CUTTING_CARD, {"count": 150}))
    outs.append(t.dealer("round_end", {"cover_card_at": 1}).output)
    outs.append(t.device(SHUFFLER, EventType.SHUFFLER_DOOR, {"open": True}))
    outs.append(t.device(SHUFFLER, EventType.SHUFFLER_MODE, {"continuous": True}))
    outs.append(t.device(SHUFFLER, EventType.SHUFFLER_OUT_OF_ORDER, {"code": 3}))
    outs.append(t.command("change_decks").output)
    outs.append(t.shoe(EventType.SHOE_EMPTY))
    outs.append(t.command("reshuffle", {"reason": "r"}).output)
    t.clock.now += timedelta(minutes=6)
    outs.append(t.engine.tick(t.clock.now))
    seen = [d for out in outs for d in out.events]
    kinds = {d.type for d in seen}
    assert kinds >= {EventType.CARDS_CUT, EventType.ROUND_ENDED, EventType.TABLE_WARNING}
    assert kinds >= {EventType.CARDS_SHUFFLE_REQUIRED, EventType.PROCEDURE_VIOLATION}
    for d in seen:
        assert d.rule or d.data.get("policy"), d


def test_the_config_checks_the_war_rules_567_4_a() -> None:
    from pydantic import ValidationError

    from floord.games.war import WarRulesConfig as ConfigRules

    with pytest.raises(ValidationError):
        ConfigRules(decks=4)
    with pytest.raises(ValidationError):
        ConfigRules(idle_minutes=2000)
    with pytest.raises(ValidationError):
        ConfigRules.model_validate({"payout": 1})
    assert ConfigRules().decks == 6 and ConfigRules(decks=8).decks == 8
    assert ConfigRules().engine_rules() == WarRules()
    made = ConfigRules(decks=8, shuffler="automated", boxes=3, idle_minutes=30).engine_rules()
    assert made == WarRules(decks=8, shuffler="automated", boxes=3, idle_minutes=30)
