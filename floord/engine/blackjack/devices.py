"""How a Blackjack table's card devices change the game: the card reader and the shoe.

The card reader's self-test and peek (58 Pa. Code § 549.2(e), § 549.7(f), § 549.16(j),
(k)); the shoe's loads, drawn cards, face-up cards, cutting card and running out
(§ 549.7(c), (k), § 549.16(a), (f)). Each drawn card first passes the shoe's book (a burn
card, a face-up card taken out) and then goes to the round in play, or is a violation
when there is none. Shuffler events go straight to `ShufflerBook`.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from floord.contract import format_ts
from floord.engine.blackjack.rules import GameRules
from floord.engine.cards.card import CardError, parse_card
from floord.engine.core.base import TableEngineBase
from floord.engine.core.rulings import violation
from floord.engine.core.types import Decision, EngineOutput

if TYPE_CHECKING:
    from floord.engine.blackjack.decisions import Round
    from floord.engine.blackjack.shoe import ShoeBook


class BlackjackDevices(TableEngineBase):
    """Device-event handling for `BlackjackEngine` (which supplies the attributes below)."""

    rules: GameRules
    shoe: ShoeBook
    reader: str
    self_test: dict[str, Any] | None
    _play: Callable[[], Round | None]
    _void: Callable[..., list[Decision]]
    reader_cleared: Callable[[datetime], str | None]

    def _self_test(self, data: dict[str, Any], now: datetime) -> EngineOutput:
        passed = data.get("passed")
        if not isinstance(passed, bool):
            return self._violation("unreadable_self_test", passed=repr(passed))
        self.self_test = {
            "passed": passed,
            "code": data.get("code"),
            "text": str(data.get("text", "")),
            "at": format_ts(now),
            "gaming_day": self.day.label(now),
        }
        if passed:
            return EngineOutput()
        detail = (
            f"the card reader failed its self-test ({self.self_test['text'] or data.get('code')})"
        )
        return self.table.halt(
            "reader_self_test_failed",
            device=self.reader,
            detail=detail,
            now=now,
            rule=self.rules.cite("reader_malfunction"),
        )

    def _peek(self, data: dict[str, Any], now: datetime) -> EngineOutput:
        play = self._play()
        if play is None:
            return EngineOutput([violation(self.rules, "peek", "peek_outside_round", None)])
        step = play.peek(data)
        out = EngineOutput(step.decisions)
        if step.action == "void":
            out.events += self._void(
                "peek_on_other_card",
                self.rules.cite("peek_exposed"),
                "the hole card was put in a reader that shows its value although the up card "
                f"was {play.up_card}: all hands are dead, the cards collected and every "
                "wager returned",
                notify="floorperson",
            )
        elif step.action == "halt":
            out.extend(
                self.table.halt(
                    "reader_disagrees",
                    device=self.reader,
                    detail=f"the reader said blackjack={data.get('blackjack')!r} but the shoe "
                    f"read the dealer's cards {play.r['dealer']['cards']}",
                    now=now,
                    rule=self.rules.cite("reader_malfunction"),
                )
            )
        return out

    def _card(self, data: dict[str, Any]) -> tuple[str | None, EngineOutput | None]:
        raw = data.get("card")
        if raw is None:
            return None, None
        try:
            return parse_card(raw), None
        except CardError as exc:
            return None, self._violation("unreadable_card", reason=str(exc))

    def _drawn(self, data: dict[str, Any], now: datetime) -> EngineOutput:
        card, bad = self._card(data)
        if bad is not None:
            return bad
        round_id = self.rounds.current_id
        kind, decisions = self.shoe.draw(data, card, round_id)
        out = EngineOutput(decisions)
        if kind != "card":
            return out
        play = self._play()
        if play is None:
            out.events.append(self._card_outside_round(card, now))
            return out
        if not self.table.is_open:
            # The round is suspended under § 549.16(k): a card dealt now breaks it; the
            # record still follows the card, as the players saw it dealt.
            detail = "the card reader is out of order: no card is dealt until it is repaired"
            out.events.append(
                violation(
                    self.rules,
                    "reader_malfunction",
                    "card_while_reader_out",
                    play.id,
                    card=card,
                    detail=detail,
                )
            )
        out.events += play.card(card, data.get("side"))
        return out

    def _card_outside_round(self, card: str | None, now: datetime) -> Decision:
        if any(r["device"] == self.reader for r in self.table.halt_reasons):
            key, why = "reader_malfunction", "the card reader is out of order: no dealing"
        elif (problem := self.reader_cleared(now)) is not None:
            key, why = "reader_inspection", problem
        else:
            key, why = "deal_order", "no round is in play (round_start) for this card"
        return violation(self.rules, key, "card_outside_round", None, card=card, detail=why)

    def _loaded(self, data: dict[str, Any], now: datetime) -> EngineOutput:
        rnd = self.rounds.current
        reload = bool(rnd and rnd["reload"])
        out = EngineOutput()
        if rnd is not None and not reload:
            out = self._violation("shoe_loaded_mid_round", side=data.get("side"))
        if rnd is not None:
            rnd["reload"] = False
        out.events += self.shoe.loaded(data, self.rounds.current_id, reload)
        return out

    def _face_up(self, data: dict[str, Any], now: datetime) -> EngineOutput:
        card, bad = self._card(data)
        if bad is not None:
            return bad
        return EngineOutput(self.shoe.face_up_found(data, card, self.rounds.current_id))

    def _cutting_card(self, data: dict[str, Any], now: datetime) -> EngineOutput:
        return EngineOutput(self.shoe.cutting_card(data, self.rounds.current_id))

    def _empty(self, data: dict[str, Any], now: datetime) -> EngineOutput:
        rnd = self.rounds.current
        if rnd is not None:
            rnd["reload"] = True
        return EngineOutput(self.shoe.empty(data, self.rounds.current_id))
