#!/usr/bin/env bash
# Runs `ctgls generate` on the corpus (tests/corpus/projects.tsv, fetched by fetch.sh) as a user
# would: pointed at the unedited project or module, no source root, classpath or JUnit flag,
# HOME holding Maven settings for Debian's local repository. Then checks every written test
# class here, outside ctgls: javac, the real JUnit in a plain JVM (no sandbox), and JaCoCo's
# branch coverage of the class under test (the class and its nested classes).
#
#   bash tests/corpus/run.sh                  # every project
#   bash tests/corpus/run.sh json-simple      # some of them
#
# Environment: CTGLS_BIN (default target/release/ctgls, built when missing), CTGLS_CORPUS
# (default target/corpus), CTGLS_CORPUS_BUDGET (seconds per class, default 10),
# CTGLS_CORPUS_SEED (default 0), CTGLS_CORPUS_RESULTS (default $CTGLS_CORPUS/results/<UTC time>),
# CTGLS_CORPUS_CLASSES (comma-separated: only these of the selected projects' classes).
#
# Each run works on fresh copies of the fetched trees (contents unchanged) in the results
# directory, so the generated tests and ctgls's .ctgls/ store of one run never reach the next,
# and the fetched sources stay pristine. It writes there:
#   classes.tsv    one line per class tried (header line first)
#   summary.json   per project and per class, with each failing class's reason
#   table.md       the markdown tables for docs/benchmarks.md
#   <project>-<module>.json / .log   ctgls's report and output; maven-*.log, measure/ logs
#   perturb.tsv    one line per class whose written tests compiled here: the tests emitted, how
#                  many passed under each perturbation (below), those that failed, and from
#                  ctgls's report the perturbed runs' seconds beside the class's wall time
# and prints table.md. Exit status 0 when every step ran, whatever the figures.
#
# Perturbations: after the plain run, each written test class runs again, independently of
# ctgls, in a fresh plain JVM per perturbation (no JaCoCo): `faketime -f +40d` and `-17d`,
# `TZ` and `-Duser.timezone` Pacific/Kiritimati, `-Duser.language=tr -Duser.country=TR`,
# `-Dfile.encoding=ISO-8859-1`, another (empty) working directory outside the results, and a
# seeded random method order (CTGLS_CORPUS_ORDER_SEED, default 42: JUnit 5's
# `MethodOrderer$Random`; JUnit 4's `Request.orderWith(Ordering.shuffledBy)` through
# tests/support/junit4/ShuffledRun.java, JUnitCore having no option for it).
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD

corpus="${CTGLS_CORPUS:-$repo/target/corpus}"
budget="${CTGLS_CORPUS_BUDGET:-10}"
seed="${CTGLS_CORPUS_SEED:-0}"
results="${CTGLS_CORPUS_RESULTS:-$corpus/results/$(date -u +%Y%m%dT%H%M%SZ)}"
bin="${CTGLS_BIN:-$repo/target/release/ctgls}"
order_seed="${CTGLS_CORPUS_ORDER_SEED:-42}"
java_dir=/usr/share/java

bash tests/corpus/fetch.sh "$@"

need_deb_who=tests/corpus/run.sh
source tests/lib/need-deb.sh
need_deb jq junit4 junit5 libjacoco-java faketime

if [ -z "${CTGLS_BIN:-}" ] && [ ! -x "$bin" ]; then
  cargo build --release --locked -p ctgls
fi
[ -x "$bin" ] || { echo "run.sh: no ctgls at $bin (CTGLS_BIN)" >&2; exit 2; }

mkdir -p "$results/work" "$results/measure"
: >"$results/maven.tsv"
# The user's home, holding ~/.m2/settings.xml (fetch.sh writes it). Maven finds settings through
# the JVM's user.home, which comes from the password database, not HOME: MAVEN_OPTS moves it too,
# for the mvn this script runs and for any mvn ctgls runs.
export HOME="$corpus/home"
export MAVEN_OPTS="${MAVEN_OPTS:+$MAVEN_OPTS }-Duser.home=$corpus/home"

# JaCoCo: the report helper of ctg's tests and the runtime agent it extracts.
jacoco_dir="$results/measure/jacoco"
mkdir -p "$jacoco_dir"
jacoco_cp="$java_dir/org.jacoco.core.jar:$java_dir/org.jacoco.agent.jar:$java_dir/asm.jar:$java_dir/asm-commons.jar:$java_dir/asm-tree.jar"
javac -nowarn -d "$jacoco_dir" -cp "$jacoco_cp" tests/support/jacoco/CoverageReport.java
java -cp "$jacoco_dir:$jacoco_cp" CoverageReport extract-agent "$jacoco_dir/agent.jar"

junit4_cp="$java_dir/junit4.jar:$java_dir/hamcrest-core.jar"
junit5_cp="$java_dir/junit-platform-console-standalone.jar"

# JUnit 4 in a seeded random order (JUnitCore has no option for it).
order_dir="$results/measure/junit4-order"
mkdir -p "$order_dir"
javac -nowarn -d "$order_dir" -cp "$junit4_cp" tests/support/junit4/ShuffledRun.java

perturbations=(clock_ahead clock_back time_zone locale charset working_directory order)
perturb_tsv="$results/perturb.tsv"
printf 'project\tmodule\tclass\tjunit\ttests\t%s\tfailing_tests\tfailures\trun_seconds\tctgls_rounds\tctgls_runs\tctgls_seconds\tctgls_clock_shifted\tctgls_removed\twall_seconds\n' \
  "$(IFS=$'\t'; echo "${perturbations[*]}")" >"$perturb_tsv"

tsv="$results/classes.tsv"
printf 'project\tmodule\tclass\tstatus\tverified\ttests\tjunit\tctgls_branches\tjacoco_covered\tjacoco_total\treason\n' >"$tsv"

# One line of classes.tsv; tabs and newlines in the reason become spaces.
record() {
  local reason=${11//$'\t'/ }
  reason=${reason//$'\n'/ }
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8" "$9" "${10}" "$reason" >>"$tsv"
}

# The first Maven error, shortened: what `mvn dependency:build-classpath` says for the module
# with the user's settings. Informational (ctgls asks Maven itself, or not), so the table can
# tell a resolution failure from one of ctgls.
maven_check() {
  local dir=$1 log=$2
  if (cd "$dir" && timeout 300 mvn -o -B dependency:build-classpath -Dmdep.outputFile="$log.cp" >"$log" 2>&1); then
    echo ok
  else
    # The first error that says something: Maven's headers ("Some problems were encountered
    # while processing the POMs:") and blank error lines carry nothing.
    grep -E '^\[ERROR\] ' "$log" | sed -E 's/^(\[ERROR\] *)+//' \
      | grep -v -E '^$|^Some problems were encountered|^The build could not read|^The project .* has [0-9]+ error' \
      | head -n 1 | cut -c1-300
  fi
}

# measure_main KEY MODULE_DIR MEASURE: compiles the module's main sources (with the sibling
# roots and jars MEASURE names) into $results/measure/KEY/classes once; prints the classpath.
measure_main() {
  local key=$1 dir=$2 spec=$3 out="$results/measure/$1"
  local cp="" roots=() part
  IFS=+ read -r -a parts <<<"$spec"
  for part in "${parts[@]}"; do
    case "$part" in
      *.jar) cp="${cp:+$cp:}$java_dir/$part" ;;
      *) roots+=("$dir/$part") ;;
    esac
  done
  if [ ! -f "$out/.compiled" ]; then
    mkdir -p "$out/classes"
    find "${roots[@]}" -name '*.java' >"$out/sources.txt"
    if ! javac -nowarn -proc:none -encoding UTF-8 --release 8 ${cp:+-cp "$cp"} -d "$out/classes" @"$out/sources.txt" >"$out/javac-main.log" 2>&1; then
      echo "main sources do not compile for the measurement: $(grep -m1 error "$out/javac-main.log")" >"$out/.failed"
    fi
    touch "$out/.compiled"
  fi
  # The module's resources (message bundles, say) are on a Maven build's test classpath too.
  local resources=""
  [ -d "$dir/src/main/resources" ] && resources=":$dir/src/main/resources"
  echo "$out/classes$resources${cp:+:$cp}"
}

# measure KEY CLASS TEST_FILE JUNIT CLASSPATH: compiles the written test class and runs it under
# the real JUnit in a plain JVM with JaCoCo's agent; prints "covered total" of the class's
# branches, or "fail REASON".
measure() {
  local key=$1 class=$2 test_file=$3 junit=$4 cp=$5 out="$results/measure/$1/${2##*.}"
  local test_class="${class}GeneratedTest"
  mkdir -p "$out/test-classes" "$out/cwd"
  local junit_cp=$junit5_cp
  [ "$junit" = 4 ] && junit_cp=$junit4_cp
  if ! javac -nowarn -encoding UTF-8 -cp "$cp:$junit_cp" -d "$out/test-classes" "$test_file" >"$out/javac-test.log" 2>&1; then
    echo "fail the written test class does not compile with plain javac: $(grep -m1 error "$out/javac-test.log")"
    return
  fi
  local runner=(org.junit.platform.console.ConsoleLauncher --disable-banner --details=summary --select-class "$test_class")
  [ "$junit" = 4 ] && runner=(org.junit.runner.JUnitCore "$test_class")
  if ! (cd "$out/cwd" && timeout 300 java -javaagent:"$jacoco_dir/agent.jar=destfile=$out/jacoco.exec" \
    -cp "$out/test-classes:$cp:$junit_cp" "${runner[@]}" >"$out/junit.log" 2>&1); then
    local failed
    failed=$(grep -m1 -E 'tests failed|Tests run:.*Failures|^[0-9]+\) ' "$out/junit.log" || true)
    echo "fail the written tests fail under plain JUnit outside ctgls: ${failed:-see $out/junit.log}"
    return
  fi
  java -cp "$jacoco_dir:$jacoco_cp" CoverageReport report "$out/jacoco.exec" "$results/measure/$key/classes" >"$out/coverage.tsv"
  awk -F'\t' -v c="$class" '$1 == "class" && ($2 == c || index($2, c "$") == 1) { cov += $7; mis += $8 }
    END { print cov + 0, cov + mis }' "$out/coverage.tsv"
}

# perturbed_run NAME OUT TEST_CLASS JUNIT CLASSPATH: runs the compiled test class once under the
# perturbation NAME in a fresh plain JVM, its log in OUT/perturb-NAME.log; prints "PASSED RUN"
# and then the names of the failing tests, one a line.
perturbed_run() {
  local name=$1 out=$2 test_class=$3 junit=$4 cp=$5
  local prefix=() env=() flags=() cwd="$out/perturb-cwd/$1" log="$out/perturb-$1.log"
  local junit_cp=$junit5_cp
  [ "$junit" = 4 ] && junit_cp=$junit4_cp
  local runner=(org.junit.platform.console.ConsoleLauncher --disable-banner --details=summary --select-class "$test_class")
  [ "$junit" = 4 ] && runner=(org.junit.runner.JUnitCore "$test_class")
  case "$name" in
    clock_ahead) prefix=(faketime -f +40d) ;;
    clock_back) prefix=(faketime -f -17d) ;;
    time_zone) env=(TZ=Pacific/Kiritimati) flags=(-Duser.timezone=Pacific/Kiritimati) ;;
    locale) flags=(-Duser.language=tr -Duser.country=TR) ;;
    charset) flags=(-Dfile.encoding=ISO-8859-1) ;;
    working_directory) cwd=$(mktemp -d "${TMPDIR:-/tmp}/ctgls-corpus-cwd.XXXXXX") ;;
    order)
      if [ "$junit" = 4 ]; then
        runner=(ShuffledRun "$order_seed" "$test_class")
        junit_cp="$junit_cp:$order_dir"
      else
        flags=("-Djunit.jupiter.testmethod.order.default=org.junit.jupiter.api.MethodOrderer\$Random"
          "-Djunit.jupiter.testmethod.order.random.seed=$order_seed")
      fi
      ;;
  esac
  rm -rf "$out/perturb-cwd/$name"
  mkdir -p "$cwd"
  (cd "$cwd" && timeout 300 env ${env[@]+"${env[@]}"} ${prefix[@]+"${prefix[@]}"} java ${flags[@]+"${flags[@]}"} \
    -cp "$out/test-classes:$cp:$junit_cp" "${runner[@]}" >"$log" 2>&1) || true
  [ "$name" = working_directory ] && rm -rf "$cwd"
  local run passed
  if [ "$junit" = 4 ]; then
    # JUnitCore: "OK (n tests)", or "Tests run: n,  Failures: m" and "k) method(Class)" per failure.
    if run=$(grep -m1 -oE '^OK \([0-9]+ tests?\)' "$log"); then
      run=${run//[^0-9]/}; passed=$run
    elif grep -qE '^Tests run: [0-9]+, +Failures: [0-9]+' "$log"; then
      read -r run failed < <(sed -nE 's/^Tests run: ([0-9]+), +Failures: ([0-9]+).*/\1 \2/p' "$log" | head -n 1)
      passed=$((run - failed))
    else
      run=0; passed=0
    fi
    echo "$passed $run"
    sed -nE 's/^[0-9]+\) ([^(]+)\(.*\)$/\1/p' "$log"
  else
    # The console launcher's summary: "[ n tests successful ]", "[ n tests found ]"; each failure
    # as "MethodSource [className = '…', methodName = '…', …]".
    run=$(sed -nE 's/^\[ *([0-9]+) tests found.*/\1/p' "$log" | head -n 1)
    passed=$(sed -nE 's/^\[ *([0-9]+) tests successful.*/\1/p' "$log" | head -n 1)
    echo "${passed:-0} ${run:-0}"
    grep -oE "MethodSource \[className = '[^']*', methodName = '[^']*'" "$log" | sed -E "s/.*methodName = '([^']*)'/\1/" || true
  fi
}

# perturb PROJECT MODULE KEY CLASS TESTS JUNIT CLASSPATH ENTRY: the perturbed runs of a class whose
# written tests compiled here (measure's test-classes); one line of perturb.tsv.
perturb() {
  local project=$1 module=$2 key=$3 class=$4 tests=$5 junit=$6 cp=$7 entry=$8
  local out="$results/measure/$key/${class##*.}" test_class="${class}GeneratedTest"
  local counts=() failing=() failures=() name first started line
  started=$(date +%s.%N)
  for name in "${perturbations[@]}"; do
    first=1
    while IFS= read -r line; do
      if [ $first = 1 ]; then
        counts+=("${line%% *}/${line##* }")
        first=0
      else
        failing+=("$line")
        failures+=("$name: $line")
      fi
    done < <(perturbed_run "$name" "$out" "$test_class" "$junit" "$cp")
  done
  local seconds distinct
  seconds=$(awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  distinct=$(printf '%s\n' ${failing[@]+"${failing[@]}"} | { grep -v '^$' || true; } | sort -u | wc -l)
  local joined
  joined=$(IFS=';'; echo "${failures[*]:-}")
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$project" "$module" "$class" "$junit" "$tests" \
    "$(IFS=$'\t'; echo "${counts[*]}")" "$distinct" "${joined:--}" "$seconds" \
    "$(jq -r '[.perturbation.rounds // "-", .perturbation.runs // "-", .perturbation.seconds // "-", .perturbation.clock_shifted // "-", (.perturbation.removed // {} | tojson), .wall_seconds // "-"] | map(tostring) | join("\t")' <<<"$entry")" \
    >>"$perturb_tsv"
}

grep -v '^\s*#' tests/corpus/projects.tsv | grep -v '^\s*$' | while read -r project source module classes spec _debs; do
  if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$project"; then continue; fi
  if [ ! -d "$results/work/$source" ]; then
    cp -a "$corpus/src/$source" "$results/work/$source"
  fi
  dir="$results/work/$source/$module"
  key="$project-${module//\//_}"
  [ "$module" = . ] && key=$project
  maven=$(maven_check "$dir" "$results/maven-$key.log")
  echo "run.sh: $key: maven: $maven" >&2

  IFS=, read -r -a class_list <<<"$classes"
  if [ -n "${CTGLS_CORPUS_CLASSES:-}" ]; then
    mapfile -t class_list < <(printf '%s\n' "${class_list[@]}" | grep -Fx -f <(tr , '\n' <<<"$CTGLS_CORPUS_CLASSES") || true)
    [ ${#class_list[@]} -gt 0 ] || continue
  fi
  args=()
  for class in "${class_list[@]}"; do args+=(--class "$class"); done
  report="$results/$key.json"
  started=$(date +%s)
  status=0
  (cd "$dir" && "$bin" generate --project "$dir" "${args[@]}" --budget "$budget" --seed "$seed" --report "$report") \
    >"$results/$key.log" 2>&1 || status=$?
  echo "run.sh: $key: ctgls exit $status in $(($(date +%s) - started)) s" >&2

  cp_measure=$(measure_main "$key" "$dir" "$spec")
  for class in "${class_list[@]}"; do
    if [ ! -f "$report" ]; then
      reason="ctgls wrote no report (exit $status): $(grep -v '^\s*$' "$results/$key.log" | tail -n 3 | tr '\n' ' ')"
      record "$project" "$module" "$class" error no 0 - - - - "$reason"
      continue
    fi
    entry=$(jq -c --arg c "$class" '.classes[] | select(.class == $c)' "$report")
    if [ -z "$entry" ]; then
      record "$project" "$module" "$class" error no 0 - - - - "not in ctgls's report"
      continue
    fi
    cstatus=$(jq -r '.status' <<<"$entry")
    if [ "$cstatus" != ok ]; then
      record "$project" "$module" "$class" "$cstatus" no 0 - - - - "$(jq -r '.error // "no error given"' <<<"$entry")"
      continue
    fi
    tests=$(jq -r '.tests_written' <<<"$entry")
    junit=$(jq -r '.junit' <<<"$entry")
    verified=$(jq -r '.verified_with_junit' <<<"$entry")
    branches=$(jq -r '"\(.branches.covered)/\(.branches.total)"' <<<"$entry")
    test_file=$(jq -r '.test_file // ""' <<<"$entry")
    [ -n "$test_file" ] && [ "${test_file:0:1}" != / ] && test_file="$dir/$test_file"
    if [ "$tests" = 0 ] || [ -z "$test_file" ] || [ ! -f "$test_file" ]; then
      reason="no tests written; $(jq -r '[.warnings[]?, (.dropped[]? | "dropped \(.test): \(.reason)")] | .[:3] | join("; ")' <<<"$entry")"
      record "$project" "$module" "$class" ok no 0 "$junit" "$branches" - - "$reason"
      continue
    fi
    if [ "$verified" != true ]; then
      record "$project" "$module" "$class" ok no "$tests" "$junit" "$branches" - - \
        "tests written but not verified with JUnit: $(jq -r '.warnings | join("; ")' <<<"$entry")"
      continue
    fi
    if [ -f "$results/measure/$key/.failed" ]; then
      record "$project" "$module" "$class" ok yes "$tests" "$junit" "$branches" - - "$(cat "$results/measure/$key/.failed")"
      continue
    fi
    read -r first rest <<<"$(measure "$key" "$class" "$test_file" "$junit" "$cp_measure")"
    if [ -f "$results/measure/$key/${class##*.}/test-classes/${class//.//}GeneratedTest.class" ]; then
      perturb "$project" "$module" "$key" "$class" "$tests" "$junit" "$cp_measure" "$entry"
    fi
    if [ "$first" = fail ]; then
      record "$project" "$module" "$class" ok no "$tests" "$junit" "$branches" - - "$rest"
    else
      record "$project" "$module" "$class" ok yes "$tests" "$junit" "$branches" "$first" "$rest" ""
    fi
  done
  printf '%s\t%s\t%s\t%s\n' "$project" "$module" "$maven" "$(cat "$corpus/src/$source.origin")" >>"$results/maven.tsv"
done

# summary.json: per class from classes.tsv, per project the counts and means. A class's JaCoCo
# ratio is covered/total of its bytecode branches; a class without branches has none and is left
# out of the mean; a class without verified tests counts 0 in `mean_all`.
jq -R -s --arg budget "$budget" --arg seed "$seed" --arg date "$(date -u +%Y-%m-%d)" \
  --arg ctgls "$("$bin" --version 2>/dev/null || echo ctgls unknown), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)" \
  --rawfile maven "$results/maven.tsv" '
  def num: if . == "-" or . == "" then null else tonumber end;
  (split("\n") | map(select(length > 0)) | .[1:] | map(split("\t")) | map({
    project: .[0], module: .[1], class: .[2], status: .[3], verified: (.[4] == "yes"),
    tests: (.[5] | tonumber), junit: (.[6] | num), ctgls_branches: (if .[7] == "-" then null else .[7] end),
    jacoco: (if (.[8] | num) == null then null else {covered: (.[8] | num), total: (.[9] | num)} end),
    reason: (if .[10] == "" then null else .[10] end)
  })) as $classes
  | ($maven | split("\n") | map(select(length > 0) | split("\t") | {project: .[0], module: .[1], maven: .[2], origin: .[3]})) as $mvn
  | {
      date: $date, ctgls: $ctgls, budget_seconds: ($budget | tonumber), seed: ($seed | tonumber),
      projects: ($classes | group_by(.project) | map(
        . as $cs
        | ($cs | map(select(.verified and .jacoco != null and .jacoco.total > 0) | .jacoco.covered / .jacoco.total)) as $ratios
        | {
            project: $cs[0].project,
            tried: ($cs | length),
            verified: ($cs | map(select(.verified)) | length),
            mean_jacoco_branch: (if ($ratios | length) > 0 then ($ratios | add / length) else null end),
            mean_jacoco_branch_all: (($cs | map(if .verified and .jacoco != null and .jacoco.total > 0 then .jacoco.covered / .jacoco.total else 0 end) | add) / ($cs | length)),
            maven: ($mvn | map(select(.project == $cs[0].project)) | map({module: .module, maven: .maven, origin: .origin})),
            origin: ($mvn | map(select(.project == $cs[0].project)) | .[0].origin)
          })),
      classes: $classes
    }
  | .total = {tried: (.classes | length), verified: (.classes | map(select(.verified)) | length)}
' "$tsv" >"$results/summary.json"

# table.md: the tables docs/benchmarks.md holds.
jq -r '
  def pct: if . == null then "—" else (. * 1000 | round / 10 | tostring) + " %" end;
  "Run \(.date), \(.ctgls), budget \(.budget_seconds) s per class, seed \(.seed).\n",
  "| project | classes tried | with verified tests | mean JaCoCo branch coverage (classes with tests) | (all tried, 0 without tests) |",
  "|---|---:|---:|---:|---:|",
  (.projects[] | "| \(.project) | \(.tried) | \(.verified) | \(.mean_jacoco_branch | pct) | \(.mean_jacoco_branch_all | pct) |"),
  "| **all** | **\(.total.tried)** | **\(.total.verified)** (\(.total.verified * 1000 / .total.tried | round / 10) %) | | |",
  "",
  "| project | module | class | tests | JUnit | ctgls branches | JaCoCo branches | reason without verified tests |",
  "|---|---|---|---:|---:|---:|---:|---|",
  (.classes[] | "| \(.project) | \(.module) | `\(.class)` | \(.tests) | \(.junit // "—") | \(.ctgls_branches // "—") | \(if .jacoco == null then "—" elif .jacoco.total == 0 then "no branches" else "\(.jacoco.covered)/\(.jacoco.total) (\(.jacoco.covered / .jacoco.total | pct))" end) | \(if .verified then "" else (.reason // "" | gsub("\\|"; "\\|")) end) |"),
  "",
  "| project | module | fetched as | `mvn -o dependency:build-classpath` with the corpus settings |",
  "|---|---|---|---|",
  (.projects[] | .project as $p | .maven[] | "| \($p) | \(.module) | \(.origin) | \(.maven | gsub("\\|"; "\\|")) |")
' "$results/summary.json" >"$results/table.md"

# perturb.json and the perturbation table (appended to table.md): per project and in total, the
# tests emitted (of classes whose tests compiled here), how many passed under each perturbation,
# those that passed under all of them (a test failing under several counts once), and the cost:
# ctgls's perturbed runs (`perturbation.seconds` of its report) beside the classes' wall time.
jq -R -s --arg order_seed "$order_seed" '
  def num: if . == "-" or . == "" then null else tonumber end;
  split("\n") | map(select(length > 0) | split("\t")) | .[0] as $head | .[1:]
  | ($head | index("failing_tests")) as $f
  | ($head[5:$f]) as $names
  | map(. as $row | {
      project: .[0], module: .[1], class: .[2], junit: (.[3] | num), tests: (.[4] | tonumber),
      passed: ([range(0; $names | length)] | map({key: $names[.], value: ($row[5 + .] | split("/") | {passed: (.[0] | tonumber), run: (.[1] | tonumber)})}) | from_entries),
      failing_tests: (.[$f] | tonumber),
      failures: (if .[$f + 1] == "-" then [] else (.[$f + 1] | split(";")) end),
      run_seconds: (.[$f + 2] | num),
      ctgls: {rounds: (.[$f + 3] | num), runs: (.[$f + 4] | num), seconds: (.[$f + 5] | num),
              clock_shifted: .[$f + 6], removed: (.[$f + 7] | fromjson? // {}), wall_seconds: (.[$f + 8] | num)}
    }) as $classes
  | def totals: {
        classes: length,
        tests: (map(.tests) | add // 0),
        passed: ([$names[] as $n | {key: $n, value: (map(.passed[$n].passed) | add // 0)}] | from_entries),
        passing_all: (map(.tests - ([.failing_tests, (.passed | to_entries | map(.value.run - .value.passed) | max // 0), (.tests - (.passed | to_entries | map(.value.run) | min // 0))] | max)) | add // 0),
        ctgls_perturbation_seconds: (map(.ctgls.seconds // 0) | add // 0),
        ctgls_perturbation_runs: (map(.ctgls.runs // 0) | add // 0),
        wall_seconds: (map(.ctgls.wall_seconds // 0) | add // 0),
        run_seconds: (map(.run_seconds // 0) | add // 0)
      };
  {order_seed: ($order_seed | tonumber), perturbations: $names,
   projects: ($classes | group_by(.project) | map({project: .[0].project} + totals)),
   total: ($classes | totals),
   classes: $classes}
' "$perturb_tsv" >"$results/perturb.json"

jq -r '
  def pct: (. * 1000 | round / 10 | tostring) + " %";
  def row($name): "| \($name) | \(.classes) | \(.tests) | \([.passed[]] | map(tostring) | join(" | ")) | \(.passing_all) | \(if .tests > 0 then (.passing_all / .tests | pct) else "—" end) | \(.ctgls_perturbation_runs) / \(.ctgls_perturbation_seconds * 10 | round / 10) s | \(.wall_seconds * 10 | round / 10) s | \(if .wall_seconds > 0 then (.ctgls_perturbation_seconds / .wall_seconds | pct) else "—" end) | \(.run_seconds * 10 | round / 10) s |";
  "",
  "Perturbed runs outside ctgls (plain JUnit, one JVM per perturbation; order seed \(.order_seed)): tests passing per perturbation.",
  "",
  "| project | classes | tests emitted | clock +40 d | clock −17 d | TZ Pacific/Kiritimati | locale tr-TR | ISO-8859-1 | other working dir | random order | pass all | share | ctgls perturbed JVMs / seconds | ctgls class wall time | perturbed share of wall | these runs here |",
  "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  (.projects[] | row(.project)),
  (.total | row("**all**")),
  "",
  (.classes[] | select(.failures | length > 0) | "- `\(.class)`: \(.failures | join("; "))")
' "$results/perturb.json" >>"$results/table.md"

cat "$results/table.md"
echo "run.sh: results in $results" >&2
