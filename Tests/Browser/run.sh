#!/bin/sh
# The browser test: makes .venv-browser/ (selenium from PyPI) once, then runs
# Tests/Browser/test_dashboard.py against the given invoices executable.
#   Tests/Browser/run.sh [path/to/invoices]      (default: $INVOICES_BIN, else .build/debug/invoices)
# Needs Debian's chromium, chromium-driver and python3-venv (`make deps-browser`).
# Prints unittest's closing line (OK / FAILED) and exits non-zero on failure.
set -eu

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"

INVOICES_BIN=${1:-${INVOICES_BIN:-$ROOT/.build/debug/invoices}}
case $INVOICES_BIN in /*) ;; *) INVOICES_BIN=$ROOT/$INVOICES_BIN ;; esac
if [ ! -x "$INVOICES_BIN" ]; then
  echo "run.sh: no invoices executable at $INVOICES_BIN (build it: swift build --product invoices)" >&2
  exit 2
fi
for tool in /usr/bin/chromium /usr/bin/chromedriver; do
  if [ ! -x "$tool" ]; then echo "run.sh: $tool is missing (make deps-browser)" >&2; exit 2; fi
done

# Debian's python3 (the one python3-venv is for), else whatever python3 is on PATH.
PYTHON=${PYTHON:-$(command -v /usr/bin/python3 || command -v python3)}
VENV=$ROOT/.venv-browser
SELENIUM_SPEC=${SELENIUM_SPEC:-selenium>=4.11,<5}
if ! "$VENV/bin/python" -c 'import selenium' >/dev/null 2>&1; then
  echo "Making $VENV (selenium from PyPI)"
  rm -rf "$VENV"
  "$PYTHON" -m venv "$VENV"
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-input "$SELENIUM_SPEC" </dev/null
fi

# Selenium Manager must not look for browsers or drivers online: Debian's are used.
export SE_OFFLINE=true
export PYTHONDONTWRITEBYTECODE=1  # no __pycache__ in Tests/Browser/
export INVOICES_BIN
mkdir -p "$ROOT/.build/screenshots"
exec "$VENV/bin/python" -m unittest -v Tests/Browser/test_dashboard.py </dev/null
