"""Blackjack rulings as chapters 549 and 551 write them (issue 13's wrong decisions).

Each test quotes the paragraph it enforces. Helpers are `test_engine_blackjack_support`'s.
"""

from __future__ import annotations

import re

import pytest
from test_engine_blackjack_support import make_table

from floord.contract import cite


@pytest.mark.parametrize(
    ("game", "section"), [("blackjack", "549.2(b)(2)"), ("spanish21", "551.2(b)(2)")]
)
def test_no_more_than_seven_boxes_549_2_b_2_551_2_b_2(game, section) -> None:
    """§ 549.2(b)(2): the layout contains "No more than seven specific areas designated
    for the placement of wagers." § 551.2(b)(2): "No more than seven player positions
    containing a separate designated betting area". A table of eight or nine boxes is
    refused, and no round is dealt on a box 8 or 9."""
    for boxes in (8, 9):
        with pytest.raises(ValueError, match=re.escape(cite(section))):
            make_table(game, boxes=boxes)
    t = make_table(game, boxes=7)
    t.ready()
    for boxes in ([8], [1, 9], [7, 8]):
        refused = t.start(*boxes)
        assert not refused.ok and refused.rule == cite(section)
    assert t.engine.current_round is None
    assert t.start(1, 7).ok
