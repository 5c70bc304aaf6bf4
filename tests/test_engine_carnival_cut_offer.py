"""Who is offered the cut at Pai Gow Poker, and the cut on the record at every carnival game.

58 Pa. Code § 561.5(c)-(e); § 55x.5(d)(1) (§ 555.5(d)(1) and its sisters).
"""

from __future__ import annotations

import pytest
from test_engine_carnival import make_table

from floord.contract import EventType, cite

pytestmark = pytest.mark.unit


def _cut(out):
    return [d for d in out.output.events if d.type == EventType.CARDS_CUT]


def _play_a_round(t) -> None:
    assert t.dealer("round_start", {"boxes": [1, 4]}).ok
    assert t.dealer("round_end").ok


def test_the_first_player_arriving_cuts_when_the_game_is_just_beginning_561_5_d_1() -> None:
    """§ 561.5(d): "The cut of the cards shall be offered to players in the following order:
    (1) The first player arriving at the table, if the game is just beginning." """
    t = make_table("pai_gow_poker", shuffler="none")
    t.ready()
    assert t.dealer("shuffle").ok
    done = t.dealer("cut", {"cards": 20, "by": "player", "box": 2})
    [event] = _cut(done)
    assert event.rule == cite("561.5(e)")
    assert event.data["offered_to"]["rule"] == cite("561.5(d)(1)")
    assert event.data["box"] == 2


def test_then_from_the_farthest_right_player_counterclockwise_561_5_d_2_c() -> None:
    """§ 561.5(d)(2): "The player at the farthest position to the right of the dealer. If this
    player refuses, the offer to cut the cards shall rotate to each player in a
    counterclockwise manner." (c): "If no player accepts the cut, the dealer shall cut the
    cards." """
    t = make_table("pai_gow_poker", shuffler="none")
    t.ready()
    assert t.dealer("shuffle").ok
    assert t.dealer("cut", {"cards": 20, "by": "dealer"}).ok
    _play_a_round(t)
    assert t.dealer("shuffle").ok
    clockwise = t.dealer("cut", {"cards": 20, "by": "player", "box": 6, "declined": [4]})
    assert not clockwise.ok and clockwise.rule == cite("561.5(c)")
    assert "counterclockwise" in clockwise.error
    done = t.dealer("cut", {"cards": 20, "by": "player", "box": 1, "declined": [6, 4]})
    [event] = _cut(done)
    assert event.data["offered_to"]["rule"] == cite("561.5(d)(2)")
    assert event.data["declined"] == [6, 4]
    assert t.command("recut", {"reason": "cards flashed"}).ok
    nobody = t.dealer("cut", {"cards": 33, "by": "dealer", "declined": [6, 4, 1]})
    [event] = _cut(nobody)
    assert event.data["by"] == "dealer" and event.data["also"] == cite("561.5(c)")


def test_the_dealers_one_handed_cut_is_on_the_record_555_5_d_1() -> None:
    """§ 555.5(d)(1): "Cut the deck, using one hand, by: (i) Placing the cover card on the
    table in front of the deck of cards. (ii) Taking a stack of at least 10 cards from the
    top of the deck and placing them on top of the cover card. (iii) Placing the cards
    remaining in the deck on top of the stack of cards that were cut and placed on the cover
    card." """
    t = make_table("caribbean_stud", shuffler="none")
    t.ready()
    assert t.dealer("shuffle").ok
    by_player = t.dealer("cut", {"cards": 15, "box": 2})
    assert not by_player.ok and by_player.rule == cite("555.5(d)(1)")
    [event] = _cut(t.dealer("cut", {"cards": 15}))
    assert event.rule == cite("555.5(d)(1)")
    assert event.data["by"] == "dealer" and event.data["shuffled"] == "hand"
