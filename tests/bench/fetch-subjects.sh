#!/usr/bin/env bash
# Downloads real Java subjects for the benchmarks from Debian source packages and compiles
# them. Nothing downloaded here is committed: it lands in $CTGLS_SUBJECTS (default
# target/subjects), one directory per package with `src/` (the main Java sources) and
# `classes/` (compiled with the machine's javac).
#
#   bash tests/bench/fetch-subjects.sh            # all packages
#   bash tests/bench/fetch-subjects.sh cli text   # some of them
#
# Needs root (or sudo) the first time: it adds a `deb-src` entry for the machine's Debian
# suites and installs dpkg-dev, which `apt-get source` needs.
set -euo pipefail
cd "$(dirname "$0")/../.."

out="${CTGLS_SUBJECTS:-$PWD/target/subjects}"
mkdir -p "$out"

# name  debian-package (apt-get source maps it to its source)  main-source-dir  needs
packages=(
  "lang3       libcommons-lang3-java        src/main/java  -"
  "text        libcommons-text-java         src/main/java  lang3"
  "collections libcommons-collections4-java src/main/java  -"
  "cli         libcommons-cli-java          src/main/java  -"
  "codec       libcommons-codec-java        src/main/java  -"
  "io          libcommons-io-java           src/main/java  -"
)
# A package the mirror cannot serve (seen: commons-text and commons-cli answer 404 for their
# tarballs) is reported and skipped; the script fails only when no subject is available.
missing=()

sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"

ensure_deb_src() {
  local list=/etc/apt/sources.list.d/ctgls-deb-src.sources
  if [ ! -f "$list" ]; then
    # The same archives and suites the machine already uses, for sources.
    $sudo awk 'BEGIN { RS=""; ORS="\n\n" } /Types: *deb/ { sub(/Types: *deb/, "Types: deb-src"); print }' \
      /etc/apt/sources.list.d/debian.sources | $sudo tee "$list" >/dev/null
  fi
  dpkg-query -W -f='${Status}' dpkg-dev 2>/dev/null | grep -q "install ok installed" \
    || { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq dpkg-dev >/dev/null; }
  $sudo apt-get update -qq
}

wanted=("$@")
want() {
  [ ${#wanted[@]} -eq 0 ] && return 0
  local name
  for name in "${wanted[@]}"; do [ "$name" = "$1" ] && return 0; done
  return 1
}

updated=0
for row in "${packages[@]}"; do
  read -r name debian_package main_dir deps <<<"$row"
  want "$name" || continue
  dir="$out/$name"
  if [ -f "$dir/.done" ]; then
    echo "$name: already in $dir" >&2
    continue
  fi
  if [ $updated -eq 0 ]; then
    ensure_deb_src
    updated=1
  fi
  rm -rf "$dir" "$out/download-$name"
  mkdir -p "$out/download-$name"
  if ! (cd "$out/download-$name" && apt-get source -qq "$debian_package" >apt.log 2>&1); then
    echo "$name: skipped, apt-get source $debian_package failed:" >&2
    grep -E '^(E|W):' "$out/download-$name/apt.log" | sed 's/^/  /' >&2
    rm -rf "$out/download-$name"
    missing+=("$name")
    continue
  fi
  unpacked=$(find "$out/download-$name" -mindepth 1 -maxdepth 1 -type d | head -n 1)
  [ -n "$unpacked" ] || { echo "$name: apt-get source $debian_package gave nothing" >&2; exit 1; }
  mkdir -p "$dir"
  cp -r "$unpacked/$main_dir" "$dir/src"
  cp=""
  if [ "$deps" != "-" ]; then
    for dep in ${deps//,/ }; do
      [ -f "$out/$dep/.done" ] || { echo "$name: skipped, needs $dep" >&2; missing+=("$name"); continue 2; }
      cp="${cp:+$cp:}$out/$dep/classes"
    done
  fi
  mkdir -p "$dir/classes"
  find "$dir/src" -name '*.java' >"$dir/sources.txt"
  javac -nowarn -encoding UTF-8 --release 11 ${cp:+-cp "$cp"} -d "$dir/classes" @"$dir/sources.txt" 2>"$dir/javac.log" \
    || { echo "$name: javac failed, see $dir/javac.log" >&2; exit 1; }
  version=$(basename "$unpacked")
  echo "$version" >"$dir/version"
  rm -rf "$out/download-$name"
  touch "$dir/.done"
  echo "$name: $version, $(wc -l <"$dir/sources.txt") source files in $dir" >&2
done

available=$(find "$out" -mindepth 2 -maxdepth 2 -name .done | wc -l)
[ ${#missing[@]} -eq 0 ] || echo "not available here: ${missing[*]}" >&2
[ "$available" -gt 0 ] || { echo "no subject could be fetched" >&2; exit 1; }
echo "$available subjects in $out" >&2
