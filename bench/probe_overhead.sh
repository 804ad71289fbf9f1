#!/usr/bin/env bash
# Probe overhead: the same workload (bench/probe_workload.py) for the same number of steps, bare and
# under `perflint --probe` (shim only: no GPU tracing), in one invocation. The workload times its own
# steps, so both runs are measured the same way. Prints the per-step overhead ratio (target with the
# shim alone: at most 1.03) and the total wall-time ratio (start-up included).
#   BUILD=build PYTHON=/usr/bin/python3 STEPS=40 RUNS=3 bench/probe_overhead.sh
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
PYTHON=${PYTHON:-/usr/bin/python3}
STEPS=${STEPS:-40}
RUNS=${RUNS:-3}
WARMUP=5
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$PYTHON" -c "import torch" 2>/dev/null || { echo "probe_overhead: $PYTHON has no torch (apt-get install python3-torch)"; exit 1; }

# Median of the step times after the warm-up steps, from `step <i> <ms>` lines.
median_steps() {
  awk -v w="$WARMUP" '$1 == "step" && $2 >= w { print $3 }' "$1" | sort -g | awk '{ a[NR] = $1 } END {
    if (NR == 0) { print "nan"; exit } if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

best_bare_step=""; best_probe_step=""; best_bare_wall=""; best_probe_wall=""
for run in $(seq "$RUNS"); do
  t0=$(date +%s.%N)
  "$PYTHON" bench/probe_workload.py --steps "$STEPS" > "$work/bare.txt"
  t1=$(date +%s.%N)
  # The probe stops the script after warm-up + steps optimizer steps: the same count as the bare run.
  "$BUILD/perflint" --isolated --probe --warmup "$WARMUP" --steps $((STEPS - WARMUP)) --python "$PYTHON" \
      --show-output --output-format json -o "$work/report.json" --exit-zero \
      bench/probe_workload.py -- --steps 100000 2> "$work/probe.txt" > /dev/null
  t2=$(date +%s.%N)
  bare_step=$(median_steps "$work/bare.txt"); probe_step=$(median_steps "$work/probe.txt")
  bare_wall=$(echo "$t1 - $t0" | bc -l); probe_wall=$(echo "$t2 - $t1" | bc -l)
  echo "run $run: step median bare ${bare_step} ms, probe ${probe_step} ms; wall bare ${bare_wall} s, probe ${probe_wall} s"
  keep() { [ -z "$1" ] && echo "$2" || echo "if ($2 < $1) $2 else $1" | bc -l; }
  best_bare_step=$(keep "$best_bare_step" "$bare_step"); best_probe_step=$(keep "$best_probe_step" "$probe_step")
  best_bare_wall=$(keep "$best_bare_wall" "$bare_wall"); best_probe_wall=$(keep "$best_probe_wall" "$probe_wall")
done
step_ratio=$(echo "$best_probe_step / $best_bare_step" | bc -l)
wall_ratio=$(echo "$best_probe_wall / $best_bare_wall" | bc -l)
printf '\nworkload: bench/probe_workload.py, %d steps (%d warm-up), best of %d runs\n' "$STEPS" "$WARMUP" "$RUNS"
printf 'per-step overhead ratio (probe / bare median step): %.3f  (target <= 1.03, shim only: %s)\n' \
  "$step_ratio" "$(echo "$step_ratio <= 1.03" | bc -l | sed 's/1/PASS/;s/0/FAIL/')"
printf 'total wall-time ratio (probe / bare, start-up and static audit included): %.3f\n' "$wall_ratio"
