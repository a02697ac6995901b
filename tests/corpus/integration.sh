#!/usr/bin/env bash
# The class-integration benchmark (docs/benchmarks.md): for each caller/callee pair of
# tests/corpus/pairs.tsv, on a fresh copy of the fetched, unedited project, runs
#   ctgls generate --class CALLER --callee CALLEE           (integration tests)
#   ctgls generate --class CALLER --instrument-also CALLEE  (unit tests of the caller)
# with the same budget and seed, and tabulates the coupled branches each suite covers (the JSON
# reports' `coupled_branches` and `also_instrumented[0].coupled_branches`), as Derakhshanfar et
# al.'s RQ1.2 compares Cling with EvoSuite on the caller. Unit tests of the callee cover no
# coupled branch by construction (they never run the caller), so they are not run.
#
#   bash tests/corpus/integration.sh                 # every pair
#   bash tests/corpus/integration.sh commons-csv     # the pairs of some projects
#
# Environment: CTGLS_BIN (default target/release/ctgls, built when missing), CTGLS_CORPUS
# (default target/corpus), CTGLS_CORPUS_BUDGET (seconds per run, default 20), CTGLS_CORPUS_SEED
# (default 0), CTGLS_CORPUS_RESULTS (default $CTGLS_CORPUS/integration/<UTC time>). Writes
# pairs.tsv (one line per pair and suite) and table.md there and prints the table.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD

corpus="${CTGLS_CORPUS:-$repo/target/corpus}"
budget="${CTGLS_CORPUS_BUDGET:-20}"
seed="${CTGLS_CORPUS_SEED:-0}"
results="${CTGLS_CORPUS_RESULTS:-$corpus/integration/$(date -u +%Y%m%dT%H%M%SZ)}"
bin="${CTGLS_BIN:-$repo/target/release/ctgls}"

wanted=("$@")
projects=()
while read -r project _; do
  projects+=("$project")
done < <(grep -v '^\s*#' tests/corpus/pairs.tsv | grep -v '^\s*$')
if [ ${#wanted[@]} -gt 0 ]; then projects=("${wanted[@]}"); fi
bash tests/corpus/fetch.sh $(printf '%s\n' "${projects[@]}" | sort -u)
need_deb_who=tests/corpus/integration.sh
source tests/lib/need-deb.sh
need_deb jq

if [ -z "${CTGLS_BIN:-}" ] && [ ! -x "$bin" ]; then
  cargo build --release --locked -p ctgls
fi
[ -x "$bin" ] || { echo "integration.sh: no ctgls at $bin (CTGLS_BIN)" >&2; exit 2; }

export HOME="$corpus/home"
export MAVEN_OPTS="${MAVEN_OPTS:+$MAVEN_OPTS }-Duser.home=$corpus/home"
mkdir -p "$results/work"
tsv="$results/pairs.tsv"
printf 'project\tcaller\tcallee\tsuite\tcoupled_covered\tcoupled_total\tcaller_branches\ttests\twall_seconds\tstatus\n' >"$tsv"

# The source package directory of a project (projects.tsv's second column).
source_of() {
  grep -v '^\s*#' tests/corpus/projects.tsv | awk -v p="$1" '$1 == p { print $2; exit }'
}

run() {
  local project=$1 module=$2 caller=$3 callee=$4 suite=$5
  local src key work report
  src="$corpus/src/$(source_of "$project")"
  key="$project-${caller##*.}-${callee##*.}-$suite"
  work="$results/work/$key"
  rm -rf "$work"
  cp -r "$src" "$work"
  report="$results/$key.json"
  local flags=(--callee "$callee")
  [ "$suite" = unit ] && flags=(--instrument-also "$callee")
  "$bin" generate --project "$work/$module" --class "$caller" "${flags[@]}" \
    --budget "$budget" --seed "$seed" --quiet --report "$report" >"$results/$key.log" 2>&1 || true
  local line
  if [ -s "$report" ]; then
    if [ "$suite" = unit ]; then
      line=$(jq -r '.classes[0] | [(.also_instrumented[0].coupled_branches.covered // 0), (.also_instrumented[0].coupled_branches.total // 0), "\(.branches.covered)/\(.branches.total)", .tests_written, .wall_seconds, .status] | @tsv' "$report")
    else
      line=$(jq -r '.classes[0] | [(.coupled_branches.covered // 0), (.coupled_branches.total // 0), "\(.branches.covered)/\(.branches.total)", .tests_written, .wall_seconds, .status] | @tsv' "$report")
    fi
  else
    line=$(printf '0\t0\t-\t0\t0\tno report')
  fi
  printf '%s\t%s\t%s\t%s\t%s\n' "$project" "$caller" "$callee" "$suite" "$line" >>"$tsv"
  rm -rf "$work"
}

while read -r project module caller callee; do
  if [ ${#wanted[@]} -gt 0 ] && ! printf '%s\n' "${wanted[@]}" | grep -qx "$project"; then
    continue
  fi
  run "$project" "$module" "$caller" "$callee" integration
  run "$project" "$module" "$caller" "$callee" unit
done < <(grep -v '^\s*#' tests/corpus/pairs.tsv | grep -v '^\s*$')

{
  echo "| pair (caller → callee) | coupled branches | integration tests (\`--callee\`) | unit tests of the caller | caller branches (integration / unit) |"
  echo "|---|---:|---:|---:|---|"
  jq -R -s -r '
    split("\n") | .[1:] | map(select(length > 0) | split("\t")) | group_by(.[1] + " " + .[2])
    | map({ caller: .[0][1], callee: .[0][2],
            i: (map(select(.[3] == "integration")) | .[0]), u: (map(select(.[3] == "unit")) | .[0]) })
    | .[] | "| \(.caller | split(".") | last) → \(.callee | split(".") | last) | \(.i[5]) | \(.i[4]) (\(.i[9])) | \(.u[4]) (\(.u[9])) | \(.i[6]) / \(.u[6]) |"' "$tsv"
} >"$results/table.md"
cat "$results/table.md"
