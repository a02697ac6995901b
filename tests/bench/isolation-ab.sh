#!/usr/bin/env bash
# Test executions and branch coverage of `ctgls generate` on the real subjects, for two ctgls
# binaries run alternately (A then B per class, same budget and seed), to compare what a change
# of the worker's isolation or speed buys. Subjects: `bash tests/bench/fetch-subjects.sh`.
#
#   bash tests/bench/isolation-ab.sh BINARY_A BINARY_B [BUDGET]
#
# Prints one row per class and binary: executions, those in a fresh class loader, the search's
# seconds, ctgls branch coverage, wall seconds, and the first reason a loader was not reused.
set -euo pipefail
cd "$(dirname "$0")/../.."
a=$1
b=$2
budget=${3:-10}
subjects=target/subjects
classes=(
  "lang3 org.apache.commons.lang3.CharUtils"
  "lang3 org.apache.commons.lang3.BooleanUtils"
  "lang3 org.apache.commons.lang3.math.Fraction"
  "codec org.apache.commons.codec.binary.Hex"
  "codec org.apache.commons.codec.language.Soundex"
  "codec org.apache.commons.codec.language.Metaphone"
  "io org.apache.commons.io.FilenameUtils"
  "io org.apache.commons.io.HexDump"
  "io org.apache.commons.io.input.CharSequenceReader"
  "collections org.apache.commons.collections4.comparators.FixedOrderComparator"
  "collections org.apache.commons.collections4.map.LRUMap"
  "collections org.apache.commons.collections4.iterators.ArrayIterator"
)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
printf '%-22s %-3s %11s %7s %8s %9s %6s  %s\n' class bin executions fresh search branches wall "loader dropped"
for row in "${classes[@]}"; do
  read -r subject class <<<"$row"
  for which in A B; do
    bin=$a
    [ "$which" = B ] && bin=$b
    rm -rf "$scratch/out"
    "$bin" generate --project "$subjects/$subject" --source-root src --class "$class" \
      --budget "$budget" --report "$scratch/r.json" --out "$scratch/out" >/dev/null 2>&1 || true
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
fresh = c.get("fresh_loader_executions")
print(f"{name:<22} {sys.argv[3]:<3} {c['executions']:>11} {fresh if fresh is not None else '-':>7} "
      f"{p['search']:>7.1f}s {b['covered']:>4}/{b['total']:<4} {c['wall_seconds']:>5.1f}s  "
      f"{(c.get('loader_dropped') or '')[:90]}")
PY
  done
done
