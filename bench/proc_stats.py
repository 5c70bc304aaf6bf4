"""CPU time and memory of running processes, read from /proc (Linux), for the benches.

CPU is user + system time in seconds (`/proc/<pid>/stat` fields 14 and 15, in clock
ticks); memory is the resident set now (`VmRSS`) and its peak (`VmHWM`), in MiB, from
`/proc/<pid>/status`. A process that has gone reads as None, never as zero. A browser
is many processes: `family` finds them all below the one the bench started. `end` stops
a process a bench started, so none outlives its run, and `dies_with_bench` stops it when
the bench is killed before it could.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass

from floord_demo.child_end import ends_with_this_thread

TICKS = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Sample:
    pid: int
    cpu_s: float
    rss_mib: float
    peak_rss_mib: float


def sample(pid: int) -> Sample | None:
    """CPU seconds used so far and memory of `pid`, or None if it is not running."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            stat = handle.read()
        with open(f"/proc/{pid}/status", encoding="ascii") as handle:
            status = handle.read()
    except (FileNotFoundError, ProcessLookupError):
        return None
    # The command name (field 2) may hold spaces: split after its closing parenthesis.
    fields = stat[stat.rindex(")") + 2 :].split()
    utime, stime = int(fields[11]), int(fields[12])
    memory = {}
    for line in status.splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            memory[key] = int(value.split()[0]) / 1024.0
    return Sample(pid, (utime + stime) / TICKS, memory.get("VmRSS", 0.0), memory.get("VmHWM", 0.0))


def family(pid: int) -> list[int]:
    """`pid` and every process below it (a browser's renderers, its GPU and network
    helpers), from each process's parent in `/proc/<pid>/stat`; [] once `pid` is gone."""
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as handle:
                stat = handle.read()
        except OSError:
            continue
        parent = int(stat[stat.rindex(")") + 2 :].split()[1])
        parents.setdefault(parent, []).append(int(entry))
    if not os.path.exists(f"/proc/{pid}"):
        return []
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo += parents.get(current, [])
    return found


def waited_s(pid: int) -> float | None:
    """Seconds `pid`'s threads have spent ready to run but waiting for a core (the second
    field of each `/proc/<pid>/task/<tid>/schedstat`, in ns): on a busy machine, the part
    of a lag that was no work of the process's own. None if it is gone."""
    total = 0
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return None
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat", encoding="ascii") as handle:
                total += int(handle.read().split()[1])
        except (OSError, IndexError, ValueError):
            continue
    return total / 1e9


def machine() -> dict[str, object]:
    """What the figures were measured on: CPU model, cores, memory, load at the time."""
    model = "unknown"
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as handle:
            for line in handle:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
        with open("/proc/meminfo", encoding="ascii") as handle:
            total_kib = int(handle.readline().split()[1])
    except OSError:
        total_kib = 0
    return {
        "cpu": model,
        "cores": os.cpu_count(),
        "memory_gib": round(total_kib / 1024 / 1024, 1),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }


def end(proc: subprocess.Popen[bytes], timeout: float) -> None:
    """`proc` asked to stop (SIGTERM), killed if it has not within `timeout` s, reaped."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def dies_with_bench() -> Callable[[], None]:
    """A `preexec_fn`: the child started gets SIGTERM when the bench's thread that started
    it ends, however the bench ends (`floord_demo.child_end.ends_with_this_thread`). A
    bench killed by a signal skips its own `finally` (and `end`), and a daemon left
    running keeps reopening its pty's path: whatever is given that pty next (another
    bench's wheel, a test's simulator) would share its line with it. Only for children
    started on the bench's main thread (its event loop's): one started from a worker
    thread would be stopped when that thread ends."""
    return ends_with_this_thread()
