"""A shuffle watch's state, saved beside the record and taken up at a start
(`floord.table.watch_state`): the shoes that ended and each shoe being dealt.

A shoe being dealt is compared with the shoes that had ended when it began
(`OpenShoe.earlier`), which may since have left the watch's history, so each is saved
with its own. Its runs and longest run follow from its cards and are dealt again on
load; only whether it already raised its slug alert is kept as it was.
"""

from __future__ import annotations

from typing import Any

from floord.analytics.saved_state import field, optional
from floord.analytics.shuffle_watch import LONGEST_SHOE, DealtShoe, Earlier, OpenShoe, ShuffleWatch


def shuffle_state(watch: ShuffleWatch) -> dict[str, Any]:
    """The shoes counted, the history, and each open shoe with its earlier shoes."""
    return {
        "shoes": watch.shoes,
        "history": [_dealt(d) for d in watch.history],
        "open": [
            {
                "number": shoe.number,
                "side": shoe.side,
                "earlier": [_dealt(d) for d in shoe.earlier.shoes],
                "cards": list(shoe.cards),
                "slug_raised": shoe.slug_raised,
            }
            for shoe in watch.open.values()
        ],
    }


def load_shuffle(watch: ShuffleWatch, state: Any) -> None:
    """Go on from a `shuffle_state()`; ValueError (nothing changed) when it does not fit."""
    shoes = field(state, "shoes", int)
    history = [_read_dealt(d) for d in field(state, "history", list)]
    if shoes < 0 or len(history) > watch.setup.history:
        raise ValueError("a saved shuffle watch holds more shoes than it keeps")
    opened: dict[str | None, OpenShoe] = {}
    for saved in field(state, "open", list):
        side = optional(saved, "side", str)
        earlier = Earlier(tuple(_read_dealt(d) for d in field(saved, "earlier", list)))
        shoe = OpenShoe(field(saved, "number", int), side, earlier)
        for face in _faces(field(saved, "cards", list)):
            shoe.add(face)
        shoe.slug_raised = field(saved, "slug_raised", bool)
        if side in opened:
            raise ValueError("a saved shuffle watch has two shoes open on one side")
        opened[side] = shoe
    watch.shoes, watch.history, watch.open = shoes, history, opened


def _dealt(shoe: DealtShoe) -> dict[str, Any]:
    return {"number": shoe.number, "side": shoe.side, "cards": list(shoe.cards)}


def _read_dealt(saved: Any) -> DealtShoe:
    number, side = field(saved, "number", int), optional(saved, "side", str)
    return DealtShoe(number, side, tuple(_faces(field(saved, "cards", list))))


def _faces(cards: list[Any]) -> list[str]:
    if len(cards) > LONGEST_SHOE or not all(isinstance(c, str) and c for c in cards):
        raise ValueError("a saved shoe holds something that is no card's face")
    return cards
