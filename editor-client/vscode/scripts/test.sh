#!/usr/bin/env bash
# Builds, lints, unit-tests and packages the VS Code extension, on a fresh Debian machine or a
# used one. Installs Node and npm with apt-get only when npm is missing; runs `npm ci` only when
# node_modules does not match package-lock.json.
#
#   bash editor-client/vscode/scripts/test.sh              # compile, lint, unit tests, .vsix
#   CTGLS_E2E=1 bash editor-client/vscode/scripts/test.sh  # also the code-server smoke test
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$*"; }
summary=()

if ! command -v npm >/dev/null 2>&1; then
  step "installing nodejs and npm (Debian packages)"
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
fi
node_major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$node_major" -lt 20 ]; then
  # @vscode/vsce 3 and the test runner's options need Node 20; Debian 12 ships Node 18.
  echo "scripts/test.sh: Node $(node --version) is too old; Node 20 or newer is needed" >&2
  exit 1
fi

step "dependencies"
deps=$(bash scripts/npm-ci-if-stale.sh .)
if [ "$deps" = current ]; then
  echo "node_modules matches package-lock.json: npm ci skipped"
fi
summary+=("dependencies: $deps")

step "compile (tsc)"
rm -rf out
npm run --silent compile
summary+=("compile: ok")

step "lint (eslint)"
npm run --silent lint
summary+=("lint: ok")

step "unit tests (node --test)"
test_log=$(mktemp)
trap 'rm -f "$test_log"' EXIT
npm test 2>&1 | tee "$test_log"
summary+=("unit tests: $(grep -E '^# (pass|fail) ' "$test_log" | sed 's/^# //' | paste -sd, - | sed 's/,/, /')")

step "package (vsce)"
rm -f ctgls.vsix
npm run --silent package
summary+=("package: ctgls.vsix, $(du -k ctgls.vsix | cut -f1) KiB")

if [ "${CTGLS_E2E:-0}" = "1" ]; then
  step "end-to-end smoke test (code-server)"
  bash scripts/e2e.sh
  summary+=("e2e (code-server): ok")
fi

printf '\n== editor-client/vscode summary\n'
printf '  %s\n' "${summary[@]}"
