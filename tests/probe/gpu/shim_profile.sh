#!/usr/bin/env bash
# Where the shim's per-step time goes on a launch-bound GPU step (docs/probe-validation.md): the bare
# workload, the probed one, the probed one without sync-debug attribution (NOSYNC), two rounds
# interleaved, then one probed run under cProfile (tests/probe/gpu/profile_python.py), whose top
# functions and the shim's own are printed. Each line: the workload's median step after 5 warm-up.
#   OUT=/tmp/gp PYTHON=python3 N=300 bash tests/probe/gpu/shim_profile.sh
# Runs on a CPU-only machine too with WL="--width 16 --depth 8 --batch 4" PYTHON=/usr/bin/python3.
set -u
cd "$(dirname "$0")/../../.."
OUT=${OUT:-/tmp/shim-profile}
mkdir -p "$OUT"
PY=${PYTHON:-python3}
WL=${WL:-"--device cuda --width 256 --depth 8 --batch 64"}
N=${N:-300}
BUILD=${BUILD:-build}
wrapper=$OUT/python.sh
printf '#!/bin/sh\nexec %s %s "$@"\n' "$PY" "$PWD/tests/probe/gpu/profile_python.py" > "$wrapper"
chmod +x "$wrapper"
median() { awk '$1 == "step" && $2 >= 5 { print $3 }' "$1" | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)], "ms median of", NR, "steps" }'; }
probe() {  # TAG ENV=VALUE...
  local tag=$1; shift
  env "$@" timeout 120 "$BUILD/perflint" --isolated --probe --warmup 5 --steps $((N - 5)) --python "$wrapper" \
      --show-output --exit-zero --evidence-dir "$OUT/ev_$tag" -o "$OUT/report_$tag.txt" \
      bench/probe_workload.py -- --steps 100000 $WL 2> "$OUT/steps_$tag.txt" > /dev/null
  echo "$tag: $(median "$OUT/steps_$tag.txt")"
}
for round in 1 2; do
  "$PY" bench/probe_workload.py --steps "$N" $WL > "$OUT/steps_bare$round.txt"
  echo "bare$round: $(median "$OUT/steps_bare$round.txt")"
  probe "probe$round" PERFLINT_UNUSED=1
  probe "nosync$round" NOSYNC=1
done
probe profiled PROF="$OUT/shim.prof"
"$PY" -c "import pstats, sys; p = pstats.Stats(sys.argv[1]); p.sort_stats('tottime').print_stats(20)
p.sort_stats('cumulative').print_stats('perflint_probe', 25)" "$OUT/shim.prof" 2>&1 | grep -v '^$' | cut -c1-150
