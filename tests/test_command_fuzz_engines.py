"""Any verified command, with any arguments, on an open table of every game: the engine
answers it (accepted or refused) and never raises, and its state stays one a restart
restores.

A command that reaches an engine has a key holder's signature and a role the contract
allows for its name (`floord.operator.commands`), but its arguments are whatever that
operator's console sent. An engine that raised on them would halt the table for a bug
(`TableRunner._input_failed`): outside input halting a table other than through the
rules. `tests/test_hostile_input.py` sends unsigned and malformed payloads through the
runner of a roulette table; here each game's engine gets the signed ones.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_games_registry import MINIMAL, _load

from floord.contract import COMMAND_ROLES, EventType
from floord.engine.core.types import CommandOutcome, VerifiedCommand
from floord.processes.table_units import build_engine

pytestmark = pytest.mark.unit

# What each device says it can do, so that every game's table opens (the games' own
# checks of a device's identity: a reading shoe, a clapper, a dice tracker's reports).
CAPABILITIES = {
    "shoe": ["recognition"],
    "bigsix": ["clapper"],
    "dice": ["die_ids", "rest", "cocked", "far_end", "together"],
}
POCKETS = {"single_zero": 37, "double_zero": 38, "triple_zero": 39}
DICE = ["D1", "D2", "D3", "D4", "D5"]
# The argument names the engines read, so that examples reach their checks of values.
ARG_NAMES = sorted(
    {
        *("reason", "note", "cards", "value", "by", "box", "void", "deck", "boxes"),
        *("detail", "seat", "players", "hand", "diameter_sixteenths", "defects_found"),
        *("decks", "cutting_card_at", "washed", "side", "round", "marked", "licence"),
        *("preinspected_preshuffled", "nonmetallic", "nonmagnetic", "misdealt", "from"),
        *("faces", "face", "even", "declined", "dealer", "deal_by", "cover_card_at"),
        *("checklist", "card", "antes", "amount", "alert", "action", "number", "seats"),
        *("from_seq", "to_seq"),
    }
)
values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-2, 60)
    | st.integers()
    | st.floats(allow_nan=False)
    | st.sampled_from(["", "AS", "10H", "1", "player", "banker", "tie", "dealer", "x" * 300])
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(ARG_NAMES) | st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=10,
)
commands = st.lists(
    st.sampled_from(sorted(COMMAND_ROLES)).flatmap(
        lambda name: st.tuples(
            st.just(name),
            st.sampled_from(sorted(COMMAND_ROLES[name])),
            st.dictionaries(st.sampled_from(ARG_NAMES), values, max_size=4),
        )
    ),
    min_size=1,
    max_size=8,
)
SETTINGS = settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


class OpenTable:
    """A game's engine from its least config, its devices online and identified, the
    table inspected and opened; `fresh()` is a new engine restored from that state."""

    def __init__(self, game: str, tmp: Path) -> None:
        self.loaded = _load(tmp, [{"id": "T1", "game": game, **MINIMAL[game]}])
        [self.table] = self.loaded.config.tables
        engine = build_engine(self.table, self.loaded, None)
        self.now = datetime(2026, 1, 2, 15, 0, tzinfo=UTC)
        wheel = getattr(getattr(self.table, "rules", None), "wheel", None)
        for device in self.table.devices:
            identity: dict[str, Any] = {
                "maker": "T",
                "model": "M",
                "serial": "1",
                "firmware": "1",
                "capabilities": [] if game == "war" else CAPABILITIES.get(device.id, []),
            }
            if wheel in POCKETS:
                identity["pockets"] = POCKETS[wheel]
            engine.on_device_event(device.id, EventType.DEVICE_ONLINE, {"port": "p"}, self.step())
            engine.on_device_event(device.id, EventType.DEVICE_IDENTIFIED, identity, self.step())
            if device.id == "dice":
                engine.on_device_event(device.id, EventType.DICE_SET, {"dice": DICE}, self.step())
        checklist = {item: True for item in engine.table.spec.items}
        for name, args in (("inspect", {"checklist": checklist}), ("open", {})):
            outcome = engine.on_command(
                VerifiedCommand(name, name, "fp1", "floorperson", args), self.step()
            )
            assert outcome.ok, (game, name, outcome.error)
        self.state = json.loads(json.dumps(engine.snapshot()))
        self.engine = engine

    def step(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now

    def fresh(self) -> Any:
        return build_engine(self.table, self.loaded, json.loads(json.dumps(self.state)))

    def restores(self, engine: Any) -> None:
        """The engine's state as the journal stores it, and a restart restores it."""
        stored = json.dumps(engine.snapshot(), allow_nan=False)
        again = build_engine(self.table, self.loaded, json.loads(stored))
        assert json.dumps(again.snapshot(), allow_nan=False) == stored
        json.dumps(engine.public_state(), allow_nan=False)


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> dict[str, OpenTable]:
    return {game: OpenTable(game, tmp_path_factory.mktemp(game)) for game in sorted(MINIMAL)}


def test_every_games_table_opens_for_the_fuzz(tables: dict[str, OpenTable]) -> None:
    for game, table in tables.items():
        assert table.fresh().public_state()["state"] == "open", game


@pytest.fixture(scope="module")
def spinning(tmp_path_factory: pytest.TempPathFactory) -> OpenTable:
    """A roulette table whose ball is in the air: its round in play."""
    table = OpenTable("roulette", tmp_path_factory.mktemp("spinning"))
    spin = {"spin": 1, "rotor_direction": "cw", "rotor_rpm": 17.2}
    for kind, data in (
        (EventType.WHEEL_GAME_STARTED, {**spin, "state": 2}),
        (EventType.WHEEL_BALL_LAUNCHED, spin),
    ):
        table.engine.on_device_event("wheel", kind, data, table.step())
    table.state = json.loads(json.dumps(table.engine.snapshot()))
    assert table.state["round"], table.state
    return table


@SETTINGS
@given(sent=commands, pause=st.floats(0.0, 90.0))
def test_any_verified_command_mid_spin_is_answered_never_raised(
    spinning: OpenTable, sent: list[tuple[str, str, dict[str, Any]]], pause: float
) -> None:
    _send(spinning, sent, pause)


@pytest.mark.parametrize("game", sorted(MINIMAL))
@SETTINGS
@given(sent=commands, pause=st.floats(0.0, 90.0))
def test_any_verified_command_is_answered_never_raised(
    tables: dict[str, OpenTable],
    game: str,
    sent: list[tuple[str, str, dict[str, Any]]],
    pause: float,
) -> None:
    _send(tables[game], sent, pause)


def _send(table: OpenTable, sent: list[tuple[str, str, dict[str, Any]]], pause: float) -> None:
    engine = table.fresh()
    now = table.now
    for n, (name, role, args) in enumerate(sent):
        now += timedelta(seconds=pause)
        outcome = engine.on_command(VerifiedCommand(f"c{n}", name, "op1", role, args), now)
        assert isinstance(outcome, CommandOutcome)
        assert outcome.ok or outcome.error, (name, args)  # a refusal says why
    table.restores(engine)
