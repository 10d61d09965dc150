#!/usr/bin/env bash
# Install configurable-http-proxy (JupyterHub's proxy, npm package) where the local demo hub
# (python -m dpexplore.hub demo) and tests/hosting/test_hub_demo.py look for it:
# tools/chp/node_modules/.bin/configurable-http-proxy (or $DPEXPLORE_CHP_DIR/node_modules/.bin/...).
# Called by .ci/run; safe to re-run (an existing install is kept).
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${DPEXPLORE_CHP_DIR:-tools/chp}"
if [ -x "$dir/node_modules/.bin/configurable-http-proxy" ]; then
  echo "== configurable-http-proxy already installed in $dir/node_modules"
  exit 0
fi
if ! command -v npm >/dev/null; then
  echo "== installing npm (Debian package) for configurable-http-proxy"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq npm >/dev/null
fi
echo "== installing configurable-http-proxy@4 into $dir/node_modules"
mkdir -p "$dir"
npm install --prefix "$dir" --no-save --no-audit --no-fund --loglevel=error configurable-http-proxy@4
"$dir/node_modules/.bin/configurable-http-proxy" --version
