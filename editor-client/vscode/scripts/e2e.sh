#!/usr/bin/env bash
# The smoke test in a real VS Code: code-server (VS Code in the browser, from npm) with the
# packaged extension and the ctgls binary, driven by Playwright in Debian's Chromium, on a copy of
# tests/projects/bank. Run by `CTGLS_E2E=1 scripts/test.sh` after it has packaged ctgls.vsix.
#
#   CTGLS_SERVER_PATH=/path/to/ctgls bash scripts/e2e.sh   # use this binary instead of building one
#   CTGLS_E2E_KEEP=1 ...                                   # keep the temporary folder (screenshots, logs)
#
# Needs: Node 20 (code-server 4.100 is built for it), a JDK (the server's), cargo unless
# CTGLS_SERVER_PATH is given, and the Debian packages below (installed when missing).
set -euo pipefail
cd "$(dirname "$0")/.."
extension_dir=$(pwd)
repo=$(cd ../.. && pwd)

need_deb_who=scripts/e2e.sh
source "$repo/tests/lib/need-deb.sh"

# Chromium for Playwright (playwright-core downloads no browser); ripgrep for VS Code's file
# search (the npm package's own download of it needs the network); a C++ toolchain and Python
# for node-gyp, which builds code-server's native modules against the installed Node.
need_deb chromium ripgrep g++ make
command -v python3 >/dev/null 2>&1 || need_deb python3

if [ "$(node -p 'process.versions.node.split(".")[0]')" != 20 ]; then
  echo "scripts/e2e.sh: code-server 4.100 needs Node 20, this is $(node --version)" >&2
  exit 1
fi

echo "e2e dependencies: $(bash scripts/npm-ci-if-stale.sh e2e)"

# What code-server's postinstall does, minus its downloads: install VS Code's own dependencies,
# build the native modules it loads (node-gyp, against the local Node headers), link ripgrep.
code_server=e2e/node_modules/code-server
prepared="$code_server/.ctgls-prepared"
if [ ! -f "$prepared" ]; then
  echo "preparing code-server (native modules; a few minutes the first time)"
  export npm_config_yes=true # node-pty's build runs `npx node-gyp`
  # node-gyp builds against the installed Node's headers instead of downloading them.
  if [ -z "${npm_config_nodedir:-}" ] && [ -f /usr/include/node/node_version.h ]; then
    export npm_config_nodedir=/usr
  fi
  (cd e2e && npm rebuild --build-from-source argon2 >/dev/null)
  (
    cd "$code_server/lib/vscode"
    npm install --omit=dev --ignore-scripts --no-audit --no-fund >/dev/null
    npm rebuild @vscode/spdlog native-watchdog node-pty @parcel/watcher >/dev/null
    mkdir -p node_modules/@vscode/ripgrep/bin
    ln -sfn "$(command -v rg)" node_modules/@vscode/ripgrep/bin/rg
    ln -sfn node_modules node_modules.asar
    (cd bin/remote-cli && ln -sfn code-linux.sh code-server)
    (cd bin/helpers && ln -sfn browser-linux.sh browser.sh)
    (cd extensions && npm install --omit=dev --ignore-scripts --no-audit --no-fund >/dev/null)
  )
  touch "$prepared"
fi

server="${CTGLS_SERVER_PATH:-}"
if [ -z "$server" ]; then
  echo "building ctgls"
  (cd "$repo" && cargo build --locked -p ctgls)
  target="${CARGO_TARGET_DIR:-target}"
  case "$target" in /*) ;; *) target="$repo/$target" ;; esac
  server="$target/debug/ctgls"
fi

[ -f ctgls.vsix ] || npm run --silent package

CTGLS_SERVER_PATH="$server" \
  CTGLS_VSIX="$extension_dir/ctgls.vsix" \
  CTGLS_FIXTURE="$repo/tests/projects/bank" \
  CTGLS_GUARD_FIXTURE="$repo/editor-client/fixtures/bank-guard" \
  node --test e2e/smoke.test.mjs
