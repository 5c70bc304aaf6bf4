"""The Debian version of the floord wheel (or source tree) being packaged.

`scripts/build-deb.sh` calls it for the control file's `Version:`, so the .deb says what
`floord --version` says: both read `__version__` from the `floord/__init__.py` that is
packed (in the wheel, or in the source tree), never a number written a second time. A
PEP 440 pre-release (`0.3.0rc1`, `0.3.0.dev2`) becomes `0.3.0~rc1`, `0.3.0~dev2`, so that
dpkg sorts it before the release, as pip does.

Run with any Python 3 (standard library only): `python3 scripts/deb/version.py WHEEL|DIR`.
"""

from __future__ import annotations

import ast
import re
import sys
import zipfile
from pathlib import Path

INIT = "floord/__init__.py"
# PEP 440: [N!]N(.N)*[{a|b|rc}N][.postN][.devN][+local], in its normalised form.
_PEP440 = re.compile(
    r"^(?:(?P<epoch>\d+)!)?(?P<release>\d+(?:\.\d+)*)"
    r"(?:(?P<pre>a|b|rc)(?P<pre_n>\d+))?(?:\.post(?P<post>\d+))?(?:\.dev(?P<dev>\d+))?"
    r"(?:\+(?P<local>[a-z0-9]+(?:\.[a-z0-9]+)*))?$"
)


def package_version(source: Path) -> str:
    """`__version__` of the floord package in `source`: a wheel, or a source tree."""
    if source.is_dir():
        text = (source / INIT).read_text(encoding="utf-8")
    else:
        with zipfile.ZipFile(source) as wheel:
            text = wheel.read(INIT).decode("utf-8")
    for node in ast.parse(text).body:
        if (
            isinstance(node, ast.Assign)
            and [getattr(t, "id", None) for t in node.targets] == ["__version__"]
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            return node.value.value
    raise ValueError(f'{source}: no `__version__ = "..."` in {INIT}')


def debian_version(version: str) -> str:
    """A PEP 440 version as Debian writes it: pre-releases and dev releases after `~`."""
    found = _PEP440.match(version)
    if found is None:
        raise ValueError(f"{version!r} is not a PEP 440 version in its normalised form")
    text = found["release"]
    if found["pre"]:
        text += f"~{found['pre']}{found['pre_n']}"
    if found["post"]:
        text += f".post{found['post']}"
    if found["dev"]:
        text += f"~dev{found['dev']}"
    if found["local"]:
        text += f"+{found['local']}"
    return f"{found['epoch']}:{text}" if found["epoch"] else text


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: version.py WHEEL|SOURCE_DIR", file=sys.stderr)
        return 2
    try:
        print(debian_version(package_version(Path(argv[0]))))
    except (OSError, KeyError, ValueError, SyntaxError, zipfile.BadZipFile) as exc:
        print(f"version.py: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
