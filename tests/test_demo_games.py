"""The demo's dice tables and War table without running the demo (the run itself is asserted in
`tests/test_demo_system.py` through `demo_games_support`): the scripts the crew's hands give
are steps the simulators take, CR-01's shooter script played through the Craps engine
shows every call the demo promises, and the config and operators fit the tables.
"""

from __future__ import annotations

from typing import Any

import pytest
from craps_support import Table, die, first, types

from floord.config.load import load_config
from floord.contract import EventType, cite
from floord.engine.craps.roles import CALLERS
from floord.engine.pai_gow.rules import PaiGowRules
from floord_demo import DEMO_TABLES, write_demo_config
from floord_demo.dice_dealer import CRAPS_SIGNERS
from floord_demo.dice_tables import (
    CRAPS_TABLE,
    DICE_SET,
    FIRE_BET,
    IMPROPER_THROW,
    PAI_GOW_TABLE,
    SHAKER_PROFILE,
    SHOOTER_THROWS,
    SHOOTERS_DICE,
    TRACKER_PROFILE,
    build_simulator,
    select_step,
    shake_steps,
)
from floord_demo.dice_words import describe_dice, dice_row
from floord_demo.floorperson import CREW_CHECKLISTS, may_open
from floord_demo.war_table import (
    SHOE_PROFILE,
    WAR_TABLE,
    cover_card_step,
    draw_step,
    load_step,
)
from floord_demo.war_table import build_simulator as build_shoe

pytestmark = pytest.mark.unit


def test_every_step_the_hands_give_is_one_the_simulators_take() -> None:
    for profile, steps in ((TRACKER_PROFILE, [select_step(), *SHOOTER_THROWS]),
                           (SHAKER_PROFILE, shake_steps())):  # fmt: skip
        simulator = build_simulator(profile)  # its own scenario validates too
        for body in steps:
            step = simulator.SCENARIO.model_validate({"steps": [body]}).steps[0]
            assert simulator.step_problem(step) is None, (profile, body)
    shoe = build_shoe()
    for body in (load_step(), draw_step(), cover_card_step()):
        step = shoe.SCENARIO.model_validate({"steps": [body]}).steps[0]
        assert shoe.step_problem(step) is None, body


def _engine_throw(body: dict[str, Any]) -> tuple[list[dict[str, Any]], bool]:
    """A scripted throw as the tracker reports it: the shooter's dice, in order."""
    throw = body["throw"]
    if "faces" in throw:
        dice = [die(f, i) for f, i in zip(throw["faces"], SHOOTERS_DICE, strict=True)]
    else:
        dice = [die(d.get("face"), i, rest=d.get("rest", "table"))
                for d, i in zip(throw["dice"], SHOOTERS_DICE, strict=True)]  # fmt: skip
    return dice, throw.get("together", True)


def test_the_shooter_script_plays_every_call_the_demo_shows_537() -> None:
    """Played as the crew plays it: the Fire Bet, the shooter, the selection, each
    throw, the boxperson's "no roll" on the held one and on the improper one floord had
    called."""
    table = Table()
    table.open()
    assert table.dev(EventType.DICE_SET, dice=DICE_SET).events  # the tracker's power-on set
    assert table.cmd("fire_bet", "dealer", **FIRE_BET).ok  # § 537.12(a)(1)
    assert table.cmd("shooter", "stickperson", seat=1).ok
    table.dev(EventType.DICE_SELECTED, dice=select_step()["select"]["dice"])
    seen: list[str] = []
    decisions: list[str] = []
    notices = []
    for body in SHOOTER_THROWS:
        dice, together = _engine_throw(body)
        out = table.throw(None, None, together=together, dice=dice)
        if EventType.CRAPS_THROW_HELD in types(out):
            assert first(out, EventType.CRAPS_THROW_HELD).rule == cite("537.9(b)(1)")
            called = table.cmd("no_roll", "boxperson", reason="not_together")
            assert called.ok, called
            out.events.extend(called.output.events)
        if body is IMPROPER_THROW:  # § 537.9(b)(6): the roll floord called, reversed
            assert first(out, EventType.CRAPS_ROLL).data["decision"] == "point_made"
            called = table.cmd("no_roll", "boxperson", reason="improper")
            assert called.ok, called
            reversed_roll = first(called.output, EventType.CRAPS_NO_ROLL)
            assert reversed_roll.rule == cite("537.9(b)(6)")
            assert reversed_roll.data["reverses"]["decision"] == "point_made"
            assert table.engine.point == 5 and table.engine.shooter["points"] == [4]
            out.events.extend(called.output.events)
        seen += types(out)
        decisions += [d.data["decision"] for d in out.events if d.type == EventType.CRAPS_ROLL]
        notices += [d for d in out.events if d.type == EventType.SURVEILLANCE_NOTICE]
        if body is SHOOTER_THROWS[0]:  # § 537.9(a): a die off the table, the come out voided
            no_roll = first(out, EventType.CRAPS_NO_ROLL)
            assert no_roll.rule == cite("537.9(a)") and no_roll.data["invalid"] is True
            assert EventType.ROUND_VOIDED in types(out)
    assert seen.count(EventType.CRAPS_NO_ROLL) == 3
    assert decisions.count("point_made") == 5 and decisions[-1] == "loser_7"  # one reversed
    assert len(notices) == 1 and notices[0].rule == cite("537.12(a)(6)")
    assert notices[0].data["points"] == [4, 5, 6, 8]
    assert "procedure.violation" not in seen and table.engine.shooter is None
    # The next shooter's Fire Bet is taken again: the crew starts over.
    assert table.cmd("fire_bet", "dealer", **FIRE_BET).ok


def test_the_crew_signs_each_call_as_the_person_chapter_537_names() -> None:
    for call, role in CRAPS_SIGNERS.items():
        roles, _ = CALLERS[call]["craps"]
        assert role in roles, (call, role)
    assert "dealer" in CALLERS["fire_bet"]["craps"][0]


def test_the_demo_config_has_the_dice_and_war_tables_and_their_crew(tmp_path) -> None:
    ports = {t[0]: f"/dev/pts/{90 + i}" for i, t in enumerate(DEMO_TABLES)}
    crewed = {CRAPS_TABLE: "/dev/pts/97", PAI_GOW_TABLE: "/dev/pts/96", WAR_TABLE: "/dev/pts/95"}
    loaded = load_config(
        write_demo_config(tmp_path, "mqtt://127.0.0.1:1", ports, {}, {}, crew_ports=crewed)
    )
    craps = loaded.table(CRAPS_TABLE)
    assert craps.game == "craps" and craps.rules.fire_bet == "A"
    assert craps.devices[0].profile == TRACKER_PROFILE
    pai_gow = loaded.table(PAI_GOW_TABLE)
    assert pai_gow.game == "pai_gow" and pai_gow.devices[0].profile == SHAKER_PROFILE
    assert isinstance(pai_gow.rules.engine_rules(), PaiGowRules)
    war = loaded.table(WAR_TABLE)
    assert war.game == "war" and war.devices[0].profile == SHOE_PROFILE
    roles = {op.role: op for op in loaded.config.operators}
    for role in ("stickperson", "boxperson", "dealer", "floorperson"):
        assert loaded.operator_key(roles[role].id), role
    assert set(CREW_CHECKLISTS) == {"craps", "pai_gow", "war"}


def test_craps_opens_only_once_the_dice_at_the_table_are_on_record_537_7_a() -> None:
    device = {"dice": {"online": True, "identity": {"model": "ref-dice-tracker"}}}
    assert not may_open({"devices": device, "dice_set": []}, "craps")
    assert may_open({"devices": device, "dice_set": list(DICE_SET)}, "craps")
    assert may_open({"devices": device}, "pai_gow")


def test_the_view_says_the_dice_tables_rolls_and_deals() -> None:
    roll = {"faces": [3, 4], "total": 7, "decision": "loser_7", "point": None}
    assert describe_dice("craps.roll", roll) == "3+4 = 7: loser_7, point off"
    invalid = {"reason": "off_the_table", "invalid": True}
    assert describe_dice("craps.no_roll", invalid) == "invalid roll: off_the_table, thrown again"
    called = {"reason": "not_together", "invalid": False, "called_by": "BX-DEMO"}
    assert "no roll: not_together called by BX-DEMO" in str(describe_dice("craps.no_roll", called))
    undone = {**called, "reason": "improper", "reverses": {"total": 5, "decision": "point_made"}}
    assert describe_dice("craps.no_roll", undone) == (
        "no roll: improper called by BX-DEMO, the 5 called (point_made) reversed, thrown again"
    )
    assert describe_dice("roulette.result", {}) is None
    state = {
        "game": "craps",
        "point": 6,
        "last_roll": {"total": 6, "decision": "point_established"},
    }
    assert dice_row(state) == "6 point_established, point 6"
    assert dice_row({"game": "pai_gow", "last_deal": {"position": "dealer"}}) == "from dealer"
    assert dice_row({"game": "roulette"}) is None
