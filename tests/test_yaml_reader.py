"""floord's own device profiles are parsed by libyaml, every other file by the pure-Python
parser (`floord.yaml_files`): each shipped profile reads the same with either, and a
file's error is the pure-Python parser's whichever read it first."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from floord import yaml_files
from floord.profiles import PROFILES_DIR, load_profile
from floord.yaml_files import YamlFileError, read_yaml

pytestmark = pytest.mark.unit

SHIPPED = sorted(PROFILES_DIR.glob("*.yaml"))


def _fast() -> type[yaml.CSafeLoader]:
    fast = yaml_files._FAST_LOADER
    assert fast is not None
    return fast


def _reference(text: str) -> Any:
    return yaml.load(text, Loader=yaml_files._UniqueKeyLoader)


def test_pyyaml_here_has_libyaml() -> None:
    """The rest of this file tests the libyaml path: it must be the one taken here."""
    assert yaml.__with_libyaml__
    assert yaml_files._FAST_LOADER is not None
    assert len(SHIPPED) >= 10


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_each_shipped_profile_reads_the_same_with_either_parser(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert yaml.load(text, Loader=_fast()) == _reference(text)


_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=20)
)
_DOCUMENTS = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=150, deadline=None)
@given(_DOCUMENTS, st.booleans())
def test_any_document_pyyaml_writes_reads_the_same_with_either_parser(
    document: Any, flow: bool
) -> None:
    """The constructor and resolver are the same: what a document holds, either builds."""
    text = yaml.safe_dump(document, default_flow_style=flow, allow_unicode=True)
    assert yaml.load(text, Loader=_fast()) == _reference(text)


def test_libyaml_refuses_a_repeated_key_too() -> None:
    with pytest.raises(yaml.YAMLError, match="duplicate key"):
        yaml.load("a: 1\nb: 2\na: 3\n", Loader=_fast())


class _NotThisParser(yaml_files._UniqueKeyLoader):
    def __init__(self, stream: str) -> None:
        raise AssertionError("read by the wrong parser")


def test_a_shipped_profile_never_reaches_the_pure_python_parser(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(yaml_files, "_UniqueKeyLoader", _NotThisParser)
    assert load_profile("cammegh-ss2").model == "cammegh-ss2"


def test_any_other_file_never_reaches_libyaml(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    class NotLibyaml(yaml.CSafeLoader):
        def __init__(self, stream: str) -> None:
            raise AssertionError("read by libyaml")

    monkeypatch.setattr(yaml_files, "_FAST_LOADER", NotLibyaml)
    path = tmp_path / "box.yaml"
    path.write_text("site: casino-1\ntables:\n  - {id: RL-01, game: roulette}\n")
    assert read_yaml(path) == {"site": "casino-1", "tables": [{"id": "RL-01", "game": "roulette"}]}
    profile = tmp_path / "cammegh-ss2.yaml"
    profile.write_text((PROFILES_DIR / "cammegh-ss2.yaml").read_text())
    assert load_profile("cammegh-ss2", tmp_path).model == "cammegh-ss2"


@pytest.mark.parametrize(
    ("text", "libyaml_reads"),
    [
        ("a:\t1\n", {"a": 1}),
        ("{b?}\n", {"b?": None}),
        ("a: !\n", {"a": ""}),
    ],
)
def test_where_the_parsers_differ_a_config_reads_as_it_always_did(
    tmp_path: Path, text: str, libyaml_reads: Any
) -> None:
    """Texts libyaml reads otherwise than the pure-Python parser: a file that is not
    shipped is read, or refused, as the pure-Python parser does."""
    assert yaml.load(text, Loader=_fast()) == libyaml_reads
    path = tmp_path / "floord.yaml"
    path.write_text(text)
    try:
        reference: Any = _reference(text)
    except yaml.YAMLError:
        with pytest.raises(YamlFileError, match="valid YAML expected"):
            read_yaml(path)
    else:
        assert reference != libyaml_reads
        assert read_yaml(path) == reference


@pytest.mark.parametrize(
    ("text", "line"),
    [
        (b"site: [1, 2\n", "valid YAML expected, found"),
        (b"a: 1\na: 2\n", "line 2, column 1: each key once in a mapping expected"),
        (b"site: casino-1\njournal: j\x01.db\n", "found character U+0001"),
        (b"a: " + b"[" * 1200 + b"]" * 1200 + b"\n", "(file): YAML of a usable depth expected"),
    ],
)
def test_a_shipped_files_error_is_the_pure_python_parsers(
    tmp_path: Path, text: bytes, line: str
) -> None:
    """libyaml refuses each of these too; the message is made from the pure-Python
    parser's error, as for any other file."""
    path = tmp_path / "profile.yaml"
    path.write_bytes(text)
    with pytest.raises(YamlFileError) as shipped:
        read_yaml(path, shipped=True)
    with pytest.raises(YamlFileError) as other:
        read_yaml(path)
    assert line in str(shipped.value)
    assert str(shipped.value) == str(other.value)
    with pytest.raises((yaml.YAMLError, RecursionError)):
        yaml.load(text.decode(), Loader=_fast())
