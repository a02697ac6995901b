# Sourced by the project-mode benches (tests/bench/project-allocation.sh,
# tests/bench/project-scaling.sh): one `ctgls generate --project` run without `--class` on a fresh
# copy of a corpus project (tests/corpus/projects.tsv, fetched unedited by tests/corpus/fetch.sh),
# then JaCoCo's branch coverage of every written and verified test class, measured outside ctgls
# as tests/corpus/run.sh measures it: the test class compiled with plain javac against the
# module's main classes, run under the real JUnit in a plain JVM with JaCoCo's agent, and the
# branches of its class (with its nested classes) counted.
#
# The caller sets `results` (a directory) and `bin` (the ctgls binary), then calls
# `bench_setup PROJECT...` once and `bench_run ...` per run. Every run appends one line to
# $results/runs.tsv (header in bench_setup) and leaves its report, log and measurements in
# $results/<label>/.

java_dir=/usr/share/java
bench_corpus="${CTGLS_CORPUS:-$repo/target/corpus}"

# bench_setup PROJECT...: fetches the projects, installs what the measurement needs, builds
# JaCoCo's report helper, writes the header of runs.tsv.
bench_setup() {
  CTGLS_CORPUS="$bench_corpus" bash tests/corpus/fetch.sh "$@"
  need_deb_who=tests/bench
  source tests/lib/need-deb.sh
  need_deb jq junit4 junit5 libjacoco-java procps
  if [ -z "${CTGLS_BIN:-}" ] && [ ! -x "$bin" ]; then
    cargo build --release --locked -p ctgls
  fi
  [ -x "$bin" ] || { echo "tests/bench: no ctgls at $bin (CTGLS_BIN)" >&2; exit 2; }
  mkdir -p "$results/jacoco"
  # The user's home with the corpus's Maven settings (Debian's local repository, offline), as
  # tests/corpus/run.sh sets it: ctgls asks Maven for each module's classpath.
  export HOME="$bench_corpus/home"
  export MAVEN_OPTS="${MAVEN_OPTS:+$MAVEN_OPTS }-Duser.home=$bench_corpus/home"
  jacoco_cp="$java_dir/org.jacoco.core.jar:$java_dir/org.jacoco.agent.jar:$java_dir/asm.jar:$java_dir/asm-commons.jar:$java_dir/asm-tree.jar"
  javac -nowarn -d "$results/jacoco" -cp "$jacoco_cp" tests/support/jacoco/CoverageReport.java
  java -cp "$results/jacoco:$jacoco_cp" CoverageReport extract-agent "$results/jacoco/agent.jar"
  # An execution-data file with no class in it: the branch totals of classes without tests.
  java -javaagent:"$results/jacoco/agent.jar=destfile=$results/jacoco/empty.exec" -version 2>/dev/null
  junit4_cp="$java_dir/junit4.jar:$java_dir/hamcrest-core.jar"
  junit5_cp="$java_dir/junit-platform-console-standalone.jar"
  printf 'label\tproject\targs\tload_before\tload_after\twall_s\tctgls_wall_s\tclass_s\texit\tclasses\tclasses_run\tverified\tjacoco_covered\tjacoco_total\tmean_class_coverage\tctgls_covered\tctgls_total\n' \
    >"$results/runs.tsv"
}

# The row of projects.tsv for PROJECT (its first module): "source module measure".
bench_row() {
  grep -v '^\s*#' tests/corpus/projects.tsv | awk -v p="$1" '$1 == p { print $2, $3, $5; exit }'
}

# The one-minute load average now.
bench_load() { cut -d' ' -f1 /proc/loadavg; }

# bench_main_classes DIR MEASURE OUT: compiles the module's main sources (with the sibling roots
# and /usr/share/java jars MEASURE names, projects.tsv's `measure` column) into OUT/classes, and
# the branch totals of every class into OUT/totals.tsv ("class<TAB>branches", nested classes
# added to their top-level class); prints the classpath for the tests.
bench_main_classes() {
  local dir=$1 spec=$2 out=$3 cp="" roots=() part
  IFS=+ read -r -a parts <<<"$spec"
  for part in "${parts[@]}"; do
    case "$part" in
      *.jar) cp="${cp:+$cp:}$java_dir/$part" ;;
      *) roots+=("$dir/$part") ;;
    esac
  done
  mkdir -p "$out/classes"
  find "${roots[@]}" -name '*.java' >"$out/sources.txt"
  javac -nowarn -proc:none -encoding UTF-8 --release 8 ${cp:+-cp "$cp"} -d "$out/classes" @"$out/sources.txt" \
    >"$out/javac-main.log" 2>&1 || { echo "tests/bench: $dir does not compile: $(grep -m1 error "$out/javac-main.log")" >&2; return 1; }
  java -cp "$results/jacoco:$jacoco_cp" CoverageReport report "$results/jacoco/empty.exec" "$out/classes" \
    | awk -F'\t' '$1 == "class" { top = $2; sub(/\$.*/, "", top); t[top] += $7 + $8 } END { for (c in t) print c "\t" t[c] }' \
    | sort >"$out/totals.tsv"
  local resources=""
  [ -d "$dir/src/main/resources" ] && resources=":$dir/src/main/resources"
  echo "$out/classes$resources${cp:+:$cp}"
}

# bench_measure CLASS TEST_FILE JUNIT CLASSPATH OUT: JaCoCo's "covered total" of CLASS's branches
# under its written tests, or "fail REASON".
bench_measure() {
  local class=$1 test_file=$2 junit=$3 cp=$4 out=$5/${1##*.}
  mkdir -p "$out/test-classes" "$out/cwd"
  local junit_cp=$junit5_cp
  [ "$junit" = 4 ] && junit_cp=$junit4_cp
  if ! javac -nowarn -encoding UTF-8 -cp "$cp:$junit_cp" -d "$out/test-classes" "$test_file" >"$out/javac-test.log" 2>&1; then
    echo "fail the test class does not compile with plain javac"
    return
  fi
  local runner=(org.junit.platform.console.ConsoleLauncher --disable-banner --details=summary --select-class "${class}GeneratedTest")
  [ "$junit" = 4 ] && runner=(org.junit.runner.JUnitCore "${class}GeneratedTest")
  if ! (cd "$out/cwd" && timeout 300 java -javaagent:"$results/jacoco/agent.jar=destfile=$out/jacoco.exec" \
    -cp "$out/test-classes:$cp:$junit_cp" "${runner[@]}" >"$out/junit.log" 2>&1); then
    echo "fail the tests fail under plain JUnit"
    return
  fi
  java -cp "$results/jacoco:$jacoco_cp" CoverageReport report "$out/jacoco.exec" "$5/../main/classes" >"$out/coverage.tsv"
  awk -F'\t' -v c="$class" '$1 == "class" && ($2 == c || index($2, c "$") == 1) { cov += $7; mis += $8 }
    END { print cov + 0, cov + mis }' "$out/coverage.tsv"
}

# bench_run LABEL PROJECT CTGLS_ARGS...: `ctgls generate --project <fresh copy> --seed $seed
# --report … CTGLS_ARGS…`, then the measurement; appends a line to runs.tsv and prints it.
# The project's coverage counts every class ctgls planned or skipped: a class without verified
# tests counts 0 of its branches (totals from JaCoCo over the module's main classes).
bench_run() {
  local label=$1 project=$2
  shift 2
  local source module spec
  read -r source module spec <<<"$(bench_row "$project")"
  [ -n "$source" ] || { echo "tests/bench: $project is not in tests/corpus/projects.tsv" >&2; return 1; }
  local out="$results/$label"
  rm -rf "$out"
  mkdir -p "$out/measure"
  cp -a "$bench_corpus/src/$source" "$out/work"
  local dir="$out/work/$module"
  local load_before load_after started ended status=0
  load_before=$(bench_load)
  started=$(date +%s.%N)
  (cd "$dir" && "$bin" generate --project "$dir" --seed "${seed:-0}" --report "$out/report.json" "$@") \
    >"$out/ctgls.log" 2>&1 || status=$?
  ended=$(date +%s.%N)
  load_after=$(bench_load)
  local cp
  cp=$(bench_main_classes "$dir" "$spec" "$out/main") || return 1
  : >"$out/classes.tsv"
  local class entry tests junit verified test_file result covered total
  # Every class the run considered: planned (run or failed) and skipped.
  for class in $(jq -r '[.classes[].class, (.project.skipped[]?.class)] | unique | .[]' "$out/report.json" 2>/dev/null); do
    total=$(awk -F'\t' -v c="$class" '$1 == c { print $2 }' "$out/main/totals.tsv")
    covered=0 result="no verified tests"
    entry=$(jq -c --arg c "$class" '.classes[] | select(.class == $c)' "$out/report.json")
    if [ -n "$entry" ] && [ "$(jq -r '.status' <<<"$entry")" = ok ]; then
      tests=$(jq -r '.tests_written' <<<"$entry")
      junit=$(jq -r '.junit' <<<"$entry")
      verified=$(jq -r '.verified_with_junit' <<<"$entry")
      test_file=$(jq -r '.test_file // ""' <<<"$entry")
      [ -n "$test_file" ] && [ "${test_file:0:1}" != / ] && test_file="$dir/$test_file"
      if [ "$tests" != 0 ] && [ "$verified" = true ] && [ -f "$test_file" ]; then
        read -r first rest <<<"$(bench_measure "$class" "$test_file" "$junit" "$cp" "$out/measure")"
        if [ "$first" = fail ]; then
          result=$rest
        else
          covered=$first total=$rest result=ok
        fi
      fi
    elif [ -n "$entry" ]; then
      result="status $(jq -r '.status' <<<"$entry")"
    else
      result="skipped: $(jq -r --arg c "$class" '.project.skipped[] | select(.class == $c) | .reason' "$out/report.json")"
    fi
    printf '%s\t%s\t%s\t%s\t%s\n' "$class" "$covered" "${total:-0}" \
      "$(jq -r --arg c "$class" '[.classes[] | select(.class == $c) | .budget_seconds // empty] | first // "-"' "$out/report.json")" \
      "$result" >>"$out/classes.tsv"
  done
  local line
  line=$(awk -F'\t' -v label="$label" -v project="$project" -v args="$*" -v lb="$load_before" -v la="$load_after" \
    -v wall="$(awk -v a="$started" -v b="$ended" 'BEGIN { printf "%.1f", b - a }')" -v status="$status" \
    -v facts="$(jq -r '[(.project.wall_seconds // 0), (.project.class_seconds // 0), (.classes | length), (.project.branches.covered // 0), (.project.branches.total // 0)] | map(tostring) | join(" ")' "$out/report.json" 2>/dev/null || echo '0 0 0 0 0')" '
    { n++; cov += $2; tot += $3; if ($5 == "ok") v++; if ($3 > 0) { m += $2 / $3; mn++ } }
    END {
      split(facts, f, " ")
      printf "%s\t%s\t%s\t%s\t%s\t%s\t%.1f\t%.1f\t%s\t%d\t%d\t%d\t%d\t%d\t%.3f\t%d\t%d\n",
        label, project, args, lb, la, wall, f[1], f[2], status, n, f[3], v, cov, tot,
        (mn > 0 ? m / mn : 0), f[4], f[5]
    }' "$out/classes.tsv")
  echo "$line" >>"$results/runs.tsv"
  echo "$line"
}
