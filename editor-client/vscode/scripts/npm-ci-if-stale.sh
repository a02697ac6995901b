#!/usr/bin/env bash
# npm-ci-if-stale.sh DIR: runs `npm ci --ignore-scripts` in DIR unless DIR/node_modules already
# holds what DIR/package-lock.json lists (npm ci leaves its own copy of the lock in
# node_modules/.package-lock.json: same packages at the same versions means current).
# Prints "current" or "installed". Install scripts are not run: neither package in this
# repository needs them, and the ones that exist download binaries.
set -euo pipefail
cd "$1"
if [ -f node_modules/.package-lock.json ] && node -e '
  const fs = require("fs");
  const wanted = JSON.parse(fs.readFileSync("package-lock.json", "utf8")).packages;
  const have = JSON.parse(fs.readFileSync("node_modules/.package-lock.json", "utf8")).packages;
  for (const [path, meta] of Object.entries(wanted)) {
    if (path === "") continue;
    if (meta.optional && !have[path]) continue; // optional packages of other platforms
    if (!have[path] || have[path].version !== meta.version) process.exit(1);
  }
'; then
  echo current
else
  npm ci --ignore-scripts --no-audit --no-fund >&2
  echo installed
fi
