#!/usr/bin/env bash
# What the start-up archives (class data sharing, jvm::cds) buy `ctgls generate`: each class
# runs alternately without archives (A) and with them (B), same binary, budget and seed; the
# report's phases show the worker's start and first compile, the search, and emission (which
# holds the verification's javac and JUnit runs). Subjects: `bash tests/bench/fetch-subjects.sh`.
#
#   bash tests/bench/cds-ab.sh BINARY [BUDGET] [ROUNDS]
#
# A uses a cache where every archive's training is marked failed (so none is made or used);
# B a cache where the first, unmeasured run made them.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=$1
budget=${2:-10}
rounds=${3:-2}
subjects=target/subjects
classes=(
  "lang3 org.apache.commons.lang3.CharUtils"
  "codec org.apache.commons.codec.binary.Hex"
  "io org.apache.commons.io.FilenameUtils"
  "collections org.apache.commons.collections4.map.LRUMap"
)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
run() { # cache subject class report
  rm -rf "$scratch/out"
  XDG_CACHE_HOME=$1 "$bin" generate --project "$subjects/$2" --source-root src --class "$3" \
    --budget "$budget" --seed 1 --report "$4" --out "$scratch/out" >/dev/null 2>&1 || true
}
# B: made by one run of each subject (the JUnit archive is per set of jars).
for row in "${classes[@]}"; do
  read -r subject class <<<"$row"
  run "$scratch/b" "$subject" "$class" "$scratch/r.json"
done
# A: the same archive directory, every archive marked as failed to make.
mkdir -p "$scratch/a"
cp -r "$scratch/b/ctgls" "$scratch/a/"
for jsa in "$scratch"/a/ctgls/cds/*/*.jsa; do
  rm -f "$jsa" "${jsa%.jsa}.len"
  echo "disabled for the A/B" >"${jsa%.jsa}.failed"
done
printf '%-22s %-3s %6s %8s %7s %9s %6s %9s\n' class bin start compile search emission wall branches
for round in $(seq "$rounds"); do
  for row in "${classes[@]}"; do
    read -r subject class <<<"$row"
    for which in A B; do
      cache=$scratch/a
      [ "$which" = B ] && cache=$scratch/b
      run "$cache" "$subject" "$class" "$scratch/r.json"
      python3 - "$scratch/r.json" "$class" "$which" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
c = r["classes"][0]
name = sys.argv[2].replace("org.apache.commons.", "")
if c.get("status") == "error":
    print(f"{name:<22} {sys.argv[3]:<3} error: {c.get('error')}")
    sys.exit()
p = c["phases_seconds"]
b = c["branches"]
print(f"{name:<22} {sys.argv[3]:<3} {p['start']:>5.2f}s {p['compile']:>7.2f}s {p['search']:>6.2f}s "
      f"{p['emission']:>8.2f}s {c['wall_seconds']:>5.1f}s {b['covered']:>4}/{b['total']:<4}")
PY
    done
  done
done
