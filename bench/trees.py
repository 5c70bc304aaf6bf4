"""Which floord a bench's daemon runs: the installed one, or another source tree's.

The benches that compare two commits (`bench.latency --compare-tree`, `bench.load_tables
--compare-tree`, `bench.startup --tree`) run each commit's daemon from its own source
tree, interleaved with the installed floord's in one run on one broker; this module is
the one place that turns a tree into the interpreter and environment that run it.

A tree is a `git archive <commit> floord drivers simulators device_profiles systemd`
unpacked into a folder (run with this interpreter, `PYTHONPATH=TREE`), or a worktree with
a venv of its own (`TREE/.venv/bin/python`, which imports its editable floord).

A daemon run from a tree must not have a checkout as its working directory: `python -m
floord` puts that directory first on `sys.path`, ahead of `PYTHONPATH`, and would import
the checkout's floord instead of the tree's. Each bench starts its daemons in a folder of
their own.

`bench.startup` runs a daemon with the environment its box's unit gives it
(`unit_environment`): what `systemd/floord.service` sets with `Environment=` changes what a
box's daemon loads, so a bench of its memory that left it out would measure a process no
box runs.
"""

from __future__ import annotations

import compileall
import os
import shlex
import sys
from pathlib import Path
from typing import Any

# The name a report gives the installed floord among the trees.
INSTALLED = "installed"
# The packages of a tree that `python -m floord` imports from it.
PACKAGES = ("floord", "drivers", "simulators")
# The daemon's unit, in a tree and in this checkout.
UNIT = Path("systemd") / "floord.service"
CHECKOUT = Path(__file__).resolve().parent.parent


def unit_environment(tree: str | None) -> dict[str, str]:
    """The variables the daemon's unit sets (`Environment=` in its [Service] section,
    each line's assignments split as systemd splits them): the tree's own unit
    (`TREE/systemd/floord.service`), or this checkout's for the installed floord and for
    a tree without one (an archive made without `systemd`)."""
    unit = Path(tree) / UNIT if tree is not None else CHECKOUT / UNIT
    if not unit.is_file():
        unit = CHECKOUT / UNIT
    section = None
    env: dict[str, str] = {}
    for raw in unit.read_text().splitlines():
        line = raw.strip()
        if line.startswith("["):
            section = line
        elif section == "[Service]" and line.startswith("Environment="):
            for word in shlex.split(line.partition("=")[2]):
                key, _, value = word.partition("=")
                env[key] = value
    return env


def tree_command(tree: str | None, env: dict[str, str] | None) -> tuple[str, dict[str, str]]:
    """The interpreter and environment that run `python -m floord` from `tree`: the
    installed floord when None; else the tree's own venv (`TREE/.venv/bin/python`) when it
    has one, or this interpreter with `PYTHONPATH=TREE`."""
    env = dict(env if env is not None else os.environ)
    env.pop("PYTHONPATH", None)
    if tree is None:
        return sys.executable, env
    own = Path(tree) / ".venv" / "bin" / "python"
    if own.exists():
        return str(own), env
    env["PYTHONPATH"] = tree
    return sys.executable, env


def byte_compile(tree: str | None) -> None:
    """Write the bytecode of the tree's packages (the installed floord's when None), as
    the `.deb` does when it is built (scripts/build-deb.sh runs compileall): a box never
    compiles floord from source at start, so a bench of its start must not either. An
    environment with `PYTHONDONTWRITEBYTECODE` set would otherwise compile every module
    of floord at each start and time that too."""
    if tree is None:
        import floord

        root = Path(floord.__file__).resolve().parent.parent
    else:
        root = Path(tree)
    for package in PACKAGES:
        if (root / package).is_dir():
            compileall.compile_dir(root / package, quiet=1, workers=0)


def pids_by_tree(daemons: list[Any], trees: list[tuple[str, int]]) -> dict[str, list[int]]:
    """The daemons' pids by the tree each runs (`trees`: its name and its tables), as
    groups of processes to measure, `tree:<name>`."""
    groups: dict[str, list[int]] = {}
    for proc, (tree, _) in zip(daemons, trees, strict=True):
        groups.setdefault(f"tree:{tree}", []).append(proc.pid)
    return groups


def by_tree(
    trees: list[tuple[str, int]], elapsed: float, before: dict[str, Any], after: dict[str, Any]
) -> dict[str, dict[str, Any]]:
    """Each tree's daemons over one window, from the (CPU seconds, RSS MiB) of their
    `pids_by_tree` group before and after it: CPU (% of a core) and RSS, a table."""
    tables: dict[str, int] = {}
    for tree, count in trees:
        tables[tree] = tables.get(tree, 0) + count
    out = {}
    for tree, count in tables.items():
        key = f"tree:{tree}"
        cpu = 100.0 * (after[key][0] - before[key][0]) / elapsed
        out[tree] = {
            "tables": count,
            "cpu_percent_per_table": round(cpu / count, 4),
            "rss_mib_per_table": round(after[key][1] / count, 2),
        }
    return out
