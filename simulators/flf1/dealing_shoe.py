"""A simulated dealing shoe (manual, card recognition or double), speaking `dealing-shoe.md`.

One simulator for the three models: the profile's `quirks.recognition` (the shoe reads
each card's rank and suit) and `quirks.double` (two sides, `L` and `R`, 58 Pa. Code
§ 549.3(c)) choose which. Each side counts its draws from 1 after its `LOD`; a cutting
card reports how many cards of that side came before it.

Choices where the page is silent: `draw: {count: n}` on a recognition shoe draws cards
at random from one 52-card deck (with replacement, from the scenario's seed); a manual
shoe sends `-` for every card. `face_up` needs recognition (a card-out sensor cannot
see a face). `out_of_order: {code}` sends `OOO` (the text defaults to the code's in the
fault table; code 0, back in service, to "back in service"). `TST` is answered with
`TSR`: a failure naming the latest uncleared fault, else a pass.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from floord.events import Simulator
from simulators.flf1.card_device import Action, CardDevice, DeviceState, Send, Wait, quirk_flag
from simulators.flf1.card_scenarios import ShoeScenario, ShoeStep

FAULTS: dict[int, str] = {
    10: "hardware fault",
    30: "card jam at the exit",
    31: "card sensor blocked",
    32: "recognition camera failed",
    90: "link: frame not acknowledged",
}
TAMPERS: dict[int, str] = {1: "shoe lid opened during play", 2: "cable cut"}
IN_SERVICE = "back in service"
DECK: tuple[str, ...] = tuple(rank + suit for suit in "SHDC" for rank in "A23456789TJQK")


@dataclass
class ShoeState(DeviceState):
    drawn: dict[str, int] = field(default_factory=dict)  # side: cards drawn since its LOD


class DealingShoeSimulator(CardDevice):
    """The shoe: `LOD`, `CRD`, `FUP`, `CUT`, `EMP` as its scenario deals."""

    FAMILY = "dealing_shoe"
    SCENARIO = ShoeScenario
    DEFAULT_IDENTITY = ("SH-000042", "2.0.1")
    FAULTS = FAULTS
    TAMPERS = TAMPERS

    def capability_words(self) -> list[str]:
        flags = ("recognition", "double")
        return [word for word in flags if quirk_flag(self.profile, word)]

    @property
    def recognition(self) -> bool:
        return "recognition" in self.capabilities

    @property
    def double(self) -> bool:
        return "double" in self.capabilities

    def new_state(self) -> ShoeState:
        return ShoeState()

    def family_problem(self, step: ShoeStep) -> str | None:
        if step.out_of_order is not None and step.out_of_order.code != 0:
            return self.code_problem(step.out_of_order.code, self.faults, "fault")
        spec = step.load or step.draw or step.face_up or step.cutting_card or step.empty
        if spec is not None:
            wanted = "L or R on a double shoe" if self.double else "'-' on a single shoe"
            if (spec.side == "-") == self.double:
                return f"side: {wanted} expected, found {spec.side!r}"
        if not self.recognition:
            if step.draw is not None and step.draw.cards is not None:
                found = step.draw.cards
                return f"cards: a count on a shoe without recognition expected, found {found}"
            if step.face_up is not None:
                return "face_up: a shoe with recognition expected, found one without"
        return None

    def family_plan(self, step: ShoeStep, state: ShoeState, rng: random.Random) -> list[Action]:
        if step.load is not None:
            state.drawn[step.load.side] = 0
            cards = "-" if step.load.cards is None else str(step.load.cards)
            return [Send("LOD", (step.load.side, cards))]
        if step.draw is not None:
            return self._draw(step, state, rng)
        if step.face_up is not None:
            return [Send("FUP", (step.face_up.side, step.face_up.card))]
        if step.cutting_card is not None:
            side = step.cutting_card.side
            return [Send("CUT", (side, str(state.drawn.get(side, 0))))]
        if step.empty is not None:
            return [Send("EMP", (step.empty.side,))]
        if step.out_of_order is not None:
            code = step.out_of_order.code
            text = step.out_of_order.text or (self.faults[code] if code else IN_SERVICE)
            return [Send("OOO", (str(code), text))]
        raise ValueError(f"not a dealing shoe step: {step.kind}")

    def _draw(self, step: ShoeStep, state: ShoeState, rng: random.Random) -> list[Action]:
        assert step.draw is not None
        spec = step.draw
        if spec.cards is not None:
            cards = list(spec.cards)
        elif self.recognition:
            cards = [rng.choice(DECK) for _ in range(spec.size)]
        else:
            cards = ["-"] * spec.size
        actions: list[Action] = []
        for index, card in enumerate(cards):
            if index:
                actions.append(Wait(spec.interval))
            state.drawn[spec.side] = state.drawn.get(spec.side, 0) + 1
            actions.append(Send("CRD", (spec.side, str(state.drawn[spec.side]), card)))
        return actions


SIMULATOR: type[Simulator] = DealingShoeSimulator  # mypy checks it is a Simulator
