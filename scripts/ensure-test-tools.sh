#!/usr/bin/env bash
# The tests need a few programs beside Python: the Mosquitto broker they start on a free
# loopback port (and its mosquitto_passwd, for the ACL tests), the openssl command line
# (the TLS tests make a CA and certificates), and systemd-analyze (the unit files are
# verified), and nats-server (the broker-cluster test runs three NATS nodes with JetStream
# and MQTT, tests/test_e2e_cluster.py), and chromium (the web console's pages are driven in
# a headless Chromium over the DevTools protocol, tests/test_web_browser.py). Install what is missing when we are root with
# apt-get; otherwise say exactly what to install.
set -euo pipefail
missing=()
have() { command -v "$1" >/dev/null || [ -x "/usr/sbin/$1" ] || [ -x "/usr/bin/$1" ]; }
have mosquitto || missing+=(mosquitto)
have openssl || missing+=(openssl)
have systemd-analyze || missing+=(systemd)
# nats-server is optional: where it cannot be installed the cluster tests are skipped and
# say why (Debian and Ubuntu ship it; elsewhere get it from nats.io).
if ! have nats-server; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing nats-server with apt-get" >&2
    apt-get update -qq || true
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      nats-server >/dev/null ||
      echo "nats-server could not be installed: the broker-cluster tests will be skipped" >&2
  else
    echo "nats-server is not installed (sudo apt-get install nats-server):" \
      "the broker-cluster tests will be skipped" >&2
  fi
fi
# PostgreSQL is optional too: the archive's PostgreSQL tests start a server of their own
# (initdb and pg_ctl from /usr/lib/postgresql/*/bin) and are skipped, saying why, where
# it cannot be installed; on CI (root, apt-get) it is installed and they run.
if ! compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing postgresql with apt-get" >&2
    apt-get update -qq || true
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      postgresql >/dev/null ||
      echo "postgresql could not be installed: the archive's PostgreSQL tests will be skipped" >&2
  else
    echo "postgresql is not installed (sudo apt-get install postgresql):" \
      "the archive's PostgreSQL tests will be skipped" >&2
  fi
fi
# chromium is optional too: where it cannot be installed the browser tests are skipped.
if ! have chromium; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing chromium with apt-get" >&2
    apt-get update -qq || true
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      chromium >/dev/null ||
      echo "chromium could not be installed: the browser tests will be skipped" >&2
  else
    echo "chromium is not installed (sudo apt-get install chromium):" \
      "the browser tests will be skipped" >&2
  fi
fi
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "installing ${missing[*]} with apt-get" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
  exit 0
fi
echo "The tests need these programs: ${missing[*]}. Install them, e.g.:" >&2
echo "  sudo apt-get install ${missing[*]}      # Debian, Ubuntu" >&2
echo "  sudo dnf install ${missing[*]}          # Fedora" >&2
exit 1
