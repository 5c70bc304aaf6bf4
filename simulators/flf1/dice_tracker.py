"""A simulated dice tracker (a camera over a Craps table) or Pai Gow shaker, speaking
`docs/protocols/dice-tracker.md` over FLF/1.

The device reports the dice at the table (`SET|<id>|...`, or `SET|-` for none), the dice
the shooter selected (`SEL|<id>|<id>`) and each throw: `THR|<together>` followed, for each
die, by its id, face, rest, lie and far_end, each `-` where the profile's capabilities do
not report it (a shaker sends only the faces). The profile's `quirks.dice` says how many
dice a throw holds (2, or the shaker's 3).

Choices where the page is silent: at power-on the device holds the dice `D1` to `D5`
(the fewest § 537.7(a) allows) and the first of them are the shooter's, until a scenario
says otherwise; it reports none of that until a `dice_set` or `select` step (a scenario
shows the host what it chooses). A die replaced (`replace`) takes the place of the one
taken out, in the set and, if the shooter held it, in the shooter's hand (then `SEL`
follows the new `SET`). A die may be sent with its id unread (`id_read: false`) or, off
the table or in the cup, unseen (`seen: false`: its lie and far_end `-`). `TST` is
answered with `TSR`: a failure naming the latest uncleared fault, else a pass. The device
never judges a throw: an improper one is reported as it happened.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from floord.events import Simulator
from floord.profiles import DeviceProfile
from simulators.flf1.card_device import Action, CardDevice, DeviceState, Send, Wait, quirk_flag
from simulators.flf1.dice_tracker_scenarios import DiceScenario, DiceStep, Die, Throw
from simulators.scenario import ScenarioError

FAULTS: dict[int, str] = {
    10: "hardware fault",
    70: "camera failed",
    71: "calibration lost",
    72: "die not recognised",
    90: "link: frame not acknowledged",
}
TAMPERS: dict[int, str] = {1: "case opened", 2: "cable cut", 3: "camera or shaker obstructed"}
CAPABILITIES = ("die_ids", "rest", "cocked", "far_end", "together")
NONE = "-"
START_SET = [f"D{n}" for n in range(1, 6)]


@dataclass
class DiceState(DeviceState):
    dice_set: list[str] = field(default_factory=lambda: list(START_SET))
    selected: list[str] = field(default_factory=list)


def dice_of(profile: DeviceProfile) -> int:
    value = profile.quirks.get("dice")
    if type(value) is not int or value not in (2, 3):
        raise ValueError(f"profile {profile.model}: quirks.dice: 2 or 3 expected, found {value!r}")
    return int(value)


def yes_no(value: bool) -> str:
    return "Y" if value else "N"


class DiceTrackerSimulator(CardDevice):
    """The tracker or shaker: the dice set, the shooter's selection, each throw."""

    FAMILY = "dice_tracker"
    SCENARIO = DiceScenario
    DEFAULT_IDENTITY = ("DT-000537", "1.0.0")
    FAULTS = FAULTS
    TAMPERS = TAMPERS

    @cached_property
    def dice(self) -> int:
        """The dice in a throw (`quirks.dice`), read when the scenario is first checked."""
        return dice_of(self.profile)

    def capability_words(self) -> list[str]:
        return [word for word in CAPABILITIES if quirk_flag(self.profile, word)]

    def new_state(self) -> DiceState:
        return DiceState(selected=START_SET[: self.dice])

    def family_problem(self, step: DiceStep) -> str | None:
        has = set(self.capabilities)
        for name in ("dice_set", "select", "replace"):
            if getattr(step, name) is not None and "die_ids" not in has:
                return "only a model with the die_ids capability names its dice"
        if step.select is not None and len(step.select.dice) != self.dice:
            return f"dice: {self.dice} expected, found {len(step.select.dice)}"
        if step.throw is not None:
            return self._throw_problem(step.throw, has)
        return None

    def _throw_problem(self, throw: Throw, has: set[str]) -> str | None:
        dice = throw.all_dice()
        if len(dice) != self.dice:
            return f"{self.dice} dice expected, found {len(dice)}"
        if not throw.together and "together" not in has:
            return "together: only a model with the together capability reports it"
        for n, die in enumerate(dice):
            unreported = [
                key
                for key, flag, shown in (
                    ("id", "die_ids", die.id is not None),
                    ("rest", "rest", die.rest != "table"),
                    ("lie", "cocked", die.lie != "flat"),
                    ("far_end", "far_end", not die.far_end),
                )
                if shown and flag not in has
            ]
            if unreported:
                return (
                    f"dice.{n}.{unreported[0]}: this model does not report it "
                    f"(capabilities: {', '.join(self.capabilities) or 'none'})"
                )
        return None

    def family_plan(self, step: DiceStep, state: DiceState, rng: random.Random) -> list[Action]:
        if step.dice_set is not None:
            state.dice_set = list(step.dice_set.dice)
            return [Send("SET", tuple(state.dice_set) or (NONE,))]
        if step.select is not None:
            state.selected = list(step.select.dice)
            return [Send("SEL", tuple(state.selected))]
        if step.replace is not None:
            out, new = step.replace.out, step.replace.new
            if out not in state.dice_set:
                raise ScenarioError(
                    f"replace: {out} is not in the dice set ({', '.join(state.dice_set) or 'none'})"
                )
            state.dice_set = [new if die == out else die for die in state.dice_set]
            replaced: list[Action] = [Send("SET", tuple(state.dice_set))]
            if out in state.selected:  # the shooter's die: the dice in play changed too
                state.selected = [new if die == out else die for die in state.selected]
                replaced.append(Send("SEL", tuple(state.selected)))
            return replaced
        if step.throw is not None:
            throw = step.throw
            actions: list[Action] = [Wait(throw.seconds)] if throw.seconds else []
            fields = self.throw_fields(throw.all_dice(), throw.together, state)
            return [*actions, Send("THR", fields)]
        if step.rolls is not None:
            actions = []
            for _ in range(step.rolls.count):
                if step.rolls.interval:
                    actions.append(Wait(step.rolls.interval))
                dice = [Die(face=rng.randint(1, 6)) for _ in range(self.dice)]
                actions.append(Send("THR", self.throw_fields(dice, True, state)))
            return actions
        raise ValueError(f"not a dice step: {step.kind}")

    def throw_fields(self, dice: list[Die], together: bool, state: DiceState) -> tuple[str, ...]:
        """`THR`'s fields: together, then id, face, rest, lie, far_end for each die."""
        has = set(self.capabilities)

        def shown(flag: str, value: Any) -> str:
            return str(value) if flag in has else NONE

        fields = [shown("together", yes_no(together))]
        for n, die in enumerate(dice):
            die_id = die.id if die.id is not None else state.selected[n]
            fields += [
                shown("die_ids", die_id) if die.id_read else NONE,
                NONE if die.face is None else str(die.face),
                shown("rest", die.rest),
                shown("cocked", die.lie) if die.seen else NONE,
                shown("far_end", yes_no(die.far_end)) if die.seen else NONE,
            ]
        return tuple(fields)


SIMULATOR: type[Simulator] = DiceTrackerSimulator  # mypy checks it is a Simulator
