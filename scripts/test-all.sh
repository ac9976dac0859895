#!/usr/bin/env bash
# The whole test suite from a fresh clone: installs what it needs, then type-check, lint, build and every test.
# The README's test command and .ci/run both run exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi

npm run typecheck
npm run lint
npm run build

status=0
npx vitest run --reporter=default --reporter=json --outputFile.json=test-results/vitest.json || status=$?
node scripts/print-summary.mjs test-results/vitest.json || true
exit "$status"
