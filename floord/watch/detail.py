"""The selected table's detail view: its status, open alerts, wheel analytics and events.

Events read as sentences (`floord.watch.sentences`), newest first, each coloured by what
it is: halts red, alerts magenta, violations orange, voids yellow, telemetry dim. The
view's `EventFilter` hides the wheels' and shoes' running telemetry by default (`t`
shows it) and can narrow the list to one family of events (`f` cycles them).
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text

from floord.contract import Envelope
from floord.watch.render import ALERT, HALTED, STALE, VIOLATION, VOID, row_style
from floord.watch.sentences import family, sentence
from floord.watch.table_view import TableView, held_result
from floord.watch.wording import p_text, round_number, value_text, words

# `f` cycles through these: None shows every family (but telemetry, unless `t`).
FAMILIES: tuple[str | None, ...] = (
    None,
    "halt",
    "alert",
    "violation",
    "void",
    "result",
    "table",
    "operator",
    "device",
    "telemetry",
)
FAMILY_STYLES = {
    "halt": HALTED,
    "alert": f"bold {ALERT}",
    "violation": VIOLATION,
    "void": VOID,
    "telemetry": "dim",
    "operator": "cyan",
}


@dataclass(frozen=True)
class EventFilter:
    """Which of a table's events the detail view lists."""

    telemetry: bool = False
    only: str | None = None

    def shows(self, env: Envelope) -> bool:
        kind = family(env.type)
        if self.only is not None:
            return kind == self.only
        return self.telemetry or kind != "telemetry"

    def toggled_telemetry(self) -> EventFilter:
        return EventFilter(not self.telemetry, self.only)

    def next_family(self) -> EventFilter:
        return EventFilter(
            self.telemetry, FAMILIES[(FAMILIES.index(self.only) + 1) % len(FAMILIES)]
        )

    def describe(self) -> str:
        if self.only is not None:
            return f"only {self.only} events"
        return "all events" if self.telemetry else "telemetry hidden"


def event_line(env: Envelope) -> Text:
    """`19:17:40 #42 17 black, round 42, dealer DL-7` in its family's colour."""
    line = Text(f"{env.ts[11:19]} #{env.seq} ", style="dim")
    # A citation is not broken across lines: `§ 531.7(c)` keeps its space unbreakable.
    words = sentence(env).replace("§ ", "§\u00a0")
    line.append(words, style=FAMILY_STYLES.get(family(env.type), ""))
    return line


def _wheel_lines(view: TableView) -> list[str]:
    wheel = view.wheel
    recent = f", recent: {' '.join(wheel.results)}" if wheel.results else ""
    kind = f"wheel {wheel.kind}" if wheel.kind else "wheel"
    lines = [f"{kind}, {wheel.spins_seen} results seen{recent}"]
    for name, test in sorted(wheel.tests.items()):
        lines.append(
            f"test {name}: p = {p_text(test.get('p_value'))} (level {p_text(test.get('level'))}, "
            f"window {value_text(test.get('window'))}, alert {value_text(test.get('id'))})"
        )
    return lines


def _alert_line(alert_id: str, alert: dict[str, object]) -> str:
    if isinstance(alert.get("summary"), str):  # pace and spin physics
        return f"alert {alert_id}: {value_text(alert.get('test'))} test: {alert['summary']}"
    if held_result(alert):  # a result held for a ruling: no statistics
        detail = f" ({value_text(alert.get('detail'))})" if alert.get("detail") else ""
        held = round_number(alert.get("round"))
        return f"alert {alert_id}: {words(alert.get('test'))}, round {held}{detail}"
    text = f"alert {alert_id}: {value_text(alert.get('test'))} test p = "
    text += f"{p_text(alert.get('p_value'))} (level {p_text(alert.get('level'))}"
    window = alert.get("window")
    dealer = alert.get("dealer")
    # A shuffle alert's window is the earlier shoes compared: its shoe says more.
    text += f", window {value_text(window)}" if window is not None and "shoe" not in alert else ""
    for key, shown in (("die", "die"), ("shooter", "shooter at seat"), ("shoe", "shoe")):
        if alert.get(key) is not None:
            text += f", {shown} {value_text(alert.get(key))}"
    return text + (f", dealer {value_text(dealer)})" if dealer else ")")


def detail_text(view: TableView | None, events: EventFilter | None = None) -> Text:
    """The detail view of `view`, its events as sentences through `events`."""
    if view is None:
        return Text("no table selected", style="dim")
    events = events or EventFilter()
    out = Text()
    out.append(f"{view.site}/{view.table}", style="bold")
    out.append(f"  {view.game or '?'}  {view.state or '?'}", style=row_style(view))
    out.append(f"  round {round_number(view.round) or '-'}  ")
    out.append(f"voids {view.voids}", style=VOID if view.voids else "")
    out.append("  ")
    out.append(f"violations {view.violations}\n", style=VIOLATION if view.violations else "")
    if view.halt_reason:
        out.append(f"halted: {view.halt_reason}\n", style=HALTED)
    online = {True: "online", False: "OFFLINE", None: "status unknown"}[view.online]
    out.append(f"daemon {online}" + (f" ({view.status_reason})" if view.status_reason else ""))
    devices = ", ".join(f"{d} {'up' if up else 'DOWN'}" for d, up in sorted(view.devices.items()))
    out.append(f"  devices: {devices or '-'}\n")
    for why in view.stale.values():
        out.append(f"stale: {why}\n", style=STALE)
    for note in view.notes.values():
        out.append(f"note: {note}\n", style="yellow")
    for alert_id, alert in sorted(view.alerts.items()):
        out.append(_alert_line(alert_id, alert) + "\n", style=f"bold {ALERT}")
    if view.command is not None:
        style = {None: "", True: "green", False: "bold red"}[view.command.ok]
        out.append(f"console: {view.command.text()}\n", style=style)
    if view.wheel.present:
        out.append("\n".join(_wheel_lines(view)) + "\n", style="cyan")
    shown = [env for env in view.recent if events.shows(env)]
    out.append(
        f"\nevents: {len(shown)} of the last {len(view.recent)} ({events.describe()})\n",
        style="bold",
    )
    for env in reversed(shown):
        out.append_text(event_line(env))
        out.append("\n")
    return out
