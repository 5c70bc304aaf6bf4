"""`card_to` and `hand_option`: refusals, roles, snapshots, Spanish 21 (§ 549.16(e), (g), (i)).

The corrections themselves are `test_engine_blackjack_dealer_errors.py`'s; here, what a
correction may not do, who may give one, and that a round mid-correction restarts from
its snapshot exactly.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from test_engine_blackjack_support import make_table, of_type, violations

from floord.contract import EventType, cite
from floord.engine.core.types import VerifiedCommand
from floord.operator.commands import Refusal, build_command, verify_command

pytestmark = pytest.mark.unit

NOW = datetime(2024, 5, 1, 12, 0, 0, tzinfo=UTC)


def _refused(out, *words: str) -> None:
    assert not out.ok, out
    for word in words:
        assert word in out.error, out.error


def test_card_to_refusals_549_16_e() -> None:
    """§ 549.16(e), (g), (i) are corrected with `card_to` while a round is in play, for a
    card that was drawn, to a place of the round where it is not already recorded."""
    t = make_table()
    t.ready()
    _refused(t.dealer("card_to", {"box": 1, "hand": 0}), "no round is in play")
    assert t.start(1, 2).ok
    _refused(t.dealer("card_to", {"dealer": True}), "none has been drawn")
    t.draw("TS")
    for args in (
        {"box": 1},
        {"box": 1, "hand": 0, "dealer": True},
        {"dealer": False},
        {"box": "1", "hand": 0},
        {"box": True, "hand": 0},
        {"to": "dealer"},
    ):
        out = t.dealer("card_to", args)
        assert not out.ok and out.error, args
    _refused(t.dealer("card_to", {"box": 5, "hand": 0}), "box 5 has no hand 0")
    _refused(t.dealer("card_to", {"box": 1, "hand": 1}), "box 1 has no hand 1")
    _refused(t.dealer("card_to", {"box": 1, "hand": 0}), "already recorded at box 1 hand 0")
    t.draws("9H", "6D", "7C", "8S", "TH")
    assert t.decide(1, "stand").ok and t.decide(2, "stand").ok
    assert t.dealer("dealer_turn").ok
    out = t.dealer("card_to", {"box": 1, "hand": 0})
    _refused(out, "the dealer's turn has begun")
    assert out.rule == cite("549.7(i)")


def test_hand_option_refusals_549_16_g() -> None:
    """§ 549.16(g) and (i) give the player an option only on a hand dealt one card or
    whose requested card was not dealt; an option is recorded once."""
    t = make_table()
    t.ready()
    _refused(t.dealer("hand_option", {"box": 1, "hand": 0, "option": "deal"}), "no round")
    assert t.start(1).ok
    t.draws("TS", "6D", "7C", "9S")
    for args in ({"box": 1, "hand": 0}, {"box": 1, "hand": 0, "option": "yes"}, {"box": 1}):
        assert not t.dealer("hand_option", args).ok, args
    _refused(t.dealer("hand_option", {"box": 2, "hand": 0, "option": "deal"}), "no hand")
    _refused(t.dealer("hand_option", {"box": 1, "hand": 0, "option": "deal"}), "no option")


@pytest.mark.parametrize("name", ["card_to", "hand_option"])
def test_only_the_dealer_or_a_floorperson_corrects_the_deal_549_16_e(name) -> None:
    """§ 549.16(e), (g), (i): the dealer's errors are recorded by the dealer or a
    floorperson (or above); any other role is refused before the engine sees it."""
    operators = {
        "d1": ("dealer", b"d"),
        "fp1": ("floorperson", b"f"),
        "sv1": ("supervisor", b"s"),
        "sec1": ("security", b"x"),
        "mt1": ("maintenance", b"m"),
    }
    for who, (role, key) in operators.items():
        raw = json.dumps(build_command(name, who, {}, key, NOW, f"id-{who}")).encode()
        result = verify_command(raw, operators=operators, now=NOW, id_used=lambda _: False)
        if role in ("security", "maintenance"):
            assert isinstance(result, Refusal) and result.code == "role_not_allowed"
        else:
            assert isinstance(result, VerifiedCommand), (role, result)


def test_a_round_mid_correction_survives_a_snapshot_549_16_e_g_i() -> None:
    """§ 549.16(e): the dealer's missed cards are dealt "then", after the players' first
    two; § 549.16(g), (i): the player's option. A round restored from its snapshot in the
    middle of each goes on exactly as the one that was not restarted."""

    def script(t, steps):
        out = []
        for step in steps:
            if isinstance(step, str):
                result = t.draw(step)
                out.append(sorted((str(d.type), json.dumps(d.data)) for d in result.events))
            else:
                name, args = step
                result = t.dealer(name, args)
                assert result.ok, (step, result.error)
                out.append(sorted((str(d.type), json.dumps(d.data)) for d in result.output.events))
        return out

    before = ["TS", "7H", "9C", ("card_to", {"box": 1, "hand": 0})]  # (e)
    after = [
        "8D",
        "6S",  # box 2's second card, the dealer's up card
    ]
    rest = [
        "TD",
        ("decision", {"box": 1, "hand": 0, "action": "hit"}),
        "5C",
        ("card_to", {"box": 2, "hand": 0}),  # (i): box 1's card went to box 2
        ("hand_option", {"box": 1, "hand": 0, "option": "deal"}),
    ]
    end = [
        ("decision", {"box": 2, "hand": 0, "action": "hit"}),  # takes the 5C
        ("decision", {"box": 2, "hand": 0, "action": "stand"}),
        "2H",  # box 1's card, before the hole card is revealed
        ("dealer_turn", {}), "4S", ("round_end", {}),
    ]  # fmt: skip
    steps = before + after + rest + end
    straight = make_table()
    straight.ready()
    assert straight.start(1, 2).ok
    whole = script(straight, steps)
    assert any(kind == EventType.BLACKJACK_RESULT for kind, _ in whole[-1])
    for cut in (len(before), len(before) + 1, len(before + after + rest)):
        t = make_table()
        t.ready()
        assert t.start(1, 2).ok
        first = script(t, steps[:cut])
        snap = t.engine.snapshot()
        assert json.loads(json.dumps(snap)) == snap
        again = make_table(snapshot=snap, clock=t.clock)
        again.drawn = t.drawn
        assert again.engine.snapshot()["round"] == snap["round"]
        assert first + script(again, steps[cut:]) == whole, cut


@pytest.mark.parametrize("game", ["blackjack", "spanish21"])
def test_spanish21_applies_chapter_549s_irregularities_549_16_e(game) -> None:
    """§ 549.16(e) on Spanish 21: § 551.16 is not in floord's sources, so chapter 549's
    paragraph is applied and the decision says so (`rule_note`), as every other
    irregularity of a Spanish 21 table."""
    t = make_table(game)
    t.ready()
    assert t.start(1).ok
    t.draws("9S", "8C")
    out = t.dealer("card_to", {"box": 1, "hand": 0})
    assert out.ok, out.error
    [missed] = violations(out.output)
    assert missed.rule == cite("549.16(e)")
    [moved] = of_type(out.output, EventType.BLACKJACK_CARD_CORRECTED)
    if game == "spanish21":
        assert "§ 549.16(e) (Blackjack) applied" in missed.data["rule_note"]
        assert moved.rule == cite("551.8(d)")
    else:
        assert "rule_note" not in missed.data and moved.rule == cite("549.7(e)")


def test_spanish21_hand_dead_on_the_players_option_borrows_549_16_i() -> None:
    """§ 549.16(i) on Spanish 21 ("call the player's hand dead and return the player's
    original wager"): chapter 549's paragraph, said in each decision's `rule_note`."""
    t = make_table("spanish21")
    t.ready()
    assert t.start(1, 2).ok
    t.draws("9S", "8H", "6D", "7C", "5S", "9C")  # box 1: 16, box 2: 13; dealer 6 up
    assert t.decide(1, "hit").ok
    out = t.dealer("hand_option", {"box": 1, "hand": 0, "option": "decline"})
    assert out.ok, out.error
    decisions = out.output.events
    assert [str(d.type) for d in decisions] == [
        EventType.PROCEDURE_VIOLATION,
        EventType.BLACKJACK_HAND_OPTION,
        EventType.BLACKJACK_HAND_DEAD,
    ]
    for decision in decisions:
        assert decision.rule == cite("549.16(i)")
        assert "§ 549.16(i) (Blackjack) applied" in decision.data["rule_note"]


@pytest.mark.parametrize("game", ["blackjack", "spanish21"])
def test_every_dealer_error_decision_carries_its_citation_or_policy_549_16_e_g_i(game) -> None:
    """§ 549.16(e), (g), (i): every decision a dealer's error leads to names its
    paragraph in `rule`; the one that is floord's own (a declined (g) second card) has
    `rule` null and says it is not a regulation."""
    decisions = []
    for flow in (
        # (e), then (g) with one card declined: boxes 1 and 2.
        [("start", [1, 2]), "9S", "8H", "7C", ("card_to", {"box": 1, "hand": 0}), "5S",
         "6D", "9C", ("stand", 1), ("stand", 2), ("dealer_turn", {}), "4H", ("round_end", {})],
        [("start", [1, 2]), "9S", "8H", "6D", "5S", ("card_to", {"box": 2, "hand": 0}), "9C",
         ("hand_option", {"box": 1, "hand": 0, "option": "decline"}), ("stand", 2),
         ("dealer_turn", {}), "4H", ("round_end", {})],
        # (g) no card, then (i) dealt later.
        [("start", [1, 2, 3]), "9S", "8H", ("card_to", {"box": 3, "hand": 0}), "6D", "7C",
         "5S", ("card_to", {"box": 3, "hand": 0}), "9C", ("hit", 1), "2D",
         ("card_to", {"box": 3, "hand": 0}),
         ("hand_option", {"box": 1, "hand": 0, "option": "deal"}), ("stand", 3), "3C",
         ("dealer_turn", {}), "4H", ("round_end", {})],
    ):  # fmt: skip
        t = make_table(game)
        t.ready()
        for step in flow:
            if isinstance(step, str):
                decisions += t.draw(step).events
                continue
            name, args = step
            if name == "start":
                out = t.start(*args)
            elif name in ("stand", "hit"):
                out = t.decide(args, name)
            else:
                out = t.dealer(name, args)
            assert out.ok, (step, out.error)
            decisions += out.output.events
        assert t.engine.current_round is None
    kinds = {str(d.type) for d in decisions}
    assert {"blackjack.card_corrected", "blackjack.hand_option", "blackjack.hand_dead"} <= kinds
    for d in decisions:
        if "58 Pa. Code" in json.dumps(d.data, ensure_ascii=False):
            assert d.rule is not None, d
        if d.rule is None and d.type not in (EventType.ROUND_STARTED, EventType.ROUND_ENDED):
            assert "not a regulation" in d.data["policy"], d
        if d.type in (EventType.BLACKJACK_CARD_CORRECTED, EventType.BLACKJACK_HAND_OPTION):
            assert d.rule is not None, d


def test_an_initial_card_is_corrected_before_the_round_goes_on_549_16_e() -> None:
    """§ 549.16(e), (g) are about the initial deal: a card of it is corrected before the
    first player decision or the peek, not after (the deal order, § 549.7(e), is cited)."""
    t = make_table()
    t.ready()
    assert t.start(1, 2).ok
    t.draws("TS", "9H", "6D", "7C", "8S", "TH")
    assert t.decide(1, "stand").ok
    refused = t.dealer("card_to", {"box": 1, "hand": 0})
    assert not refused.ok and "gone on" in refused.error
    assert refused.rule == cite("549.7(e)")
