#!/usr/bin/env bash
# The console of `inkra-emulator serve` in a real browser: headless Chromium from Debian's packages,
# driven through its DevTools protocol by scripts/console_browser.py (the free-tier story through
# serve with curl and development tokens; the live list within a second; the users' bars; the
# table; a user id holding <script> shown as text and run nowhere; the +1 hour button under
# --clock virtual admitting a user whose hour was full; a request's X-Ray timeline through
# serve --bootstrap). Saves a screenshot of each page
# to docs/images/console-*.png (README shows one).
# Usage: scripts/ci-console.sh [SCREENSHOT_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v chromium >/dev/null 2>&1; then
    echo "== installing chromium"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium > /dev/null
fi
python3 -c 'import websocket' 2>/dev/null || python3 -m pip install --quiet -r .ci/requirements.txt
swift build --product inkra-emulator > /dev/null
swift build --product bootstrap > /dev/null  # serve --bootstrap's timeline
echo "== the console in Chromium ($(chromium --version 2>/dev/null | head -1))"
python3 scripts/console_browser.py "$(swift build --show-bin-path)/inkra-emulator" --screenshots "${1:-docs/images}"
