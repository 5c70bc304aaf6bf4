"""The payload tables of docs/contract.md are what floord sends.

`test_payloads_match_what_the_code_emits` runs a representative part of the suite (every
engine scenario, every driver's golden frames and simulator runs, the daemon's command
handling, the adapter's own events, a daemon run end to end) in a child
pytest under the `contract_events` plugin, which collects the data keys of every event
floord's own code built; then every emitted field must be documented and every
documented field present (or marked optional with `?`). It generates its events itself,
so it works when run alone.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from contract_doc import compare, documented_payloads

pytestmark = pytest.mark.system


TESTS = Path(__file__).resolve().parent


ROOT = TESTS.parent

# What emits every event type: each engine's scenarios, each driver's frames and
# simulator, the runner's command handling, and real daemons end to end.
SCENARIOS = [
    *sorted(
        p.name
        for p in TESTS.glob("test_engine_*.py")
        if "support" not in p.name and "property" not in p.name
    ),
    *sorted(p.name for p in TESTS.glob("test_driver_*.py") if "fuzz" not in p.name),
    "test_simulator_cards.py",
    "test_key_rotation.py",
    "test_commands.py",
    # Unsigned junk past a window's first refusals: operator.commands_refused.
    "test_refusal_limiter.py",
    "test_surveillance_live.py",
    "test_surveillance_dice_live.py",
    # A card-recognition shoe's shuffle tests: the shuffle alerts' fields.
    "test_surveillance_shuffle_live.py",
    # Pace and spin physics alerts, every kind: their own fields.
    "test_wheel_physics_live.py",
    "test_adapter_events.py",
    "test_protocol_limiter.py",
    "test_journal_integrity.py",
    "test_journal_full_round.py",
    "test_journal_full_round_system.py",
    # The clean stop: daemon.stopped naming what it did not act on, `stopping` refusals.
    "test_clean_stop.py",
    # `floord journal retire`: table.retired.
    "test_check_refuses.py",
    "test_check_refuses_system.py",
    # `floord journal restore`, then a daemon on the restored journal: journal.restored.
    "test_journal_backup_system.py",
    # A real daemon and simulator, end to end: daemon.started, daemon.stopped.
    "test_e2e_baccarat.py",
]


# It runs a part of the suite in a subprocess, every game's engine tests among them.
@pytest.mark.timeout(600)
def test_payloads_match_what_the_code_emits(tmp_path: Path) -> None:
    shapes_file = tmp_path / "shapes.json"
    env = dict(os.environ)
    env["FLOORD_CONTRACT_EVENTS"] = str(shapes_file)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(TESTS), env.get("PYTHONPATH")]))
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "contract_events",
            f"--basetemp={tmp_path / 'run'}",
            *(str(TESTS / name) for name in SCENARIOS),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, f"the scenarios failed:\n{run.stdout[-3000:]}"
    emitted: dict[str, list[list[str]]] = json.loads(shapes_file.read_text())
    documented = documented_payloads()
    problems = compare(documented, emitted)
    never = sorted(set(documented) - set(emitted))
    if never:
        problems.append(f"documented but emitted by no scenario: {never}")
    assert not problems, "docs/contract.md disagrees with the events:\n" + "\n".join(problems)
