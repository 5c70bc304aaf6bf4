#!/usr/bin/env bash
# Create .venv and install floord with what its tests need.
# On a fresh Debian, `python3 -m venv` needs the python3-venv package: install it when
# we are root, otherwise say exactly what to install.
set -euo pipefail
PY=${PYTHON:-python3}
VENV=${VENV:-.venv}
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
"$VENV/bin/python" -m pip install -q -e '.[test]'
