"""CPU time and memory of running processes, read from /proc (Linux), for the benches.

CPU is user + system time in seconds (`/proc/<pid>/stat` fields 14 and 15, in clock
ticks); memory is the resident set now (`VmRSS`) and its peak (`VmHWM`), in MiB, from
`/proc/<pid>/status`. A process that has gone reads as None, never as zero.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass

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


def stop_process(proc: subprocess.Popen[bytes], timeout: float) -> None:
    """Stop `proc` (SIGTERM, then SIGKILL after `timeout` s) and reap it."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
