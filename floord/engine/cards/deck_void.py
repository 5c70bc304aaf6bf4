"""A round of a dealt-deck game voided, and the continuous shuffler such a game refuses.

Poker (chapter 553) and the carnival games (chapter 55x, § 561) deal from a deck that is
shuffled again after every round, by hand or by a batch shuffler: a void round returns
the wagers, its deck is shuffled before its next use, and a continuous shuffler (which
would not shuffle the deck between rounds as the chapter asks) is the wrong device. The
engines differ only in their citations and in the words of the detail, so they pass
those in (`DealtDeckRounds`, the engines' side of it, takes the words as class
attributes and the citation of the game's "shuffle" paragraph). Pure: no clock.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from floord.contract import EventType
from floord.engine.cards.deck_book import DeckBook
from floord.engine.core.devices import capability_problem
from floord.engine.core.rounds import RoundBook
from floord.engine.core.rulings import decision
from floord.engine.core.types import Decision, EngineOutput


def continuous_shuffler_problem(identity: dict[str, Any], shuffled: str) -> str | None:
    """Why a device that says it is a continuous shuffler cannot serve this table, if it does.

    `shuffled` is the game's requirement and its citation, as the refusal should say it."""

    def mismatch(_: bool) -> str:
        return f"a continuous shuffler: {shuffled}"

    return capability_problem(
        identity, device="device", capability="continuous", configured=False, mismatch=mismatch
    )


def void_dealt_round(
    rounds: RoundBook,
    decks: DeckBook,
    shuffle_rule: str,
    reason: str,
    why: str,
    detail: str,
    *,
    shuffled: str,
) -> list[Decision]:
    """End the round in play as void (wagers returned, `why` the policy or rule) and require
    its deck shuffled (`shuffle_rule`, `shuffled` the words of that event's detail)."""
    rnd = rounds.finish()
    decks.round_done(counted=True)
    body = {"reason": reason, "detail": detail, "wagers": "returned", "policy": why}
    return [
        Decision(EventType.ROUND_VOIDED, body, None, rnd["id"]),
        decision(
            EventType.CARDS_SHUFFLE_REQUIRED,
            shuffle_rule,
            rnd["id"],
            decks=[rnd["deck"]],
            reason=reason,
            detail=shuffled,
        ),
    ]


class DealtDeckRounds:
    """The void round and the refused continuous shuffler of an engine that deals a deck
    shuffled after each round (`PokerEngine`, `CarnivalEngine`), which supplies the
    attributes below: `SHUFFLED_EACH_ROUND`, what its chapter says of the shuffle after
    each round; `RESHUFFLE_DETAIL`, the detail of the shuffle a void round requires."""

    SHUFFLED_EACH_ROUND: ClassVar[str]
    RESHUFFLE_DETAIL: ClassVar[str]
    rounds: RoundBook
    decks: DeckBook
    _cite: Callable[[str], str]

    def _identity_problem(self, identity: dict[str, Any]) -> str | None:
        rule = self._cite("shuffle")
        return continuous_shuffler_problem(identity, f"{self.SHUFFLED_EACH_ROUND} ({rule})")

    def _void_under_policy(self, reason: str, detail: str, policy: str) -> EngineOutput:
        return EngineOutput(self._void(reason, policy, detail))

    def _void(self, reason: str, why: str, detail: str = "") -> list[Decision]:
        return void_dealt_round(
            self.rounds,
            self.decks,
            self._cite("shuffle"),
            reason,
            why,
            detail,
            shuffled=self.RESHUFFLE_DETAIL,
        )
