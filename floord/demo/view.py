"""The demo's live view: what a surveillance console would see, in a terminal.

On a terminal it redraws a small dashboard (each table's state and the recent events);
piped, it prints one plain line per event, so the demo can be logged or grepped. A
card table's row shows its game, round and last result (kept from its
`blackjack.result`, `baccarat.result` or `stud.result` events, since a card table's
state has no last result).
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
    "blackjack.result": "\x1b[1;32m",
    "baccarat.result": "\x1b[1;32m",
    "stud.result": "\x1b[1;32m",
    "cards.batch_refused": "\x1b[1;33m",
    "shuffler.jam": "\x1b[1;33m",
    "procedure.violation": "\x1b[1;35m",
    "cards.shuffle_required": "\x1b[36m",
}
RESET = "\x1b[0m"


def _cards(cards: Any) -> str:
    return " ".join(str(c) for c in cards) if isinstance(cards, list) else "?"


def _hand(data: dict[str, Any]) -> str:
    """`KH 7D = 17`, with soft totals, Blackjack and bust said in words."""
    total = data.get("total", data.get("hard"))
    extra = " blackjack" if data.get("blackjack") else " bust" if data.get("bust") else ""
    return f"{_cards(data.get('cards'))} = {total}{extra}"


def describe_result(data: dict[str, Any]) -> str:
    """A Blackjack round's result on one line: the dealer's hand, then each box's outcome."""
    dealer = data.get("dealer") or {}
    hands = []
    for hand in data.get("hands") or []:
        odds = f" {hand['odds']}" if hand.get("odds") else ""
        hands.append(f"box {hand.get('box')}: {hand.get('total')} {hand.get('outcome')}{odds}")
    return f"dealer {_hand(dealer)} | " + ", ".join(hands)


def describe_coup(data: dict[str, Any]) -> str:
    """A Baccarat coup's result on one line: each hand, then the winner."""
    hands = []
    for side in ("player", "banker"):
        hand = data.get(side) or {}
        natural = " natural" if hand.get("natural") else ""
        hands.append(f"{side} {_cards(hand.get('cards'))} = {hand.get('total')}{natural}")
    winner = data.get("winner")
    return " | ".join(hands) + (" | tie" if winner == "tie" else f" | {winner} wins")


def describe_stud(data: dict[str, Any]) -> str:
    """A Mississippi Stud round's result on one line: the community cards, each box."""
    boxes = [
        f"box {b.get('box')}: {b.get('payout_class')} {b.get('outcome')}"
        for b in data.get("boxes") or []
    ]
    return f"community {_cards(data.get('community'))} | " + ", ".join(boxes)


RESULTS = {
    "blackjack.result": describe_result,
    "baccarat.result": describe_coup,
    "stud.result": describe_stud,
}


def _card_event(kind: str, data: dict[str, Any]) -> str | None:
    """Words for the card tables' events; None for a type that is not one of them."""
    if kind in RESULTS:
        return RESULTS[kind](data)
    if kind == "baccarat.hand":
        return f"{data.get('hand')} card {data.get('card')}: total {data.get('total')}"
    if kind == "blackjack.hand":
        return f"box {data.get('box')} hand {data.get('hand')}: {_hand(data)}"
    if kind == "blackjack.dealer_hand":
        hole = "" if data.get("hole_card") == "revealed" else " (hole card down)"
        return f"dealer: {_hand(data)}{hole}"
    if kind == "blackjack.peek":
        return f"up card {data.get('up_card')}: blackjack={data.get('blackjack')}"
    if kind == "shoe.card_drawn":
        return f"card {data.get('card') or '(not read)'} (#{data.get('count')})"
    if kind == "shoe.cutting_card":
        return f"cutting card out after {data.get('count')} cards"
    if kind == "shoe.empty":
        return "the shoe is empty"
    if kind == "shoe.loaded":
        return f"{data.get('cards') or 'unknown number of'} cards loaded"
    if kind.startswith("shuffler."):
        parts = [f"batch {data['batch']}" if data.get("batch") else ""]
        if data.get("cards") is not None:
            parts.append(f"{data['cards']} cards")
        if data.get("code"):
            parts.append(f"{data.get('text')} (code {data['code']})")
        if "open" in data:
            parts.append("door open" if data["open"] else "door closed")
        return ", ".join(p for p in parts if p)
    if kind == "cards.batch_refused":
        if data.get("reason") == "card_count":
            why = f"counted {data.get('cards')} cards, {data.get('expected')} expected"
        else:
            why = str(data.get("reason"))
        return f"batch {data.get('batch') or data.get('batches')} may not be dealt: {why}"
    if kind == "cards.shuffle_required":
        return f"reshuffle before the next round ({data.get('reason')})"
    if kind == "cards.decks_changed":
        return f"new decks opened by {data.get('by')}, due by {data.get('due_at')}"
    if kind == "reader.self_test":
        return f"self-test {'passed' if data.get('passed') else 'FAILED'} ({data.get('text')})"
    if kind == "round.started" and "boxes" in data:
        return f"round {data.get('n')} of {data.get('game')}, boxes {data.get('boxes')}"
    if kind == "round.ended" and "boxes" in data:
        return f"{data.get('outcome')}, boxes {data.get('boxes')}"
    return None


def describe(event: dict[str, Any]) -> str:
    """One line of words for an event: what a person on the floor needs to read."""
    data = event.get("data") or {}
    kind = event.get("type", "?")
    card_text = _card_event(kind, data)
    if card_text is not None:
        text = card_text
    elif kind == "roulette.result":
        text = f"{data.get('number')} {data.get('colour', '')}"
        if data.get("dealer"):  # a sensor kit's wheel: the dealer signature test's inputs
            text += f", dealer {data['dealer']}, released over {data.get('release_pocket')}"
    elif kind == "bigsix.result":
        text = f"{data.get('symbol')} (section {data.get('section')}), pays {data.get('odds')}"
    elif kind == "surveillance.alert":
        over = [c.get("label") for c in data.get("over_represented") or []][:2]
        text = (
            f"{data.get('test')} test p={data.get('p_value', 0):.2g} over "
            f"{data.get('window')} results, most over-represented {over}"
        )
    elif kind == "table.halted":
        where = f" ({data['device']})" if data.get("device") else ""
        text = f"{data.get('code')}{where}: {data.get('detail')}"
    elif kind in ("roulette.no_spin", "round.voided"):
        text = str(data.get("reason") or data.get("reasons") or "")
    elif kind == "wheel.number":
        text = f"ball in {data.get('number')}"
    elif kind == "wheel.warning":
        text = f"flags {data.get('flags')} persistent={data.get('persistent')}"
    elif kind.startswith("operator."):
        args = data.get("args") or {}
        said = " ".join(f"{k}={v}" for k, v in args.items() if k in ("box", "action", "boxes"))
        text = f"{data.get('name', '')} {said} by {data.get('by', '')} {data.get('reason') or ''}"
    elif kind == "device.fault":
        text = f"{data.get('text')} (code {data.get('code')})"
    elif kind == "procedure.violation":
        text = f"{data.get('what')}: {data.get('detail') or ''}"
    elif kind == "device.protocol_error":
        text = f"{data.get('reason')}: {data.get('raw')}"
    else:
        text = ", ".join(f"{k}={v}" for k, v in list(data.items())[:3])
    rule = f"  [{event['rule']}]" if event.get("rule") else ""
    return f"{text}{rule}"


class LiveView:
    """The demo's screen (or, piped, one plain line per event).

    A time-lapse wheel's (`time_lapse`) device events come many a second: they are
    counted but not shown; its rounds, results, no spins and alerts are.
    """

    def __init__(
        self,
        out: TextIO = sys.stdout,
        *,
        interactive: bool | None = None,
        time_lapse: frozenset[str] = frozenset(),
    ) -> None:
        self.out = out
        self.time_lapse = time_lapse
        self.interactive = out.isatty() if interactive is None else interactive
        self.states: dict[str, dict[str, Any]] = {}
        self.online: dict[str, bool] = {}
        self.recent: deque[dict[str, Any]] = deque(maxlen=14)
        self.header: list[str] = []
        self.events_seen = 0
        self.closed = False  # the output's reader went away
        self.card_results: dict[str, str] = {}  # a card table's last blackjack.result

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
            if body.get("table") in self.time_lapse and str(body.get("type")).startswith("wheel."):
                return
            self.recent.append(body)
            describe_it = RESULTS.get(str(body.get("type")))
            if describe_it is not None:
                self.card_results[str(body.get("table"))] = describe_it(body.get("data") or {})
            if not self.interactive:
                self.write(self.plain_line(body) + "\n")

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

    def row(self, table: str, state: dict[str, Any]) -> str:
        """One table's line: state, game, devices, round, last result."""
        devices = state.get("devices") or {}
        up = all(bool(d.get("online")) for d in devices.values()) if devices else False
        rnd = state.get("round") or {}
        colour = {"open": "\x1b[32m", "halted": "\x1b[1;31m"}.get(state.get("state", ""), "")
        if state.get("game") in ("blackjack", "spanish21", "baccarat", "mississippi_stud"):
            kind = state["game"]
            last = self.card_results.get(table, "-")
        else:
            kind = state.get("wheel") or state.get("game", "")
            result = state.get("last_result") or {}
            shown = result.get("number", result.get("symbol", "-"))
            last = f"{shown} {result.get('colour', '')}"
        round_id = (rnd.get("id") if isinstance(rnd, dict) else rnd) or "-"
        return (
            f"{table:7} {colour}{state.get('state', '?'):8}{RESET} {kind:22} "
            f"{'online' if up else 'OFFLINE':8} {round_id:24} {last}"
        )

    def render(self, elapsed_s: float) -> None:
        if not self.interactive:
            return
        lines = ["\x1b[H\x1b[2J", *self.header, f"running {elapsed_s:5.1f} s", ""]
        lines.append(f"{'TABLE':7} {'STATE':8} {'GAME':22} {'DEVICES':8} {'ROUND':24} LAST RESULT")
        for table, state in sorted(self.states.items()):
            lines.append(self.row(table, state))
            for reason in state.get("halt_reasons") or []:
                where = f" ({reason.get('device')})" if reason.get("device") else ""
                lines.append(
                    f"        \x1b[31mhalted: {reason.get('code')}{where}: "
                    f"{reason.get('detail')}{RESET}"
                )
        lines += ["", "Recent events"]
        for event in self.recent:
            tint = HIGHLIGHT.get(event.get("type", ""), "")
            lines.append(f"{tint}{self.plain_line(event)}{RESET}")
        self.write("\n".join(lines) + "\n")
