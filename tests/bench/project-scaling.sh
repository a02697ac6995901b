#!/usr/bin/env bash
# How `ctgls generate --project` (without `--class`) scales, on a real corpus project
# (tests/corpus/projects.tsv, fetched unedited), each run on a fresh copy with no `.ctgls/`
# history, coverage measured with JaCoCo outside ctgls (tests/bench/project-lib.sh):
#
#   bash tests/bench/project-scaling.sh classes [PROJECT]   # default java-diff-utils
#       wall time against the number of classes: nested `--include` subsets of the project's
#       testable classes (CTGLS_BENCH_SIZES, default "5 10 20"), at a fixed budget per class
#       (CTGLS_BENCH_BUDGET, default 6 s: `--budget`, so the total is budget × classes).
#   bash tests/bench/project-scaling.sh jobs [PROJECT]      # default commons-csv
#       the speed-up of `--jobs 2` over `--jobs 1` at the same total budget
#       (CTGLS_BENCH_TOTAL, default 120 s).
#
# Environment as tests/bench/project-allocation.sh: CTGLS_BIN, CTGLS_CORPUS, CTGLS_BENCH_SEED
# (default 0), CTGLS_BENCH_ROUNDS (default 1), CTGLS_BENCH_RESULTS (default
# $CTGLS_CORPUS/bench/<experiment>-<UTC time>). The sizes (and the jobs arms) alternate their
# order from one round to the next; the one-minute load average before and after every run is
# in the table, and on a shared machine the figures are not floors.
#
# The testable classes are what project mode takes: top-level classes, enums and records that
# are neither abstract nor interfaces (read from the compiled classes with javap), not named
# *Test or *Tests. A subset of N is the first N of them in the order of their names' MD5 sums,
# so the subsets are nested and spread over the packages; `classes (run)` in the table is what
# ctgls ran.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD

experiment=${1:-}
case "$experiment" in
  classes) project=${2:-java-diff-utils} ;;
  jobs) project=${2:-commons-csv} ;;
  *) echo "usage: bash tests/bench/project-scaling.sh classes|jobs [PROJECT]" >&2; exit 2 ;;
esac
seed="${CTGLS_BENCH_SEED:-0}"
rounds="${CTGLS_BENCH_ROUNDS:-1}"
bin="${CTGLS_BIN:-$repo/target/release/ctgls}"
results="${CTGLS_BENCH_RESULTS:-${CTGLS_CORPUS:-$repo/target/corpus}/bench/$experiment-$(date -u +%Y%m%dT%H%M%SZ)}"

source tests/bench/project-lib.sh
bench_setup "$project"

# The project's testable classes, one a line, in the order of their names' MD5 sums.
testable_classes() {
  local source module spec classes name head
  read -r source module spec <<<"$(bench_row "$project")"
  bench_main_classes "$bench_corpus/src/$source/$module" "$spec" "$results/plan" >/dev/null
  classes="$results/plan/classes"
  mapfile -t names < <(find "$classes" -name '*.class' ! -name '*$*' | sed "s|^$classes/||; s|\.class\$||; s|/|.|g" \
    | grep -v -E 'Tests?$' | sort)
  # One javap for all of them: each class's declaration is the line after "Compiled from".
  javap -cp "$classes" "${names[@]}" 2>/dev/null | grep -A1 '^Compiled from' \
    | grep -E '(class|interface|enum|record) ' | grep -v -E 'interface |abstract class ' \
    | sed -E 's/^([a-z]+ )*(class|enum|record) ([^ <{]+).*$/\3/' \
    | while read -r name; do printf '%s %s\n' "$(printf '%s' "$name" | md5sum | cut -c1-32)" "$name"; done \
    | sort | cut -d' ' -f2
}

summary() {
  echo "$1, $project, seed $seed, $rounds round(s), $(date -u +%Y-%m-%d), $("$bin" --version 2>/dev/null || echo ctgls), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)."
  echo
}

if [ "$experiment" = classes ]; then
  budget="${CTGLS_BENCH_BUDGET:-6}"
  read -r -a sizes <<<"${CTGLS_BENCH_SIZES:-5 10 20}"
  mapfile -t all < <(testable_classes)
  echo "project-scaling: $project has ${#all[@]} testable classes" >&2
  for round in $(seq 1 "$rounds"); do
    order=("${sizes[@]}")
    [ $((round % 2)) = 0 ] && mapfile -t order < <(printf '%s\n' "${sizes[@]}" | tac)
    for n in "${order[@]}"; do
      [ "$n" -le ${#all[@]} ] || { echo "project-scaling: $project has only ${#all[@]} testable classes, not $n" >&2; continue; }
      include=()
      for class in "${all[@]:0:$n}"; do include+=(--include "$class"); done
      echo "project-scaling: $n classes, round $round (load $(bench_load))" >&2
      bench_run "$project-$n-$round" "$project" --budget "$budget" --jobs 1 "${include[@]}" >/dev/null
    done
  done
  {
    summary "Budget $budget s per class, --jobs 1"
    echo "| classes (run) | round | load before → after | wall s | wall s per class run | total budget s | JaCoCo branches | with verified tests |"
    echo "|---:|---:|---|---:|---:|---:|---:|---:|"
    awk -F'\t' -v budget="$budget" 'NR > 1 {
        split($1, l, "-"); n = l[length(l) - 1]; round = l[length(l)]
        printf "| %s (%d) | %s | %s → %s | %s | %.1f | %d | %d/%d (%.1f %%) | %d |\n",
          n, $11, round, $4, $5, $6, ($11 > 0 ? $6 / $11 : 0), budget * $11, $13, $14, ($14 > 0 ? 100 * $13 / $14 : 0), $12
      }' "$results/runs.tsv" | sort -t'|' -k2,2n -k3,3n
    echo
    # Least squares of wall time on classes run: the per-class cost and the fixed cost.
    awk -F'\t' 'NR > 1 { n++; x = $11; y = $6; sx += x; sy += y; sxx += x * x; sxy += x * y }
      END {
        if (n < 2 || n * sxx - sx * sx == 0) exit
        b = (n * sxy - sx * sy) / (n * sxx - sx * sx); a = (sy - b * sx) / n
        printf "Least-squares fit over %d runs: wall ≈ %.1f s + %.2f s × classes.\n", n, a, b
      }' "$results/runs.tsv"
  } >"$results/table.md"
else
  total="${CTGLS_BENCH_TOTAL:-120}"
  for round in $(seq 1 "$rounds"); do
    arms=(1 2)
    [ $((round % 2)) = 0 ] && arms=(2 1)
    for jobs in "${arms[@]}"; do
      echo "project-scaling: --jobs $jobs, round $round (load $(bench_load))" >&2
      bench_run "$project-jobs$jobs-$round" "$project" --total-budget "$total" --jobs "$jobs" >/dev/null
    done
  done
  {
    summary "Total budget $total s"
    echo "| jobs | round | load before → after | wall s | class seconds summed | classes (run) | JaCoCo branches | with verified tests |"
    echo "|---:|---:|---|---:|---:|---:|---:|---:|"
    awk -F'\t' 'NR > 1 {
        split($1, l, "-"); jobs = substr(l[length(l) - 1], 5); round = l[length(l)]
        printf "| %s | %s | %s → %s | %s | %s | %d (%d) | %d/%d (%.1f %%) | %d |\n",
          jobs, round, $4, $5, $6, $8, $10, $11, $13, $14, ($14 > 0 ? 100 * $13 / $14 : 0), $12
      }' "$results/runs.tsv"
    echo
    awk -F'\t' 'NR > 1 { split($1, l, "-"); jobs = substr(l[length(l) - 1], 5); w[jobs] += $6; c[jobs]++ }
      END { if (c[1] && c[2]) printf "Speed-up of --jobs 2 over --jobs 1 (mean wall times): %.2f×.\n", (w[1] / c[1]) / (w[2] / c[2]) }' \
      "$results/runs.tsv"
  } >"$results/table.md"
fi
cat "$results/table.md"
echo "project-scaling: results in $results" >&2
