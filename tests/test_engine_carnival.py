"""Carnival poker tables (ch. 555-565): opening, the counting shuffler, shuffle, cut, rounds."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import time
from typing import Any

import pytest
from test_engine_support import Clock

from floord.contract import EventType, cite
from floord.engine import SnapshotError
from floord.engine.carnival.engine import CarnivalEngine
from floord.engine.carnival.rules import CHAPTERS, CarnivalRules
from floord.engine.core.types import CommandOutcome, EngineOutput, VerifiedCommand

pytestmark = pytest.mark.unit

SHUFFLER = "shuffler-1"
CHECKLIST = {"cards_inspected": True, "cards_verified": True, "cards_spread_and_washed": True}
COUNTED = ["caribbean_stud", "four_card_poker", "let_it_ride", "texas_holdem_bonus"]
COUNTED.append("three_card_poker")


@dataclass
class Table:
    engine: CarnivalEngine
    clock: Clock = field(default_factory=Clock)

    def shuffler(self, type: str, data: dict[str, Any] | None = None) -> EngineOutput:
        return self.engine.on_device_event(SHUFFLER, type, data or {}, self.clock.step())

    def command(
        self, name: str, args: dict[str, Any] | None = None, role: str = "floorperson"
    ) -> CommandOutcome:
        by = "d1" if role == "dealer" else "fp1"
        cmd = VerifiedCommand(f"c{self.clock.now.timestamp()}", name, by, role, args or {})
        return self.engine.on_command(cmd, self.clock.step())

    def dealer(self, name: str, args: dict[str, Any] | None = None) -> CommandOutcome:
        return self.command(name, args, role="dealer")

    def checklist(self) -> dict[str, bool]:
        return {k: True for k in self.engine.table.spec.items}

    def ready(self) -> None:
        if self.engine.shuffler_device:
            self.shuffler(EventType.DEVICE_ONLINE)
            self.shuffler(EventType.DEVICE_IDENTIFIED, {"capabilities": []})
        assert self.command("inspect", {"checklist": self.checklist()}).ok
        assert self.command("open").ok

    def new_decks(self, args: dict[str, Any] | None = None) -> EngineOutput:
        """The floorperson's `change_decks`, the dealer's inspection and the floorperson's
        verification (§ 55x.4(a), (b); two decks each on its own, (d))."""
        changed = self.command("change_decks", args)
        assert changed.ok, changed.error
        out = EngineOutput(list(changed.output.events))
        decks = {"decks": 2} if self.engine.rules.decks == 2 else {}
        for step in (
            self.dealer("decks_inspected", {"defects_found": False, **decks}),
            self.command("decks_inspected", {"defects_found": False}),
        ):
            assert step.ok, step.error
            out.extend(step.output)
        return out

    def shuffle(self, cards: int | None = None, batch: str = "deck") -> EngineOutput:
        size = self.engine.rules.deck_size if cards is None else cards
        out = self.shuffler(EventType.SHUFFLER_SHUFFLE_STARTED, {"batch": batch})
        done = {"batch": batch, "cards": size}
        out.extend(self.shuffler(EventType.SHUFFLER_SHUFFLE_COMPLETED, done))
        return out


def make_table(
    game: str = "three_card_poker",
    shuffler: str = "counting",
    snapshot: dict[str, Any] | None = None,
    **over: Any,
) -> Table:
    backs = over.pop("deck_backs", None)
    given = None if backs is None else tuple(backs)
    rules = CarnivalRules(game, shuffler=shuffler, deck_backs=given, **over)
    device = None if shuffler == "none" else SHUFFLER
    return Table(
        CarnivalEngine(
            "TC1",
            rules=rules,
            shoe_device=None,
            shuffler_device=device,
            shoe_reports_cards=False,
            required_devices=[device] if device else [],
            gaming_day_starts=time(6, 0),
            timezone="America/New_York",
            snapshot=snapshot,
        )
    )


def rule(game: str, para: str) -> str:
    return cite(f"{CHAPTERS[game]}.{para}")


@pytest.mark.parametrize(
    ("over", "match"),
    [
        ({"shuffler": "none", "decks": 2, "deck_backs": ["red", "blue"]}, r"565\.4\(d\)"),
        ({"decks": 2, "deck_backs": ["red", "red"]}, "deck_backs"),
        ({"decks": 3}, "decks must be"),
        ({"boxes": 8}, "boxes must be"),
        ({"shuffler": "continuous"}, "shuffler must be"),
    ],
)
def test_bad_rules_are_refused_at_construction(over, match) -> None:
    with pytest.raises(ValueError, match=match):
        make_table(**over)


def test_bad_devices_or_game_are_refused_at_construction() -> None:
    with pytest.raises(ValueError, match="game"):
        make_table(game="war")
    rules = CarnivalRules("let_it_ride", shuffler="none")
    base = {"rules": rules, "shoe_reports_cards": False, "required_devices": []}
    base |= {"gaming_day_starts": time(6, 0), "timezone": "UTC"}
    with pytest.raises(ValueError, match="no shoe"):
        CarnivalEngine("T", shoe_device="s", shuffler_device=None, **base)
    with pytest.raises(ValueError, match="shuffler device"):
        CarnivalEngine("T", shoe_device=None, shuffler_device="x", **base)


@pytest.mark.parametrize("game", sorted(CHAPTERS))
def test_the_opening_checklist_cites_the_chapter_55x_4(game) -> None:
    t = make_table(game)
    items = t.engine.table.spec.items
    assert items["cards_inspected"] == rule(game, "4(a)")
    assert items["cards_verified"] == rule(game, "4(b)")
    assert items["cards_spread_and_washed"] == rule(game, "4(c)")
    assert ("one_joker" in items) == (game == "pai_gow_poker")
    refused = t.command("inspect", {"checklist": t.checklist()}, role="security")
    assert not refused.ok and refused.rule == rule(game, "4(b)")
    missing = t.command("inspect", {"checklist": CHECKLIST if game == "pai_gow_poker" else {}})
    assert not missing.ok
    [log] = t.command("inspect", {"checklist": t.checklist()}).output.events
    assert log.type == EventType.OPERATOR_INSPECTION and log.rule == rule(game, "4(b)")


def test_two_decks_are_each_inspected_55x_4_d() -> None:
    t = make_table("caribbean_stud", decks=2, deck_backs=["red", "blue"])
    assert t.engine.table.spec.items["decks_inspected_separately"] == cite("555.4(d)")


def test_pai_gow_needs_its_one_joker_561_4_b() -> None:
    t = make_table("pai_gow_poker")
    assert t.engine.table.spec.items["one_joker"] == cite("561.4(b)")
    assert t.engine.rules.deck_size == 53


@pytest.mark.parametrize("game", COUNTED)
def test_a_counting_shuffler_reporting_other_than_52_removes_the_deck_55x_5_b(game) -> None:
    t = make_table(game)
    t.ready()
    [removed] = t.shuffle(cards=53).events
    assert removed.type == EventType.CARDS_DECK_REMOVED and removed.rule == rule(game, "5(b)")
    assert removed.data["expected"] == 52 and removed.data["cards"] == 53
    refused = t.dealer("round_start", {"boxes": [1]})
    assert not refused.ok and refused.rule == rule(game, "5(b)")
    assert "change_decks" in refused.error
    t.new_decks()
    assert not t.shuffle().events
    assert t.dealer("round_start", {"boxes": [1]}).ok


def test_pai_gow_counts_53_with_its_joker_under_policy() -> None:
    t = make_table("pai_gow_poker")
    t.ready()
    assert not t.shuffle(cards=53).events
    assert t.dealer("round_start", {"boxes": [1, 2]}).ok
    assert t.dealer("round_end").ok
    [removed] = t.shuffle(cards=52).events
    assert removed.type == EventType.CARDS_DECK_REMOVED and removed.rule is None
    assert removed.data["basis"] == cite("561.4(b)") and "561.5" in removed.data["policy"]
    assert not t.dealer("round_start", {"boxes": [1]}).ok


def test_a_non_counting_shuffler_does_not_remove_on_its_count() -> None:
    t = make_table(shuffler="non_counting")
    t.ready()
    assert not t.shuffle(cards=51).events
    assert t.dealer("round_start", {"boxes": [1]}).ok


def test_shuffled_after_every_round_and_no_cut_after_the_device_55x_5_a_c_1() -> None:
    t = make_table("let_it_ride")
    t.ready()
    refused = t.dealer("round_start", {"boxes": [1]})
    assert not refused.ok and refused.rule == cite("559.5(a)")
    t.shuffle()
    cut = t.dealer("cut", {"cards": 20})
    assert not cut.ok and cut.rule == cite("559.5(c)(1)")
    [started] = t.dealer("round_start", {"boxes": [3, 1]}).output.events
    assert started.type == EventType.ROUND_STARTED and started.rule == cite("559.5(c)(1)")
    assert started.data["boxes"] == [1, 3] and started.data["shuffled"] == "device"
    assert not t.dealer("round_start", {"boxes": [1]}).ok
    [ended] = t.dealer("round_end").output.events
    assert ended.type == EventType.ROUND_ENDED and ended.data["outcome"] == "not_called"
    refused = t.dealer("round_start", {"boxes": [1]})
    assert not refused.ok and refused.rule == cite("559.5(a)")
    assert not t.dealer("round_start", {"boxes": [8]}).ok


def test_a_hand_shuffle_is_cut_with_at_least_10_cards_55x_5_c_2_d() -> None:
    t = make_table("caribbean_stud", shuffler="none")
    t.ready()  # no device: the table opens on its inspection alone
    refused = t.dealer("round_start", {"boxes": [1]})
    assert not refused.ok and refused.rule == cite("555.5(a)")
    assert t.dealer("shuffle").ok
    refused = t.dealer("round_start", {"boxes": [1]})
    assert not refused.ok and refused.rule == cite("555.5(c)(2)")
    short = t.dealer("cut", {"cards": 9})
    assert not short.ok and short.rule == cite("555.5(d)(1)")
    assert not t.dealer("cut", {"cards": 20, "by": "player"}).ok
    assert t.dealer("cut", {"cards": 10}).ok
    again = t.dealer("cut", {"cards": 12})
    assert not again.ok and again.rule == cite("555.5(e)")
    [started] = t.dealer("round_start", {"boxes": [2]}).output.events
    assert started.rule == cite("555.5(c)(2)")
    assert started.data["cut"] == {"cards": 10, "by": "dealer"}
    assert not t.dealer("shuffle").ok
    assert t.dealer("round_end").ok
    refused = t.dealer("round_start", {"boxes": [1]})
    assert not refused.ok and refused.rule == cite("555.5(a)")


def test_a_floorperson_may_require_a_recut_55x_5_e() -> None:
    t = make_table("four_card_poker", shuffler="none")
    t.ready()
    none_yet = t.command("recut", {"reason": "looked short"})
    assert not none_yet.ok and none_yet.rule == cite("557.5(e)")
    assert t.dealer("shuffle").ok and t.dealer("cut", {"cards": 30}).ok
    by_dealer = t.command("recut", {"reason": "short"}, role="dealer")
    assert not by_dealer.ok and by_dealer.rule == cite("557.5(e)")
    assert not t.command("recut").ok
    assert t.command("recut", {"reason": "the cut was not one-handed"}).ok
    refused = t.dealer("round_start", {"boxes": [1]})
    assert not refused.ok and refused.rule == cite("557.5(c)(2)")
    assert t.dealer("cut", {"cards": 25}).ok
    assert t.dealer("round_start", {"boxes": [1]}).ok


def test_pai_gow_cut_by_a_player_or_the_dealer_10_from_either_end_561_5() -> None:
    t = make_table("pai_gow_poker", shuffler="none")
    t.ready()
    assert t.dealer("shuffle").ok
    who = t.dealer("cut", {"cards": 20})
    assert not who.ok and who.rule == cite("561.5(c)")
    deep = t.dealer("cut", {"cards": 44, "by": "player"})
    assert not deep.ok and deep.rule == cite("561.5(e)")
    assert t.dealer("cut", {"cards": 43, "by": "player"}).ok
    assert t.command("recut", {"reason": "exposed"}).ok
    assert t.dealer("cut", {"cards": 10, "by": "dealer"}).ok
    [started] = t.dealer("round_start", {"boxes": [1]}).output.events
    assert started.rule == cite("561.5(b)(2)")


def test_preshuffled_decks_are_cut_not_shuffled_55x_5_a_c_2() -> None:
    t = make_table("texas_holdem_bonus")
    t.ready()
    [changed] = t.command("change_decks", {"preshuffled": True}).output.events
    assert changed.type == EventType.CARDS_DECKS_CHANGED and changed.rule == cite("563.4(e)")
    assert changed.data["preinspected_preshuffled"] is True
    refused = t.dealer("round_start", {"boxes": [1]})
    assert not refused.ok and refused.rule == cite("563.5(c)(2)")
    assert t.dealer("cut", {"cards": 15}).ok
    [started] = t.dealer("round_start", {"boxes": [1]}).output.events
    assert started.data["shuffled"] == "preshuffled"
    assert not t.command("change_decks", {"preshuffled": "yes"}).ok


def test_a_jam_means_a_reshuffle_and_a_broken_shuffler_a_hand_shuffle() -> None:
    t = make_table("three_card_poker")
    t.ready()
    t.shuffler(EventType.SHUFFLER_SHUFFLE_STARTED, {"batch": "deck"})
    [due] = t.shuffler(EventType.SHUFFLER_JAM, {"batch": "deck", "code": 3, "text": "jam"}).events
    assert due.type == EventType.CARDS_SHUFFLE_REQUIRED and due.rule == cite("565.5(a)")
    refused = t.dealer("round_start", {"boxes": [1]})
    assert not refused.ok and refused.rule == cite("565.5(a)")
    assert not t.dealer("shuffle").ok  # the working shuffler shuffles
    [warn] = t.shuffler(EventType.SHUFFLER_OUT_OF_ORDER, {"code": 9, "text": "motor"}).events
    assert warn.type == EventType.TABLE_WARNING and warn.data["policy"]
    assert t.dealer("shuffle").ok and t.dealer("cut", {"cards": 26}).ok
    assert t.dealer("round_start", {"boxes": [1]}).ok


def test_a_device_fault_halts_and_voids_the_round() -> None:
    t = make_table("caribbean_stud")
    t.ready()
    t.shuffle()
    assert t.dealer("round_start", {"boxes": [1, 2]}).ok
    out = t.shuffler(EventType.DEVICE_FAULT, {"code": 4, "text": "elevator", "origin": "x"})
    kinds = [d.type for d in out.events]
    assert kinds == [
        EventType.TABLE_HALTED,
        EventType.ROUND_VOIDED,
        EventType.CARDS_SHUFFLE_REQUIRED,
    ]
    assert out.events[2].rule == cite("555.5(a)")
    assert t.engine.table.state == "halted" and t.engine.current_round is None
    assert not t.command("resume", {"reason": "fixed"}).ok
    t.shuffler(EventType.DEVICE_OFFLINE)
    t.shuffler(EventType.DEVICE_ONLINE)
    t.shuffler(EventType.DEVICE_IDENTIFIED, {"capabilities": []})
    assert t.command("resume", {"reason": "fixed"}).ok


def test_a_continuous_shuffler_or_a_shoe_event_is_not_understood() -> None:
    t = make_table()
    t.shuffler(EventType.DEVICE_ONLINE)
    [halt] = t.shuffler(EventType.DEVICE_IDENTIFIED, {"capabilities": ["continuous"]}).events
    assert halt.type == EventType.TABLE_HALTED and "565.5(a)" in halt.data["detail"]
    [odd] = t.shuffler(EventType.SHOE_CARD_DRAWN, {"count": 1, "card": "AS"}).events
    assert odd.type == EventType.PROCEDURE_VIOLATION and odd.data["policy"]
    other = t.engine.on_device_event("x", EventType.SHUFFLER_JAM, {}, t.clock.step())
    assert other.events[0].data["what"] == "event_from_other_device"


def test_snapshot_round_trip_and_restart_voids_the_round() -> None:
    t = make_table("let_it_ride", shuffler="none")
    t.ready()
    assert t.dealer("shuffle").ok and t.dealer("cut", {"cards": 11}).ok
    assert t.dealer("round_start", {"boxes": [1]}).ok
    snap = json.loads(json.dumps(t.engine.snapshot()))
    again = make_table("let_it_ride", shuffler="none", snapshot=snap)
    assert again.engine.snapshot() == snap == again.engine.public_state()
    out = again.engine.after_restart(t.clock.step())
    assert out.events[0].type == EventType.ROUND_VOIDED
    assert out.events[0].data["policy"]
    bad = dict(snap, game="three_card_poker")
    with pytest.raises(SnapshotError):
        make_table("let_it_ride", shuffler="none", snapshot=bad)


def test_every_decision_carries_a_citation_or_a_policy() -> None:
    t = make_table("four_card_poker")
    t.ready()
    outs = [t.shuffle(cards=51)]
    outs.append(t.new_decks())
    outs.append(t.command("reshuffle", {"reason": "r"}).output)
    outs.append(t.shuffle())
    outs.append(t.dealer("round_start", {"boxes": [1]}).output)
    outs.append(t.command("remove_deck", {"reason": "marked card"}).output)
    outs.append(t.shuffler(EventType.SHUFFLER_MODE, {"continuous": True}))
    seen = [d for out in outs for d in out.events]
    assert {d.type for d in seen} >= {EventType.ROUND_VOIDED, EventType.CARDS_DECK_REMOVED}
    for d in seen:
        assert d.rule or d.data.get("policy"), d


@pytest.mark.parametrize(
    ("game", "para"),
    [("three_card_poker", "5(f)"), ("let_it_ride", "5(f)"), ("pai_gow_poker", "5(g)")],
)
def test_no_gaming_activity_means_the_cards_are_shuffled_again_55x_5_f(game, para) -> None:
    """§ 565.5(f): "Whenever there is no gaming activity at a Three Card Poker table which
    is open for gaming, the cards shall be spread out on the table ... After the first
    player ... the procedures in § 565.4(c) ... and this section shall be completed."
    (§ 565.4(c): "... Once the cards have been stacked, they shall be shuffled in
    accordance with § 565.5".) Pai Gow Poker's is § 561.5(g)."""
    from datetime import timedelta

    t = make_table(game, idle_minutes=10)
    t.ready()
    t.shuffle()
    assert t.dealer("round_start", {"boxes": [1]}).ok
    assert t.dealer("round_end").ok
    t.shuffle()
    t.clock.now += timedelta(minutes=11)
    [due] = t.engine.tick(t.clock.now).events
    assert due.type == EventType.CARDS_SHUFFLE_REQUIRED and due.rule == rule(game, para)
    assert due.data["reason"] == "no_gaming_activity" and due.data["decks"] == ["deck"]
    assert t.engine.tick(t.clock.now).events == []  # once
    refused = t.dealer("round_start", {"boxes": [1]})
    assert not refused.ok and refused.rule == rule(game, para)
    t.shuffle()
    assert t.dealer("round_start", {"boxes": [1]}).ok


def test_an_idle_hand_shuffled_table_shuffles_and_cuts_again_55x_5_f() -> None:
    """§ 555.5(f): the cards of an idle Caribbean Stud table are spread; then § 555.4(c)
    and this section: shuffled, and (by hand) cut again (§ 555.5(c)(2))."""
    from datetime import timedelta

    t = make_table("caribbean_stud", shuffler="none", idle_minutes=5)
    t.ready()
    assert t.dealer("shuffle").ok and t.dealer("cut", {"cards": 20}).ok
    assert t.dealer("round_start", {"boxes": [1]}).ok and t.dealer("round_end").ok
    assert t.dealer("shuffle").ok and t.dealer("cut", {"cards": 20}).ok
    t.clock.now += timedelta(minutes=6)
    [due] = t.engine.tick(t.clock.now).events
    assert due.rule == cite("555.5(f)") and t.engine.stack is None
    assert not t.dealer("round_start", {"boxes": [1]}).ok
    restored = make_table("caribbean_stud", "none", t.engine.snapshot(), idle_minutes=5)
    assert restored.engine.decks.idle_since == t.engine.decks.idle_since
    assert t.dealer("shuffle").ok and t.dealer("cut", {"cards": 15}).ok
    assert t.dealer("round_start", {"boxes": [1]}).ok


def test_idle_minutes_is_checked_by_the_config_55x_5_f() -> None:
    from pydantic import ValidationError

    from floord.games.carnival import CarnivalRulesConfig as ConfigRules

    with pytest.raises(ValueError, match=r"565\.5\(f\)"):
        make_table(idle_minutes=0)
    with pytest.raises(ValidationError):
        ConfigRules(idle_minutes=2000)
    assert ConfigRules(idle_minutes=30).idle_minutes == 30
