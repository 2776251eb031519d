#!/bin/sh
# Install axe-core (npm, MPL-2.0) for the accessibility checks of the browser
# tests: tests/test_web_pages_browser.py injects tests/.axe/node_modules/axe-core/axe.min.js
# into each page with Playwright. Kept out of git (tests/.axe is ignored).
# Idempotent: does nothing when the file is already there. Without npm it
# says so and exits 0, and those checks skip with that reason.
set -eu

DIR="$(cd "$(dirname "$0")/.." && pwd)/tests/.axe"
if [ -f "$DIR/node_modules/axe-core/axe.min.js" ]; then
    exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
    echo "install-axe: npm is missing; install Node.js to enable the accessibility checks" >&2
    exit 0
fi
mkdir -p "$DIR"
npm install --silent --no-audit --no-fund --prefix "$DIR" axe-core@4 >/dev/null
echo "install-axe: installed axe-core $(node -p "require('$DIR/node_modules/axe-core/package.json').version" 2>/dev/null || echo '')"
