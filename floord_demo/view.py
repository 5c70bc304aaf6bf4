"""The demo's live view: what a surveillance console would see, in a terminal.

On a terminal it redraws a small dashboard, fitted to the terminal (80x24 included):
the demo's header (its config, broker and the command lines to copy), each table's
state, an alerts line, and the recent events. Piped, it prints one plain line per
event, so the demo can be logged or grepped. Every line but the command lines is cut to
the terminal's width (`screen`), so none wraps.

The alerts line lists every open `surveillance.alert` of every table until it is
acknowledged: an alert is open from its `surveillance.alert` event until its
`surveillance.alert_acknowledged`, and a table's retained state (`alerts`, which the
view may see first, or without the events) says which of its alerts are open.

A time-lapse wheel's (RL-03's) routine events, its wheel telemetry (`wheel.*`) and its
rounds and results, come a dozen a second: its row shows its last result and the event
list leaves them out; its no spins, alerts and commands are listed. Piped into a
terminal (`| tee`) the lines are for a person too, so the same are left out; piped into
a file or a program, only its telemetry is (the lines are a log to grep, one per event).

A dice table's row shows its last roll and point, or its last hand's position
(`dice_words`). A card table's row shows its game, round and last result (kept from its
`blackjack.result`, `baccarat.result` or `stud.result` events, since a card table's
state has no last result).
"""

from __future__ import annotations

import json
import sys
from collections import deque
from collections.abc import Callable
from typing import Any, TextIO

from floord_demo.dice_words import dice_row
from floord_demo.screen import RESET, clip, screen_size, visible_length
from floord_demo.words import RESULTS, describe

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
    "blackjack.result": "\x1b[1;32m",
    "baccarat.result": "\x1b[1;32m",
    "stud.result": "\x1b[1;32m",
    "cards.batch_refused": "\x1b[1;33m",
    "shuffler.jam": "\x1b[1;33m",
    "procedure.violation": "\x1b[1;35m",
    "cards.shuffle_required": "\x1b[36m",
    "surveillance.alert": "\x1b[1;41;37m",
    "surveillance.alert_acknowledged": "\x1b[1;32m",
}
ALERT = "\x1b[1;41;37m"
CARD_GAMES = ("blackjack", "spanish21", "baccarat", "mississippi_stud")
# A time-lapse wheel's events that its row says enough about.
ROUTINE = ("round.started", "round.ended", "roulette.result")
WIDE = 110  # columns from which the table rows show the game and round in full


class LiveView:
    """The demo's screen (or, piped, one plain line per event).

    `size` gives the terminal's (columns, rows), None when no terminal shows the output
    (default: `screen.screen_size` of `out`). `header` lines are the dashboard's top;
    `intro` lines are printed once piped, and shown on a screen tall enough for them.
    """

    def __init__(
        self,
        out: TextIO = sys.stdout,
        *,
        interactive: bool | None = None,
        time_lapse: frozenset[str] = frozenset(),
        size: Callable[[], tuple[int, int] | None] | None = None,
    ) -> None:
        self.out = out
        self.time_lapse = time_lapse
        self.interactive = out.isatty() if interactive is None else interactive
        self.size = size if size is not None else lambda: screen_size(out)
        self._size = self.size()  # looked up again on each render, not on each event
        self.states: dict[str, dict[str, Any]] = {}
        self.online: dict[str, bool] = {}
        self.recent: deque[dict[str, Any]] = deque(maxlen=40)
        self.header: list[str] = []
        self.intro: list[str] = []
        self.whole: frozenset[str] = frozenset()  # lines never cut: commands to copy
        self.no_alerts = "none open"  # what the alerts line says when there is none
        self.last_ack = ""  # the latest alert acknowledged, and by whom
        self.open_alerts: dict[str, dict[str, dict[str, Any]]] = {}  # table -> id -> alert
        self.events_seen = 0
        self.stopped: set[str] = set()  # the tables whose `daemon.stopped` was seen
        self.closed = False  # the output's reader went away
        self.card_results: dict[str, str] = {}  # a card table's last blackjack.result
        self.archive_line = ""  # what the demo's archive holds (`floord_demo.archive`)

    def on_message(self, topic: str, payload: bytes) -> None:
        try:
            body = json.loads(payload)
        except ValueError:
            return
        if not isinstance(body, dict):
            return
        if topic.endswith("/state"):
            table = str(body.get("table"))
            self.states[table] = body
            if isinstance(body.get("alerts"), list):
                self.open_alerts[table] = {
                    str(a.get("id")): a for a in body["alerts"] if isinstance(a, dict)
                }
        elif topic.endswith("/status"):
            self.online[topic.rsplit("/", 2)[-2]] = bool(body.get("online"))
        elif topic.endswith("/events") and "/devices/" not in topic:
            self.events_seen += 1
            kind = str(body.get("type"))
            if kind == "daemon.stopped":
                self.stopped.add(str(body.get("table")))
            lapse = body.get("table") in self.time_lapse
            if lapse and kind.startswith("wheel."):
                return
            self._follow_alerts(str(body.get("table")), kind, body.get("data") or {})
            describe_it = RESULTS.get(kind)
            if describe_it is not None:
                self.card_results[str(body.get("table"))] = describe_it(body.get("data") or {})
            routine = lapse and kind in ROUTINE
            if not routine:
                self.recent.append(body)
            if not self.interactive and not (routine and self._size is not None):
                self.write(self.fit(self.plain_line(body)) + "\n")

    def _follow_alerts(self, table: str, kind: str, data: dict[str, Any]) -> None:
        if kind == "surveillance.alert":
            self.open_alerts.setdefault(table, {})[str(data.get("id"))] = data
        elif kind == "surveillance.alert_acknowledged":
            self.open_alerts.get(table, {}).pop(str(data.get("id")), None)
            self.last_ack = f"{table} {data.get('id')} by {data.get('by')}"

    def width(self) -> int | None:
        return None if self._size is None else self._size[0]

    def fit(self, line: str, width: int | None = None) -> str:
        """`line` cut to the terminal's width, unless it is a command line to copy."""
        if line in self.whole:
            return line
        return clip(line, self.width() if width is None else width)

    def announce(self) -> None:
        """Piped: the header and the intro, once, before the events."""
        for line in [*self.header, *self.intro]:
            self.write(self.fit(line) + "\n")

    def write(self, text: str) -> None:
        """Write to the output; a reader that went away (`| head`) stops the printing,
        not the demo (its dealer and floorperson are fed from the same messages)."""
        if self.closed:
            return
        try:
            self.out.write(text)
            self.out.flush()
        except (BrokenPipeError, ValueError):
            self.closed = True

    @staticmethod
    def plain_line(event: dict[str, Any]) -> str:
        return (
            f"{event.get('ts', '')[11:23]} {event.get('table')} #{event.get('seq')} "
            f"{event.get('type')} {describe(event)}"
        )

    def row(self, table: str, state: dict[str, Any], wide: bool = True) -> str:
        """One table's line: state, game, devices, round, last result."""
        devices = state.get("devices") or {}
        up = all(bool(d.get("online")) for d in devices.values()) if devices else False
        rnd = state.get("round") or {}
        colour = {"open": "\x1b[32m", "halted": "\x1b[1;31m"}.get(state.get("state", ""), "")
        if state.get("game") in CARD_GAMES:
            kind = state["game"]
            last = self.card_results.get(table, "-")
        elif (dice := dice_row(state)) is not None:
            kind, last = state["game"], dice
        else:
            kind = state.get("wheel") or state.get("game", "")
            result = state.get("last_result") or {}
            shown = result.get("number", result.get("symbol", "-"))
            last = f"{shown} {result.get('colour', '')}"
        alerts = len(self.open_alerts.get(table) or {})
        flag = f"{ALERT}{alerts} alert{'s' if alerts > 1 else ''}{RESET} " if alerts else ""
        devices_word = "online" if up else "OFFLINE"
        if wide:
            round_id = (rnd.get("id") if isinstance(rnd, dict) else rnd) or "-"
            return (
                f"{table:7} {colour}{state.get('state', '?'):8}{RESET} {kind:22} "
                f"{devices_word:8} {round_id:24} {flag}{last}"
            )
        # Narrow: the round's number, and the devices only when one is offline.
        n = rnd.get("n") if isinstance(rnd, dict) else None
        round_no = f"#{n}" if n is not None else "-"
        offline = "" if up else f"\x1b[31m{devices_word}{RESET} "
        return (
            f"{table:6} {colour}{state.get('state', '?'):7}{RESET} {kind:21} "
            f"{round_no:6} {offline}{flag}{last}"
        )

    def alerts_line(self) -> str:
        """Every open alert of the floor, until it is acknowledged."""
        found = [
            f"{table} {a.get('id')} {a.get('test')} p={a.get('p_value', 0):.2g} "
            f"{','.join(str(c.get('label')) for c in (a.get('over_represented') or [])[:1])}"
            for table, alerts in sorted(self.open_alerts.items())
            for a in alerts.values()
        ]
        if not found and self.last_ack:
            return f"ALERTS: none open (acknowledged: {self.last_ack})"
        if not found:
            return f"ALERTS: {self.no_alerts}"
        return f"{ALERT}ALERTS ({len(found)} open, until acknowledged):{RESET} {'; '.join(found)}"

    def screen(self, elapsed_s: float) -> list[str]:
        """The dashboard's lines, each fitted to the terminal: nothing wraps but the
        command lines, and the event list takes the rows that are left."""
        columns, rows = self._size or (200, 50)
        wide = columns >= WIDE
        heading = (
            f"{'TABLE':7} {'STATE':8} {'GAME':22} {'DEVICES':8} {'ROUND':24} LAST RESULT"
            if wide
            else f"{'TABLE':6} {'STATE':7} {'GAME':21} {'ROUND':6} LAST RESULT"
        )
        tables = [heading]
        for table, state in sorted(self.states.items()):
            tables.append(self.row(table, state, wide))
            for reason in state.get("halt_reasons") or []:
                where = f" ({reason.get('device')})" if reason.get("device") else ""
                tables.append(
                    f"  \x1b[31mhalted: {reason.get('code')}{where}: {reason.get('detail')}{RESET}"
                )
        lapse = ", ".join(sorted(self.time_lapse))
        events_title = f"Recent events ({elapsed_s:.0f} s, {self.events_seen} seen" + (
            f"; {lapse}'s spins in its row)" if lapse else ")"
        )
        top = [*self.header]
        archive = [self.archive_line] if self.archive_line else []
        used = sum(self._rows(line, columns) for line in top) + len(tables) + 2 + len(archive)
        if rows - used - 1 - len(self.intro) >= 6:  # room for the intro and some events
            top += self.intro
            used += len(self.intro)
        room = max(rows - used - 1, 0)  # the last row stays empty: no scrolling
        events = list(self.recent)[-room:] if room else []
        lines = [*top, *tables, self.alerts_line(), *archive, events_title]
        for event in events:
            tint = HIGHLIGHT.get(event.get("type", ""), "")
            lines.append(f"{tint}{self.plain_line(event)}{RESET}")
        return [self.fit(line, columns) for line in lines]

    def _rows(self, line: str, columns: int) -> int:
        """Rows the line takes on the screen: a command line may wrap, others are cut."""
        if line not in self.whole:
            return 1
        return max(1, -(-visible_length(line) // columns))

    def render(self, elapsed_s: float) -> None:
        self._size = self.size()
        if not self.interactive:
            return
        self.write("\x1b[H\x1b[2J" + "\n".join(self.screen(elapsed_s)) + "\n")
