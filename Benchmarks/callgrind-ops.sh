#!/bin/sh
# Instructions per operation, counted by callgrind (repeatable on a shared machine, unlike
# times). Each operation of each engine runs once in a process of its own, at a tenth of the
# issue's sizes (callgrind runs about fifty times slower), counted only inside
# `profiledOperation` (see Sources/objectgraph-bench/Profile.swift).
#
# usage: Benchmarks/callgrind-ops.sh [MODEL ...]     (default: seed002 dashboard)
#   ENGINES="og raw grdb"  OPERATIONS="insert fetchAll …"  OUT=dir (keeps the callgrind files)
#   SIZE=--quick (default) or SIZE= for the issue's sizes
set -eu
cd "$(dirname "$0")"
command -v valgrind >/dev/null || { echo "valgrind is missing: apt-get install valgrind" >&2; exit 1; }
swift build -c release --product objectgraph-bench >/dev/null
models=${*:-seed002 dashboard}
engines=${ENGINES:-og raw grdb}
operations=${OPERATIONS:-insert fetchAll fetchByKey update relationship}
size=${SIZE---quick}
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
printf '%-10s %-6s %-13s %15s\n' model engine operation instructions
for model in $models; do
  for operation in $operations; do
    for engine in $engines; do
      file="$out/$model-$engine-$operation.callgrind"
      valgrind --tool=callgrind --toggle-collect='*profiledOperation*' --callgrind-out-file="$file" \
        .build/release/objectgraph-bench --profile "$model" "$engine" "$operation" $size >/dev/null 2>"$file.log"
      count=$(sed -n 's/.*Collected : //p' "$file.log")
      printf '%-10s %-6s %-13s %15s\n' "$model" "$engine" "$operation" "$count"
    done
  done
done
[ -n "${OUT:-}" ] || rm -rf "$out"
