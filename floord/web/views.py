"""A table as the browser shows it: plain JSON of words, never markup.

Every text here came from a table, a device, an operator or a config; the browser puts
each in the page as text (`textContent`), so this module only chooses the words, with
the terminal console's wording (`floord.watch.sentences`): a halt's reasons, the round
in play told as sentences, each event with its citation.
"""

from __future__ import annotations

from typing import Any

from floord.contract import Envelope, EventType
from floord.watch.sentences import family, sentence
from floord.watch.table_view import TableView
from floord.watch.wording import cite

EVENTS_SHOWN = 60


def state_words(view: TableView) -> tuple[str, str]:
    """(the tile's colour class, its state in words)."""
    if view.online is False:
        return "offline", f"offline: {view.status_reason or 'no reason given'}"
    if view.halted:
        return "halted", f"halted: {view.halt_reason or 'no reason given'}"
    if view.is_stale:
        return "stale", f"{view.state or 'state unknown'}, not current: {view.stale_text()}"
    if view.state == "open":
        return "open", "open"
    if view.state == "closed":
        return "closed", "closed"
    if view.state is None:
        return "unknown", "no state heard yet"
    return "other", str(view.state)


def round_words(view: TableView) -> str:
    return f"round {view.round} in play" if view.round else "no round in play"


def tile(view: TableView) -> dict[str, Any]:
    """The floor page's tile of one table."""
    colour, words = state_words(view)
    online = sum(1 for up in view.devices.values() if up)
    return {
        "key": f"{view.site}/{view.table}",
        "site": view.site,
        "table": view.table,
        "game": view.game or "game not known yet",
        "state": view.state or "unknown",
        "colour": colour,
        "words": words,
        "stale": view.is_stale,
        "round": round_words(view),
        "devices": f"{online} of {len(view.devices)} devices online",
        "devices_down": len(view.devices) - online,
        "alerts": len(view.alerts),
        # When the table's record last moved (the latest event's own `ts`).
        "last_ts": view.last_event["ts"] if view.last_event else None,
    }


def event_line(env: Envelope) -> dict[str, Any]:
    return {
        "seq": env.seq,
        "ts": env.ts,
        "type": env.type,
        "family": family(env.type),
        "source": env.source,
        "text": sentence(env),
        "rule": cite(env.rule) or None,
    }


def alert_words(site: str, table: str, data: dict[str, Any], round_id: str | None = None) -> str:
    """An alert's sentence from its data alone (the event's, `P/state`'s `alerts`, or the
    `alert` an acknowledgement carries), worded as the terminal console words it: a
    physics alert by its `summary`, a shuffle alert by its shoe, a held result by its
    round (the alert's own `round` when the envelope has none), a statistical test by its
    p-value; a value missing reads `?`, never `None`."""
    held_round = data.get("round") if isinstance(data.get("round"), str) else None
    kind = EventType.SURVEILLANCE_ALERT
    made = Envelope(site, table, 1, "", kind, "engine", data, None, round_id or held_round)
    return sentence(made)


def alert_text(view: TableView, alert_id: str) -> str:
    """The alert's sentence from its event when the console saw it, else from the state."""
    for env in reversed(view.recent):
        if env.type == EventType.SURVEILLANCE_ALERT and env.data.get("id") == alert_id:
            return alert_words(view.site, view.table, env.data, env.round)
    data = view.alerts.get(alert_id, {"id": alert_id})
    return alert_words(view.site, view.table, data)


def alert_raised(view: TableView, alert_id: str) -> str | None:
    for env in reversed(view.recent):
        if env.type == EventType.SURVEILLANCE_ALERT and env.data.get("id") == alert_id:
            return env.ts
    raised = view.alerts.get(alert_id, {}).get("ts")
    return raised if isinstance(raised, str) else None


def devices(view: TableView) -> list[dict[str, Any]]:
    """Each device, online or not, and the last thing the table's record heard from it."""
    shown = []
    for device, up in sorted(view.devices.items()):
        last = next((e for e in reversed(view.recent) if e.source == device), None)
        shown.append(
            {
                "id": device,
                "online": up,
                "last": None if last is None else {"ts": last.ts, "text": sentence(last)},
            }
        )
    return shown


def table_detail(view: TableView) -> dict[str, Any]:
    """The table page: its tile, the round in play as sentences, the last events,
    the devices and the open alerts."""
    in_round = [e for e in view.recent if view.round is not None and e.round == view.round]
    return {
        **tile(view),
        "halt_reason": view.halt_reason or None,
        "stale_reasons": view.stale_text() or None,
        "notes": [f"{k}: {v}" for k, v in sorted(view.notes.items())],
        "round_sentences": [event_line(e) for e in in_round],
        "events": [event_line(e) for e in reversed(view.recent[-EVENTS_SHOWN:])],
        "device_list": devices(view),
        "alert_list": [
            {"id": a, "text": alert_text(view, a), "raised": alert_raised(view, a)}
            for a in sorted(view.alerts, reverse=True)
        ],
        "command": view.command.text() if view.command is not None else None,
    }
