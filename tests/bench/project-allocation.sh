#!/usr/bin/env bash
# Campos et al.'s experiment ("Continuous Test Generation", section 5: the *Budget* allocation
# against *Simple*, an equal share) with ctgls's project mode on real projects: for each
# project, `ctgls generate --project DIR` without `--class` over all its testable classes, the
# same total budget once with the paper's allocation (`--allocation branches`, the default) and
# once with an equal split (`--allocation equal`), each on a fresh unedited copy (no `.ctgls/`
# history, so no class is skipped or weighted by change). Then JaCoCo's branch coverage of the
# written, verified tests, measured outside ctgls (tests/bench/project-lib.sh), and the times.
#
#   bash tests/bench/project-allocation.sh                       # json-simple commons-csv java-diff-utils
#   bash tests/bench/project-allocation.sh commons-exec          # other corpus projects
#
# Environment: CTGLS_BIN (default target/release/ctgls, built when missing), CTGLS_CORPUS
# (default target/corpus), CTGLS_BENCH_TOTAL (total budget per project and arm, seconds,
# default 120), CTGLS_BENCH_JOBS (default 1), CTGLS_BENCH_SEED (default 0), CTGLS_BENCH_ROUNDS
# (default 1), CTGLS_BENCH_RESULTS (default $CTGLS_CORPUS/bench/allocation-<UTC time>).
#
# The arms alternate which goes first from one project (and round) to the next, so a change of
# the machine's load falls on both; the one-minute load average before and after every run is
# in the table. On a shared machine the figures are not floors. Prints the markdown table
# (also in $results/table.md); every run's report, log and per-class measurement stay in
# $results/<label>/.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD

total="${CTGLS_BENCH_TOTAL:-120}"
jobs="${CTGLS_BENCH_JOBS:-1}"
seed="${CTGLS_BENCH_SEED:-0}"
rounds="${CTGLS_BENCH_ROUNDS:-1}"
bin="${CTGLS_BIN:-$repo/target/release/ctgls}"
results="${CTGLS_BENCH_RESULTS:-${CTGLS_CORPUS:-$repo/target/corpus}/bench/allocation-$(date -u +%Y%m%dT%H%M%SZ)}"
projects=("$@")
[ ${#projects[@]} -gt 0 ] || projects=(json-simple commons-csv java-diff-utils)

source tests/bench/project-lib.sh
bench_setup "${projects[@]}"

turn=0
for round in $(seq 1 "$rounds"); do
  for project in "${projects[@]}"; do
    arms=(branches equal)
    [ $((turn % 2)) = 1 ] && arms=(equal branches)
    turn=$((turn + 1))
    for arm in "${arms[@]}"; do
      echo "project-allocation: $project, $arm, round $round (load $(bench_load))" >&2
      bench_run "$project-$arm-$round" "$project" --total-budget "$total" --allocation "$arm" --jobs "$jobs" >/dev/null
    done
  done
done

# The table: one row per run, then per project the arms' means over the rounds.
{
  echo "Total budget $total s per project and arm, --jobs $jobs, seed $seed, $rounds round(s), $(date -u +%Y-%m-%d), $("$bin" --version 2>/dev/null || echo ctgls), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)."
  echo
  echo "| project | allocation | round | load before → after | wall s | classes (run) | with verified tests | JaCoCo branches | mean class coverage | ctgls branches |"
  echo "|---|---|---:|---|---:|---:|---:|---:|---:|---:|"
  awk -F'\t' 'NR > 1 {
      split($1, l, "-"); round = l[length(l)]; arm = l[length(l) - 1]
      printf "| %s | %s | %s | %s → %s | %s | %d (%d) | %d | %d/%d (%.1f %%) | %.1f %% | %d/%d |\n",
        $2, arm, round, $4, $5, $6, $10, $11, $12, $13, $14, ($14 > 0 ? 100 * $13 / $14 : 0), 100 * $15, $16, $17
    }' "$results/runs.tsv"
} >"$results/table.md"
cat "$results/table.md"
echo "project-allocation: results in $results" >&2
