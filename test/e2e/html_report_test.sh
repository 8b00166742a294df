#!/usr/bin/env bash
# `ksched simulate --output html` in a real browser: a seeded simulation of
# pkg/simulate/testdata/html_report_cluster.yaml is written as a report and
# loaded in headless Chromium (Debian's chromium and chromium-driver,
# driven by Debian's python3-selenium) by html_report_browser_test.py,
# which checks it against the same run's JSON report and writes a
# screenshot to OUT_DIR/html_report.png.
#
# Usage: test/e2e/html_report_test.sh path/to/ksched OUT_DIR
# Run from the project root (ctest does). Exits 77 (skipped) when Chromium,
# chromedriver or Selenium is missing (scripts/install-deps.sh installs them).
set -euo pipefail

KSCHED="${1:-build/ksched}"
OUT="${2:-build/html_report}"
[[ -x "$KSCHED" ]] || { echo "ksched binary not found: $KSCHED" >&2; exit 2; }

CHROMIUM="$(command -v chromium || true)"
DRIVER="$(command -v chromedriver || true)"
# Debian's python3-selenium lives in the system interpreter, which a
# pyenv or venv python3 on PATH does not see.
PYTHON=""
for p in /usr/bin/python3 "$(command -v python3 || true)"; do
  if [[ -n "$p" && -x "$p" ]] && "$p" -c 'import selenium' 2>/dev/null; then PYTHON="$p"; break; fi
done
missing=()
[[ -n "$CHROMIUM" ]] || missing+=(chromium)
[[ -n "$DRIVER" ]] || missing+=(chromium-driver)
[[ -n "$PYTHON" ]] || missing+=(python3-selenium)
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "SKIP: the HTML report's browser test needs Debian's ${missing[*]} (apt-get install ${missing[*]};" \
    "scripts/install-deps.sh installs them)"
  exit 77
fi

mkdir -p "$OUT"
FIXTURE=pkg/simulate/testdata/html_report_cluster.yaml
ARGS=(simulate --cluster "$FIXTURE" --explain --seed 42)
"$KSCHED" "${ARGS[@]}" -o html >"$OUT/report.html"
"$KSCHED" "${ARGS[@]}" -o json >"$OUT/report.json"
exec "$PYTHON" test/e2e/html_report_browser_test.py --chromium "$CHROMIUM" --driver "$DRIVER" \
  --report "$OUT/report.html" --json "$OUT/report.json" --screenshot "$OUT/html_report.png"
