"""The shuffle, the feathered stack, the cut and the recut of a Baccarat-family table.

58 Pa. Code § 541.5(b)-(d), (f); § 543.5(b)-(d), (f); § 545.5(b), (c), (e). No device sees
the stack before the shoe: the dealer's `shuffle` and `cut` and the floorperson's
`shuffle_verified` and `recut` record it.
"""

from __future__ import annotations

import pytest
from test_engine_baccarat_support import make_table, of_type, violations

from floord.contract import EventType, cite

pytestmark = pytest.mark.unit

CHAPTER = {"minibaccarat": "541", "midibaccarat": "543", "baccarat": "545"}
STACK = 8 * 52


def _ready(game):
    t = make_table(game=game)
    t.ready(load=False)
    return t


@pytest.mark.parametrize("game", ["minibaccarat", "midibaccarat"])
def test_the_floorperson_verifies_the_feathered_stack_541_5_b_543_5_b(game: str) -> None:
    """§ 541.5(b): "After the cards have been shuffled by a dealer, the dealer shall leave the
    entire stack of cards intermixed but not entirely squared off (leave them feathered) so
    that the floorperson can verify that the shuffle did not result in any uneven
    distribution of cards." (§ 543.5(b) says the same.)"""
    ch = CHAPTER[game]
    t = _ready(game)
    assert t.dealer("shuffle").ok
    early = t.dealer("cut", {"cards": 100, "by": "dealer"})
    assert not early.ok and early.rule == cite(f"{ch}.5(b)")
    by_dealer = t.dealer("shuffle_verified", {"even": True})
    assert not by_dealer.ok and by_dealer.rule == cite(f"{ch}.5(b)")
    uneven = t.command("shuffle_verified", {"even": False, "note": "clumped"})
    assert uneven.ok, uneven.error
    [seen] = of_type(uneven.output, EventType.CARDS_SHUFFLE_VERIFIED)
    assert seen.rule == cite(f"{ch}.5(b)") and seen.data["even"] is False
    assert t.engine.cuts.stack is None  # shuffled again
    assert t.dealer("shuffle").ok
    assert t.command("shuffle_verified", {"even": "yes"}).ok is False
    assert t.command("shuffle_verified", {"even": True}).ok
    assert t.dealer("cut", {"cards": 100, "by": "dealer"}).ok


def test_baccarat_has_no_feathered_stack_545_5() -> None:
    t = _ready("baccarat")
    assert t.dealer("shuffle").ok
    refused = t.command("shuffle_verified", {"even": True})
    assert not refused.ok and refused.rule == cite("545.5(a)")
    assert t.dealer("cut", {"cards": 100, "by": "dealer"}).ok


@pytest.mark.parametrize("game", ["minibaccarat", "midibaccarat", "baccarat"])
def test_the_cut_is_offered_from_the_highest_numbered_position(game: str) -> None:
    """§ 541.5(c): "The dealer shall begin with the player seated in the highest number
    position at the table and, working clockwise around the table, shall offer the stack to
    each player until a player accepts the cut. If no player accepts the cut, the dealer
    shall cut the cards." (§ 543.5(c); § 545.5(b) for Baccarat.)"""
    rule = {"minibaccarat": "541.5(c)", "midibaccarat": "543.5(c)", "baccarat": "545.5(b)"}
    t = _ready(game)
    refused = t.shuffle_and_cut(cards=100, by="player", box=5, declined=[3])
    assert not refused.ok and refused.rule == cite(rule[game])
    assert "highest" in refused.error
    done = t.dealer("cut", {"cards": 100, "by": "player", "box": 3, "declined": [7, 6]})
    assert done.ok, done.error
    [event] = of_type(done.output, EventType.CARDS_CUT)
    assert event.data["offered_to"]["why"] == "highest"
    assert event.data["declined"] == [7, 6] and event.data["shuffled"] == "hand"


@pytest.mark.parametrize("game", ["minibaccarat", "midibaccarat", "baccarat"])
def test_the_cover_card_at_least_ten_cards_from_the_top_or_bottom(game: str) -> None:
    """§ 541.5(d): "The cards shall be cut by placing a cover card in the stack at least ten
    cards in from the top or the bottom of the stack." (§ 543.5(d), § 545.5(c).)"""
    rule = {"minibaccarat": "541.5(d)", "midibaccarat": "543.5(d)", "baccarat": "545.5(c)"}
    t = _ready(game)
    for cards in (9, STACK - 9):
        refused = t.shuffle_and_cut(cards=cards, by="dealer")
        assert not refused.ok and refused.rule == cite(rule[game]), cards
    done = t.shuffle_and_cut(cards=STACK - 10, by="dealer")
    [event] = of_type(done.output, EventType.CARDS_CUT)
    assert event.rule == cite(rule[game]) and event.data["stack"] == STACK
    # The shoe counts 410: 406 above the cover card leaves 4 below it.
    out = t.device(EventType.SHOE_LOADED, {"side": None, "cards": 410})
    near = [v for v in violations(out) if v.data["what"] == "cut_too_near_the_end"]
    assert len(near) == 1 and near[0].rule == cite(rule[game])


@pytest.mark.parametrize("game", ["minibaccarat", "midibaccarat", "baccarat"])
def test_a_stack_not_shuffled_and_cut_does_not_count(game: str) -> None:
    """§ 541.5(c): "After shuffling the cards ... the dealer shall offer the stack of cards
    ... to the players to be cut." (§ 543.5(c), § 545.5(b).)"""
    rule = {"minibaccarat": "541.5(c)", "midibaccarat": "543.5(c)", "baccarat": "545.5(b)"}
    t = _ready(game)
    [v] = violations(t.device(EventType.SHOE_LOADED, {"side": None, "cards": STACK}))
    assert v.data["what"] == "stack_not_shuffled" and v.rule == cite(rule[game])
    assert t.dealer("shuffle").ok
    [v] = violations(t.device(EventType.SHOE_LOADED, {"side": None, "cards": STACK}))
    assert v.data["what"] == "stack_not_cut"
    assert not t.engine.shoe.loaded


@pytest.mark.parametrize("game", ["minibaccarat", "midibaccarat", "baccarat"])
def test_a_recut_before_the_shoe_by_the_next_person_entitled(game: str) -> None:
    """§ 541.5(f): "After the cards have been cut and before the cards have been placed in the
    dealing shoe, a floorperson or above may require the cards to be recut ... If a recut is
    required, the cards shall be recut by the next person entitled to cut the cards, as
    determined by subsection (c)." (§ 543.5(f); § 545.5(e), "under subsection (b)".)"""
    rule = {"minibaccarat": "541.5(f)", "midibaccarat": "543.5(f)", "baccarat": "545.5(e)"}
    t = _ready(game)
    assert t.shuffle_and_cut(cards=100, by="player", box=9).ok
    by_dealer = t.dealer("recut", {"reason": "improper"})
    assert not by_dealer.ok and by_dealer.rule == cite(rule[game])
    assert t.command("recut", {"reason": "improper"}).ok
    same = t.dealer("cut", {"cards": 100, "by": "player", "box": 9})
    assert not same.ok
    nxt = t.dealer("cut", {"cards": 120, "by": "player", "box": 8, "declined": [1]})
    assert nxt.ok, nxt.error
    [event] = of_type(nxt.output, EventType.CARDS_CUT)
    assert event.rule == cite(rule[game]) and event.data["recut"] is True
    t.load()
    late = t.command("recut", {"reason": "in the shoe"})
    assert not late.ok and late.rule == cite(rule[game])


def test_after_a_reshuffle_baccarat_offers_the_last_curator_545_5_b() -> None:
    """§ 545.5(b): "The dealer shall begin with the player seated in the highest number
    position at the table or, in the case of a reshuffle, the last curator ..." """
    t = make_table(game="baccarat")
    t.ready()
    assert t.command("reshuffle", {"reason": "floor call"}).ok
    assert t.dealer("shuffle").ok
    assert t.engine.cuts.offer["why"] == "curator"
    # floord does not know the curator's seat: a lower seat may be offered first.
    assert t.dealer("cut", {"cards": 100, "by": "player", "box": 2, "declined": [1, 9]}).ok


def test_preshuffled_decks_are_cut_without_a_shuffle() -> None:
    t = make_table(game="minibaccarat")
    t.ready(load=False)
    got = t.dealer("decks_received", {"preinspected_preshuffled": True, "decks": 8})
    assert got.ok, got.error
    done = t.dealer("cut", {"cards": 100, "by": "dealer"})  # no feathered stack to verify
    assert done.ok, done.error
    [event] = of_type(done.output, EventType.CARDS_CUT)
    assert event.data["shuffled"] == "preshuffled"


def test_a_cut_survives_a_restart() -> None:
    t = _ready("midibaccarat")
    assert t.shuffle_and_cut(cards=90, by="dealer").ok
    t2 = make_table(game="midibaccarat", snapshot=t.engine.snapshot())
    assert t2.engine.cuts.stack["cut"]["cards"] == 90
