"""What a process builds to start lives as long as it does: kept out of the collector's way.

Starting `floord run` leaves some 45,000 objects the garbage collector tracks, nearly all
of which stay until it stops: the modules, pydantic's validators, the config, the
profiles, each table's engine, runner and link. CPython's cyclic collector walks all of
them in each of its full passes, and play starts one whenever the objects moved to the
oldest generation since the last reach a quarter of those it holds (every few seconds
under a burst of frames). Each took 25 to 35 ms for one table on the build VM and 60 to
90 ms in a daemon of 50: a stall of every table the loop serves, in the middle of play.
`settle()` freezes them (`gc.freeze`: left out of every later pass; reference counting
still frees each one that goes), so a full pass under play walks only what play made:
2 to 3 ms for one table. docs/benchmarks.md, "The start's objects frozen", has the
figures; the ready line (`floord ready`, `adapter ready`) says how many were frozen
(`objects_frozen`).

It freezes without a collection first: at that moment only about fifty of the tracked
objects are garbage (measured on `floord run` and `bench.startup`'s 8 tables), and
keeping those few kilobytes for the process's life costs less than a full pass (12 to
13 ms) at the moment its devices start to speak.
"""

from __future__ import annotations

import gc


def settle() -> int:
    """Freeze every object the collector tracks now; how many are frozen in all."""
    gc.freeze()
    return gc.get_freeze_count()
