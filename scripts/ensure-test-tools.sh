#!/usr/bin/env bash
# The tests start their own Mosquitto broker on a free loopback port, so they need the
# `mosquitto` binary (Debian: /usr/sbin/mosquitto). Install it when missing and we are
# root; otherwise say exactly what to install.
set -euo pipefail
if command -v mosquitto >/dev/null || [ -x /usr/sbin/mosquitto ]; then
  exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "mosquitto not found; installing it with apt-get" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mosquitto >/dev/null
  exit 0
fi
echo "The tests need the Mosquitto MQTT broker binary. Install it, e.g.:" >&2
echo "  sudo apt-get install mosquitto      # Debian, Ubuntu" >&2
echo "  sudo dnf install mosquitto          # Fedora" >&2
echo "  brew install mosquitto              # macOS" >&2
exit 1
