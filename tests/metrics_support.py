"""Scraping a running floord's `/metrics` and `/healthz` over real HTTP, for the tests."""

from __future__ import annotations

import asyncio
import time
import urllib.error
import urllib.request
from collections.abc import Callable

from prometheus_client.parser import text_string_to_metric_families

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def get(port: int, path: str) -> tuple[int, str]:
    """(status, body) of GET http://127.0.0.1:PORT/PATH."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as answer:
            return answer.status, answer.read().decode("utf-8")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode("utf-8")


def parse(text: str) -> Samples:
    """Every sample of an exposition, by (name, labels)."""
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float | None:
    return samples.get((name, frozenset(labels.items())))


async def scrape(port: int) -> Samples:
    status, body = await asyncio.to_thread(get, port, "/metrics")
    assert status == 200, body
    return parse(body)


async def scrape_until(
    port: int, ok: Callable[[Samples], bool], what: str, timeout: float = 30.0
) -> Samples:
    """Scrape until `ok` holds of the samples; fail naming `what` after `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            samples = await scrape(port)
        except OSError:
            samples = {}  # not listening yet
        if samples and ok(samples):
            return samples
        assert time.monotonic() < deadline, f"metrics never showed {what}"
        await asyncio.sleep(0.2)


async def health_until(port: int, status: int, timeout: float = 30.0) -> str:
    """`/healthz`'s body once it answers `status`."""
    deadline = time.monotonic() + timeout
    last: tuple[int, str] | None = None
    while time.monotonic() < deadline:
        try:
            last = await asyncio.to_thread(get, port, "/healthz")
        except OSError:
            last = None
        if last is not None and last[0] == status:
            return last[1]
        await asyncio.sleep(0.2)
    raise AssertionError(f"/healthz never answered {status}; last {last}")
