#!/usr/bin/env bash
# Lint throughput benchmark: perflint against a bare tree-sitter parse of the same files (the
# floor) and against flake8 and pylint, on one generated corpus, in one run. See bench/README.md.
#
# Usage: bench/throughput.sh            (BUILD=build by default; the knobs below are env variables)
set -euo pipefail
export LC_ALL=C  # EPOCHREALTIME and awk must agree on the decimal point

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-build}
[[ $BUILD = /* ]] || BUILD=$ROOT/$BUILD
COPIES=${COPIES:-200}               # copies of each examples/*.py, each with renamed functions
PKG_DIR=${PKG_DIR:-}                # installed package to add; default torch, else the stdlib
MAX_PKG_FILES=${MAX_PKG_FILES:-5000}
RUNS=${RUNS:-3}                     # runs of each fast command (perflint, floor); best is kept
SLOW_RUNS=${SLOW_RUNS:-2}           # runs of flake8 and pylint
FLAKE8_FILES=${FLAKE8_FILES:-0}     # 0: flake8 on the whole corpus; N: on an N-file subset
PYLINT_FILES=${PYLINT_FILES:-40}    # pylint is slow: it runs on an N-file subset (0: skip it)
JOBS=${JOBS:-$(nproc)}
KEEP=${KEEP:-0}                     # 1: keep the corpus (its path is printed)

case "${1:-}" in
  -h|--help) sed -n '2,5p' "$0"; grep -E '^[A-Z_]+=\$\{' "$0"; exit 0 ;;
esac

PERFLINT=$BUILD/perflint
FLOOR=$BUILD/bench/bench_parse_only
for exe in "$FLOOR"; do
  [[ -x $exe ]] || { echo "missing $exe: build first (cmake --build $BUILD)" >&2; exit 2; }
done
HAVE_PERFLINT=1
[[ -x $PERFLINT ]] || { HAVE_PERFLINT=0; echo "note: $PERFLINT not built; perflint rows skipped" >&2; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/perflint-bench.XXXXXX")
cleanup() { if [[ $KEEP = 1 ]]; then echo "corpus kept in $WORK"; else rm -rf "$WORK"; fi; }
trap cleanup EXIT
CORPUS=$WORK/corpus
mkdir -p "$CORPUS/copies" "$CORPUS/pkg"
cd "$WORK"  # no tool should pick up a config file from the caller's directory

# ---- (a) corpus --------------------------------------------------------------------------------
if [[ -z $PKG_DIR ]]; then
  if [[ -d /usr/lib/python3/dist-packages/torch ]]; then
    PKG_DIR=/usr/lib/python3/dist-packages/torch
  else
    PKG_DIR=$(/usr/bin/python3 -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])' \
              2>/dev/null || echo /usr/lib/python3.11)
  fi
fi

echo "building corpus in $CORPUS ..."
shopt -s nullglob
examples=("$ROOT"/examples/*.py)
(( ${#examples[@]} > 0 )) || { echo "no examples/*.py" >&2; exit 2; }
# Copy i renames every top-level def/class (definition and uses) with a suffix, retunes a few
# defaults and stamps a header, so no two copies are byte-identical.
for ex in "${examples[@]}"; do
  base=$(basename "$ex" .py)
  names=$(sed -nE 's/^(def|class) ([A-Za-z_][A-Za-z0-9_]*).*/\2/p' "$ex" | sort -u)
  for ((i = 1; i <= COPIES; i++)); do
    script="1i # corpus copy $i of $base.py"
    for n in $names; do script+=$'\n'"s/\\b$n\\b/${n}_c$i/g"; done
    script+=$'\n'"s/default=10,/default=$((10 + i % 17)),/"
    script+=$'\n'"s/default=64,/default=$((32 * (1 + i % 4))),/"
    dir=$CORPUS/copies/$(printf 'c%04d' "$i")
    mkdir -p "$dir"
    sed -E "$script" "$ex" > "$dir/$base.py"
  done
done
# The package's Python files, the way perflint would discover them (no hidden or cache dirs,
# nothing over perflint's default 10 MiB limit), first MAX_PKG_FILES in path order.
(cd "$PKG_DIR" && find . -type f -name '*.py' -size -10M \
   -not -path '*/.*' -not -path '*/__pycache__/*' -not -path '*/venv/*' \
   -not -path '*/node_modules/*' | sort | head -n "$MAX_PKG_FILES") > "$WORK/pkg.list"
tar -C "$PKG_DIR" -cf - -T "$WORK/pkg.list" | tar -C "$CORPUS/pkg" -xf -

find "$CORPUS" -type f -name '*.py' | sort > "$WORK/all.list"

# Every k-th file of the corpus, copied to its own directory, for the slow peers.
make_subset() {  # make_subset N DIR LIST
  local n=$1 dir=$2 list=$3
  # A fixed-seed shuffle: the same files every run, a fair mix of example copies and package.
  shuf -n "$n" --random-source=<(yes) "$WORK/all.list" > "$list"
  mkdir -p "$dir"
  sed "s|^$CORPUS/||" "$list" | tar -C "$CORPUS" -cf - -T - | tar -C "$dir" -xf -
  find "$dir" -type f -name '*.py' | sort > "$list"
}

# count_files LIST -> "files lines bytes nodes" from the floor itself (one definition of a line)
count_files() { "$FLOOR" < "$1"; }
read -r ALL_FILES ALL_LINES ALL_BYTES _ < <(count_files "$WORK/all.list")
echo "corpus: $ALL_FILES files, $ALL_LINES lines, $((ALL_BYTES / 1024)) KiB" \
     "($COPIES x ${#examples[@]} example copies + $(wc -l < "$WORK/pkg.list") files of $PKG_DIR)"

# ---- (b) timings -------------------------------------------------------------------------------
# measure RUNS OKCODES cmd... : runs cmd RUNS times (output discarded), sets BEST and MEDIAN in
# seconds; an exit code outside OKCODES (a regex) is a failure of the benchmark.
measure() {
  local runs=$1 ok=$2 t0 t1 rc
  shift 2
  local -a times=()
  for ((r = 0; r < runs; r++)); do
    t0=$EPOCHREALTIME
    rc=0
    "$@" > /dev/null 2> "$WORK/stderr" || rc=$?
    t1=$EPOCHREALTIME
    if ! [[ $rc =~ ^($ok)$ ]]; then
      echo "FAILED (exit $rc): $*" >&2
      head -n 5 "$WORK/stderr" >&2
      return 1
    fi
    times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }')")
  done
  BEST=$(printf '%s\n' "${times[@]}" | sort -g | head -n 1)
  MEDIAN=$(printf '%s\n' "${times[@]}" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
}

ROWS=()
row() {  # row TOOL FILES LINES SECONDS MEDIAN
  ROWS+=("$1|$2|$3|$4|$5|$(awk -v l="$3" -v s="$4" 'BEGIN { printf "%.0f", l / s }')")
}
lps_of() { printf '%s\n' "${ROWS[@]}" | awk -F'|' -v t="$1" '$1 == t { print $6 }'; }

perflint_cmd() {  # perflint_cmd JOBS PATH
  # The help text is read whole first: `grep -q` on the pipe would close it early, and under
  # pipefail perflint's SIGPIPE would make the test fail.
  local help
  help=$("$PERFLINT" --help 2>/dev/null || true)
  local -a iso=()
  [[ $help == *--isolated* ]] && iso=(--isolated)
  # --no-cache: every run lints afresh (a warm result cache would time reading it; bench/cache.sh
  # times that on its own).
  local -a nocache=()
  [[ $help == *--no-cache* ]] && nocache=(--no-cache)
  PL_CMD=("$PERFLINT" "${iso[@]}" "${nocache[@]}" --jobs "$1" --exit-zero --output-format json -o /dev/null "$2")
}

echo "timing (best of $RUNS; flake8/pylint best of $SLOW_RUNS) ..."
cat "$WORK/all.list" | xargs -d '\n' cat > /dev/null  # warm the page cache

measure "$RUNS" 0 sh -c '"$0" < "$1"' "$FLOOR" "$WORK/all.list"
row "parse floor (1 thread)" "$ALL_FILES" "$ALL_LINES" "$BEST" "$MEDIAN"
if (( HAVE_PERFLINT )); then
  perflint_cmd 1 "$CORPUS"
  if measure "$RUNS" 0 "${PL_CMD[@]}"; then
    row "perflint --jobs 1" "$ALL_FILES" "$ALL_LINES" "$BEST" "$MEDIAN"
  fi
  # The project linker's share: the same run with the linker off (PERFLINT_LINKER=0, a benchmark
  # knob: step_entries answers nothing).
  if measure "$RUNS" 0 env PERFLINT_LINKER=0 "${PL_CMD[@]}"; then
    row "perflint --jobs 1, no linker" "$ALL_FILES" "$ALL_LINES" "$BEST" "$MEDIAN"
  fi
  perflint_cmd "$JOBS" "$CORPUS"
  if measure "$RUNS" 0 "${PL_CMD[@]}"; then
    row "perflint --jobs $JOBS" "$ALL_FILES" "$ALL_LINES" "$BEST" "$MEDIAN"
  fi
fi

F8_NOTE=""
if command -v flake8 > /dev/null; then
  F8_TARGET=$CORPUS F8_FILES=$ALL_FILES F8_LINES=$ALL_LINES
  if (( FLAKE8_FILES > 0 )); then
    make_subset "$FLAKE8_FILES" "$WORK/f8subset" "$WORK/f8.list"
    read -r F8_FILES F8_LINES _ _ < <(count_files "$WORK/f8.list")
    F8_TARGET=$WORK/f8subset
    F8_NOTE=" (flake8 on $F8_FILES files)"
  fi
  # --isolated: no user or project config; -j 1: one process, like perflint --jobs 1.
  if measure "$SLOW_RUNS" '0|1' flake8 --isolated -j 1 "$F8_TARGET"; then
    row "flake8 -j 1" "$F8_FILES" "$F8_LINES" "$BEST" "$MEDIAN"
  fi
else
  echo "note: flake8 not installed (apt-get install flake8); its row is skipped" >&2
fi

if (( PYLINT_FILES > 0 )) && command -v pylint > /dev/null; then
  make_subset "$PYLINT_FILES" "$WORK/plsubset" "$WORK/pl.list"
  read -r PLS_FILES PLS_LINES _ _ < <(count_files "$WORK/pl.list")
  measure "$RUNS" 0 sh -c '"$0" < "$1"' "$FLOOR" "$WORK/pl.list"
  row "subset: parse floor" "$PLS_FILES" "$PLS_LINES" "$BEST" "$MEDIAN"
  if (( HAVE_PERFLINT )); then
    perflint_cmd 1 "$WORK/plsubset"
    if measure "$RUNS" 0 "${PL_CMD[@]}"; then
      row "subset: perflint --jobs 1" "$PLS_FILES" "$PLS_LINES" "$BEST" "$MEDIAN"
    fi
  fi
  # pylint's exit code is a bit mask of the message kinds it emitted; 32 means a usage error.
  mapfile -t PL_FILES < "$WORK/pl.list"
  if measure "$SLOW_RUNS" '[0-9]|[12][0-9]|3[01]' \
       pylint --jobs=1 --persistent=n --rcfile=/dev/null --score=n "${PL_FILES[@]}"; then
    row "subset: pylint --jobs=1" "$PLS_FILES" "$PLS_LINES" "$BEST" "$MEDIAN"
  fi
elif (( PYLINT_FILES > 0 )); then
  echo "note: pylint not installed (apt-get install pylint); its row is skipped" >&2
fi

# One more perflint run, untimed, to show it really linted the corpus.
PL_SUMMARY="n/a"
if (( HAVE_PERFLINT )); then
  perflint_cmd "$JOBS" "$CORPUS"
  PL_CMD[-2]=$WORK/perflint.json  # the argument of -o
  if "${PL_CMD[@]}" 2> /dev/null && [[ -s $WORK/perflint.json ]]; then
    PL_SUMMARY=$(python3 - "$WORK/perflint.json" <<'PY' 2>/dev/null || echo "unreadable JSON"
import collections, json, sys
doc = json.load(open(sys.argv[1]))
codes = collections.Counter(f["code"] for f in doc.get("findings", []))
errors = doc.get("errors", [])
by_code = ", ".join(f"{c} {n}" for c, n in sorted(codes.items()))
line = f"{sum(codes.values())} findings" + (f" ({by_code})" if by_code else "")
line += f", {len(errors)} file errors"
if errors:
    e = errors[0]
    line += f" (first: {e.get('path', '?')}: {e.get('message', '?')})"
print(line)
PY
)
  fi
fi

# ---- (c) report ----------------------------------------------------------------------------------
echo
echo "machine: $(nproc) cores, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n 1)"
version_of() { "$@" 2> /dev/null | awk 'NR == 1 { print; exit }' || true; }  # no SIGPIPE under pipefail
PL_VERSION=n/a
(( HAVE_PERFLINT )) && PL_VERSION=$(version_of "$PERFLINT" --version)
echo "versions: $PL_VERSION | flake8 $(version_of flake8 --version | cut -d' ' -f1)" \
     "| pylint $(version_of pylint --version | cut -d' ' -f2)"
echo "perflint on the corpus: $PL_SUMMARY"
printf '\n%-28s %7s %9s %9s %9s %12s\n' tool files lines "best s" "median s" lines/s
for r in "${ROWS[@]}"; do
  IFS='|' read -r t f l s m lps <<< "$r"
  printf '%-28s %7s %9s %9.3f %9.3f %12s\n' "$t" "$f" "$l" "$s" "$m" "$lps"
done

ratio() {  # ratio LABEL NUMERATOR_LPS DENOMINATOR_LPS OP TARGET
  awk -v a="$2" -v b="$3" -v op="$4" -v t="$5" -v label="$1" 'BEGIN {
    if (a == "" || b == "" || b == 0) { printf "%-56s n/a\n", label; exit }
    r = a / b; pass = (op == "<=") ? (r <= t) : (r >= t)
    printf "%-56s %8.2fx   (target %s %s: %s)\n", label, r, op, t, pass ? "PASS" : "FAIL" }'
}
echo
if (( HAVE_PERFLINT )); then
  ratio "perflint --jobs 1 time / parse floor time" "$(lps_of 'parse floor (1 thread)')" \
        "$(lps_of 'perflint --jobs 1')" '<=' 1.30
  awk -v on="$(lps_of 'perflint --jobs 1')" -v off="$(lps_of 'perflint --jobs 1, no linker')" 'BEGIN {
    if (on == "" || off == "" || on == 0) { printf "%-56s n/a\n", "project linker share of perflint --jobs 1"; exit }
    printf "%-56s %7.1f%%   (time with the linker minus without, over with)\n", "project linker share of perflint --jobs 1", 100 * (1 / on - 1 / off) / (1 / on) }'
  ratio "flake8 time / perflint --jobs 1 time$F8_NOTE" "$(lps_of 'perflint --jobs 1')" \
        "$(lps_of 'flake8 -j 1')" '>=' 20
  if (( PYLINT_FILES > 0 )); then
    ratio "pylint / perflint --jobs 1, same subset" "$(lps_of 'subset: perflint --jobs 1')" \
          "$(lps_of 'subset: pylint --jobs=1')" '>=' 20
  fi
else
  ratio "flake8 time / parse floor time" "$(lps_of 'parse floor (1 thread)')" \
        "$(lps_of 'flake8 -j 1')" '>=' 20
fi
echo "(ratios are of lines/second, which equals the time ratio on the same files)"
