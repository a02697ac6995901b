#!/usr/bin/env bash
# Builds, bundles, lints, unit-tests and packages the VS Code extension, on a fresh Debian machine
# or a used one. Installs Node and npm with apt-get only when npm is missing; runs `npm ci` only
# when node_modules does not match package-lock.json.
#
#   bash editor-client/vscode/scripts/test.sh              # compile, bundle, lint, unit tests, .vsix
#   CTGLS_E2E=1 bash editor-client/vscode/scripts/test.sh  # also the code-server smoke test
#
# Node: 18.18 or newer for everything but two steps, so Debian 12's own nodejs (18.x) runs the
# compile, the esbuild bundle, the lint and the unit tests. Packaging the .vsix (@vscode/vsce 3)
# needs Node 20 or newer, the code-server smoke test Node 20 itself: with another Node they are
# skipped, saying so.
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
node_version=$(node -p 'process.versions.node')
node_major=${node_version%%.*}
node_minor=$(echo "$node_version" | cut -d. -f2)
if [ "$node_major" -lt 18 ] || { [ "$node_major" -eq 18 ] && [ "$node_minor" -lt 18 ]; }; then
  # ESLint 9 and typescript-eslint 8 need 18.18; Debian 12 ships 18.19 and later.
  echo "scripts/test.sh: Node $node_version is too old; Node 18.18 or newer is needed" >&2
  exit 1
fi
node20=1
[ "$node_major" -lt 20 ] && node20=0

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

step "bundle (esbuild)"
npm run --silent bundle
summary+=("bundle: out/extension.js, $(du -k out/extension.js | cut -f1) KiB")

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
if [ "$node20" = 1 ]; then
  npm run --silent package
  # The .vsix holds the manifest, the README and the bundle: no node_modules, no sources.
  contents=$(node -e '
    const zip = require("fs").readFileSync(process.argv[1]);
    const names = [];
    for (let i = 0; i + 46 <= zip.length; i++) {
      if (zip.readUInt32LE(i) !== 0x02014b50) continue; // a central directory entry
      const nameLength = zip.readUInt16LE(i + 28);
      names.push(zip.toString("utf8", i + 46, i + 46 + nameLength));
    }
    console.log(names.filter((name) => name.startsWith("extension/")).sort().join(" "));
  ' ctgls.vsix)
  if [ "$contents" != "extension/out/extension.js extension/package.json extension/readme.md" ]; then
    echo "scripts/test.sh: ctgls.vsix holds $contents; expected the bundle, package.json and readme.md only" >&2
    exit 1
  fi
  summary+=("package: ctgls.vsix, $(du -k ctgls.vsix | cut -f1) KiB ($contents)")
else
  echo "skipped: @vscode/vsce 3 needs Node 20, this is Node $node_version (the bundle above is what it would ship)"
  summary+=("package: skipped (needs Node 20, this is $node_version)")
fi

if [ "${CTGLS_E2E:-0}" = "1" ]; then
  step "end-to-end smoke test (code-server)"
  if [ "$node_major" -eq 20 ]; then
    bash scripts/e2e.sh
    summary+=("e2e (code-server): ok")
  else
    # Its native modules are built for Node 20's ABI.
    echo "skipped: code-server 4.100 needs Node 20, this is Node $node_version"
    summary+=("e2e (code-server): skipped (needs Node 20, this is $node_version)")
  fi
fi

printf '\n== editor-client/vscode summary\n'
printf '  %s\n' "${summary[@]}"
