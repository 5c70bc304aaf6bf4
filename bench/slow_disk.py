"""The bench's slow disk: an LD_PRELOAD shim that makes every fsync take N ms.

A table box writes its journal to eMMC or an SD card, where a commit costs milliseconds
to tens of them; the build machine's disk does not show that. `shim_env(ms, tmp)`
compiles `bench/slow_fsync.c` with `cc` into `tmp` and returns the environment that
loads it into a child process (the daemon only: the baseline does not fsync), or None
when there is no C compiler here (the bench then says so and measures without it).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

SOURCE = Path(__file__).with_name("slow_fsync.c")


def shim_env(ms: float, tmp: Path) -> dict[str, str] | None:
    """The environment of a process whose fsyncs take `ms` more; None without cc."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        return None
    library = tmp / "slow_fsync.so"
    subprocess.run(
        [cc, "-shared", "-fPIC", "-O2", "-o", str(library), str(SOURCE), "-ldl"],
        check=True,
        capture_output=True,
    )
    env = dict(os.environ)
    env["LD_PRELOAD"] = str(library)
    env["FLOORD_BENCH_FSYNC_US"] = str(round(ms * 1000))
    return env
