"""Poker (58 Pa. Code ch. 553): the two decks received, their inspection, shuffle and cut.

Each test quotes the paragraph it checks; our seeds hold § 553.5 and § 553.6 only.
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
from floord.engine.core.types import CommandOutcome, EngineOutput, VerifiedCommand
from floord.engine.poker.engine import PokerEngine
from floord.engine.poker.rules import PokerRules

pytestmark = pytest.mark.unit

SHUFFLER = "shuffler-1"


@dataclass
class Table:
    engine: PokerEngine
    clock: Clock = field(default_factory=Clock)

    def shuffler(self, type: str, data: dict[str, Any] | None = None) -> EngineOutput:
        return self.engine.on_device_event(SHUFFLER, type, data or {}, self.clock.step())

    def command(
        self, name: str, args: dict[str, Any] | None = None, role: str = "floorperson"
    ) -> CommandOutcome:
        by = {"dealer": "d1", "supervisor": "sv1"}.get(role, "fp1")
        cmd = VerifiedCommand(f"c{self.clock.now.timestamp()}", name, by, role, args or {})
        return self.engine.on_command(cmd, self.clock.step())

    def dealer(self, name: str, args: dict[str, Any] | None = None) -> CommandOutcome:
        return self.command(name, args, role="dealer")

    def ready(self) -> None:
        if self.engine.shuffler_device:
            self.shuffler(EventType.DEVICE_ONLINE)
            self.shuffler(EventType.DEVICE_IDENTIFIED, {"capabilities": []})
        checklist = {k: True for k in self.engine.table.spec.items}
        assert self.command("inspect", {"checklist": checklist}).ok
        assert self.command("open").ok

    def shuffle(self, batch: str = "red", cards: int = 52) -> EngineOutput:
        out = self.shuffler(EventType.SHUFFLER_SHUFFLE_STARTED, {"batch": batch})
        done = {"batch": batch, "cards": cards}
        out.extend(self.shuffler(EventType.SHUFFLER_SHUFFLE_COMPLETED, done))
        return out


def make_table(
    shuffler: str = "automated", snapshot: dict[str, Any] | None = None, **over: Any
) -> Table:
    device = None if shuffler == "none" else SHUFFLER
    return Table(
        PokerEngine(
            "PK1",
            rules=PokerRules(shuffler=shuffler, **over),
            shuffler_device=device,
            required_devices=[device] if device else [],
            gaming_day_starts=time(6, 0),
            timezone="America/New_York",
            snapshot=snapshot,
        )
    )


@pytest.mark.parametrize(
    ("over", "match"),
    [
        ({"deck_backs": ("red", "red")}, r"553\.5\(a\)"),
        ({"deck_backs": ("red",)}, "deck_backs"),
        ({"shuffler": "counting"}, "shuffler must be"),
        ({"idle_minutes": 0}, r"553\.6\(d\)"),
    ],
)
def test_bad_rules_are_refused_at_construction(over, match) -> None:
    with pytest.raises(ValueError, match=match):
        make_table(**over)


def test_the_opening_checklist_cites_553_5_a_b_c() -> None:
    """§ 553.5(a): "After receiving two decks of cards at the table, the dealer shall
    inspect the cards for any defects." (b): "... the verification by a floorperson or
    higher, the cards shall be spread out face up on the table for visual inspection by
    the first two players ..." (c): "... each deck shall be separately turned face down on
    the table, mixed thoroughly by a washing of the cards and stacked.\""""
    t = make_table()
    assert t.engine.table.spec.items == {
        "cards_inspected": cite("553.5(a)"),
        "cards_verified": cite("553.5(b)"),
        "cards_spread_for_players": cite("553.5(b)"),
        "decks_washed_and_stacked": cite("553.5(c)"),
    }
    checklist = {k: True for k in t.engine.table.spec.items}
    refused = t.command("inspect", {"checklist": checklist}, role="dealer")
    assert not refused.ok and refused.rule == cite("553.5(b)")
    assert not t.command("inspect", {"checklist": {"cards_inspected": True}}).ok
    [log] = t.command("inspect", {"checklist": checklist}).output.events
    assert log.type == EventType.OPERATOR_INSPECTION and log.rule == cite("553.5(b)")


def test_two_decks_received_are_inspected_and_verified_before_use_553_5_a_b() -> None:
    """§ 553.5(a), (b): the dealer inspects the two decks received; a floorperson or
    higher verifies. Until then a shuffle of them does not count and no round starts."""
    t = make_table()
    t.ready()
    assert not t.command("decks_received", {"decks": 2}).ok  # the declaration is required
    assert not t.command("decks_received", {"preinspected_preshuffled": False, "decks": 1}).ok
    [got] = t.command("decks_received", {"preinspected_preshuffled": False}).output.events
    assert got.type == EventType.CARDS_DECKS_RECEIVED and got.rule == cite("553.5(a)")
    assert got.data["decks"] == ["red", "blue"] and got.data["inspection"] == "required"
    [early] = t.shuffle().events
    assert early.data["what"] == "decks_not_inspected" and early.rule == cite("553.5(a)")
    assert not t.dealer("cut", {"cards": 20}).ok
    [seen] = t.dealer("decks_inspected", {"defects_found": False}).output.events
    assert seen.rule == cite("553.5(a)") and not seen.data["cleared"]
    own = t.command("decks_inspected", {"defects_found": False}, role="dealer")
    assert not own.ok
    [verified] = t.command("decks_inspected", {"defects_found": False}).output.events
    assert verified.rule == cite("553.5(b)") and verified.data["cleared"]
    assert not t.shuffle().events
    assert t.dealer("cut", {"cards": 20}).ok
    assert t.dealer("round_start").ok


def test_preinspected_and_preshuffled_decks_are_cut_not_shuffled_553_5_f_553_6_a() -> None:
    """§ 553.5(f): "If the decks of cards received at the table are preinspected and
    preshuffled ..., the requirements in subsections (a)—(c) do not apply." § 553.6(a):
    the shuffle "Immediately prior to commencement of play, unless the cards were
    preshuffled"; the cut of § 553.6(b) still applies."""
    t = make_table("none")
    t.ready()
    [got] = t.command("decks_received", {"preinspected_preshuffled": True}).output.events
    assert got.rule == cite("553.5(f)") and got.data["inspection"] == "not_required"
    refused = t.dealer("round_start")
    assert not refused.ok and refused.rule == cite("553.6(b)")
    assert t.dealer("cut", {"cards": 12, "deck": "blue"}).ok
    [started] = t.dealer("round_start").output.events
    assert started.data["shuffled"] == "preshuffled" and started.data["deck"] == "blue"
    assert t.dealer("round_end").ok
    # The other deck came preshuffled too; the one dealt is shuffled after the round.
    assert not t.dealer("cut", {"cards": 12, "deck": "blue"}).ok
    assert t.dealer("cut", {"cards": 12}).ok
    [started] = t.dealer("round_start").output.events
    assert started.data["deck"] == "red"


def test_the_entire_deck_is_shuffled_after_each_round_553_6_a() -> None:
    """§ 553.6(a): "... and after the completion of each round of play, the dealer shall
    shuffle the entire deck of cards, either manually or by use of an automated card
    shuffling device, so that they are randomly intermixed.\""""
    t = make_table("none")
    t.ready()
    refused = t.dealer("round_start")
    assert not refused.ok and refused.rule == cite("553.6(a)")
    assert not t.dealer("shuffle", {"deck": "green"}).ok
    assert t.dealer("shuffle", {"deck": "red"}).ok and t.dealer("cut", {"cards": 30}).ok
    [started] = t.dealer("round_start").output.events
    assert started.type == EventType.ROUND_STARTED and started.data["shuffled"] == "hand"
    assert not t.dealer("shuffle", {"deck": "blue"}).ok  # not during a round
    [ended] = t.dealer("round_end").output.events
    assert ended.type == EventType.ROUND_ENDED and ended.rule == cite("553.6(a)")
    refused = t.dealer("round_start")
    assert not refused.ok and refused.rule == cite("553.6(a)")
    assert not t.dealer("cut", {"cards": 30, "deck": "red"}).ok  # dealt, not shuffled
    assert t.dealer("shuffle", {"deck": "red"}).ok


def test_the_deck_is_cut_even_after_the_shuffler_553_5_e_553_6_b() -> None:
    """§ 553.5(e): "If an automated card shuffling device is being used, one of the decks
    shall be cut in accordance with § 553.6 and the other deck shall be placed or left in
    the automated shuffler for the next round of play." § 553.6(b)(2): "Taking a stack of
    at least 10 cards from the top of the deck and placing them on top of the cover card.\""""
    t = make_table()
    t.ready()
    t.shuffle("red")
    refused = t.dealer("round_start")
    assert not refused.ok and refused.rule == cite("553.6(b)") and "cut" in refused.error
    short = t.dealer("cut", {"cards": 9})
    assert not short.ok and short.rule == cite("553.6(b)")
    assert not t.dealer("cut", {"cards": 20, "by": "player"}).ok
    assert not t.dealer("shuffle", {"deck": "red"}).ok  # the shuffler shuffles
    assert t.dealer("cut", {"cards": 10}).ok
    again = t.dealer("cut", {"cards": 12})
    assert not again.ok and again.rule == cite("553.6(c)")
    [started] = t.dealer("round_start").output.events
    assert started.rule == cite("553.6(b)") and started.data["shuffled"] == "device"
    assert started.data["cut"] == {"cards": 10, "by": "dealer"}
    # The other deck goes into the shuffler during the round; the one dealt may not.
    assert not t.shuffle("blue").events
    [wrong] = t.shuffler(EventType.SHUFFLER_SHUFFLE_STARTED, {"batch": "red"}).events
    assert wrong.data["what"] == "deck_in_play_shuffled" and wrong.rule == cite("553.5(e)")
    assert t.dealer("round_end").ok
    assert t.dealer("cut", {"cards": 40}).ok
    [started] = t.dealer("round_start").output.events
    assert started.data["deck"] == "blue"


def test_a_floorperson_may_require_a_recut_before_any_card_is_dealt_553_6_c() -> None:
    """§ 553.6(c): "After the cards have been cut and before any cards have been dealt, a
    floorperson or above may require the cards to be recut ...\""""
    t = make_table("none")
    t.ready()
    none_yet = t.command("recut", {"reason": "looked short"})
    assert not none_yet.ok and none_yet.rule == cite("553.6(c)")
    assert t.dealer("shuffle", {"deck": "blue"}).ok and t.dealer("cut", {"cards": 30}).ok
    by_dealer = t.command("recut", {"reason": "short"}, role="dealer")
    assert not by_dealer.ok and by_dealer.rule == cite("553.6(c)")
    assert not t.command("recut").ok
    assert t.command("recut", {"reason": "two hands"}, role="supervisor").ok
    refused = t.dealer("round_start")
    assert not refused.ok and refused.rule == cite("553.6(b)")
    assert t.dealer("cut", {"cards": 25}).ok
    assert t.dealer("round_start").ok
    assert not t.command("recut", {"reason": "late"}).ok  # cards are being dealt


def test_no_gaming_activity_spreads_and_shuffles_both_decks_again_553_6_d() -> None:
    """§ 553.6(d): "If there is no gaming activity at the Poker table, each deck of cards
    at the table shall be spread out on the table face up. After the first two players
    who arrive at the table are afforded an opportunity to visually inspect both of the
    decks, the procedures required under § 553.5(c) ... shall be completed.\""""
    t = make_table(idle_minutes=10)
    t.ready()
    t.shuffle("red")
    t.shuffle("blue")
    assert t.dealer("cut", {"cards": 20}).ok
    t.clock.now += timedelta(minutes=11)
    [due] = t.engine.tick(t.clock.now).events
    assert due.type == EventType.CARDS_SHUFFLE_REQUIRED and due.rule == cite("553.6(d)")
    assert due.data["reason"] == "no_gaming_activity" and due.data["decks"] == ["red", "blue"]
    assert t.engine.tick(t.clock.now).events == [] and t.engine.stack is None
    refused = t.dealer("round_start")
    assert not refused.ok and refused.rule == cite("553.6(d)")
    t.shuffle("red")
    assert t.dealer("cut", {"cards": 15}).ok
    assert t.dealer("round_start").ok


def test_a_jam_or_a_fault_means_the_deck_is_shuffled_again() -> None:
    t = make_table()
    t.ready()
    t.shuffler(EventType.SHUFFLER_SHUFFLE_STARTED, {"batch": "red"})
    [due] = t.shuffler(EventType.SHUFFLER_JAM, {"batch": "red", "code": 3, "text": "jam"}).events
    assert due.type == EventType.CARDS_SHUFFLE_REQUIRED and due.rule == cite("553.6(a)")
    assert not t.dealer("cut", {"cards": 20, "deck": "red"}).ok
    t.shuffle("red")
    assert t.dealer("cut", {"cards": 20}).ok and t.dealer("round_start").ok
    out = t.shuffler(EventType.DEVICE_FAULT, {"code": 4, "text": "elevator", "origin": "x"})
    assert [d.type for d in out.events] == [
        EventType.TABLE_HALTED,
        EventType.ROUND_VOIDED,
        EventType.CARDS_SHUFFLE_REQUIRED,
    ]
    assert out.events[2].rule == cite("553.6(a)") and t.engine.current_round is None


def test_a_continuous_shuffler_or_a_shoe_event_is_not_understood() -> None:
    t = make_table()
    t.shuffler(EventType.DEVICE_ONLINE)
    [halt] = t.shuffler(EventType.DEVICE_IDENTIFIED, {"capabilities": ["continuous"]}).events
    assert halt.type == EventType.TABLE_HALTED and "553.6(a)" in halt.data["detail"]
    [odd] = t.shuffler(EventType.SHOE_CARD_DRAWN, {"count": 1, "card": "AS"}).events
    assert odd.type == EventType.PROCEDURE_VIOLATION and odd.data["policy"]
    other = t.engine.on_device_event("x", EventType.SHUFFLER_JAM, {}, t.clock.step())
    assert other.events[0].data["what"] == "event_from_other_device"


def test_snapshot_round_trip_and_restart_voids_the_round() -> None:
    t = make_table("none", idle_minutes=30)
    t.ready()
    assert t.dealer("shuffle", {"deck": "red"}).ok and t.dealer("shuffle", {"deck": "blue"}).ok
    assert t.dealer("cut", {"cards": 11, "deck": "blue"}).ok
    snap = json.loads(json.dumps(t.engine.snapshot()))
    again = make_table("none", snap, idle_minutes=30)
    assert again.engine.snapshot() == snap == again.engine.public_state()
    assert again.engine.stack == {"deck": "blue", "shuffled": "hand", "cut": snap["stack"]["cut"]}
    assert t.dealer("round_start").ok
    snap = json.loads(json.dumps(t.engine.snapshot()))
    again = make_table("none", snap, idle_minutes=30)
    assert again.engine.snapshot() == snap
    out = again.engine.after_restart(t.clock.step())
    assert out.events[0].type == EventType.ROUND_VOIDED and out.events[0].data["policy"]
    with pytest.raises(SnapshotError):
        make_table("none", dict(snap, game="war"), idle_minutes=30)
    with pytest.raises(SnapshotError):
        make_table("none", dict(snap, how={"red": "magic"}), idle_minutes=30)


def test_every_decision_carries_a_citation_or_a_policy() -> None:
    t = make_table(idle_minutes=5)
    t.ready()
    outs = [t.command("decks_received", {"preinspected_preshuffled": False}).output]
    outs.append(t.shuffle())
    outs.append(t.dealer("decks_inspected", {"defects_found": False}).output)
    outs.append(t.command("decks_inspected", {"defects_found": False}).output)
    outs.append(t.shuffle())
    t.dealer("cut", {"cards": 14})
    outs.append(t.dealer("round_start").output)
    outs.append(t.shuffler(EventType.SHUFFLER_SHUFFLE_STARTED, {"batch": "red"}))
    outs.append(t.shuffler(EventType.SHUFFLER_DOOR, {"open": True}))
    outs.append(t.command("remove_deck", {"reason": "marked card", "deck": "red"}).output)
    outs.append(t.command("change_decks").output)
    outs.append(t.shuffler(EventType.SHUFFLER_MODE, {"continuous": True}))
    outs.append(t.shuffler(EventType.SHUFFLER_OUT_OF_ORDER, {"code": 2, "text": "motor"}))
    t.clock.now += timedelta(minutes=6)
    outs.append(t.engine.tick(t.clock.now))
    seen = [d for out in outs for d in out.events]
    kinds = {d.type for d in seen}
    assert kinds >= {EventType.ROUND_VOIDED, EventType.CARDS_DECK_REMOVED}
    assert kinds >= {EventType.CARDS_DECKS_CHANGED, EventType.PROCEDURE_VIOLATION}
    for d in seen:
        assert d.rule or d.data.get("policy"), d


def test_idle_minutes_and_deck_backs_are_checked_by_the_config_553_6_d() -> None:
    from pydantic import ValidationError

    from floord.games.poker import PokerRulesConfig as ConfigRules

    with pytest.raises(ValidationError):
        ConfigRules(idle_minutes=2000)
    assert ConfigRules(idle_minutes=30).idle_minutes == 30
    assert ConfigRules().deck_backs == ["red", "blue"]
    with pytest.raises(ValidationError):
        ConfigRules.model_validate({"decks": 1})
    assert ConfigRules().engine_rules() == PokerRules()
    made = ConfigRules(shuffler="none", deck_backs=["gold", "grey"], idle_minutes=30)
    assert made.engine_rules() == PokerRules("none", ("gold", "grey"), 30)
