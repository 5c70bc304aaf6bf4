"""Where the journal's thread spends a frame: its own CPU time, part by part.

The thread's work is on the path from every frame to its event on `P/events` (the loop
hands it the turn and publishes once it hands back), and a profiler's own cost there is
larger than the parts it would show. So this runs the daemon under `bench.latency`'s
latency loop and burst (`floord_run`, a private Mosquitto) from a tree made of this
checkout's packages and a `sitecustomize` beside them, which wraps each part of an
append with `time.thread_time_ns` on the journal's thread and writes what each took when
the daemon exits. CPU time, not the wall clock, so the machine's other load moves it far
less than it moves a latency; a wrapped call costs about a microsecond more.

The parts: the transaction of a job (`Write.__call__`: BEGIN, the append, the COMMIT
with its WAL write and fsync), the append inside it (`Append.write`), each stream's rows
(`_store`), and in them each event's hash (`event_hash`), stored text (`dumps`), stored
body (`_body`) and returned envelope (`_returned`); the snapshot (`write_snapshot`), the
acknowledgements taken (`move_marks`); and the thread's whole CPU (`thread`), whose rest
is its queue, the outcome's way back to the loop and the publishers' feeds.

Run: `python -m bench.journal_parts` (`--frames 3000`: the latency loop's frames, and as
many in the burst). Prints one JSON line: each part's calls, µs a call and µs an append.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import tempfile
from pathlib import Path
from typing import Any

from bench.latency import floord_run
from bench.trees import CHECKOUT, PACKAGES
from floord_demo.broker import mosquitto_binary, private_mosquitto

# Where the daemon's `sitecustomize` writes its figures.
OUT_VARIABLE = "FLOORD_JOURNAL_PARTS"

SITECUSTOMIZE = '''\
"""bench.journal_parts: each part of an append timed on the journal's thread."""
import atexit, json, os, threading, time

_out = os.environ.get("FLOORD_JOURNAL_PARTS")
_parts = {}


def _timed(name, call):
    def timed(*args, **kwargs):
        began = time.thread_time_ns()
        try:
            return call(*args, **kwargs)
        finally:
            part = _parts.setdefault(name, [0, 0])
            part[0] += 1
            part[1] += time.thread_time_ns() - began
    return timed


def _wrap_appends():
    import floord.journal.append as append
    import floord.journal.shared_commit as shared_commit

    for name in ("event_hash", "dumps", "_body", "_returned", "write_snapshot", "move_marks",
                 "_store"):
        setattr(append, name, _timed(name, getattr(append, name)))
    shared_commit.Write.__call__ = _timed("Write.__call__", shared_commit.Write.__call__)
    append.Append.write = _timed("Append.write", append.Append.write)


if _out:
    _run = threading.Thread.run
    _journal = []

    def run(self):
        if not self.name.startswith("journal ") or _journal:
            return _run(self)
        _journal.append(self)  # the daemon's journal: the first one opened
        _wrap_appends()
        began = time.thread_time_ns()
        try:
            return _run(self)
        finally:
            _parts["thread"] = [1, time.thread_time_ns() - began]

    threading.Thread.run = run
    atexit.register(lambda: open(_out, "w").write(json.dumps(_parts)))
'''


def _tree(where: Path) -> str:
    """This checkout's packages and the `sitecustomize`, as a tree `floord_run` runs."""
    for package in PACKAGES:
        (where / package).symlink_to(CHECKOUT / package)
    (where / "sitecustomize.py").write_text(SITECUSTOMIZE)
    return str(where)


async def main(frames: int) -> dict[str, Any]:
    logging.getLogger("mqtt").setLevel(logging.ERROR)
    binary = mosquitto_binary()
    if not binary:
        raise SystemExit("bench needs mosquitto (make bench installs it)")
    with tempfile.TemporaryDirectory(prefix="floord-parts-") as tmp_dir:
        tmp = Path(tmp_dir)
        (tmp / "tree").mkdir()
        (tmp / "run").mkdir()
        out = tmp / "parts.json"
        env = {**os.environ, OUT_VARIABLE: str(out)}
        async with private_mosquitto(binary) as url:
            _, table, _, cpu = await floord_run(url, frames, tmp / "run", env, _tree(tmp / "tree"))
        if not out.exists():
            raise SystemExit("the daemon wrote no figures (did it stop cleanly?)")
        parts: dict[str, list[int]] = json.loads(out.read_text())
    # Each frame of the latency loop is one append with its own commit; the burst's
    # share a commit a few hundred at a time.
    appends = max(parts.get("Append.write", [0])[0], 1)
    return {
        "bench": "journal_parts",
        "frames": frames,
        "appends": appends,
        "events": parts.get("event_hash", [0])[0],
        "p50_ms": sorted(table)[len(table) // 2],
        "daemon_cpu_us_per_frame": cpu,
        "parts": {
            name: {
                "calls": calls,
                "us_per_call": round(ns / calls / 1e3, 1),
                "us_per_append": round(ns / appends / 1e3, 1),
            }
            for name, (calls, ns) in sorted(parts.items(), key=lambda item: -item[1][1])
        },
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=3000)
    print(json.dumps(asyncio.run(main(parser.parse_args().frames))))
