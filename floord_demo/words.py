"""The demo's words for events: one line a person on the floor can read, per event.

A card round's result is said as its hands and outcomes, a wheel's result as its number
and colour (and, on a sensor kit's wheel, the dealer and the release pocket), an alert as
its test, p-value and the cells it found over-represented, first, so that a line cut to
a narrow terminal still says what happened.
"""

from __future__ import annotations

from typing import Any

from floord.watch.shuffle_sentences import shuffle_alert
from floord_demo.dice_words import describe_dice


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
    dice_text = describe_dice(kind, data)
    if card_text is not None:
        text = card_text
    elif dice_text is not None:
        text = dice_text
    elif kind == "roulette.result":
        text = f"{data.get('number')} {data.get('colour', '')}"
        if data.get("dealer"):  # a sensor kit's wheel: the dealer signature test's inputs
            text += f", dealer {data['dealer']}, released over {data.get('release_pocket')}"
    elif kind == "bigsix.result":
        text = f"{data.get('symbol')} (section {data.get('section')}), pays {data.get('odds')}"
    elif kind == "surveillance.alert" and "shoe" in data:  # a shoe's, not a window's
        text = shuffle_alert(data)
    elif kind == "surveillance.alert" and isinstance(data.get("summary"), str):
        text = f"{data.get('id')} {data.get('test')} test: {data['summary']}"
    elif kind == "surveillance.alert":
        over = [c.get("label") for c in data.get("over_represented") or []][:2]
        text = (
            f"{data.get('id')} {data.get('test')} test p={data.get('p_value', 0):.2g} over "
            f"{data.get('window')} results, most over-represented {over}"
        )
    elif kind == "surveillance.alert_acknowledged":
        text = f"{data.get('id')} acknowledged by {data.get('by')}: {data.get('note') or ''}"
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
