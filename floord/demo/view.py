"""The demo's live view: what a surveillance console would see, in a terminal.

On a terminal it redraws a small dashboard (each table's state and the recent events);
piped, it prints one plain line per event, so the demo can be logged or grepped.
"""

from __future__ import annotations

import json
import sys
from collections import deque
from typing import Any, TextIO

HIGHLIGHT = {
    "table.halted": "\x1b[1;31m",
    "roulette.no_spin": "\x1b[1;33m",
    "round.voided": "\x1b[33m",
    "device.offline": "\x1b[31m",
    "device.fault": "\x1b[1;31m",
    "device.protocol_error": "\x1b[35m",
    "roulette.result": "\x1b[1;32m",
    "table.resumed": "\x1b[1;36m",
    "table.opened": "\x1b[36m",
    "operator.command_refused": "\x1b[35m",
}
RESET = "\x1b[0m"


def describe(event: dict[str, Any]) -> str:
    """One line of words for an event: what a person on the floor needs to read."""
    data = event.get("data") or {}
    kind = event.get("type", "?")
    if kind == "roulette.result":
        text = f"{data.get('number')} {data.get('colour', '')}"
    elif kind in ("roulette.no_spin", "round.voided", "table.halted"):
        text = str(data.get("reason") or data.get("reasons") or "")
    elif kind == "wheel.number":
        text = f"ball in {data.get('number')}"
    elif kind == "wheel.warning":
        text = f"flags {data.get('flags')} persistent={data.get('persistent')}"
    elif kind.startswith("operator."):
        text = f"{data.get('name', '')} by {data.get('by', '')} {data.get('reason') or ''}"
    elif kind == "device.protocol_error":
        text = f"{data.get('reason')}: {data.get('raw')}"
    else:
        text = ", ".join(f"{k}={v}" for k, v in list(data.items())[:3])
    rule = f"  [{event['rule']}]" if event.get("rule") else ""
    return f"{text}{rule}"


class LiveView:
    def __init__(self, out: TextIO = sys.stdout, *, interactive: bool | None = None) -> None:
        self.out = out
        self.interactive = out.isatty() if interactive is None else interactive
        self.states: dict[str, dict[str, Any]] = {}
        self.online: dict[str, bool] = {}
        self.recent: deque[dict[str, Any]] = deque(maxlen=14)
        self.header: list[str] = []
        self.events_seen = 0

    def on_message(self, topic: str, payload: bytes) -> None:
        try:
            body = json.loads(payload)
        except ValueError:
            return
        if not isinstance(body, dict):
            return
        if topic.endswith("/state"):
            self.states[str(body.get("table"))] = body
        elif topic.endswith("/status"):
            self.online[topic.rsplit("/", 2)[-2]] = bool(body.get("online"))
        elif topic.endswith("/events") and "/devices/" not in topic:
            self.events_seen += 1
            self.recent.append(body)
            if not self.interactive:
                self.out.write(self.plain_line(body) + "\n")
                self.out.flush()

    @staticmethod
    def plain_line(event: dict[str, Any]) -> str:
        return (
            f"{event.get('ts', '')[11:23]} {event.get('table')} #{event.get('seq')} "
            f"{event.get('type')} {describe(event)}"
        )

    def render(self, elapsed_s: float) -> None:
        if not self.interactive:
            return
        lines = ["\x1b[H\x1b[2J", *self.header, f"running {elapsed_s:5.1f} s", ""]
        lines.append(f"{'TABLE':7} {'STATE':8} {'WHEEL':22} {'DEVICE':8} {'ROUND':24} LAST RESULT")
        for table, state in sorted(self.states.items()):
            devices = state.get("devices") or {}
            wheel_up = all(bool(d.get("online")) for d in devices.values()) if devices else False
            last = state.get("last_result") or {}
            rnd = state.get("round") or {}
            colour = {"open": "\x1b[32m", "halted": "\x1b[1;31m"}.get(state.get("state", ""), "")
            lines.append(
                f"{table:7} {colour}{state.get('state', '?'):8}{RESET} "
                f"{state.get('wheel', ''):22} {'online' if wheel_up else 'OFFLINE':8} "
                f"{(rnd.get('id') if isinstance(rnd, dict) else rnd) or '-':24} "
                f"{last.get('number', '-')} {last.get('colour', '')}"
            )
            for reason in state.get("halt_reasons") or []:
                lines.append(f"        \x1b[31mhalted: {reason}{RESET}")
        lines += ["", "Recent events"]
        for event in self.recent:
            tint = HIGHLIGHT.get(event.get("type", ""), "")
            lines.append(f"{tint}{self.plain_line(event)}{RESET}")
        self.out.write("\n".join(lines) + "\n")
        self.out.flush()
