"""The games' own decisions as sentences: wheel results, hands, card bookkeeping.

Roulette, Big Six, Blackjack (and Spanish 21), the Baccarat games, Mississippi Stud and
Pai Gow, each event of docs/contract.md in one line ("17 black, round 42, dealer DL-7").
"""

from __future__ import annotations

from typing import Any

from floord.contract import Envelope, EventType
from floord.watch.device_sentences import Sentence
from floord.watch.wording import get, optional, round_number, value_text, words


def _round(e: Envelope) -> str:
    number = round_number(e.round)
    return f", round {number}" if number else ""


def _hand(value: Any) -> str:
    """A hand body `{cards, total, ...}` as `KH 7D = 17`."""
    if not isinstance(value, dict):
        return value_text(value)
    text = value_text(value.get("cards") or [])
    total = value.get("total")
    text = f"{text} = {value_text(total)}" if total is not None else text
    if value.get("blackjack"):
        text += ", blackjack"
    if value.get("bust"):
        text += ", bust"
    if value.get("natural"):
        text += ", natural"
    return text


def _outcomes(items: Any, label: str) -> str:
    """`box 1 win, box 3 lose`: each entry's `box` (or `label`) and `outcome`."""
    if not isinstance(items, list) or not items:
        return f"no {label}es"
    parts = []
    for item in items:
        if isinstance(item, dict):
            who = item.get("box", item.get(label, "?"))
            parts.append(f"{label} {value_text(who)} {value_text(item.get('outcome', '?'))}")
    return ", ".join(parts) or f"no {label}es"


def _roulette_result(d: dict[str, Any], e: Envelope) -> str:
    text = f"{get(d, 'number')} {get(d, 'colour', '')}".strip() + _round(e)
    return text + optional(d, "dealer", ", dealer {}")


def _no_spin(d: dict[str, Any], e: Envelope) -> str:
    text = f"no spin ({words(d.get('reason'))})" + optional(d, "detail", ": {}")
    return text + (", respin" if d.get("respin") else "")


def _wheel_service(d: dict[str, Any], e: Envelope) -> str:
    who = d.get("by")
    text = f"wheel {words(d.get('kind'))}: {get(d, 'part', 'the wheel')}"
    text += optional(d, "description", ", {}")
    text += f", by {value_text(who)}" if who else optional(d, "device", ", seen on {}")
    return text + ("; an inspection is required" if d.get("inspection_required") else "")


def _ball_replaced(d: dict[str, Any], e: Envelope) -> str:
    text = f"new ball in play, {get(d, 'diameter_sixteenths')}/16 inch, nonmetallic, nonmagnetic"
    return text + optional(d, "by", ", by {}") + optional(d, "note", ": {}")


def _blackjack_result(d: dict[str, Any], e: Envelope) -> str:
    dealer = "dealer blackjack" if d.get("dealer_blackjack") else f"dealer {_hand(d.get('dealer'))}"
    return f"{dealer}: {_outcomes(d.get('hands'), 'box')}{_round(e)}"


def _peek(d: dict[str, Any], e: Envelope) -> str:
    found = "dealer has blackjack" if d.get("blackjack") else "no dealer blackjack"
    allowed = "" if d.get("needed") is not False else " (a peek not allowed)"
    return f"peek under {get(d, 'up_card')}: {found}{allowed}"


def _place(value: Any) -> str:
    """A `card_to` place, `{box, hand}` or `{dealer: true}`, as words."""
    if isinstance(value, dict) and value.get("dealer"):
        return "the dealer"
    if isinstance(value, dict):
        return f"box {get(value, 'box')} hand {get(value, 'hand')}"
    return "held as drawn in error" if value is None else value_text(value)


def _card_corrected(d: dict[str, Any], e: Envelope) -> str:
    card = d.get("card")
    text = f"card {value_text(card) if card is not None else '(not read)'} was dealt to "
    text += f"{_place(d.get('to'))}, not {_place(d.get('from'))}"
    return text + optional(d, "by", ", by {}")


def _hand_dead(d: dict[str, Any], e: Envelope) -> str:
    text = f"box {get(d, 'box')} hand {get(d, 'hand')} dead: {words(d.get('reason'))}"
    return text + optional(d, "wager", ", wager {}")


def _baccarat_result(d: dict[str, Any], e: Envelope) -> str:
    winner = d.get("winner")
    text = "tie" if winner == "tie" else f"{value_text(winner)} wins"
    text += f", player {_hand(d.get('player'))}, banker {_hand(d.get('banker'))}"
    return text + (", Dragon 7" if d.get("dragon_7") else "") + _round(e)


def _stud_hand(d: dict[str, Any], e: Envelope) -> str:
    if d.get("card") is not None:
        return f"community card {get(d, 'hand')} turned: {get(d, 'card')}"
    text = f"box {get(d, 'box')}: {value_text(d.get('best') or d.get('cards'))}"
    return text + optional(d, "payout_class", ", {}")


def _bigsix_result(d: dict[str, Any], e: Envelope) -> str:
    return f"{get(d, 'symbol')}, pays {get(d, 'odds')}, section {get(d, 'section')}{_round(e)}"


def _deck_removed(d: dict[str, Any], e: Envelope) -> str:
    text = f"deck removed: {words(d.get('reason'))}" + optional(d, "detail", ", {}")
    return text + optional(d, "by", ", by {}")


def _decks_inspected(d: dict[str, Any], e: Envelope) -> str:
    found = "defects found" if d.get("defects_found") else "no defects"
    text = f"decks {get(d, 'step')} by {get(d, 'by')}: {found}"
    return text + ("; cleared for play" if d.get("cleared") else "")


def _decks_spread(d: dict[str, Any], e: Envelope) -> str:
    part = ", ".join(f"{k} {get(d, k)}" for k in ("side", "batch", "deck") if d.get(k) is not None)
    found = "defects found" if d.get("defects_found") else "no defects"
    washed = "washed and stacked" if d.get("washed") else "stacked, not washed"
    text = f"decks spread for the first player by {get(d, 'by')}" + (f" ({part})" if part else "")
    text += f": {found}, {washed}"
    if d.get("cleared"):
        return text + "; cleared for play"
    left = d.get("to_spread") or []
    return text + (f"; {len(left)} part(s) still to spread" if left else "")


def _cut(d: dict[str, Any], e: Envelope) -> str:
    """War's and the Baccarat games' cover card; Blackjack's cutting card (its events
    carry `side`, null on a single shoe)."""
    who = f"box {get(d, 'box')}'s player" if d.get("by") == "player" else get(d, "by")
    card = "cutting card" if "side" in d else "cover card"
    text = f"{'recut' if d.get('recut') else 'cut'} by {who}: {card} {get(d, 'cards')} cards in"
    if d.get("side") is not None:
        text += f" ({get(d, 'side')} side)"
    offered = d.get("offered_to")
    if isinstance(offered, dict) and offered.get("to"):
        text += f"; offered first to {value_text(offered['to'])}"
        text += f" (box {value_text(offered['box'])})" if offered.get("box") is not None else ""
    declined = d.get("declined")
    if isinstance(declined, list) and declined:
        text += "; refused by box " + ", ".join(map(value_text, declined))
    return text


def _shuffle_verified(d: dict[str, Any], e: Envelope) -> str:
    if d.get("even") is True:
        return f"feathered stack verified by {get(d, 'by')}: shuffled evenly"
    return f"feathered stack checked by {get(d, 'by')}: shuffled unevenly, shuffle again"


def _pai_gow_position(value: Any) -> str:
    """A Pai Gow position (§ 535.2): `betting area 3`, `the dealer`, `the Dead Hand`."""
    if value == "dealer":
        return "the dealer"
    if value == "dead_hand":
        return "the Dead Hand"
    return "no position" if value is None else f"betting area {value_text(value)}"


def _deal_position(d: dict[str, Any], e: Envelope) -> str:
    faces = d.get("faces")
    shown = "/".join(map(value_text, faces)) if isinstance(faces, list) else value_text(faces)
    return (
        f"shaker {shown} = {get(d, 'total')}: deal starts at "
        f"{_pai_gow_position(d.get('position'))}{_round(e)}"
    )


def _paigow_dealt(d: dict[str, Any], e: Envelope) -> str:
    text = f"tiles dealt from {_pai_gow_position(d.get('from'))} by {get(d, 'by')}"
    if d.get("as_determined"):
        return text + ", as the dice said" + _round(e)
    return text + f"; the dice said {_pai_gow_position(d.get('position'))}{_round(e)}"


GAME_SENTENCES: dict[str, Sentence] = {
    EventType.ROULETTE_RESULT: _roulette_result,
    EventType.ROULETTE_NO_SPIN: _no_spin,
    EventType.ROULETTE_WHEEL_SERVICE: _wheel_service,
    EventType.ROULETTE_BALL_REPLACED: _ball_replaced,
    EventType.BIGSIX_RESULT: _bigsix_result,
    EventType.BIGSIX_NO_SPIN: _no_spin,
    EventType.PAIGOW_DEAL_POSITION: _deal_position,
    EventType.PAIGOW_DEALT: _paigow_dealt,
    EventType.BLACKJACK_HAND: lambda d, e: f"box {get(d, 'box')} hand {get(d, 'hand')}: {_hand(d)}",
    EventType.BLACKJACK_DEALER_HAND: lambda d, e: f"dealer's hand: {_hand(d)}",
    EventType.BLACKJACK_PEEK: _peek,
    EventType.BLACKJACK_RESULT: _blackjack_result,
    EventType.BLACKJACK_CARD_CORRECTED: _card_corrected,
    EventType.BLACKJACK_HAND_OPTION: lambda d, e: (
        f"box {get(d, 'box')} hand {get(d, 'hand')}: the player chose {words(d.get('option'))}"
        + optional(d, "outcome", " ({})")
    ),
    EventType.BLACKJACK_HAND_DEAD: _hand_dead,
    EventType.CARDS_SHUFFLE_REQUIRED: lambda d, e: (
        f"shuffle required: {words(d.get('reason'))}" + optional(d, "detail", ", {}")
    ),
    EventType.CARDS_BATCH_REFUSED: lambda d, e: (
        f"batch {get(d, 'batch')} refused: {words(d.get('reason'))}" + optional(d, "detail", ", {}")
    ),
    EventType.CARDS_DECKS_CHANGED: lambda d, e: (
        f"decks changed by {get(d, 'by')}" + optional(d, "due_at", "; next change due {}")
    ),
    EventType.CARDS_BURN: lambda d, e: (
        f"burn card {get(d, 'position')}: {get(d, 'card')}"
        + (", burn complete" if d.get("complete") else "")
    ),
    EventType.CARDS_LAST_HAND: lambda d, e: (
        "cover card out: one more hand" + optional(d, "detail", ", {}")
    ),
    EventType.CARDS_DECK_REMOVED: _deck_removed,
    EventType.CARDS_DECKS_RECEIVED: lambda d, e: (
        f"{get(d, 'decks')} decks received by {get(d, 'by')}; "
        f"inspection {words(d.get('inspection'))}"
    ),
    EventType.CARDS_DECKS_INSPECTED: _decks_inspected,
    EventType.CARDS_DECKS_SPREAD: _decks_spread,
    EventType.CARDS_CUT: _cut,
    EventType.CARDS_SHUFFLE_VERIFIED: _shuffle_verified,
    EventType.BACCARAT_HAND: lambda d, e: f"{get(d, 'hand')} hand: {_hand(d)}",
    EventType.BACCARAT_RESULT: _baccarat_result,
    EventType.STUD_HAND: _stud_hand,
    EventType.STUD_RESULT: lambda d, e: f"result: {_outcomes(d.get('boxes'), 'box')}{_round(e)}",
}
