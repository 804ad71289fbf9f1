#!/usr/bin/env bash
# Scaling benchmark (issue 9): does perflint's time per line stay flat as one file grows?
#   bench/scaling.sh                 sizes 1k, 10k, 50k, 200k lines; ~1-3 minutes on an idle 2-core machine
#   SIZES="1000 20000" bench/scaling.sh
# Each size is ONE generated file: copies of examples/*.py concatenated, every top-level def/class
# renamed per copy (definitions and uses) so that no two copies share a name, as in throughput.sh.
# A quadratic look-up (every call site scanning every assignment of the file) shows as time per line
# growing with the size; the target is at most 1.5x from the smallest to the largest size.
# Prints, per size: lines, the parse floor (bench_parse_only: read + tree-sitter parse only) and
# perflint --jobs 1 (best of RUNS), microseconds per line, perflint / floor, and the growth of
# perflint's time per line against the smallest size.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
SIZES=${SIZES:-"1000 10000 50000 200000"}
RUNS=${RUNS:-3}
KEEP=${KEEP:-0}
case ${1:-} in
  -h|--help) sed -n '2,10p' "$0"; grep -E '^[A-Z_]+=\$\{' "$0"; exit 0 ;;
esac
PERFLINT=$BUILD/perflint
FLOOR=$BUILD/bench/bench_parse_only
[[ -x $PERFLINT ]] || { echo "no $PERFLINT: build it first (cmake --build $BUILD)" >&2; exit 2; }
[[ -x $FLOOR ]] || { echo "no $FLOOR: build it (ninja -C $BUILD bench_parse_only)" >&2; exit 2; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/perflint-scaling.XXXXXX")
[[ $KEEP == 1 ]] || trap 'rm -rf "$WORK"' EXIT

shopt -s nullglob
examples=("$ROOT"/examples/*.py)
(( ${#examples[@]} > 0 )) || { echo "no examples/*.py" >&2; exit 2; }

# make_file LINES OUT: concatenated renamed copies until the file has at least LINES lines.
make_file() {
  local want=$1 out=$2 i=0 have=0
  : > "$out"
  while (( have < want )); do
    i=$((i + 1))
    for ex in "${examples[@]}"; do
      local names script
      names=$(sed -nE 's/^(def|class) ([A-Za-z_][A-Za-z0-9_]*).*/\2/p' "$ex" | sort -u)
      script="1i # copy $i of $(basename "$ex")"
      for n in $names; do script+=$'\n'"s/\\b$n\\b/${n}_c$i/g"; done
      sed -E "$script" "$ex" >> "$out"
    done
    have=$(wc -l < "$out")
  done
}

# best_of CMD...: the best wall time of RUNS runs, in seconds (output discarded).
best_of() {
  local best="" t0 t1 dt r
  for ((r = 0; r < RUNS; r++)); do
    t0=$EPOCHREALTIME
    "$@" > /dev/null 2> "$WORK/stderr" || { echo "FAILED: $*" >&2; head -n 5 "$WORK/stderr" >&2; exit 1; }
    t1=$EPOCHREALTIME
    dt=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }')
    if [[ -z $best ]] || awk -v a="$dt" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$dt; fi
  done
  echo "$best"
}

floor_run() { "$FLOOR" < "$WORK/list"; }

echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); perflint $("$PERFLINT" --version)"
printf '%9s %9s %11s %11s %11s %11s %9s %9s\n' lines KiB "floor s" "perflint s" "floor us/l" "pfl us/l" "pfl/floor" growth
first_per_line=""
for size in $SIZES; do
  f=$WORK/gen_$size.py
  make_file "$size" "$f"
  echo "$f" > "$WORK/list"
  read -r _ lines bytes _ < <("$FLOOR" < "$WORK/list")
  floor=$(best_of floor_run)
  lint=$(best_of "$PERFLINT" --isolated --no-cache --jobs 1 --exit-zero --max-file-size 1GiB --output-format json -o /dev/null "$f")
  read -r fpl ppl ratio < <(awk -v f="$floor" -v p="$lint" -v l="$lines" \
    'BEGIN { printf "%.2f %.2f %.2f\n", f / l * 1e6, p / l * 1e6, p / f }')
  [[ -n $first_per_line ]] || first_per_line=$ppl
  growth=$(awk -v a="$ppl" -v b="$first_per_line" 'BEGIN { printf "%.2fx", a / b }')
  printf '%9d %9d %11s %11s %11s %11s %9s %9s\n' "$lines" $((bytes / 1024)) "$floor" "$lint" "$fpl" "$ppl" "$ratio" "$growth"
done
echo "target: growth (perflint's time per line against the smallest file) at most 1.50x"
