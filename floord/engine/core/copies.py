"""Deep copies of a table's live state that share what never changes once built.

The table's runner keeps a deep copy of the committed state after every commit, to put
back should the journal refuse the next one (`floord.table.recording`). Much of what an
engine or a watcher holds is built once and never changed: a wheel's pocket order, a
test's cells, a game's checklist, the gaming day's time zone. Copying those on every
commit was most of the copy's cost (issue 15), so they are shared instead:

- `Fixed`: a value that never changes after it is built; a deep copy is the value itself.
- `copy_sharing`: a deep copy of an object whose named attributes are shared; every
  other attribute is deep-copied, so one added later is copied until named here.
"""

from __future__ import annotations

import copy
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
        state[name] = value if name in shared else copy.deepcopy(value, memo)
    return clone
