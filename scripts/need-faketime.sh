#!/usr/bin/env bash
# `make test-future` runs the suite under faketime (Debian's `faketime` package).
set -euo pipefail
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  apt-get update -qq >/dev/null && apt-get install -y -qq faketime >/dev/null
fi
command -v faketime >/dev/null || {
  echo "make test-future needs faketime: install Debian's 'faketime' package" >&2
  exit 1
}
