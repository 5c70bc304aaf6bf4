"""docs/deployment.md, "Evidence bundles", run in its order on a journal with that day's
play: the export of the day and of a round, then the offline check, then the check of
the heads against the journal. (tests/test_docs_commands.py runs each block command on
its own; the check needs the file the export wrote.)"""

from __future__ import annotations

import json
import re
import shlex
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import yaml

from floord.cli.main import main
from floord.contract import Envelope, format_ts
from floord.journal.lock import lock_path
from floord.journal.store import Journal

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parent.parent
DAY = datetime(2026, 12, 4, 14, 0, tzinfo=UTC)  # 09:00 in New York, in the doc's gaming day


def section() -> str:
    text = (ROOT / "docs" / "deployment.md").read_text(encoding="utf-8")
    found = re.search(r"^## Evidence bundles\n(.*?)(?=^## )", text, re.S | re.M)
    assert found, "docs/deployment.md has no section 'Evidence bundles'"
    return found.group(1)


def commands(text: str) -> list[str]:
    """Its exports and checks of bundles, the shell block's and the inline ones, in order
    (a mention of `floord journal verify`, the whole journal's check, left out)."""
    found = []
    for span in re.findall(r"```sh\n(.*?)```|`(floord journal [^`]+)`", text, re.S):
        block, inline = span
        for line in block.splitlines() if block else [" ".join(inline.split())]:
            words = shlex.split(line)
            words = words[1:] if words[:1] == ["sudo"] else words
            if words[:2] == ["floord", "journal"] and words[2:3] != ["verify"]:
                found.append(shlex.join(words))
    return found


def play(journal: Journal) -> None:
    """Three rounds of RL-01 on the doc's day: the wheel's event, then the table's."""

    def event(stream: str, minute: int, round_id: str):
        return lambda seq: Envelope(
            site="example-casino",
            table="RL-01",
            seq=seq,
            ts=format_ts(DAY + timedelta(minutes=minute)),
            type="wheel.number",
            source="wheel",
            data={"minute": minute},
            round=None if "/" in stream else round_id,
        )

    for number in range(1, 4):
        for minute in range(number * 5, number * 5 + 3):
            for stream in ("RL-01/devices/wheel", "RL-01"):
                journal.append(stream, event(stream, minute, f"RL-01-2026-12-04-{number:04d}"))


def test_the_sections_commands_run_in_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    body = yaml.safe_load((ROOT / "examples" / "box.yaml").read_text())
    body["journal"] = str(tmp_path / "journal.db")
    config = tmp_path / "floord.yaml"
    config.write_text(yaml.safe_dump(body))
    backups = tmp_path / "backups"
    backups.mkdir()
    journal = Journal(tmp_path / "journal.db")
    try:
        play(journal)
        found = commands(section())
        verbs = ["export", "export", "verify-bundle", "verify-bundle"]
        assert [c.split()[2] for c in found] == verbs
        # As under the .deb's unit, the daemon's lock file names its config.
        holder = json.loads(lock_path(journal.path).read_text())
        holder["command"] = f"floord run -c {config}"
        lock_path(journal.path).write_text(json.dumps(holder))
        monkeypatch.chdir(backups)  # "on any machine": the file given by its name
        for command in found:
            command = command.replace("/var/lib/floord/journal.db", str(journal.path))
            command = command.replace("/etc/floord/floord.yaml", str(config))
            command = command.replace("/var/backups/floord/", f"{backups}/")
            argv = shlex.split(command)[1:]
            code = main(argv)
            out = capsys.readouterr()
            assert code == 0, f"`{command}`: {out.out}{out.err}"
            if argv[1] == "verify-bundle":
                assert "whole: table RL-01 (site example-casino)" in out.out
            if "--db" in argv and argv[1] == "verify-bundle":
                assert "holds every head" in out.out
    finally:
        journal.close()
    assert sorted(p.name for p in backups.iterdir()) == [
        "evidence-RL-01-2026-12-04-0003.zip",
        "evidence-RL-01-2026-12-04.zip",
    ]
