"""Every `floord ...` command in README.md and docs/*.md runs as written.

The shell blocks are read as a reader copies them: continuation lines joined, comments
dropped, `a && b` taken apart, a trailing `&` ignored, `sudo` (and its `-u USER`)
dropped. The box's paths are the example configs' (`examples/`):
`/etc/floord/floord.yaml` is examples/box.yaml (its journal in a temporary folder, made
by a real daemon start), and what a command writes goes to a temporary folder. Every
command is parsed by floord's own parser (a flag or verb the docs name that floord does
not have fails here); the ones that stay up or need a live daemon, a device or a broker
(LONG) then run `--help`, the others run.
"""

from __future__ import annotations

import re
import shlex
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml
from table_turns import restore

from floord.cli.command_args import COMMAND_ARGS
from floord.cli.main import _parser, main
from floord.config.load import load_config
from floord.contract import COMMAND_ROLES, Role
from floord.journal.backup import take_backup
from floord.processes.daemon import Daemon

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
EXAMPLES = ROOT / "examples"
# Up until stopped, or talking to a daemon, a device or a broker: `--help` after parsing.
LONG = {"run", "watch", "demo", "sim", "adapter", "cmd", "status", "capture", "web", "archive"}
_BLOCK = re.compile(r"^( *)```(?:sh|bash)\n(.*?)^\1```", re.S | re.M)


def doc_commands() -> list[tuple[str, str]]:
    """(where, command) for every floord command in the docs' shell blocks."""
    found = []
    for doc in DOCS:
        for block in _BLOCK.finditer(doc.read_text(encoding="utf-8")):
            text = re.sub(r"\\\n\s*", " ", block.group(2))
            for line in text.splitlines():
                for part in line.split("&&"):
                    words = shlex.split(part, comments=True)
                    if words and words[-1] == "&":
                        words = words[:-1]
                    if words[:1] == ["sudo"]:
                        words = words[3:] if words[1:2] == ["-u"] else words[1:]
                    if words[:1] == ["floord"]:
                        found.append((doc.name, shlex.join(words)))
    return found


COMMANDS = doc_commands()


@pytest.fixture
def box(tmp_path: Path) -> dict[str, str]:
    """The docs' paths, mapped to the examples' and to a temporary folder (the config and
    its journal made there by `make_box`, for a command that runs)."""
    return {
        "/etc/floord/floord.yaml": str(tmp_path / "floord.yaml"),
        "/etc/floord/profiles/": f"{EXAMPLES}/site-profiles/",
        "/var/lib/floord/journal.db": str(tmp_path / "journal.db"),
        "/etc/udev/rules.d/": f"{tmp_path}/",
        "/var/backups/floord/": f"{tmp_path}/",
        "/etc/mosquitto/floord": str(tmp_path / "mosquitto"),
        "/etc/floord/boxes/": f"{EXAMPLES}/surveillance/",
        "/root/secrets/": f"{EXAMPLES}/surveillance/",
        "examples/": f"{EXAMPLES}/",
    }


def make_box(folder: Path) -> None:
    """The example box's config in `folder`, its journal restored once by a daemon, and the
    backup the restore steps name, as floord-backup.timer would have taken it."""
    body = yaml.safe_load((EXAMPLES / "box.yaml").read_text())
    body["journal"] = str(folder / "journal.db")
    for op in body["operators"]:
        op["key_file"] = str(EXAMPLES / op["key_file"])
    config = folder / "floord.yaml"
    config.write_text(yaml.safe_dump(body))
    daemon = Daemon(load_config(config))
    restore(daemon)
    daemon.journal.close()
    take_backup(folder / "journal.db", f"{folder}/", now=datetime(2026, 12, 4, 3, 30, tzinfo=UTC))


def test_the_docs_have_commands() -> None:
    verbs = {shlex.split(c)[1] for _, c in COMMANDS}
    assert {"check", "run", "cmd", "acl", "journal", "sim", "adapter"} <= verbs


@pytest.mark.parametrize(("doc", "command"), COMMANDS, ids=[c for _, c in COMMANDS])
def test_a_doc_command_runs_verbatim(
    doc: str,
    command: str,
    box: dict[str, str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # One pass, so that a path substituted is not substituted again.
    paths = re.compile("|".join(re.escape(old) for old in sorted(box, key=len, reverse=True)))
    command = paths.sub(lambda m: box[m.group(0)], command)
    argv = shlex.split(command)[1:]
    try:
        _parser().parse_args(argv)
    except SystemExit as exc:
        pytest.fail(f"{doc}: floord does not take `{command}`: {capsys.readouterr().err} {exc}")
    if argv[0] in LONG:
        with pytest.raises(SystemExit) as done:
            main([argv[0], "--help"])
        assert done.value.code == 0
        return
    make_box(tmp_path)
    code = main(argv)
    out = capsys.readouterr()
    assert code == 0, f"{doc}: `{command}` exited {code}:\n{out.out}\n{out.err}"
    assert "Traceback" not in out.out + out.err


def test_cmd_help_lists_every_command_with_its_arguments_and_roles(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert set(COMMAND_ARGS) == set(COMMAND_ROLES)
    with pytest.raises(SystemExit):
        main(["cmd", "--help"])
    text = capsys.readouterr().out
    for name, roles in COMMAND_ROLES.items():
        [line] = [x for x in text.splitlines() if x.split()[:1] == [name]]
        assert COMMAND_ARGS[name] in line
        assert line.endswith("(" + ", ".join(r for r in Role if r in roles) + ")")
    # And every command docs/contract.md documents is one floord knows.
    contract = (ROOT / "docs" / "contract.md").read_text()
    documented = set(re.findall(r"^\| `([a-z_]+)` \| `\{", contract, re.M))
    assert documented and documented <= set(COMMAND_ROLES)


_YAML_BLOCK = re.compile(r"^( *)```yaml\n(.*?)^\1```", re.S | re.M)
_BOX_PATH = re.compile(r"^/(etc|var/lib)/floord/")
SECRET_KEYS = {"key_file", "password_file", "previous_key_file"}


def doc_configs() -> list[tuple[str, str]]:
    """(where, text) for every whole box config (it has `site` and `tables`) in the docs."""
    found = []
    for doc in DOCS:
        for block in _YAML_BLOCK.finditer(doc.read_text(encoding="utf-8")):
            body = yaml.safe_load(block.group(2))
            if isinstance(body, dict) and {"site", "tables"} <= set(body):
                found.append((doc.name, block.group(2)))
    return found


CONFIGS = doc_configs()


def test_the_docs_have_a_whole_config() -> None:
    assert any(where == "contract.md" for where, _ in CONFIGS)


@pytest.mark.parametrize(
    ("doc", "text"), CONFIGS, ids=[f"{d}:{i}" for i, (d, _) in enumerate(CONFIGS)]
)
def test_a_doc_config_passes_check(doc: str, text: str, tmp_path: Path) -> None:
    """A reader who copies the docs' config onto a box, with the files it names in place
    (here under a temporary root), gets a config `floord check` accepts as it stands."""

    def secret(where: Path) -> None:
        where.parent.mkdir(parents=True, exist_ok=True)
        where.write_text("a secret of the docs' example\n")

    def moved(value: object, key: str = "") -> object:
        if isinstance(value, str) and _BOX_PATH.match(value):
            target = tmp_path / value.lstrip("/")
            target.parent.mkdir(parents=True, exist_ok=True)
            if not value.endswith(".db"):
                secret(target)
            return str(target)
        if isinstance(value, str) and key in SECRET_KEYS and not value.startswith("/"):
            secret(tmp_path / value)  # relative to the config's folder
        if isinstance(value, dict):
            return {k: moved(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [moved(v, key) for v in value]
        return value

    config = tmp_path / "floord.yaml"
    config.write_text(yaml.safe_dump(moved(yaml.safe_load(text))))
    assert main(["check", "-c", str(config)]) == 0, f"{doc}'s config fails floord check"
