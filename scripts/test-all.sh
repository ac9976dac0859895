#!/usr/bin/env bash
# The whole test suite from a fresh clone: installs what it needs, then type-check, lint, build and every test.
# The README's test command and .ci/run both run exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages the tests need: the PostgreSQL server binaries (the adapter tests start their own cluster on a
# free port, test/support/postgres.ts, so a cluster the package starts on 5432 is left alone), a C++ toolchain
# because `npm ci` builds better-sqlite3 from source (package.json "allowScripts"), and Chromium for the browser
# tests (playwright-core drives /usr/bin/chromium; no browser is ever downloaded), and Valgrind, whose callgrind counts
# the bench's instructions per request (test/bench/instructions.test.ts checks that count).
packages=()
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then packages+=(postgresql); fi
if [ ! -x /usr/bin/chromium ]; then packages+=(chromium); fi
if ! command -v callgrind_control >/dev/null 2>&1; then packages+=(valgrind); fi
for tool in python3 make g++; do
  if ! command -v "$tool" >/dev/null 2>&1; then packages+=(python3 make g++); break; fi
done
if [ "${#packages[@]}" -gt 0 ]; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y "${packages[@]}"
fi

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
