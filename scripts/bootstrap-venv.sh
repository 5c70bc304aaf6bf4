#!/usr/bin/env bash
# Create a virtual environment ($VENV, default .venv) and install floord (editable) with
# the extras $EXTRAS (default test: what the tests need). EXTRAS=none installs no floord
# at all: pip alone, for `make deb`'s build environment (the wheel is built in
# isolation, with setuptools).
# On a fresh Debian, `python3 -m venv` needs the python3-venv package: install it when
# we are root, otherwise say exactly what to install.
set -euo pipefail
PY=${PYTHON:-python3}
VENV=${VENV:-.venv}
EXTRAS=${EXTRAS:-test}
if ! "$PY" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)'; then
  echo "floord needs Python 3.11 or newer; $PY is $("$PY" --version 2>&1)" >&2
  exit 1
fi
if [ ! -x "$VENV/bin/python" ]; then
  if ! "$PY" -m venv "$VENV" 2>/dev/null; then
    rm -rf "$VENV"
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      echo "python3 -m venv failed; installing python3-venv with apt-get" >&2
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv
      "$PY" -m venv "$VENV"
    else
      echo "python3 -m venv failed. Install the venv module, e.g.: sudo apt-get install python3-venv" >&2
      exit 1
    fi
  fi
fi
"$VENV/bin/python" -m pip install -q --upgrade pip
if [ "$EXTRAS" != none ]; then
  "$VENV/bin/python" -m pip install -q -e ".[$EXTRAS]"
fi
