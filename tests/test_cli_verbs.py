"""The command line builds only the parser of the verb typed and imports only its module
(`floord run` none of the others'), while `floord --help` and every verb still parse."""

from __future__ import annotations

import argparse
import importlib

import pytest

from floord.cli.main import EXTENSIONS, _parser, typed_verb
from floord.cli.verbs import BUILT_IN

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("words", "verb"),
    [
        (["run", "-c", "floord.yaml"], "run"),
        (["--log-level", "debug", "run", "-c", "floord.yaml"], "run"),
        (["--log-format=json", "watch", "-c", "floord.yaml"], "watch"),
        (["journal", "verify", "-c", "floord.yaml"], "journal"),
        (["--version"], None),
        (["--help"], None),
        ([], None),
        (["--log-level"], None),
        (["no-such-verb"], "no-such-verb"),
    ],
)
def test_the_verb_typed(words: list[str], verb: str | None) -> None:
    assert typed_verb(words) == verb


@pytest.mark.parametrize("verb", sorted(EXTENSIONS))
def test_each_extension_adds_the_verb_it_is_listed_under(verb: str) -> None:
    sub = argparse.ArgumentParser().add_subparsers()
    importlib.import_module(EXTENSIONS[verb]).register(sub)
    assert list(sub.choices) == [verb]


ALL_VERBS = {"run", "demo", "sim", "check", "cmd", "report", *EXTENSIONS}


def test_the_built_in_verbs_are_the_ones_main_dispatches() -> None:
    assert set(BUILT_IN) == {"run", "demo", "check", "cmd", "report"}
    assert not set(BUILT_IN) & set(EXTENSIONS)


def _verbs(parser: argparse.ArgumentParser) -> set[str]:
    """The verbs `parser` knows: `VERB --help` ends with 0 for those, 2 for the rest."""
    known = set()
    for verb in ALL_VERBS:
        with pytest.raises(SystemExit) as ended:
            parser.parse_args([verb, "--help"])
        if ended.value.code == 0:
            known.add(verb)
    return known


def test_a_verb_builds_only_its_own_parser(capsys: pytest.CaptureFixture[str]) -> None:
    everything = _verbs(_parser())
    assert everything == ALL_VERBS
    assert set(EXTENSIONS) < everything
    for verb in ALL_VERBS:
        assert _verbs(_parser(verb)) == {verb}
    assert _verbs(_parser("no-such-verb")) == everything
    ns = _parser("run").parse_args(["run", "-c", "floord.yaml"])
    assert ns.command == "run" and str(ns.config) == "floord.yaml"
