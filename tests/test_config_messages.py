"""The catalogue of mistakes an engineer makes in a config, and the exact line for each.

Each case is examples/box.yaml or simulators/examples/rig.yaml with one mistake typed into its text
(so a YAML syntax error is a real one, at a real line). `floord check` must answer each
with one line per mistake naming the file, the key (or the line and column) and what
was expected: floord's words, never pydantic's or PyYAML's, each name quoted once, the
same mistake reported once. `floord run` refuses the same config with the same lines.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from floord.cli.main import main
from floord.profiles import PROFILES_DIR, available_profiles
from floord.yaml_files import YamlFileError, read_yaml
from simulators.scenario import ScenarioError, load_scenario

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
ROLES = "one of dealer, floorperson, supervisor, security, maintenance, boxperson or stickperson"
PROFILES = f"one of {', '.join(available_profiles())} or the path of a .yaml profile"


@dataclass(frozen=True)
class Mistake:
    """One mistake typed into an example: `old` replaced by `new` once (it must be there)."""

    name: str
    example: str
    old: str
    new: str
    lines: tuple[str, ...]  # after `CFG: `; `DIR` is the config's folder


def _m(name: str, example: str, old: str, new: str, *lines: str) -> Mistake:
    return Mistake(name, example, old, new, lines)


CATALOGUE = [
    _m(
        "yaml_unclosed_flow",
        "rig",
        'broker: {url: "mqtt://127.0.0.1:1883"}',
        'broker: {url: "mqtt://127.0.0.1:1883"',
        "line 7, column 1: valid YAML expected, found a syntax error: expected ',' or '}', "
        "but got '<scalar>' (while parsing a flow mapping at line 6, column 9)",
    ),
    _m(
        "yaml_indentation",
        "box",
        "    role: floorperson",
        "      role: floorperson",
        "line 20, column 7: valid YAML expected, found a syntax error: expected <block end>, "
        "but found '<block mapping start>' (while parsing a block mapping at line 19, "
        "column 5; check the indentation here, or a quote left open above)",
    ),
    _m(
        "yaml_tab",
        "box",
        "    role: floorperson",
        "\trole: floorperson",
        "line 20, column 1: valid YAML expected, found character '\\t' that cannot start any "
        "token (a tab: YAML indents with spaces only)",
    ),
    _m(
        "yaml_key_twice",
        "box",
        "    role: floorperson",
        "    role: floorperson\n    role: dealer",
        "line 21, column 5: each key once in a mapping expected, found 'role' again "
        "(first at line 20, column 5)",
    ),
    _m(
        "rules_dedented",
        "box",
        "      wheel: single_zero",
        "    wheel: single_zero",
        "tables.0.rules: a mapping (its keys indented under it) expected, found nothing "
        "(an empty value)",
        "tables.0.wheel: unknown key (allowed keys: id, game, rules, devices, shuffle_quality, "
        "pace, spin_physics, second_source)",
    ),
    _m(
        "role_typo",
        "box",
        "role: floorperson",
        "role: flooperson",
        f"operators.0.role: {ROLES} expected, found 'flooperson' (did you mean 'floorperson'?)",
    ),
    _m(
        "role_capitalised",
        "rig",
        "role: dealer",
        "role: Dealer",
        f"operators.1.role: {ROLES} expected, found 'Dealer' (did you mean 'dealer'?)",
    ),
    _m(
        "role_number",
        "box",
        "role: floorperson",
        "role: 3",
        f"operators.0.role: {ROLES} expected, found 3",
    ),
    _m(
        "game_typo",
        "box",
        "game: roulette",
        "game: roulete",
        "tables.0.game: one of roulette, blackjack, spanish21, minibaccarat, midibaccarat, "
        "baccarat, mississippi_stud, caribbean_stud, four_card_poker, let_it_ride, "
        "pai_gow_poker, texas_holdem_bonus, three_card_poker, poker, war, big_six, pai_gow, "
        "craps or mini_craps expected, found 'roulete' (did you mean 'roulette'?)",
    ),
    _m(
        "wheel_typo",
        "box",
        "wheel: single_zero",
        "wheel: single-zero",
        "tables.0.rules.wheel: one of single_zero, double_zero or double_zero_as_single "
        "expected, found 'single-zero' (did you mean 'single_zero'?)",
    ),
    _m(
        "shoe_typo",
        "rig",
        "shoe: single",
        "shoe: singel",
        "tables.0.rules.shoe: one of single or double expected, found 'singel' "
        "(did you mean 'single'?)",
    ),
    _m(
        "unknown_key",
        "box",
        "usb_serial: FT6Z9K2A",
        "usb_serail: FT6Z9K2A",
        "tables.0.devices.0.usb_serail: unknown key (did you mean 'usb_serial'? allowed keys: "
        "id, profile, port, adapter, required, usb_serial, usb_vid, usb_pid)",
    ),
    _m(
        "unknown_section",
        "box",
        "gaming_day:",
        "gameing_day:",
        "gameing_day: unknown key (did you mean 'gaming_day'? allowed keys: site, broker, "
        "journal, journal_retention_days, floor_rules, site_profiles, rig, gaming_day, "
        "surveillance, metrics, operators, tables)",
    ),
    _m(
        "profile_typo",
        "box",
        "profile: cammegh-ss2",
        "profile: cammegh-ss3",
        f"tables.0.devices.0.profile: {PROFILES} expected, found 'cammegh-ss3' "
        "(did you mean 'cammegh-ss2'?)",
    ),
    _m(
        "profile_typo_on_a_card_table",
        "rig",
        "profile: ref-card-reader",
        "profile: ref-card-raeder",
        f"tables.0.devices.1.profile: {PROFILES} expected, found 'ref-card-raeder' "
        "(did you mean 'ref-card-reader'?)",
    ),
    _m(
        "profile_path_missing",
        "box",
        "profile: cammegh-ss2",
        "profile: DIR/my-ss2.yaml",
        f"tables.0.devices.0.profile: {PROFILES} expected, found 'DIR/my-ss2.yaml' (no such file)",
    ),
    _m(
        "profile_of_another_family",
        "box",
        "profile: cammegh-ss2",
        "profile: ref-card-reader",
        "tables.0.devices.0: a roulette wheel's profile on a roulette table expected, "
        "found device 'wheel' of profile 'ref-card-reader' (card_reader)",
    ),
    _m(
        "whole_number_as_words",
        "box",
        "boxes: 7",
        "boxes: seven",
        "tables.1.rules.boxes: a whole number expected, found 'seven'",
    ),
    _m(
        "rules_as_text",
        "rig",
        "rules: {decks: 6, shoe: single, shuffler: batch, batch_backs: [red, blue], boxes: 7}",
        "rules: six decks",
        "tables.0.rules: a mapping (its keys indented under it) expected, found 'six decks'",
    ),
    _m(
        "operators_as_text",
        "rig",
        "operators:\n  - {id: FP-1001, role: floorperson, "
        "key_file: keys/FP-1001.key}\n  - {id: DL-2001, role: dealer, key_file: keys/DL-2001.key}",
        "operators: FP-1001",
        "operators: a list expected, found 'FP-1001'",
    ),
    _m(
        "yes_or_no",
        "box",
        "gaming_day:",
        "surveillance: {enabled: maybe}\ngaming_day:",
        "surveillance.enabled: true or false expected, found 'maybe'",
    ),
    _m(
        "below_minimum",
        "box",
        "gaming_day:",
        "journal_retention_days: 0\ngaming_day:",
        "journal_retention_days: a number of at least 1 expected, found 0",
    ),
    _m(
        "time_of_day",
        "box",
        'starts: "06:00"',
        'starts: "25:00"',
        "gaming_day.starts: a time of day as HH:MM expected, found '25:00'",
    ),
    _m(
        "time_of_day_unquoted",
        "box",
        'starts: "06:00"',
        "starts: 6:30",
        'gaming_day.starts: a time of day in quotes ("06:00") expected, found the number 390 '
        '(YAML reads an unquoted 6:30 as a number: write "06:30")',
    ),
    _m(
        "hex_unquoted",
        "box",
        'usb_vid: "0403"',
        "usb_vid: 0403",
        "tables.0.devices.0.usb_vid: text expected, found the number 259 (YAML read it as "
        "one: put it in quotes)",
    ),
    _m(
        "key_expiry_without_its_zone",
        "rig",
        "key_file: keys/DL-2001.key}",
        "key_file: keys/DL-2001.key, previous_key_file: keys/FP-1001.key, "
        "previous_key_expires: 2025-01-01T00:00:00}",
        "operators.1.previous_key_expires: a date and time with its UTC offset, such as "
        "2025-01-31T18:00:00+00:00 expected, found '2025-01-01T00:00:00'",
    ),
    _m(
        "adapter_typo",
        "rig",
        'port: "socket://127.0.0.1:5101"',
        "adapter: remot",
        "tables.0.devices.1.adapter: remote expected, found 'remot' (did you mean 'remote'?)",
    ),
    _m(
        "time_zone",
        "box",
        "America/New_York",
        "America/NewYork",
        "gaming_day.timezone: an IANA time zone name such as America/New_York expected, "
        "found 'America/NewYork'",
    ),
    _m(
        "site_with_a_space",
        "box",
        "site: example-casino",
        "site: example casino",
        "site: an id of 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or "
        "digit expected, found 'example casino'",
    ),
    _m(
        "site_missing",
        "box",
        "site: example-casino\n",
        "",
        "site: a value expected, found nothing (the key is missing)",
    ),
    _m(
        "broker_url",
        "box",
        "url: mqtt://127.0.0.1:1883",
        "url: http://127.0.0.1:1883",
        "broker.url: an mqtt[s]://HOST[:PORT] url expected, found 'http://127.0.0.1:1883': "
        "not of that shape",
    ),
    _m(
        "port_scheme",
        "rig",
        "socket://127.0.0.1:5101",
        "tcp://127.0.0.1:5101",
        "tables.0.devices.1.port: a device path (/dev/...), socket://HOST:PORT, "
        "usb://VID:PID[/SERIAL] or usb://sim:<scenario-file> expected, found "
        "'tcp://127.0.0.1:5101'",
    ),
    _m(
        "duplicate_table_id",
        "box",
        "  - id: BJ-01",
        "  - id: RL-01",
        "tables.1.id: a unique id expected, found 'RL-01' twice",
    ),
    _m(
        "duplicate_device_id",
        "box",
        "{id: reader,",
        "{id: shoe,",
        "tables.1.devices.1.id: a unique id expected, found 'shoe' twice",
    ),
    _m(
        "missing_secret",
        "box",
        "key_file: keys/FP-1001.key",
        "key_file: keys/FP-1002.key",
        "operators.0.key_file: a readable file expected, found 'DIR/keys/FP-1002.key' "
        "(No such file or directory)",
    ),
]


def _example(tmp: Path, name: str) -> str:
    """The example's text, its journal in `tmp` and its key files beside it."""
    shutil.copytree(EXAMPLES / "keys", tmp / "keys")
    folder = ROOT / "simulators" / "examples" if name == "rig" else EXAMPLES
    text = (folder / f"{name}.yaml").read_text(encoding="utf-8")
    return text.replace("/var/lib/floord/journal.db", "journal.db")


@pytest.mark.parametrize("mistake", CATALOGUE, ids=[m.name for m in CATALOGUE])
def test_each_mistake_gets_its_one_line_from_check_and_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], mistake: Mistake
) -> None:
    text = _example(tmp_path, mistake.example)
    assert mistake.old in text, mistake.old
    config = tmp_path / "floord.yaml"
    config.write_text(text.replace(mistake.old, mistake.new.replace("DIR", str(tmp_path)), 1))
    expected = [f"{config}: {line.replace('DIR', str(tmp_path))}" for line in mistake.lines]
    assert main(["check", "-c", str(config)]) == 1
    out = capsys.readouterr()
    assert out.out.splitlines() == expected
    assert out.err == ""
    assert main(["run", "-c", str(config)]) == 1
    assert capsys.readouterr().err.splitlines() == expected


def test_no_line_is_pydantics_or_pyyamls() -> None:
    """What the catalogue's lines must never hold (words of the libraries underneath)."""
    for mistake in CATALOGUE:
        for line in mistake.lines:
            for words in ("Input should", "<unicode string>", "instance of", "'\"", "\"'"):
                assert words not in line, (mistake.name, line)
            assert not re.search(r"'([^']+)' '\1'", line), (mistake.name, line)


def test_a_device_path_not_plugged_in_is_a_warning_and_check_passes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "floord.yaml"
    plugged = tmp_path / "ttyUSB0"
    plugged.write_text("")  # a path that exists, as a plugged-in device's does
    text = _example(tmp_path, "box").replace("/dev/floord/BJ-01-reader", str(plugged))
    shoe = "port: /dev/floord/BJ-01-shoe,"
    assert shoe in text
    config.write_text(text.replace(shoe, f"{shoe} required: false,"))
    assert main(["check", "-c", str(config)]) == 0
    found = "expected, found no such file (not plugged in yet? floord run starts anyway,"
    assert capsys.readouterr().out.splitlines() == [
        f"{config}: tables.0.devices.0.port: warning: a device at /dev/floord/RL-01-wheel "
        f"{found} RL-01 halted until it is there and the table is resumed)",
        f"{config}: tables.1.devices.1.port: warning: a device at /dev/floord/BJ-01-shoe "
        f"{found} shoe offline until it is there)",
        f"{config}: ok: site example-casino, tables RL-01 (roulette), BJ-01 (blackjack)",
    ]


def test_a_profile_file_with_a_syntax_error_is_one_line_naming_both_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    profile = tmp_path / "my-ss2.yaml"
    source = (PROFILES_DIR / "cammegh-ss2.yaml").read_text(encoding="utf-8")
    assert "  baudrate: 9600\n" in source
    profile.write_text(source.replace("  baudrate: 9600\n", "  baudrate: [9600\n"))
    config = tmp_path / "floord.yaml"
    config.write_text(_example(tmp_path, "box").replace("cammegh-ss2", str(profile)))
    line = source[: source.index("  baudrate:")].count("\n") + 1
    assert main(["check", "-c", str(config)]) == 1
    assert capsys.readouterr().out.splitlines() == [
        f"{config}: tables.0.devices.0.profile: a usable device profile expected, found: "
        f"{profile}: line {line + 1}, column 11: valid YAML expected, found a syntax error: "
        f"expected ',' or ']', but got ':' (while parsing a flow sequence at line {line}, "
        f"column 13)"
    ]


def test_a_scenario_file_with_a_syntax_error_names_the_file(tmp_path: Path) -> None:
    scenario = tmp_path / "spins.yaml"
    scenario.write_text("pockets: 37\nsteps:\n  - spin: {number: 5\n  - idle: 1\n")
    with pytest.raises(ScenarioError) as caught:
        load_scenario(scenario)
    assert str(caught.value) == (
        f"{scenario}: line 4, column 9: valid YAML expected, found a syntax error: expected "
        "',' or '}', but got ':' (while parsing a flow mapping at line 3, column 11)"
    )


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (
            ["cmd", "--table", "XX", "--as", "FP-1001", "resume"],
            "floord cmd: no table 'XX' in CFG (tables: RL-01, BJ-01)",
        ),
        (
            ["cmd", "--table", "RL-01", "--as", "FP-9", "resume"],
            "floord cmd: no operator 'FP-9' in CFG",
        ),
        (
            ["report", "wheel", "--table", "XX"],
            "floord report wheel: no table 'XX' in CFG (tables: RL-01, BJ-01)",
        ),
    ],
)
def test_a_name_not_in_the_config_is_quoted_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], line: str
) -> None:
    config = tmp_path / "floord.yaml"
    config.write_text(_example(tmp_path, "box"))
    where = argv.index("--table")
    assert main([*argv[:where], "-c", str(config), *argv[where:]]) == 1
    assert capsys.readouterr().err.splitlines() == [line.replace("CFG", str(config.resolve()))]


def test_the_lines_docs_configuration_shows_are_the_lines_floord_prints() -> None:
    """docs/configuration.md's sample of `floord check` output: each line is in the
    catalogue above (whose lines are checked against floord), or the warning's shape."""
    doc = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    section = doc[doc.index("## What `floord check` says") :]
    block = section[section.index("```\n") + 4 : section.index("\n```", section.index("```\n"))]
    known = {line for mistake in CATALOGUE for line in mistake.lines}
    warning = re.compile(
        r"tables\.\d+\.devices\.\d+\.port: warning: a device at /dev/\S+ expected, found no "
        r"such file \(not plugged in yet\? floord run starts anyway, (\S+ halted until it is "
        r"there and the table is resumed|\S+ offline until it is there)\)"
    )
    lines = block.splitlines()
    assert len(lines) >= 5
    for line in lines:
        text = line.removeprefix("floord.yaml: ")
        assert text in known or warning.fullmatch(text), line


def test_a_merge_key_may_be_overridden_but_a_plain_key_not_repeated(tmp_path: Path) -> None:
    """`<<: *base` then a key of the base is YAML's way to override it, not a repeat."""
    path = tmp_path / "anchors.yaml"
    path.write_text("base: &b {decks: 6, boxes: 7}\ntable:\n  <<: *b\n  boxes: 5\n")
    assert read_yaml(path) == {"base": {"decks": 6, "boxes": 7}, "table": {"decks": 6, "boxes": 5}}
    path.write_text("table:\n  decks: 6\n  boxes: 7\n  decks: 8\n")
    with pytest.raises(YamlFileError) as caught:
        read_yaml(path)
    assert str(caught.value) == (
        f"{path}: line 4, column 3: each key once in a mapping expected, found 'decks' again "
        "(first at line 2, column 3)"
    )


def test_a_control_character_is_placed_by_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "floord.yaml"
    path.write_bytes(b"site: casino-1\njournal: j\x01.db\n")
    with pytest.raises(YamlFileError) as caught:
        read_yaml(path)
    assert str(caught.value) == (
        f"{path}: line 2, column 11: YAML text expected, found character U+0001 "
        "(special characters are not allowed)"
    )
