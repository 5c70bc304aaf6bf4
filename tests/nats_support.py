"""Test support: the three-node NATS cluster of examples/nats-cluster/ on loopback ports.

The cluster itself is in bench/nats_cluster.py (the load bench runs the same cluster);
the tests use it from here.
"""

from __future__ import annotations

from bench.nats_cluster import (
    EXAMPLE,
    HOSTS,
    NatsCluster,
    example_on_loopback,
    nats_binary,
)

__all__ = ["EXAMPLE", "HOSTS", "NatsCluster", "example_on_loopback", "nats_binary"]
