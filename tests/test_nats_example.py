"""The example broker cluster (examples/nats-cluster/) is a valid nats-server config, and
what docs/deployment.md says it gives is what the files set.

tests/test_e2e_cluster.py runs these files (moved to loopback ports); this checks each
file as an operator would before starting a node (`nats-server -t -c FILE`), and the
settings the deployment notes rely on.
"""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path

import pytest
from nats_support import (
    EXAMPLE,
    HOSTS,
    NatsCluster,
    example_on_loopback,
    nats_binary,
    requires_nats,
)

pytestmark = [pytest.mark.system, requires_nats]
NODES = sorted(EXAMPLE.glob("node*.conf"))


def _check(path: Path) -> subprocess.CompletedProcess[str]:
    binary = nats_binary()
    assert binary is not None
    return subprocess.run(
        [binary, "-t", "-c", str(path)], capture_output=True, text=True, timeout=30
    )


@pytest.mark.parametrize("node", NODES, ids=[n.name for n in NODES])
def test_each_example_node_passes_the_config_check(node: Path) -> None:
    checked = _check(node)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "is valid" in checked.stdout + checked.stderr


def test_the_check_refuses_a_wrong_key(tmp_path: Path) -> None:
    """`nats-server -t` reads the keys (so the check above means something)."""
    wrong = tmp_path / "wrong.conf"
    wrong.write_text(NODES[0].read_text().replace("stream_replicas", "stream_replica"))
    checked = _check(wrong)
    assert checked.returncode != 0 and "unknown field" in checked.stdout + checked.stderr


def test_the_nodes_differ_only_in_name_and_address_and_keep_what_the_floor_needs() -> None:
    assert len(NODES) == len(HOSTS) == 3
    texts = [n.read_text() for n in NODES]
    for i, text in enumerate(texts):
        settings = "\n".join(line.split("#", 1)[0] for line in text.splitlines())
        assert f"server_name: floor-nats-{i + 1}" in settings  # MQTT needs one
        assert "jetstream {" in settings and "mqtt {" in settings
        # Retained messages and sessions (and the sessions' consumers) on every node.
        assert "stream_replicas: 3" in settings and "consumer_replicas: 3" in settings
        # floord watch's 7 subscriptions must fit NATS's 65535 per session.
        pending = int(settings.split("max_ack_pending:", 1)[1].split()[0])
        assert 7 * pending <= 65535
        for host in HOSTS:
            assert f"nats-route://{host}:6222" in settings
        assert _generic(text, i) == _generic(texts[0], 0), f"{NODES[i].name} differs"


def _generic(text: str, i: int) -> str:
    """A node's file with its own name, number and address taken out."""
    for own, placeholder in (
        (f"floor-nats-{i + 1}", "NAME"),
        (f"node {i + 1} of 3", "node N of 3"),
        (f"node{i + 1}.conf", "nodeN.conf"),
        (f"listen: {HOSTS[i]}:", "listen: HOST:"),
        (f"({HOSTS[i]})", "(HOST)"),
    ):
        text = text.replace(own, placeholder)
    return text


def test_the_loopback_copy_is_still_a_valid_config(tmp_path: Path) -> None:
    ports = [{"client": 14222 + i, "route": 16222 + i, "mqtt": 11883 + i} for i in range(3)]
    copy = tmp_path / "node1.conf"
    copy.write_text(example_on_loopback(NODES[0].read_text(), ports, tmp_path / "store"))
    checked = _check(copy)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_a_node_that_cannot_take_its_port_says_so_at_once(tmp_path: Path) -> None:
    """A start that fails names the node, that it exited and what its log said, without
    waiting out the start's 20 s: the cluster tests' failures explain themselves."""
    cluster = NatsCluster(tmp_path)
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", cluster.ports[0]["mqtt"]))  # bound, not listening
        started = time.monotonic()
        try:
            with pytest.raises(TimeoutError) as failed:
                cluster.start(0)
        finally:
            cluster.close()
    assert time.monotonic() - started < 10
    said = str(failed.value)
    assert said.startswith("node 1: port ") and "exited" in said, said
    assert "address already in use" in said.lower(), said
