#!/usr/bin/env bash
# `make test` drives Debian's headless Chromium for the browser tests (tests/web/test_browser.py;
# Playwright's own browser download cannot be reached here). Install it where we can (root with
# apt-get); otherwise say loudly that the browser tests will be skipped, and go on.
CHROMIUM=${CAIRN_CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$CHROMIUM" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "make test: installing Debian's chromium for the browser tests" >&2
  (apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) || true
fi
if [ ! -x "$CHROMIUM" ]; then
  {
    echo "************************************************************************"
    echo "* BROWSER TESTS SKIPPED: no Chromium at $CHROMIUM"
    echo "* install Debian's 'chromium' package (or set CAIRN_CHROMIUM) to run them"
    echo "************************************************************************"
  } >&2
fi
exit 0
