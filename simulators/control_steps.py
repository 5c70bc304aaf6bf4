"""How a control line becomes a scenario step: the command forms and the vocabulary.

`floord sim --control` (simulators/control.py) takes one step per line in the
simulator's own scenario vocabulary. This module reads the line's form (a YAML/JSON flow
mapping, a scenario step line, `kind k=v ...`, `kind VALUE`, a bare `kind`) into a
`{kind: value}` mapping and validates it with the simulator's scenario model, the same
checks and messages as a scenario file's step. It also describes the vocabulary for
`help`, from the step model itself, so the two cannot drift apart.
"""

from __future__ import annotations

import re
import typing
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from floord.problem_lines import validation_problems
from simulators.flf1.card_scenarios import CardScenario
from simulators.scenario import Scenario

_PAIR = re.compile(r"""(\w+)=("(?:[^"\\]|\\.)*"|'[^']*'|\S+)""")


class ControlError(ValueError):
    """A control address or command that cannot be used; the message says why."""


# ----- the vocabulary ------------------------------------------------------------------


def _value_type(annotation: Any) -> Any:
    """The type a step key holds: `X | None` and `Annotated[X, ...]` unwrapped."""
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    inner = args[0] if typing.get_origin(annotation) in (typing.Union, _UnionType) else annotation
    if typing.get_origin(inner) is typing.Annotated:
        inner = typing.get_args(inner)[0]
    return inner


_UnionType = type(int | None)


def describe(kind: str, annotation: Any) -> str:
    inner = _value_type(annotation)
    if isinstance(inner, type) and issubclass(inner, BaseModel):
        keys = [k if f.is_required() else f"{k}?" for k, f in inner.model_fields.items()]
        return f"{kind} {{{', '.join(keys)}}}"
    if typing.get_origin(inner) is typing.Literal:
        values = typing.get_args(inner)
        if values == (True,):
            return kind
        return f"{kind} {'|'.join(str(v) for v in values)}"
    names = {float: "SECONDS", int: "N", str: "TEXT"}
    return f"{kind} {names.get(inner, getattr(inner, '__name__', 'VALUE'))}"


def _bare_value(annotation: Any) -> Any:
    """What a step named alone means: true for a flag, {} for keys that all have defaults."""
    inner = _value_type(annotation)
    if typing.get_origin(inner) is typing.Literal and typing.get_args(inner) == (True,):
        return True
    if not (isinstance(inner, type) and issubclass(inner, BaseModel)):
        return None
    return None if any(f.is_required() for f in inner.model_fields.values()) else {}


def _takes_code(annotation: Any) -> bool:
    inner = _value_type(annotation)
    return isinstance(inner, type) and issubclass(inner, BaseModel) and "code" in inner.model_fields


def _yaml_value(text: str) -> Any:
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        # Only a marked error (a syntax error) has a `problem`; a character YAML does not
        # read (a control byte) is a ReaderError, which says what it is in its text.
        problem = exc.problem if isinstance(exc, yaml.MarkedYAMLError) else str(exc)
        raise ControlError(f"readable YAML expected, found {text!r} ({problem})") from exc


def read_command(line: str, step_fields: dict[str, Any]) -> dict[str, Any]:
    """One command line as a scenario step mapping `{kind: value}` (not yet validated)."""
    head, _, rest = line.partition(" ")
    rest = rest.strip()
    if line.startswith("{") or head.endswith(":"):
        mapping = _yaml_value(line)
        if not isinstance(mapping, dict) or len(mapping) != 1:
            raise ControlError(f"one step (a mapping with one key) expected, found {line!r}")
        kind = next(iter(mapping))
        value = mapping[kind]
    else:
        kind = head
        if not rest:
            value = _bare_value(step_fields[kind].annotation) if kind in step_fields else None
        elif _PAIR.fullmatch(rest.split()[0]) and _PAIR.sub("", rest).strip() == "":
            value = {key: _yaml_value(text) for key, text in _PAIR.findall(rest)}
        else:
            value = _yaml_value(rest)
            known = kind in step_fields
            if known and isinstance(value, int) and _takes_code(step_fields[kind].annotation):
                value = {"code": value}
    if kind not in step_fields:
        raise ControlError(f"unknown step {kind!r}: one of {', '.join(step_fields)} expected")
    return {kind: value}


def step_fields(scenario_model: type[BaseModel]) -> dict[str, Any]:
    """The step keys of a scenario model (`steps: list[<Step>]`), in the model's order."""
    (step_model,) = typing.get_args(scenario_model.model_fields["steps"].annotation)
    return dict(step_model.model_fields)


def validate_step(
    model: type[Scenario] | type[CardScenario], context: dict[str, Any], step: dict[str, Any]
) -> Any:
    """Check one step with the simulator's scenario model (the scenario file's own checks)."""
    try:
        scenario = model.model_validate({**context, "steps": [step]})
    except ValidationError as exc:
        lines = validation_problems(Path("step"), exc)
        raise ControlError("; ".join(line.replace("step: steps.0.", "") for line in lines)) from exc
    return scenario.steps[0]
