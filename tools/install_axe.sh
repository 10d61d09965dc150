#!/usr/bin/env bash
# Install axe-core (Deque's accessibility engine, npm package) where the browser tests look for it:
# tests/browser/node_modules/axe-core/axe.min.js (or $DPEXPLORE_AXE_DIR/node_modules/...).
# Called by .ci/run; safe to re-run (npm skips a matching install).
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${DPEXPLORE_AXE_DIR:-tests/browser}"
if [ -f "$dir/node_modules/axe-core/axe.min.js" ]; then
  echo "== axe-core already installed in $dir/node_modules"
  exit 0
fi
if ! command -v npm >/dev/null; then
  echo "== installing npm (Debian package) for axe-core"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq npm >/dev/null
fi
echo "== installing axe-core@4 into $dir/node_modules"
npm install --prefix "$dir" --no-save --no-audit --no-fund --loglevel=error axe-core@4
test -f "$dir/node_modules/axe-core/axe.min.js"
