#!/usr/bin/env bash
# Fetches the corpus (tests/corpus/projects.tsv): real Java projects as Debian bookworm source
# packages ship them, unpacked and never edited, into $CTGLS_CORPUS/src/<source>/ (default
# target/corpus, never committed). Also installs the Debian packages that put each project's
# dependencies into the local Maven repository /usr/share/maven-repo, and writes the Maven
# settings a user of that repository has ($CTGLS_CORPUS/home/.m2/settings.xml: offline, the
# local repository pointing at /usr/share/maven-repo).
#
#   bash tests/corpus/fetch.sh                  # every project
#   bash tests/corpus/fetch.sh slf4j args4j     # some of them
#
# Idempotent: a package already unpacked and installed packages are not fetched again.
# Needs root (or sudo) the first time: it adds a `deb-src` entry for the machine's Debian
# suites and installs dpkg-dev. Fails, naming the package and apt's error, when a source
# package cannot be downloaded (no network, or a mirror without it): a corpus with a project
# silently missing would give figures nobody can compare.
#
# Debian's source package is the upstream tarball plus Debian's packaging (debian/, patches
# applied by dpkg-source). Some mirrors serve only part of a source package; when the packaging
# tarball is missing but the upstream one is there, the upstream tarball is unpacked alone and
# $CTGLS_CORPUS/src/<source>.origin says so: the project exactly as upstream released it, still
# unedited.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD

corpus="${CTGLS_CORPUS:-$repo/target/corpus}"
mkdir -p "$corpus/src" "$corpus/download" "$corpus/home/.m2"

need_deb_who=tests/corpus/fetch.sh
source tests/lib/need-deb.sh

sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"

# Rows of projects.tsv, optionally restricted to the projects named on the command line.
rows() {
  local wanted=("$@")
  grep -v '^\s*#' tests/corpus/projects.tsv | grep -v '^\s*$' | while read -r project rest; do
    if [ ${#wanted[@]} -eq 0 ] || printf '%s\n' "${wanted[@]}" | grep -qx "$project"; then
      echo "$project $rest"
    fi
  done
}

ensure_deb_src() {
  local list=/etc/apt/sources.list.d/ctgls-deb-src.sources
  if [ ! -f "$list" ]; then
    # The same archives and suites the machine already uses, for sources.
    $sudo awk 'BEGIN { RS=""; ORS="\n\n" } /Types: *deb/ { sub(/Types: *deb/, "Types: deb-src"); print }' \
      /etc/apt/sources.list.d/debian.sources | $sudo tee "$list" >/dev/null
    $sudo apt-get update -qq
  elif ! apt-cache showsrc "$1" >/dev/null 2>&1 || [ -z "$(apt-cache showsrc "$1" 2>/dev/null)" ]; then
    $sudo apt-get update -qq
  fi
}

# fetch SOURCE: unpacks the source package SOURCE into $corpus/src/SOURCE (once).
fetch() {
  local source=$1 dest="$corpus/src/$1" dl="$corpus/download/$1"
  # What was unpacked is recorded beside the tree, not in it: the tree holds the package's files
  # and nothing else.
  if [ -f "$dest.origin" ] && [ -d "$dest" ]; then
    return 0
  fi
  ensure_deb_src "$source"
  rm -rf "$dest" "$dest.origin" "$dl"
  mkdir -p "$dl"
  # `apt-get source --download-only` keeps the files it could fetch when one is missing.
  local status=0
  (cd "$dl" && apt-get source --download-only -qq "$source" >apt.log 2>&1) || status=$?
  local dsc
  dsc=$(find "$dl" -maxdepth 1 -name '*.dsc' | head -n 1)
  if [ -z "$dsc" ]; then
    echo "fetch.sh: cannot download the source package $source:" >&2
    sed 's/^/  /' "$dl/apt.log" >&2
    echo "  (no network? a deb-src entry is in /etc/apt/sources.list.d/ctgls-deb-src.sources)" >&2
    return 1
  fi
  local unpacked="$dl/unpacked" origin
  if [ $status -eq 0 ]; then
    dpkg-source --no-check -x "$dsc" "$unpacked" >"$dl/dpkg-source.log" 2>&1 \
      || { echo "fetch.sh: dpkg-source -x $dsc failed:" >&2; sed 's/^/  /' "$dl/dpkg-source.log" >&2; return 1; }
    origin="debian source package $(basename "$dsc" .dsc) (upstream + debian/, patches applied)"
  else
    # Only the upstream tarball(s) arrived: unpack the main one, then any component tarballs
    # (`.orig-NAME.tar.*`) into NAME/, as dpkg-source does.
    local main
    main=$(find "$dl" -maxdepth 1 -name '*.orig.tar.*' ! -name '*.asc' | head -n 1)
    if [ -z "$main" ]; then
      echo "fetch.sh: the mirror serves neither all of $source nor its upstream tarball:" >&2
      grep -E '^(E|W):' "$dl/apt.log" | sed 's/^/  /' >&2
      return 1
    fi
    mkdir -p "$dl/orig"
    tar -xf "$main" -C "$dl/orig"
    local top
    top=$(find "$dl/orig" -mindepth 1 -maxdepth 1)
    if [ "$(echo "$top" | wc -l)" -eq 1 ] && [ -d "$top" ]; then
      mv "$top" "$unpacked"
    else
      mv "$dl/orig" "$unpacked"
    fi
    local component
    for component in $(find "$dl" -maxdepth 1 -name '*.orig-*.tar.*' ! -name '*.asc'); do
      local name=${component##*.orig-}
      name=${name%%.tar.*}
      mkdir -p "$unpacked/$name"
      tar -xf "$component" -C "$unpacked/$name" --strip-components=1
    done
    origin="upstream tarball $(basename "$main") of debian source package $(basename "$dsc" .dsc) (the mirror does not serve the rest)"
  fi
  mv "$unpacked" "$dest"
  echo "$origin" >"$dest.origin"
  rm -rf "$dl"
  echo "fetch.sh: $source: $origin" >&2
}

settings() {
  cat >"$corpus/home/.m2/settings.xml" <<'EOF'
<?xml version="1.0" encoding="UTF-8"?>
<!-- A user's Maven settings with Debian's local repository: offline, nothing downloaded. -->
<settings>
  <offline>true</offline>
  <localRepository>/usr/share/maven-repo</localRepository>
</settings>
EOF
}

need_deb dpkg-dev maven
settings

mapfile -t selected < <(rows "$@")
[ ${#selected[@]} -gt 0 ] || { echo "fetch.sh: no project matches: $*" >&2; exit 2; }

debs=()
sources=()
for row in "${selected[@]}"; do
  read -r _project source _module _classes _measure deps <<<"$row"
  sources+=("$source")
  IFS=, read -r -a row_debs <<<"$deps"
  debs+=("${row_debs[@]}")
done
mapfile -t debs < <(printf '%s\n' "${debs[@]}" | sort -u)
need_deb "${debs[@]}"

failed=()
for source in $(printf '%s\n' "${sources[@]}" | sort -u); do
  fetch "$source" || failed+=("$source")
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fetch.sh: could not fetch: ${failed[*]}" >&2
  exit 1
fi
echo "fetch.sh: corpus in $corpus/src" >&2
