"""A model only the site directory holds, simulated and captured as a rig would: `floord
sim` plays it on a pty (`--profiles DIR`), and `floord capture` on that pty takes the
site profile's serial settings (`-c CONFIG`, the config's `site_profiles`), as `floord
run` would. A site directory the user may not read is refused in one line, not passed
over. The lookups' other refusals are in tests/test_sim_profile_sources.py.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from e2e_support import Process

from floord.cli.main import main
from floord.profiles import PROFILES_DIR
from floord.tools.capture import read_capture

pytestmark = pytest.mark.system

NEW = "site-reader"
BAUD = 38400  # the packaged reader's is 19200


def test_a_site_model_is_simulated_and_captured_with_its_settings(tmp_path: Path) -> None:
    site = tmp_path / "profiles"
    site.mkdir()
    body = yaml.safe_load((PROFILES_DIR / "ref-card-reader.yaml").read_text())
    body["model"] = NEW
    body["serial"]["baudrate"] = BAUD
    (site / f"{NEW}.yaml").write_text(yaml.safe_dump(body))
    config = tmp_path / "floord.yaml"
    config.write_text(yaml.safe_dump({"site_profiles": "profiles"}))

    sim = Process(["sim", NEW, "--pty", "--profiles", str(site)])
    try:
        assert sim.proc.stdout is not None
        line = sim.proc.stdout.readline().decode().strip()
        assert line.startswith("pty: "), (line, sim.stderr_tail())
        pty = sim.alias(tmp_path, line.removeprefix("pty: "))
        out = tmp_path / "capture.jsonl"
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "floord",
                "capture",
                "--port",
                pty,
                "--profile",
                NEW,
                "-c",
                str(config),
                "--seconds",
                "1.5",
                "--out",
                str(out),
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
    finally:
        assert sim.terminate() == 0, sim.stderr_tail()
    head, chunks = read_capture(out)
    assert (head["profile"], head["baud"]) == (NEW, BAUD)
    # The simulator identifies as the site's model: it was built from the site's file.
    assert f"|IDN|floord reference|{NEW}|".encode() in b"".join(c.data for c in chunks)


def _as_nobody(argv: list[str]) -> tuple[int, str]:
    """`floord ARGV` in a child process as root would let an engineer run it: as nobody
    (as root, which reads every folder, the suite cannot see a refusal otherwise)."""
    import floord.cli.sim  # noqa: F401  (imported before the child drops its rights)

    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        code = 70
        try:
            sys.stderr = os.fdopen(write, "w")
            if os.getuid() == 0:
                os.setgroups([])
                os.setgid(65534)
                os.setuid(65534)
            code = main(argv)
        finally:
            sys.stderr.flush()
            os._exit(code)
    os.close(write)
    with os.fdopen(read) as err:
        said = err.read()
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), said


def test_a_site_directory_the_user_may_not_read_is_refused(tmp_path: Path) -> None:
    """Passed over, the shipped profile would be simulated instead of the site's."""
    site = tmp_path / "profiles"
    site.mkdir(mode=0o700)
    (site / "ref-card-reader.yaml").write_text((PROFILES_DIR / "ref-card-reader.yaml").read_text())
    tmp_path.chmod(0o755)
    code, said = _as_nobody(["sim", "ref-card-reader", "--pty", "--profiles", str(site)])
    assert code == 2, said
    lines = said.strip().splitlines()
    assert lines == [
        f"floord sim: {site}: the site's profiles cannot be read (Permission denied); run as "
        "a user who may read them (sudo -u floord), or give -c CONFIG or --profiles DIR"
    ]
