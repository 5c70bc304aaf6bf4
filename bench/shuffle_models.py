"""Models of how a stack of cards is shuffled, fair and not, to measure the shuffle tests.

Each takes the previous shoe's stack, in the order it went into the shuffle, and a
seeded `random.Random`, and returns the next shoe's stack, top card first:

- `fair`: Fisher-Yates (`random.shuffle`), every order equally likely;
- `riffle(k)`: k riffle shuffles in the Gilbert-Shannon-Reeds model (the stack cut
  binomially in two, the packets dropped card by card with chance proportional to
  what is left in each), then a cut: a poor shuffle is one with few riffles;
- `false_shuffle`: the order kept (a dealer who only pretends), then a cut;
- `slug(n)`: a fair shuffle, except `n` cards the previous shoe dealt in a row are kept
  together, in order, and placed where the next shoe deals them.

Every cut (as a player's, 58 Pa. Code § 549.6(d)) moves the top part under the rest at
a place at least 10 cards from either end. The previous stack is the order it was dealt
in followed by the cards behind the cutting card: the most a tracker of the discards
could keep, and what the tests are measured against (docs/analytics.md).
"""

from __future__ import annotations

import random
from collections.abc import Callable

RANKS = "A23456789TJQK"
SUITS = "SHDC"
Shuffle = Callable[[list[str], random.Random], list[str]]


def new_decks(decks: int) -> list[str]:
    """`decks` decks in the order they leave the box: each suit ace to king."""
    return [rank + suit for _ in range(decks) for suit in SUITS for rank in RANKS]


def cut(stack: list[str], rng: random.Random) -> list[str]:
    at = rng.randint(10, len(stack) - 10)
    return stack[at:] + stack[:at]


def fair(stack: list[str], rng: random.Random) -> list[str]:
    shuffled = list(stack)
    rng.shuffle(shuffled)
    return shuffled


def gsr_riffle(stack: list[str], rng: random.Random) -> list[str]:
    """One Gilbert-Shannon-Reeds riffle."""
    half = sum(rng.random() < 0.5 for _ in stack)
    left, right = stack[:half], stack[half:]
    out: list[str] = []
    i = j = 0
    while i < len(left) or j < len(right):
        a, b = len(left) - i, len(right) - j
        if rng.random() * (a + b) < a:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    return out


def riffle(k: int) -> Shuffle:
    def shuffle(stack: list[str], rng: random.Random) -> list[str]:
        for _ in range(k):
            stack = gsr_riffle(stack, rng)
        return cut(stack, rng)

    return shuffle


def false_shuffle(stack: list[str], rng: random.Random) -> list[str]:
    return cut(list(stack), rng)


def slug(n: int, dealt: int) -> Shuffle:
    """A slug of `n` cards from the first `dealt` of the previous stack (the cards that
    shoe dealt), placed within the first `dealt` of the next."""

    def shuffle(stack: list[str], rng: random.Random) -> list[str]:
        start = rng.randint(0, dealt - n)
        run = stack[start : start + n]
        rest = stack[:start] + stack[start + n :]
        rng.shuffle(rest)
        at = rng.randint(0, dealt - n)
        return rest[:at] + run + rest[at:]

    return shuffle
