"""A pytest plugin that collects the payload shape of every event floord's code emits.

Load it with `-p contract_events` and set `FLOORD_CONTRACT_EVENTS` to a file: at the end
of the session the file holds, for each event type, every distinct set of `data` keys
seen, as JSON (`{"type": [["key", ...], ...]}`). `tests/test_contract_payloads_system.py`
runs a representative part of the suite under it and compares the result with the
payload tables of `docs/contract.md`; the lead may also run the whole suite under it.

Where the shapes come from:
- every `DeviceEvent` and `Decision` built by floord's own code (`floord.*`,
  `drivers.*`), in this process: the drivers fed golden frames and simulator bytes, the
  engines driven through their scenarios, the runner's `operator.command` and
  `operator.command_refused`. One a test builds itself (a made-up `device.online {}` fed
  to an engine) is not the code's word and is left out;
- every event in the journals that daemons run as subprocesses (the end-to-end tests)
  wrote under the session's temporary directory: their events are all real.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

ENV = "FLOORD_CONTRACT_EVENTS"
# Modules whose events are floord's own word (not a test's made-up input).
OWN_CODE = ("floord.", "drivers.")


class Shapes:
    """Event type -> the distinct sets of data keys seen."""

    def __init__(self) -> None:
        self.seen: dict[str, set[frozenset[str]]] = {}

    def add(self, etype: str, data: Any) -> None:
        keys = frozenset(data) if isinstance(data, dict) else frozenset()
        self.seen.setdefault(str(etype), set()).add(keys)

    def to_json(self) -> dict[str, list[list[str]]]:
        return {
            etype: sorted(sorted(keys) for keys in shapes)
            for etype, shapes in sorted(self.seen.items())
        }


SHAPES = Shapes()


def _wrap_init(cls: type, own: Callable[[], bool]) -> None:
    original = cls.__init__

    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        if own():
            SHAPES.add(self.type, self.data)

    cls.__init__ = init  # type: ignore[misc]


def _called_from_own_code() -> bool:
    # 0: this function, 1: init, 2: the code that built the event (type.__call__ is C).
    caller = sys._getframe(2).f_globals.get("__name__", "")
    return caller.startswith(OWN_CODE)


def _wrap_unrecorded_halt() -> None:
    """A halt decided while the journal could not record gains the refused inputs in the
    runner (`floord.table.unrecorded`), after the engine built it: record its final shape."""
    from floord.table.unrecorded import Unrecorded

    original = Unrecorded.into_halt

    def into_halt(self: Any, pending: list[Any]) -> Any:
        out = original(self, pending)
        for decision in out:
            if decision.type == "table.halted":
                SHAPES.add(str(decision.type), decision.data)
        return out

    Unrecorded.into_halt = into_halt  # type: ignore[method-assign]


def journal_shapes(path: Path) -> list[tuple[str, dict[str, Any]]]:
    """Every (type, data) stored in a floord journal; empty if the file is not one."""
    try:
        db = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    except sqlite3.Error:
        return []
    try:
        rows = db.execute("SELECT body FROM events").fetchall()
    except sqlite3.Error:
        return []
    finally:
        db.close()
    out = []
    for (body,) in rows:
        event = json.loads(body)
        out.append((event["type"], event.get("data") or {}))
    return out


def pytest_configure(config: pytest.Config) -> None:
    if not os.environ.get(ENV):
        return
    from floord.engine.core.types import Decision
    from floord.events import DeviceEvent

    _wrap_init(DeviceEvent, _called_from_own_code)
    _wrap_init(Decision, _called_from_own_code)
    _wrap_unrecorded_halt()


def pytest_sessionfinish(session: pytest.Session) -> None:
    target = os.environ.get(ENV)
    if not target:
        return
    factory = getattr(session.config, "_tmp_path_factory", None)
    if factory is not None:
        for path in sorted(factory.getbasetemp().rglob("*.db")):
            if _written_by_a_subprocess(path):
                for etype, data in journal_shapes(path):
                    SHAPES.add(etype, data)
    Path(target).write_text(json.dumps(SHAPES.to_json(), indent=1) + "\n")


def _written_by_a_subprocess(path: Path) -> bool:
    """Journals beside a config file were written by a `floord run` child (e2e tests)."""
    return any(p.suffix in (".yaml", ".yml") for p in path.parent.iterdir())
