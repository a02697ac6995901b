#!/usr/bin/env bash
# Weak mutation as a search criterion (Fraser and Arcuri, "Achieving Scalable Mutation-based
# Generation of Whole Test Suites") against the default criteria, bounded by executions so that
# the load of a shared machine does not decide: for each subject, seed and arm, `ctgls generate
# --max-executions N --mutation` on a fresh copy of the project, once with the default criteria
# (branch, line, method, exception) and once with `weak-mutation` added. Reads ctgls's JSON
# report: branches covered by the verified tests, the mutation analysis of the written tests
# (killed, reached, mutants of the file), tests written, assertions per test.
#
#   bash tests/bench/weak-mutation.sh                 # the job fixtures and three corpus classes
#
# Environment: CTGLS_BIN (default target/release/ctgls), CTGLS_CORPUS (default target/corpus,
# fetched by tests/corpus/fetch.sh), CTGLS_BENCH_EXECUTIONS (default 1000), CTGLS_BENCH_SEEDS
# (default "1 2 3"), CTGLS_BENCH_BUDGET (seconds per class, large enough that executions end the
# search; default 300; the mutation analysis gets a fifth of it, and what it could not run in
# that time is `not_analysed`), CTGLS_BENCH_RESULTS (default $CTGLS_CORPUS/bench/weak-mutation-<UTC time>).
#
# Subjects: `fixture` (ctg's job fixture `subjects`: Triangle, Calendar, Parser, Inventory) and
# the corpus modules java-diff-utils (`patch.Chunk`, `text.DiffRowGenerator`) and commons-csv
# (`CSVParser`). The arms alternate which goes first from one seed to the next. Prints one TSV row
# per class and run (also in $results/runs.tsv), with the one-minute load before each run.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD

bin="${CTGLS_BIN:-$repo/target/release/ctgls}"
corpus="${CTGLS_CORPUS:-$repo/target/corpus}"
executions="${CTGLS_BENCH_EXECUTIONS:-1000}"
seeds="${CTGLS_BENCH_SEEDS:-1 2 3}"
budget="${CTGLS_BENCH_BUDGET:-300}"
results="${CTGLS_BENCH_RESULTS:-$corpus/bench/weak-mutation-$(date -u +%Y%m%dT%H%M%SZ)}"
mkdir -p "$results"
# Maven's offline settings for Debian's local repository (tests/corpus/fetch.sh writes them).
export HOME="$corpus/home"
export MAVEN_OPTS="${MAVEN_OPTS:+$MAVEN_OPTS }-Duser.home=$corpus/home"

# name | project directory to copy | module inside it | classes
subjects=(
  "fixture|server/crates/ctg/tests/fixtures/job/subjects|.|job.Triangle job.Calendar job.Parser job.Inventory"
  "java-diff-utils|$corpus/src/java-diff-utils|java-diff-utils|com.github.difflib.patch.Chunk com.github.difflib.text.DiffRowGenerator"
  "commons-csv|$corpus/src/commons-csv|.|org.apache.commons.csv.CSVParser"
)
default_criteria=branch,line,method,exception

tsv="$results/runs.tsv"
printf 'subject\tclass\tarm\tseed\tload\tbranches\tbranches_total\tkilled\treached\tnot_analysed\tmutants\ttests\tassertions_per_test\twall_s\n' | tee "$tsv"
turn=0
for seed in $seeds; do
  arms=(default weak-mutation)
  [ $((turn % 2)) = 1 ] && arms=(weak-mutation default)
  turn=$((turn + 1))
  for subject in "${subjects[@]}"; do
    IFS='|' read -r name dir module classes <<<"$subject"
    for arm in "${arms[@]}"; do
      criteria=$default_criteria
      [ "$arm" = weak-mutation ] && criteria=$default_criteria,weak-mutation
      work="$results/work/$name-$arm-$seed"
      rm -rf "$work"
      mkdir -p "$work"
      cp -r "$dir/." "$work/"
      load=$(cut -d' ' -f1 /proc/loadavg)
      class_args=()
      for class in $classes; do class_args+=(--class "$class"); done
      "$bin" generate --project "$work/$module" "${class_args[@]}" --budget "$budget" \
        --max-executions "$executions" --seed "$seed" --criteria "$criteria" --mutation \
        --report "$results/$name-$arm-$seed.json" --quiet >"$results/$name-$arm-$seed.log" 2>&1 || true
      python3 - "$results/$name-$arm-$seed.json" "$name" "$arm" "$seed" "$load" <<'PY' | tee -a "$tsv"
import json, sys
path, name, arm, seed, load = sys.argv[1:]
try:
    report = json.load(open(path))
except (OSError, ValueError):
    print(f"{name}\t-\t{arm}\t{seed}\t{load}\tno report")
    sys.exit()
for c in report["classes"]:
    m = c.get("mutation") or {}
    b = c.get("branches") or {}
    print("\t".join(str(x) for x in [
        name, c["class"].rsplit(".", 1)[-1], arm, seed, load,
        b.get("covered", "-"), b.get("total", "-"),
        m.get("killed", "-"), m.get("reached", "-"), m.get("not_analysed", "-"),
        m.get("mutants", "-"),
        c.get("tests_written", "-"), round(m.get("assertions_per_test", 0), 2),
        round(c.get("wall_seconds", 0), 1)]))
PY
    done
  done
done
