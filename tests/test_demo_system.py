"""`floord demo --seconds N`: runs the whole floor and ends with exit status 0.

Piped (no terminal), it prints one plain line per event. Run once with the private
Mosquitto the demo prefers, and once with the embedded amqtt broker it falls back to
on a machine where nothing is installed. The card tables (Blackjack BJ-01 with a batch
shuffler, Spanish 21 S21-01) play full rounds through the virtual dealer's signed
commands, and their injected faults (a batch counted short, a reader that fails and is
replaced) cause no procedure violation. Baccarat BA-01 calls its coups live and records
the dealer's forbidden third card; Mississippi Stud MS-01 ends rounds with a result and
voids the one its automated shoe stops dealing. Big Six B6-01 opens after the § 533.1
inspection, its dealer calls each spin, and its void spins (on a divider, too short) are
spun again. Craps CR-01, Pai Gow PG-01 and War WR-01 play (`demo_games_support`).
RL-03, a manual wheel with the sensor kit, has its dealer signed in (results carry the
dealer and the release pocket), shows § 531.7 no spins, and is biased: the live sector
test raises a `surveillance.alert` during the run, on no other wheel.

The Mosquitto run is also tried as a newcomer would, from another terminal: its header
names a config that `floord check -c` passes, whose operators include a supervisor and a
security officer with key files beside it; the console's command line is printed; and
the `floord cmd` line it prints acknowledges RL-03's alert, which the table records. The
amqtt run is shown on an 80-column terminal (`COLUMNS=80`): no line is wider but the
command lines to copy, and RL-03's spins stay out of the list (its row says them).
RL-03's and the SS2 wheels' spins are fresh in every run: different seeds give different
spins, and one run's spins have no short period (the looping scenario had one of ~300,
which made the dealer signature test flag the demo's fair dealer).
"""

from __future__ import annotations

import json
import os
import queue
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path

import pytest
import yaml
from demo_games_support import check_crewed_tables

from floord_demo import header as demo_header
from floord_demo import sensor_wheel as rl03
from floord_demo.screen import visible_length

pytestmark = pytest.mark.system


DEMO = [sys.executable, "-m", "floord", "demo", "--speed", "6"]

MOSQUITTO_S = 32  # long enough for RL-03 to give 270 results on a busy machine


# The card tables' scripts are timed for a run of about MOSQUITTO_S: what they do later
# is not asserted (a loaded machine slows the dealer, not the shoes' own clocks).
CARDS_S = MOSQUITTO_S + 8

RL03_S = 70  # on a loaded machine RL-03 may take this long to fill its window


class _Demo:
    """`floord demo` in a subprocess; its output read line by line while it runs."""

    def __init__(self, seconds: float, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            [*DEMO, "--seconds", str(seconds)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
            env=env,
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.err: list[str] = []
        self.stopped = False
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=lambda: self.err.extend(self.proc.stderr), daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def stop(self) -> None:
        """SIGTERM, once: the demo stops as after `--seconds`, exit 0 (a second one
        during its teardown, after it gave the signals back, would kill it)."""
        if self.proc.poll() is None and not self.stopped:
            self.stopped = True
            self.proc.send_signal(signal.SIGTERM)


def _try_the_header(config: Path) -> None:
    """What a newcomer does with the config the demo prints: check it, find the
    operators and their keys beside it."""
    assert config.is_file(), config
    checked = subprocess.run([sys.executable, "-m", "floord", "check", "-c", str(config)],
                             capture_output=True, text=True, timeout=30,
                             stdin=subprocess.DEVNULL)  # fmt: skip
    assert checked.returncode == 0 and ": ok: site demo" in checked.stdout, checked
    operators = yaml.safe_load(config.read_text())["operators"]
    roles = {op["role"]: op for op in operators}
    assert {"floorperson", "dealer", "supervisor", "security"} <= set(roles), operators
    for role in ("supervisor", "security"):
        key = config.parent / roles[role]["key_file"]
        assert key.is_file() and key.read_text().strip(), key


CARD_TABLES = ("BJ-01", "S21-01")


def _events_by_table(out: str) -> dict[str, list[tuple[str, str]]]:
    """Plain lines `HH:MM:SS.mmm TABLE #SEQ TYPE words`: (type, line) per table."""
    found: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for line in out.splitlines():
        parts = line.split(" ", 4)
        if len(parts) >= 4 and parts[2].startswith("#"):
            found[parts[1]].append((parts[3], line))
    return found


def _stop_seconds(out: str) -> float | None:
    """How long the demo said its stop took (`stopping took N s`)."""
    for line in out.splitlines():
        if line.startswith("floord demo: stopped after") and "stopping took " in line:
            return float(line.split("stopping took ", 1)[1].split(" ", 1)[0])
    return None


EMBEDDED_S = 20

WIDTH = 80


def _run_as_a_newcomer(env: dict[str, str]) -> tuple[str, str, dict[str, object]]:
    """The Mosquitto run: the header's config checked, the printed `floord cmd`
    acknowledging RL-03's alert once it is raised; the demo is stopped (SIGTERM) once it
    has run `MOSQUITTO_S` and the acknowledgement is in (or after `RL03_S`). `tried`
    says how many lines came within `CARDS_S` (`card_lines`)."""
    demo = _Demo(RL03_S + 20, env)
    out: list[str] = []
    tried: dict[str, object] = {}
    started = time.monotonic()
    acked_at: float | None = None
    try:
        while True:
            try:
                line = demo.lines.get(timeout=0.5)
            except queue.Empty:
                line = ""
            if line is None:
                break
            if line:
                out.append(line)
            if line.startswith(demo_header.CONFIG) and "config" not in tried:
                tried["config"] = Path(line.removeprefix(demo_header.CONFIG))
                _try_the_header(Path(line.removeprefix(demo_header.CONFIG)))
            if line.startswith(demo_header.CONSOLE) and "console" not in tried:
                # The console's line as printed, its JSON lines for the first seconds,
                # while RL-03 stands still (a console on its spins takes a core).
                words = [*shlex.split(line.removeprefix(demo_header.CONSOLE)), "--json"]
                tried["console"] = subprocess.Popen(
                    [*words, "--seconds", "3"], stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)  # fmt: skip
            if line.startswith(demo_header.COMMAND):
                tried["command"] = line.removeprefix(demo_header.COMMAND)
            alert = f" {rl03.TABLE} " in line and " surveillance.alert " in line
            if alert and "ack" not in tried:
                tried["ack"] = subprocess.run(shlex.split(str(tried["command"])),
                                              capture_output=True, text=True, timeout=30,
                                              stdin=subprocess.DEVNULL)  # fmt: skip
                acked_at = time.monotonic()
                tried["acked after s"] = round(acked_at - started, 1)
            elapsed = time.monotonic() - started
            if elapsed <= CARDS_S:
                tried["card_lines"] = len(out)
            if f" {rl03.TABLE} " in line and " surveillance.alert " in line:
                tried.setdefault("rl03 alerts", set()).add(line.split(" test")[0].split()[-1])
            physics = {"rotor_direction", "pace"} <= set(tried.get("rl03 alerts") or ())
            settled = acked_at is not None and time.monotonic() - acked_at > 1 and physics
            if elapsed > MOSQUITTO_S and (settled or elapsed > RL03_S):
                demo.stop()
        demo.proc.wait(timeout=30)
    finally:
        demo.stop()
        if demo.proc.poll() is None:
            demo.proc.kill()
        console = tried.get("console")
        if isinstance(console, subprocess.Popen):
            tried["console"] = console.communicate(timeout=30), console.returncode
    assert demo.proc.returncode == 0, "".join(demo.err)[-2000:]
    return "\n".join(out) + "\n", "".join(demo.err), tried


@pytest.mark.parametrize("embedded", [False, True], ids=["mosquitto", "embedded-amqtt"])
def test_demo_runs_and_ends_cleanly(embedded: bool) -> None:
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    tried: dict[str, object] = {}
    if embedded:
        env["FLOORD_DEMO_EMBEDDED_BROKER"] = "1"
        env["COLUMNS"] = str(WIDTH)  # as if piped into `tee` on an 80-column terminal
        done = subprocess.run(
            [*DEMO, "--seconds", str(EMBEDDED_S)],
            capture_output=True,
            text=True,
            timeout=90,
            env=env,
            stdin=subprocess.DEVNULL,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        out, err = done.stdout, done.stderr
    else:
        out, err, tried = _run_as_a_newcomer(env)
    # The daemon stopped by itself, not cancelled by the demo after its STOP_S (a driver
    # missing its cancellation while a device talks would show here, with stacks).
    assert "the daemon did not stop within" not in err, err[-4000:]
    # What goes wrong on the way is a line each, never a traceback (on the embedded broker,
    # the clients amqtt drops: `floord_demo.broker.DroppedClients`).
    assert "Traceback" not in err and '"exception":' not in err, err[-4000:]
    lines = out.splitlines()
    # The header: the broker, the config, the console's and a command's lines.
    assert lines[0].startswith(f"{demo_header.BROKER}mqtt://127.0.0.1:"), lines[:4]
    config = lines[1].removeprefix(demo_header.CONFIG)
    assert lines[1].startswith(demo_header.CONFIG) and config.endswith(".yaml"), lines[:4]
    program = [sys.executable, "-m", "floord"]  # how this test started the demo
    console = lines[2].removeprefix(demo_header.CONSOLE)
    assert shlex.split(console) == [*program, "watch", "-c", config, "--as", "SEC-DEMO"]
    command = shlex.split(lines[3].removeprefix(demo_header.COMMAND))
    assert command[:9] == [*program, "cmd", "-c", config, "--table", rl03.TABLE, "--as"]
    assert command[9:12] == ["SEC-DEMO", "ack_alert", "alert=A00001"], command
    # The browser console's address (docs/console.md), on loopback.
    assert lines[4].startswith(f"{demo_header.WEB}http://127.0.0.1:"), lines[:6]
    assert any(line.startswith("subscribe: mosquitto_sub ") for line in lines[:15])
    assert ("embedded amqtt" in lines[0]) is embedded, lines[0]
    assert any(line.startswith(f"{demo_header.TABLES}RL-01 RL-02 ") for line in lines[:6])
    assert "\x1b[" not in out, "no terminal: plain lines only"
    for kind in ("device.identified", "operator.inspection", "table.opened", "roulette.result"):
        assert f" {kind} " in out, kind
    # The double-zero wheel used as single zero shows its 00 void early in the scenario.
    assert "roulette.no_spin" in out
    assert "floord demo: stopped after" in out
    # The demo's archive (a SQLite file in its folder) held the floor's events.
    held = next(line for line in out.splitlines() if line.startswith("floord demo: the archive"))
    assert int(held.split("the archive held ", 1)[1].split(" ", 1)[0]) > 0, held
    print(f"demo stopped; stopping took {_stop_seconds(out)} s")  # shown with pytest -s

    if embedded:
        # On an 80-column terminal no line wraps but the command lines to copy, and
        # RL-03's rounds and results are left out (its row in the dashboard says them).
        wide = [line for line in lines if visible_length(line) > WIDTH
                and line not in demo_header.command_lines(lines)]  # fmt: skip
        assert not wide, wide[:5]
        rl = _events_by_table(out)[rl03.TABLE]
        assert not [kind for kind, _ in rl if kind == "roulette.result"], rl[:5]
        # amqtt marks queued messages as retained and loses offline ones, so the virtual
        # floorperson, who reads the retained state, can act on stale state there: the
        # card tables' choreography is asserted on the real broker only.
        return
    card_lines = int(tried.get("card_lines", len(lines)))
    events = _events_by_table("\n".join(lines[:card_lines]))
    for table in CARD_TABLES:
        kinds = [kind for kind, _ in events[table]]
        for kind in ("table.opened", "cards.decks_changed", "round.started", "blackjack.result"):
            assert kind in kinds, (table, kind, [line for _, line in events[table]][:60])
        # The decks received were spread for the first player before any round
        # (§ 549.5(b)-(e), § 551.4(b), (c)), through the dealer's `decks_spread`.
        assert kinds.index("cards.decks_spread") < kinds.index("round.started"), table
        # Each stack was cut before the shoe (§ 549.6(b)-(d)), through the dealer's `cut`.
        assert "cards.cut" in kinds and kinds.index("cards.cut") < kinds.index("round.started")
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
    for kind in ("table.opened", "cards.cut", "cards.burn", "round.started", "baccarat.result"):
        assert kind in ba_kinds, (kind, [line for _, line in ba][:60])
    violations = [line for kind, line in ba if kind == "procedure.violation"]
    assert violations and all("third_card_not_allowed" in v for v in violations), violations
    # Mississippi Stud: the shuffler's jam means a reshuffle (§ 571.13(e)), a whole round
    # ends with its result, and the automated shoe that stops dealing voids one (571.13(f)).
    ms = events["MS-01"]
    ms_kinds = [kind for kind, _ in ms]
    for kind in ("table.opened", "cards.decks_changed", "cards.decks_spread", "stud.result"):
        assert kind in ms_kinds, (kind, [line for _, line in ms][:60])
    for kind in ("shuffler.jam",):
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

    # Big Six: opened after the § 533.1 inspection, a round per dealer's call (§ 533.2(a)),
    # results, and the void spins of § 533.2(b) and (c) spun again.
    b6 = events["B6-01"]
    b6_kinds = [kind for kind, _ in b6]
    for kind in ("operator.inspection", "table.opened", "round.started", "bigsix.result"):
        assert kind in b6_kinds, (kind, [line for _, line in b6][:60])
    no_spins = [line for kind, line in b6 if kind == "bigsix.no_spin"]
    assert any("between_sections" in line and "533.2(c)" in line for line in no_spins), b6
    assert any("fewer_than_three_revolutions" in line for line in no_spins), no_spins
    # The re-spin after the divider: a new call, and a result.
    after = b6_kinds[b6_kinds.index("bigsix.no_spin") :]
    assert "round.started" in after and "bigsix.result" in after
    assert "procedure.violation" not in b6_kinds, [line for _, line in b6][:60]
    refused = [line for kind, line in b6 if kind == "operator.command_refused"]
    assert not refused, f"B6-01: the operators' commands fit the table: {refused}"

    # The crewed tables, over the whole run: Craps CR-01's Fire Bet, invalid roll, no roll
    # and surveillance notice; Pai Gow PG-01's deal positions; War WR-01's decks, cuts,
    # rounds and cover card (`demo_games_support`).
    check_crewed_tables(_events_by_table(out))

    # RL-03, the manual wheel with the sensor kit: the dealer signed in, so results carry
    # the dealer and the release pocket; § 531.7 no spins; the sector test's alert.
    rl = _events_by_table(out)[rl03.TABLE]  # the whole run
    rl_kinds = [kind for kind, _ in rl]
    assert "table.opened" in rl_kinds, [line for _, line in rl][:60]
    assert any(k == "operator.command" and "dealer_in" in line for k, line in rl), rl[:60]
    results = [line for kind, line in rl if kind == "roulette.result"]
    assert results and all(", dealer DL-DEMO, released over " in r for r in results[-20:])
    assert "wheel.ball_revolutions" not in rl_kinds, "a time-lapse wheel's frames are not shown"
    no_spins = [line for kind, line in rl if kind == "roulette.no_spin"]
    assert any("58 Pa. Code § 531.7(" in line for line in no_spins), no_spins
    alerts = [line for kind, line in rl if kind == "surveillance.alert"]
    sector = [a for a in alerts if " sector test " in a]
    assert sector and "'4..17'" in sector[0] and " sector test " in alerts[0], alerts
    # Later, once each (`crafted_pace`): the rotor that did not change direction, and the
    # slow dealer's pace, for the table and for the dealer; nothing else.
    rotor = [a for a in alerts if " rotor_direction test: " in a]
    pace = [a for a in alerts if " pace test: " in a]
    assert len(rotor) == 1 and "the rotor turned" in rotor[0], alerts
    assert len(pace) == 2 and any("dealer DL-DEMO dealt" in a for a in pace), alerts
    assert len(alerts) == len(sector) + 3, alerts
    # The console, started as the header printed it, watched the floor.
    (watched, watch_err), watch_code = tried["console"]
    assert watch_code == 0, watch_err
    notices = [json.loads(line) for line in watched.splitlines()]
    watched_tables = {n["table"] for n in notices if n.get("site") == "demo"}
    assert watched_tables >= {"RL-01", rl03.TABLE, "CR-01", "PG-01", "WR-01"}, watched_tables
    # The security officer's `floord cmd`, as the header printed it, acknowledged it.
    assert tried.get("config") == Path(config)
    acked = tried.get("ack")
    assert isinstance(acked, subprocess.CompletedProcess), ("no alert to acknowledge", tried)
    assert acked.returncode == 0 and json.loads(acked.stdout)["ok"] is True, acked
    assert any(k == "operator.command" and "ack_alert" in line and "SEC-DEMO" in line
               for k, line in rl), "the table recorded the command"  # fmt: skip
    acks = [line for kind, line in rl if kind == "surveillance.alert_acknowledged"]
    assert acks and "A00001 acknowledged by SEC-DEMO" in acks[0], acks
    for table in ("RL-01", "RL-02", "B6-01"):
        assert "surveillance.alert" not in [kind for kind, _ in events[table]], table
    # The SS2 wheels stand still while their tables open: no spin before the opening.
    # (RL-01's scenario has a failed launch: a number the wheel still gives after the
    # void is a violation of its own, number_after_void, depending on the timing.)
    for table in ("RL-01", "RL-02"):
        early = [line for kind, line in events[table]
                 if kind == "procedure.violation" and "spin_while_not_open" in line]  # fmt: skip
        assert not early, early
