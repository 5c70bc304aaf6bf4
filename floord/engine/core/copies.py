"""Deep copies of a table's live state that share what never changes once built.

The table's runner keeps a deep copy of the committed state after every commit, to put
back should the journal refuse the next one (`floord.table.engine_state`). Much of what an
engine or a watcher holds is built once and never changed: a wheel's pocket order, a
test's cells, a game's checklist, the gaming day's time zone. Copying those on every
commit would be most of the copy's cost, so they are shared instead:

- `Fixed`: a value that never changes after it is built; a deep copy is the value itself.
- `copy_sharing`: a deep copy of an object whose named attributes are shared; every
  other attribute is deep-copied, so one added later is copied until named here.

What is left is copied by `deep_copy`, which gives what `copy.deepcopy` gives (the same
types, values and sharing: an object reached twice is copied once) at about half its cost:
`copy.deepcopy` makes a Python call for every string, number and dictionary key, and
that call, not the data, is most of the rest. `deep_copy` copies dicts,
lists, tuples and plain objects (a class of ours with a `__dict__` and no copy or pickle
hooks of its own) itself, looking at the values in them without a call, and hands
anything else to `copy.deepcopy` with the same memo.
"""

from __future__ import annotations

import copy
import copyreg
import enum
import types
import weakref
from typing import Any, TypeVar

T = TypeVar("T")


class Fixed:
    """Never changed after it is built, so a deep copy shares it."""

    __slots__ = ()

    def __deepcopy__(self, memo: dict[int, Any]) -> Any:
        return self


def copy_sharing(obj: T, memo: dict[int, Any], shared: frozenset[str]) -> T:
    """A deep copy of `obj` (an object with a `__dict__`), the attributes in `shared`
    the very same objects; `memo` as `copy.deepcopy` hands it to `__deepcopy__`."""
    clone = object.__new__(type(obj))
    memo[id(obj)] = clone
    state = clone.__dict__
    for name, value in vars(obj).items():
        state[name] = value if name in shared else _copy(value, memo)
    return clone


def deep_copy(value: T) -> T:
    """`copy.deepcopy(value)`, faster (see the module docstring)."""
    copied: T = _copy(value, {})
    return copied


# The values a deep copy returns as they are, looked at inline (the commonest ones).
_ATOMS = frozenset({str, int, bool, float, type(None)})
# What `copy.deepcopy` returns as it is, with no memo entry: as in `copy`'s own table.
_KEPT = _ATOMS | {
    bytes,
    complex,
    range,
    property,
    weakref.ref,
    types.FunctionType,
    types.BuiltinFunctionType,
    types.CodeType,
    type(Ellipsis),
    type(NotImplemented),
}
# The `__deepcopy__` hooks that return the object itself: a Fixed value's. (An enum
# member is shared too, below: `copy.deepcopy` returns the member itself, by its own
# `__deepcopy__` where the Python has one, by `__reduce_ex__` and the member's value on
# one without, such as Debian 12's 3.11.2, which the package runs on.)
_RETURNS_ITSELF = (Fixed.__deepcopy__,)
_SHARE, _PLAIN, _OTHER = 0, 1, 2
_HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made by a class statement
_kinds: dict[type, int] = {}


def _kind(cls: type) -> int:
    """How `_copy` copies an instance of `cls`: shared, as a plain object, or by
    `copy.deepcopy`. Plain: nothing but its `__dict__` is copied, as `copy.deepcopy`'s
    default (`__reduce_ex__(4)`, then the state) would; any hook sends it there instead."""
    kind = _kinds.get(cls)
    if kind is not None:
        return kind
    hook = getattr(cls, "__deepcopy__", None)
    if cls in _KEPT or issubclass(cls, type | enum.Enum) or hook in _RETURNS_ITSELF:
        kind = _SHARE  # `copy.deepcopy` returns these very objects too
    elif (
        hook is None
        and cls not in copyreg.dispatch_table
        and all(c is object or c.__flags__ & _HEAP_TYPE for c in cls.__mro__)
        and not any(vars(c).get("__slots__") for c in cls.__mro__)
        and cls.__reduce_ex__ is object.__reduce_ex__
        and cls.__reduce__ is object.__reduce__
        and getattr(cls, "__getstate__", object.__getstate__) is object.__getstate__
        and not hasattr(cls, "__setstate__")
        and cls.__new__ is object.__new__
    ):
        kind = _PLAIN
    else:
        kind = _OTHER
    _kinds[cls] = kind
    return kind


def _copy(x: Any, memo: dict[int, Any]) -> Any:
    """`copy.deepcopy(x, memo)`: the same copy, the same memo entries for what it copies."""
    cls = type(x)
    if cls in _ATOMS:
        return x
    y = memo.get(id(x), memo)
    if y is not memo:
        return y
    if cls is dict:
        y = {}
        memo[id(x)] = y
        for k, v in x.items():
            y[k if type(k) in _ATOMS else _copy(k, memo)] = (
                v if type(v) in _ATOMS else _copy(v, memo)
            )
    elif cls is list:
        y = []
        memo[id(x)] = y
        y.extend([v if type(v) in _ATOMS else _copy(v, memo) for v in x])
    elif cls is tuple:
        items = [v if type(v) in _ATOMS else _copy(v, memo) for v in x]
        y = memo.get(id(x), memo)  # the tuple was reached again through its items
        if y is not memo:
            return y
        if all(a is b for a, b in zip(x, items, strict=True)):
            return x  # nothing in it was copied: the tuple itself, as `copy.deepcopy`
        y = tuple(items)
        memo[id(x)] = y
    else:
        kind = _kind(cls)
        if kind == _SHARE:
            return x
        if kind == _OTHER:
            return copy.deepcopy(x, memo)
        y = object.__new__(cls)
        memo[id(x)] = y
        if x.__dict__:
            y.__dict__.update(_copy(x.__dict__, memo))
    # Kept alive while the memo is, as `copy.deepcopy` does: its id must not be reused.
    memo.setdefault(id(memo), []).append(x)
    return y
