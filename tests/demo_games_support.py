"""What the demo's Mosquitto run must show of its dice tables and its War table
(`tests/test_demo_system.py` calls `check_crewed_tables` on that run's lines, so no second demo
is run for them).

CR-01: opened after its inspection; the Fire Bet brought in by the dealer before a come
out (§ 537.12(a)(1)); the invalid roll of a die off the table (§ 537.9(a)) voided and
thrown again; the boxperson's "no roll" on dice that left the hand apart (§ 537.9(b)(1))
and on a throw he considered improper after floord had called it, which reverses the roll
(§ 537.9(b)(6)); four unique points and the `surveillance.notice` of § 537.12(a)(6); the
loser 7 that passes the dice and settles the Fire Bet. PG-01: each hand's deal position
from the shake (§ 535.2(d)), dealt from there and ended. WR-01: six decks received,
inspected by the dealer and verified by the floorperson (§ 567.4(a)), cut (§ 567.5(d)),
rounds played, and the second cover card's round ending with the reshuffle due
(§ 567.5(b)(2), (g)) and the next cut by that box. On each: no operator command refused, no
violation, and `daemon.stopped` the last event.
"""

from __future__ import annotations

from floord.contract import cite
from floord_demo.dice_tables import CRAPS_TABLE, PAI_GOW_TABLE
from floord_demo.war_table import WAR_TABLE

Lines = list[tuple[str, str]]


def _of(lines: Lines, kind: str) -> list[str]:
    return [line for k, line in lines if k == kind]


def _common(table: str, lines: Lines) -> None:
    kinds = [kind for kind, _ in lines]
    shown = [line for _, line in lines][:80]
    assert "table.opened" in kinds, (table, shown)
    assert not _of(lines, "operator.command_refused"), (
        table,
        _of(lines, "operator.command_refused"),
    )
    assert not _of(lines, "procedure.violation"), (table, _of(lines, "procedure.violation"))
    assert kinds[-1] == "daemon.stopped", (table, [line for _, line in lines][-5:])


def check_craps(lines: Lines) -> None:
    _common(CRAPS_TABLE, lines)
    kinds = [kind for kind, _ in lines]
    opened = kinds.index("table.opened")
    fire = [line for line in _of(lines, "craps.fire_bet") if "Fire Bet accepted" in line]
    assert fire and cite("537.12(a)(1)") in fire[0], fire
    commands = _of(lines, "operator.command")
    assert any(" fire_bet " in c and " by DL-DEMO " in c for c in commands), "by the dealer"
    assert any(" shooter " in c and " by ST-DEMO " in c for c in commands), "by the stickperson"
    invalid = [
        line for line in _of(lines, "craps.no_roll") if "invalid roll: off_the_table" in line
    ]
    assert invalid and cite("537.9(a)") in invalid[0], _of(lines, "craps.no_roll")
    assert any("off_the_table" in v and cite("537.9(a)") in v for v in _of(lines, "round.voided"))
    called = [line for line in _of(lines, "craps.no_roll") if "called by BX-DEMO" in line]
    apart = [line for line in called if "no roll: not_together" in line]
    assert apart and cite("537.9(b)(1)") in apart[0], _of(lines, "craps.no_roll")
    # § 537.9(b)(6): the boxperson's "no roll" on the roll floord had called reverses it.
    reversed_rolls = [line for line in called if "improper" in line and "reversed" in line]
    assert reversed_rolls and cite("537.9(b)(6)") in reversed_rolls[0], called
    assert "the 5 called (point_made) reversed" in reversed_rolls[0], reversed_rolls
    assert any("improper" in v and cite("537.9(b)(6)") in v for v in _of(lines, "round.voided"))
    notices = _of(lines, "surveillance.notice")
    assert notices and cite("537.12(a)(6)") in notices[0], notices
    assert "points [4, 5, 6, 8]" in notices[0], notices
    assert kinds.index("craps.fire_bet") > opened and kinds.index("craps.roll") > opened
    rolls = _of(lines, "craps.roll")
    assert any(": point_made, point off" in r for r in rolls), rolls[:20]
    # The first shooter's loser 7 passes the dice and settles the Fire Bet.
    assert any("loser_7" in r for r in rolls), rolls[-5:]
    assert any("Fire Bet won" in line for line in _of(lines, "craps.fire_bet"))
    passed = [line for line in _of(lines, "craps.shooter") if "shooter passed" in line]
    assert passed and cite("537.11(a)(1)") in passed[0], _of(lines, "craps.shooter")


def check_pai_gow(lines: Lines) -> None:
    _common(PAI_GOW_TABLE, lines)
    positions = _of(lines, "paigow.deal_position")
    assert len(positions) >= 2 and all(cite("535.2(d)") in p for p in positions), positions
    assert {p.split("deal from ", 1)[1].split(" ", 1)[0] for p in positions} >= {"4", "3"}
    dealt = _of(lines, "paigow.dealt")
    assert dealt and all("as the dice named" in d and "NOT" not in d for d in dealt), dealt
    assert any("outcome=dealt" in e for e in _of(lines, "round.ended")), lines[-20:]


def check_war(lines: Lines) -> None:
    _common(WAR_TABLE, lines)
    kinds = [kind for kind, _ in lines]
    assert "cards.decks_received" in kinds, [line for _, line in lines][:40]
    steps = _of(lines, "cards.decks_inspected")
    assert any("by=DL-DEMO" in s and "step=inspected" in s for s in steps), steps
    assert any("by=FP-DEMO" in s and "step=verified" in s for s in steps), steps
    cuts = _of(lines, "cards.cut")
    assert cuts and all(cite("567.5(d)") in c for c in cuts), cuts
    ended = _of(lines, "round.ended")
    assert len(ended) >= 3, ended
    cover = [e for e in ended if cite("567.5(b)(2)") in e]
    assert cover, ended
    due = _of(lines, "cards.shuffle_required")
    assert due and cite("567.5(g)") in due[0], due
    assert len(cuts) >= 2 and "box=3" in cuts[1], cuts  # the cover card's box cuts next


def check_crewed_tables(events: dict[str, Lines]) -> None:
    """The crewed tables: Craps, Pai Gow and War."""
    check_craps(events[CRAPS_TABLE])
    check_pai_gow(events[PAI_GOW_TABLE])
    check_war(events[WAR_TABLE])
