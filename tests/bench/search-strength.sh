#!/usr/bin/env bash
# Issue #19's benchmark: two arms of `ctgls generate --class ...` over corpus classes
# (tests/corpus/projects.tsv, fetched unedited by tests/corpus/fetch.sh), each arm a binary and
# its flags, for several seeds at one budget (and, optionally, an executions bound). Per class,
# arm and seed: JaCoCo's branch coverage of the written, verified tests (measured outside ctgls
# as tests/corpus/run.sh measures it: plain javac, the real JUnit in a plain JVM, JaCoCo's agent;
# tests/bench/project-lib.sh), the mutation score from ctgls's report (`--mutation` only;
# `score_all_assertions` beside it: the score had every planned assertion been kept), and the
# mean lines and assertions per written test (counted in the written file: the lines of a test
# method's body, and its `assert...(`/`fail(` calls).
#
#   bash tests/bench/search-strength.sh
#   CTGLS_ARGS_B=--mutation bash tests/bench/search-strength.sh            # mutation off vs on
#   CTGLS_BIN_A=/tmp/ctgls-main CTGLS_BIN_B=target/release/ctgls bash tests/bench/search-strength.sh
#
# Environment: CTGLS_BIN_A, CTGLS_BIN_B (default target/release/ctgls, built when missing),
# CTGLS_ARGS_A, CTGLS_ARGS_B (extra flags of each arm, split on spaces; default none),
# CTGLS_BENCH_BUDGET (seconds per class, default 10), CTGLS_BENCH_SEEDS (default "1 2 3"),
# CTGLS_BENCH_MAX_EXECUTIONS (`--max-executions`, default none: time-bounded),
# CTGLS_BENCH_ARMS (default "A B", alternating: "B" runs one arm only, whose rows can be
# joined to an earlier run's other arm and tabled with CTGLS_BENCH_TABLE_ONLY),
# CTGLS_BENCH_CLASSES (space-separated PROJECT:CLASS, default ten classes of json-simple,
# java-diff-utils and commons-csv), CTGLS_CORPUS (default target/corpus),
# CTGLS_BENCH_RESULTS (default $CTGLS_CORPUS/bench/strength-<UTC time>).
#
# Each (seed, project) runs both arms on fresh copies of the unedited tree, the arm that goes
# first alternating, so a change of the machine's load falls on both; the one-minute load
# average before and after every run is recorded. Writes $results/classes.tsv (one line per arm,
# seed and class) and $results/table.md (per class and arm the means over the seeds, then the
# mean over the classes), and prints the table.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD

budget="${CTGLS_BENCH_BUDGET:-10}"
seeds="${CTGLS_BENCH_SEEDS:-1 2 3}"
max_executions="${CTGLS_BENCH_MAX_EXECUTIONS:-}"
bin="${CTGLS_BIN_A:-$repo/target/release/ctgls}"
bin_a=$bin
bin_b="${CTGLS_BIN_B:-$repo/target/release/ctgls}"
read -r -a args_a <<<"${CTGLS_ARGS_A:-}"
read -r -a args_b <<<"${CTGLS_ARGS_B:-}"
results="${CTGLS_BENCH_RESULTS:-${CTGLS_CORPUS:-$repo/target/corpus}/bench/strength-$(date -u +%Y%m%dT%H%M%SZ)}"
classes="${CTGLS_BENCH_CLASSES:-json-simple:org.json.simple.Jsoner json-simple:org.json.simple.JsonObject json-simple:org.json.simple.JSONValue json-simple:org.json.simple.parser.JSONParser java-diff-utils:com.github.difflib.DiffUtils java-diff-utils:com.github.difflib.UnifiedDiffUtils java-diff-utils:com.github.difflib.text.DiffRowGenerator java-diff-utils:com.github.difflib.patch.Chunk commons-csv:org.apache.commons.csv.CSVFormat commons-csv:org.apache.commons.csv.Lexer}"

projects=()
for pc in $classes; do
  p=${pc%%:*}
  printf '%s\n' ${projects[@]+"${projects[@]}"} | grep -qx "$p" || projects+=("$p")
done

source tests/bench/project-lib.sh

# Per class and arm, means over the seeds: JaCoCo branch coverage (a class without verified
# tests counts 0), mutation score, tests, lines and assertions per test; then the means over the
# classes both arms ran. Lines and assertions per test are the totals over the seeds' written
# tests.
print_table() {
{
  echo "Arms: A = \`$bin_a ${args_a[*]:-}\`, B = \`$bin_b ${args_b[*]:-}\`; budget $budget s per class," \
    "seeds $seeds${max_executions:+, --max-executions $max_executions}; load $(awk -F'\t' 'NR > 1 { print $5; print $6 }' "$results/classes.tsv" | sort -n | sed -n '1p;$p' | paste -sd- -)."
  echo
  echo "| class | A: JaCoCo | B: JaCoCo | A: mutation (all assertions) | B: mutation (all assertions) | A: tests | B: tests | A: lines/test | B: lines/test | A: assertions/test | B: assertions/test |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  awk -F'\t' '
    NR == 1 { next }
    {
      k = $4 SUBSEP $1
      if (!($4 in seen)) { seen[$4] = 1; order[++n] = $4 }
      runs[k]++
      if ($10 > 0) cov[k] += $9 / $10
      tests[k] += $8; lines[k] += $14; asserts[k] += $15
      if ($12 != "-") { ms[k] += $12; mn[k]++ }
      if ($13 != "-") { ma[k] += $13; man[k]++ }
    }
    function pct(k) { return runs[k] ? sprintf("%.1f %%", 100 * cov[k] / runs[k]) : "-" }
    function mut(k) { return mn[k] ? sprintf("%.2f (%.2f)", ms[k] / mn[k], ma[k] / man[k]) : "-" }
    function per(a, k) { return tests[k] ? sprintf("%.1f", a[k] / tests[k]) : "-" }
    END {
      for (i = 1; i <= n; i++) {
        c = order[i]; a = c SUBSEP "A"; b = c SUBSEP "B"
        short = c; sub(/.*\./, "", short)
        printf "| `%s` | %s | %s | %s | %s | %.1f | %.1f | %s | %s | %s | %s |\n", short, pct(a), pct(b), mut(a), mut(b),
          runs[a] ? tests[a] / runs[a] : 0, runs[b] ? tests[b] / runs[b] : 0,
          per(lines, a), per(lines, b), per(asserts, a), per(asserts, b)
        # The means are over the classes both arms ran (an interrupted run has some in one arm only).
        if (!(runs[a] && runs[b])) continue
        both++
        for (arm = 0; arm < 2; arm++) {
          k = c SUBSEP (arm ? "B" : "A")
          if (runs[k]) { mc[arm] += cov[k] / runs[k]; cn[arm]++ }
          if (mn[k]) { mm[arm] += ms[k] / mn[k]; mma[arm] += ma[k] / man[k]; mmn[arm]++ }
          if (tests[k]) { ml[arm] += lines[k] / tests[k]; mas[arm] += asserts[k] / tests[k]; mt[arm]++ }
          tt[arm] += runs[k] ? tests[k] / runs[k] : 0
        }
      }
      f = "| **mean** | %s | %s | %s | %s | %.1f | %.1f | %s | %s | %s | %s |\n"
      printf f, (cn[0] ? sprintf("%.1f %%", 100 * mc[0] / cn[0]) : "-"), (cn[1] ? sprintf("%.1f %%", 100 * mc[1] / cn[1]) : "-"),
        (mmn[0] ? sprintf("%.2f (%.2f)", mm[0] / mmn[0], mma[0] / mmn[0]) : "-"),
        (mmn[1] ? sprintf("%.2f (%.2f)", mm[1] / mmn[1], mma[1] / mmn[1]) : "-"),
        (both ? tt[0] / both : 0), (both ? tt[1] / both : 0),
        (mt[0] ? sprintf("%.1f", ml[0] / mt[0]) : "-"), (mt[1] ? sprintf("%.1f", ml[1] / mt[1]) : "-"),
        (mt[0] ? sprintf("%.1f", mas[0] / mt[0]) : "-"), (mt[1] ? sprintf("%.1f", mas[1] / mt[1]) : "-")
    }' "$results/classes.tsv"
} >"$results/table.md"
}

# CTGLS_BENCH_TABLE_ONLY=1 with CTGLS_BENCH_RESULTS: the table of an earlier (or interrupted)
# run's classes.tsv, nothing run.
if [ -n "${CTGLS_BENCH_TABLE_ONLY:-}" ]; then
  print_table
  cat "$results/table.md"
  exit 0
fi

CTGLS_BIN="${CTGLS_BIN_A:-}" bench_setup "${projects[@]}"
[ -x "$bin_b" ] || { echo "search-strength: no ctgls at $bin_b (CTGLS_BIN_B)" >&2; exit 2; }

# test_shape FILE: "tests lines assertions" of a written test class: test methods (`@Test`),
# the lines of their bodies (between the method's braces, blank lines left out) and their
# assertion calls (`assertX(`, `fail(`; JUnit 4's `@Test(expected = ...)` counts one).
test_shape() {
  awk '
    /@Test/ { pending = 1; if ($0 ~ /expected *=/) asserts++; next }
    pending && /\{ *$/ { pending = 0; inside = 1; depth = 1; tests++; next }
    inside {
      # Literals may hold braces and calls: counted without them.
      line = $0
      gsub(/"([^"\\]|\\.)*"/, "\"\"", line); gsub(/\047([^\047\\]|\\.)+\047/, "0", line)
      code = line
      opened = gsub(/\{/, "{", line); closed = gsub(/\}/, "}", line)
      depth += opened - closed
      if (depth <= 0) { inside = 0; next }
      if ($0 !~ /^[ \t]*$/) lines++
      asserts += gsub(/(^|[^A-Za-z0-9_.])(assert[A-Z][A-Za-z]*|fail)\(/, "&", code)
    }
    END { printf "%d %d %d\n", tests, lines, asserts }' "$1"
}

printf 'arm\tseed\tproject\tclass\tload_before\tload_after\tstatus\ttests\tjacoco_covered\tjacoco_total\tctgls_branches\tmutation_score\tscore_all_assertions\tlines\tassertions\tresult\n' \
  >"$results/classes.tsv"

# run_arm ARM PROJECT SEED CLASS...: one `ctgls generate` of the arm over the project's classes.
empty='{}'
run_arm() {
  local arm=$1 project=$2 seed=$3
  shift 3
  local source module spec
  read -r source module spec <<<"$(bench_row "$project")"
  local label="$arm-$project-$seed" out
  out="$results/$label"
  rm -rf "$out"
  mkdir -p "$out"
  cp -a "$bench_corpus/src/$source" "$out/work"
  local dir="$out/work/$module" arm_bin=$bin_a arm_args=(${args_a[@]+"${args_a[@]}"})
  if [ "$arm" = B ]; then
    arm_bin=$bin_b
    arm_args=(${args_b[@]+"${args_b[@]}"})
  fi
  local class_args=() class
  for class in "$@"; do class_args+=(--class "$class"); done
  local load_before load_after
  load_before=$(bench_load)
  echo "search-strength: arm $arm, $project, seed $seed (load $load_before)" >&2
  (cd "$dir" && "$arm_bin" generate --project "$dir" "${class_args[@]}" --budget "$budget" --seed "$seed" \
    ${max_executions:+--max-executions "$max_executions"} --report "$out/report.json" ${arm_args[@]+"${arm_args[@]}"}) \
    >"$out/ctgls.log" 2>&1 || true
  load_after=$(bench_load)
  # The module's main classes, compiled once per project for the measurement.
  local main="$results/main-$project"
  if [ ! -f "$main/cp" ]; then
    bench_main_classes "$bench_corpus/src/$source/$module" "$spec" "$main/main" >"$main.cp.tmp" || return 0
    mkdir -p "$main"
    mv "$main.cp.tmp" "$main/cp"
  fi
  local cp entry status tests junit test_file covered total result shape score all
  cp=$(cat "$main/cp")
  for class in "$@"; do
    entry=$(jq -c --arg c "$class" '.classes[]? | select(.class == $c)' "$out/report.json" 2>/dev/null || true)
    status=$(jq -r '.status // "missing"' <<<"${entry:-$empty}")
    tests=0 covered=0 total=0 result="no verified tests" shape="0 0 0" score=- all=-
    if [ "$status" = ok ]; then
      tests=$(jq -r '.tests_written' <<<"$entry")
      junit=$(jq -r '.junit' <<<"$entry")
      test_file=$(jq -r '.test_file // ""' <<<"$entry")
      score=$(jq -r '.mutation.score // "-"' <<<"$entry")
      all=$(jq -r '.mutation.score_all_assertions // "-"' <<<"$entry")
      if [ "$tests" != 0 ] && [ "$(jq -r '.verified_with_junit' <<<"$entry")" = true ] && [ -f "$test_file" ]; then
        shape=$(test_shape "$test_file")
        read -r covered total <<<"$(bench_measure "$class" "$test_file" "$junit" "$cp" "$main/$label")"
        if [ "$covered" = fail ]; then
          result=$total covered=0 total=0
        else
          result=ok
        fi
      fi
    fi
    read -r _ lines asserts <<<"$shape"
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$arm" "$seed" "$project" "$class" \
      "$load_before" "$load_after" "$status" "$tests" "$covered" "$total" \
      "$(jq -r '"\(.branches.covered // 0)/\(.branches.total // 0)"' <<<"${entry:-$empty}")" \
      "$score" "$all" "$lines" "$asserts" "$result" >>"$results/classes.tsv"
  done
}

turn=0
for seed in $seeds; do
  for project in "${projects[@]}"; do
    mine=()
    for pc in $classes; do
      [ "${pc%%:*}" = "$project" ] && mine+=("${pc#*:}")
    done
    arms=(A B)
    [ $((turn % 2)) = 1 ] && arms=(B A)
    turn=$((turn + 1))
    [ -n "${CTGLS_BENCH_ARMS:-}" ] && read -r -a arms <<<"$CTGLS_BENCH_ARMS"
    for arm in "${arms[@]}"; do
      run_arm "$arm" "$project" "$seed" "${mine[@]}"
    done
  done
done

print_table
cat "$results/table.md"
echo "search-strength: results in $results" >&2
