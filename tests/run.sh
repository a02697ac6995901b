#!/usr/bin/env bash
# The whole test suite, on a fresh machine or a used one. Installs what the tests need
# (idempotently: nothing is fetched when it is already there), then runs every test.
#
#   bash tests/run.sh            # what the README's quick start and .ci/run call
#   CTGLS_E2E=1 bash tests/run.sh  # also the slow end-to-end tests (CI sets this)
set -euo pipefail
cd "$(dirname "$0")/.."

export CTGLS_E2E="${CTGLS_E2E:-0}"

need_deb_who=tests/run.sh
source tests/lib/need-deb.sh

# A JDK: the worker is compiled and run with the user's javac/java.
if ! command -v javac >/dev/null 2>&1; then
  need_deb openjdk-17-jdk-headless
fi
# JUnit 5 and 4 verify emitted tests; JaCoCo measures them (ctg's emit and verify tests).
need_deb junit5 junit4 libjacoco-java
# The build tool's classpath (ctg's buildtool tests, ctgls's Maven project end to end): Maven with
# its dependency plugin, commons-lang3 in Debian's Maven repository, and Gradle.
need_deb maven libmaven-dependency-plugin-java libcommons-lang3-java gradle

# The real-project case (ctgls/tests/real_project.rs, CTGLS_E2E=1) runs tests/corpus/run.sh on
# java-diff-utils: apt-get source needs dpkg-dev, the summary jq, the record of Maven's answer
# mvn, and the project's local Maven repository its test dependencies (tests/corpus/fetch.sh
# installs the same, idempotently, when run alone).
if [ "$CTGLS_E2E" = 1 ]; then
  need_deb dpkg-dev maven jq libassertj-core-java
fi

# The reports' end-to-end test (ctgls/tests/report.rs, CTGLS_E2E=1) renders the HTML report in
# headless Chromium and validates the SARIF file with Microsoft's SARIF Multitool (the SARIF
# 2.1.0 schema and GitHub's rules), a self-contained Linux binary in an npm package, installed
# once into a cache directory.
if [ "$CTGLS_E2E" = 1 ]; then
  need_deb chromium npm
  multitool_dir="${XDG_CACHE_HOME:-$HOME/.cache}/ctgls-tests/sarif-multitool"
  multitool="$multitool_dir/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool"
  if [ ! -x "$multitool" ]; then
    npm install --prefix "$multitool_dir" --no-save --no-audit --no-fund --silent \
      @microsoft/sarif-multitool-linux@5.7.0 >/dev/null
  fi
  export CTGLS_SARIF_MULTITOOL="$multitool"
fi

export RUST_BACKTRACE=1

cargo fmt --all -- --check

# The jvm crate holds the platform-specific code (the sandbox, the worker's process): checking it
# for macOS and Windows keeps a Linux-only change from breaking them. Only jvm: the other crates
# build tree-sitter's C code, which needs a cross C compiler. Adding a target needs the network,
# so a target that cannot be added is skipped with a note.
if command -v rustup >/dev/null 2>&1; then
  for target in x86_64-apple-darwin aarch64-apple-darwin x86_64-pc-windows-gnu; do
    if ! rustup target list --installed | grep -qx "$target" \
      && ! rustup target add "$target" >/dev/null 2>&1; then
      echo "tests/run.sh: cannot add the Rust target $target (offline?): jvm not checked for it" >&2
      continue
    fi
    cargo check --locked --quiet -p jvm --target "$target"
  done
else
  echo "tests/run.sh: no rustup: jvm not checked for macOS and Windows" >&2
fi

cargo test --workspace --locked

# The editor clients against the server just built: Neovim 0.11 and 0.7 headless (each prints
# "N passed, N failed"), and the VS Code extension (compile, lint, unit tests, .vsix; with
# CTGLS_E2E=1 also a code-server smoke test). Each installs what it needs idempotently.
bash editor-client/nvim/test/run.sh
bash editor-client/vscode/scripts/test.sh
