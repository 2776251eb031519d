#!/bin/sh
# Install Debian's Chromium for the browser end-to-end tests (Playwright
# drives /usr/bin/chromium; `playwright install` is never used).
# Idempotent: does nothing when /usr/bin/chromium is already there. Uses
# apt-get when run as root; otherwise says what to run and exits 0 so that
# the tests can skip with a clear reason.
set -eu

if [ -x /usr/bin/chromium ]; then
    exit 0
fi
if [ "$(id -u)" != "0" ]; then
    echo "install-chromium: /usr/bin/chromium is missing and this is not root;" \
         "run 'sudo apt-get install -y chromium' to enable the browser tests" >&2
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-chromium: no apt-get here; install Chromium at /usr/bin/chromium" \
         "to enable the browser tests" >&2
    exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
echo "install-chromium: installed $(/usr/bin/chromium --version 2>/dev/null || echo chromium)"
