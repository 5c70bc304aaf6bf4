"""What every simulated card device does around its own messages: power-on, steps, faults.

A family (reader, shoe, shuffler) turns each of its scenario steps into a short plan of
actions (send a frame, wait, go quiet, ...) and answers `TST`; this base class plays the
plans on a `FrameChannel` and handles the steps every family shares. Plans are pure
functions of the step and the device's state, so the constructor can dry-run the whole
scenario against the profile before anything is sent: a scenario the model cannot play
(a code outside its tables, a frame over `max_frame_length`) is refused up front with the
step's index, never discovered halfway through a test.

Choices where the pages are silent:
- `IDN` is sent at power-on and on `IDQ` only (not on a reconnect: the host asks).
- `clear` of a code that was never raised is sent all the same: a scenario may want to
  show the host an `FLC` out of the blue.
- Without a scenario the device idles for ever, beating and answering.
"""

from __future__ import annotations

import asyncio
import copy
import random
from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from floord.profiles import DeviceProfile
from simulators.flf1.card_scenarios import CardScenario, CardStep, load_card_scenario
from simulators.flf1.framed import FrameChannel, LinkQuirks
from simulators.flf1.wire import HostFrame, encode_frame, field_problem
from simulators.link import Link
from simulators.scenario import ScenarioError

Fields = tuple[str, ...]
Reply = tuple[str, Fields]


@dataclass(frozen=True)
class Send:
    kind: str
    fields: Fields


@dataclass(frozen=True)
class Wait:
    seconds: float


@dataclass(frozen=True)
class Quiet:
    seconds: float


@dataclass(frozen=True)
class Unplug:
    seconds: float


@dataclass(frozen=True)
class DropAcks:
    count: int


@dataclass(frozen=True)
class Garble:
    pass


@dataclass(frozen=True)
class Raw:
    data: bytes


Action = Send | Wait | Quiet | Unplug | DropAcks | Garble | Raw


@dataclass
class DeviceState:
    """What a device remembers between steps; families subclass it."""

    faults: dict[int, str] = field(default_factory=dict)  # raised, not cleared


def quirk_flag(profile: DeviceProfile, key: str) -> bool:
    """A yes/no quirk (false when absent); anything but a boolean is a profile error."""
    value = profile.quirks.get(key, False)
    if not isinstance(value, bool):
        raise ValueError(
            f"profile {profile.model}: quirks.{key}: true or false expected, found {value!r}"
        )
    return value


def code_table(profile: DeviceProfile, key: str, default: dict[int, str]) -> dict[int, str]:
    """A profile's `quirks.<key>` (a mapping code: text, or a list of codes) or `default`."""
    value = profile.quirks.get(key)
    if value is None:
        return dict(default)
    where = f"profile {profile.model}: quirks.{key}"
    items = value.items() if isinstance(value, dict) else ((c, None) for c in value)
    if not isinstance(value, dict | list):
        raise ValueError(f"{where}: a mapping of code to text or a list expected, found {value!r}")
    table: dict[int, str] = {}
    for code, text in items:
        number = int(code) if isinstance(code, str) and code.isdigit() else code
        if not isinstance(number, int) or isinstance(number, bool) or number < 0:
            raise ValueError(f"{where}: codes are integers >= 0, found {code!r}")
        if text is not None and not isinstance(text, str):
            raise ValueError(f"{where}: {code}: a text expected, found {text!r}")
        table[number] = text or default.get(number) or f"code {number}"
    return table


class CardDevice(ABC):
    """A simulated FLF/1 card device playing a scenario on a link."""

    FAMILY: ClassVar[str]
    SCENARIO: ClassVar[type[CardScenario]]
    DEFAULT_IDENTITY: ClassVar[tuple[str, str]]  # serial, firmware
    FAULTS: ClassVar[dict[int, str]]
    TAMPERS: ClassVar[dict[int, str]]

    def __init__(
        self, profile: DeviceProfile, scenario: CardScenario | None = None, *, speed: float = 1.0
    ) -> None:
        if not speed > 0:
            raise ValueError(f"speed > 0 expected, found {speed}")
        if profile.family != self.FAMILY:
            raise ValueError(
                f"profile {profile.model}: family {self.FAMILY} expected, found {profile.family}"
            )
        if scenario is not None and not isinstance(scenario, self.SCENARIO):
            raise ValueError(
                f"a {self.SCENARIO.__name__} expected, found {type(scenario).__name__}"
            )
        self.profile = profile
        self.speed = speed
        self.quirks = LinkQuirks.of(profile)
        self.faults = code_table(profile, "fault_codes", self.FAULTS)
        self.tampers = code_table(profile, "tamper_codes", self.TAMPERS)
        self.capabilities = self.capability_words()
        self.scenario = (
            scenario
            if scenario is not None
            else self.SCENARIO.model_validate({"loop": True, "steps": [{"idle": 60.0}]})
        )
        self.state = self.new_state()
        self.channel: FrameChannel | None = None
        self._check_scenario()
        self.rng = random.Random(self.scenario.seed)

    @classmethod
    def load_scenario(cls, path: str | Path) -> CardScenario:
        """This family's scenario file, strictly (what `floord sim --scenario` needs)."""
        return load_card_scenario(path, cls.SCENARIO)

    # ----- what a family provides ------------------------------------------------------

    @abstractmethod
    def capability_words(self) -> list[str]:
        """The words of `IDN`'s capabilities field, from the profile's quirks."""

    def new_state(self) -> DeviceState:
        return DeviceState()

    def family_problem(self, step: Any) -> str | None:
        """Why this model cannot play `step` (a family's own keys), or None."""
        return None

    @abstractmethod
    def family_plan(self, step: Any, state: Any, rng: random.Random) -> list[Action]:
        """The actions of one of the family's own steps; updates `state`."""

    def power_on_plan(self, steps: list[Any], state: Any) -> tuple[list[Action], int]:
        """Frames after `IDN` at power-on, and how many leading steps they used up."""
        return [], 0

    def answer_test(self, state: Any) -> list[Reply]:
        """The answer to `TST` (`framing.md`: every family answers with `TSR`): a failure
        naming the latest fault raised and not cleared, else a pass."""
        if state.faults:
            code, text = list(state.faults.items())[-1]
            return [("TSR", ("F", str(code), text))]
        return [("TSR", ("P", "0", "ok"))]

    # ----- identity and checks ---------------------------------------------------------

    def identity_fields(self) -> Fields:
        ident = self.scenario.identity
        serial, firmware = (ident.serial, ident.firmware) if ident else self.DEFAULT_IDENTITY
        words = ",".join(self.capabilities) or "-"
        return (self.profile.maker, self.profile.model, serial, firmware, words)

    def code_problem(self, code: int, table: dict[int, str], what: str) -> str | None:
        if code in table:
            return None
        known = ", ".join(str(c) for c in sorted(table))
        return f"code: one of the profile's {what} codes ({known}) expected, found {code}"

    def step_problem(self, step: CardStep) -> str | None:
        """Why this model cannot play `step` (a code outside its tables...), or None."""
        if step.fault is not None:
            return self.code_problem(step.fault.code, self.faults, "fault")
        if step.clear is not None:
            return self.code_problem(step.clear.code, self.faults, "fault")
        if step.tamper is not None:
            return self.code_problem(step.tamper.code, self.tampers, "tamper")
        return self.family_problem(step)

    def check_frame(self, kind: str, fields: Fields, where: str) -> None:
        """Refuse (ScenarioError) a frame the device could not send: bad fields, or too
        long for the profile's framing."""
        for text in fields:
            problem = field_problem(text)
            if problem:
                raise ScenarioError(f"{where}: {kind}: {problem}")
        length = len(encode_frame(0, kind, fields, self.quirks.checksum))
        if length > self.quirks.max_frame_length:
            raise ScenarioError(
                f"{where}: {kind} frame of {length} bytes, over the profile's "
                f"max_frame_length {self.quirks.max_frame_length}"
            )

    def _check_scenario(self) -> None:
        """Dry-run every plan on a copy of the state: refuse what this model cannot send."""
        self.check_frame("IDN", self.identity_fields(), "identity")
        steps = list(self.scenario.steps)
        state = copy.deepcopy(self.state)
        rng = random.Random(self.scenario.seed)
        start_actions, _used = self.power_on_plan(steps, state)
        for action in start_actions:
            if isinstance(action, Send):
                self.check_frame(action.kind, action.fields, "power-on")
        for kind, fields in self.answer_test(state):
            self.check_frame(kind, fields, "the answer to TST")
        for index, step in enumerate(steps):
            where = f"scenario steps.{index}.{step.kind}"
            problem = self.step_problem(step)
            if problem:
                raise ScenarioError(f"{where}: {problem}")
            for action in self.plan(step, state, rng):
                if isinstance(action, Send):
                    self.check_frame(action.kind, action.fields, where)
            for kind, fields in self.answer_test(state):
                self.check_frame(kind, fields, f"{where}: then the answer to TST")

    # ----- plans -----------------------------------------------------------------------

    def plan(self, step: CardStep, state: DeviceState, rng: random.Random) -> list[Action]:
        """The actions of one step; updates `state` (the live one, or a dry-run copy)."""
        if step.idle is not None:
            return [Wait(step.idle)]
        if step.fault is not None:
            text = step.fault.text or self.faults[step.fault.code]
            state.faults[step.fault.code] = text
            return [Send("FLT", (str(step.fault.code), text))]
        if step.clear is not None:
            state.faults.pop(step.clear.code, None)
            return [Send("FLC", (str(step.clear.code),))]
        if step.tamper is not None:
            text = step.tamper.text or self.tampers[step.tamper.code]
            return [Send("TMP", (str(step.tamper.code), text))]
        if step.silence is not None:
            return [Quiet(step.silence)]
        if step.disconnect is not None:
            return [Unplug(step.disconnect)]
        if step.drop_acks is not None:
            return [DropAcks(step.drop_acks)]
        if step.garble is not None:
            return [Garble()]
        if step.raw is not None:
            return [Raw(step.raw.encode("latin-1"))]
        return self.family_plan(step, state, rng)

    # ----- running ---------------------------------------------------------------------

    def _answer(self, frame: HostFrame) -> list[Reply]:
        if frame.kind == "IDQ":
            return [("IDN", self.identity_fields())]
        return self.answer_test(self.state)

    async def perform(self, channel: FrameChannel, action: Action) -> None:
        """Carry out one planned action on the link: send a frame, or wait."""
        if isinstance(action, Send):
            channel.send(action.kind, action.fields)
        elif isinstance(action, Wait):
            await asyncio.sleep(action.seconds / self.speed)
        elif isinstance(action, Quiet):
            await channel.quiet(action.seconds)
        elif isinstance(action, Unplug):
            await channel.unplug(action.seconds)
        elif isinstance(action, DropAcks):
            channel.drop_acks(action.count)
        elif isinstance(action, Garble):
            channel.garble_next()
        else:
            channel.send_raw(action.data)

    def _passes(self, steps: list[Any], used: int) -> Iterator[Any]:
        yield from steps[used:]
        while self.scenario.loop:
            yield from steps

    async def run(self, link: Link) -> None:
        """Power on, play the scenario, let the last frames be acknowledged, and return.

        A looping scenario (and no scenario at all) runs until the task is cancelled.
        """
        channel = FrameChannel(link, self.quirks, self.speed, self._answer)
        self.channel = channel
        channel.start()
        try:
            if self.scenario.power_on_quiet > 0:
                await channel.quiet(self.scenario.power_on_quiet)
            channel.send("IDN", self.identity_fields())
            steps = list(self.scenario.steps)
            actions, used = self.power_on_plan(steps, self.state)
            for action in actions:
                await self.perform(channel, action)
            for step in self._passes(steps, used):
                for action in self.plan(step, self.state, self.rng):
                    await self.perform(channel, action)
            await channel.drain()
        finally:
            await channel.close()
