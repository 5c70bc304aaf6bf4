"""Prometheus metrics and a readiness check, served over HTTP when the config asks.

The registry and its collectors (`collectors.py`) are built only when a `metrics:`
section is configured: `prometheus_client` is an extra (`floord[metrics]`), and a box
without it, or without the section, never imports it. `address.py` reads the listen
address (config and command line alike), `readings.py` holds what a scrape reads of a
running daemon or adapter as plain values, and `server.py` serves `/metrics` and
`/healthz` on the event loop (docs/metrics.md).
"""
