"""What `floord demo` plays, checked without running it: its config loads and every wheel
can be watched, the Big Six script has valid and void spins, and the card scenarios are
playable and keep to the rules. The demo itself runs in `test_demo_system.py`.
"""

from __future__ import annotations

import pytest

from floord.config.load import load_config
from floord.engine.big_six.layout import ORDER_533_1_B
from floord.games.registry import setup_for_table
from floord.table.surveillance import TableSurveillance
from floord_demo import DEMO_TABLES, write_demo_config
from floord_demo import sensor_wheel as rl03
from floord_demo.big_six_table import SPINS, build_simulator, spin_steps
from floord_demo.card_devices import DEMO_CARD_TABLES, build_simulators, scenario_bodies
from floord_demo.card_script import dealer_draws, hand_live, player_hits
from floord_demo.game_scripts import tableau_cards

pytestmark = pytest.mark.unit


def test_the_demo_config_loads_and_every_wheel_can_be_watched(tmp_path) -> None:
    ports = {t[0]: f"/dev/pts/{90 + i}" for i, t in enumerate(DEMO_TABLES)}
    wheels = {rl03.TABLE: "/dev/pts/98", "B6-01": "/dev/pts/99"}
    loaded = load_config(write_demo_config(tmp_path, "mqtt://127.0.0.1:1", ports, {}, wheels))
    settings = loaded.config.surveillance
    # The demo's settings are the config's (the others keep their defaults).
    dumped = settings.model_dump()
    assert {key: dumped[key] for key in rl03.SURVEILLANCE} == rl03.SURVEILLANCE
    # A supervisor and a security officer besides the virtual floorperson and dealer,
    # each key in its own file beside the config: `ack_alert` can be tried.
    roles = {op.role: op for op in loaded.config.operators}
    assert {"floorperson", "dealer", "supervisor", "security"} <= set(roles)
    for role in ("supervisor", "security"):
        assert (tmp_path / roles[role].key_file).is_file()
        assert loaded.operator_key(roles[role].id)
    b6 = loaded.table("B6-01")
    assert b6.game == "big_six" and b6.devices[0].profile == "ref-big-six"
    kit = loaded.table(rl03.TABLE)
    assert (kit.game, kit.rules.wheel, kit.devices[0].profile) == (
        "roulette", "single_zero", "ref-wheel-sensor")  # fmt: skip
    # The window suits every wheel's tests (each cell expects five), as the daemon needs.
    for table in [t[0] for t in DEMO_TABLES] + [rl03.TABLE, "B6-01"]:
        sectors = settings.big_six_sectors if table == "B6-01" else settings.roulette_sectors
        setup = setup_for_table(loaded.table(table), settings.window, settings.level, sectors)
        TableSurveillance(setup)


def test_the_big_six_script_has_valid_and_void_spins() -> None:
    simulator = build_simulator()  # the scenario validates against the wheel's model
    for step in spin_steps():  # and so does every spin the dealer's hand gives
        simulator.SCENARIO.model_validate({"steps": [step]})
    spins = [step["spin"] for step in spin_steps()]
    assert len(spins) == len(SPINS)
    kinds = ["divider" if s.get("between") else "short" if s["revolutions"] < 3 else "valid"
             for s in spins]  # fmt: skip
    assert kinds.count("divider") == 1 and kinds.count("short") == 1
    # Each void spin is followed by a valid re-spin; the symbols shown include both 45s.
    for n, kind in enumerate(kinds):
        if kind != "valid":
            assert kinds[n + 1] == "valid"
    symbols = {ORDER_533_1_B[s["section"]] for s, k in zip(spins, kinds, strict=True)
               if k == "valid"}  # fmt: skip
    assert {"joker", "flag"} <= symbols


@pytest.mark.parametrize("pace", [1.0, 4.0])
def test_card_scenarios_are_playable_and_keep_to_the_rules(pace: float) -> None:
    for table in DEMO_CARD_TABLES:
        build_simulators(table, pace)  # validated, dry-run, loops of one length
        line, bodies = scenario_bodies(table, pace)
        steps = {device: body["steps"] for device, body in bodies.items()}
        if table.game == "baccarat":
            assert len(line.coups) >= 4
            allowed = [tableau_cards(coup) for coup in line.coups]
            # Every coup follows the tableau; some have one card more, in error.
            assert all(
                n in (len(c), len(c) - 1) and n >= 4
                for n, c in zip(allowed, line.coups, strict=True)
            )
            assert any(n == len(c) - 1 for n, c in zip(allowed, line.coups, strict=True))
            assert any(n == len(c) for n, c in zip(allowed, line.coups, strict=True))
            continue
        if table.game == "mississippi_stud":
            shoe = [next(iter(s)) for s in steps["shoe"]]
            assert shoe.count("load") >= 3 and "empty" in shoe
            assert any("jam" in s for s in steps["shuffler"])
            counts = {s["shuffle"]["cards"] for s in steps["shuffler"] if "shuffle" in s}
            assert counts == {52}
            continue
        assert len(line.rounds) >= 2
        for rnd in line.rounds:
            assert rnd.dealer[0][0] in "23456789", "no peek is needed"
            if table.game == "spanish21":
                cards = [c for h in rnd.hands.values() for c in h] + rnd.dealer
                assert not [c for c in cards if c[0] == "T"], "Spanish 21 decks hold no tens"
            for hand in rnd.hands.values():
                assert not player_hits(hand)
                assert all(player_hits(hand[:n]) for n in range(2, len(hand)))
            hands = list(rnd.hands.values())
            assert not dealer_draws(rnd.dealer, hands)
            assert all(dealer_draws(rnd.dealer[:n], hands) for n in range(2, len(rnd.dealer)))
            if not any(hand_live(h) for h in hands):
                assert len(rnd.dealer) == 2
        if table.shuffler:
            counts = [s["shuffle"]["cards"] for s in steps["shuffler"] if "shuffle" in s]
            assert table.batch_cards - 1 in counts and table.batch_cards in counts
            assert any("jam" in s for s in steps["shuffler"])
        else:
            kinds = [next(iter(s)) for s in steps["reader"]]
            assert kinds.index("fault") < kinds.index("disconnect")
