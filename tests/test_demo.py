"""`floord demo --seconds N`: runs the whole floor and ends with exit status 0.

Piped (no terminal), it prints one plain line per event. Run once with the private
Mosquitto the demo prefers, and once with the embedded amqtt broker it falls back to
on a machine where nothing is installed. The card tables (Blackjack BJ-01 with a batch
shuffler, Spanish 21 S21-01) play full rounds through the virtual dealer's signed
commands, and their injected faults (a batch counted short, a reader that fails and is
replaced) cause no procedure violation. Baccarat BA-01 calls its coups live and records
the dealer's forbidden third card; Mississippi Stud MS-01 ends rounds with a result and
voids the one its automated shoe stops dealing.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections import defaultdict

import pytest

from floord.demo.card_devices import DEMO_CARD_TABLES, build_simulators, scenario_bodies
from floord.demo.card_script import dealer_draws, hand_live, player_hits
from floord.demo.game_scripts import tableau_cards

CARD_TABLES = ("BJ-01", "S21-01")


def _events_by_table(out: str) -> dict[str, list[tuple[str, str]]]:
    """Plain lines `HH:MM:SS.mmm TABLE #SEQ TYPE words`: (type, line) per table."""
    found: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for line in out.splitlines():
        parts = line.split(" ", 4)
        if len(parts) >= 4 and parts[2].startswith("#"):
            found[parts[1]].append((parts[3], line))
    return found


@pytest.mark.parametrize("embedded", [False, True], ids=["mosquitto", "embedded-amqtt"])
def test_demo_runs_and_ends_cleanly(embedded: bool) -> None:
    env = dict(os.environ)
    if embedded:
        env["FLOORD_DEMO_EMBEDDED_BROKER"] = "1"
    done = subprocess.run(
        [sys.executable, "-m", "floord", "demo", "--seconds", "24", "--speed", "6"],
        capture_output=True,
        text=True,
        timeout=90,
        env=env,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    assert "Subscribe from another terminal:" in out
    assert ("embedded amqtt" in out) is embedded
    assert "\x1b[" not in out, "no terminal: plain lines only"
    for kind in ("device.identified", "operator.inspection", "table.opened", "roulette.result"):
        assert f" {kind} " in out, kind
    # The double-zero wheel used as single zero shows its 00 void early in the scenario.
    assert "roulette.no_spin" in out
    assert "floord demo: stopped after" in out

    if embedded:
        # amqtt marks queued messages as retained and loses offline ones, so the virtual
        # floorperson, who reads the retained state, can act on stale state there: the
        # card tables' choreography is asserted on the real broker only.
        return
    events = _events_by_table(out)
    for table in CARD_TABLES:
        kinds = [kind for kind, _ in events[table]]
        for kind in ("table.opened", "cards.decks_changed", "round.started", "blackjack.result"):
            assert kind in kinds, (table, kind, [line for _, line in events[table]][:60])
        assert any(k == "round.ended" and " result, " in line for k, line in events[table])
        violations = [line for kind, line in events[table] if kind == "procedure.violation"]
        assert not violations, violations
        refused = [
            line
            for kind, line in events[table]
            if kind == "operator.command_refused" and " by DL-DEMO " in line
        ]
        assert not refused, f"the dealer's commands fit the cards: {refused}"
    bj = [kind for kind, _ in events["BJ-01"]]
    assert "cards.batch_refused" in bj, "the batch counted one card short is refused"
    s21 = [kind for kind, _ in events["S21-01"]]
    # The reader fails before the first shoe: the table halts, the floorperson resumes it
    # once the reader was replaced, and only then are rounds dealt.
    assert "table.halted" in s21 and "table.resumed" in s21
    assert s21.index("table.resumed") < s21.index("round.started")

    # Baccarat: coups called live from the card-reading shoe; the dealer's extra third
    # card is a violation of the tableau, and the coup still has its result.
    ba = events["BA-01"]
    ba_kinds = [kind for kind, _ in ba]
    for kind in ("table.opened", "cards.burn", "round.started", "baccarat.result"):
        assert kind in ba_kinds, (kind, [line for _, line in ba][:60])
    violations = [line for kind, line in ba if kind == "procedure.violation"]
    assert violations and all("third_card_not_allowed" in v for v in violations), violations
    # Mississippi Stud: the shuffler's jam means a reshuffle (§ 571.13(e)), a whole round
    # ends with its result, and the automated shoe that stops dealing voids one (571.13(f)).
    ms = events["MS-01"]
    ms_kinds = [kind for kind, _ in ms]
    for kind in ("table.opened", "cards.decks_changed", "shuffler.jam", "stud.result"):
        assert kind in ms_kinds, (kind, [line for _, line in ms][:60])
    assert any(k == "round.ended" and " result, " in line for k, line in ms)
    assert any(k == "round.voided" and "571.13(f)" in line for k, line in ms)
    assert any(k == "cards.shuffle_required" and "571.13(e)" in line for k, line in ms)
    for table in ("BA-01", "MS-01"):
        refused = [
            line
            for kind, line in events[table]
            if kind == "operator.command_refused"
            and (" by DL-DEMO " in line or " by FP-DEMO " in line)
        ]
        assert not refused, f"{table}: the operators' commands fit the table: {refused}"


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
