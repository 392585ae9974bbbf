#!/usr/bin/env bash
# Run the code review on a copy of the bundled example workspace and show the report.
#
# The examples (a Python one, then a TypeScript one) are copied to a temporary directory
# first, so the repository stays clean.
# A NOT-READY verdict is the expected outcome (the example has real problems to find);
# the script exits 0 whenever the review itself ran.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$here")"
if [ -x "$repo/.venv/bin/aidlc-review" ]; then
    PATH="$repo/.venv/bin:$PATH"
fi
command -v aidlc-review >/dev/null || { echo "aidlc-review not found; run 'make setup'" >&2; exit 2; }

work="${AIDLC_DEMO_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/aidlc-review-demo.XXXXXX")}"
mkdir -p "$work"
rm -rf "$work/inventory-service"
cp -R "$here/inventory-service" "$work/inventory-service"
workspace="$work/inventory-service"
sarif="$work/code-review.sarif"

echo "== code review of unit u1-stock-ledger in $workspace"
status=0
aidlc-review review run --workspace "$workspace" --unit u1-stock-ledger --sarif "$sarif" || status=$?
if [ "$status" -gt 1 ]; then
    echo "review failed to run (exit $status)" >&2
    exit "$status"
fi

report="$workspace/aidlc-docs/construction/u1-stock-ledger/code-review/code-review.md"
echo
echo "== $report"
echo
cat "$report"
echo
echo "== where things are"
echo "report:   $report"
echo "findings: $workspace/aidlc-docs/construction/u1-stock-ledger/code-review/code-review-findings.json"
echo "sarif:    $sarif"
echo "verdict exit code: $status (0 READY, 1 NOT-READY: the example has problems to find)"
echo "try next: $(command -v aidlc-review) review verify --workspace $workspace --unit u1-stock-ledger"

# The same review on a TypeScript workspace, with the project's own tools (eslint, tsc,
# prettier, vitest) installed from the npm registry into the copy: the review installs none.
echo
ts="$work/checkout-web"
if ! command -v npm >/dev/null; then
    echo "== the TypeScript example is skipped: npm not found (it installs the project's own tools)"
    exit 0
fi
rm -rf "$ts"
cp -R "$here/checkout-web" "$ts"
echo "== installing checkout-web's pinned dev tools (npm install, once per copy)"
(cd "$ts" && npm install --no-audit --no-fund --silent) || { echo "npm install failed" >&2; exit 2; }
echo "== code review of unit u1-cart in $ts"
ts_status=0
aidlc-review review run --workspace "$ts" --unit u1-cart || ts_status=$?
if [ "$ts_status" -gt 1 ]; then
    echo "review failed to run (exit $ts_status)" >&2
    exit "$ts_status"
fi
echo "report:   $ts/aidlc-docs/construction/u1-cart/code-review/code-review.md"
echo "verdict exit code: $ts_status (the example has a type error, an eval, == for ===, an off-by-one its test catches)"
