"""A config's pydantic errors as one `FILE: KEY.PATH: expected, found` line each.

The shared formatter (`floord.problem_lines.validation_problems`) knows nothing of the config's
shape. Two of its errors need that shape to help an engineer in one line:
- a tagged union's tag missing or misspelled (`gmae:`, `game: roulete`): pydantic says
  "discriminator" and dumps the whole table; here it is the tag's key, the values it
  may take and what was found (an unknown key beside it is named too);
- an unknown key: the keys allowed where it stands are listed.

The shape is read from the models themselves by walking the error's location, so a new
game (a new member of the table union, however the union is built) needs nothing here.
"""

from __future__ import annotations

import types
import typing
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from floord.config.tables import ID_PATTERN, ID_WORDS
from floord.problem_lines import closest, did_you_mean, found_text, one_of, validation_problems

_TAG_ERRORS = ("union_tag_not_found", "union_tag_invalid")
# A tagged union where an error stands: its tag's key, the tag's values, its members.
_Union = tuple[str, list[str], list[type[BaseModel]]]


def config_problems(
    path: Path, exc: ValidationError, model: type[BaseModel], drop: tuple[str, ...] = ()
) -> list[str]:
    """One line per error of validating `model`; `drop` as in `validation_problems`."""
    lines = validation_problems(path, exc, drop=drop)
    out: list[str] = []
    for line, err in zip(lines, exc.errors(), strict=True):
        loc = tuple(err["loc"])
        key = ".".join(str(p) for p in loc if p not in drop)
        if err["type"] in _TAG_ERRORS:
            out.append(_tag_line(path, key, err, _union_at(model, loc)))
        elif err["type"] == "extra_forbidden":
            allowed = _fields_at(model, loc[:-1])
            meant = closest(str(loc[-1]), allowed)
            hint = f"did you mean {meant!r}? " if meant else ""
            known = f" ({hint}allowed keys: {', '.join(allowed)})"
            out.append(f"{path}: {key}: unknown key{known}" if allowed else line)
        elif err["type"] == "string_pattern_mismatch" and err["ctx"]["pattern"] == ID_PATTERN:
            out.append(f"{path}: {key}: {ID_WORDS} expected, found {found_text(err['input'])}")
        else:
            out.append(line)
    return out


def _tag_line(path: Path, key: str, err: Any, union: _Union | None) -> str:
    ctx = err.get("ctx") or {}
    tag = str(ctx.get("discriminator", "")).strip("'") or (union[0] if union else "")
    values = union[1] if union else []
    where = f"{key}.{tag}" if key else tag
    allowed = one_of(values) if values else "a known value"
    given = err.get("input")
    if err["type"] == "union_tag_invalid":
        found = ctx.get("tag")
        return f"{path}: {where}: {allowed} expected, found {found!r}{did_you_mean(found, values)}"
    found = "nothing (the key is missing)"
    if isinstance(given, dict) and union is not None:
        known = {name for m in union[2] for name in m.model_fields}
        strays = [str(k) for k in given if k not in known]
        if strays:
            found += f"; unknown key(s) {', '.join(repr(s) for s in strays)}"
    return f"{path}: {where}: {allowed} expected, found {found}"


def _strip(annotation: Any) -> tuple[Any, str | None]:
    """The type under `Annotated`, `list[...]`, `X | None`, and the discriminator an
    `Annotated[..., Field(discriminator=...)]` on the way names."""
    tag: str | None = None
    while True:
        origin = typing.get_origin(annotation)
        if origin is typing.Annotated:
            annotation, *meta = typing.get_args(annotation)
            for item in meta:
                if isinstance(getattr(item, "discriminator", None), str):
                    tag = str(item.discriminator)
        elif origin in (list, tuple):
            annotation = typing.get_args(annotation)[0]
        elif origin in (typing.Union, types.UnionType):
            args = [a for a in typing.get_args(annotation) if a is not type(None)]
            if len(args) != 1:
                return annotation, tag
            annotation = args[0]
        else:
            return annotation, tag


def _union_members(annotation: Any) -> list[type[BaseModel]]:
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        return [a for a in typing.get_args(annotation) if _is_model(a)]
    return [annotation] if _is_model(annotation) else []


def _is_model(value: Any) -> bool:
    return isinstance(value, type) and issubclass(value, BaseModel)


def _tag_values(member: type[BaseModel], tag: str) -> list[str]:
    field = member.model_fields.get(tag)
    if field is None or typing.get_origin(field.annotation) is not Literal:
        return []
    return [str(v) for v in typing.get_args(field.annotation)]


def _walk(model: type[BaseModel], loc: tuple[Any, ...]) -> tuple[Any, str | None]:
    """The annotation at `loc` under `model` and the discriminator of a tagged union
    there, or (None, None) when the location is not in the models."""
    current: Any = model
    tag: str | None = None
    for part in loc:
        if isinstance(part, int):
            continue  # a list's index: the item's type is what `_strip` already gave
        members = _union_members(current)
        if len(members) > 1:
            chosen = [m for m in members if tag and part in _tag_values(m, tag)]
            if not chosen:
                return None, None
            current, tag = chosen[0], None
            continue
        if not members or part not in members[0].model_fields:
            return None, None
        field = members[0].model_fields[part]
        current, tag = _strip(field.annotation)
        if isinstance(field.discriminator, str):
            tag = field.discriminator
    return current, tag


def _fields_at(model: type[BaseModel], loc: tuple[Any, ...]) -> list[str]:
    current, _ = _walk(model, loc)
    members = _union_members(current)
    return list(members[0].model_fields) if len(members) == 1 else []


def _union_at(model: type[BaseModel], loc: tuple[Any, ...]) -> _Union | None:
    """(tag, its allowed values, the union) for a tagged union at `loc`, or None."""
    current, tag = _walk(model, loc)
    members = _union_members(current)
    if len(members) < 2 or tag is None:
        return None
    values = [v for m in members for v in _tag_values(m, tag)]
    return (tag, values, members)
