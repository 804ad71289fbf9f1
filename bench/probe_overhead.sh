#!/usr/bin/env bash
# Probe overhead: the same workload (bench/probe_workload.py) for the same number of steps, bare and
# under `perflint --probe` (shim only, phases on: no GPU tracing), in alternating pairs. The workload
# times its own steps, so both runs are measured the same way. Prints each pair's per-step overhead
# ratio and their mean ± standard deviation (target: mean at most 1.02, 2% per step on CPU).
#   BUILD=build PYTHON=/usr/bin/python3 STEPS=40 PAIRS=6 bench/probe_overhead.sh
# WORKLOAD_ARGS go to the workload in both runs (the GPU checks pass "--device cuda ..."); with
# PERFLINT_CUPTI=1 in the environment the probed runs also trace the GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
PYTHON=${PYTHON:-/usr/bin/python3}
STEPS=${STEPS:-40}
PAIRS=${PAIRS:-6}
WARMUP=5
TARGET=${TARGET:-1.02}  # the issue's targets: 1.02 on CPU; on a GPU 1.03 shim only, 1.10 with CUPTI
read -r -a WORKLOAD <<< "${WORKLOAD_ARGS:-}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$PYTHON" -c "import torch" 2>/dev/null || { echo "probe_overhead: $PYTHON has no torch (apt-get install python3-torch)"; exit 1; }

# Median of the step times after the warm-up steps, from `step <i> <ms>` lines.
median_steps() {
  awk -v w="$WARMUP" '$1 == "step" && $2 >= w { print $3 }' "$1" | sort -g | awk '{ a[NR] = $1 } END {
    if (NR == 0) { print "nan"; exit } if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

# Alternating paired runs: each pair runs the bare script and the probed one back to back, the order
# flipped every other pair so that a machine getting busier or quieter does not favour either side.
# Each pair gives one ratio (probe / bare median step); the report is their mean ± standard
# deviation, min and max — the figure users trust, as TraceML reports its overhead.
run_bare() { "$PYTHON" bench/probe_workload.py --steps "$STEPS" "${WORKLOAD[@]}" > "$work/bare.txt"; }
run_probe() {
  # The probe stops the script after warm-up + steps optimizer steps: the same count as the bare run.
  "$BUILD/perflint" --isolated --probe --warmup "$WARMUP" --steps $((STEPS - WARMUP)) --python "$PYTHON" \
      --show-output --output-format json -o "$work/report.json" --exit-zero \
      bench/probe_workload.py -- --steps 100000 "${WORKLOAD[@]}" 2> "$work/probe.txt" > /dev/null
}
# One pair first, not counted: the first run of a session pays for cold file caches and a CPU that
# has not clocked up (it measured 44 ms against 30 ms for every later run).
run_bare; run_probe
ratios=()
for pair in $(seq "$PAIRS"); do
  if (( pair % 2 )); then run_bare; run_probe; else run_probe; run_bare; fi
  bare_step=$(median_steps "$work/bare.txt"); probe_step=$(median_steps "$work/probe.txt")
  ratio=$(awk -v a="$probe_step" -v b="$bare_step" 'BEGIN { printf "%.6f", a / b }')
  ratios+=("$ratio")
  printf 'pair %d (%s first): median step bare %s ms, probe %s ms, ratio %.4f\n' "$pair" \
    "$( (( pair % 2 )) && echo bare || echo probe)" "$bare_step" "$probe_step" "$ratio"
done
phases=$(python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["probe"].get("phases"); print("on" if p else "off")' \
  "$work/report.json" 2>/dev/null || echo "?")
med=$(printf '%s\n' "${ratios[@]}" | sort -g | awk '{ a[NR] = $1 } END { print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }')
printf '%s\n' "${ratios[@]}" | awk -v med="$med" -v pairs="$PAIRS" -v steps="$STEPS" -v warm="$WARMUP" -v phases="$phases" -v target="$TARGET" '
  { r[NR] = $1; s += $1 } END {
    m = s / NR; for (i = 1; i <= NR; i++) v += (r[i] - m) ^ 2; sd = NR > 1 ? sqrt(v / (NR - 1)) : 0
    lo = r[1]; hi = r[1]; for (i = 2; i <= NR; i++) { if (r[i] < lo) lo = r[i]; if (r[i] > hi) hi = r[i] }
    printf "\nworkload: bench/probe_workload.py, %d steps (%d warm-up), %d alternating pairs, phases %s\n", steps, warm, pairs, phases
    printf "per-step overhead ratio (probe / bare median step): mean %.4f +- %.4f (sd), median %.4f, min %.4f, max %.4f\n", m, sd, med, lo, hi
    printf "target: mean <= %s: %s\n", target, (m <= target ? "PASS" : "FAIL")
  }'
