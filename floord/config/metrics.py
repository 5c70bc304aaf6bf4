"""The config's `metrics:` section: Prometheus metrics and `/healthz` (docs/metrics.md).

Absent: off. Present (even empty, `metrics: {}`): served on `listen`, a loopback
address unless `allow_remote: true` says otherwise. `floord check` refuses what `run`
would: an address that is not `HOST:PORT`, a non-loopback one not allowed, and the
section on a box without floord's `metrics` extra (`prometheus_client`).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from floord.games.table_model import StrictModel
from floord.metrics.address import DEFAULT_LISTEN, ListenError, parse_listen
from floord.system.extras import EXTRAS


class MetricsConfig(StrictModel):
    listen: str = DEFAULT_LISTEN
    # Listening on an address other hosts reach: only when said (docs/metrics.md).
    allow_remote: bool = False

    def address(self) -> tuple[str, int]:
        """(host, port) to listen on; ListenError if the section's values are unusable."""
        return parse_listen(self.listen, allow_remote=self.allow_remote)


def metrics_problems(path: Path, metrics: MetricsConfig | None) -> list[str]:
    """One `FILE: KEY: expected, found` line per thing `run` would refuse of `metrics:`."""
    if metrics is None:
        return []
    problems = []
    try:
        metrics.address()
    except ListenError as exc:
        problems.append(f"{path}: metrics.listen: {exc}")
    module = EXTRAS["metrics"]
    if importlib.util.find_spec(module) is None:
        problems.append(
            f"{path}: metrics: floord's 'metrics' extra expected ({module} is not "
            f"installed), found a metrics: section: pip install 'floord[metrics]', "
            "or remove the section"
        )
    return problems
