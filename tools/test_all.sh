#!/usr/bin/env bash
# The README's test command: install what the whole suite needs, then run all of it.
#
# Needs Python 3.10+. The browser, reverse-proxy and PostgreSQL tests need Chromium, nginx and PostgreSQL
# (Debian packages chromium, nginx-light, postgresql) and the accessibility and hub-demo tests need axe-core
# and configurable-http-proxy (npm). This script installs the Debian packages when it can (as root, or
# with passwordless sudo, on a machine with apt-get) and the npm packages always (into the clone). When
# everything is there, a missing piece makes its tests FAIL instead of skip (DPEXPLORE_REQUIRE_BROWSER=1,
# DPEXPLORE_REQUIRE_POSTGRES=1), so this command runs exactly what CI (.ci/run) runs. When a Debian
# package cannot be installed here, it says which, and those tests skip with the reason.
# Extra arguments go to pytest (e.g. -m "not slow", -n 0).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -c 'import sys; assert sys.version_info >= (3, 10), "dpexplore needs Python 3.10+, this is " + sys.version'

need=()
[ -x /usr/bin/chromium ] || need+=(chromium)
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || need+=(nginx-light)
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || need+=(postgresql)
command -v npm >/dev/null || need+=(npm)
if [ ${#need[@]} -gt 0 ]; then
  sudo_=()
  if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo_=(sudo -n); fi
  if command -v apt-get >/dev/null && { [ "$(id -u)" -eq 0 ] || [ ${#sudo_[@]} -gt 0 ]; }; then
    echo "== installing ${need[*]} (Debian packages) for the browser, proxy, poll-store and accessibility tests"
    "${sudo_[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    "${sudo_[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
    need=()
  else
    echo "== WARNING: cannot install ${need[*]} here (needs apt-get and root or passwordless sudo)." >&2
    echo "   Install them yourself to run every test (e.g. sudo apt-get install ${need[*]});" >&2
    echo "   until then the tests that need them are SKIPPED with the reason (CI runs them)." >&2
  fi
fi
if command -v npm >/dev/null; then
  bash tools/install_axe.sh   # tests/browser/node_modules/axe-core (accessibility tests)
  bash tools/install_chp.sh   # tools/chp/node_modules (the demo hub's proxy)
fi

python3 -m venv .venv
.venv/bin/pip install -q -e ".[test]"
export PIP_DISABLE_PIP_VERSION_CHECK=1
if [ ${#need[@]} -eq 0 ]; then
  export DPEXPLORE_REQUIRE_BROWSER=1 DPEXPLORE_REQUIRE_POSTGRES=1
fi
exec .venv/bin/python -m pytest "$@"
