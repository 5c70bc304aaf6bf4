"""How the console words a shuffle-quality alert (`floord.analytics.shuffle_watch`).

A shuffle alert is about a shoe, not a window of results: it says which shoe, what was
seen in it (a run of cards as dealt in an earlier shoe, neighbours kept from the last
shoe or from new decks' order, clumped suits or ranks) against what a random shuffle
gives, and its p-value against the level.
"""

from __future__ import annotations

from typing import Any

from floord.watch.wording import get, optional, p_text, words


def _part(d: dict[str, Any], key: str) -> dict[str, Any]:
    value = d.get(key)
    return value if isinstance(value, dict) else {}


def _seen(d: dict[str, Any]) -> str:
    test = d.get("test")
    if test == "shuffle_slug":
        run = _part(d, "run")
        return (
            f"a run of {get(d, 'statistic')} cards from card {get(run, 'at')} as dealt "
            f"in shoe {get(run, 'shoe')} from its card {get(run, 'at_earlier')}"
        )
    if test == "shuffle_correlation":
        pairs = _part(d, "pairs")
        return (
            f"{get(pairs, 'observed')} neighbours as in the "
            f"{words(d.get('against'))} vs {p_text(pairs.get('expected'))} expected"
        )
    if test == "shuffle_clumping":
        suits = _part(d, "suits")
        ranks = _part(d, "ranks")
        return (
            f"same-suit neighbours {get(suits, 'observed')} vs "
            f"{p_text(suits.get('expected'))}, same-rank {get(ranks, 'observed')} vs "
            f"{p_text(ranks.get('expected'))} expected"
        )
    return words(test)


def shuffle_alert(d: dict[str, Any]) -> str:
    """`alert A00001: shuffle slug in shoe 4: a run of 6 cards ... p = 3e-05 below 0.001`."""
    return (
        f"alert {get(d, 'id')}: {words(d.get('test'))} in shoe {get(d, 'shoe')}"
        + optional(d, "side", " ({} side)")
        + f" after {get(d, 'cards')} cards: {_seen(d)}; p = {p_text(d.get('p_value'))} "
        f"below {p_text(d.get('level'))}"
    )
