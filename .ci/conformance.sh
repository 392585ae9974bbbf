#!/usr/bin/env bash
# Conformance with the reference compiler: compiling a copy of ../shared/aidlc-harness
# (display root .claude) must reproduce its tools/data/*.json byte for byte, and
# `compile --check` must pass on it and fail after one edited scopes: line.
set -euo pipefail
cd "$(dirname "$0")/.."
shared="${AIDLC_SHARED:-../shared}/aidlc-harness"
bin=.venv/bin/aidlc-review
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$shared" "$work/harness"
chmod -R u+w "$work/harness"
export XDG_CACHE_HOME="$work/cache"

"$bin" compile --harness "$work/harness" --display-root .claude --out "$work/out"
for f in stage-graph.json scope-grid.json; do
  cmp "$work/out/$f" "$shared/tools/data/$f"
  echo "conformance: $f byte-identical to the reference"
done

"$bin" compile --harness "$work/harness" --display-root .claude --check
echo "conformance: compile --check passes on the reference outputs"

stage="$work/harness/aidlc-common/stages/construction/build-and-test.md"
sed -i '0,/^  - poc$/s//  - mvp-lite/' "$stage"
if "$bin" compile --harness "$work/harness" --display-root .claude --check >"$work/diff" 2>"$work/err"; then
  echo "conformance: FAILED: compile --check did not notice an edited scopes: line" >&2
  exit 1
fi
grep -q '^+      "mvp-lite",' "$work/diff"
echo "conformance: compile --check exits 1 with the diff after an edited scopes: line"
