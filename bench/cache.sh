#!/usr/bin/env bash
# Result cache benchmark (issue 9): the same lint of a real repository without the cache, with an
# empty cache (cold: lints and writes every result) and with a full one (warm: reads them), side by
# side in one invocation, with each run's peak memory. Also the memory of 1 and of 3 copies of the
# repository in one run (what is kept per file grows the peak; the target is "bounded by the largest
# file plus the per-file facts").
#   bench/cache.sh                       REPO: /usr/lib/python3/dist-packages/torch when present
#   REPO=/path/to/a/checkout RUNS=5 bench/cache.sh
set -euo pipefail
export LC_ALL=C
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
REPO=${REPO:-/usr/lib/python3/dist-packages/torch}
RUNS=${RUNS:-3}
JOBS=${JOBS:-1}
case ${1:-} in
  -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
esac
PERFLINT=$BUILD/perflint
[[ -x $PERFLINT ]] || { echo "no $PERFLINT: build it first (cmake --build $BUILD)" >&2; exit 2; }
[[ -d $REPO ]] || { echo "no repository at $REPO (set REPO=)" >&2; exit 2; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/perflint-cache-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
# A private copy of the .py files: the cache's fingerprint reads modification times, and the
# repository must not change under the runs.
(cd "$REPO" && find . -type f -name '*.py' -not -path '*/.*' -not -path '*/__pycache__/*' -size -10M | tar -cf - -T -) |
  (mkdir -p "$WORK/repo" && tar -C "$WORK/repo" -xf -)
FILES=$(find "$WORK/repo" -name '*.py' | wc -l)
LINES=$(find "$WORK/repo" -name '*.py' -print0 | xargs -0 cat | wc -l)
cd "$WORK"

# run LABEL ARGS...: best wall time of RUNS and the peak RSS of the best run.
run() {
  local label=$1 best="" rss="" t r
  shift
  for ((i = 0; i < RUNS; i++)); do
    [[ $label == cold* ]] && rm -rf "$WORK/cache"
    # Touched: a new modification time before every run (a run only re-lints what is stale once).
    [[ $label == touched* ]] && touch "$TOUCHED"
    /usr/bin/time -f '%e %M' -o "$WORK/time" "$PERFLINT" --isolated --jobs "$JOBS" --exit-zero \
      --output-format json -o "$WORK/out.json" "$@" > /dev/null 2>&1 || true
    read -r t r < "$WORK/time"
    if [[ -z $best ]] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$t rss=$r; fi
  done
  printf '%-34s %8.3f s %10d KB\n' "$label" "$best" "$rss"
  local name=${label%% *}
  name=${name//[^A-Za-z]/}
  printf -v "T_$name" '%s' "$best"
}

echo "repository: $REPO ($FILES files, $LINES lines); perflint $("$PERFLINT" --version | cut -d' ' -f2), --jobs $JOBS, best of $RUNS"
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-34s %10s %13s\n' "run" "time" "peak RSS"
run "nocache (--no-cache)" --no-cache repo
run "cold (empty cache)" --cache-dir "$WORK/cache" repo
run "warm (cache full, nothing changed)" --cache-dir "$WORK/cache" repo
TOUCHED=$(find "$WORK/repo" -name '*.py' | sort | sed -n 1p)  # one file of the project changed
run "touched (one file's mtime changed)" --cache-dir "$WORK/cache" repo
# Memory: three copies of the repository in one run against one.
cp -r "$WORK/repo" "$WORK/repo2"
cp -r "$WORK/repo" "$WORK/repo3"
run "memory: 3 copies, --no-cache" --no-cache repo repo2 repo3
echo
awk -v n="$T_nocache" -v c="$T_cold" -v w="$T_warm" 'BEGIN {
  printf "cold / no cache: %.2fx (writing the cache costs this much)\n", c / n
  printf "warm / no cache: %.2fx (a second run over an unchanged tree)\n", w / n }'
echo "(touched: the results of the touched file's directory are stale (its siblings' stats are in their keys); the"
echo " rest of the project only when the linker's answers for a file change)"
