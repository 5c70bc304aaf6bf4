#!/usr/bin/env bash
# The tests need a few programs beside Python: the Mosquitto broker they start on a free
# loopback port (and its mosquitto_passwd, for the ACL tests), the openssl command line
# (the TLS tests make a CA and certificates), and systemd-analyze (the unit files are
# verified). Install what is missing when we are root with apt-get; otherwise say exactly
# what to install.
set -euo pipefail
missing=()
have() { command -v "$1" >/dev/null || [ -x "/usr/sbin/$1" ] || [ -x "/usr/bin/$1" ]; }
have mosquitto || missing+=(mosquitto)
have openssl || missing+=(openssl)
have systemd-analyze || missing+=(systemd)
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
